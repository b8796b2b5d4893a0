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

import functools
import hashlib
import importlib.resources
import json
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import jsii
from aws_cdk import (
    Acknowledgment,
    IPolicyValidationContext,
    IPolicyValidationContextBeta1,
    IPolicyValidationPlugin,
    PolicyValidationPluginReport,
    PolicyValidationPluginReportBeta1,
    PolicyViolatingResource,
    PolicyViolation,
    Validations,
)
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NIST80053R5Checks
from cdklabs.cdk_validator_cfnguard import CfnGuardValidator
from constructs import IConstruct

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

#: Where the plugin's package keeps its Control Tower rule files (``<service>/ct-*.guard``), inside the jsii
#: tarball the Python package ships.
_GUARD_RULES_IN_PACKAGE = "package/rules/control-tower/cfn-guard/"


def add_compliance_gates(scope: IConstruct) -> None:
    """Register the validation plugins on ``scope`` (normally the App): cdk-nag's AwsSolutions, NIST 800-53
    rev 5 and HIPAA Security packs, and the AWS Control Tower proactive controls (cfn-guard rules bundled by
    ``cdk-validator-cfnguard``, run by its bundled cfn-guard binary; no network) less
    :data:`GUARD_DISABLED_RULES`. Any unacknowledged finding fails ``app.synth()`` / ``cdk synth`` and is
    listed in ``cdk.out/validation-report.json``.

    The Control Tower plugin runs only the rule files that can report on the synthesized templates
    (:class:`SelectedControlTowerRules`); its findings, acknowledgment ids and report are those of the full set.
    """
    Validations.of(scope).add_plugins(
        AwsSolutionsChecks(scope), NIST80053R5Checks(scope), HIPAASecurityChecks(scope), SelectedControlTowerRules()
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

    @property
    def name(self) -> str:
        """The file name without ``.guard``: ``ct-s3-pr-9`` (what ``disabled_rules`` names)."""
        return self.path.stem


_LEXEME = re.compile(r"<<.*?>>|#[^\n]*|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|/(?:[^/\\\n]|\\.)*/", re.S)


def _code(text: str) -> str:
    """``text`` with comments and ``<< ... >>`` messages removed and every regex literal replaced by ``/re/``;
    strings are kept."""

    def keep(m: re.Match[str]) -> str:
        lexeme = m.group(0)
        if lexeme.startswith(("<<", "#")):
            return ""
        return "/re/" if lexeme.startswith("/") else lexeme

    return _LEXEME.sub(keep, text)


_STRUCTURE = re.compile(r"[{}\[\]()\n]")


def _statements(code: str) -> list[str] | None:
    """The top-level statements of a rule file's code (each ``let`` or ``rule`` with its block), or None when
    the file holds anything else at the top level (clauses outside a rule form a rule of their own)."""
    statements: list[str] = []
    depth = start = 0
    for m in _STRUCTURE.finditer(code):
        c, i = m.group(), m.start()
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and c == "}" and code[start:i].lstrip().startswith("rule "):
                statements.append(code[start : i + 1].strip())
                start = i + 1
        elif depth == 0:
            chunk = code[start:i].strip()
            if not chunk or chunk.startswith("let "):
                statements += [chunk] if chunk else []
                start = i + 1
    rest = code[start:].strip()
    if depth != 0:
        return None
    statements += [rest] if rest else []
    return statements if all(s.startswith(("let ", "rule ")) for s in statements) else None


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_LET = re.compile(rf"let\s+({_NAME})\s*=\s*(.*)", re.S)
_RULE = re.compile(rf"rule\s+({_NAME})\s*(?:\(([^)]*)\))?\s*(?:when\s+(.*?))?\s*\{{(.*)\}}", re.S)
_STRING = r"(?:\"[^\"\\]*\"|'[^'\\]*')"
_TYPE = rf"(?:%{_NAME}|{_STRING})"
#: ``Resources.*[ Type == X or Type == Y ]``, ``Resources[ Type == X ]``, ``Resources.*[ Type in X ]``
_SELECTION = re.compile(rf"Resources(?:\.\*)?\[\s*(Type\s*(?:==|in|IN)\s*{_TYPE}(?:\s+or\s+Type\s*==\s*{_TYPE})*)\s*\]")
_HOOK_BODY = re.compile(rf"\{{\s*%({_NAME})\.%({_NAME})\.resourceProperties\s+exists\s*\}}")


def guard_rule_triggers(text: str) -> tuple[frozenset[str] | None, tuple[str, ...]]:
    """(trigger types, evaluated rule names) of one cfn-guard rule file.

    The trigger types are shown only from a form whose meaning is plain; anything else gives None (the file
    always runs). Every rule without parameters (the rules cfn-guard evaluates; a rule with parameters only
    runs when one of those calls it) must have a ``when`` condition with, as a conjunct of its own (a line
    joined to no other by ``or``), either

    - ``%v not empty`` where ``v`` is a top-level ``let v = Resources.*[ Type == T ]`` (``Resources[...]``,
      ``Type in [...]`` and ``or`` of such comparisons too; ``T`` a string literal or a top-level string
      constant): false unless a template holds a resource of type ``T``; or
    - ``is_cfn_hook(%doc, %T)`` with ``let doc = this`` and ``is_cfn_hook`` the file's own rule testing
      ``%doc.%T.resourceProperties exists``: false unless a document has a top-level key ``T`` (a
      CloudFormation hook's input, never a template's section name).

    The file's triggers are the union of its rules' types. A variable set from another query, a wildcard, a
    regex or a type computed at run time matches none of these forms, so its file is always run.
    """
    code = _code(text)
    statements = _statements(code)
    rules: list[str] = []
    if statements is None:
        return None, ()
    constants: dict[str, list[str]] = {}
    selections: dict[str, frozenset[str]] = {}
    documents: set[str] = set()
    parsed_rules: list[tuple[str, str | None, str | None, str]] = []
    for statement in statements:
        if let := _LET.fullmatch(statement):
            _read_let(let.group(1), let.group(2).strip(), constants, selections, documents)
        elif rule := _RULE.fullmatch(statement):
            parsed_rules.append((rule.group(1), rule.group(2), rule.group(3), rule.group(4)))
        else:
            return None, ()
    hook_rules = {
        name
        for name, params, _, body in parsed_rules
        if params is not None
        and (m := _HOOK_BODY.fullmatch("{" + body + "}"))
        and [p.strip() for p in params.split(",")] == [m.group(1), m.group(2)]
    }
    triggers: set[str] = set()
    known = True
    for name, params, when, _ in parsed_rules:
        if params is not None and params.strip():
            continue
        rules.append(name)
        types = _gate_types(when or "", selections, constants, documents, hook_rules)
        if types is None:
            known = False
        else:
            triggers |= types
    return (frozenset(triggers) if known else None), tuple(dict.fromkeys(rules))


def _read_let(
    name: str,
    value: str,
    constants: dict[str, list[str]],
    selections: dict[str, frozenset[str]],
    documents: set[str],
) -> None:
    """Record a top-level ``let``: the document itself, a string constant (or list of them), or a selection of
    resources by type; any other value is ignored (it cannot serve as a gate)."""
    if value == "this":
        documents.add(name)
    elif re.fullmatch(_STRING, value):
        constants[name] = [value[1:-1]]
    elif re.fullmatch(rf"\[\s*{_STRING}(?:\s*,\s*{_STRING})*\s*,?\s*\]", value):
        constants[name] = [v[1:-1] for v in re.findall(_STRING, value)]
    elif (selection := _SELECTION.fullmatch(value)) and (types := _selection_types(selection.group(1), constants)):
        selections[name] = types


def _selection_types(filter_text: str, constants: Mapping[str, list[str]]) -> frozenset[str] | None:
    types: set[str] = set()
    for operand in re.findall(_TYPE, filter_text):
        if operand.startswith("%"):
            if operand[1:] not in constants:
                return None
            types |= set(constants[operand[1:]])
        else:
            types.add(operand[1:-1])
    return frozenset(types)


def _gate_types(
    when: str,
    selections: Mapping[str, frozenset[str]],
    constants: Mapping[str, list[str]],
    documents: set[str],
    hook_rules: set[str],
) -> frozenset[str] | None:
    """The types one of the conjuncts of a ``when`` condition needs (see :func:`guard_rule_triggers`)."""
    lines = [line.strip() for line in when.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        joined = (
            re.search(r"\b(or|OR)$", line)
            or (k + 1 < len(lines) and re.match(r"(or|OR)\b", lines[k + 1]))
            or (k > 0 and re.search(r"\b(or|OR)$", lines[k - 1]))
            or re.match(r"(or|OR)\b", line)
        )
        if joined:
            continue
        if (m := re.fullmatch(rf"%({_NAME})\s+not\s+empty", line)) and m.group(1) in selections:
            return selections[m.group(1)]
        hook = re.fullmatch(rf"({_NAME})\(\s*%({_NAME})\s*,\s*%({_NAME})\s*\)", line)
        if hook and hook.group(1) in hook_rules and hook.group(2) in documents and hook.group(3) in constants:
            return frozenset(constants[hook.group(3)])
    return None


def _plugin_tarball() -> Path:
    """The jsii tarball of the installed ``cdk-validator-cfnguard`` (what the plugin's Node code runs from)."""
    package = importlib.resources.files("cdklabs.cdk_validator_cfnguard._jsii")
    (tarball,) = (p for p in package.iterdir() if p.name.endswith(".jsii.tgz"))
    return Path(str(tarball))


def _extract_rules(tarball: Path, into: Path) -> None:
    """Write every ``.guard`` file under the plugin's Control Tower rules folder of ``tarball`` into ``into``
    (``<service>/<file>.guard``), byte for byte."""
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            name = member.name
            if member.isfile() and name.startswith(_GUARD_RULES_IN_PACKAGE) and name.endswith(".guard"):
                target = into / name.removeprefix(_GUARD_RULES_IN_PACKAGE)
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is None:
                    raise RuntimeError(f"cannot read {name} from {tarball}")
                target.write_bytes(source.read())


def _rules_directory(tarball: Path) -> Path:
    """A directory holding the bundled rule files of ``tarball``: extracted once per plugin build into the
    user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``, as jsii caches the plugin itself), keyed by the
    tarball's SHA-256; into a fresh temporary directory when the cache cannot be written."""
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "inference-constructs" / "guard-rules"
    root = cache / digest
    if root.is_dir():
        return root
    try:
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{digest}-", dir=cache))
    except OSError:
        staging = Path(tempfile.mkdtemp(prefix="inference-constructs-guard-rules-"))
        _extract_rules(tarball, staging)
        return staging
    _extract_rules(tarball, staging)
    try:
        staging.rename(root)
    except OSError:  # another process extracted the same files first
        shutil.rmtree(staging, ignore_errors=True)
    return root


@functools.cache
def guard_rule_files() -> tuple[GuardRuleFile, ...]:
    """Every Control Tower rule file the installed plugin bundles (read from the plugin's own package, never
    from a list kept here), with its triggers, sorted by path."""
    tarball = _plugin_tarball()
    files = tuple(
        GuardRuleFile(path, *guard_rule_triggers(path.read_text(encoding="utf-8")))
        for path in sorted(_rules_directory(tarball).rglob("*.guard"))
    )
    if not files:
        raise RuntimeError(f"no Control Tower rule file found in {tarball}")
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

    def validate(self, context: IPolicyValidationContext) -> PolicyValidationPluginReport:
        """Run the selected rule files on ``context``'s templates with the plugin's own validation."""
        paths: Sequence[str] = context.template_paths
        templates = [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]
        selected = select_guard_rule_files(templates)
        self.last_selection = [f.name for f in selected]
        if not selected:
            return PolicyValidationPluginReport(success=True, violations=[])
        guard = CfnGuardValidator(
            control_tower_rules_enabled=False,
            rules=[str(f.path) for f in selected],
            disabled_rules=sorted(GUARD_DISABLED_RULES),
            max_buffer=GUARD_MAX_OUTPUT_BYTES,
        )
        return _report(guard.validate(cast(IPolicyValidationContextBeta1, context)))


def _report(beta: PolicyValidationPluginReportBeta1) -> PolicyValidationPluginReport:
    """The plugin's report (the deprecated struct its interface returns) as the current struct, field for field,
    with each violation's unset severity set to ``error``.

    The plugin sets no severity, which the validation report prints as ``error``; but when an acknowledgment
    suppresses one of a plugin's violations, CDK recomputes the plugin's success as "no violation left has
    severity error or fatal", so without a severity the unacknowledged Control Tower findings left would no
    longer fail the synth."""
    return PolicyValidationPluginReport(
        success=beta.success,
        metadata=beta.metadata,
        plugin_version=beta.plugin_version,
        violations=[
            PolicyViolation(
                rule_name=v.rule_name,
                description=v.description,
                fix=v.fix,
                severity=v.severity or "error",
                rule_metadata=v.rule_metadata,
                violating_resources=[
                    PolicyViolatingResource(
                        resource_logical_id=r.resource_logical_id, template_path=r.template_path, locations=r.locations
                    )
                    for r in v.violating_resources
                ],
            )
            for v in beta.violations
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
