"""The gates every synthesized config must pass: zero cdk-nag violations (AwsSolutions, NIST 800-53 R5,
HIPAA Security), zero cfn-lint errors and warnings, byte-identical output from two synths, and a plan
document beside the templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference_constructs.compliance import guard_rule_files
from inference_constructs.observability.validate import validate_template
from tests.gates.conftest import config_ids
from tests.gates.guard_equivalence import compare
from tests.gates.synth import Assembly, lint, violations

CONFIG_IDS = config_ids()


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_no_nag_violations(assemblies: dict[str, tuple[Assembly, Assembly]], config: str) -> None:
    # GIVEN the config synthesized with the three packs as validation plugins
    first, _ = assemblies[config]
    # THEN synth did not fail and the report lists no violation
    assert violations(first.report) == []
    assert first.error is None


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_every_template_lints_clean(assemblies: dict[str, tuple[Assembly, Assembly]], config: str) -> None:
    first, _ = assemblies[config]
    assert first.templates, "the config synthesized no template"
    problems = {name: lint(template) for name, template in first.templates.items()}
    assert {name: found for name, found in problems.items() if found} == {}


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_two_synths_are_byte_identical(assemblies: dict[str, tuple[Assembly, Assembly]], config: str) -> None:
    first, second = assemblies[config]
    a, b = first.files, second.files
    assert sorted(a) == sorted(b)
    assert [name for name in a if a[name] != b[name]] == []


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_plan_is_written_beside_the_templates(assemblies: dict[str, tuple[Assembly, Assembly]], config: str) -> None:
    first, _ = assemblies[config]
    plan = first.plan
    assert {"endpoints", "prices_as_of", "baseline_usd_per_hour", "savings_plan", "warnings"} <= set(plan)


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_every_dashboard_and_alarm_expression_is_valid(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str
) -> None:
    # GIVEN every synthesized template THEN SEARCH syntax, limits, ids hold and no alarm uses SEARCH
    first, _ = assemblies[config]
    problems = {name: validate_template(template) for name, template in first.templates.items()}
    assert {name: found for name, found in problems.items() if found} == {}


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_no_error_annotations(assemblies: dict[str, tuple[Assembly, Assembly]], config: str) -> None:
    # GIVEN the required cost-allocation tag aspect THEN no resource lacks a required key
    first, _ = assemblies[config]
    assert first.error_annotations == []


def test_selected_control_tower_rules_find_what_the_full_set_finds(
    assemblies: dict[str, tuple[Assembly, Assembly]], tmp_path: Path
) -> None:
    # GIVEN every shipped config's templates WHEN cfn-guard runs the full bundled set and the selection
    configs = {name: sorted(first.outdir.glob("*.template.json")) for name, (first, _) in assemblies.items()}
    problems, counts, findings = compare(configs, tmp_path)
    # THEN the failed rules are the same on every template, and every rule left out was skipped by the full run
    assert problems == []
    assert findings > 0  # the templates hold findings (acknowledged ones) for the comparison to see
    assert all(0 < n < len(guard_rule_files()) for n in counts.values()), counts
