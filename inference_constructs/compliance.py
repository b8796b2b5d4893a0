"""Compliance gates: the cdk-nag packs and the AWS Control Tower proactive controls every synth runs, and the one
way to acknowledge a finding.

The Control Tower controls are the cfn-guard rule files ``cdk-validator-cfnguard`` bundles. cfn-guard's cost is
about (rule files) x (template bytes), and most of the bundled files are about services the templates never hold,
so :func:`add_compliance_gates` runs only the files that can report on the templates being validated: a file is
left out only when every rule in it is guarded by a ``when`` condition that is false unless the templates hold a
resource of one of the file's types (:func:`guard_rule_triggers`). A rule whose ``when`` condition is false is
skipped by cfn-guard (it reports neither pass nor fail), so a file left out could not have reported anything.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import (
    Acknowledgment,
    IPolicyValidationContext,
    IPolicyValidationPlugin,
    PolicyValidationPluginReport,
    PolicyViolatingResource,
    PolicyViolation,
    Validations,
)
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cdklabs.cdk_validator_cfnguard import CfnGuardValidator
from constructs import IConstruct

from inference_constructs import guard_rules as guard_rules_module
from inference_constructs.guard_plugin import (
    RULES_FOLDER,
    GuardRun,
    SideBySide,
    plugin_directory,
    plugin_tarball,
)
from inference_constructs.guard_rules import (
    guard_rule_looks_up,
    guard_rule_reads,
    guard_rule_triggers,
    kept_resources,
    reduced_template,
)

__all__ = [
    "GUARD_DISABLED_RULES",
    "GUARD_MAX_OUTPUT_BYTES",
    "GUARD_PLUGIN",
    "NAG_PACKS",
    "GuardRuleFile",
    "SelectedControlTowerRules",
    "acknowledge",
    "acknowledge_all",
    "add_compliance_gates",
    "analyze_rule_files",
    "guard_rule_files",
    "guard_rule_reads",
    "guard_rule_triggers",
    "select_guard_rule_files",
    "template_types",
]

#: The cdk-nag packs registered by :func:`add_compliance_gates`.
NAG_PACKS = ("AwsSolutions", "NIST.800.53.R5", "HIPAA.Security")
#: Name of the Control Tower plugin in ``validation-report.json``; its acknowledgment ids are
#: ``cdk-validator-cfnguard::<rule name>`` (e.g. ``cdk-validator-cfnguard::lambda_inside_vpc_check``).
GUARD_PLUGIN = "cdk-validator-cfnguard"
#: Room for cfn-guard's JSON report (the plugin's default, 1 MiB, is exceeded by a few hundred findings and then
#: fails the synth with ENOBUFS instead of listing them).
GUARD_MAX_OUTPUT_BYTES = 64 * 1024 * 1024

#: Control Tower proactive controls switched off for every template, by the rule file name the plugin reads
#: (control id ``CT.S3.PR.9`` is file ``ct-s3-pr-9``), with the reason. A control is listed here only when it
#: does not fit any bucket or resource this platform makes; a finding on one resource is acknowledged on that
#: resource instead (:func:`acknowledge`), so the control still checks everything else.
GUARD_DISABLED_RULES: dict[str, str] = {
    # CT.S3.PR.9: S3 Object Lock. The platform's buckets hold async inference results and access logs that
    # lifecycle rules expire; Object Lock (WORM retention) would forbid those deletes, and it cannot be turned
    # off once on. Results are reproducible by re-invoking the endpoint; nothing here is a record to retain.
    "ct-s3-pr-9": "object lock: results and access logs are expired by lifecycle rules, not retained records",
    # CT.S3.PR.4 (S3 event notifications): SageMaker
    # async inference itself notifies completion through its own SNS success/error topics, configured on the
    # endpoint; bucket notifications would duplicate them and need a consumer the platform does not have.
    "ct-s3-pr-4": "event notifications: async inference reports completion through its own notification config",
}


def add_compliance_gates(scope: IConstruct) -> None:
    """Register the validation plugins on ``scope`` (normally the App): cdk-nag's AwsSolutions, NIST 800-53
    rev 5 and HIPAA Security packs, and the AWS Control Tower proactive controls (cfn-guard rules bundled by
    ``cdk-validator-cfnguard``, run by its bundled cfn-guard binary; no network) less
    :data:`GUARD_DISABLED_RULES`. Any unacknowledged finding fails ``app.synth()`` / ``cdk synth`` and is
    listed in ``cdk.out/validation-report.json``.

    The Control Tower plugin runs only the rule files that can report on the synthesized templates
    (:class:`SelectedControlTowerRules`); its findings, acknowledgment ids and report are those of the full set.
    """
    control_tower = SelectedControlTowerRules()
    Validations.of(scope).add_plugins(
        _StartsControlTower(AwsSolutionsChecks(scope), control_tower),
        NIST80053R5Checks(scope),
        HIPAASecurityChecks(scope),
        control_tower,
    )


# --------------------------------------------------------------------------------------------- rule selection


@dataclass(frozen=True)
class GuardRuleFile:
    """One bundled Control Tower rule file."""

    path: Path
    """the file on disk (extracted from the installed plugin package)"""
    triggers: frozenset[str] | None
    """resource types of which the templates must hold one for any rule of the file to run
    (:func:`guard_rule_triggers`); None when that cannot be shown, and then the file always runs"""
    rules: tuple[str, ...]
    """names of the file's rules that cfn-guard evaluates (those without parameters)"""
    reads: frozenset[str] | None = None
    """resource types whose resources the file's queries can reach (:func:`guard_rule_reads`); the file is run
    on templates cut down to those; None: on whole templates"""
    looks_up: bool = True
    """whether the file reaches resources by key (:func:`guard_rule_looks_up`): then the cut keeps what the
    read resources reference too"""

    @property
    def name(self) -> str:
        """The file name without ``.guard``: ``ct-s3-pr-9`` (what ``disabled_rules`` names)."""
        return self.path.stem


