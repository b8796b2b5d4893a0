"""Config endpoint -> scaling plan: key mapping and the bottleneck default."""

from __future__ import annotations

import pytest

from inference_constructs.config.schema import Endpoint
from inference_constructs.errors import InferenceConfigError
from inference_constructs.plan.scaling import plan_from_config
from inference_constructs.scaling import ScalableDimension


def _endpoint(**data: object) -> Endpoint:
    return Endpoint.model_validate({"name": "chat", "model": {"id": "org/model"}, **data})


def test_config_keys_become_policies_and_schedules() -> None:
    # GIVEN the docs/config.md example keys on a 4-GPU host, served by triton (whose gpu memory use is its backend's)
    endpoint = _endpoint(
        serving="triton",
        capacity={"min": 1, "max": 4},
        scaling={
            "concurrency_per_instance": 8,
            "gpu_memory_percent": 80,
            "schedule": [{"cron": "cron(0 7 ? * MON-FRI *)", "min": 2}, {"cron": "cron(0 19 ? * MON-FRI *)", "min": 1}],
        },
    )
    # WHEN planned
    plan = plan_from_config("endpoints[0]", endpoint, gpu_count=4, instance_type="ml.g5.12xlarge")
    # THEN concurrency and GPU memory (80 x 4) are tracked and both floors are scheduled
    assert [(p.construct_id, p.target_value) for p in plan.target_tracking] == [("Concurrency", 8), ("GpuMemory", 320)]
    assert [(s.cron, s.min_capacity) for s in plan.schedules] == [
        ("cron(0 7 ? * MON-FRI *)", 2),
        ("cron(0 19 ? * MON-FRI *)", 1),
    ]
    # AND the plan warns that gpu memory scales in only if the backend frees it
    assert any("scales in only if the server frees gpu memory" in w for w in plan.warnings)


@pytest.mark.parametrize(
    ("data", "construct_id", "target"),
    [
        ({"capacity": {"min": 1, "max": 4}, "model": {"id": "m", "max_concurrent_sequences": 16}}, "Concurrency", 12),
        (
            {
                "type": "async",
                "capacity": {"min": 0, "max": 2},
                "async": {"max_concurrent_invocations_per_instance": 4},
            },
            "Backlog",
            5,
        ),
    ],
)
def test_ranged_endpoint_without_keys_scales_on_its_bottleneck(
    data: dict[str, object], construct_id: str, target: float
) -> None:
    # GIVEN an endpoint with a capacity range and no scaling keys
    # WHEN planned
    plan = plan_from_config("endpoints[0]", _endpoint(**data), gpu_count=1)
    # THEN it tracks its bottleneck
    assert [(p.construct_id, p.target_value) for p in plan.target_tracking] == [(construct_id, target)]


def test_fixed_capacity_without_keys_does_not_scale() -> None:
    # GIVEN the default capacity {min: 1, max: 1} and no keys
    # WHEN planned
    plan = plan_from_config("endpoints[0]", _endpoint(), gpu_count=1)
    # THEN nothing scales
    assert not plan.enabled


def test_serverless_provisioned_concurrency_from_config() -> None:
    # GIVEN a serverless endpoint with provisioned concurrency
    endpoint = _endpoint(
        type="serverless",
        serving="sklearn",
        serverless={"memory_mb": 2048, "max_concurrency": 10, "provisioned_concurrency": 2},
    )
    # WHEN planned
    plan = plan_from_config("endpoints[3]", endpoint)
    # THEN provisioned concurrency scales between 2 and 10
    assert plan.dimension is ScalableDimension.PROVISIONED_CONCURRENCY
    assert (plan.min_capacity, plan.max_capacity) == (2, 10)


def test_fails_gpu_memory_on_a_cpu_host_with_the_config_path() -> None:
    # GIVEN GPU-memory scaling on a CPU host
    endpoint = _endpoint(capacity={"min": 1, "max": 2}, scaling={"gpu_memory_percent": 80})
    # WHEN planned
    # THEN the message names the config key
    with pytest.raises(
        InferenceConfigError, match=r"endpoints\[4\]\.scaling\.gpu_memory_percent: ml\.m5\.large has no gpu"
    ):
        plan_from_config("endpoints[4]", endpoint, gpu_count=0, instance_type="ml.m5.large")


def test_fails_burstable_host_with_a_range() -> None:
    # GIVEN a burstable host with a capacity range
    endpoint = _endpoint(capacity={"min": 1, "max": 3}, scaling={"concurrency_per_instance": 4})
    # WHEN planned
    # THEN it is refused
    with pytest.raises(InferenceConfigError, match=r"endpoints\[0\]\.instance_type: ml\.t2\.medium is a burstable"):
        plan_from_config("endpoints[0]", endpoint, burstable=True, instance_type="ml.t2.medium")


@pytest.mark.parametrize("serving", ["lmi", "vllm", "tgi", "pytorch"])
def test_fails_gpu_memory_policy_on_servers_whose_gpu_memory_cannot_fall(serving: str) -> None:
    # GIVEN a GPU endpoint on a server that reserves GPU memory at start-up (or keeps its peak), scaled on GPU memory
    endpoint = _endpoint(serving=serving, capacity={"min": 1, "max": 4}, scaling={"gpu_memory_percent": 85})
    # WHEN planned THEN the policy is refused with the reason and the concurrency fix
    with pytest.raises(
        InferenceConfigError,
        match=rf"endpoints\[0\]\.scaling\.gpu_memory_percent: serving {serving} cannot scale in on gpu memory: .*"
        r"scale on scaling\.concurrency_per_instance",
    ):
        plan_from_config("endpoints[0]", endpoint, gpu_count=1, instance_type="ml.g5.2xlarge")


def test_fails_gpu_memory_policy_even_beside_a_concurrency_policy() -> None:
    # GIVEN the old default chat scaling: concurrency and GPU memory on LMI
    endpoint = _endpoint(
        serving="lmi",
        capacity={"min": 1, "max": 4},
        scaling={"concurrency_per_instance": 12, "gpu_memory_percent": 85},
    )
    # WHEN planned THEN the GPU-memory policy is refused: it would pin capacity at max beside the other one
    with pytest.raises(InferenceConfigError, match=r"capacity is removed only when every policy agrees"):
        plan_from_config("endpoints[0]", endpoint, gpu_count=1, instance_type="ml.g5.2xlarge")


def test_plan_names_the_signal_and_why_gpu_memory_is_not_it() -> None:
    # GIVEN an LMI endpoint on a GPU with a capacity range and no scaling keys
    model = {"id": "m", "max_concurrent_sequences": 16}
    endpoint = _endpoint(serving="lmi", capacity={"min": 1, "max": 4}, model=model)
    # WHEN planned
    plan = plan_from_config("endpoints[0]", endpoint, gpu_count=1, instance_type="ml.g5.2xlarge")
    # THEN the signal names the concurrency metric, that it is the default, and why gpu memory is not used
    signal = plan.to_dict()["signal"]
    assert signal.startswith("no scaling keys, so the bottleneck: driven by SageMakerVariantConcurrentRequestsPer")
    assert "not gpu memory, which cannot fall with load on lmi" in signal


def test_fixed_capacity_signal_says_nothing_scales() -> None:
    # GIVEN an endpoint with min == max and no keys WHEN planned THEN the signal says so
    plan = plan_from_config("endpoints[0]", _endpoint(capacity={"min": 2, "max": 2}), gpu_count=1)
    assert plan.signal == "fixed capacity: nothing scales"
