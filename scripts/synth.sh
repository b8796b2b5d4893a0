#!/usr/bin/env bash
# Synthesizes the platform described by config/default.yaml (or INFERENCE_CONFIG / -c config=PATH)
# into cdk.out/ through the pinned CDK CLI. Extra arguments go to `cdk synth`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
exec cdk synth --quiet --no-notices --no-version-reporting --no-path-metadata --no-asset-metadata "$@"
