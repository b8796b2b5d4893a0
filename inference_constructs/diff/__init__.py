"""``python -m inference_constructs diff OLD NEW``: what a config change does, before it is deployed.

- Plan side (pure Python): per endpoint and Bedrock profile, what changes; the monthly cost at minimum and maximum
  capacity with totals; the Savings Plan commitment; the plan's warnings with stable codes, new ones listed
  (:mod:`~inference_constructs.diff.plans`, :mod:`~inference_constructs.diff.warnings`).
- Template side: per resource (stack + logical id), added, removed, updated in place, replaced or moved, the
  property that forces each replacement (the create-only properties of the CloudFormation resource schemas that
  cfn-lint bundles), which replacements a user sees, and the updates CloudFormation refuses
  (:mod:`~inference_constructs.diff.templates`, :mod:`~inference_constructs.diff.schemas`).
- Output as a table, JSON or Markdown; gates ``--fail-over-usd N`` and ``--fail-on-replacement``
  (:mod:`~inference_constructs.diff.cli`). Exit codes: 0, 1 when a gate is crossed, 2 for invalid input.

Importing this package does not import ``aws_cdk``; only diffing two configs (which synthesizes them) does.
"""

from inference_constructs.diff.cli import EXIT_GATE, EXIT_INVALID, add_command, compare, run
from inference_constructs.diff.plans import Change, ItemDiff, PlanDiff, diff_plans, load_plan
from inference_constructs.diff.report import DiffReport, Gates
from inference_constructs.diff.templates import ResourceChange, TemplateDiff, diff_templates
from inference_constructs.diff.warnings import WARNING_CODES, PlanWarning

__all__ = [
    "EXIT_GATE",
    "EXIT_INVALID",
    "WARNING_CODES",
    "Change",
    "DiffReport",
    "Gates",
    "ItemDiff",
    "PlanDiff",
    "PlanWarning",
    "ResourceChange",
    "TemplateDiff",
    "add_command",
    "compare",
    "diff_plans",
    "diff_templates",
    "load_plan",
    "run",
]
