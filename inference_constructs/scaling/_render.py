"""Translate scaling decisions into aws-cdk-lib resources (private helpers shared by the scaling constructs)."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import ArnFormat
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs import _tokens
from inference_constructs._arns import format_arn, kept_on_stack, stack_of
from inference_constructs.observability.alarm_resources import (
    AlarmMetric,
    add_alarm,
    planned_options,
)
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.scaling.decisions import (
    MetricRef,
    ScalableDimension,
    ScheduledFloor,
    TargetTrackingPolicy,
    WakeUpPolicy,
)

SERVICE_LINKED_ROLE_NAME = (
    "aws-service-role/sagemaker.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint"
)
"""Path and name of Application Auto Scaling's service-linked role for SageMaker."""
SERVICE_LINKED_ROLE_ID = "InferenceScalingServiceLinkedRole"
"""Construct id of the role's import, one per stack (a reference: nothing in the template)."""
_SERVICE_LINKED_ROLE = "_inference_scaling_service_linked_role"

_AGGREGATION = {
    "Average": appscaling.MetricAggregationType.AVERAGE,
    "Maximum": appscaling.MetricAggregationType.MAXIMUM,
    "Minimum": appscaling.MetricAggregationType.MINIMUM,
}
_PREDEFINED = {
    "SageMakerVariantConcurrentRequestsPerModelHighResolution": (
        appscaling.PredefinedMetric.SAGEMAKER_VARIANT_CONCURRENT_REQUESTS_PER_MODEL_HIGH_RESOLUTION
    ),
    "SageMakerVariantInvocationsPerInstance": appscaling.PredefinedMetric.SAGEMAKER_VARIANT_INVOCATIONS_PER_INSTANCE,
    "SageMakerVariantProvisionedConcurrencyUtilization": (
        appscaling.PredefinedMetric.SAGEMAKER_VARIANT_PROVISIONED_CONCURRENCY_UTILIZATION
    ),
    "SageMakerInferenceComponentInvocationsPerCopy": (
        appscaling.PredefinedMetric.SAGEMAKER_INFERENCE_COMPONENT_INVOCATIONS_PER_COPY
    ),
    "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution": (
        appscaling.PredefinedMetric.SAGEMAKER_INFERENCE_COMPONENT_CONCURRENT_REQUESTS_PER_COPY_HIGH_RESOLUTION
    ),
}
"""PredefinedMetricType (CloudFormation value) -> aws-cdk-lib enum member (jsii enum values are member names)."""


def service_linked_role(scope: Construct) -> iam.IRole:
    """Reference (never create) ``AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint``.

    Giving its ARN to the scalable target stops the L2 from creating an IAM role per endpoint;
    Application Auto Scaling creates the service-linked role on first use if the account lacks it
    (``AWS::ApplicationAutoScaling::ScalableTarget`` ``RoleARN`` documentation).
    """
    stack = stack_of(scope)

    def imported() -> iam.IRole:
        arn = format_arn(
            stack,
            service="iam",
            region="",
            resource="role",
            resource_name=SERVICE_LINKED_ROLE_NAME,
            arn_format=ArnFormat.SLASH_RESOURCE_NAME,
        )
        return iam.Role.from_role_arn(stack, SERVICE_LINKED_ROLE_ID, arn, mutable=False)

    return kept_on_stack(stack, _SERVICE_LINKED_ROLE, imported)  # one import per stack, not one per target


def scalable_target(
    scope: Construct,
    *,
    resource_id: str,
    dimension: ScalableDimension,
    min_capacity: int,
    max_capacity: int,
) -> appscaling.ScalableTarget:
    """A SageMaker scalable target (id ``Target``) using the service-linked role."""
    return appscaling.ScalableTarget(
        scope,
        "Target",
        service_namespace=appscaling.ServiceNamespace.SAGEMAKER,
        resource_id=resource_id,
        scalable_dimension=dimension.value,
        min_capacity=min_capacity,
        max_capacity=max_capacity,
        role=service_linked_role(scope),
    )


def cloudwatch_metric(
    ref: MetricRef, dimensions: Mapping[Dimension, str], period_seconds: int = 60
) -> cloudwatch.Metric:
    """The CloudWatch metric ``ref`` with its dimension values bound."""
    return cloudwatch.Metric(
        namespace=ref.namespace,
        metric_name=ref.metric_name,
        dimensions_map={d.value: dimensions[d] for d in ref.dimensions},
        statistic=ref.statistic,
        period=_tokens.seconds(period_seconds),
    )


def add_target_tracking(
    scope: Construct,
    target: appscaling.ScalableTarget,
    policy: TargetTrackingPolicy,
    dimensions: Mapping[Dimension, str],
) -> appscaling.TargetTrackingScalingPolicy:
    """Create the target-tracking policy ``policy`` (construct id ``policy.construct_id``) on ``target``."""
    predefined = _PREDEFINED[policy.predefined_metric] if policy.predefined_metric is not None else None
    custom = cloudwatch_metric(policy.custom_metric, dimensions) if policy.custom_metric is not None else None
    return appscaling.TargetTrackingScalingPolicy(
        scope,
        policy.construct_id,
        scaling_target=target,
        target_value=policy.target_value,
        predefined_metric=predefined,
        custom_metric=custom,
        scale_out_cooldown=_tokens.seconds(policy.scale_out_cooldown_seconds),
        scale_in_cooldown=_tokens.seconds(policy.scale_in_cooldown_seconds),
    )


def add_wake_up(
    scope: Construct,
    target: appscaling.ScalableTarget,
    policy: WakeUpPolicy,
    dimensions: Mapping[Dimension, str],
) -> tuple[appscaling.StepScalingAction, cloudwatch.CfnAlarm]:
    """Create the step policy (``<id>Policy``) and the alarm (``<id>Alarm``) that triggers it."""
    action = appscaling.StepScalingAction(
        scope,
        f"{policy.construct_id}Policy",
        scaling_target=target,
        adjustment_type=appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
        cooldown=_tokens.seconds(policy.cooldown_seconds),
        metric_aggregation_type=_AGGREGATION[policy.metric_aggregation],
    )
    action.add_adjustment(adjustment=policy.adjustment, lower_bound=0)
    ref = policy.alarm_metric
    alarm = add_alarm(
        scope,
        f"{policy.construct_id}Alarm",
        AlarmMetric(
            ref.namespace,
            ref.metric_name,
            tuple((d.value, dimensions[d]) for d in ref.dimensions),
            ref.statistic,
            policy.period_seconds,
        ),
        threshold=policy.threshold,
        **planned_options(policy, description=policy.reason, actions=[action.scaling_policy_arn]),
    )
    return action, alarm


def add_schedule(target: appscaling.ScalableTarget, floor: ScheduledFloor, name: str) -> None:
    """Add a scheduled action ``name`` that sets the minimum (and optionally maximum) capacity."""
    target.scale_on_schedule(
        name,
        schedule=appscaling.Schedule.expression(floor.cron),
        min_capacity=floor.min_capacity,
        max_capacity=floor.max_capacity,
    )
