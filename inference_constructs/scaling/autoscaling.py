"""Instance-count auto scaling of a SageMaker endpoint variant, expressed as intent.

::

    scaling = EndpointScaling(self, "Scaling", endpoint_name=name, min_capacity=1, max_capacity=8, gpu_count=4)
    scaling.scale_on_concurrency(per_instance=8)
    scaling.scale_on_gpu_memory(percent_per_gpu=80)  # target 320 on a 4-GPU host
    scaling.scale_on_schedule(cron="cron(0 7 ? * MON-FRI *)", min_capacity=2)

Serverless provisioned concurrency is scaled by :class:`ServerlessScaling`;
real-time scale to zero by :mod:`inference_constructs.scaling.inference_component`.
"""

from __future__ import annotations

from typing import Unpack

from aws_cdk import aws_applicationautoscaling as appscaling
from constructs import Construct

from inference_constructs import _tokens
from inference_constructs._arns import keep_stack
from inference_constructs._coerce import enum_prop
from inference_constructs._lazy import renamed
from inference_constructs._synth_checks import add_synth_check
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.scaling import _render
from inference_constructs.scaling._base import CapacityScaling, Cooldowns, cooldown_seconds
from inference_constructs.scaling.decisions import (
    DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    async_wake_up_policy,
    check_capacity,
    check_provisioned_concurrency_bounds,
    provisioned_concurrency_policy,
)
from inference_constructs.spec import EndpointKind, Serving

DEFAULT_VARIANT_NAME = "AllTraffic"


def _variant(endpoint_name: str, variant_name: str) -> tuple[str, dict[Dimension, str]]:
    """An endpoint variant's Application Auto Scaling resource id, and the dimension values of its metrics."""
    return (
        f"endpoint/{endpoint_name}/variant/{variant_name}",
        {Dimension.ENDPOINT_NAME: endpoint_name, Dimension.VARIANT_NAME: variant_name},
    )


