"""Machinery shared by the capacity-scaling constructs (private).

:class:`~inference_constructs.scaling.EndpointAutoScaling` (variant instances) and
:class:`~inference_constructs.scaling.InferenceComponentScaling` (component copies) are both one
scalable target with target-tracking policies, an optional wake-up step policy and scheduled
floors; this base holds what they do the same way, so each keeps only its own rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from aws_cdk import Duration
from aws_cdk import aws_applicationautoscaling as appscaling
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.metric_definitions import Dimension
from inference_constructs.scaling import _render
from inference_constructs.scaling.decisions import (
    ScalableDimension,
    ScalingPlan,
    ScheduledFloor,
    TargetTrackingPolicy,
    WakeUpPolicy,
    schedule_floors,
)
from inference_constructs.spec import EndpointKind


def seconds(duration: Duration | None) -> int | None:
    """``duration`` in whole seconds, or None when it is not given (the policy's default applies)."""
    return None if duration is None else int(duration.to_seconds())


class CapacityScaling(Construct):
    """A scalable target (id ``Target``) with policies, wake-up and floors; subclasses validate and document."""

    _path: str
    _dimensions: dict[Dimension, str]
    _schedules: list[ScheduledFloor]
    target: appscaling.ScalableTarget
    wake_up_policy: appscaling.StepScalingAction | None
    wake_up_alarm: cloudwatch.CfnAlarm | None

    def _scalable_target(
        self,
        *,
        resource_id: str,
        dimension: ScalableDimension,
        min_capacity: int,
        max_capacity: int,
        dimensions: Mapping[Dimension, str],
    ) -> appscaling.ScalableTarget:
        """Create the target; ``dimensions`` bind the CloudWatch metrics of the policies added later."""
        self._dimensions = dict(dimensions)
        self._schedules = []
        return _render.scalable_target(
            self, resource_id=resource_id, dimension=dimension, min_capacity=min_capacity, max_capacity=max_capacity
        )

    def _apply_plan(self, plan: ScalingPlan, *, wake_up: WakeUpPolicy | None = None) -> None:
        """Add the plan's target-tracking policies, then ``wake_up`` (unless one exists), then the plan's floors."""
        for policy in plan.target_tracking:
            self._add_policy(policy)
        if wake_up is not None:
            self._add_wake_up(wake_up)
        for floor in plan.schedules:
            self._add_floor(floor)

    def _track(
        self,
        decide: Callable[..., TargetTrackingPolicy | None],
        scale_out_cooldown: Duration | None,
        scale_in_cooldown: Duration | None,
        **intent: object,
    ) -> appscaling.TargetTrackingScalingPolicy:
        """Decide a policy with ``decide`` (a ``decisions`` policy function), raise its problems, and create it."""
        problems = ProblemCollector()
        policy = decide(
            problems,
            self._path,
            scale_out_cooldown_seconds=seconds(scale_out_cooldown),
            scale_in_cooldown_seconds=seconds(scale_in_cooldown),
            **intent,
        )
        problems.raise_if_any()
        assert policy is not None  # no problems means a policy was decided
        return self._add_policy(policy)

    def _schedule(
        self,
        *,
        kind: EndpointKind,
        floor: ScheduledFloor,
        max_capacity: int,
        zero_allowed: bool,
    ) -> None:
        """Validate one scheduled floor (numbered after those already added) and add it."""
        problems = ProblemCollector()
        floors = schedule_floors(
            problems,
            self._path,
            kind=kind,
            schedule=[floor],
            max_capacity=max_capacity,
            zero_allowed=zero_allowed,
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
