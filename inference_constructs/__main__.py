"""Command line: ``python -m inference_constructs plan CONFIG [--json]``, ``diff OLD NEW`` (see
:mod:`inference_constructs.diff`), and ``loadtest``, ``recommend-job``
and ``results`` (see :mod:`inference_constructs.loadtest.cli`).

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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m inference_constructs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    plan_cmd = sub.add_parser("plan", help="print the decisions for a platform config without synthesizing")
    plan_cmd.add_argument("config", help="path to the platform YAML file")
    plan_cmd.add_argument("--json", action="store_true", help="print the plan document as JSON")
    from inference_constructs import diff
    from inference_constructs.loadtest.cli import COMMANDS, add_commands, run_command

    add_commands(sub)
    diff.add_command(sub)
    args = parser.parse_args(argv)
    if args.command in COMMANDS:
        return run_command(args)
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


if __name__ == "__main__":
    sys.exit(main())
