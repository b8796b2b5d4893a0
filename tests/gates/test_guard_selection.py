"""The Control Tower rule selection: which bundled rule files a set of templates runs, why a file left out could
not have reported anything, and that the plugin's report is the full set's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from aws_cdk import App, Stack, Validations, aws_kms, aws_logs, aws_s3
from cdklabs.cdk_validator_cfnguard import CfnGuardValidator

from inference_constructs import compliance
from inference_constructs.compliance import (
    GUARD_DISABLED_RULES,
    GUARD_MAX_OUTPUT_BYTES,
    SelectedControlTowerRules,
    acknowledge,
    guard_rule_files,
    guard_rule_reads,
    guard_rule_triggers,
    select_guard_rule_files,
)
from inference_constructs.guard_rules import guard_rule_looks_up, kept_resources, reduced_template
from tests.gates import guard_equivalence

GATED = """
# a comment with a brace { and Resources.*[ Type == "AWS::Nope::Nope" ]
let BUCKET = "AWS::S3::Bucket"
let INPUT_DOCUMENT = this
let buckets = Resources.*[ Type == %BUCKET ]
rule bucket_check when is_cfn_template(%INPUT_DOCUMENT)
                       %buckets not empty {
    %buckets.Properties.X exists
    <<
    [CT.X]: a message with 'quotes' and a { brace
    >>
}
rule bucket_check when is_cfn_hook(%INPUT_DOCUMENT, %BUCKET) {
    %INPUT_DOCUMENT.%BUCKET.resourceProperties.X exists
}
rule is_cfn_template(doc) {
    %doc { Resources exists }
}
rule is_cfn_hook(doc, RESOURCE_TYPE) {
    %doc.%RESOURCE_TYPE.resourceProperties exists
}
"""


def test_a_rule_file_gated_on_a_resource_type_triggers_on_that_type() -> None:
    assert guard_rule_triggers(GATED) == (frozenset({"AWS::S3::Bucket"}), ("bucket_check",))
    two = GATED.replace("Type == %BUCKET ]", "Type == %BUCKET or Type == 'AWS::S3::AccessPoint' ]")
    assert guard_rule_triggers(two)[0] == {"AWS::S3::Bucket", "AWS::S3::AccessPoint"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the type gate joined by `or` to another condition: the rule can run without a bucket
        ("%buckets not empty {", "%buckets not empty or\n Parameters exists {"),
        # a regex, a wildcard or an unknown constant selects the resources
        ("Type == %BUCKET ]", "Type == /AWS::S3::.*/ ]"),
        ("Resources.*[ Type == %BUCKET ]", "Resources.*"),
        ("Type == %BUCKET ]", "Type == %SOMETHING_ELSE ]"),
        # the gate is a variable set from another query
        ("let buckets = Resources.*[ Type == %BUCKET ]", "let buckets = Resources.*[ Properties.X exists ]"),
        # a rule without a when condition
        (
            "rule bucket_check when is_cfn_template(%INPUT_DOCUMENT)\n                       %buckets not empty {",
            "rule bucket_check {",
        ),
        # a hook gate whose rule does not test the hook's input for the type
        ("%doc.%RESOURCE_TYPE.resourceProperties exists", "%doc.Resources exists"),
        # a clause outside any rule (cfn-guard evaluates it as a rule of its own)
        ("let INPUT_DOCUMENT = this", "let INPUT_DOCUMENT = this\nResources exists"),
    ],
)
def test_a_gate_the_parser_cannot_read_keeps_the_file(old: str, new: str) -> None:
    # GIVEN the gated file with one thing changed to a form whose meaning is not plain THEN the file always runs
    assert old in GATED
    assert guard_rule_triggers(GATED.replace(old, new))[0] is None


def test_every_bundled_rule_file_triggers_on_the_types_its_header_reports_on() -> None:
    # GIVEN the installed plugin's rule files THEN every one has triggers, and they are the resource types the
    # file's own header lists under "Reports on" (two headers spell AutoScalingGroup in another case)
    files = guard_rule_files()
    assert len(files) == 237
    for f in files:
        header = re.search(r"# Reports on:\s*\n((?:#\s+AWS::\S+.*\n)+)", f.path.read_text(encoding="utf-8"))
        assert header, f.name
        reported = {t.lower() for t in re.findall(r"AWS::\w+::\w+", header.group(1))}
        assert f.triggers is not None and {t.lower() for t in f.triggers} == reported, f.name
        assert len(f.rules) == 1, f.name


def _names(templates: list[dict[str, object]]) -> set[str]:
    return {f.name for f in select_guard_rule_files(templates)}


def test_selection_runs_the_files_of_present_types_and_of_unreadable_templates() -> None:
    bucket = {"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}
    names = _names([bucket])
    # GIVEN a bucket THEN the S3 controls run but the disabled ones, and no RDS control
    assert {"ct-s3-pr-1", "ct-s3-pr-10"} <= names
    assert not names & set(GUARD_DISABLED_RULES)
    assert not any(n.startswith("ct-rds-") for n in names)
    # GIVEN a CloudFormation hook input (the type as a top-level key) THEN its controls run
    assert "ct-rds-pr-1" in _names([bucket, {"AWS::RDS::DBInstance": {"resourceProperties": {}}}])
    # GIVEN a resource whose type cannot be read THEN every enabled file runs
    everything = {f.name for f in guard_rule_files()} - set(GUARD_DISABLED_RULES)
    assert _names([bucket, {"Resources": {"X": {"Type": {"Ref": "T"}}}}]) == everything
    assert _names([]) == set()


def _broken_app(outdir: Path, plugin: object) -> App:
    app = App(outdir=str(outdir))
    stack = Stack(app, "Broken")
    key = aws_kms.Key(stack, "Key", enable_key_rotation=True)
    aws_logs.LogGroup(stack, "Logs", retention=aws_logs.RetentionDays.ONE_YEAR)
    aws_s3.Bucket(stack, "Bucket", enforce_ssl=True)
    # a second template with findings of its own: the report lists them after the first template's
    aws_s3.Bucket(Stack(app, "AlsoBroken"), "Bucket")
    # an acknowledgment of a control the key does not break: it suppresses nothing
    acknowledge(key, "cdk-validator-cfnguard::s3_bucket_versioning_enabled_check", "acknowledged in this test")
    Validations.of(app).add_plugins(plugin)  # type: ignore[arg-type]
    return app


def _files(outdir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(outdir)): p.read_bytes() for p in sorted(outdir.rglob("*")) if p.is_file()}


def _full() -> CfnGuardValidator:
    return CfnGuardValidator(disabled_rules=sorted(GUARD_DISABLED_RULES), max_buffer=GUARD_MAX_OUTPUT_BYTES)


def test_selected_plugin_writes_the_full_plugins_report_byte_for_byte(tmp_path: Path) -> None:
    # GIVEN an app with findings of three services, validated once by the plugin with every bundled rule and
    # once by the selection
    selected = SelectedControlTowerRules()
    for name, plugin in (("full", _full()), ("selected", selected)):
        with pytest.raises(RuntimeError, match="ValidationFailed"):
            _broken_app(tmp_path / name, plugin).synth()
    # THEN the selection ran a fraction of the files, and every file of the assembly (the validation report with
    # its findings in order, the templates, the tree) is byte-identical
    assert 0 < len(selected.last_selection) < 30
    assert _files(tmp_path / "full") == _files(tmp_path / "selected")
    report = json.loads((tmp_path / "selected" / "validation-report.json").read_text(encoding="utf-8"))
    rules = {v["ruleName"] for p in report["pluginReports"] for v in p["violations"]}
    assert {"kms_create_grant_aws_service_check", "cloudwatch_log_group_encrypted_check"} <= rules
    assert "s3_bucket_logging_enabled_check" in rules


def _bucket_with_one_acknowledged_finding(outdir: Path, plugin: object) -> dict[str, object]:
    app = App(outdir=str(outdir))
    bucket = aws_s3.Bucket(Stack(app, "Broken"), "Bucket", enforce_ssl=True)
    acknowledge(bucket, "cdk-validator-cfnguard::s3_bucket_versioning_enabled_check", "acknowledged in this test")
    Validations.of(app).add_plugins(plugin)  # type: ignore[arg-type]
    try:
        app.synth()
    except RuntimeError as exc:
        assert "ValidationFailed" in str(exc)
        failed = True
    else:
        failed = False
    (report,) = json.loads((outdir / "validation-report.json").read_text(encoding="utf-8"))["pluginReports"]
    return {"failed": failed, "conclusion": report["conclusion"], "violations": report["violations"]}


def test_control_tower_findings_fail_the_synth_when_another_one_is_acknowledged(tmp_path: Path) -> None:
    # GIVEN a bucket with one Control Tower finding acknowledged and the others not
    plugin = _bucket_with_one_acknowledged_finding(tmp_path / "full", _full())
    selected = _bucket_with_one_acknowledged_finding(tmp_path / "selected", SelectedControlTowerRules())
    # THEN both list the same findings left, without the acknowledged one
    assert selected["violations"] == plugin["violations"]
    rules = {v["ruleName"] for v in selected["violations"]}  # type: ignore[attr-defined]
    assert "s3_bucket_logging_enabled_check" in rules
    assert "s3_bucket_versioning_enabled_check" not in rules
    # AND the selection fails the synth; the bundled plugin sets no severity, so CDK, which recomputes success
    # from the severities once an acknowledgment applies, lets the same synth pass
    assert (selected["failed"], selected["conclusion"]) == (True, "failure")
    assert (plugin["failed"], plugin["conclusion"]) == (False, "success")


def test_equivalence_check_reports_a_selection_that_leaves_out_a_rule_that_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a template with a bare bucket and a selection that wrongly leaves out two S3 controls
    template = tmp_path / "t.template.json"
    template.write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}), encoding="utf-8")

    def wrong(templates: list[dict[str, object]]) -> list[compliance.GuardRuleFile]:
        return [f for f in select_guard_rule_files(templates) if f.name not in {"ct-s3-pr-1", "ct-s3-pr-5"}]

    monkeypatch.setattr(guard_equivalence, "select_guard_rule_files", wrong)
    problems, counts, findings = guard_equivalence.compare({"bucket": [template]}, tmp_path)
    # THEN the check names the changed findings and the evaluated rules left out
    assert findings > 0
    assert any("findings differ" in p for p in problems), problems
    assert any("s3_bucket_level_public_access_prohibited_check was evaluated" in p for p in problems), problems
    assert counts["bucket"] == len(select_guard_rule_files([json.loads(template.read_text())])) - 2


def test_a_gated_file_reads_the_types_it_selects() -> None:
    assert guard_rule_reads(GATED) == {"AWS::S3::Bucket"}
    lookup = GATED.replace(
        "rule is_cfn_template(doc) {",
        "rule find(doc, key) {\n    let r = %doc.Resources[ keys == %key ]\n    %r not empty\n}\n"
        "rule is_cfn_template(doc) {",
    )
    assert guard_rule_reads(lookup) == {"AWS::S3::Bucket"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a wildcard over every resource, or over the whole document
        ("Resources.*[ Type == %BUCKET ]", "Resources.*"),
        ("%buckets.Properties.X exists", "%INPUT_DOCUMENT.* exists"),
        ("%buckets.Properties.X exists", "this.Resources exists"),
        ("%buckets.Properties.X exists", "* exists"),
        # resources selected by something other than a known type
        ("Type == %BUCKET ]", "Type == /AWS::S3::.*/ ]"),
        ("Type == %BUCKET ]", "Type == %SOMETHING_ELSE ]"),
        ("Resources.*[ Type == %BUCKET ]", "Resources.*[ Type == %BUCKET  Properties.X exists ]"),
        # the document handed to a block that does more than test keys
        ("%doc { Resources exists }", "%doc { Resources.* not empty }"),
        # the document aliased and used with a wildcard
        ("let INPUT_DOCUMENT = this", "let INPUT_DOCUMENT = this\nlet d = %INPUT_DOCUMENT\nlet all = %d[*]"),
    ],
)
def test_a_query_the_parser_cannot_read_runs_the_file_on_whole_templates(old: str, new: str) -> None:
    # GIVEN the gated file with one way to reach into the document changed to a form whose reach is not plain
    assert old in GATED
    # THEN what it reads is unknown
    assert guard_rule_reads(GATED.replace(old, new)) is None


def test_every_bundled_file_reads_at_least_the_types_it_triggers_on() -> None:
    files = guard_rule_files()
    readable = [f for f in files if f.reads is not None]
    assert len(readable) > 200  # the cut-down templates apply to nearly every control
    for f in readable:
        assert f.triggers is not None and f.triggers <= f.reads, f.name


def test_the_plugin_runs_its_rule_files_in_the_order_of_the_selection() -> None:
    # GIVEN the installed plugin's own list of controls (read from its rules folder in Node) THEN it is the order
    # guard_rule_files gives, which the selection's findings are sorted by
    ids = _full().rule_ids
    ours = [
        f.name.replace("ct-", "").replace("-", "") for f in guard_rule_files() if f.name not in GUARD_DISABLED_RULES
    ]
    assert ids == ours


TEMPLATE = {
    "Resources": {
        "Bucket": {
            "Type": "AWS::S3::Bucket",
            "Properties": {"LoggingConfiguration": {"DestinationBucketName": {"Ref": "Logs"}}},
        },
        "Alarm": {"Type": "AWS::CloudWatch::Alarm", "Properties": {"AlarmActions": [{"Ref": "Topic"}]}},
        "Logs": {"Type": "AWS::S3::Bucket", "DependsOn": "Role"},
        "Role": {"Type": "AWS::IAM::Role"},
        "Topic": {"Type": "AWS::SNS::Topic"},
    },
    "Outputs": {"O": {"Value": {"Ref": "Topic"}}},
}


def test_a_cut_down_template_keeps_the_read_resources_what_they_reference_and_every_position() -> None:
    text = json.dumps(TEMPLATE, indent=1)
    keep = kept_resources(TEMPLATE, frozenset({"AWS::S3::Bucket"}))
    # THEN the buckets and what they reference, directly or through another, are kept (only the buckets for a
    # file that looks nothing up by key)
    assert keep == {"Bucket", "Logs", "Role"}
    assert kept_resources(TEMPLATE, frozenset({"AWS::S3::Bucket"}), references=False) == {"Bucket", "Logs"}
    assert guard_rule_looks_up(GATED) is False
    assert guard_rule_looks_up(GATED.replace("%doc { Resources exists }", "%doc.Resources[ keys == %k ] not empty"))
    reduced = reduced_template(text, keep)
    assert reduced is not None
    data = json.loads(reduced)
    assert data["Resources"] == {k: v for k, v in TEMPLATE["Resources"].items() if k in keep}
    assert data["Outputs"] == TEMPLATE["Outputs"]
    # AND every kept line is where it was, at the same column
    before, after = text.splitlines(), reduced.splitlines()
    assert len(before) == len(after)
    for a, b in zip(before, after, strict=True):
        assert b.strip() in ("", a.strip(), a.strip().rstrip(",")), (a, b)
        if b.strip():
            assert b.index(b.strip()) == a.index(a.strip())
    # GIVEN only the last resource kept THEN no comma is left dangling; GIVEN none THEN an empty object
    assert json.loads(reduced_template(text, {"Topic"}) or "")["Resources"] == {"Topic": {"Type": "AWS::SNS::Topic"}}
    assert json.loads(reduced_template(text, set()) or "")["Resources"] == {}
    # GIVEN text that is not a JSON object THEN nothing is cut
    assert reduced_template("Resources: {}\n", set()) is None
