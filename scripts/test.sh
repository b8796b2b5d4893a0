#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy, and pytest (the contract, the import boundaries and the template gates included).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
echo "== ruff"
ruff check .
ruff format --check --quiet .
echo "== mypy"; mypy
echo "== pytest"; exec python -m pytest -n auto --dist loadfile "$@"
