"""The synth benchmark's config generator and plain-L1 re-emitter are correct (small inputs; no timing)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, CfnResource, Stack, aws_s3_assets, aws_sns

from benchmarks import synth
from inference_constructs.compliance import GUARD_PLUGIN, acknowledge_all, add_compliance_gates
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


def _rule(acknowledged: str) -> str:
    """The rule name a validation report uses for an acknowledgment id (Control Tower ids carry the plugin)."""
    return acknowledged.removeprefix(f"{GUARD_PLUGIN}::")


def _acknowledged(sources: list[synth.StackSource]) -> set[tuple[str, str, str]]:
    """(stack, logical id, rule) for every resource an acknowledgment covers."""
    out = set()
    for s in sources:
        for path, rule, _ in s.acknowledgments:
            for lid, p in s.logical_paths.items():
                if lid in s.template.get("Resources", {}) and (p == path or p.startswith(path + "/")):
                    out.add((s.name, lid, _rule(rule)))
    return out


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small library app: a serverless endpoint (L2-style constructs, a mapping, acknowledged findings),
    a file asset (a folder of code, as the Lambda code is), and a second stack that references a topic across
    stacks (an export and an import)."""
    out = tmp_path_factory.mktemp("lib")
    code = tmp_path_factory.mktemp("code")
    (code / "index.py").write_text("def handler(event, context):\n    return None\n", encoding="utf-8")
    app = App(outdir=str(out), context=dict(synth.cdk_context()))
    first = Stack(app, "First")
    aws_s3_assets.Asset(first, "Code", path=str(code))
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
    assert synth.compare_outputs(library, base).startswith("same 10 resources in 2 stacks and 1 file asset(s), ")
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
    # re-emission (its rules match typed L1 classes) and none on the generic one; the Control Tower
    # controls read the templates, so they find them on both.
    with pytest.raises(RuntimeError, match="AwsSolutions-"):
        _reemit(library, tmp_path / "typed", "typed", nag=True, acknowledge=False)
    with pytest.raises(RuntimeError) as generic:
        _reemit(library, tmp_path / "generic", "generic", nag=True, acknowledge=False)
    assert "AwsSolutions-" not in str(generic.value)
    assert "(cdk-validator-cfnguard)" in str(generic.value)


def test_generic_reemitter_reproduces_templates_byte_for_byte(library: Path, tmp_path: Path) -> None:
    base = _reemit(library, tmp_path, "generic")
    assert synth.templates(library) == synth.templates(base)
    assert synth.compare_outputs(library, base) == (
        "same 10 resources in 2 stacks and 1 file asset(s), identical templates"
    )
    assert _acknowledged(synth.read_assembly(base)) == _acknowledged(synth.read_assembly(library))


