"""The README's Python examples run as written and synthesize (so the documented API cannot drift)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks(section: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


def test_readme_construct_examples_run_and_synthesize() -> None:
    # GIVEN the Python blocks of "Constructs from Python", run in order in one namespace
    blocks = _python_blocks("Constructs from Python")
    assert len(blocks) >= 3
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(blocks), "README.md", "exec"), namespace)
    # WHEN the app they build is synthesized
    assembly = namespace["app"].synth()
    template = assembly.get_stack_artifact(namespace["stack"].artifact_id).template
    types = [r["Type"] for r in template["Resources"].values()]
    # THEN the endpoint got a host that fits a 13B model, scaling on concurrency (GPU memory is refused for LMI)
    # with a scheduled floor, and the profile exists
    assert namespace["chat"].instance_type.startswith("ml.")
    assert namespace["chat"].plan.host.memory_available_gb >= namespace["chat"].plan.host.memory_required_gb
    assert types.count("AWS::ApplicationAutoScaling::ScalingPolicy") == 1
    target = next(r for r in template["Resources"].values() if r["Type"].endswith("ScalableTarget"))
    assert len(target["Properties"]["ScheduledActions"]) == 1
    assert "AWS::Bedrock::ApplicationInferenceProfile" in types


def test_readme_plan_table_is_the_current_plan_of_the_default_config(capsys: Any) -> None:
    # GIVEN the plan table shown in the README WHEN the plan command runs on config/default.yaml
    from inference_constructs.__main__ import main

    text = (ROOT / "README.md").read_text()
    shown = text.split("## The plan", 1)[1].split("```\n", 2)[1]
    assert main(["plan", str(ROOT / "config" / "default.yaml")]) == 0
    # THEN the README shows exactly what it prints
    assert capsys.readouterr().out == shown
