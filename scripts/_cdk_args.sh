# Sourced by synth.sh and deploy.sh (never by a user's shell) BEFORE bootstrap.sh moves into the repository:
# relative config and output paths on a `cdk` command line mean the caller's working directory, not the repo.
#   -c config=PATH / --context config=PATH / --context=config=PATH, $INFERENCE_CONFIG, -o/--output DIR
# become absolute against CALLER; without -o the output is CALLER/cdk.out. Result: the array CDK_ARGS.
# The default config (no -c config, no INFERENCE_CONFIG) stays the repository's config/default.yaml.

CALLER="$PWD"

absolute_path() {
  case "$1" in
    /*) printf '%s' "$1" ;;
    *) printf '%s/%s' "$CALLER" "$1" ;;
  esac
}

needs_value() {
  if [ "$1" -lt 2 ]; then
    echo "$2 needs a value" >&2
    exit 2
  fi
}

caller_cdk_args() {
  CDK_ARGS=()
  local output_given=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -o | --output)
        needs_value $# "$1"
        CDK_ARGS+=("$1" "$(absolute_path "$2")")
        output_given=1
        shift 2
        ;;
      --output=*)
        CDK_ARGS+=("--output=$(absolute_path "${1#--output=}")")
        output_given=1
        shift
        ;;
      -c | --context)
        needs_value $# "$1"
        case "$2" in
          config=*) CDK_ARGS+=("$1" "config=$(absolute_path "${2#config=}")") ;;
          *) CDK_ARGS+=("$1" "$2") ;;
        esac
        shift 2
        ;;
      --context=config=*)
        CDK_ARGS+=("--context=config=$(absolute_path "${1#--context=config=}")")
        shift
        ;;
      *)
        CDK_ARGS+=("$1")
        shift
        ;;
    esac
  done
  [ -n "$output_given" ] || CDK_ARGS+=(--output "$CALLER/cdk.out")
  if [ -n "${INFERENCE_CONFIG:-}" ]; then
    INFERENCE_CONFIG="$(absolute_path "$INFERENCE_CONFIG")"
    export INFERENCE_CONFIG
  fi
}
