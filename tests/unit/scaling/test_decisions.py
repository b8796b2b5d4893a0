"""Pure scaling decisions: plans from config keys, and every rule's error message."""

from __future__ import annotations

import pytest

from inference_constructs.errors import InferenceConfigError
from inference_constructs.scaling import (
    HostFacts,
    ScalableDimension,
    ScalingIntent,
    ScheduledFloor,
    ServerlessFacts,
)
from inference_constructs.scaling.decisions import bottleneck_intent, cron_problem
from inference_constructs.spec import EndpointKind
from tests.unit.scaling._plans import GPU4, scaling_plan

CPU = HostFacts(gpu_count=0, instance_type="ml.m5.xlarge")


def test_realtime_plan_has_one_policy_per_key() -> None:
    # GIVEN concurrency, invocations and GPU-memory keys on a 4-GPU host
    # WHEN planned
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=4,
        concurrency_per_instance=8,
        invocations_per_instance_per_minute=60,
        gpu_memory_percent=80,
        host=GPU4,
    )
    # THEN three target-tracking policies scale variant instances, GPU memory at 80 x 4
    assert plan.dimension is ScalableDimension.VARIANT_INSTANCES
    assert [p.construct_id for p in plan.target_tracking] == ["Concurrency", "Invocations", "GpuMemory"]
    assert plan.target_tracking[2].target_value == 320
    assert plan.wake_up is None
    assert plan.enabled


def test_fixed_capacity_without_keys_creates_nothing() -> None:
    # GIVEN min == max and no scaling keys, on a burstable host (fine when nothing scales)
    # WHEN planned
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=1,
        host=HostFacts(burstable=True, instance_type="ml.t2.medium"),
    )
    # THEN scaling is disabled
    assert not plan.enabled


def test_async_zero_plan_adds_the_backlog_wake_up_and_warns() -> None:
    # GIVEN an async endpoint with min 0 and backlog scaling
    # WHEN planned
    plan = scaling_plan(EndpointKind.ASYNC, path="endpoints[1]", min_capacity=0, max_capacity=3, backlog_per_instance=5)
    # THEN a HasBacklogWithoutCapacity >= 1 wake-up is planned and the plan warns about the wait
    assert plan.wake_up is not None
    assert plan.wake_up.alarm_metric.metric_name == "HasBacklogWithoutCapacity"
    assert plan.wake_up.comparison_operator == "GreaterThanOrEqualToThreshold"
    assert plan.wake_up.threshold == 1
    assert any("queued requests wait" in w for w in plan.warnings)


def test_realtime_zero_plan_goes_through_an_inference_component() -> None:
    # GIVEN a real-time endpoint with capacity.min 0
    # WHEN planned with concurrency scaling
    plan = scaling_plan(EndpointKind.REALTIME, min_capacity=0, max_capacity=2, concurrency_per_instance=8, host=GPU4)
    # THEN copies are scaled, the wake-up is NoCapacityInvocationFailures, and the plan warns
    assert plan.uses_inference_component
    assert plan.managed_instance_max == 2
    assert plan.target_tracking[0].predefined_metric == (
        "SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution"
    )
    assert plan.wake_up is not None and plan.wake_up.alarm_metric.metric_name == "NoCapacityInvocationFailures"
    assert any("first requests fail" in w for w in plan.warnings)


def test_serverless_plan_scales_provisioned_concurrency() -> None:
    # GIVEN a serverless endpoint with 2 provisioned of 20 concurrency
    # WHEN planned (capacity keys do not apply to serverless)
    plan = scaling_plan(
        EndpointKind.SERVERLESS,
        path="endpoints[2]",
        min_capacity=1,
        max_capacity=4,
        serverless=ServerlessFacts(max_concurrency=20, provisioned_concurrency=2),
    )
    # THEN provisioned concurrency is tracked between 2 and 20
    assert plan.dimension is ScalableDimension.PROVISIONED_CONCURRENCY
    assert (plan.min_capacity, plan.max_capacity) == (2, 20)
    assert plan.target_tracking[0].predefined_metric == "SageMakerVariantProvisionedConcurrencyUtilization"


def test_serverless_without_provisioned_concurrency_does_not_scale() -> None:
    # GIVEN a serverless endpoint without provisioned concurrency
    # WHEN planned
    plan = scaling_plan(EndpointKind.SERVERLESS, path="endpoints[2]", min_capacity=1, max_capacity=1)
    # THEN nothing is scaled
    assert not plan.enabled


