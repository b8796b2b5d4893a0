"""``python -m inference_constructs diff OLD NEW``: the argument parser and the exit codes."""

from __future__ import annotations

import argparse
import json
from typing import Any

from inference_constructs.diff.plans import diff_plans
from inference_constructs.diff.report import DiffReport, Gates
from inference_constructs.diff.sources import load_side
from inference_constructs.diff.templates import diff_templates
from inference_constructs.errors import InferenceConfigError

__all__ = ["EXIT_GATE", "EXIT_INVALID", "add_command", "compare", "run"]

EXIT_GATE = 1
"""Exit code when a gate is crossed."""
EXIT_INVALID = 2
"""Exit code for an unreadable or invalid config, plan document or cloud assembly (the error on stderr)."""


def compare(old: str, new: str, *, synthesize: bool = True) -> DiffReport:
    """Diff two configs or plan JSON files: the plans always, the templates when both sides have them.

    Parameters
    ----------
    old, new:
        A platform config (YAML), a plan document in a cloud assembly (``cdk.out/inference-plan.json``: the
        templates beside it are compared) or a plan document elsewhere (plan only).
    synthesize:
        Synthesize configs into temporary cloud assemblies to compare their templates. Default: yes (each
        synth takes seconds); False compares the plans only.

    Raises
    ------
    InferenceConfigError
        An unreadable or invalid input (naming the tried path), or a synth a compliance gate refused.
    """
    before, after = load_side(old, synthesize=synthesize), load_side(new, synthesize=synthesize)
    plans = diff_plans(before.plan, after.plan)
    if before.templates is None or after.templates is None:
        why = "; ".join(dict.fromkeys(s.why_no_templates for s in (before, after) if s.templates is None))
        return DiffReport(plans, None, why)
    return DiffReport(plans, diff_templates(before.templates, after.templates))


def add_command(sub: Any) -> None:
    """Add the ``diff`` subcommand to an ``argparse`` subparsers object."""
    cmd = sub.add_parser(
        "diff",
        help="compare two configs or plan JSON files: changes, replacements, cost and commitment deltas, warnings",
    )
    cmd.add_argument("old", help="the current config (YAML) or plan document (cdk.out/inference-plan.json)")
    cmd.add_argument("new", help="the proposed config (YAML) or plan document (cdk.out/inference-plan.json)")
    fmt = cmd.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the diff as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the diff as Markdown (a pull-request comment)")
    cmd.add_argument(
        "--no-synth", action="store_true", help="compare configs by their plans only (no synth, no replacements)"
    )
    cmd.add_argument(
        "--fail-over-usd",
        type=float,
        default=None,
        metavar="N",
        help="exit 1 when the monthly cost at maximum capacity rises by more than N USD",
    )
    cmd.add_argument(
        "--fail-on-replacement",
        action="store_true",
        help="exit 1 when a user-facing resource is replaced, a resource moves stack, or the update would fail",
    )


def run(args: argparse.Namespace, out: Any, err: Any) -> int:
    """Run ``diff`` with parsed ``args``; returns the exit code (0, :data:`EXIT_GATE`, :data:`EXIT_INVALID`)."""
    try:
        report = compare(args.old, args.new, synthesize=not args.no_synth)
    except InferenceConfigError as exc:
        print(exc, file=err)
        return EXIT_INVALID
    gates = Gates(fail_over_usd=args.fail_over_usd, fail_on_replacement=args.fail_on_replacement)
    if args.json:
        out.write(json.dumps(report.to_dict(gates), indent=2) + "\n")
    elif args.markdown:
        out.write(report.markdown(gates))
    else:
        out.write(report.table(gates))
    crossed = report.crossed(gates)
    for line in crossed:
        print(f"gate crossed: {line}", file=err)
    return EXIT_GATE if crossed else 0
