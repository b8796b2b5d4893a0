"""The synth benchmark's config generator and plain-L1 re-emitter are correct (small inputs; no timing)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from aws_cdk import App, CfnResource, Stack, aws_sns

from benchmarks import synth
from inference_constructs.compliance import acknowledge_all, add_compliance_gates
from inference_constructs.config import validate_config
from inference_constructs.hosting import ServerlessEndpoint
from inference_constructs.plan import plan_platform
from inference_constructs.spec import ModelSourceKind, ModelSpec


def test_generated_config_has_n_valid_endpoints_of_every_kind() -> None:
    data = synth.platform_config(8)
    config = validate_config(json.loads(json.dumps(data)))
    assert len(config.endpoints) == 8
    assert {e.type.value for e in config.endpoints} == {"realtime", "async", "serverless", "multi-model"}
    plan = plan_platform(config)
    assert len(plan.endpoints) == 8


def test_write_config_round_trips(tmp_path: Path) -> None:
    path = synth.write_config(5, tmp_path)
    from inference_constructs.config import load_config

    assert [e.name for e in load_config(path).endpoints] == [e["name"] for e in synth.platform_config(5)["endpoints"]]


def _acknowledged(sources: list[synth.StackSource]) -> set[tuple[str, str, str]]:
    """(stack, logical id, rule) for every resource an acknowledgment covers."""
    out = set()
    for s in sources:
        for path, rule, _ in s.acknowledgments:
            for lid, p in s.logical_paths.items():
                if lid in s.template.get("Resources", {}) and (p == path or p.startswith(path + "/")):
                    out.add((s.name, lid, rule))
    return out


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small library app: a serverless endpoint (L2-style constructs, a mapping, acknowledged findings)
    and a second stack that references a topic across stacks (an export and an import)."""
    out = tmp_path_factory.mktemp("lib")
    app = App(outdir=str(out), context=dict(synth.cdk_context()))
    first = Stack(app, "First")
    ServerlessEndpoint(
        first, "Tabular", model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://bench-models/t/model.tar.gz")
    )
    topic = aws_sns.Topic(first, "Topic", enforce_ssl=True)
    kms = "test topic: carries no data, AWS-managed encryption is enough"
    acknowledge_all(topic, [("NIST.800.53.R5-SNSEncryptedKMS", kms), ("HIPAA.Security-SNSEncryptedKMS", kms)])
    second = Stack(app, "Second")
    CfnResource(
        second,
        "Uses",
        type="AWS::SNS::Subscription",
        properties={"TopicArn": topic.topic_arn, "Protocol": "sqs", "Endpoint": "arn:aws:sqs:us-east-1:111111111111:q"},
    )
    add_compliance_gates(app)  # the library passes the packs
    app.synth()
    return out


def _reemit(library: Path, out: Path, baseline: str, *, nag: bool = False, acknowledge: bool = True) -> Path:
    sources = synth.read_assembly(library)
    if not acknowledge:
        sources = [replace(s, acknowledgments=[]) for s in sources]
    app = App(outdir=str(out / "cdk.out"), context=dict(synth.cdk_context()))
    synth.reemit(app, sources, baseline=baseline, workdir=out / "include")
    if nag:
        add_compliance_gates(app)
    app.synth()
    return out / "cdk.out"


def _props_in_tree(outdir: Path) -> int:
    """How many constructs report CloudFormation properties to tree.json."""
    count = 0
    stack = [json.loads((outdir / "tree.json").read_text(encoding="utf-8"))["tree"]]
    while stack:
        node = stack.pop()
        count += "aws:cdk:cloudformation:props" in node.get("attributes", {})
        stack.extend(node.get("children", {}).values())
    return count


def test_library_fixture_has_dependencies_and_acknowledgments(library: Path) -> None:
    sources = synth.read_assembly(library)
    assert [s.name for s in sources] == ["First", "Second"]
    assert sources[1].dependencies == ["First"]
    assert sources[0].acknowledgments


def test_typed_reemitter_reproduces_resources_and_acknowledgments(library: Path, tmp_path: Path) -> None:
    base = _reemit(library, tmp_path, "typed", nag=True)  # the nag packs pass: every finding acknowledged

    assert synth.resource_counts(library) == synth.resource_counts(base)
    lib_t, base_t = synth.templates(library), synth.templates(base)
    assert {k: json.loads(v) for k, v in lib_t.items()} == {k: json.loads(v) for k, v in base_t.items()}
    assert synth.compare_outputs(library, base).startswith("same 10 resources in 2 stacks, ")
    assert "DIFFER" not in synth.compare_outputs(library, base)
    baseline = synth.read_assembly(base)
    assert _acknowledged(baseline) == _acknowledged(synth.read_assembly(library))
    assert [s.dependencies for s in baseline] == [[], ["First"]]
    # Typed L1s report their properties to tree.json (all 10 resources; the fixture's generic
    # CfnResource subscription does not on the library side).
    assert _props_in_tree(base) == 10
    assert _props_in_tree(library) == 9


def test_typed_baseline_gets_the_nag_rules_that_generic_escapes(library: Path, tmp_path: Path) -> None:
    # Without the acknowledgments, the packs find the library's acknowledged findings on the typed
    # re-emission (its rules match typed L1 classes) and none on the generic one.
    with pytest.raises(RuntimeError, match="AwsSolutions-"):
        _reemit(library, tmp_path / "typed", "typed", nag=True, acknowledge=False)
    _reemit(library, tmp_path / "generic", "generic", nag=True, acknowledge=False)


def test_generic_reemitter_reproduces_templates_byte_for_byte(library: Path, tmp_path: Path) -> None:
    base = _reemit(library, tmp_path, "generic")
    assert synth.templates(library) == synth.templates(base)
    assert synth.compare_outputs(library, base) == "same 10 resources in 2 stacks, identical templates"
    assert _acknowledged(synth.read_assembly(base)) == _acknowledged(synth.read_assembly(library))


def test_compare_outputs_reports_a_lost_resource_and_template_differences(library: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(library, copy)
    path = copy / "First.template.json"
    template = json.loads(path.read_text(encoding="utf-8"))
    # Same JSON, other key order: equal up to key order.
    path.write_text(json.dumps(dict(reversed(template.items())), indent=1), encoding="utf-8")
    assert synth.compare_outputs(library, copy) == "same 10 resources in 2 stacks, templates equal up to key order"
    # A changed property: the templates differ.
    lid, res = next((k, r) for k, r in template["Resources"].items() if "Properties" in r)
    res["Properties"]["Extra"] = 1
    path.write_text(json.dumps(template), encoding="utf-8")
    assert synth.compare_outputs(library, copy).endswith(f"templates DIFFER: First Resources {lid}")
    # A lost resource: the resources differ.
    del template["Resources"][lid]
    path.write_text(json.dumps(template), encoding="utf-8")
    assert synth.compare_outputs(library, copy).startswith("DIFFERENT resources in First")


def test_include_template_drops_only_the_synthesizer_parameter_and_rule() -> None:
    src = synth.StackSource(
        "S",
        {
            "Parameters": {"BootstrapVersion": {"Type": "String"}, "Size": {"Type": "Number"}},
            "Resources": {"H": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
            "Rules": {"CheckBootstrapVersion": {}},
        },
    )
    assert synth.include_template(src) == {
        "Parameters": {"Size": {"Type": "Number"}},
        "Resources": {"H": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
    }
    with pytest.raises(ValueError, match="unknown baseline"):
        synth.reemit(App(), [src], baseline="l2")
