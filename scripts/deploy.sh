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
for arg in "$@"; do
  case "$arg" in
    -h | --help)
      cat <<'USAGE'
Usage: bash scripts/deploy.sh [-c config=PATH] [STACK ... | --all] [cdk deploy options]

Deploys the stacks of the platform a config describes (default: config/default.yaml), through the pinned
CDK CLI. Relative paths mean the folder you run it from; the assembly goes to ./cdk.out there.

  -c config=PATH   the platform config (or set INFERENCE_CONFIG)
  --all            every stack of the platform (`python -m inference_constructs plan CONFIG` lists them)
  --profile NAME   the AWS profile to deploy with (else AWS_PROFILE, the environment, SSO or a role)

It checks that AWS credentials resolve before it synthesizes. Every other option goes to `cdk deploy`
(`node_modules/.bin/cdk deploy --help` lists them). Before the first deploy: docs/deploy.md (credentials,
`cdk bootstrap` once per account and Region, the deploy order and rollback).
USAGE
      exit 0
      ;;
  esac
done
source "$HERE/_cdk_args.sh"
caller_cdk_args "$@"
source "$HERE/bootstrap.sh"
.venv/bin/python scripts/check_credentials.py "$@" || exit $?
exec cdk deploy --no-notices --no-version-reporting --no-path-metadata --no-asset-metadata "${CDK_ARGS[@]}"