def analyze_rule_files(folder: Path) -> tuple[GuardRuleFile, ...]:
    """Every ``.guard`` file under ``folder``, read by :mod:`~inference_constructs.guard_rules`, sorted by path."""
    return tuple(
        GuardRuleFile(
            path, *guard_rule_triggers(text), reads=guard_rule_reads(text), looks_up=guard_rule_looks_up(text)
        )
        for path in sorted(folder.rglob("*.guard"))
        for text in [path.read_text(encoding="utf-8")]
    )


def _analysis_key() -> str:
    """What decides the analysis besides the rule files (whose folder is keyed by the plugin build): the code that
    reads them."""
    code = Path(guard_rules_module.__file__).read_bytes() + Path(__file__).read_bytes()
    return hashlib.sha256(code).hexdigest()[:16]


def _cached_analysis(root: Path) -> tuple[GuardRuleFile, ...]:
    """:func:`analyze_rule_files` of the plugin's rule folder, kept beside the files it read
    (``analysis-<key>.json``, key from :func:`_analysis_key`) and read back on the next synth: reading 237 files
    costs about 0.17 s, every ``cdk synth``. A missing or unreadable copy is made again; one that cannot be
    written is skipped."""
    folder = root / RULES_FOLDER
    stored = root / f"analysis-{_analysis_key()}.json"

    def kind(types: list[str] | None) -> frozenset[str] | None:
        return None if types is None else frozenset(types)

    try:
        rows = json.loads(stored.read_text(encoding="utf-8"))
        return tuple(
            GuardRuleFile(folder / r["path"], kind(r["triggers"]), tuple(r["rules"]), kind(r["reads"]), r["looks_up"])
            for r in rows
        )
    except (OSError, ValueError, KeyError, TypeError):
        pass
    files = analyze_rule_files(folder)

    def listed(types: frozenset[str] | None) -> list[str] | None:
        return None if types is None else sorted(types)

    rows = [
        {
            "path": f.path.relative_to(folder).as_posix(),
            "triggers": listed(f.triggers),
            "rules": list(f.rules),
            "reads": listed(f.reads),
            "looks_up": f.looks_up,
        }
        for f in files
    ]
    with contextlib.suppress(OSError):
        staging = stored.with_name(f"{stored.name}.{os.getpid()}.tmp")
        staging.write_text(json.dumps(rows), encoding="utf-8")
        staging.replace(stored)
    return files


