"""The Control Tower validation run side by side: the plugin's own code in Node worker processes, started from the
first cdk-nag pack, gives the report the plugins give when each runs in turn."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import jsii
import pytest
from aws_cdk import App, IPolicyValidationPlugin, PolicyValidationPluginReport, Stack, Validations, aws_s3
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cdklabs.cdk_validator_cfnguard import CfnGuardValidator

from inference_constructs import compliance
from inference_constructs.compliance import (
    GUARD_DISABLED_RULES,
    GUARD_MAX_OUTPUT_BYTES,
    SelectedControlTowerRules,
    add_compliance_gates,
    guard_rule_files,
)
from inference_constructs.guard_plugin import RULES_FOLDER, GuardRun, SideBySide, plugin_directory


@dataclass
class _Context:
    template_paths: list[str]


def _files(outdir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(outdir)): p.read_bytes() for p in sorted(outdir.rglob("*")) if p.is_file()}


def _buckets_app(outdir: Path) -> App:
    app = App(outdir=str(outdir))
    aws_s3.Bucket(Stack(app, "Broken"), "Bucket", enforce_ssl=True)
    aws_s3.Bucket(Stack(app, "AlsoBroken"), "Bucket")
    return app


def test_the_gates_report_what_the_plugins_report_one_after_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN two stacks with cdk-nag and Control Tower findings, validated once by the three packs and the bundled
    # plugin with every rule, each in turn, and once by add_compliance_gates
    full = _buckets_app(tmp_path / "full")
    Validations.of(full).add_plugins(
        AwsSolutionsChecks(full),
        NIST80053R5Checks(full),
        HIPAASecurityChecks(full),
        CfnGuardValidator(  # type: ignore[arg-type]
            disabled_rules=sorted(GUARD_DISABLED_RULES), max_buffer=GUARD_MAX_OUTPUT_BYTES
        ),
    )
    gated = _buckets_app(tmp_path / "gated")
    add_compliance_gates(gated)
    events: list[str] = []
    validation, start, validate = (
        compliance._Validation,
        SelectedControlTowerRules.start,
        SelectedControlTowerRules.validate,
    )

    def made(paths: list[str]) -> compliance._Validation:
        events.append("made " + " ".join(sorted(Path(p).name for p in paths)))
        return validation(paths)

    def started(self: SelectedControlTowerRules, paths: list[str]) -> None:
        events.append("start")
        start(self, paths)

    def validated(self: SelectedControlTowerRules, context: object) -> object:
        events.append("validate")
        return validate(self, context)  # type: ignore[arg-type]

    monkeypatch.setattr(compliance, "_Validation", made)
    monkeypatch.setattr(SelectedControlTowerRules, "start", started)
    monkeypatch.setattr(SelectedControlTowerRules, "validate", validated)
    for app in (full, gated):
        with pytest.raises(RuntimeError, match="ValidationFailed"):
            app.synth()
    # THEN every file of the assembly, the validation report with its findings in order included, is the same
    assert _files(tmp_path / "full") == _files(tmp_path / "gated")
    report = json.loads((tmp_path / "gated" / "validation-report.json").read_text(encoding="utf-8"))
    plugins = [p["pluginName"] for p in report["pluginReports"]]
    assert "cdk-validator-cfnguard" in plugins and "AwsSolutions" in plugins
    # AND the Control Tower validation was started once, from the first pack, on both templates, and collected
    assert events == ["start", "made AlsoBroken.template.json Broken.template.json", "validate"]


def test_a_validation_started_on_templates_that_changed_since_is_run_again(tmp_path: Path) -> None:
    # GIVEN a validation started on a template with a bare bucket, and the template then rewritten with none
    template = tmp_path / "t.template.json"
    template.write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}), encoding="utf-8")
    plugin = SelectedControlTowerRules()
    plugin.start([str(template)])
    handle = {"Resources": {"H": {"Type": "AWS::CloudFormation::WaitConditionHandle"}}}
    template.write_text(json.dumps(handle), encoding="utf-8")
    # THEN the validation reports on the template as it is now: no bucket finding
    report = plugin.validate(_Context([str(template)]))  # type: ignore[arg-type]
    assert report.success and list(report.violations) == []
    assert plugin.last_selection == []
    # AND a validation started on the same bytes is the one collected, with the bucket's findings
    template.write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}), encoding="utf-8")
    plugin.start([str(template)])
    report = plugin.validate(_Context([str(template)]))  # type: ignore[arg-type]
    assert not report.success
    assert {"s3_bucket_versioning_enabled_check", "s3_bucket_logging_enabled_check"} <= {
        v.rule_name for v in report.violations
    }


def _rule(name: str) -> str:
    (found,) = [str(f.path) for f in guard_rule_files() if f.name == name]
    return found


def test_runs_side_by_side_report_in_the_order_of_the_runs(tmp_path: Path) -> None:
    # GIVEN three runs of very different cost (the workers take the most costly first), each on its own template
    templates = []
    for k, buckets in enumerate((1, 40, 3)):
        path = tmp_path / f"t{k}.template.json"
        path.write_text(
            json.dumps({"Resources": {f"Bucket{k}x{i}": {"Type": "AWS::S3::Bucket"} for i in range(buckets)}}),
            encoding="utf-8",
        )
        templates.append(str(path))
    runs = [GuardRun((_rule("ct-s3-pr-2"),), (t,)) for t in templates]
    reports = SideBySide(runs, disabled_rules=[], max_buffer=GUARD_MAX_OUTPUT_BYTES).reports()
    # THEN report k holds the findings of run k's template, one resource per bucket
    for k, (report, buckets) in enumerate(zip(reports, (1, 40, 3), strict=True)):
        resources = {r["resourceLogicalId"] for v in report["violations"] for r in v["violatingResources"]}
        assert not report["success"]
        assert resources == {f"Bucket{k}x{i}" for i in range(buckets)}


def test_a_run_cfn_guard_cannot_read_fails_with_the_plugins_message(tmp_path: Path) -> None:
    # GIVEN a data file that is neither JSON nor YAML
    broken = tmp_path / "broken.template.json"
    broken.write_text("{ not: [ a template", encoding="utf-8")
    side = SideBySide(
        [GuardRun((_rule("ct-s3-pr-2"),), (str(broken),))], disabled_rules=[], max_buffer=GUARD_MAX_OUTPUT_BYTES
    )
    # THEN the plugin's own error reaches the caller
    with pytest.raises(RuntimeError, match="CfnGuardValidator plugin failed"):
        side.reports()


def test_the_rule_analysis_kept_between_synths_is_the_analysis_and_is_remade_when_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN the plugin's rule files copied into a fresh folder, with no analysis kept yet
    root = tmp_path / "plugin"
    shutil.copytree(plugin_directory() / RULES_FOLDER, root / RULES_FOLDER)
    fresh = compliance.analyze_rule_files(root / RULES_FOLDER)
    # THEN the first read analyses the files and keeps the result; the second reads it back, equal
    assert compliance._cached_analysis(root) == fresh
    (stored,) = root.glob("analysis-*.json")
    assert compliance._cached_analysis(root) == fresh
    # AND a kept copy that cannot be read is made again
    stored.write_text("{ not json", encoding="utf-8")
    assert compliance._cached_analysis(root) == fresh
    assert json.loads(stored.read_text(encoding="utf-8"))[0]["path"].endswith(".guard")
    # AND the analysis of other code is kept under another name, never read for this one
    monkeypatch.setattr(compliance, "_analysis_key", lambda: "other-code")
    assert compliance._cached_analysis(root) == fresh
    assert sorted(p.name for p in root.glob("analysis-*.json")) == sorted([stored.name, "analysis-other-code.json"])


@jsii.implements(IPolicyValidationPlugin)
class _Pack:
    def __init__(self) -> None:
        self.name, self.version, self.rule_ids = "APack", "1", ["A1"]

    def validate(self, context: object) -> PolicyValidationPluginReport:
        return PolicyValidationPluginReport(success=True, violations=[])


def test_a_start_that_fails_leaves_the_pack_report_and_nothing_started(tmp_path: Path) -> None:
    # GIVEN the first pack's wrapper, and templates the Control Tower validation cannot read
    control_tower = SelectedControlTowerRules()
    wrapper = compliance._StartsControlTower(_Pack(), control_tower)
    missing = str(tmp_path / "missing.template.json")
    # THEN the pack's own report comes back, under its name, and no validation is pending
    assert (wrapper.name, wrapper.version, wrapper.rule_ids) == ("APack", "1", ["A1"])
    assert wrapper.validate(_Context([missing])).success  # type: ignore[arg-type]
    assert control_tower._started is None
    # AND the Control Tower validation itself reports the failure when it runs
    with pytest.raises(FileNotFoundError):
        control_tower.validate(_Context([missing]))  # type: ignore[arg-type]


def test_starting_on_other_templates_stops_the_runs_started_before(tmp_path: Path) -> None:
    # GIVEN a validation started on one template, then another started on a second
    first, second = tmp_path / "a.template.json", tmp_path / "b.template.json"
    for path in (first, second):
        path.write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}), encoding="utf-8")
    plugin = SelectedControlTowerRules()
    plugin.start([str(first)])
    earlier = plugin._started
    plugin.start([str(second)])
    # THEN the first one's runs were stopped and its cut-down templates removed; the second is collected
    assert earlier is not None and earlier._side._closed
    assert not Path(earlier._work.name).exists()
    report = plugin.validate(_Context([str(second)]))  # type: ignore[arg-type]
    assert {str(second)} == {r.template_path for v in report.violations for r in v.violating_resources}


def test_closed_runs_end_their_workers_and_report_nothing(tmp_path: Path) -> None:
    # GIVEN many runs, closed as soon as they start
    template = tmp_path / "t.template.json"
    template.write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}), encoding="utf-8")
    side = SideBySide(
        [GuardRun((_rule("ct-s3-pr-2"),), (str(template),))] * 20, disabled_rules=[], max_buffer=GUARD_MAX_OUTPUT_BYTES
    )
    side.close()
    # THEN no worker is left running, and asking for the reports says why there are none
    assert all(w.poll() is not None for w in side._workers)
    with pytest.raises(RuntimeError):
        side.reports()


def test_a_process_that_exits_before_collecting_leaves_no_worker_behind(tmp_path: Path) -> None:
    # GIVEN a Python process that starts runs and exits without collecting them
    template = tmp_path / "t.template.json"
    template.write_text(
        json.dumps({"Resources": {f"B{i}": {"Type": "AWS::S3::Bucket"} for i in range(200)}}), encoding="utf-8"
    )
    script = (
        "import sys, time\n"
        "from inference_constructs.compliance import GUARD_MAX_OUTPUT_BYTES, guard_rule_files\n"
        "from inference_constructs.guard_plugin import GuardRun, SideBySide\n"
        "rule = [str(f.path) for f in guard_rule_files() if f.name == 'ct-s3-pr-2'][0]\n"
        "side = SideBySide([GuardRun((rule,), (sys.argv[1],))] * 40, disabled_rules=[],"
        " max_buffer=GUARD_MAX_OUTPUT_BYTES)\n"
        "while len(side._workers) < len(side._threads): time.sleep(0.01)\n"
        "print(' '.join(str(w.pid) for w in side._workers), flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(template)], capture_output=True, text=True, check=True, timeout=120
    )
    # THEN its workers ended with it, without a Node stack trace
    pids = [int(p) for p in done.stdout.split()]
    assert pids
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
    assert "EPIPE" not in done.stderr and "Error" not in done.stderr


def test_without_a_writable_cache_the_plugin_is_extracted_once_and_removed_at_exit(tmp_path: Path) -> None:
    # GIVEN a process whose cache folder cannot be written (a read-only home in a pipeline)
    unwritable = tmp_path / "cache"
    unwritable.write_text("a file, not a folder", encoding="utf-8")
    script = (
        "from inference_constructs.guard_plugin import plugin_directory\n"
        "first, again = plugin_directory(), plugin_directory()\n"
        "assert first == again and (first / 'package' / 'lib' / 'plugin.js').is_file()\n"
        "print(first)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "XDG_CACHE_HOME": str(unwritable)},
    )
    # THEN it used one temporary copy, outside the cache, gone once the process ended
    extracted = Path(done.stdout.strip())
    assert not extracted.is_relative_to(unwritable)
    assert not extracted.exists()
