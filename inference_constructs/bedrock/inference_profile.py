"""``ApplicationInferenceProfile``: one tagged Bedrock application inference profile per team.

Cost and usage of a shared Bedrock model split per team: each team invokes the model through its
own application inference profile (tagged ``team: …``), so Cost Explorer and CloudWatch show every
dollar and token per profile.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from aws_cdk import Acknowledgment as _Acknowledgment
from aws_cdk import Aws, Duration, Resource, Stack, Tags, Validations
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._coerce import enum_prop
from inference_constructs._grants import add_statement_managed, grant_managed
from inference_constructs._tokens import is_unresolved
from inference_constructs.aws_limits import ARNS
from inference_constructs.bedrock.guardrail import GuardrailReference
from inference_constructs.bedrock.guardrail_plan import guarded_invoke_statements
from inference_constructs.bedrock.metrics import DEFAULT_PERIOD, DIMENSION, NAMESPACE, cache_tokens_total
from inference_constructs.bedrock.model_source import (
    ModelSource,
    Residency,
    check_description,
    check_model,
    check_name,
    check_residency,
    check_tags,
    raise_if_problems,
    source_region_requirement,
)
from inference_constructs.interfaces import MetricOptions
from inference_constructs.observability import metric_table
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import account_requirement

INVOKE_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")
"""What InvokeModel, InvokeModelWithResponseStream, Converse and ConverseStream are authorized by."""


#: Priority of a profile's own tags: above ``Tags.of(scope).add``'s default 100, so they win over wider tags.
OWN_TAG_PRIORITY = 200


class ApplicationInferenceProfile(Resource):
    """A Bedrock application inference profile copying a foundation model or a system profile.

    A CDK ``Resource`` whose default child is the ``AWS::Bedrock::ApplicationInferenceProfile`` (id ``Resource``),
    so ``apply_removal_policy`` and ``node.default_child`` act on the profile.

    The template is region-agnostic: a model *id* becomes a ``CopyFrom`` ARN in the deploy Region
    (``Aws.PARTITION`` / ``Aws.REGION`` / ``Aws.ACCOUNT_ID``); a model *ARN* is used as given.

    Parameters
    ----------
    construct_id:
        Construct id; the L1 child is ``Resource``.
    name:
        ``InferenceProfileName``: 1-64 characters, ``^([0-9a-zA-Z][ _-]?)+$``, unique per account
        and Region. CloudFormation REPLACES the profile when it changes (new profile id and ARN,
        callers must switch). A ``CfnParameter`` token is accepted unchecked.
        https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-bedrock-applicationinferenceprofile.html
    model:
        Foundation model id or ARN, or system-defined cross-Region profile id or ARN
        (``us.``, ``eu.``, ``apac.``, ``jp.``, ``au.``, ``ca.``, ``us-gov.``, ``global.``), or a
        parsed :class:`ModelSource`. Changing it replaces the profile (``ModelSource`` is create-only).
    tags:
        Tags on the profile (team attribution: ``{"team": "team-a"}``); at most 200, key 1-128 and
        value 0-256 characters of ``[a-zA-Z0-9 ._:/=+@-]``. Tags from ``Tags.of(scope)`` are added too,
        and where both set a key the profile's own value wins (priority :data:`OWN_TAG_PRIORITY`).
        Default: only tags applied by ``Tags.of`` aspects.
    description:
        ``Description``: 1-200 characters, ``^([0-9a-zA-Z:.][ _-]?)+$``; changing it replaces the
        profile. Default: the profile has no description.
    residency:
        ``Residency.SINGLE_REGION`` (or ``"single-region"``) rejects sources whose requests may leave the deploy Region
        (cross-Region and global profiles). Default: ``Residency.ANY``, cross-Region allowed.
    invoke_role_arns:
        IAM roles (same account as the stack) given the :meth:`invoke_policy_statements` through one
        customer-managed policy ``InvokePolicy`` attached to them (not an inline policy, which
        NIST 800-53 and HIPAA packs reject). Default: no role is granted; call :meth:`grant_invoke`.
    guardrail:
        Guardrail version every grant of this profile enforces: each invoke Allow requires
        ``bedrock:GuardrailIdentifier = <guardrail ARN>:<version>``, an explicit Deny refuses any other
        guardrail or none on the same ARNs (profile, system profile, foundation models), and
        ``bedrock:ApplyGuardrail`` is allowed on the guardrail (Bedrock user guide, "Enforce the use of
        specific guardrails in model inference requests"). Default: grants carry no guardrail condition.

    Raises
    ------
    InferenceConfigError
        Listing every problem with ``name``, ``model``, ``tags``, ``description`` and ``residency``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        model: str | ModelSource,
        tags: Mapping[str, str] | None = None,
        description: str | None = None,
        residency: Residency | str = Residency.ANY,
        invoke_role_arns: Sequence[str] = (),
        guardrail: GuardrailReference | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        residency = enum_prop("residency", residency, Residency)
        problems = check_name(name) + check_tags(tags) + check_description(description)
        model_problems = [] if isinstance(model, ModelSource) else check_model(model)
        problems += model_problems
        source = model if isinstance(model, ModelSource) else None
        if source is None and not model_problems:
            source = ModelSource.parse(model)  # type: ignore[arg-type]
        problems += check_residency(source, residency)
        raise_if_problems(problems)
        assert source is not None

        # an environment-agnostic stack asserts where the copied system profile exists and the roles' account
        rules = RegionRules.of(Stack.of(self))
        rules.require(source_region_requirement(source, [self.node.path]))
        for requirement in account_requirement(
            ARNS["invoke_role_arns"].why,
            [(f"{self.node.path}.invoke_role_arns[{i}]", arn) for i, arn in enumerate(invoke_role_arns)],
        ):
            rules.require_account(requirement)

        self.guardrail: GuardrailReference | None = guardrail
        """The guardrail version the grants enforce, or None."""
        self.model_source: ModelSource = source
        """What the profile copies (kind, geography, destination Regions)."""
        self.profile_name: str = name
        self.resource = bedrock.CfnApplicationInferenceProfile(
            self,
            "Resource",
            inference_profile_name=name,
            description=description,
            model_source=bedrock.CfnApplicationInferenceProfile.InferenceProfileModelSourceProperty(
                copy_from=source.copy_from_arn(partition=Aws.PARTITION, region=Aws.REGION, account=Aws.ACCOUNT_ID)
            ),
        )
        # The profile's own tags win over tags applied to a wider scope (``Tags.of(app)``, default priority
        # 100): a team's profile keeps its team tag, so Cost Explorer gives its spend to that team.
        own_tags = Tags.of(self.resource)
        for k, v in sorted((tags or {}).items()):
            own_tags.add(k, v, priority=OWN_TAG_PRIORITY)
        self.profile_arn: str = self.resource.attr_inference_profile_arn
        """``arn:…:application-inference-profile/<id>``: pass it as ``modelId`` when invoking."""
        self.profile_id: str = self.resource.attr_inference_profile_id
        """The profile id (last ARN segment); the ``ModelId`` dimension of its metrics."""

        self.invoke_policy: iam.ManagedPolicy | None = None
        """Customer-managed policy granting invoke to ``invoke_role_arns``; None without roles."""
        if invoke_role_arns:
            self.invoke_policy = managed_invoke_policy(self, invoke_role_arns, self.invoke_policy_statements())
            self._acknowledge_region_wildcard(self.invoke_policy)

    # ------------------------------------------------------------------ grants
    def grant_profile_usage(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke (incl. streaming and Converse) through this profile's ARN only.

        Not enough on its own: Bedrock also authorizes the source model, see :meth:`grant_invoke`.
        With a guardrail the Allow requires it, and a Deny refuses any other guardrail or none.
        """
        return self._grant(grantee, [[self.profile_arn]])

    def grant_source_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke the source this profile copies.

        Foundation model: its ARN in the deploy Region. Geographic profile: the system profile in the
        deploy Region plus ``foundation-model/<id>`` in every destination Region of the geography
        (library table ``regions.GEOGRAPHIES``). ``global.``: the system profile, the Region-less
        global model ARN and ``foundation-model/<id>`` in Region ``*`` (all commercial Regions).
        """
        return self._grant_with_source(grantee, [self._source_arns()])

    def invoke_policy_statements(self) -> list[iam.PolicyStatement]:
        """The statements :meth:`grant_invoke` adds, for a policy you manage yourself.

        One statement on the application profile ARN, one on the source ARNs
        (:meth:`grant_source_invoke`), both ``bedrock:InvokeModel`` + ``InvokeModelWithResponseStream``.
        With a guardrail: both require it, one Deny refuses any other guardrail or none on all of those
        ARNs, and one statement allows ``bedrock:ApplyGuardrail`` on the guardrail.
        """
        groups = [[self.profile_arn], self._source_arns()]
        if self.guardrail is None:
            return [iam.PolicyStatement(actions=list(INVOKE_ACTIONS), resources=group) for group in groups]
        return [iam.PolicyStatement.from_json(d) for d in self._guarded_statements(groups)]

    def _source_arns(self) -> list[str]:
        """The ARNs besides the profile's that invoking the source needs, in the stack's partition, Region and
        account (``ModelSource.invoke_resource_arns``)."""
        return list(
            self.model_source.invoke_resource_arns(partition=Aws.PARTITION, region=Aws.REGION, account=Aws.ACCOUNT_ID)
        )

    def _guarded_statements(self, groups: list[list[str]]) -> list[dict[str, Any]]:
        """The guardrail's statements over ``groups`` (``guarded_invoke_statements``): an Allow per group conditioned
        on the guardrail, then the Deny of any other guardrail or none, then ApplyGuardrail."""
        assert self.guardrail is not None
        return guarded_invoke_statements(
            groups,
            guardrail_identifier=self.guardrail.identifier,
            guardrail_arn=self.guardrail.arn,
            partition=Aws.PARTITION,
        )

    def _grant(self, grantee: iam.IGrantable, groups: list[list[str]]) -> iam.Grant:
        """Invoke on each group of ARNs; with a guardrail, conditioned on it, plus one Deny and ApplyGuardrail.

        On a role, user or group this app creates the statements go into one customer-managed policy per profile
        (id ``Grants<profile id>`` under the identity), not its inline default policy (NIST 800-53 and HIPAA
        ``IAMNoInlinePolicy``); other principals get ``iam.Grant.add_to_principal``'s behaviour."""
        if self.guardrail is None:
            grants = [grant_managed(self, grantee, actions=INVOKE_ACTIONS, resource_arns=group) for group in groups]
        else:
            *allows, deny, apply = self._guarded_statements(groups)
            grants = [
                grant_managed(
                    self, grantee, actions=a["Action"], resource_arns=a["Resource"], conditions=a["Condition"]
                )
                for a in allows
            ]
            add_statement_managed(self, grantee, iam.PolicyStatement.from_json(deny))
            grants.append(grant_managed(self, grantee, actions=apply["Action"], resource_arns=apply["Resource"]))
        grant = grants[0]
        for other in grants[1:]:
            grant = grant.combine(other)
        return grant

    def _grant_with_source(self, grantee: iam.IGrantable, groups: list[list[str]]) -> iam.Grant:
        """:meth:`_grant` on ``groups``, which hold the source's ARNs, and the acknowledgment of their Region wildcard
        (if any) on a principal this app creates."""
        grant = self._grant(grantee, groups)
        if isinstance(grantee.grant_principal, Construct):
            self._acknowledge_region_wildcard(grantee.grant_principal)
        return grant

    def _acknowledge_region_wildcard(self, scope: Construct) -> None:
        """Acknowledge AwsSolutions-IAM5 for ``foundation-model/<id>`` in Region ``*`` on ``scope``.

        Only global (or unknown-geography) sources grant it; the model id stays fixed.
        """
        if not self.model_source.grants_any_region:
            return
        arns = self._source_arns()
        wildcard = next(a for a in arns if ":bedrock:*::" in a).replace(Aws.PARTITION, "<AWS::Partition>")
        Validations.of(scope).acknowledge(
            _Acknowledgment(
                id=f"AwsSolutions::AwsSolutions-IAM5[Resource::{wildcard}]",
                reason=(
                    "a global (or unknown-geography) cross-Region profile may serve the request in any commercial "
                    "Region, so foundation-model/<id> must be allowed in every Region; the model id is fixed, only "
                    "the Region is a wildcard"
                ),
            )
        )

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` InvokeModel and InvokeModelWithResponseStream through this profile
        (what Converse and ConverseStream need): :meth:`grant_profile_usage` + :meth:`grant_source_invoke`."""
        if self.guardrail is None:
            return self.grant_profile_usage(grantee).combine(self.grant_source_invoke(grantee))
        return self._grant_with_source(grantee, [[self.profile_arn], self._source_arns()])

    # ------------------------------------------------------------------ metrics
    def metric(self, metric_name: str, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """``AWS/Bedrock`` ``metric_name`` for ``ModelId=<profile id>``; sum over 5 minutes by default.

        ``options`` are the aws-cdk ``MetricOptions`` (``period``, ``statistic``, ``label``, ``unit``, ``color``,
        ``account``, ``region``, ``dimensions_map``, ...) over those defaults; a ``dimensions_map`` replaces the
        ``ModelId`` dimension, as in aws-cdk.
        """
        return self._metric(metric_name, "Sum", options)

    def _metric(self, metric_name: str, statistic: str, options: MetricOptions) -> cloudwatch.Metric:
        """``metric_name`` with ``statistic``, 5 minutes and the ``ModelId`` dimension, under ``options``."""
        chosen: dict[str, Any] = {
            "statistic": statistic,
            "period": DEFAULT_PERIOD,
            "dimensions_map": {DIMENSION: self.profile_id},
        }
        chosen.update((k, v) for k, v in options.items() if v is not None)
        return cloudwatch.Metric(namespace=NAMESPACE, metric_name=metric_name, **chosen)

    def _table_metric(self, definition: MetricDefinition, options: MetricOptions) -> cloudwatch.Metric:
        """``definition``'s metric through this profile, at its default statistic unless ``options`` say otherwise."""
        return self._metric(definition.name, definition.statistic, options)

    def metric_invocations(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Successful requests (``Invocations``); sum over 5 minutes."""
        return self._table_metric(metric_table.BEDROCK_INVOCATIONS, options)

    def metric_invocation_latency(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Time to the last token in ms (``InvocationLatency``); average over 5 minutes (use ``p99`` for tails)."""
        return self._table_metric(metric_table.INVOCATION_LATENCY, options)

    def metric_invocation_throttles(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Throttled requests (``InvocationThrottles``, not counted as Invocations or errors); sum over 5 minutes."""
        return self._table_metric(metric_table.INVOCATION_THROTTLES, options)

    def metric_invocation_client_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Requests that failed with a client error (``InvocationClientErrors``); sum over 5 minutes."""
        return self._table_metric(metric_table.INVOCATION_CLIENT_ERRORS, options)

    def metric_invocation_server_errors(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Requests that failed with a server error (``InvocationServerErrors``); sum over 5 minutes."""
        return self._table_metric(metric_table.INVOCATION_SERVER_ERRORS, options)

    def metric_input_token_count(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Input tokens (``InputTokenCount``); sum over 5 minutes."""
        return self._table_metric(metric_table.INPUT_TOKEN_COUNT, options)

    def metric_output_token_count(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Output tokens (``OutputTokenCount``); sum over 5 minutes."""
        return self._table_metric(metric_table.OUTPUT_TOKEN_COUNT, options)

    def metric_time_to_first_token(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Time to first token in ms, streaming APIs only (``TimeToFirstToken``); average over 5 minutes."""
        return self._table_metric(metric_table.TIME_TO_FIRST_TOKEN, options)

    def metric_cache_read_input_tokens(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Prompt-cache read tokens under the runtime-metrics page name (``CacheReadInputTokens``); sum, 5 min."""
        return self._table_metric(metric_table.CACHE_READ_INPUT_TOKENS, options)

    def metric_cache_write_input_tokens(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Prompt-cache write tokens, runtime-metrics page name (``CacheWriteInputTokens``); sum, 5 min."""
        return self._table_metric(metric_table.CACHE_WRITE_INPUT_TOKENS, options)

    def metric_cache_read_input_token_count(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Prompt-cache read tokens under the burndown-page name (``CacheReadInputTokenCount``); sum, 5 min."""
        return self._table_metric(metric_table.CACHE_READ_INPUT_TOKEN_COUNT, options)

    def metric_cache_write_input_token_count(self, **options: Unpack[MetricOptions]) -> cloudwatch.Metric:
        """Prompt-cache write tokens, burndown-page name (``CacheWriteInputTokenCount``); sum, 5 min."""
        return self._table_metric(metric_table.CACHE_WRITE_INPUT_TOKEN_COUNT, options)

    def metric_cache_read_input_tokens_total(self, *, period: Duration | None = None) -> cloudwatch.MathExpression:
        """Cache read tokens under either name: ``FILL(a, 0) + FILL(b, 0)``; sum over 5 minutes."""
        return cache_tokens_total("read", self.profile_id, period=period)

    def metric_cache_write_input_tokens_total(self, *, period: Duration | None = None) -> cloudwatch.MathExpression:
        """Cache write tokens under either name: ``FILL(a, 0) + FILL(b, 0)``; sum over 5 minutes."""
        return cache_tokens_total("write", self.profile_id, period=period)


def managed_invoke_policy(
    scope: Construct, role_arns: Sequence[str], statements: Sequence[iam.PolicyStatement]
) -> iam.ManagedPolicy:
    """One customer-managed policy ``InvokePolicy`` with ``statements``, attached to the roles in
    ``role_arns`` (imported immutably). Managed, not inline: NIST.800.53.R5 / HIPAA IAMNoInlinePolicy."""
    roles = [
        iam.Role.from_role_arn(scope, f"InvokeRole{_stable_suffix(arn, i)}", arn, mutable=False)
        for i, arn in enumerate(role_arns)
    ]
    return iam.ManagedPolicy(scope, "InvokePolicy", statements=list(statements), roles=roles)


def _stable_suffix(arn: str, index: int) -> str:
    """Construct-id suffix for an imported role: a hash of a literal ARN (stable when the list is
    reordered), the position for a token."""
    return f"T{index}" if is_unresolved(arn) else hashlib.sha256(arn.encode()).hexdigest()[:8]


__all__ = ["INVOKE_ACTIONS", "ApplicationInferenceProfile"]