def test_compare_outputs_reports_a_lost_resource_and_template_differences(library: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(library, copy)
    path = copy / "First.template.json"
    template = json.loads(path.read_text(encoding="utf-8"))
    # Same JSON, other key order: equal up to key order.
    path.write_text(json.dumps(dict(reversed(template.items())), indent=1), encoding="utf-8")
    assert synth.compare_outputs(library, copy) == (
        "same 10 resources in 2 stacks and 1 file asset(s), templates equal up to key order"
    )
    # A changed property: the templates differ.
    lid, res = next((k, r) for k, r in template["Resources"].items() if "Properties" in r)
    res["Properties"]["Extra"] = 1
    path.write_text(json.dumps(template), encoding="utf-8")
    assert synth.compare_outputs(library, copy).endswith(f"templates DIFFER: First Resources {lid}")
    # A lost resource: the resources differ.
    del template["Resources"][lid]
    path.write_text(json.dumps(template), encoding="utf-8")
    assert synth.compare_outputs(library, copy).startswith("DIFFERENT resources in First")


def test_the_baselines_stage_the_same_file_assets(library: Path, tmp_path: Path) -> None:
    shipped = synth.file_assets(library)["First"]
    assert [(name, packaging) for name, packaging, _ in shipped] == [("Code", "zip")]
    for baseline in synth.BASELINES:
        base = _reemit(library, tmp_path / baseline, baseline)
        assert synth.file_assets(base) == synth.file_assets(library), baseline
        key = shipped[0][2].removesuffix(".zip")
        assert (base / f"asset.{key}" / "index.py").is_file(), baseline
    # An app that does not stage the code ships another assembly, and the comparison says so.
    sources = [replace(s, file_assets=[]) for s in synth.read_assembly(library)]
    app = App(outdir=str(tmp_path / "unstaged"), context=dict(synth.cdk_context()))
    synth.reemit(app, sources, baseline="python")
    app.synth()
    assert synth.compare_outputs(library, tmp_path / "unstaged").startswith("DIFFERENT file assets")


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


def _findings(outdir: Path) -> set[tuple[str, str, str]]:
    """(stack, logical id, rule) of every finding in an assembly's validation report."""
    report = json.loads((outdir / "validation-report.json").read_text(encoding="utf-8"))
    out = set()
    for plugin in report["pluginReports"]:
        for violation in plugin["violations"]:
            for construct in violation["violatingConstructs"]:
                stack, *_, lid = construct["constructPath"].split("/")
                out.add((stack, lid, violation["ruleName"]))
    return out


def test_python_reemitter_reproduces_templates_and_acknowledgments(library: Path, tmp_path: Path) -> None:
    base = _reemit(library, tmp_path, "python", nag=True)  # the nag packs pass: every finding acknowledged

    assert synth.resource_counts(library) == synth.resource_counts(base)
    lib_t, base_t = synth.templates(library), synth.templates(base)
    assert {k: json.loads(v) for k, v in lib_t.items()} == {k: json.loads(v) for k, v in base_t.items()}
    # The fixture's subscription is a CfnResource in the library and a typed CfnSubscription here, which
    # renders its properties in its own order.
    assert synth.compare_outputs(library, base) == (
        "same 10 resources in 2 stacks and 1 file asset(s), templates equal up to key order"
    )
    assert lib_t["First"] == base_t["First"]  # every resource of First is a typed L1 on both sides
    baseline = synth.read_assembly(base)
    assert _acknowledged(baseline) == _acknowledged(synth.read_assembly(library))
    assert [s.dependencies for s in baseline] == [[], ["First"]]
    assert _props_in_tree(base) == 10  # typed L1s


def test_python_baseline_gets_the_nag_findings_the_library_acknowledges(library: Path, tmp_path: Path) -> None:
    # Without the acknowledgments, the packs find on the python re-emission exactly the findings the library
    # acknowledges (its rules match the typed L1 classes), the same as on the typed one.
    with pytest.raises(RuntimeError, match="AwsSolutions-"):
        _reemit(library, tmp_path / "python", "python", nag=True, acknowledge=False)
    with pytest.raises(RuntimeError, match="AwsSolutions-"):
        _reemit(library, tmp_path / "typed", "typed", nag=True, acknowledge=False)
    found = _findings(tmp_path / "python" / "cdk.out")
    assert found == _findings(tmp_path / "typed" / "cdk.out")
    sources = synth.read_assembly(library)
    assert found <= _acknowledged(sources)
    for s in sources:  # every acknowledgment of the library covers a finding
        for path, rule, _ in s.acknowledgments:
            under = {lid for lid, p in s.logical_paths.items() if p == path or p.startswith(path + "/")}
            assert any(st == s.name and lid in under and r == _rule(rule) for st, lid, r in found), (path, rule)


@pytest.fixture(scope="module")
def platforms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The library's assemblies of a generated benchmark config (every endpoint kind) and of the project's
    default config (Bedrock profiles, budgets, anomaly detection, a custom resource, a dashboard...)."""
    from inference_constructs.stacks.platform import synthesize

    out = {}
    tmp = tmp_path_factory.mktemp("platforms")
    for name, config in (("bench-4", synth.write_config(4, tmp)), ("default", synth.ROOT / "config/default.yaml")):
        outdir = tmp / name
        synthesize(App(outdir=str(outdir), context=dict(synth.cdk_context())), config)
        out[name] = outdir
    return out


@pytest.mark.parametrize("name", ["bench-4", "default"])
def test_python_reemitter_reproduces_the_platform_byte_for_byte(
    platforms: dict[str, Path], name: str, tmp_path: Path
) -> None:
    library = platforms[name]
    base = _reemit(library, tmp_path, "python", nag=True)

    assert synth.resource_counts(library) == synth.resource_counts(base)
    assert synth.templates(library) == synth.templates(base)
    assert synth.compare_outputs(library, base).endswith(" file asset(s), identical templates")
    assert _acknowledged(synth.read_assembly(base)) == _acknowledged(synth.read_assembly(library))


def test_l1_class_finds_the_typed_class_of_a_resource_type() -> None:
    from aws_cdk import aws_applicationautoscaling, aws_iam, aws_sagemaker

    assert synth.l1_class("AWS::IAM::Role") is aws_iam.CfnRole
    assert synth.l1_class("AWS::SageMaker::EndpointConfig") is aws_sagemaker.CfnEndpointConfig
    assert synth.l1_class("AWS::ApplicationAutoScaling::ScalableTarget") is aws_applicationautoscaling.CfnScalableTarget
    assert synth.l1_class("Custom::CostAllocationTags") is CfnResource
    assert synth.l1_class("AWS::CloudFormation::CustomResource") is CfnResource
    with pytest.raises(NotImplementedError, match="AWS::Nope::Thing"):
        synth.l1_class("AWS::Nope::Thing")


def test_python_reemitter_writes_intrinsics_and_attributes_as_tokens_and_options(tmp_path: Path) -> None:
    # Every intrinsic and attribute the python baseline supports, in string, number and list positions,
    # renders back to the template it was read from.
    template = {
        "Parameters": {
            "Delay": {"Type": "Number"},
            "Urls": {"Type": "CommaDelimitedList"},
            "Env": {"Type": "String", "Default": "dev"},
        },
        "Mappings": {"Names": {"us-east-1": {"Queue": "q"}}},
        "Conditions": {"IsProd": {"Fn::Equals": [{"Ref": "Env"}, "prod"]}},
        "Resources": {
            "Queue": {
                "Type": "AWS::SQS::Queue",
                "Properties": {
                    "DelaySeconds": {"Ref": "Delay"},
                    "QueueName": {
                        "Fn::Join": [
                            "-",
                            [{"Fn::FindInMap": ["Names", {"Ref": "AWS::Region"}, "Queue"]}, {"Ref": "AWS::StackName"}],
                        ]
                    },
                    "Tags": [{"Key": "k", "Value": {"Fn::ImportValue": "exported"}}],
                },
                "UpdateReplacePolicy": "Retain",
                "DeletionPolicy": "Retain",
                "Metadata": {"note": "kept"},
            },
            "Policy": {
                "Type": "AWS::SQS::QueuePolicy",
                "Properties": {
                    "PolicyDocument": {
                        "Statement": [
                            {"Action": "sqs:*", "Effect": "Deny", "Principal": "*", "Resource": {"Ref": "Queue"}}
                        ],
                        "Version": "2012-10-17",
                    },
                    "Queues": {"Ref": "Urls"},
                },
                "DependsOn": ["Queue"],
            },
            "Topic": {
                "Type": "AWS::SNS::Topic",
                "Properties": {
                    "DisplayName": {"Fn::Sub": ["${Name}-topic", {"Name": {"Fn::GetAtt": ["Queue", "QueueName"]}}]}
                },
                "Condition": "IsProd",
            },
        },
        "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Queue", "Arn"]}, "Export": {"Name": "queue-arn"}}},
    }
    app = App(outdir=str(tmp_path), context=dict(synth.cdk_context()))
    synth.reemit(app, [synth.StackSource("S", template)], baseline="python")
    app.synth()
    (out,) = synth.read_assembly(tmp_path)
    assert synth.include_template(out) == template  # the synthesizer's BootstrapVersion aside


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        ({"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Fn::Select": [0, ["a"]]}}}, "Fn::Select"),
        ({"Type": "AWS::SNS::Topic", "Properties": {"Nope": "x"}}, "no keyword for property Nope"),
        ({"Type": "AWS::SNS::Topic", "Properties": {"TopicName": 3}}, "TopicName"),
        ({"Type": "AWS::SNS::Topic", "CreationPolicy": {}}, "attribute CreationPolicy"),
    ],
)
def test_python_recipe_refuses_what_it_cannot_write_naming_the_resource(resource: dict[str, Any], message: str) -> None:
    with pytest.raises(NotImplementedError, match=rf"S/Bad \(AWS::SNS::Topic\).*{message}"):
        synth.python_recipes([synth.StackSource("S", {"Resources": {"Bad": resource}})])


def _m(mode: str, n: int, synth_s: float, guard_s: float = 0.0) -> synth.Measurement:
    return synth.Measurement(
        mode, n, synth_s + 5, 1.0, synth_s, 500.0, 300.0, Path("."), guard_s=guard_s, guard_files=18
    )


def test_report_gives_the_median_and_spread_of_each_side_and_the_ratios_round_by_round() -> None:
    # GIVEN three rounds at N = 30, the second slow for every side (the machine drifted), one no-gates run missing
    lib = synth.Summary((_m("library", 30, 12.0, 2.0), _m("library", 30, 30.0, 9.0), _m("library", 30, 13.0, 3.0)))
    nogates = synth.Summary((_m("library-nogates", 30, 10.0), _m("library-nogates", 30, 25.0)))
    base = synth.Summary((_m("baseline", 30, 12.0), _m("baseline", 30, 24.0), _m("baseline", 30, 13.0)))
    report = synth.SynthReport(comparisons=[synth.Comparison(30, lib, nogates, base, "same")], load="1 1 1 -> 1 1 1")
    # THEN each side shows its median with the lowest and highest run
    (row,) = [line for line in synth.format_report(report).splitlines() if line.startswith("30 ")]
    cells = [c for c in row.split("  ") if c.strip()]
    assert [c.strip() for c in cells[:4]] == ["30", "13.0 (12.0-30.0)", "17.5 (10.0-25.0)", "13.0 (12.0-24.0)"]
    # AND each ratio is the median of the rounds' ratios, with their spread: library/baseline 1.0, 1.25, 1.0;
    # gates/no gates 1.2 and 1.2 (the round without a no-gates run is left out). The ratio of the medians would
    # have said 13.0 / 17.5 = 0.74 for the gates.
    assert [c.strip() for c in cells[4:7]] == ["1.20 (1.20-1.20)", "1.00 (1.00-1.25)", "3.0 (23%)"]
    assert synth.paired_ratios(lib, nogates) == [1.2, 1.2]
    assert synth.ratio_spread([]) == "-"
    # AND a side whose runs all failed is reported with its error, not a number
    failed = synth.Summary((replace(_m("baseline", 30, 0.0), error="boom"),))
    assert failed.error == "boom"
    assert synth.Summary(()).error == "not run"


def test_report_splits_each_side_at_app_synth_with_the_rounds_differences() -> None:
    # GIVEN two rounds at N = 10: the library spends 0.9 and 1.0 s before app.synth(), 0.96 and 0.86 s in it and
    # 0.04 s after it; the hand-written app 0.7 and 0.8 s before and 0.9 and 0.9 s in it
    def run(mode: str, build_s: float, app_synth_s: float, synth_s: float, calls: int) -> synth.Measurement:
        return replace(_m(mode, 10, synth_s), build_s=build_s, app_synth_s=app_synth_s, jsii_calls=calls)

    lib = synth.Summary((run("library", 0.9, 0.96, 1.9, 899), run("library", 1.0, 0.86, 1.9, 899)))
    base = synth.Summary((run("baseline", 0.7, 0.9, 1.6, 873), run("baseline", 0.8, 0.9, 1.7, 873)))
    comparison = synth.Comparison(10, lib, synth.Summary(()), base, "same")
    # THEN the line gives each phase's medians and the median of the rounds' differences, and the round trips
    assert synth.phase_line(comparison) == (
        "N=10 library/baseline: before app.synth() 0.95/0.75 s, +0.20 s round by round;"
        " app.synth() 0.91/0.90 s, +0.01 s round by round; after it 0.04/0.00 s, +0.04 s round by round;"
        " jsii round trips 899/873"
    )
    assert lib.runs[0].after_app_synth_s == pytest.approx(0.04)
    # AND rounds where never both sides succeeded give no difference rather than failing the report
    lonely = synth.Comparison(
        10,
        synth.Summary((lib.runs[0], replace(lib.runs[1], error="boom"))),
        synth.Summary(()),
        synth.Summary((replace(base.runs[0], error="boom"), base.runs[1])),
        "same",
    )
    assert "before app.synth() 0.90/0.80 s, - round by round" in synth.phase_line(lonely)
    # AND the report prints it under the table when both sides ran
    report = synth.SynthReport(comparisons=[comparison], load="1 -> 1")
    assert synth.phase_line(comparison) in synth.format_report(report)


def test_the_hand_written_app_imports_the_modules_of_its_resource_types_and_assets(tmp_path: Path) -> None:
    # GIVEN two stacks: one with a role, a bucket and a custom resource, one shipping a file
    with_role = synth.StackSource(
        "A",
        {
            "Resources": {
                "R": {"Type": "AWS::IAM::Role"},
                "B": {"Type": "AWS::S3::Bucket"},
                "C": {"Type": "Custom::Thing"},
                "T": {"Type": "AWS::ApplicationAutoScaling::ScalableTarget"},
            }
        },
    )
    with_file = synth.StackSource(
        "B", {"Resources": {"Q": {"Type": "AWS::SNS::Topic"}}}, file_assets=[("code", tmp_path)]
    )
    # THEN it imports the module of each AWS type, the assets module for the file, and nothing for the custom type
    assert synth.app_modules([with_role]) == ["aws_cdk.aws_applicationautoscaling", "aws_cdk.aws_iam", "aws_cdk.aws_s3"]
    assert synth.app_modules([with_role, with_file]) == [
        "aws_cdk.aws_applicationautoscaling",
        "aws_cdk.aws_iam",
        "aws_cdk.aws_s3",
        "aws_cdk.aws_s3_assets",
        "aws_cdk.aws_sns",
    ]
    # AND l1_class finds each type's class in the module named
    assert synth.l1_class("AWS::ApplicationAutoScaling::ScalableTarget").__module__.startswith(
        "aws_cdk.aws_applicationautoscaling"
    )


def test_report_gives_the_whole_process_of_each_side_round_by_round() -> None:
    # GIVEN two rounds: the library imports for 1.5 s, first synths for 2.0 s and synthesizes in 1.9 and 2.1 s;
    # the hand-written app 0.5 s, 2.0 s and 1.5 and 1.5 s
    def run(mode: str, import_s: float, synth_s: float) -> synth.Measurement:
        return replace(_m(mode, 10, synth_s), import_s=import_s, init_s=2.0)

    lib = synth.Summary((run("library", 1.5, 1.9), run("library", 1.5, 2.1)))
    base = synth.Summary((run("baseline", 0.5, 1.5), run("baseline", 0.5, 1.5)))
    comparison = synth.Comparison(10, lib, synth.Summary(()), base, "same")
    # THEN each side's process is 5.4-5.6 s against 4.0 s: the ratios 1.35 and 1.40, median 1.38 (printed 1.38)
    assert lib.runs[0].process_s == pytest.approx(5.4)
    assert synth.process_line(comparison) == (
        "N=10 whole process (imports + first synth + measured synth): library 5.5 s, baseline 4.0 s,"
        " library/baseline 1.38 (1.35-1.40); imports 1.50/0.50 s"
    )
    assert synth.process_line(comparison) in synth.format_report(synth.SynthReport(comparisons=[comparison]))


def test_children_keep_compiled_modules_even_where_the_shell_turned_caching_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a shell that turned Python's bytecode cache off
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    # THEN a measured child caches its compiled modules in the run's folder, as a user's synth caches them
    env = synth.child_env(tmp_path / "pycache")
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "pycache")
    assert env["PYTHONPATH"] == str(synth.ROOT)
    # AND without a folder the shell's setting is left as it is
    assert synth.child_env(None)["PYTHONDONTWRITEBYTECODE"] == "1"
