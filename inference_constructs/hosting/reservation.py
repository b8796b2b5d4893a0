"""A production variant on reserved ML capacity: ``CapacityReservationConfig``. Pure Python (no ``aws_cdk``).

Sources: the CloudFormation resource provider schema of ``AWS::SageMaker::EndpointConfig`` (cfn-lint 1.58.0):
``ProductionVariant.CapacityReservationConfig`` with ``CapacityReservationPreference`` (pattern
``capacity-reservations-only``, the one value the API reference lists) and ``MlReservationArn`` (20-258 characters,
the pattern below). SageMaker developer guide, "Deploy an inference endpoint using the API, AWS CLI": "The
InstanceType field set in the ProductionVariants section ... must match the InstanceType of your training plan";
"You can use exactly one plan per inference endpoint". "Using training plans for SageMaker inference endpoints":
with ``capacity-reservations-only``, when the reservation expires "the endpoint stops serving traffic and
invocations fail with a capacity error".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from inference_constructs._plan_dict import plan_dict
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import ProblemCollector
from inference_constructs.hosting.checks import key_path, refuse_with_inference_component
from inference_constructs.hosting.request import EndpointRequest
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import EndpointKind

__all__ = [
    "RESERVATION_ARN_LENGTH",
    "RESERVATION_ARN_PATTERN",
    "RESERVATION_PREFERENCE",
    "ReservationPlan",
    "check_capacity_reservation",
    "decide_reservation",
    "reservation_warning",
]

RESERVATION_PREFERENCE = "capacity-reservations-only"
"""``CapacityReservationPreference``: the only value the schema and the API reference allow."""
RESERVATION_ARN_PATTERN = r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:[a-z0-9\-]{1,14}/.*$"
"""``MlReservationArn`` pattern (schema; the API reference ends it with ``/.*``)."""
RESERVATION_ARN_LENGTH = (20, 258)
"""``MlReservationArn`` minLength and maxLength (schema)."""
_ARN = re.compile(RESERVATION_ARN_PATTERN)


@dataclass(frozen=True)
class ReservationPlan:
    """The variant's ``CapacityReservationConfig`` and what the plan assumes of it."""

    ml_reservation_arn: str
    instance_type: str
    ends_at: str | None
    preference: str = RESERVATION_PREFERENCE

    @property
    def reason(self) -> str:
        """Why the variant's instances run on reserved capacity, and what is assumed."""
        return (
            f"instances launch only into ML reservation {self.ml_reservation_arn} ({self.preference}); the "
            f"reservation is assumed to be for {self.instance_type} (SageMaker requires the variant's instance type "
            "to match it and cannot be asked at synth)"
        )

    def to_dict(self) -> dict[str, Any]:
        """The plan's ``hosting.capacity_reservation`` block."""
        return plan_dict(
            self,
            "ml_reservation_arn",
            ("capacity_reservation_preference", "preference"),
            ("assumed_instance_type", "instance_type"),
            "ends_at",
            billing="prepaid: the reservation's upfront fee pays for these instances, so the on-demand figures of "
            "this endpoint are for comparison only and it is left out of the savings plan baseline",
            reason=self.reason,
        )


def check_capacity_reservation(req: EndpointRequest, p: ProblemCollector, path: str) -> None:
    """The reservation's ARN format and end date, and what it cannot go with (serverless, instance pools, auto)."""
    r = req.capacity_reservation
    if r is None:
        return
    key = key_path(path, "capacity_reservation")
    if req.kind is EndpointKind.SERVERLESS:
        p.add(
            key, "serverless endpoints run on no instances to reserve", "remove capacity_reservation", code="conflict"
        )
        return
    refuse_with_inference_component(
        req,
        p,
        key,
        option="capacity_reservation",
        why=" on managed instance scaling; a reservation is not planned for it",
    )
    arn = r.ml_reservation_arn
    if not is_unresolved(arn):
        low, high = RESERVATION_ARN_LENGTH
        if not low <= len(arn) <= high or not _ARN.match(arn):
            p.add(
                f"{key}.ml_reservation_arn",
                f"{arn[:60]!r} is not an ML reservation ARN",
                "use arn:aws:sagemaker:<region>:<account>:<resource>/<name>, e.g. a training-plan ARN "
                f"({low}-{high} characters)",
                code="arn_format",
            )
    if req.instance_type is None:
        p.add(
            key_path(path, "instance_type"),
            "auto with a capacity reservation",
            "give the reservation's instance type explicitly: SageMaker requires the variant's instance type to "
            "match it, and the plan cannot read the reservation",
            code="conflict",
        )
    if req.instance_pools is not None:
        p.add(
            key,
            "is set together with instance_pools",
            f"use one: with {RESERVATION_PREFERENCE} instances launch only into the reservation, so other pools "
            "would never be provisioned",
            code="conflict",
        )
    if r.ends_at is not None:
        try:
            date.fromisoformat(r.ends_at)
        except ValueError:
            p.add(f"{key}.ends_at", f"{r.ends_at[:60]!r} is not a date", "use YYYY-MM-DD", code="pattern")


def decide_reservation(req: EndpointRequest, host: HostDecision | None) -> ReservationPlan | None:
    """The variant's reservation (checked by :func:`check_capacity_options`), on the explicit host."""
    r = req.capacity_reservation
    if r is None or host is None:
        return None
    return ReservationPlan(r.ml_reservation_arn, host.instance.name, r.ends_at)


def reservation_warning(plan: ReservationPlan, path: str) -> str:
    """The plan's warning that invocations fail once the reservation ends."""
    when = f"on {plan.ends_at}" if plan.ends_at else "at its end (capacity_reservation.ends_at not given)"
    prefix = f"{path}." if path else ""
    return (
        f"{prefix}capacity_reservation: the endpoint runs only on reservation {plan.ml_reservation_arn}; "
        f"{when} it stops serving and invocations fail with a capacity error: deploy a new reservation's ARN, or "
        "remove capacity_reservation (on-demand capacity), before then"
    )
