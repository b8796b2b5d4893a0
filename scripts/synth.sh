#!/usr/bin/env bash
# Synthesizes the platform a config describes into a cloud assembly through the pinned CDK CLI:
#   bash scripts/synth.sh [-c config=PATH] [-o DIR] [other `cdk synth` arguments]
# Config: -c config=PATH, else $INFERENCE_CONFIG, else the repository's config/default.yaml. Relative PATH and
# DIR mean the directory you run it from; the output defaults to ./cdk.out there. Every synth empties the output
# directory first (a failed one puts the earlier output back). Run it with bash, in its own process: it never
# changes the calling shell.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  echo "run scripts/synth.sh with bash (bash scripts/synth.sh ...), not source: it would change your shell" >&2
  return 1
fi
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/_cdk_args.sh"
caller_cdk_args "$@"
source "$HERE/bootstrap.sh"
exec cdk synth --quiet --no-notices --no-version-reporting --no-path-metadata --no-asset-metadata "${CDK_ARGS[@]}"
