#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy, the contract check, and pytest (template gates included).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
echo "== ruff"; ruff check . && ruff format --check --quiet .
echo "== mypy"; mypy
CONTRACT="${SHARED_DIR:-../shared}/contract/check_contract.py"
if [ -f "$CONTRACT" ]; then echo "== contract"; python "$CONTRACT"; else echo "== contract: $CONTRACT not found, skipped"; fi
echo "== pytest"; exec python -m pytest "$@"