def test_plan_document_form_is_json_ready() -> None:
    # GIVEN a plan with a policy and a schedule
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=4,
        gpu_memory_percent=80,
        schedule=(ScheduledFloor("cron(0 7 ? * MON-FRI *)", 2),),
        host=GPU4,
    )
    # WHEN rendered for the plan document
    doc = plan.to_dict()
    # THEN it shows the multiplied target, the reason, and the schedule
    assert doc["policies"][0]["target_value"] == 320
    assert "0-100 x 4 GPUs" in doc["policies"][0]["reason"]
    assert doc["schedules"] == [{"cron": "cron(0 7 ? * MON-FRI *)", "min": 2, "max": None}]


def test_schedule_that_only_raises_the_floor_warns() -> None:
    # GIVEN one scheduled floor above capacity.min and none that lowers it
    # WHEN planned
    plan = scaling_plan(
        EndpointKind.REALTIME,
        min_capacity=1,
        max_capacity=4,
        schedule=(ScheduledFloor("cron(0 7 ? * MON-FRI *)", 3),),
        host=GPU4,
    )
    # THEN the plan warns that the raised floor stays
    assert any("raised floor stays" in w for w in plan.warnings)


@pytest.mark.parametrize(
    ("kind", "max_concurrent_sequences", "llm", "expected"),
    [
        (EndpointKind.REALTIME, 16, True, ScalingIntent(concurrency_per_instance=12)),
        (EndpointKind.MULTI_MODEL, 8, False, ScalingIntent(concurrency_per_instance=4)),
        (EndpointKind.ASYNC, 8, True, ScalingIntent(backlog_per_instance=5)),
        (EndpointKind.SERVERLESS, 8, False, ScalingIntent()),
    ],
)
def test_bottleneck_intent_targets_each_kinds_bottleneck(
    kind: EndpointKind, max_concurrent_sequences: int, llm: bool, expected: ScalingIntent
) -> None:
    # GIVEN an endpoint kind and server batch size
    # WHEN the default intent is derived
    # THEN it targets concurrency (real-time), backlog (async) or nothing (serverless)
    assert bottleneck_intent(kind, max_concurrent_sequences=max_concurrent_sequences, llm=llm) == expected


@pytest.mark.parametrize(
    "cron",
    ["cron(0 7 ? * MON-FRI *)", "cron(30 18 1 * ? *)", "cron(0/15 * ? * * *)"],
)
def test_valid_cron_expressions_pass(cron: str) -> None:
    # GIVEN a 6-field cron with exactly one '?' day field
    # WHEN checked
    # THEN there is no problem
    assert cron_problem(cron) is None


