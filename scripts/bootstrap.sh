#!/usr/bin/env bash
# Installs what the project needs, idempotently: a venv (.venv) with the pinned packages and the
# pinned CDK CLI (node_modules). Re-runs install only when a requirements file or the npm lock changed.
# Sourced by scripts/synth.sh, deploy.sh and test.sh (in their own process); it also sets the offline-safe
# environment and moves into the repository. INFERENCE_NO_INSTALL=1 installs nothing (a provisioned machine,
# a pipeline's build image, the tests) and only checks that .venv and the CDK CLI are there.
if [[ $- == *i* ]]; then
  echo "bootstrap.sh is for the scripts: it would change your shell (set -e, cd, PATH). Run bash scripts/synth.sh," \
    "bash scripts/deploy.sh or bash scripts/test.sh instead" >&2
  return 1
fi
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

# Offline-safe CDK and jsii: no telemetry, no notices, no version check, no Node end-of-life banner.
export CDK_DISABLE_CLI_TELEMETRY=true
export CDK_DISABLE_VERSION_CHECK=true
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="$NODE_MAJOR"
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1
export JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION=1
export PIP_DISABLE_PIP_VERSION_CHECK=1

stamp_of() { cat "$@" | sha256sum | cut -c1-16; }

# pip check. The first check runs before the library is installed (editable, below): there the load tester's
# requirement of inference-constructs is met by the checkout, so that one line is not a problem.
pip_check() {
  local problems
  problems="$(.venv/bin/python -m pip check 2>&1 | grep -v -e '^No broken requirements found' \
    -e '^inference-loadtest [^ ]* requires inference-constructs, which is not installed' || true)"
  [ -z "$problems" ] || { echo "$problems" >&2; exit 1; }
}

if [ "${INFERENCE_NO_INSTALL:-}" = 1 ]; then
  [ -x .venv/bin/python ] || { echo "bootstrap: INFERENCE_NO_INSTALL=1 but $ROOT/.venv is missing" >&2; exit 1; }
  [ -x node_modules/.bin/cdk ] || { echo "bootstrap: INFERENCE_NO_INSTALL=1 but $ROOT/node_modules/.bin/cdk is missing" >&2; exit 1; }
fi

py_stamp="$(stamp_of requirements.txt requirements-dev.txt pyproject.toml)"
if [ "${INFERENCE_NO_INSTALL:-}" != 1 ] && { [ ! -x .venv/bin/python ] || [ "$(cat .venv/.stamp 2>/dev/null)" != "$py_stamp" ]; }; then
  echo "bootstrap: installing Python packages into .venv" >&2
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip 2>&1 | grep -v '^WARNING: Location' >&2 || true
  # --no-compile, then compileall on every core: pip byte-compiles one file at a time, and aws-cdk-lib alone is
  # over half a minute of it; without byte code every process would compile the sources again at import.
  .venv/bin/python -m pip install --quiet --no-compile -r requirements-dev.txt 2>&1 | { grep -v '^WARNING: Location' >&2 || true; }
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bootstrap: pip install failed" >&2; exit 1; }
  .venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
    >/dev/null 2>&1 || true
  pip_check
  .venv/bin/python -c "import aws_cdk, cdk_nag, pydantic, yaml, cfnlint, pytest" \
    || { echo "bootstrap: Python packages failed to install" >&2; exit 1; }
  echo "$py_stamp" > .venv/.stamp
fi

# The library itself, editable, so a console command that imports it (the load tester's `inference-loadtest`) works
# from any folder, not only from the repository root. --no-deps: its dependencies are the pins above;
# --no-build-isolation: offline, with the pinned setuptools. Reinstalled only when pyproject.toml or the checkout's
# folder changed (an editable install points at the folder).
if [ "${INFERENCE_NO_INSTALL:-}" != 1 ]; then
  lib_stamp="$(printf '%s\n' "$ROOT" | cat - pyproject.toml | sha256sum | cut -c1-16)"
  if [ "$(cat .venv/.library-stamp 2>/dev/null)" != "$lib_stamp" ]; then
    echo "bootstrap: installing the library (editable) into .venv" >&2
    .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation --editable . 2>&1 \
      | { grep -v '^WARNING: Location' >&2 || true; }
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bootstrap: pip install of the library failed" >&2; exit 1; }
    echo "$lib_stamp" > .venv/.library-stamp
  fi
fi

# The load tester: its own distribution in loadtest/ (what the library's `loadtest` extra installs), editable, so
# .venv runs this checkout's copy and has the `inference-loadtest` command. --no-deps: its dependencies are pinned
# above (boto3, matplotlib) or the library itself, installed editable above; --no-build-isolation: offline, with the
# pinned setuptools. Reinstalled when its pyproject.toml changed.
if [ "${INFERENCE_NO_INSTALL:-}" != 1 ]; then
  lt_stamp="$(stamp_of loadtest/pyproject.toml)"
  if [ "$(cat .venv/.loadtest-stamp 2>/dev/null)" != "$lt_stamp" ]; then
    echo "bootstrap: installing the load tester (loadtest/, editable) into .venv" >&2
    .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation --editable ./loadtest 2>&1 \
      | { grep -v '^WARNING: Location' >&2 || true; }
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bootstrap: pip install of the load tester failed" >&2; exit 1; }
    pip_check
    echo "$lt_stamp" > .venv/.loadtest-stamp
  fi
fi

# The oldest botocore the Lambda handlers must work with (requirements-sdk-floor.txt): the handler tests load its
# service models. Its own folder, never on sys.path; installed once per pinned version.
sdk_floor="$(sed -n 's/^botocore==//p' requirements-sdk-floor.txt)"
sdk_floor_dir=".venv/botocore-$sdk_floor"
if [ ! -f "$sdk_floor_dir/botocore/data/bedrock/2023-04-20/service-2.json" ]; then
  if [ "${INFERENCE_NO_INSTALL:-}" = 1 ]; then
    echo "bootstrap: INFERENCE_NO_INSTALL=1 but $ROOT/$sdk_floor_dir is missing (botocore $sdk_floor for the handler tests)" >&2
    exit 1
  fi
  echo "bootstrap: installing botocore $sdk_floor (service models for the handler tests) into $sdk_floor_dir" >&2
  rm -rf "$sdk_floor_dir"
  .venv/bin/python -m pip install --quiet --no-deps --no-compile --target "$sdk_floor_dir" "botocore==$sdk_floor" 2>&1 \
    | { grep -v '^WARNING: Location' >&2 || true; }
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "bootstrap: pip install of botocore $sdk_floor failed" >&2; exit 1; }
fi

npm_stamp="$(stamp_of package.json package-lock.json)"
if [ "${INFERENCE_NO_INSTALL:-}" != 1 ] && { [ ! -x node_modules/.bin/cdk ] || [ "$(cat node_modules/.stamp 2>/dev/null)" != "$npm_stamp" ]; }; then
  echo "bootstrap: installing the pinned CDK CLI into node_modules" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$npm_stamp" > node_modules/.stamp
fi

export PATH="$ROOT/.venv/bin:$ROOT/node_modules/.bin:$PATH"
export VIRTUAL_ENV="$ROOT/.venv"
