"""Bedrock guardrails: what a profile's guardrail filters, the rules for it, and the IAM that enforces it.

Pure Python (no ``aws_cdk`` import): the plan and the config layer call it; the construct
(:mod:`.guardrail`) translates a :class:`GuardrailSpec` into ``AWS::Bedrock::Guardrail`` plus
``AWS::Bedrock::GuardrailVersion``.

Limits are from the CloudFormation resource schemas bundled with cfn-lint 1.58 (schema date
2026-10-20) and botocore's ``bedrock`` model (boto3 1.44); where they differ the stricter one wins
and the table says so.

Enforcement follows the Bedrock user guide, "Enforce the use of specific guardrails in model
inference requests" (guardrails-permissions-id, Example 1): every Allow of ``bedrock:InvokeModel`` /
``InvokeModelWithResponseStream`` carries ``StringEquals bedrock:GuardrailIdentifier =
<guardrail ARN>:<version>``; an explicit Deny with ``StringNotEquals`` on the same key (a request
without a guardrail has no such key, and a negated operator is true for a missing key, so it is
denied too) covers **every** model ARN the role could reach, not only the granted ones: the guide's
example denies ``foundation-model/*``; the library denies it in every Region, the Region-less global
ARN included (``arn:<p>:bedrock:*::foundation-model/*``: IAM's ``*`` also matches an empty Region),
and every system and application inference profile of every Region and account
(``inference-profile/*``, ``application-inference-profile/*``), so a listed role with some other
Bedrock Allow cannot reach a model without the guardrail through a ``global.`` profile, another
geography or another Region. ``bedrock:ApplyGuardrail`` is allowed on the guardrail. Converse and
ConverseStream are authorized by the same two actions (Bedrock API reference, InvokeModel: denying
them "also denies access to the resource through the Converse API actions").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from inference_constructs._tokens import is_unresolved

#: ``(value, source)`` of every guardrail limit the library checks.
LIMITS: dict[str, tuple[Any, str]] = {
    "name_max_length": (50, "CFN AWS::Bedrock::Guardrail Name maxLength"),
    "name_pattern": (r"^[0-9a-zA-Z-_]+$", "CFN AWS::Bedrock::Guardrail Name pattern"),
    "description_max_length": (200, "CFN AWS::Bedrock::Guardrail Description maxLength"),
    "messaging_max_length": (500, "CFN BlockedInputMessaging / BlockedOutputsMessaging maxLength"),
    "content_filters_max": (6, "CFN ContentPolicyConfig.FiltersConfig maxItems (one per filter type)"),
    "topics_max": (30, "CFN TopicPolicyConfig.TopicsConfig maxItems"),
    "topic_name_max_length": (100, "CFN TopicConfig.Name maxLength; botocore GuardrailTopicName max"),
    "topic_name_pattern": (r"^[0-9a-zA-Z-_ !?.]+$", "CFN TopicConfig.Name pattern"),
    "topic_definition_max_length": (
        200,
        "botocore GuardrailTopicDefinition max 200 (the CFN schema allows 1000; the API it calls does not)",
    ),
    "topic_examples_max": (5, "CFN TopicConfig.Examples maxItems"),
    "topic_example_max_length": (100, "CFN TopicConfig.Examples items maxLength"),
    "grounding_threshold_min": (0.0, "CFN ContextualGroundingFilterConfig.Threshold minimum"),
    "grounding_threshold_max_exclusive": (
        1.0,
        "unconfirmed: the schemas give only a minimum of 0; the user guide describes thresholds from 0 to 0.99",
    ),
    "id_pattern": (r"^[a-z0-9]+$", "CFN GuardrailId pattern, maxLength 64"),
    "version_pattern": (r"^[1-9][0-9]{0,7}$", "CFN AWS::Bedrock::GuardrailVersion Version pattern"),
}

CONTENT_FILTER_TYPES = ("SEXUAL", "VIOLENCE", "HATE", "INSULTS", "MISCONDUCT", "PROMPT_ATTACK")
FILTER_STRENGTHS = ("NONE", "LOW", "MEDIUM", "HIGH")
PII_ACTIONS = ("BLOCK", "ANONYMIZE", "NONE")
#: CFN PiiEntityType enum (cfn-lint 1.58 schema).
PII_ENTITY_TYPES = (
    "ADDRESS",
    "AGE",
    "AWS_ACCESS_KEY",
    "AWS_SECRET_KEY",
    "CA_HEALTH_NUMBER",
    "CA_SOCIAL_INSURANCE_NUMBER",
    "CREDIT_DEBIT_CARD_CVV",
    "CREDIT_DEBIT_CARD_EXPIRY",
    "CREDIT_DEBIT_CARD_NUMBER",
    "DRIVER_ID",
    "EMAIL",
    "INTERNATIONAL_BANK_ACCOUNT_NUMBER",
    "IP_ADDRESS",
    "LICENSE_PLATE",
    "MAC_ADDRESS",
    "NAME",
    "PASSWORD",
    "PHONE",
    "PIN",
    "SWIFT_CODE",
    "UK_NATIONAL_HEALTH_SERVICE_NUMBER",
    "UK_NATIONAL_INSURANCE_NUMBER",
    "UK_UNIQUE_TAXPAYER_REFERENCE_NUMBER",
    "URL",
    "USERNAME",
    "US_BANK_ACCOUNT_NUMBER",
    "US_BANK_ROUTING_NUMBER",
    "US_INDIVIDUAL_TAX_IDENTIFICATION_NUMBER",
    "US_PASSPORT_NUMBER",
    "US_SOCIAL_SECURITY_NUMBER",
    "VEHICLE_IDENTIFICATION_NUMBER",
)

#: The inference actions the ``bedrock:GuardrailIdentifier`` key applies to (they also authorize Converse
#: and ConverseStream), and the action a caller needs on the guardrail itself.
GUARDED_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")
APPLY_GUARDRAIL_ACTION = "bedrock:ApplyGuardrail"
CONDITION_KEY = "bedrock:GuardrailIdentifier"

DEFAULT_BLOCKED_MESSAGE = "Sorry, this request was blocked by the platform's content policy."

_NAME_RE = re.compile(LIMITS["name_pattern"][0])
_TOPIC_NAME_RE = re.compile(LIMITS["topic_name_pattern"][0])
_ID_RE = re.compile(LIMITS["id_pattern"][0])
_VERSION_RE = re.compile(LIMITS["version_pattern"][0])


@dataclass(frozen=True)
class ContentFilter:
    """One content filter: harmful category and how strictly prompts and responses are filtered."""

    type: str
    input_strength: str = "HIGH"
    output_strength: str = "HIGH"


@dataclass(frozen=True)
class DeniedTopic:
    """A topic the guardrail refuses, described in natural language with up to 5 example prompts."""

    name: str
    definition: str
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class PiiEntity:
    """A PII entity type and what happens when it is found (BLOCK, ANONYMIZE or NONE = detect only)."""

    type: str
    action: str = "ANONYMIZE"


@dataclass(frozen=True)
class GuardrailSpec:
    """The guardrail one Bedrock profile enforces: a new one from the filters, or an existing id + version.

    ``name`` is the CloudFormation ``Name`` of a created guardrail (updated in place when it changes).
    ``intervention_alarm_percent``: alarm when more than this share of guarded requests is intervened.
    """

    name: str = ""
    description: str | None = None
    content_filters: tuple[ContentFilter, ...] = ()
    denied_topics: tuple[DeniedTopic, ...] = ()
    pii_entities: tuple[PiiEntity, ...] = ()
    grounding_threshold: float | None = None
    relevance_threshold: float | None = None
    blocked_input_messaging: str = DEFAULT_BLOCKED_MESSAGE
    blocked_outputs_messaging: str = DEFAULT_BLOCKED_MESSAGE
    existing_id: str | None = None
    existing_version: str | None = None
    intervention_alarm_percent: float = 25.0

    @property
    def is_existing(self) -> bool:
        """True when the profile enforces a guardrail created outside this stack."""
        return self.existing_id is not None

    @property
    def policy_fingerprint(self) -> str:
        """12 hex characters that change whenever a filter, topic, entity, threshold or message changes.

        ``GuardrailVersion.Description`` is create-only, so putting this in it makes CloudFormation cut a
        new numbered version (and move every grant to it) whenever the guardrail's policy changes;
        without it the version would stay a snapshot of the first deployment.
        """
        policy = {k: v for k, v in asdict(self).items() if k not in {"name", "intervention_alarm_percent"}}
        return hashlib.sha256(json.dumps(policy, sort_keys=True).encode()).hexdigest()[:12]


def default_guardrail_name(platform: str, profile: str) -> str:
    """``<platform>-<profile>`` with characters the Name pattern refuses turned into ``-``, cut to 50 with
    a hash suffix when longer (so two long profile names stay distinct)."""
    raw = re.sub(r"[^0-9a-zA-Z_-]", "-", f"{platform}-{profile}")
    limit = LIMITS["name_max_length"][0]
    if len(raw) <= limit:
        return raw
    digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
    return f"{raw[: limit - 9]}-{digest}"


def check_guardrail(spec: GuardrailSpec, *, path: str) -> list[str]:
    """Every problem in ``spec`` as ``<key path>: <what>; <fix>`` lines (empty when valid)."""
    problems: list[str] = []
    defines = bool(spec.content_filters or spec.denied_topics or spec.pii_entities) or (
        spec.grounding_threshold is not None or spec.relevance_threshold is not None
    )
    if spec.is_existing or spec.existing_version is not None:
        problems += _check_existing(spec, path, defines=defines)
        return problems
    if not defines:
        problems.append(
            f"{path}: a guardrail without content_filters, denied_topics, pii_entities or contextual_grounding "
            "filters nothing; configure at least one, or reference an existing guardrail with id and version"
        )
    name_ok = bool(_NAME_RE.match(spec.name)) and len(spec.name) <= LIMITS["name_max_length"][0]
    if not is_unresolved(spec.name) and not name_ok:
        problems.append(f"{path}.name: {spec.name!r} is not a guardrail name; use 1-50 letters, digits, '-' or '_'")
    if spec.description is not None and not 1 <= len(spec.description) <= LIMITS["description_max_length"][0]:
        problems.append(f"{path}.description: {len(spec.description)} characters; use 1-200")
    for key in ("blocked_input_messaging", "blocked_outputs_messaging"):
        text = getattr(spec, key)
        if not 1 <= len(text) <= LIMITS["messaging_max_length"][0]:
            problems.append(f"{path}.{key}: {len(text)} characters; use 1-500")
    problems += _check_filters(spec, path)
    problems += _check_topics(spec, path)
    problems += _check_pii(spec, path)
    problems += _check_grounding(spec, path)
    return problems


def _check_existing(spec: GuardrailSpec, path: str, *, defines: bool) -> list[str]:
    problems: list[str] = []
    if spec.existing_id is None or spec.existing_version is None:
        problems.append(
            f"{path}: an existing guardrail needs both id and version; set id (e.g. abc123xyz) and a numeric version"
        )
    if spec.existing_id is not None and not (_ID_RE.match(spec.existing_id) and len(spec.existing_id) <= 64):
        problems.append(f"{path}.id: {spec.existing_id!r} is not a guardrail id; use 1-64 lowercase letters or digits")
    if spec.existing_version is not None and not _VERSION_RE.match(spec.existing_version):
        problems.append(
            f"{path}.version: {spec.existing_version!r} is not a numbered version; use 1-99999999 (DRAFT can "
            "change under the policy's feet, so it cannot be enforced)"
        )
    if defines:
        problems.append(
            f"{path}: id references an existing guardrail, so content_filters, denied_topics, pii_entities and "
            "contextual_grounding cannot be set here; remove them or remove id and version"
        )
    return problems


def _check_types(types: Sequence[str], path: str, allowed: Sequence[str], what: str) -> list[str]:
    """Each of ``types`` (items of the list at ``path``) is one of ``allowed`` and listed once."""
    problems: list[str] = []
    seen: set[str] = set()
    for i, kind in enumerate(types):
        item = f"{path}[{i}].type"
        if kind not in allowed:
            problems.append(f"{item}: {kind!r} is not {what}; use one of " + ", ".join(allowed))
        elif kind in seen:
            problems.append(f"{item}: {kind} is listed twice; keep one entry per type")
        seen.add(kind)
    return problems


def _check_filters(spec: GuardrailSpec, path: str) -> list[str]:
    path = f"{path}.content_filters"
    problems = _check_types([f.type for f in spec.content_filters], path, CONTENT_FILTER_TYPES, "a content filter")
    for i, f in enumerate(spec.content_filters):
        for key in ("input_strength", "output_strength"):
            if getattr(f, key) not in FILTER_STRENGTHS:
                problems.append(f"{path}[{i}].{key}: {getattr(f, key)!r}; use one of {', '.join(FILTER_STRENGTHS)}")
    return problems


def _check_topics(spec: GuardrailSpec, path: str) -> list[str]:
    problems: list[str] = []
    if len(spec.denied_topics) > LIMITS["topics_max"][0]:
        problems.append(f"{path}.denied_topics: {len(spec.denied_topics)} topics; at most 30 are allowed")
    names: set[str] = set()
    for i, t in enumerate(spec.denied_topics):
        item = f"{path}.denied_topics[{i}]"
        if not (_TOPIC_NAME_RE.match(t.name) and len(t.name) <= LIMITS["topic_name_max_length"][0]):
            problems.append(
                f"{item}.name: {t.name!r} is not a topic name; use 1-100 letters, digits, spaces or - _ ! ? ."
            )
        elif t.name in names:
            problems.append(f"{item}.name: {t.name!r} is listed twice; topic names must be unique")
        names.add(t.name)
        if not 1 <= len(t.definition) <= LIMITS["topic_definition_max_length"][0]:
            problems.append(f"{item}.definition: {len(t.definition)} characters; use 1-200")
        if len(t.examples) > LIMITS["topic_examples_max"][0]:
            problems.append(f"{item}.examples: {len(t.examples)} examples; at most 5 are allowed")
        for j, example in enumerate(t.examples):
            if not 1 <= len(example) <= LIMITS["topic_example_max_length"][0]:
                problems.append(f"{item}.examples[{j}]: {len(example)} characters; use 1-100")
    return problems


def _check_pii(spec: GuardrailSpec, path: str) -> list[str]:
    path = f"{path}.pii_entities"
    problems = _check_types([e.type for e in spec.pii_entities], path, PII_ENTITY_TYPES, "a PII entity type")
    for i, e in enumerate(spec.pii_entities):
        if e.action not in PII_ACTIONS:
            problems.append(f"{path}[{i}].action: {e.action!r}; use one of {', '.join(PII_ACTIONS)}")
    return problems


def _check_grounding(spec: GuardrailSpec, path: str) -> list[str]:
    problems: list[str] = []
    low, high = LIMITS["grounding_threshold_min"][0], LIMITS["grounding_threshold_max_exclusive"][0]
    for key, value in (
        ("grounding_threshold", spec.grounding_threshold),
        ("relevance_threshold", spec.relevance_threshold),
    ):
        if value is not None and not low <= value < high:
            problems.append(f"{path}.contextual_grounding.{key}: {value}; use a number from 0 to 0.99")
    return problems


def plan_entry(spec: GuardrailSpec) -> dict[str, Any]:
    """The plan document's ``guardrail`` of one profile: which guardrail it enforces and what it filters."""
    if spec.is_existing:
        return {
            "source": "existing",
            "id": spec.existing_id,
            "version": spec.existing_version,
            "enforced_by": "iam",
            "intervention_alarm_percent": spec.intervention_alarm_percent,
        }
    return {
        "source": "created",
        "name": spec.name,
        "version": f"new numbered version per policy change (fingerprint {spec.policy_fingerprint})",
        "policy_fingerprint": spec.policy_fingerprint,
        "description": spec.description,
        "blocked_input_messaging": spec.blocked_input_messaging,
        "blocked_outputs_messaging": spec.blocked_outputs_messaging,
        "enforced_by": "iam",
        "content_filters": {
            f.type: {"input": f.input_strength, "output": f.output_strength} for f in spec.content_filters
        },
        "denied_topics": [
            {"name": t.name, "definition": t.definition, "examples": list(t.examples)} for t in spec.denied_topics
        ],
        "pii_entities": {e.type: e.action for e in spec.pii_entities},
        "contextual_grounding": {
            "grounding_threshold": spec.grounding_threshold,
            "relevance_threshold": spec.relevance_threshold,
        },
        "intervention_alarm_percent": spec.intervention_alarm_percent,
    }


