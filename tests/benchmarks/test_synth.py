"""The synth benchmark's config generator and plain-L1 re-emitter are correct (small inputs; no timing)."""

from __future__ import annotations

import json
from pathlib import Path

from aws_cdk import App, CfnResource, Stack, aws_sns

from benchmarks import synth
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


def test_reemitter_reproduces_templates_and_acknowledgments(tmp_path: Path) -> None:
    # A small library app: a serverless endpoint (L2-style constructs, a mapping, acknowledged findings)
    # and a second stack that references a topic across stacks (an export and an import).
    context = synth.cdk_context()
    app = App(outdir=str(tmp_path / "lib"), context=dict(context))
    first = Stack(app, "First")
    ServerlessEndpoint(
        first, "Tabular", model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://bench-models/t/model.tar.gz")
    )
    topic = aws_sns.Topic(first, "Topic", enforce_ssl=True)
    second = Stack(app, "Second")
    CfnResource(
        second,
        "Uses",
        type="AWS::SNS::Subscription",
        properties={"TopicArn": topic.topic_arn, "Protocol": "sqs", "Endpoint": "arn:aws:sqs:us-east-1:111111111111:q"},
    )
    app.synth()
    library = synth.read_assembly(tmp_path / "lib")
    assert [s.name for s in library] == ["First", "Second"]
    assert library[1].dependencies == ["First"]
    assert library[0].acknowledgments

    baseline_app = App(outdir=str(tmp_path / "base"), context=dict(context))
    synth.reemit(baseline_app, library)
    baseline_app.synth()

    assert synth.resource_counts(tmp_path / "lib") == synth.resource_counts(tmp_path / "base")
    assert synth.templates(tmp_path / "lib") == synth.templates(tmp_path / "base")
    assert "identical templates" in synth.compare_outputs(tmp_path / "lib", tmp_path / "base")
    baseline = synth.read_assembly(tmp_path / "base")
    assert _acknowledged(baseline) == _acknowledged(library)
