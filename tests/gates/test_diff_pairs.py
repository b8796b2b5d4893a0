"""``diff`` on before/after pairs of the default platform: the routine changes a platform team makes, each
synthesized once per session, with the replacements, cost deltas and gates ``diff`` reports, and an independent
oracle: the pinned CDK CLI's ``cdk diff --template OLD --app NEW_ASSEMBLY`` (offline: it reads the assembly
directory and the template file, no account or credentials) must call the same resources "replace"."""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from inference_constructs.__main__ import main
from inference_constructs.diff import DiffReport, compare
from inference_constructs.plan import HOURS_PER_MONTH
from tests.gates import update_oracle as oracle
from tests.gates.synth import ROOT, synth_templates

BASE: dict[str, Any] = yaml.safe_load((ROOT / "config" / "default.yaml").read_text())


def _model_bump(c: dict[str, Any]) -> None:
    c["bedrock"]["profiles"][0]["model"] = "us.anthropic.claude-sonnet-4-20250514-v1:0"


def _instance_type(c: dict[str, Any]) -> None:
    c["endpoints"][0]["instance_type"] = "ml.g6e.2xlarge"


def _longer_context(c: dict[str, Any]) -> None:
    c["endpoints"][0]["model"]["max_context_tokens"] = 16384


def _capacity(c: dict[str, Any]) -> None:
    c["endpoints"][0]["capacity"]["max"] = 6


def _added(c: dict[str, Any]) -> None:
    extra = copy.deepcopy(c["endpoints"][3])
    extra["name"] = "churn-eu"
    c["endpoints"].append(extra)


def _removed(c: dict[str, Any]) -> None:
    c["endpoints"] = [e for e in c["endpoints"] if e["name"] != "churn"]


def _reordered(c: dict[str, Any]) -> None:
    c["endpoints"].reverse()


def _tag(c: dict[str, Any]) -> None:
    c["tags"]["team"] = "ml-infra"


PAIRS: dict[str, Callable[[dict[str, Any]], None]] = {
    "model-bump": _model_bump,
    "instance-type": _instance_type,
    "longer-context": _longer_context,
    "capacity": _capacity,
    "endpoint-added": _added,
    "endpoint-removed": _removed,
    "reordered": _reordered,
    "tag": _tag,
}


def _docs_sample(c: dict[str, Any]) -> None:
    _model_bump(c)
    _longer_context(c)


#: Changes diffed for a documentation sample, not a pair of their own.
SAMPLES: dict[str, Callable[[dict[str, Any]], None]] = {"docs-sample": _docs_sample}


