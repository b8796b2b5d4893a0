#!/usr/bin/env bash
# Every benchmark in one command, from a fresh clone: installs what is missing (scripts/bootstrap.sh,
# idempotent), then prints the machine, the optimality tables and the synth tables.
# Usage: bash benchmarks/run.sh [--quick] [--repeat K]
set -euo pipefail
# shellcheck source=../scripts/bootstrap.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/bootstrap.sh"
exec python -m benchmarks.run "$@"