# ------------------------------------------------------------------ rule 7: failing configs


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        # min > max
        (
            {"min_capacity": 5, "max_capacity": 2},
            r"endpoints\[0\]\.capacity\.min: 5 is greater than capacity\.max 2; set",
        ),
        # burstable hosts are not scalable
        (
            {"host": HostFacts(burstable=True, instance_type="ml.t2.medium"), "concurrency_per_instance": 4},
            r"endpoints\[0\]\.instance_type: ml\.t2\.medium is a burstable instance type and cannot be auto scaled",
        ),
        # GPU-memory scaling on a host without GPUs
        (
            {"host": CPU, "gpu_memory_percent": 80},
            r"endpoints\[0\]\.scaling\.gpu_memory_percent: ml\.m5\.xlarge has no gpu",
        ),
        # backlog scaling on a non-async endpoint
        (
            {"backlog_per_instance": 5},
            r"endpoints\[0\]\.scaling\.backlog_per_instance: backlog scaling needs an async endpoint",
        ),
        (
            {"kind": EndpointKind.MULTI_MODEL, "backlog_per_instance": 5},
            r"backlog scaling needs an async endpoint, this one is multi-model",
        ),
        # targets out of range
        ({"gpu_memory_percent": 150}, r"scaling\.gpu_memory_percent: 150 is out of range; use 0 < value <= 100"),
        ({"gpu_memory_percent": 0}, r"scaling\.gpu_memory_percent: 0 is out of range"),
        ({"concurrency_per_instance": 0}, r"scaling\.concurrency_per_instance: 0 is out of range"),
        ({"concurrency_per_instance": 20000}, r"scaling\.concurrency_per_instance: 20000 is out of range"),
        ({"invocations_per_instance_per_minute": -5}, r"invocations_per_instance_per_minute: -5 is out of range"),
        (
            {"kind": EndpointKind.ASYNC, "backlog_per_instance": 0},
            r"scaling\.backlog_per_instance: 0 is out of range",
        ),
        (
            {"schedule": (ScheduledFloor("cron(0 7 ? * MON-FRI *)", 9),)},
            r"scaling\.schedule\[0\]\.min: 9 is greater than the maximum 4",
        ),
        (
            {"schedule": (ScheduledFloor("cron(0 7 * * MON-FRI *)", 2),)},
            r"scaling\.schedule\[0\]\.cron: .* exactly one of day-of-month and day-of-week",
        ),
        # min 0 on a kind that cannot
        (
            {"kind": EndpointKind.MULTI_MODEL, "min_capacity": 0, "concurrency_per_instance": 4},
            r"endpoints\[0\]\.capacity\.min: 0 is not allowed on a multi-model endpoint",
        ),
        (
            {"schedule": (ScheduledFloor("cron(0 19 ? * MON-FRI *)", 0),)},
            r"scaling\.schedule\[0\]\.min: 0 is not allowed on this realtime endpoint",
        ),
        # keys that do not fit the kind
        (
            {"kind": EndpointKind.ASYNC, "invocations_per_instance_per_minute": 10, "backlog_per_instance": 5},
            r"async endpoints do not publish InvocationsPerInstance",
        ),
        (
            {"kind": EndpointKind.SERVERLESS, "concurrency_per_instance": 4},
            r"scaling\.concurrency_per_instance: not available on a serverless endpoint",
        ),
        (
            {"kind": EndpointKind.SERVERLESS, "schedule": (ScheduledFloor("cron(0 7 ? * MON-FRI *)", 1),)},
            r"scaling\.schedule\[0\]: scheduled floors are not available on a serverless endpoint",
        ),
        # zero capacity without a way back
        (
            {"kind": EndpointKind.ASYNC, "min_capacity": 0},
            r"capacity\.min: 0 on an async endpoint needs backlog scaling",
        ),
        (
            {"min_capacity": 0, "gpu_memory_percent": 80},
            r"gpu memory scaling is not available with capacity\.min 0",
        ),
        (
            {"min_capacity": 0},
            r"capacity\.min: 0 on a real-time endpoint needs copy scaling",
        ),
        (
            {
                "kind": EndpointKind.SERVERLESS,
                "serverless": ServerlessFacts(max_concurrency=5, provisioned_concurrency=10),
            },
            r"serverless\.provisioned_concurrency: 10 is greater than serverless\.max_concurrency 5",
        ),
    ],
)
def test_fails_invalid_scaling_config(kwargs: dict[str, object], match: str) -> None:
    # GIVEN a scaling config that breaks a rule
    # WHEN planned
    # THEN one InferenceConfigError names the key, the value and the fix
    with pytest.raises(InferenceConfigError, match=match):
        scaling_plan(**{"host": GPU4, **kwargs})  # type: ignore[arg-type]


def test_fails_with_every_problem_listed_once() -> None:
    # GIVEN a config that breaks three rules at once
    # WHEN planned
    with pytest.raises(InferenceConfigError) as info:
        scaling_plan(min_capacity=5, max_capacity=2, host=CPU, gpu_memory_percent=80, backlog_per_instance=5)
    # THEN the single error lists all three problems
    assert len(info.value.problems) == 3
    assert all(p.startswith("endpoints[0].") for p in info.value.problems)


@pytest.mark.parametrize(("floor", "warns"), [(3, True), (1, False)])
def test_a_raised_floor_warns_that_a_target_update_lowers_it_until_the_next_action(floor: int, warns: bool) -> None:
    # GIVEN a weekday floor above capacity.min (or one equal to it) and the evening entry that lowers it again
    plan = scaling_plan(
        EndpointKind.REALTIME,
        path="endpoints[0]",
        min_capacity=1,
        max_capacity=4,
        schedule=(ScheduledFloor("cron(0 7 ? * MON-FRI *)", floor), ScheduledFloor("cron(0 19 ? * MON-FRI *)", 1)),
        host=GPU4,
    )
    # THEN only the raised floor says that a scalable-target update re-registers capacity.min 1, and when to deploy
    found = [w for w in plan.warnings if "registers it again with capacity.min 1" in w]
    assert bool(found) is warns
    if warns:
        assert found[0].startswith("endpoints[0]: scheduled floors raise the minimum to 3")
        assert "outside the floor hours" in found[0]
