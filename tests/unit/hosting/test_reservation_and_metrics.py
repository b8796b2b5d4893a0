"""Capacity reservations (``CapacityReservationConfig``) and the endpoint config's ``MetricsConfig``: what the plan
decides and refuses, what synthesizes, what it costs, and what an update does."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import Stack

from inference_constructs.config import parse_config, validate_config
from inference_constructs.diff.templates import diff_templates
from inference_constructs.diff.warnings import classify
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting import (
    AsyncOptions,
    Capacity,
    CapacityReservation,
    EndpointRequest,
    MetricsOptions,
    RealtimeEndpoint,
    plan_endpoint,
)
from inference_constructs.plan import plan_platform
from inference_constructs.spec import EndpointKind, ModelSourceKind, ModelSpec, Serving
from tests.unit.diff.templates import hosting as _hosting
from tests.unit.hosting._synth import logical_ids, synth_checked

ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-plan/p5-for-chat"
SMALL = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6, max_context_tokens=4096)


def _request(**kw: Any) -> EndpointRequest:
    kw.setdefault("kind", EndpointKind.REALTIME)
    return EndpointRequest(model=SMALL, serving=Serving.LMI, **kw)


def _variant(template: dict[str, Any]) -> dict[str, Any]:
    (config_id,) = logical_ids(template, "AWS::SageMaker::EndpointConfig")
    (variant,) = template["Resources"][config_id]["Properties"]["ProductionVariants"]
    return dict(variant)


def _config(template: dict[str, Any]) -> dict[str, Any]:
    (config_id,) = logical_ids(template, "AWS::SageMaker::EndpointConfig")
    return dict(template["Resources"][config_id]["Properties"])


def test_a_reservation_sets_the_variants_capacity_reservation_config() -> None:
    # GIVEN an endpoint on a reserved ml.g6.2xlarge WHEN synthesized (nag packs and cfn-lint clean)
    _, template = synth_checked(
        lambda stack: RealtimeEndpoint(
            stack,
            "Chat",
            model=SMALL,
            instance_type="ml.g6.2xlarge",
            capacity_reservation=CapacityReservation(ARN, ends_at="2027-03-31"),
        )
    )
    # THEN the variant launches only into the reservation, on the reservation's instance type
    variant = _variant(template)
    assert variant["CapacityReservationConfig"] == {
        "CapacityReservationPreference": "capacity-reservations-only",
        "MlReservationArn": ARN,
    }
    assert variant["InstanceType"] == "ml.g6.2xlarge"


def test_the_plan_states_the_assumption_warns_about_the_end_and_counts_the_capacity_as_prepaid() -> None:
    plan = plan_endpoint(
        _request(instance_type="ml.g6.2xlarge", capacity_reservation=CapacityReservation(ARN, "2027-03-31")),
        path="endpoints[0]",
    )
    assert plan.capacity_reservation is not None
    doc = plan.capacity_reservation.to_dict()
    assert doc["assumed_instance_type"] == "ml.g6.2xlarge"
    assert doc["billing"].startswith("prepaid")
    (warning,) = plan.warnings
    assert "on 2027-03-31 it stops serving" in warning and warning.startswith("endpoints[0].capacity_reservation")
    assert classify(warning) == "reservation_ends"


def test_a_reserved_endpoint_is_left_out_of_the_baseline_and_the_savings_plan() -> None:
    # GIVEN two endpoints, one of them on a reservation
    doc = {
        "name": "resv",
        "endpoints": [
            {
                "name": name,
                "model": {"source": "huggingface", "id": "Qwen/Qwen2.5-7B-Instruct", "parameters_billion": 7.6},
                "instance_type": "ml.g6.2xlarge",
                **extra,
            }
            for name, extra in (("free", {}), ("held", {"capacity_reservation": {"ml_reservation_arn": ARN}}))
        ],
    }
    plan = plan_platform(validate_config(doc))
    free, held = plan.endpoints
    # THEN only the on-demand endpoint is in the baseline the commitment is sized on
    assert plan.baseline_usd_per_hour == pytest.approx(free.price_per_hour_usd)
    assert held.to_json()["hosting"]["capacity_reservation"]["billing"].startswith("prepaid")
    assert "capacity_reservation.ends_at not given" in " ".join(held.warnings)


@pytest.mark.parametrize(
    ("request_kw", "path", "match"),
    [
        (
            {"instance_type": "ml.g6.2xlarge", "capacity_reservation": CapacityReservation("arn:aws:ec2:x")},
            "endpoints[0].capacity_reservation.ml_reservation_arn",
            "is not an ML reservation ARN",
        ),
        (
            {"capacity_reservation": CapacityReservation(ARN)},
            "endpoints[0].instance_type",
            "give the reservation's instance type explicitly",
        ),
        (
            {
                "instance_type": "ml.g6.2xlarge",
                "instance_pools": "auto",
                "capacity_reservation": CapacityReservation(ARN),
            },
            "endpoints[0].capacity_reservation",
            "is set together with instance_pools",
        ),
        (
            {
                "instance_type": "ml.g6.2xlarge",
                "capacity": Capacity(0, 2),
                "capacity_reservation": CapacityReservation(ARN),
            },
            "endpoints[0].capacity_reservation",
            "capacity.min 0 is hosted through an inference component",
        ),
        (
            {"instance_type": "ml.g6.2xlarge", "capacity_reservation": CapacityReservation(ARN, "next spring")},
            "endpoints[0].capacity_reservation.ends_at",
            "is not a date",
        ),
        (
            {"metrics": MetricsOptions(publish_frequency_seconds=15)},
            "endpoints[0].metrics.publish_frequency_seconds",
            "use one of 10, 30, 60, 120, 180, 240, 300",
        ),
        (
            {"kind": EndpointKind.ASYNC, "async_inference": AsyncOptions(), "metrics": MetricsOptions(True)},
            "endpoints[0].metrics",
            "no source documents MetricsConfig for async endpoints",
        ),
    ],
)
def test_fails_reservation_and_metrics_options_sagemaker_or_no_source_allows(
    request_kw: dict[str, Any], path: str, match: str
) -> None:
    with pytest.raises(InferenceConfigError, match=match) as err:
        plan_endpoint(_request(**request_kw), path="endpoints[0]")
    assert path in {p.path for p in err.value.problems}


def test_fails_a_reservation_on_a_serverless_endpoint() -> None:
    req = EndpointRequest(
        kind=EndpointKind.SERVERLESS,
        model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz"),
        serving=Serving.SKLEARN,
        capacity_reservation=CapacityReservation(ARN),
    )
    with pytest.raises(InferenceConfigError, match="no instances to reserve") as err:
        plan_endpoint(req, path="endpoints[0]")
    assert "endpoints[0].capacity_reservation" in {p.path for p in err.value.problems}


def test_metrics_config_is_written_with_the_fields_given_and_only_then() -> None:
    # GIVEN one endpoint with detailed observability on and a 30 s publish interval, and one without metrics
    def build(stack: Stack) -> None:
        RealtimeEndpoint(
            stack,
            "Chat",
            model=SMALL,
            metrics=MetricsOptions(detailed_observability=True, publish_frequency_seconds=30),
        )

    _, template = synth_checked(build)
    # THEN MetricsConfig carries those two fields and nothing else
    assert _config(template)["MetricsConfig"] == {
        "EnableDetailedObservability": True,
        "MetricPublishFrequencyInSeconds": 30,
    }
    _, plain = synth_checked(lambda stack: RealtimeEndpoint(stack, "Chat", model=SMALL))
    assert "MetricsConfig" not in _config(plain)


def test_the_plan_says_metrics_config_creates_a_new_endpoint_config_and_adds_cloudwatch_cost() -> None:
    plan = plan_endpoint(_request(metrics=MetricsOptions(enhanced_metrics=True)))
    assert plan.metrics_config is not None
    assert plan.metrics_config.to_dict()["enable_enhanced_metrics"] is True
    assert "create-only" in plan.metrics_config.reason and "CloudWatch" in plan.metrics_config.reason
    assert plan.metrics_config.reason in plan.reasons
    # AND an empty MetricsOptions writes nothing
    assert plan_endpoint(_request(metrics=MetricsOptions())).metrics_config is None


def test_turning_metrics_config_on_replaces_the_endpoint_config() -> None:
    new = _hosting()
    new["Resources"]["Config"]["Properties"]["MetricsConfig"] = {"EnableDetailedObservability": True}
    changes = {c.logical_id: c for c in diff_templates({"h": _hosting()}, {"h": new}).changes}
    assert changes["Config"].status == "replaced"
    assert changes["Config"].forced_by == ("MetricsConfig (direct)",)
    assert changes["Endpoint"].status == "updated"


def test_the_config_keys_reach_the_plan() -> None:
    # GIVEN a config file with a reservation (a YAML date), metrics and, on another endpoint, a ranked pool list
    text = f"""
