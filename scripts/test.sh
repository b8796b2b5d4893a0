#!/usr/bin/env bash
# Runs the whole suite: ruff, mypy, and pytest (the contract, the import boundaries and the template gates included).
# mypy runs beside pytest (pytest leaves a core idle at times: its workers wait on subprocesses, one worker runs the
# last file alone); mypy's report is printed once both are done, and either failing fails the run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
echo "== ruff"
ruff check .
ruff format --check --quiet .
work="$(mktemp -d)"
trap 'kill "${mypy_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
# The consumer app's mypy test starts from this run's mypy cache: it waits for the exit-status file.
export INFERENCE_MYPY_DONE="$work/mypy.status"
{ mypy >"$work/mypy.log" 2>&1 && echo 0 >"$work/status" || echo $? >"$work/status"; mv "$work/status" "$INFERENCE_MYPY_DONE"; } &
mypy_pid=$!
echo "== pytest (mypy beside it)"
status=0
python -m pytest -n auto --dist loadfile "$@" || status=$?
wait "$mypy_pid" || true
mypy_pid=
echo "== mypy"
cat "$work/mypy.log"
mypy_status="$(cat "$INFERENCE_MYPY_DONE" 2>/dev/null || echo 1)"
[ "$status" -ne 0 ] || status="$mypy_status"
exit "$status"
