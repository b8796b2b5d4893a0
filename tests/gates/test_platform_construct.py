"""InferencePlatform: the CDK app's platform as a construct, in an App and in a Stage (a CDK Pipelines stage):
the same templates as ``app.py``, the same stack names, the plan in the stage's assembly, and every mistake
refused before any construct exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import App, Environment, Stack, Stage

from inference_constructs import InferenceConfigError, InferencePlatform
from inference_constructs.config import load_config
from inference_constructs.plan import plan_platform
from inference_constructs.stacks.platform import PLAN_FILE, synthesize
from tests.gates.synth import ROOT, cli_context

CONFIG = ROOT / "config" / "examples" / "bedrock-only.yaml"  # name: shared-llm; bedrock, observability, cost
SMALL = "name: small\nbedrock:\n  profiles:\n    - {name: chat, model: anthropic.claude-3-haiku-20240307-v1:0}\n"


def _templates(directory: Path) -> dict[str, bytes]:
    """``stack name -> template bytes`` for every stack artifact of the assembly in ``directory``."""
    manifest = json.loads((directory / "manifest.json").read_text())
    return {
        a["properties"].get("stackName", artifact_id): (directory / a["properties"]["templateFile"]).read_bytes()
        for artifact_id, a in manifest["artifacts"].items()
        if a["type"] == "aws:cloudformation:stack"
    }


@pytest.fixture(scope="module")
def app_py_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``cdk.out`` of ``python3 app.py -c config=<bedrock-only>`` with the CLI's context (as ``cdk synth`` runs it)."""
    out = tmp_path_factory.mktemp("app-py") / "cdk.out"
    context = {**cli_context(), "config": str(CONFIG)}
    env = {**os.environ, "CDK_OUTDIR": str(out), "CDK_CONTEXT_JSON": json.dumps(context)}
    env.pop("INFERENCE_CONFIG", None)
    result = subprocess.run(
        [sys.executable, str(ROOT / "app.py")], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_construct_in_an_app_writes_the_templates_of_app_py_byte_for_byte(app_py_output: Path, tmp_path: Path) -> None:
    # GIVEN another CDK app that adds InferencePlatform for the same config file
    app = App(outdir=str(tmp_path / "out"), context=cli_context())
    InferencePlatform(app, "Inference", config=CONFIG)
    # WHEN it synthesizes
    assembly = app.synth()
    # THEN the stacks, their names, artifact ids, templates and the plan are app.py's, byte for byte
    ours, theirs = Path(assembly.directory), app_py_output
    assert _templates(ours) == _templates(theirs)
    assert sorted(_templates(ours)) == ["shared-llm-bedrock", "shared-llm-cost", "shared-llm-observability"]
    assert sorted(p.name for p in ours.glob("*.template.json")) == sorted(
        p.name for p in theirs.glob("*.template.json")
    )
    assert (ours / PLAN_FILE).read_bytes() == (theirs / PLAN_FILE).read_bytes()


def test_construct_in_a_stage_keeps_stack_names_and_templates_and_writes_the_plan_in_its_assembly(
    app_py_output: Path, tmp_path: Path
) -> None:
    # GIVEN a pipeline-like app: a Stage holding the platform (from a loaded config)
    app = App(outdir=str(tmp_path / "out"), context=cli_context())
    platform = InferencePlatform(Stage(app, "Prod"), "Inference", config=load_config(CONFIG))
    # WHEN synthesized
    assembly = app.synth()
    nested = Path(assembly.directory) / "assembly-Prod"
    # THEN the stack names stay <name>-<role> (CDK would prefix the stage's name), in the stage's nested assembly
    assert {role: s.stack_name for role, s in platform.stacks.items()} == {
        "bedrock": "shared-llm-bedrock",
        "observability": "shared-llm-observability",
        "cost": "shared-llm-cost",
    }
    # AND the templates are app.py's (export names do not move) but for one thing CDK does: an events rule's
    # permission to invoke its Lambda function gets a logical id made of the function's path from the root,
    # which now starts with the stage (CloudFormation replaces that permission once, on the move to a stage)
    ours, theirs = _templates(nested), _templates(app_py_output)
    assert sorted(ours) == sorted(theirs)
    moved = {}
    for stack, body in ours.items():
        mine, app_py = json.loads(body)["Resources"], json.loads(theirs[stack])["Resources"]
        assert sorted(map(json.dumps, mine.values())) == sorted(map(json.dumps, app_py.values()))
        moved[stack] = sorted(f"{mine[i]['Type']} {'AllowEventRule' in i}" for i in set(mine) - set(app_py))
    assert moved == {
        "shared-llm-bedrock": [],
        "shared-llm-observability": [],
        "shared-llm-cost": ["AWS::Lambda::Permission True"],
    }
    # AND the plan is in the stage's assembly directory, never the top one
    assert platform.plan_path == nested / PLAN_FILE
    assert (nested / PLAN_FILE).read_bytes() == (app_py_output / PLAN_FILE).read_bytes()
    assert not (Path(assembly.directory) / PLAN_FILE).exists()


def test_stacks_take_the_stages_environment_when_the_config_sets_none(tmp_path: Path) -> None:
    # GIVEN a stage with an environment and a config without account or region
    stage = Stage(
        App(outdir=str(tmp_path / "out")), "Prod", env=Environment(account="111122223333", region="eu-west-1")
    )
    # WHEN the platform is added THEN every stack is in the stage's environment
    platform = InferencePlatform(stage, "Inference", config=CONFIG, plan_file=None)
    assert {(s.account, s.region) for s in platform.stacks.values()} == {("111122223333", "eu-west-1")}


def test_construct_takes_a_plan_and_returns_stacks_by_role(tmp_path: Path) -> None:
    # GIVEN a plan made elsewhere
    plan = plan_platform(load_config(CONFIG))
    app = App(outdir=str(tmp_path / "out"))
    # WHEN the construct is given the plan, gates off, no plan file
    platform = InferencePlatform(app, "Inference", config=plan, compliance_gates=False, plan_file=None)
    # THEN it uses that plan, its stacks are the App's children beside it, and nothing was written
    assert platform.plan is plan
    assert list(platform.stacks) == ["bedrock", "observability", "cost"]
    assert all(isinstance(s, Stack) and s.node.scope is app for s in platform.stacks.values())
    assert platform.plan_path is None
    assert not (tmp_path / "out" / PLAN_FILE).exists()


def test_fails_on_a_config_mistake_before_any_construct_exists(tmp_path: Path) -> None:
    # GIVEN a config file with a misspelt key
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad-one\nbedrock:\n  profilez: []\n")
    app = App(outdir=str(tmp_path / "out"))
    # WHEN it is given to the construct THEN one InferenceConfigError names the key, and the app is empty
    with pytest.raises(InferenceConfigError, match=r"bedrock\.profilez: unknown key"):
        InferencePlatform(app, "Inference", config=bad)
    assert app.node.children == []
    assert not (tmp_path / "out" / PLAN_FILE).exists()


def test_fails_on_a_missing_config_file_naming_the_path_it_tried(tmp_path: Path) -> None:
    # GIVEN a path that does not exist
    missing = tmp_path / "nowhere.yaml"
    # WHEN given to the construct THEN the error names that path
    with pytest.raises(InferenceConfigError, match=f"{missing}: cannot read the config file"):
        InferencePlatform(App(outdir=str(tmp_path / "out")), "Inference", config=missing)


def test_fails_on_an_env_that_contradicts_the_config(tmp_path: Path) -> None:
    # GIVEN a config pinned to a region where it plans (its eu. profile needs a source region of that geography)
    config = load_config(CONFIG).model_copy(update={"region": "eu-central-1"})
    app = App(outdir=str(tmp_path / "out"))
    # WHEN the construct is asked for another region THEN the error names env.region and nothing exists
    with pytest.raises(InferenceConfigError, match=r"env\.region: 'eu-west-1' contradicts the config's region"):
        InferencePlatform(app, "Inference", config=config, env=Environment(region="eu-west-1"))
    assert app.node.children == []


def test_env_fills_what_the_config_leaves_open(tmp_path: Path) -> None:
    # GIVEN a config without account or region WHEN the construct gets an env
    app = App(outdir=str(tmp_path / "out"))
    platform = InferencePlatform(
        app, "Inference", config=CONFIG, env=Environment(account="111122223333", region="eu-west-1"), plan_file=None
    )
    # THEN every stack is in that environment
    assert {(s.account, s.region) for s in platform.stacks.values()} == {("111122223333", "eu-west-1")}


@pytest.mark.parametrize("plan_file", ["", "../plan.json", "sub/plan.json", ".."])
def test_fails_on_a_plan_file_that_is_not_a_file_name(tmp_path: Path, plan_file: str) -> None:
    app = App(outdir=str(tmp_path / "out"))
    with pytest.raises(InferenceConfigError, match=r"plan_file: .* is not a file name"):
        InferencePlatform(app, "Inference", config=CONFIG, plan_file=plan_file)
    assert app.node.children == []


def test_fails_when_two_platforms_in_one_stage_write_one_plan_file(tmp_path: Path) -> None:
    # GIVEN a stage holding one platform
    small = tmp_path / "small.yaml"
    small.write_text(SMALL)
    app = App(outdir=str(tmp_path / "out"))
    stage = Stage(app, "Beta")
    InferencePlatform(stage, "First", config=CONFIG, compliance_gates=False)
    # WHEN a second platform would write the same plan file THEN it is refused, naming the first
    with pytest.raises(InferenceConfigError, match=r"plan_file: 'inference-plan.json' is written by Beta/First"):
        InferencePlatform(stage, "Second", config=small, compliance_gates=False)
    # AND with its own file name both plans are written
    InferencePlatform(stage, "Second", config=small, compliance_gates=False, plan_file="small-plan.json")
    assert json.loads((tmp_path / "out" / "assembly-Beta" / "small-plan.json").read_text())["name"] == "small"
    assert json.loads((tmp_path / "out" / "assembly-Beta" / PLAN_FILE).read_text())["name"] == "shared-llm"


def test_synthesize_leaves_only_the_current_configs_stacks(tmp_path: Path) -> None:
    # GIVEN an output folder holding the synth of a config with three stacks
    out = tmp_path / "cdk.out"
    small = tmp_path / "small.yaml"
    small.write_text(SMALL)
    synthesize(App(outdir=str(out), context=cli_context()), CONFIG)
    assert len(list(out.glob("shared-llm-*.template.json"))) == 3
    # WHEN another config with fewer stacks is synthesized into the same folder
    synthesize(App(outdir=str(out), context=cli_context()), small)
    # THEN only its templates are there, and its plan
    assert sorted(p.name for p in out.glob("*.template.json")) == [
        "small-bedrock.template.json",
        "small-observability.template.json",
    ]
    assert json.loads((out / PLAN_FILE).read_text())["name"] == "small"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
