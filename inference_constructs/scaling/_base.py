"""Machinery shared by the capacity-scaling constructs (private).

:class:`~inference_constructs.scaling.EndpointScaling` (variant instances) and
:class:`~inference_constructs.scaling.InferenceComponentScaling` (component copies) are both one
scalable target with target-tracking policies, an optional wake-up step policy and scheduled
floors; this base holds what they do the same way, so each keeps only its own rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from aws_cdk import Duration
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs._arns import keep_stack
from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.scaling import _render
from inference_constructs.scaling.decisions import (
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScalingPlan,
    ScheduledFloor,
    TargetTrackingPolicy,
    WakeUpPolicy,
    schedule_floors,
)
from inference_constructs.scaling.plan import CooldownSeconds, target_tracking_policies
from inference_constructs.spec import EndpointKind, Serving


def seconds(duration: Duration | None) -> int | None:
    """``duration`` in whole seconds, or None when it is not given (the policy's default applies)."""
    return None if duration is None else int(duration.to_seconds())


class Cooldowns(TypedDict, total=False):
    """The waits of a target-tracking policy (``scale_on_*(..., scale_out_cooldown=Duration.seconds(60))``).

    Attributes
    ----------
    scale_out_cooldown:
        Wait after a scale-out. Default: the policy's own (its ``scale_on_*`` method says which).
    scale_in_cooldown:
        Wait after a scale-in. Default: the policy's own.
    """

    scale_out_cooldown: Duration | None
    scale_in_cooldown: Duration | None


def cooldown_seconds(cooldowns: Cooldowns) -> CooldownSeconds:
    """``cooldowns`` as the decisions' ``scale_out_cooldown_seconds`` / ``scale_in_cooldown_seconds`` arguments.

    Raises
    ------
    TypeError
        A key that is not a cooldown (a misspelt keyword argument).
    """
    unknown = sorted(set(cooldowns) - set(Cooldowns.__annotations__))
    if unknown:
        raise TypeError(
            f"unexpected keyword arguments {unknown}; the cooldowns are {sorted(Cooldowns.__annotations__)}"
        )
    return {
        "scale_out_cooldown_seconds": seconds(cooldowns.get("scale_out_cooldown")),
        "scale_in_cooldown_seconds": seconds(cooldowns.get("scale_in_cooldown")),
    }


class CapacityScaling(Construct):
    """A scalable target (id ``Target``) with policies, wake-up and floors; subclasses validate and document."""

    _path: str
    _dimensions: dict[Dimension, str]
    _schedules: list[ScheduledFloor]
    _kind: EndpointKind
    _max_capacity: int
    _zero_allowed: bool
    _inference_component: bool
    _host: HostFacts
    _serving: Serving | None
    target: appscaling.ScalableTarget
    """The ``ScalableTarget`` L2 (construct id ``Target``)."""
    wake_up_policy: appscaling.StepScalingAction | None
    """The scale-from-zero step policy (+1), once the wake-up is added (minimum 0)."""
    wake_up_alarm: cloudwatch.CfnAlarm | None
    """The alarm that triggers it: ``HasBacklogWithoutCapacity`` of an async endpoint, or
    ``NoCapacityInvocationFailures`` of an inference component."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        keep_stack(self, scope)  # the scalable target reads it: no round trip

    def _create_target(
        self,
        *,
        resource_id: str,
        dimension: ScalableDimension,
        min_capacity: int,
        max_capacity: int,
        dimensions: Mapping[Dimension, str],
        kind: EndpointKind = EndpointKind.REALTIME,
        host: HostFacts | None = None,
        serving: Serving | None = None,
    ) -> None:
        """Create :attr:`target`; ``dimensions`` bind the CloudWatch metrics of the policies added later, ``host``
        and ``serving`` decide them (default: a CPU host, an unknown serving stack). An inference component's
        copies and an async endpoint's instances may scale to (and floor at) zero."""
        self._dimensions = dict(dimensions)
        self._schedules = []
        self._kind = kind
        self._host = host or HostFacts()
        self._serving = serving
        self._max_capacity = max_capacity
        self._inference_component = dimension is ScalableDimension.INFERENCE_COMPONENT_COPIES
        self._zero_allowed = self._inference_component or kind is EndpointKind.ASYNC
        self.target = _render.scalable_target(
            self, resource_id=resource_id, dimension=dimension, min_capacity=min_capacity, max_capacity=max_capacity
        )
        self.wake_up_policy = None
        self.wake_up_alarm = None

    def _apply_plan(self, plan: ScalingPlan, *, wake_up: WakeUpPolicy | None = None) -> None:
        """Add the plan's target-tracking policies, then ``wake_up`` (unless one exists), then the plan's floors."""
        for policy in plan.target_tracking:
            self._add_policy(policy)
        if wake_up is not None:
            self._add_wake_up(wake_up)
        for floor in plan.schedules:
            self._add_floor(floor)

    def _track(self, intent: ScalingIntent, cooldowns: Cooldowns) -> appscaling.TargetTrackingScalingPolicy:
        """Decide the policy of ``intent`` (one ``scaling:`` key) for this target as the plan does, raise its
        problems, and create it."""
        waits = cooldown_seconds(cooldowns)
        problems = ProblemCollector()
        policies = target_tracking_policies(
            problems,
            self._path,
            kind=self._kind,
            intent=intent,
            host=self._host,
            via_component=self._inference_component,
            serving=self._serving,
            **waits,
        )
        problems.raise_if_any()
        (policy,) = policies  # no problems means the one key was decided
        return self._add_policy(policy)

    def scale_on_schedule(self, *, cron: str, min_capacity: int, max_capacity: int | None = None) -> None:
        """Set the minimum (and optionally maximum) capacity on a schedule: a capacity floor.

        The trade-off: capacity is paid for from the scheduled time, slightly before it is busy, in exchange for
        not waiting 5–10 minutes for instances when traffic arrives. Pair each floor that raises the minimum with
        one that lowers it again.

        Parameters
        ----------
        cron:
            ``cron(minutes hours day-of-month month day-of-week year)`` in UTC, with exactly one of day-of-month
            and day-of-week ``?``; e.g. ``cron(0 7 ? * MON-FRI *)``.
        min_capacity:
            Minimum (instances, or copies of an inference component) from that time on, 0..max (0 only where the
            target may scale to zero: async endpoints and inference components).
        max_capacity:
            Maximum from that time on. Default: the maximum is left unchanged.
        """
        problems = ProblemCollector()
        floors = schedule_floors(
            problems,
            self._path,
            kind=self._kind,
            schedule=[ScheduledFloor(cron=cron, min_capacity=min_capacity, max_capacity=max_capacity)],
            max_capacity=self._max_capacity,
            zero_allowed=self._zero_allowed,
            start_index=len(self._schedules),
        )
        problems.raise_if_any()
        for valid in floors:
            self._add_floor(valid)

    def _add_policy(self, policy: TargetTrackingPolicy) -> appscaling.TargetTrackingScalingPolicy:
        return _render.add_target_tracking(self, self.target, policy, self._dimensions)

    def _add_wake_up(self, policy: WakeUpPolicy) -> None:
        if self.wake_up_alarm is not None:
            return
        self.wake_up_policy, self.wake_up_alarm = _render.add_wake_up(self, self.target, policy, self._dimensions)

    def _add_floor(self, floor: ScheduledFloor) -> None:
        self._schedules.append(floor)
        _render.add_schedule(self.target, floor, f"Floor{len(self._schedules)}")