class EndpointScaling(CapacityScaling):
    """Application Auto Scaling of a SageMaker variant's instance count, with intent-level policies.

    Creates one ``AWS::ApplicationAutoScaling::ScalableTarget`` (id ``Target``) on
    ``sagemaker:variant:DesiredInstanceCount`` of ``endpoint/<endpoint_name>/variant/<variant_name>``,
    using Application Auto Scaling's service-linked role (no IAM role is created). Each
    ``scale_on_*`` call adds one policy; several may coexist, and Application Auto Scaling then
    takes the largest capacity any of them asks for.

    Parameters
    ----------
    endpoint_name:
        Name of the endpoint. Pass the endpoint resource's name attribute (a token) so the scalable
        target is created after the endpoint.
    variant_name:
        Production variant to scale. Default: ``AllTraffic``, the variant name the hosting constructs use.
    kind:
        Endpoint kind; decides which policies are allowed (backlog for async, concurrency and
        invocations for real-time and multi-model). Default: real-time.
    min_capacity:
        Fewest instances. 0 only for async endpoints (real-time scale to zero goes through an
        inference component). Default: 1 instance stays in service.
    max_capacity:
        Most instances, 1..1000.
    gpu_count:
        GPUs on the host; GPU-memory targets are multiplied by it. Default: 0, a host without
        GPUs, on which GPU-memory scaling is refused.
    burstable:
        True for a burstable (``ml.t*``) host, which cannot be scaled. Default: not burstable.
    instance_type:
        Host instance type, for error messages. Default: messages say "the host".
    serving:
        The serving stack on the host; GPU-memory scaling is refused for stacks whose GPU memory cannot fall
        with load (vLLM, LMI, TGI reserve it at start-up). Default: unknown, GPU-memory scaling is allowed.

    Raises
    ------
    InferenceConfigError
        min > max, min 0 on a kind that cannot scale to zero, max out of range, or a burstable host.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        max_capacity: int,
        variant_name: str = DEFAULT_VARIANT_NAME,
        kind: EndpointKind | str = EndpointKind.REALTIME,
        min_capacity: int = 1,
        gpu_count: int = 0,
        burstable: bool = False,
        instance_type: str | None = None,
        serving: Serving | str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self._path = self.node.path
        kind = enum_prop(f"{self._path}.kind", kind, EndpointKind)
        serving = None if serving is None else enum_prop(f"{self._path}.serving", serving, Serving)
        problems = ProblemCollector()
        if kind is EndpointKind.SERVERLESS:
            problems.add(
                f"{self._path}.kind",
                "a serverless endpoint has no instances to scale",
                "use ServerlessScaling",
            )
        if not (is_unresolved(min_capacity) or is_unresolved(max_capacity)):
            check_capacity(
                problems,
                self._path,
                kind=kind,
                min_capacity=min_capacity,
                max_capacity=max_capacity,
                burstable=burstable,
                instance_type=instance_type,
                inference_component_allowed=False,
            )
        problems.raise_if_any()
        self.kind = kind
        self.min_capacity = min_capacity
        self.max_capacity = max_capacity
        self.gpu_count = gpu_count
        self.instance_type = instance_type
        self.serving = serving
        resource_id, dimensions = _variant(endpoint_name, variant_name)
        self._create_target(
            resource_id=resource_id,
            dimension=ScalableDimension.VARIANT_INSTANCES,
            min_capacity=min_capacity,
            max_capacity=max_capacity,
            dimensions=dimensions,
            kind=kind,
            host=HostFacts(gpu_count=gpu_count, instance_type=instance_type),
            serving=serving,
        )
        if kind is EndpointKind.ASYNC and min_capacity == 0:
            add_synth_check(self, self._backlog_not_scaled)

    def _backlog_not_scaled(self) -> str | None:
        """An async endpoint with minimum 0 must call ``scale_on_backlog`` (its wake-up from zero)."""
        if self.wake_up_alarm is not None:
            return None
        return (
            "capacity.min: 0 on an async endpoint needs scale_on_backlog(per_instance=...) to leave and return to "
            "zero; call it, or use min_capacity 1"
        )

    @classmethod
    def from_plan(
        cls,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        plan: ScalingPlan,
        variant_name: str = DEFAULT_VARIANT_NAME,
    ) -> EndpointScaling:
        """Create the scaling a :class:`ScalingPlan` (from ``plan_scaling``) describes for instance scaling.

        Raises
        ------
        InferenceConfigError
            The plan scales something other than variant instances.
        """
        if plan.dimension is not ScalableDimension.VARIANT_INSTANCES:
            raise InferenceConfigError(
                f"{construct_id}: the plan scales {plan.dimension.value}, not variant instances; use "
                "ServerlessScaling or InferenceComponentScaling"
            )
        scaling = cls(
            scope,
            construct_id,
            endpoint_name=endpoint_name,
            variant_name=variant_name,
            kind=plan.kind,
            min_capacity=plan.min_capacity,
            max_capacity=plan.max_capacity,
        )
        scaling._apply_plan(plan, wake_up=async_wake_up_policy() if plan.wake_up is not None else None)
        return scaling

    # ---------------------------------------------------------------- policies (and scale_on_schedule, inherited)

    def scale_on_concurrency(
        self, *, per_instance: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Keep in-flight requests per instance near ``per_instance`` (> 0, e.g. 75% of the server's batch size).

        Tracks ``ConcurrentRequestsPerModel`` (high resolution): the bottleneck of a batching LLM server is how many
        sequences it has in flight, and the metric arrives every 10 s, so scale-out reacts within a minute.
        ``cooldowns``: 60 s after a scale-out, 600 s after a scale-in by default (a removed LLM instance takes
        5–10 minutes to come back).
        """
        return self._track(ScalingIntent(concurrency_per_instance=per_instance), cooldowns)

    def scale_on_invocations(
        self, *, per_instance_per_minute: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Keep ``InvocationsPerInstance`` near ``per_instance_per_minute`` (> 0).

        Uses the predefined metric ``SageMakerVariantInvocationsPerInstance``; suits short, uniform requests
        (classical models), for LLMs prefer concurrency. ``cooldowns``: 120 s after a scale-out (two one-minute data
        points), 600 s after a scale-in by default.
        """
        return self._track(ScalingIntent(invocations_per_instance_per_minute=per_instance_per_minute), cooldowns)

    def scale_on_gpu_memory(
        self, *, percent_per_gpu: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Keep GPU memory use near ``percent_per_gpu`` (0 < value <= 100) on every GPU.

        Tracks ``GPUMemoryUtilization`` (``/aws/sagemaker/Endpoints``, dimensions ``EndpointName``,
        ``VariantName``, Average), which runs 0–100 × the number of GPUs: the target is
        ``percent_per_gpu × gpu_count`` (80% on a 4-GPU host is 320). ``cooldowns``: 120 s after a scale-out,
        600 s after a scale-in by default.
        """
        return self._track(ScalingIntent(gpu_memory_percent=percent_per_gpu), cooldowns)

    def scale_on_backlog(
        self, *, per_instance: float, **cooldowns: Unpack[Cooldowns]
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Async only: keep ``ApproximateBacklogSizePerInstance`` near ``per_instance`` (> 0 queued requests).

        A customized metric (``AWS/SageMaker``, dimension ``EndpointName`` only, as async endpoints
        publish it, Average). With ``min_capacity`` 0 this also adds the scale-from-zero step policy
        (+1 instance) and its alarm on ``HasBacklogWithoutCapacity >= 1``. ``cooldowns``: 120 s after a
        scale-out, 600 s after a scale-in by default.
        """
        result = self._track(ScalingIntent(backlog_per_instance=per_instance), cooldowns)
        if self.min_capacity == 0:
            self._add_wake_up(async_wake_up_policy())
        return result


class ServerlessScaling(Construct):
    """Scale a serverless endpoint's provisioned concurrency on its utilization.

    Creates a scalable target (id ``Target``) on ``sagemaker:variant:DesiredProvisionedConcurrency``
    using the service-linked role, and a target-tracking policy (id
    ``ProvisionedConcurrencyUtilization``) on the predefined
    ``SageMakerVariantProvisionedConcurrencyUtilization`` (``ServerlessProvisionedConcurrencyUtilization``).
    Only useful when the endpoint config sets provisioned concurrency.

    Parameters
    ----------
    endpoint_name:
        Name of the serverless endpoint (pass the endpoint's name attribute).
    max_provisioned_concurrency:
        Most provisioned concurrency, 1..200 and no more than the variant's ``MaxConcurrency``.
    min_provisioned_concurrency:
        Least provisioned concurrency. Default: 1, one warm slot is always kept.
    variant_name:
        Variant to scale. Default: ``AllTraffic``.
    target_utilization:
        Target share of provisioned concurrency in use, 0 < value <= 1. Default: 0.7, so 30% warm headroom.
    **cooldowns:
        :class:`Cooldowns` of the policy. Default: 60 s after a scale-out, 300 s after a scale-in.

    Raises
    ------
    InferenceConfigError
        Bounds out of range or min > max, or a target outside (0, 1].
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        max_provisioned_concurrency: int,
        min_provisioned_concurrency: int = 1,
        variant_name: str = DEFAULT_VARIANT_NAME,
        target_utilization: float = DEFAULT_PROVISIONED_CONCURRENCY_UTILIZATION,
        **cooldowns: Unpack[Cooldowns],
    ) -> None:
        super().__init__(scope, construct_id)
        keep_stack(self, scope)  # the scalable target reads it: no round trip
        path = self.node.path
        problems = ProblemCollector()
        check_provisioned_concurrency_bounds(
            problems, path, min_capacity=min_provisioned_concurrency, max_capacity=max_provisioned_concurrency
        )
        policy = provisioned_concurrency_policy(
            problems,
            path,
            target_utilization=target_utilization,
            **cooldown_seconds(cooldowns),
        )
        problems.raise_if_any()
        assert policy is not None
        resource_id, dimensions = _variant(endpoint_name, variant_name)
        self.target = _render.scalable_target(
            self,
            resource_id=resource_id,
            dimension=ScalableDimension.PROVISIONED_CONCURRENCY,
            min_capacity=min_provisioned_concurrency,
            max_capacity=max_provisioned_concurrency,
        )
        """The ``ScalableTarget`` L2 (construct id ``Target``)."""
        self.policy = _render.add_target_tracking(self, self.target, policy, dimensions)
        """The utilization target-tracking policy."""

    @classmethod
    def from_plan(
        cls,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        plan: ScalingPlan,
        variant_name: str = DEFAULT_VARIANT_NAME,
    ) -> ServerlessScaling:
        """Create the provisioned-concurrency scaling a serverless :class:`ScalingPlan` describes."""
        if plan.dimension is not ScalableDimension.PROVISIONED_CONCURRENCY or not plan.target_tracking:
            raise InferenceConfigError(
                f"{construct_id}: the plan does not scale provisioned concurrency; set "
                "serverless.provisioned_concurrency above 0"
            )
        policy = plan.target_tracking[0]
        return cls(
            scope,
            construct_id,
            endpoint_name=endpoint_name,
            variant_name=variant_name,
            min_provisioned_concurrency=plan.min_capacity,
            max_provisioned_concurrency=plan.max_capacity,
            target_utilization=policy.target_value,
            scale_out_cooldown=_tokens.seconds(policy.scale_out_cooldown_seconds),
            scale_in_cooldown=_tokens.seconds(policy.scale_in_cooldown_seconds),
        )


#: The classes' old names, kept for one release: the scaling constructs are named ``<what is scaled>Scaling``.
__getattr__ = renamed(
    __name__,
    {"EndpointAutoScaling": "EndpointScaling", "ServerlessProvisionedConcurrencyScaling": "ServerlessScaling"},
)