@functools.cache
def guard_rule_files() -> tuple[GuardRuleFile, ...]:
    """Every Control Tower rule file the installed plugin bundles (read from the plugin's own package, never
    from a list kept here), with its triggers, sorted by path (:func:`analyze_rule_files`, kept between synths
    by :func:`_cached_analysis`)."""
    files = _cached_analysis(plugin_directory())
    if not files:
        raise RuntimeError(f"no Control Tower rule file found in {plugin_tarball()}")
    return files


def template_types(templates: Iterable[Mapping[str, Any]]) -> frozenset[str] | None:
    """Every resource type and top-level key of ``templates``, or None when a template's resources cannot be
    read as CloudFormation's (then every rule file runs)."""
    present: set[str] = set()
    for template in templates:
        resources = template.get("Resources", {})
        if not isinstance(resources, dict):
            return None
        present |= set(template)
        for resource in resources.values():
            if not isinstance(resource, dict) or not isinstance(resource.get("Type"), str):
                return None
            present.add(resource["Type"])
    return frozenset(present)


def select_guard_rule_files(
    templates: Iterable[Mapping[str, Any]], disabled: Iterable[str] = GUARD_DISABLED_RULES
) -> list[GuardRuleFile]:
    """The bundled rule files that can report on ``templates``: a file whose triggers cannot be shown, and every
    file one of whose trigger types a template holds, less the ``disabled`` ones (by file name)."""
    off = set(disabled)
    present = template_types(templates)
    return [
        f
        for f in guard_rule_files()
        if f.name not in off and (present is None or f.triggers is None or f.triggers & present)
    ]


@jsii.implements(IPolicyValidationPlugin)
class SelectedControlTowerRules:
    """The Control Tower proactive controls of ``cdk-validator-cfnguard``, less :data:`GUARD_DISABLED_RULES`,
    run on the rule files that can report on the templates being validated (:func:`select_guard_rule_files`).

    The plugin's name, version and rule ids are those of ``CfnGuardValidator`` with every bundled rule, and each
    validation is that plugin's, run by its bundled cfn-guard on the selected files: the same findings, with the
    same rule names, locations and acknowledgment ids (``cdk-validator-cfnguard::<rule name>``).
    """

    def __init__(self) -> None:
        full = CfnGuardValidator(disabled_rules=sorted(GUARD_DISABLED_RULES), max_buffer=GUARD_MAX_OUTPUT_BYTES)
        self._name = full.name
        self._version = full.version
        self._rule_ids = full.rule_ids
        #: rule file names run by the last validation (for the benchmark and the tests)
        self.last_selection: list[str] = []
        self._started: _Validation | None = None

    @property
    def name(self) -> str:
        """``cdk-validator-cfnguard``: the name findings are reported and acknowledged under."""
        return self._name

    @property
    def version(self) -> str | None:
        """The installed plugin's version."""
        return self._version

    @property
    def rule_ids(self) -> list[str] | None:
        """Every enabled bundled control (what ``CfnGuardValidator`` reports for analytics)."""
        return self._rule_ids

    def start(self, template_paths: Sequence[str]) -> None:
        """Start the validation of ``template_paths`` in the background (:class:`_Validation`); the next
        :meth:`validate` of the same templates, unchanged, collects it instead of starting over.

        :func:`add_compliance_gates` calls this from the first cdk-nag pack's validation, so cfn-guard runs while
        the packs check the construct tree."""
        earlier, self._started = self._started, None
        if earlier is not None:
            earlier.discard()
        self._started = _Validation(template_paths)

    def validate(self, context: IPolicyValidationContext) -> PolicyValidationPluginReport:
        """Run each selected rule file, with the plugin's own validation, on the templates it can report on, cut
        down to what it can read (:func:`guard_runs`), the runs side by side (:class:`SideBySide`); the findings
        are put back in the order one run of every file over every template gives (template by template, files
        in the plugin's order) and name the original templates."""
        paths = list(context.template_paths)
        started, self._started = self._started, None
        if started is None or not started.validates(paths):
            if started is not None:
                started.discard()
            started = _Validation(paths)
        self.last_selection = [f.name for f in started.selected]
        return started.report()


