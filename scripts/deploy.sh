#!/usr/bin/env bash
# Deploys the platform a config describes through the pinned CDK CLI (docs/deploy.md):
#   bash scripts/deploy.sh [-c config=PATH] [stack names, or --all] [other `cdk deploy` arguments]
# Same config and output rules as synth.sh (relative paths mean the directory you run it from; the assembly
# goes to ./cdk.out there). Needs AWS credentials for the target account and a bootstrapped environment
# (`cdk bootstrap`, see docs/deploy.md). Run it with bash, in its own process: it never changes the calling shell.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  echo "run scripts/deploy.sh with bash (bash scripts/deploy.sh ...), not source: it would change your shell" >&2
  return 1
fi
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/_cdk_args.sh"
caller_cdk_args "$@"
source "$HERE/bootstrap.sh"
exec cdk deploy --no-notices --no-version-reporting --no-path-metadata --no-asset-metadata "${CDK_ARGS[@]}"