def _write(config: dict[str, Any], path: Path) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="session")
def diff_assemblies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``base`` and one assembly per pair, synthesized lazily and once per session (about 20 s each)."""
    return {}


def _assembly(diff_assemblies: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    if name not in diff_assemblies:
        config = copy.deepcopy(BASE)
        if name != "base":
            {**PAIRS, **SAMPLES}[name](config)
        root = tmp_path_factory.mktemp(f"diff-{name}")
        synth_templates(_write(config, root / "platform.yaml"), root / "cdk.out")
        diff_assemblies[name] = root / "cdk.out"
    return diff_assemblies[name]


@pytest.fixture
def pair(
    request: pytest.FixtureRequest, diff_assemblies: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, DiffReport]:
    old = _assembly(diff_assemblies, tmp_path_factory, "base")
    new = _assembly(diff_assemblies, tmp_path_factory, request.param)
    report = compare(str(old / "inference-plan.json"), str(new / "inference-plan.json"))
    assert report.templates is not None
    return old, new, report


def _replaced(report: DiffReport) -> dict[str, tuple[str, tuple[str, ...]]]:
    assert report.templates is not None
    return {c.logical_id: (c.resource_type, c.forced_by) for c in report.templates.replacements}


def _of_type(report: DiffReport, resource_type: str, status: str) -> list[str]:
    assert report.templates is not None
    return [c.logical_id for c in report.templates.changes if c.resource_type == resource_type and c.status == status]


@pytest.mark.parametrize("pair", ["model-bump"], indirect=True)
def test_profile_model_bump_replaces_the_profile_for_its_model_source(pair: tuple[Path, Path, DiffReport]) -> None:
    # GIVEN the default platform and the same with team-a-sonnet on another Claude version
    old, new, report = pair
    # WHEN diffed THEN exactly the profile is replaced, forced by ModelSource (create-only), and a user sees it
    assert report.templates is not None
    (profile,) = report.templates.user_facing_replacements
    assert profile.resource_type == "AWS::Bedrock::ApplicationInferenceProfile"
    assert "ModelSource (direct)" in profile.forced_by
    # AND its name changes with it (the name carries a hash of the model), so CloudFormation can replace it
    assert profile.label.startswith("team-a-sonnet-")
    assert "InferenceProfileName (direct)" in profile.forced_by
    assert report.templates.blockers == ()
    # AND the replacement gate exits 1, naming the gate
    assert (
        main(["diff", str(old / "inference-plan.json"), str(new / "inference-plan.json"), "--fail-on-replacement"]) == 1
    )


@pytest.mark.parametrize("pair", ["instance-type", "longer-context"], indirect=True)
def test_host_change_replaces_the_endpoint_config_not_the_endpoint(pair: tuple[Path, Path, DiffReport]) -> None:
    # GIVEN chat on another host (set directly, or re-planned for a longer context)
    _, _, report = pair
    chat = next(i for i in report.plans.items if i.name == "chat")
    change = next(c for c in chat.changes if c.field == "instance_type")
    assert change.old != change.new
    # WHEN diffed THEN the endpoint config is replaced for its ProductionVariants (every property is create-only)
    replaced = _replaced(report)
    configs = [f for t, f in replaced.values() if t == "AWS::SageMaker::EndpointConfig"]
    assert configs and all("ProductionVariants (direct)" in f for f in configs)
    # AND the endpoint itself is not replaced (it moves to the new config in place)
    assert not _of_type(report, "AWS::SageMaker::Endpoint", "replaced")
    assert _of_type(report, "AWS::SageMaker::Endpoint", "updated")
    # AND the cost delta at minimum is the price difference at chat's minimum capacity
    old_price, new_price = chat.monthly_usd_at_min
    assert report.plans.monthly_usd_at_min[1] - report.plans.monthly_usd_at_min[0] == pytest.approx(
        new_price - old_price, abs=0.01
    )


@pytest.mark.parametrize("pair", ["capacity"], indirect=True)
def test_capacity_change_updates_the_scalable_target_in_place(
    pair: tuple[Path, Path, DiffReport], capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN chat's capacity.max raised from 4 to 6
    old, new, report = pair
    # WHEN diffed THEN the scalable target is updated in place and nothing is replaced
    assert _of_type(report, "AWS::ApplicationAutoScaling::ScalableTarget", "updated")
    assert _replaced(report) == {}
    # AND the cost at maximum rises by two instances for a month
    chat = next(e for e in json.loads((old / "inference-plan.json").read_text())["endpoints"] if e["name"] == "chat")
    rise = report.plans.max_cost_increase_usd
    assert rise == pytest.approx(2 * chat["price_per_hour_usd"] * HOURS_PER_MONTH, abs=0.02)
    # AND the cost gate exits 1 just under the rise and 0 at it; the replacement gate passes
    args = ["diff", str(old / "inference-plan.json"), str(new / "inference-plan.json")]
    assert main([*args, "--fail-over-usd", str(rise - 1)]) == 1
    assert "--fail-over-usd" in capsys.readouterr().err
    assert main([*args, "--fail-over-usd", str(rise), "--fail-on-replacement"]) == 0


@pytest.mark.parametrize("pair", ["endpoint-added"], indirect=True)
def test_added_endpoint_adds_resources_and_replaces_nothing(pair: tuple[Path, Path, DiffReport]) -> None:
    _, _, report = pair
    assert report.templates is not None
    added = {c.label for c in report.templates.changes if c.status == "added"}
    assert "acme-genai-churn-eu" in added
    assert report.templates.replacements == ()
    assert report.plans.monthly_usd_at_min == (report.plans.monthly_usd_at_min[0], report.plans.monthly_usd_at_min[0])
    # AND the plan side lists it as added (a serverless copy: billed per request, so no monthly cost at max)
    assert [(i.name, i.status) for i in report.plans.items if i.status != "unchanged"] == [("churn-eu", "added")]


@pytest.mark.parametrize("pair", ["endpoint-removed"], indirect=True)
def test_removed_endpoint_is_removed_and_nothing_else_replaced(pair: tuple[Path, Path, DiffReport]) -> None:
    _, _, report = pair
    assert report.templates is not None
    assert "acme-genai-churn" in {c.label for c in report.templates.changes if c.status == "removed"}
    assert report.templates.replacements == ()


@pytest.mark.parametrize("pair", ["reordered"], indirect=True)
def test_reorder_replaces_and_moves_nothing(pair: tuple[Path, Path, DiffReport]) -> None:
    _, _, report = pair
    assert report.templates is not None
    assert report.templates.replacements == ()
    assert report.plans.max_cost_increase_usd == 0


@pytest.mark.parametrize("pair", ["tag"], indirect=True)
def test_tag_change_replaces_only_what_takes_tags_at_creation(pair: tuple[Path, Path, DiffReport]) -> None:
    # GIVEN the platform tag team changed WHEN diffed
    _, _, report = pair
    assert report.templates is not None
    # THEN every tagged endpoint resource is updated in place; the Cost Explorer anomaly monitor and subscription
    # take ResourceTags only at creation (create-only), so they are replaced: routine, no user-facing replacement
    replaced = {(t, f) for t, f in _replaced(report).values()}
    assert {t for t, _ in replaced} <= {"AWS::CE::AnomalyMonitor", "AWS::CE::AnomalySubscription"}
    assert ("AWS::CE::AnomalyMonitor", ("ResourceTags (direct)",)) in replaced
    assert report.templates.user_facing_replacements == ()
    assert _of_type(report, "AWS::SageMaker::Endpoint", "updated")
    assert report.plans.max_cost_increase_usd == 0


@pytest.mark.parametrize("pair", ["docs-sample"], indirect=True)
def test_docs_sample_is_what_diff_prints(
    pair: tuple[Path, Path, DiffReport], capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN the Markdown sample in docs/diff.md (team-a-sonnet's model bumped and chat's context doubled)
    old, new, _ = pair
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    quoted = text.split("## Output", 1)[1].split("\n## ", 1)[0]
    shown = "".join(
        line[2:] + "\n" if line.startswith("> ") else "\n" for line in quoted.splitlines() if line[:1] == ">"
    )
    # WHEN diff prints the pair as Markdown with the replacement gate
    args = ["diff", str(old / "inference-plan.json"), str(new / "inference-plan.json"), "--markdown"]
    assert main([*args, "--fail-on-replacement"]) == 1
    # THEN the docs show exactly what it prints (names, hashes and reasons of this version)
    assert capsys.readouterr().out == shown


def _docs_pair_rows() -> list[list[str]]:
    """The cells of each row of docs/diff.md's table of the pairs, in the order of :data:`PAIRS`."""
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    table = text.split("What `diff` reports for the eight pairs", 1)[1].split("\n\n", 2)[1]
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]
    assert len(rows) == len(PAIRS)
    return rows