class _Validation:
    """One validation of a set of templates by the selected rule files, started on creation: the files chosen
    (:func:`select_guard_rule_files`), the runs (:func:`guard_runs`, cut-down templates in a temporary
    directory) and the plugin's validation of them side by side (:class:`SideBySide`)."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self.texts = [Path(p).read_text(encoding="utf-8") for p in self.paths]
        templates = [json.loads(t) for t in self.texts]
        self.selected = select_guard_rule_files(templates)
        self._work = tempfile.TemporaryDirectory(prefix="inference-constructs-guard-")
        self.runs = guard_runs(self.selected, self.paths, self.texts, templates, Path(self._work.name))
        self._side = SideBySide(
            [GuardRun(tuple(str(f.path) for f in files), tuple(d for d, _ in data)) for files, data in self.runs],
            disabled_rules=sorted(GUARD_DISABLED_RULES),
            max_buffer=GUARD_MAX_OUTPUT_BYTES,
        )

    def validates(self, paths: Sequence[str]) -> bool:
        """Whether this is the validation of ``paths`` as they are now (same files, same bytes; False when one
        cannot be read)."""
        try:
            return list(paths) == self.paths and [Path(p).read_text(encoding="utf-8") for p in paths] == self.texts
        except OSError:
            return False

    def discard(self) -> None:
        """Stop the runs and drop what they found (the templates changed since it started)."""
        self._side.close()
        self._work.cleanup()

    def report(self) -> PolicyValidationPluginReport:
        """The plugin's report: every run's findings, in the order one run of every file over every template gives
        them, naming the original templates."""
        try:
            reports = self._side.reports()
        finally:
            self._work.cleanup()
        found: list[tuple[int, int, PolicyViolation]] = []
        order = {f.name: k for k, f in enumerate(self.selected)}
        for (rule_files, data), report in zip(self.runs, reports, strict=True):
            original = dict(data)
            file_of = {r: order[f.name] for f in rule_files for r in f.rules}
            for violation in report["violations"]:
                index = original[str(violation["violatingResources"][0]["templatePath"])]
                if len(rule_files) > 1 and violation["ruleName"] not in file_of:
                    raise RuntimeError(f"cfn-guard reported {violation['ruleName']}, a rule of none of {rule_files}")
                rank = file_of.get(violation["ruleName"], order[rule_files[0].name])
                found.append((index, rank, _violation(violation, self.paths[index])))
        found.sort(key=lambda item: item[:2])
        return PolicyValidationPluginReport(
            success=all(r["success"] for r in reports), violations=[v for _, _, v in found]
        )


@jsii.implements(IPolicyValidationPlugin)
class _StartsControlTower:
    """A cdk-nag pack that, before checking, starts the Control Tower validation of the same templates
    (:meth:`SelectedControlTowerRules.start`): the pack runs in the jsii kernel's Node process while cfn-guard
    runs in its own. Its name, version, rule ids and report are the pack's own."""

    def __init__(self, pack: IPolicyValidationPlugin, control_tower: SelectedControlTowerRules) -> None:
        self._pack = pack
        self._control_tower = control_tower

    @property
    def name(self) -> str:
        """The pack's name."""
        return self._pack.name

    @property
    def version(self) -> str | None:
        """The pack's version."""
        return self._pack.version

    @property
    def rule_ids(self) -> list[str] | None:
        """The pack's rule ids."""
        return self._pack.rule_ids

    def validate(self, context: IPolicyValidationContext) -> PolicyValidationPluginReport:
        """Start the Control Tower validation of ``context``'s templates, then return the pack's own report.

        A start that fails leaves nothing started: the Control Tower validation then runs on its own and reports
        the failure under its own name, and the pack's report stays the pack's."""
        with contextlib.suppress(Exception):
            self._control_tower.start(context.template_paths)
        return self._pack.validate(context)