#: Resource types of ``bedrock:InvokeModel`` the guardrail Deny covers in every Region and account (Service
#: Authorization Reference, Amazon Bedrock: resource types of InvokeModel / InvokeModelWithResponseStream).
DENIED_RESOURCE_PATTERNS = (
    "bedrock:*::foundation-model/*",
    "bedrock:*:*:inference-profile/*",
    "bedrock:*:*:application-inference-profile/*",
)


def guardrail_deny_resources(partition: str) -> list[str]:
    """The Deny's resources: every foundation model (any Region, Region-less too) and every system and
    application inference profile (any Region, any account) of ``partition``."""
    return [f"arn:{partition}:{pattern}" for pattern in DENIED_RESOURCE_PATTERNS]


def guarded_invoke_statements(
    invoke_resources: Sequence[Sequence[str]], *, guardrail_identifier: str, guardrail_arn: str, partition: str
) -> list[dict[str, Any]]:
    """IAM statements (policy-document JSON) that let a caller invoke only with the guardrail.

    Parameters
    ----------
    invoke_resources:
        Groups of resource ARNs the profile grants invoke on (the profile ARN; the source model's ARNs).
        Each group gets an Allow conditioned on the guardrail.
    guardrail_identifier:
        The value callers must send: ``<guardrail ARN>:<version number>``.
    guardrail_arn:
        The guardrail's ARN (without version), on which ``bedrock:ApplyGuardrail`` is allowed.
    partition:
        The partition of the Deny's wildcard ARNs (``Aws.PARTITION`` in a template): one Deny refuses any other
        guardrail, or none, on :func:`guardrail_deny_resources`, whatever else the role is allowed.
    """
    statements: list[dict[str, Any]] = []
    for resources in invoke_resources:
        statements.append(
            {
                "Effect": "Allow",
                "Action": list(GUARDED_ACTIONS),
                "Resource": list(resources),
                "Condition": {"StringEquals": {CONDITION_KEY: guardrail_identifier}},
            }
        )
    statements.append(
        {
            "Effect": "Deny",
            "Action": list(GUARDED_ACTIONS),
            "Resource": guardrail_deny_resources(partition),
            "Condition": {"StringNotEquals": {CONDITION_KEY: guardrail_identifier}},
        }
    )
    statements.append({"Effect": "Allow", "Action": [APPLY_GUARDRAIL_ACTION], "Resource": [guardrail_arn]})
    return statements


