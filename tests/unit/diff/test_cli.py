"""``diff`` on plan files inside cloud assemblies: templates found through manifest.json, the three outputs, the
gates and their exit codes, and invalid input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inference_constructs.__main__ import main
from inference_constructs.config import parse_config
from inference_constructs.plan import plan_platform
from tests.fresh_interpreter import loaded_packages
from tests.unit.diff.templates import hosting as _hosting

ROOT = Path(__file__).resolve().parents[3]
ENDPOINT = {
    "name": "chat",
    "serving": "sklearn",
    "model": {"source": "s3", "s3_uri": "s3://acme-models/chat.tar.gz"},
    "instance_type": "ml.m5.xlarge",
    "capacity": {"min": 1, "max": 2},
}


def _assembly(root: Path, template: dict[str, Any], capacity_max: int = 2) -> Path:
    """A cloud assembly directory: manifest.json listing one stack, its template, and the plan beside them."""
    root.mkdir()
    config = {"name": "acme", "endpoints": [{**ENDPOINT, "capacity": {"min": 1, "max": capacity_max}}]}
    (root / "inference-plan.json").write_text(plan_platform(parse_config(json.dumps(config))).to_json_text())
    (root / "acme-hosting-1.template.json").write_text(json.dumps(template))
    manifest = {
        "artifacts": {
            "acme-hosting-1": {
                "type": "aws:cloudformation:stack",
                "properties": {"templateFile": "acme-hosting-1.template.json", "stackName": "acme-hosting-1"},
            },
            "Tree": {"type": "cdk:tree", "properties": {"file": "tree.json"}},
        }
    }
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root / "inference-plan.json"


@pytest.fixture
def image_bump(tmp_path: Path) -> tuple[str, str]:
    """Old and new plan paths: the model image changes (routine replacements) and capacity.max rises to 4."""
    old = _assembly(tmp_path / "old", _hosting())
    new = _assembly(tmp_path / "new", _hosting(image="img:2"), capacity_max=4)
    return str(old), str(new)


def test_table_names_routine_replacements_and_the_in_place_endpoint_update(
    image_bump: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", *image_bump, "--fail-on-replacement"]) == 0
    out = capsys.readouterr().out
    routine = out.split("Routine replacements")[1].split("Updated in place")[0]
    assert "AWS::SageMaker::Model" in routine and "AWS::SageMaker::EndpointConfig" in routine
    assert "User-facing replacements\n  none" in out
    assert "AWS::SageMaker::Endpoint acme-hosting-1/Endpoint: EndpointConfigName" in out
    assert "gates passed: --fail-on-replacement" in out


def test_json_carries_resources_costs_commitment_and_gates(
    image_bump: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", *image_bump, "--json", "--fail-over-usd", "1"]) == 1
    doc = json.loads(capsys.readouterr().out)
    statuses = {r["logical_id"]: r["status"] for r in doc["templates"]["resources"]}
    assert statuses == {"Model": "replaced", "Config": "replaced", "Endpoint": "updated"}
    assert doc["totals"]["monthly_usd_at_max"]["delta"] > 1
    assert set(doc["commitment_usd_per_hour"]) == {"old", "new", "delta"}
    assert doc["gates_crossed"][0].startswith("--fail-over-usd 1:")


def test_markdown_is_a_pull_request_comment(image_bump: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", *image_bump, "--markdown", "--fail-over-usd", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("### Inference platform diff\n")
    assert "- **Gate crossed:** --fail-over-usd 1" in out
    assert (
        "| routine | `acme-hosting-1/Config` (AWS::SageMaker::EndpointConfig) | ProductionVariants (refers to Model"
        in out
    )


def test_user_facing_replacement_crosses_the_replacement_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN the endpoint renamed (EndpointName is create-only)
    old = _assembly(tmp_path / "old", _hosting())
    new = _assembly(tmp_path / "new", _hosting(name="acme-chat-2"))
    # WHEN diffed with the replacement gate THEN exit 1 and the gate is named on stderr
    assert main(["diff", str(old), str(new), "--fail-on-replacement"]) == 1
    captured = capsys.readouterr()
    assert (
        "endpoint acme-chat-2 (acme-hosting-1/Endpoint): replaced (a new endpoint), forced by EndpointName (direct)"
        in captured.out
    )
    assert "gate crossed: --fail-on-replacement: 1 user-facing replacement(s)" in captured.err


def test_plan_files_outside_an_assembly_compare_plans_only(
    tmp_path: Path, image_bump: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    loose = tmp_path / "plan.json"
    loose.write_text(Path(image_bump[1]).read_text())
    assert main(["diff", image_bump[0], str(loose), "--fail-on-replacement"]) == 1
    out = capsys.readouterr().out
    assert f"Templates: not compared ({loose}: no manifest.json beside it" in out


def test_broken_manifest_exits_2_naming_it(image_bump: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    manifest = Path(image_bump[1]).parent / "manifest.json"
    manifest.write_text("{")
    assert main(["diff", *image_bump]) == 2
    assert str(manifest) in capsys.readouterr().err


def test_diff_package_imports_without_aws_cdk() -> None:
    out = loaded_packages("import inference_constructs.diff")
    assert out.strip() == "[]"


def _config_file(path: Path, **endpoint: Any) -> Path:
    path.write_text(json.dumps({"name": "acme", "endpoints": [{**ENDPOINT, **endpoint}]}))
    return path


@pytest.mark.parametrize("side", ["old", "new"])
def test_invalid_config_names_its_file_on_every_problem_line(
    tmp_path: Path, side: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a valid config and one with a misspelt key, on either side
    good = _config_file(tmp_path / "good.yaml")
    bad = tmp_path / f"{side}.yaml"
    bad.write_text(json.dumps({"name": "acme", "endpoints": [{**ENDPOINT, "servng": "sklearn"}, ENDPOINT]}))
    args = [str(bad), str(good)] if side == "old" else [str(good), str(bad)]
    # WHEN diffed THEN exit 2, and each problem line starts with the file it is in (no traceback)
    assert main(["diff", *args, "--no-synth"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: endpoints[0].servng: unknown key" in err
    assert f"{bad}: endpoints[1].name: " in err
    assert "Traceback" not in err


def test_unreadable_config_names_its_file_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _config_file(tmp_path / "good.yaml")
    missing = tmp_path / "missing.yaml"
    assert main(["diff", str(good), str(missing), "--no-synth"]) == 2
    err = capsys.readouterr().err
    assert err.count(str(missing)) == 1


def test_no_synth_says_so_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # GIVEN two configs diffed without synth WHEN printed as a table and as JSON
    old, new = _config_file(tmp_path / "old.yaml"), _config_file(tmp_path / "new.yaml", capacity={"min": 1, "max": 3})
    assert main(["diff", str(old), str(new), "--no-synth"]) == 0
    # THEN the note appears once
    assert capsys.readouterr().out.count("--no-synth") == 1
    assert main(["diff", str(old), str(new), "--no-synth", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["templates_unavailable"] == "--no-synth: configs were planned, not synthesized"


@pytest.fixture
def host_change(tmp_path: Path) -> tuple[str, str, str]:
    """Old and new configs where chat moves to another host, and the new plan's reason for that host."""
    old = _config_file(tmp_path / "old.yaml")
    new = _config_file(tmp_path / "new.yaml", instance_type="ml.m5.2xlarge")
    reason = plan_platform(parse_config(new.read_text())).to_json()["endpoints"][0]["reason"]
    assert reason.startswith("ml.m5.2xlarge")
    return str(old), str(new), reason


@pytest.mark.parametrize(
    ("flags", "shown"),
    [
        pytest.param([], "instance_type: ml.m5.xlarge -> ml.m5.2xlarge\n              why: {}\n", id="table"),
        pytest.param(["--markdown"], "| instance_type: ml.m5.xlarge → ml.m5.2xlarge<br>why: {} |", id="markdown"),
    ],
)
def test_host_change_says_why_next_to_the_change(
    host_change: tuple[str, str, str], flags: list[str], shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN chat moved to another host WHEN diffed THEN the new plan's reason for that host follows the change
    old, new, reason = host_change
    assert main(["diff", old, new, "--no-synth", *flags]) == 0
    assert shown.format(reason) in capsys.readouterr().out


def test_host_change_says_why_in_json_next_to_the_change(
    host_change: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, reason = host_change
    assert main(["diff", old, new, "--no-synth", "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)["items"]
    # THEN the change keeps its fields and adds the reason; other changes have none
    changes = {c["field"]: c for c in item["changes"]}
    assert changes["instance_type"] == {
        "field": "instance_type",
        "old": "ml.m5.xlarge",
        "new": "ml.m5.2xlarge",
        "reason": reason,
    }