def guard_runs(
    selected: Sequence[GuardRuleFile],
    paths: Sequence[str],
    texts: Sequence[str],
    templates: Sequence[Mapping[str, Any]],
    work: Path,
) -> list[tuple[list[GuardRuleFile], list[tuple[str, int]]]]:
    """The cfn-guard runs that validate ``templates`` with the ``selected`` files: (rule files, templates as
    (file to validate, index of the template)).

    A file runs only on the templates holding one of its trigger types (all, when they are unknown), each cut
    down to the resources the file can read (with every resource those reference when the file looks resources
    up by key) by :func:`reduced_template`, every kept byte where it was, or whole when what it reads is
    unknown; a cut-down template is written once into ``work`` per template and cut. Files that run on the very
    same files share one run (in the plugin's order) when no rule name is in two of them, so each finding
    still tells its file."""
    present = [template_types([t]) for t in templates]
    written: dict[tuple[int, frozenset[str], bool], str] = {}
    runs: dict[tuple[tuple[str, int], ...], list[list[GuardRuleFile]]] = {}
    for rule_file in selected:
        data: list[tuple[str, int]] = []
        for i, path in enumerate(paths):
            types = present[i]
            if types is not None and rule_file.triggers is not None and not rule_file.triggers & types:
                continue
            target = path
            if rule_file.reads is not None and types is not None:
                key = (i, rule_file.reads, rule_file.looks_up)
                if key not in written:
                    keep = kept_resources(templates[i], rule_file.reads, references=rule_file.looks_up)
                    reduced = None if len(keep) == len(templates[i]["Resources"]) else reduced_template(texts[i], keep)
                    if reduced is None:
                        written[key] = path
                    else:
                        written[key] = str(work / f"{len(written)}-{Path(path).name}")
                        Path(written[key]).write_text(reduced, encoding="utf-8")
                target = written[key]
            data.append((target, i))
        if not data:
            continue
        groups = runs.setdefault(tuple(data), [])
        named = set(rule_file.rules)
        fits = [g for g in groups if not named & {r for f in g for r in f.rules}]
        if fits and rule_file.rules:
            fits[0].append(rule_file)
        else:
            groups.append([rule_file])
    return [(group, list(data)) for data, groups in runs.items() for group in groups]


def _violation(found: Mapping[str, Any], template_path: str) -> PolicyViolation:
    """One violation of the plugin's report (as its Node code returns it), naming ``template_path``, with the
    severity ``error`` where the plugin sets none.

    The plugin sets no severity, which the validation report prints as ``error``; but when an acknowledgment
    suppresses one of a plugin's violations, CDK recomputes the plugin's success as "no violation left has
    severity error or fatal", so without a severity the unacknowledged Control Tower findings left would no
    longer fail the synth."""
    return PolicyViolation(
        rule_name=found["ruleName"],
        description=found["description"],
        fix=found.get("fix"),
        severity=found.get("severity") or "error",
        rule_metadata=found.get("ruleMetadata"),
        violating_resources=[
            PolicyViolatingResource(
                resource_logical_id=r["resourceLogicalId"], template_path=template_path, locations=r["locations"]
            )
            for r in found["violatingResources"]
        ],
    )


def acknowledge(construct: IConstruct, rule_id: str, reason: str) -> None:
    """Acknowledge one granular finding on ``construct`` (and its children): a cdk-nag rule
    (``AwsSolutions-IAM5[Resource::*]``) or a Control Tower control (``cdk-validator-cfnguard::<rule name>``).

    ``reason`` must say why this resource is safe; an empty or generic reason is refused.
    """
    acknowledge_all(construct, [(rule_id, reason)])


def acknowledge_all(construct: IConstruct, findings: Iterable[tuple[str, str]]) -> None:
    """Acknowledge several ``(rule id, reason)`` findings on ``construct`` (and its children) at once.

    Same as :func:`acknowledge` for each finding, in one round trip to the jsii kernel instead of one per
    finding (a synth acknowledges hundreds). Every reason is checked before anything is acknowledged.
    """
    acks = []
    for rule_id, reason in findings:
        if len(reason.strip()) < 20:
            raise ValueError(f"acknowledgment of {rule_id} needs a specific reason, got {reason!r}")
        acks.append(Acknowledgment(id=rule_id, reason=reason))
    if acks:
        Validations.of(construct).acknowledge(*acks)