name: keys
endpoints:
  - name: held
    model: {{source: huggingface, id: Qwen/Qwen2.5-7B-Instruct, parameters_billion: 7.6}}
    instance_type: ml.g6.2xlarge
    capacity_reservation: {{ml_reservation_arn: "{ARN}", ends_at: 2027-03-31}}
    metrics: {{enhanced_metrics: true, publish_frequency_seconds: 60}}
  - name: pooled
    model: {{source: huggingface, id: Qwen/Qwen2.5-7B-Instruct, parameters_billion: 7.6}}
    instance_pools: [ml.g6.4xlarge, ml.g6.2xlarge]
    instance_provision_timeout_seconds: 600
"""
    held, pooled = (e.to_json()["hosting"] for e in plan_platform(parse_config(text)).endpoints)
    # THEN each shows in the endpoint's hosting block
    assert held["capacity_reservation"]["ends_at"] == "2027-03-31"
    assert held["metrics_config"]["metric_publish_frequency_seconds"] == 60
    assert [p["instance_type"] for p in pooled["instance_pools"]["pools"]] == ["ml.g6.4xlarge", "ml.g6.2xlarge"]
    assert pooled["instance_pools"]["variant_instance_provision_timeout_seconds"] == 600
    # AND an endpoint without them plans without the keys
    assert "instance_pools" not in held and "capacity_reservation" not in pooled


def test_fails_config_values_outside_the_ranges_naming_each_key() -> None:
    text = """
name: keys
endpoints:
  - name: pooled
    model: {source: huggingface, id: Qwen/Qwen2.5-7B-Instruct, parameters_billion: 7.6}
    instance_pools: 9
    instance_provision_timeout_seconds: 100
"""
    # WHEN parsed THEN the schema refuses the timeout; WHEN the timeout is fixed and the file planned THEN the plan
    # refuses the pool count, each with its key path
    with pytest.raises(InferenceConfigError) as err:
        parse_config(text)
    assert [p.path for p in err.value.problems] == ["endpoints[0].instance_provision_timeout_seconds"]
    with pytest.raises(InferenceConfigError, match=r"use 1\.\.5") as err:
        plan_platform(parse_config(text.replace("100", "600")))
    assert [p.path for p in err.value.problems] == ["endpoints[0].instance_pools"]