@pytest.mark.parametrize("pair", list(PAIRS), indirect=True)
def test_docs_pairs_table_is_what_diff_reports(
    pair: tuple[Path, Path, DiffReport], request: pytest.FixtureRequest
) -> None:
    # GIVEN a pair's row in docs/diff.md WHEN the pair is diffed
    _, _, report = pair
    assert report.templates is not None
    row = _docs_pair_rows()[list(PAIRS).index(request.node.callspec.params["pair"])]
    counts = Counter(c.status for c in report.templates.changes)
    statuses = ("replaced", "moved", "updated", "added", "removed")
    # THEN the row shows its resource counts, plan update warnings and cost at maximum
    assert row[1].split(" (")[0] == ", ".join(f"{counts[s]} {s}" for s in statuses if counts[s])
    assert row[4] == (", ".join(f"`{u.code}`" for u in report.plans.updates) or "-")
    assert row[5] == f"{report.plans.max_cost_increase_usd:+,.2f}"


# ------------------------------------------------------------------------------------------------ CDK CLI oracle

_LINE = re.compile(
    r"^\[(?P<op>[~+-])\] (?P<type>\S+) (?:\S+ )?(?P<id>[A-Za-z0-9]+)(?: (?P<verdict>replace|destroy|may be replaced))?$"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _direct_replacements(report: DiffReport) -> set[tuple[str, str]]:
    """(stack, logical id) of what ``report`` replaces because its own text changed."""
    assert report.templates is not None
    return {
        (c.stack, c.logical_id)
        for c in report.templates.changes
        if c.status == "replaced" and any(f.endswith("(direct)") for f in c.forced_by)
    }


@pytest.fixture(scope="module")
def cli_replacements(
    diff_assemblies: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, set[tuple[str, str]]]:
    """For each pair, the (stack, logical id) the pinned CDK CLI marks ``replace`` when it diffs each stack
    ``diff`` reports changed (the new assembly's stack against the old template), every pair's stacks diffed in
    one CLI process (``oracle.cdk_diffs``)."""
    old = _assembly(diff_assemblies, tmp_path_factory, "base")
    keys: list[tuple[str, str]] = []
    for name in PAIRS:
        new = _assembly(diff_assemblies, tmp_path_factory, name)
        report = compare(str(old / "inference-plan.json"), str(new / "inference-plan.json"))
        assert report.templates is not None
        changed = {c.stack for c in report.templates.changes if c.status in ("updated", "replaced")}
        keys += [(name, stack) for stack in sorted(changed)]
    jobs = [(diff_assemblies[name], stack, old / f"{stack}.template.json") for name, stack in keys]
    outputs = oracle.cdk_diffs(jobs, home=tmp_path_factory.mktemp("cdk-home"))
    found: dict[str, set[tuple[str, str]]] = {name: set() for name in PAIRS}
    for (name, stack), output in zip(keys, outputs, strict=True):
        lines = _ANSI.sub("", output).splitlines()
        found[name] |= {(stack, m["id"]) for m in map(_LINE.match, lines) if m and m["verdict"] == "replace"}
    return found


#: Pairs whose templates replace something because its own text changes (the CLI must agree on a non-empty set).
DIRECT_REPLACEMENTS = {"model-bump", "instance-type", "longer-context", "tag"}


@pytest.mark.parametrize("pair", list(PAIRS), indirect=True)
def test_cdk_cli_marks_the_same_resources_replace(
    pair: tuple[Path, Path, DiffReport],
    cli_replacements: dict[str, set[tuple[str, str]]],
    request: pytest.FixtureRequest,
) -> None:
    # GIVEN the pinned CDK CLI (the test command installs it: its absence is a failure, not a skip)
    assert oracle.CDK_CLI_LIB.exists() and shutil.which("node") is not None, "the pinned CDK CLI is not installed"
    # AND a pair's diff_assemblies and the resources diff says are replaced because their own text changed
    _, _, report = pair
    ours = _direct_replacements(report)
    # WHEN the CDK CLI diffs each changed stack offline THEN it marks exactly those resources "replace"
    name = request.node.callspec.params["pair"]
    assert cli_replacements[name] == ours
    # AND the comparison is not of two empty sets where the change does replace something
    assert bool(ours) == (name in DIRECT_REPLACEMENTS)


@pytest.mark.parametrize("pair", ["capacity"], indirect=True)
def test_configs_are_synthesized_into_the_same_templates_as_cdk_out(pair: tuple[Path, Path, DiffReport]) -> None:
    # GIVEN the pair's two config files (beside their assemblies)
    old, new, from_assemblies = pair
    # WHEN diffed as configs (each synthesized into a temporary assembly)
    from_configs = compare(str(old.parent / "platform.yaml"), str(new.parent / "platform.yaml"))
    # THEN the template diff equals the one from the cdk.out plan files
    assert from_configs.templates is not None and from_assemblies.templates is not None
    assert from_configs.templates.to_dict() == from_assemblies.templates.to_dict()
