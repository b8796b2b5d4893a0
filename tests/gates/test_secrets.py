"""No secret in plaintext: no template of the default platform, the examples or a gated-model config holds a
Secrets Manager dynamic reference (or token text) in a container environment, unless the config opted in with
``model.hf_token.in_environment``; the staged route keeps the token off the Model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.gates.conftest import config_ids
from tests.gates.synth import Assembly, synth_templates
from tests.gates.test_property_map import _construct_paths

_REFERENCE = "{{resolve:secretsmanager"
_TOKEN = re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")
_REVISION = "0e9e39f249a16976918f6564b8830bc894c89659"
_GATED = """
name: gated
endpoints:
  - name: staged
    model: {{id: meta-llama/Llama-3.1-8B-Instruct, revision: {revision}, parameters_billion: 8,
             hf_token: {{secret: gated/hf-token}}}}
    serving: lmi
    accelerator: gpu
  - name: opted-in
    model: {{id: meta-llama/Llama-3.2-3B-Instruct, parameters_billion: 3.2,
             hf_token: {{secret: gated/hf-token, in_environment: true}}}}
    serving: vllm
    accelerator: gpu
"""


def _environments(value: Any, path: str = "") -> list[tuple[str, str]]:
    """(property path, string) for every string under a key named like an environment."""
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _environments(child, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for child in value:
            found += _environments(child, path)
    elif isinstance(value, str) and "nvironment" in path:
        found.append((path, value))
    return found


def secret_references(assembly: Assembly) -> list[tuple[str, str, str]]:
    """(stack, logical id, property path) of every dynamic reference to a secret in an environment."""
    return [
        (stack, logical_id, path)
        for stack, template in assembly.templates.items()
        for logical_id, resource in template.get("Resources", {}).items()
        for path, text in _environments(resource.get("Properties", {}))
        if _REFERENCE in text
    ]


def opted_in(plan: dict[str, Any]) -> set[tuple[str, str]]:
    """(stack, endpoint name) of the endpoints whose plan says the token is in the environment (the opt-in)."""
    return {
        (e["stack"], e["name"])
        for e in plan["endpoints"]
        if (e.get("model_access") or {}).get("route") == "environment"
    }


def _owner(assembly: Assembly, stack: str, logical_id: str) -> str:
    """The top-level construct (endpoint name) a resource belongs to."""
    parts = _construct_paths(assembly).get((stack, logical_id), "").strip("/").split("/")
    return parts[1] if len(parts) > 1 else ""


def _check(assembly: Assembly, plan: dict[str, Any]) -> list[str]:
    allowed = opted_in(plan)
    problems = [
        f"{stack}/{logical_id} {path}: secret reference without model.hf_token.in_environment"
        for stack, logical_id, path in secret_references(assembly)
        if (stack, _owner(assembly, stack, logical_id)) not in allowed
        or assembly.templates[stack]["Resources"][logical_id]["Type"] != "AWS::SageMaker::Model"
    ]
    problems += [f"{stack}: token text" for stack, t in assembly.templates.items() if _TOKEN.search(json.dumps(t))]
    return problems


@pytest.mark.parametrize("config", config_ids())
def test_no_shipped_template_holds_a_secret_in_a_container_environment(
    assemblies: dict[str, tuple[Assembly, Assembly]], config: str
) -> None:
    # GIVEN the synthesized templates of a shipped config (none opts in)
    assembly = assemblies[config][0]
    # WHEN every environment property of every resource is searched THEN none holds a secret reference or a token
    assert secret_references(assembly) == []
    assert _check(assembly, assembly.plan) == []


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Assembly:
    config = tmp_path_factory.mktemp("gated") / "gated.yaml"
    config.write_text(_GATED.format(revision=_REVISION))
    return synth_templates(config, Path(tmp_path_factory.mktemp("gated-out")))


def test_only_the_opted_in_model_holds_the_reference(gated: Assembly) -> None:
    # GIVEN a gated-model config with one staged endpoint and one that opted in to the environment route
    # WHEN its templates are searched
    found = secret_references(gated)
    # THEN exactly the opted-in endpoint's Model holds the reference (the check sees it), and it is allowed
    assert [(_owner(gated, s, i), p) for s, i, p in found] == [("opted-in", "PrimaryContainer.Environment.HF_TOKEN")]
    assert _check(gated, gated.plan) == []


def test_the_staged_model_loads_s3_with_network_isolation(gated: Assembly) -> None:
    # GIVEN the same config: the staged endpoint's Model
    models = [
        r
        for stack, t in gated.templates.items()
        for k, r in t["Resources"].items()
        if r["Type"] == "AWS::SageMaker::Model" and _owner(gated, stack, k) == "staged"
    ]
    assert len(models) == 1
    props = models[0]["Properties"]
    # THEN it has network isolation and the uncompressed S3 prefix the staging resource reports
    assert props["EnableNetworkIsolation"] is True
    source = props["PrimaryContainer"]["ModelDataSource"]["S3DataSource"]
    assert (source["S3DataType"], source["CompressionType"]) == ("S3Prefix", "None")
    assert source["S3Uri"]["Fn::GetAtt"][1] == "S3Uri"
    staging = next(
        r for t in gated.templates.values() for k, r in t["Resources"].items() if k == source["S3Uri"]["Fn::GetAtt"][0]
    )
    assert staging["Type"] == "Custom::HubModelStaging"
    assert staging["Properties"]["Revision"] == _REVISION


def test_the_check_fails_on_a_reference_that_was_not_opted_in(gated: Assembly) -> None:
    # GIVEN the same templates, with a plan in which the opted-in endpoint took the staged route instead
    plan = json.loads(json.dumps(gated.plan))
    for e in plan["endpoints"]:
        if e["name"] == "opted-in":
            e["model_access"]["route"] = "staged"
    # WHEN checked THEN the reference in its Model is reported
    assert [p for p in _check(gated, plan) if "HF_TOKEN" in p]
