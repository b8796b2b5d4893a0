"""Command line: ``python -m inference_constructs plan CONFIG [--json]``, ``diff OLD NEW`` (see
:mod:`inference_constructs.diff`), and ``loadtest``, ``recommend-job`` and ``results``, which the load tester
runs (the ``inference-loadtest`` distribution, installed by the ``loadtest`` extra; without it they exit 2
with the install command).

Prints the plan (a table, or with ``--json`` the JSON document) without synthesizing and without
importing aws_cdk. An invalid config exits 2: the :class:`InferenceConfigError` message on stderr, or with
``--json`` the JSON error document on stdout::

    {"error": "<the message>", "problems": [{"path": ..., "what": ..., "fix": ..., "code": ...}, ...]}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from inference_constructs.errors import InferenceConfigError

EXIT_CONFIG_ERROR = 2
PROG = "python -m inference_constructs"
#: The load tester's commands, handed to ``inference_loadtest.cli`` (imported only for them), with their help.
LOADTEST_COMMANDS = {
    "loadtest": "measure TTFT, inter-token latency, throughput and cost per token of a deployed endpoint or profile",
    "recommend-job": "write (or --submit) a SageMaker Inference Recommender job that confirms a plan endpoint's host",
    "results": "read a finished Inference Recommender job into a report",
    "compare": "two load-test reports side by side: every level's figures, B - A, a chart",
}


#: What ``--help`` says first: plain text (the module docstring is for the API docs).
DESCRIPTION = """\
Plan, compare and load-test an inference platform described in one YAML config.

  plan CONFIG [--json]    the decisions (hosts, images, scaling, cost) without synthesizing or AWS access
  diff OLD NEW            what a config change does: changes, replacements, cost and commitment deltas
  loadtest ...            measure a deployed endpoint or profile (needs the loadtest extra)
  compare A.json B.json   two load-test reports side by side (needs the loadtest extra)"""

#: Where ``--help`` ends: exit codes and where to read on.
EPILOG = """\
An invalid config exits 2 with every problem on stderr (with --json: a JSON error document on stdout).
Each command has its own --help. Docs: docs/config.md (the config), docs/diff.md, docs/loadtest.md."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in LOADTEST_COMMANDS:
        return _loadtest(args_list)
    parser = argparse.ArgumentParser(
        prog=PROG, description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    plan_cmd = sub.add_parser("plan", help="print the decisions for a platform config without synthesizing")
    plan_cmd.add_argument("config", help="path to the platform YAML file")
    plan_cmd.add_argument("--json", action="store_true", help="print the plan document as JSON")
    from inference_constructs import diff

    for name, text in LOADTEST_COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)  # listed here; main() hands them over before parsing
    diff.add_command(sub)
    args = parser.parse_args(args_list)
    if args.command == "diff":
        return diff.run(args, sys.stdout, sys.stderr)

    from inference_constructs.config import load_config
    from inference_constructs.plan import plan_platform

    try:
        plan = plan_platform(load_config(args.config))
    except InferenceConfigError as exc:
        if args.json:
            sys.stdout.write(json.dumps(exc.to_json(), indent=2) + "\n")
        else:
            print(exc, file=sys.stderr)
        return EXIT_CONFIG_ERROR
    sys.stdout.write(plan.to_json_text() if args.json else plan.table())
    return 0


def _loadtest(argv: list[str]) -> int:
    """Run a load-tester command through the ``inference-loadtest`` distribution, or say how to install it."""
    try:
        from inference_loadtest.cli import main as loadtest_main
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "inference_loadtest":
            raise  # the tester is there but something it needs is not: its own message says what
        print(
            f"{PROG} {argv[0]}: the load tester is not installed; install it with: "
            "pip install 'inference-constructs[loadtest]'",
            file=sys.stderr,
        )
        return EXIT_CONFIG_ERROR
    return loadtest_main(argv, prog=PROG, run_name="loadtest")


if __name__ == "__main__":
    sys.exit(main())