@dataclass(frozen=True)
class GuardedRole:
    """One role granted on a profile, for the cross-profile check of :func:`check_role_guardrails`."""

    role_arn: str
    model_id: str
    guardrail: str | None
    path: str


def check_role_guardrails(grants: Sequence[GuardedRole]) -> list[str]:
    """A role granted on two profiles (or a profile and a router) with different guardrails, or one without,
    could call neither as granted: a guarded profile's Deny refuses every guardrail but its own on every model
    and inference profile (:func:`guardrail_deny_resources`), whatever model the other grant is for."""
    problems: list[str] = []
    first: dict[str, GuardedRole] = {}
    for grant in grants:
        if is_unresolved(grant.role_arn):
            continue
        seen = first.setdefault(grant.role_arn, grant)
        if seen is not grant and seen.guardrail != grant.guardrail:
            problems.append(
                f"{grant.path}: role {grant.role_arn} is also granted on {seen.path} (model {seen.model_id}) with "
                f"{_describe(seen.guardrail)}, here (model {grant.model_id}) with {_describe(grant.guardrail)}; a "
                "guardrail's Deny covers every model and inference profile, so the role could not call the other "
                "as granted. Use the same guardrail on both, or separate roles"
            )
    return problems


def _describe(guardrail: str | None) -> str:
    return f"guardrail {guardrail}" if guardrail else "no guardrail"
