"""``IntelligentPromptRouter``: a Bedrock prompt router between two models of one family, per team.

Callers invoke it with ``modelId = router_arn``; cost attribution comes from the router's tags (an
application inference profile cannot copy from a router). Rules and sources: :mod:`.routing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Aws, Stack, Tags
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._grants import grant_managed
from inference_constructs.aws_limits import ARNS
from inference_constructs.bedrock.inference_profile import INVOKE_ACTIONS, OWN_TAG_PRIORITY, managed_invoke_policy
from inference_constructs.bedrock.model_source import raise_if_problems, source_region_requirement
from inference_constructs.bedrock.router_plan import RouterSpec, check_router
from inference_constructs.region_rules import RegionRules
from inference_constructs.regions import account_requirement


class IntelligentPromptRouter(Construct):
    """An ``AWS::Bedrock::IntelligentPromptRouter`` with invoke grants for the router and its models.

    Parameters
    ----------
    construct_id:
        Construct id; the L1 child is ``Resource``.
    name:
        Base of ``PromptRouterName`` (1-55 characters, ``^([0-9a-zA-Z][ _-]?)+$``). The physical name is
        ``<name>-<8 hex>``, a hash of the create-only models, fallback, routing criteria and description,
        so changing any of them creates a router under a new name (CloudFormation replaces the router;
        its ARN changes and callers must switch).
    models:
        The two models of one family (foundation model ids or geographic profile ids) the router chooses
        between, e.g. ``["amazon.nova-lite-v1:0", "amazon.nova-pro-v1:0"]``.
    fallback_model:
        One of ``models``: where requests go unless the other model is predicted to answer within
        ``response_quality_difference``.
    response_quality_difference:
        ``RoutingCriteria.ResponseQualityDifference``, 0-100 (percent): how much worse the cheaper model's
        predicted answer may be and still be chosen.
    description:
        ``Description``: 1-200 characters, ``^([0-9a-zA-Z:.][ _-]?)+$``. Default: the router has no description.
    tags:
        Tags on the router (team attribution, updatable); where ``Tags.of(scope)`` sets the same key, the
        router's value wins. Default: only tags applied by ``Tags.of`` aspects.
    invoke_role_arns:
        IAM roles (same account) given :meth:`invoke_policy_statements` through one customer-managed
        policy ``InvokePolicy``. Default: no role is granted; call :meth:`grant_invoke`.

    Raises
    ------
    InferenceConfigError
        Listing every problem with the name, the models, the fallback, the description and the tags.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        models: Sequence[str],
        fallback_model: str,
        response_quality_difference: float,
        description: str | None = None,
        tags: Mapping[str, str] | None = None,
        invoke_role_arns: Sequence[str] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        spec = RouterSpec(
            name=name,
            models=tuple(models),
            fallback_model=fallback_model,
            response_quality_difference=response_quality_difference,
            description=description,
            tags=dict(tags or {}),
            invoke_role_arns=tuple(invoke_role_arns),
        )
        raise_if_problems(check_router(spec))
        # an environment-agnostic stack asserts where copied system profiles exist and the roles' account
        rules = RegionRules.of(Stack.of(self))
        for i, source in enumerate(spec.sources):
            rules.require(source_region_requirement(source, [f"{self.node.path}.models[{i}]"]))
        for requirement in account_requirement(
            ARNS["invoke_role_arns"].why,
            [(f"{self.node.path}.invoke_role_arns[{i}]", arn) for i, arn in enumerate(invoke_role_arns)],
        ):
            rules.require_account(requirement)
        self.spec: RouterSpec = spec
        """The validated router settings."""
        self.router_name: str = spec.physical_name
        """``PromptRouterName``: ``<name>-<hash of the create-only properties>``."""

        def target(model: str) -> bedrock.CfnIntelligentPromptRouter.PromptRouterTargetModelProperty:
            source = next(s for m, s in zip(spec.models, spec.sources, strict=True) if m == model)
            arn = source.copy_from_arn(partition=Aws.PARTITION, region=Aws.REGION, account=Aws.ACCOUNT_ID)
            return bedrock.CfnIntelligentPromptRouter.PromptRouterTargetModelProperty(model_arn=arn)

        self.resource = bedrock.CfnIntelligentPromptRouter(
            self,
            "Resource",
            prompt_router_name=self.router_name,
            models=[target(m) for m in spec.models],
            fallback_model=target(fallback_model),
            routing_criteria=bedrock.CfnIntelligentPromptRouter.RoutingCriteriaProperty(
                response_quality_difference=response_quality_difference
            ),
            description=description,
        )
        # The router's own tags win over wider ones (``Tags.of(app)``), as a profile's do.
        own_tags = Tags.of(self.resource)
        for k, v in sorted((tags or {}).items()):
            own_tags.add(k, v, priority=OWN_TAG_PRIORITY)
        self.router_arn: str = self.resource.attr_prompt_router_arn
        """``arn:…:prompt-router/<id>``: pass it as ``modelId`` when invoking."""

        self.invoke_policy: iam.ManagedPolicy | None = None
        """Customer-managed policy granting invoke to ``invoke_role_arns``; None without roles."""
        if invoke_role_arns:
            self.invoke_policy = managed_invoke_policy(self, invoke_role_arns, self.invoke_policy_statements())

    def model_resource_arns(self) -> list[str]:
        """Every ARN Bedrock authorizes for the models: each foundation model in the deploy Region, or a
        geographic profile plus its foundation model in every destination Region."""
        arns: list[str] = []
        for source in self.spec.sources:
            for arn in source.invoke_resource_arns(partition=Aws.PARTITION, region=Aws.REGION, account=Aws.ACCOUNT_ID):
                if arn not in arns:
                    arns.append(arn)
        return arns

    def invoke_policy_statements(self) -> list[iam.PolicyStatement]:
        """The statements :meth:`grant_invoke` adds: the router ARN, then the models' ARNs, both with
        ``bedrock:InvokeModel`` + ``InvokeModelWithResponseStream``."""
        return [
            iam.PolicyStatement(actions=list(INVOKE_ACTIONS), resources=[self.router_arn]),
            iam.PolicyStatement(actions=list(INVOKE_ACTIONS), resources=self.model_resource_arns()),
        ]

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke through the router (incl. streaming and Converse): the router
        ARN plus both models, which Bedrock authorizes for the request the router forwards. A role, user or group
        this app creates gets the statements in one customer-managed policy for this router (the compliance packs
        refuse inline policies); any other grantee is granted the aws-cdk way."""
        router = grant_managed(self, grantee, actions=INVOKE_ACTIONS, resource_arns=[self.router_arn])
        models = grant_managed(self, grantee, actions=INVOKE_ACTIONS, resource_arns=self.model_resource_arns())
        return router.combine(models)


__all__ = ["IntelligentPromptRouter"]
