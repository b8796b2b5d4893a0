"""Every runnable Python example in the README and docs/ runs as written and synthesizes with the compliance gates
on (cdk-nag AwsSolutions, NIST 800-53 rev 5, HIPAA Security, Control Tower controls): an example that breaks, or
that a gate would refuse, fails here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App

from tests.outside import PYTHON, run_from
from tests.package.examples import ROOT, documents, program, runnable_blocks

#: Page -> (synth error, violations, namespace) of its program.
Ran = dict[str, tuple[str | None, list[str], dict[str, Any]]]
PAGES = [p.relative_to(ROOT).as_posix() for p in documents()]


def _run(source: str, name: str) -> tuple[str | None, list[str], dict[str, Any]]:
    """Execute ``source`` and synthesize the ``app`` it builds; return the synth error (None when every gate
    passed), the violations listed in the app's validation report and the program's namespace."""
    namespace: dict[str, Any] = {}
    exec(compile(source, name, "exec"), namespace)
    app = namespace.get("app")
    assert isinstance(app, App), f"{name}: the runnable blocks must build an aws_cdk.App named app"
    error = None
    try:
        app.synth()
    except RuntimeError as exc:  # ValidationFailed: a gate found something
        error = str(exc)
    report_file = Path(app.outdir) / "validation-report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    violations = [
        f"{p['pluginName']}: {v['ruleName']} at {c.get('constructPath')}"
        for p in report.get("pluginReports", [])
        for v in p.get("violations", [])
        for c in v.get("violatingConstructs", [])
    ]
    return error, violations, namespace


@pytest.fixture(scope="module")
def ran() -> dict[str, tuple[str | None, list[str], dict[str, Any]]]:
    """Each page's program, run once (on first use) for the tests of this module."""
    return {}


def _ran(ran: Ran, page: str) -> tuple[str | None, list[str], dict[str, Any]]:
    if page not in ran:
        ran[page] = _run(program(ROOT / page), page)
    return ran[page]


def test_the_readme_and_the_construct_pages_have_runnable_examples() -> None:
    # GIVEN the documentation WHEN its runnable blocks are collected THEN the README and the hosting and
    # observability pages have some, and every runnable program turns the gates on
    assert {"README.md", "docs/hosting.md", "docs/observability.md"} <= set(PAGES)
    for page in PAGES:
        assert "add_compliance_gates(app)" in program(ROOT / page), page


@pytest.mark.parametrize("page", PAGES)
def test_runnable_examples_synthesize_with_the_gates_on(page: str, ran: Ran) -> None:
    # GIVEN the runnable blocks of one page, run in order as one program
    assert runnable_blocks(ROOT / page)
    # WHEN its app is synthesized with the compliance gates it registers
    error, violations, _ = _ran(ran, page)
    # THEN no gate found anything
    assert (error, violations) == (None, [])


def test_the_gates_are_on_in_the_readme_example() -> None:
    # GIVEN the README program plus one inline policy on the caller's role (what grant_invoke used to add)
    source = program(ROOT / "README.md") + (
        "\niam.Policy(stack, 'Inline', roles=[caller], statements=[iam.PolicyStatement("
        "actions=['sagemaker:InvokeEndpoint'], resources=[chat.endpoint_arn])])\n"
    )
    # WHEN synthesized THEN the NIST 800-53 and HIPAA packs refuse it, so the examples above ran with the gates on
    error, violations, _ = _run(source, "README.md")
    assert error is not None
    assert any("IAMNoInlinePolicy" in v for v in violations), violations


def test_the_readme_example_does_what_its_comments_say(ran: Ran) -> None:
    # GIVEN the README program, synthesized with the gates on
    error, _, namespace = _ran(ran, "README.md")
    assert error is None
    chat, stack = namespace["chat"], namespace["stack"]
    template = namespace["app"].synth().get_stack_artifact(stack.artifact_id).template
    resources = template["Resources"].values()
    types = [r["Type"] for r in resources]
    # THEN the endpoint got a host that fits a 13B model, scaling on concurrency (GPU memory is refused for LMI)
    # with a scheduled floor, the profile exists, and the caller's grants are managed policies, never inline ones
    assert chat.instance_type.startswith("ml.")
    assert chat.plan.host.memory_available_gb >= chat.plan.host.memory_required_gb
    assert types.count("AWS::ApplicationAutoScaling::ScalingPolicy") == 1
    target = next(r for r in resources if r["Type"].endswith("ScalableTarget"))
    assert len(target["Properties"]["ScheduledActions"]) == 1
    assert "AWS::Bedrock::ApplicationInferenceProfile" in types
    assert "AWS::IAM::Policy" not in types
    caller_id = stack.get_logical_id(namespace["caller"].node.default_child)
    granted = [
        s["Action"]
        for r in resources
        if r["Type"] == "AWS::IAM::ManagedPolicy" and {"Ref": caller_id} in r["Properties"].get("Roles", [])
        for s in r["Properties"]["PolicyDocument"]["Statement"]
    ]
    assert ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"] in granted
    assert ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"] in granted


def test_the_readme_program_runs_from_a_users_own_folder(tmp_path: Path) -> None:
    # GIVEN the README's runnable program as a user's app.py in their own folder, beside their copy of the config
    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "default.yaml", tmp_path / "config" / "default.yaml")
    report = (
        "\nimport json, pathlib\n"
        "for each in (app, platform_app):\n"
        "    each.synth()\n"
        "print(json.dumps([sorted(p.name for p in pathlib.Path(a.outdir).glob('*.template.json'))"
        " for a in (app, platform_app)]))\n"
    )
    (tmp_path / "app.py").write_text(program(ROOT / "README.md") + report)
    # WHEN it runs there with the project's venv (the library installed in it, no PYTHONPATH)
    result = run_from(tmp_path, [PYTHON, "app.py"], JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20")
    # THEN both of its apps synthesize with the gates on: the constructs' stack, and the platform of the config the
    # user's folder holds (a relative config path means that folder)
    assert result.returncode == 0, result.stderr[-3000:]
    constructs, platform = json.loads(result.stdout.strip().splitlines()[-1])
    assert constructs == ["Inference.template.json"]
    assert "acme-genai-observability.template.json" in platform
