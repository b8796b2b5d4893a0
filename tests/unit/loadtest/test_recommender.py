"""Inference Recommender jobs from the plan, checked against the real sagemaker service model via Stubber."""

from __future__ import annotations

import datetime as dt
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from botocore.stub import ANY, Stubber

from inference_constructs.__main__ import main
from inference_constructs.errors import InferenceConfigError
from inference_loadtest import cli, recommender
from inference_loadtest.formats import StreamFormat
from inference_loadtest.runner import make_client
from inference_loadtest.target import load_plan

CONFIG = str(Path(__file__).resolve().parents[3] / "config" / "default.yaml")
ROLE = "arn:aws:iam::111122223333:role/InferenceRecommender"
PAYLOAD = "s3://acme-ml-artifacts/recommender/chat.tar.gz"
ARGV = ["recommend-job", "--plan", CONFIG, "--endpoint", "chat", "--role-arn", ROLE, "--payload-s3-uri", PAYLOAD]


@pytest.fixture(scope="module")
def plan() -> dict[str, Any]:
    return load_plan(CONFIG)


def _job(plan: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "plan": plan,
        "endpoint": "chat",
        "job_name": "acme-genai-chat-1",
        "role_arn": ROLE,
        "model_name": "chat-model-abc",
        "sample_payload_url": PAYLOAD,
        "instance_types": recommender.shortlist(CONFIG, "chat"),
        "slo_ttft_ms": 500,
        "slo_itl_ms": 50,
        "max_tokens": 128,
        "max_invocations_per_minute": 300,
    }
    kwargs.update(overrides)
    return recommender.build_job(**kwargs)


def test_shortlist_is_the_chosen_host_then_the_next_that_fit(plan: dict[str, Any]) -> None:
    # WHEN the default platform's chat endpoint (8B bf16, 16 x 8k KV cache) is shortlisted
    hosts = recommender.shortlist(CONFIG, "chat")
    # THEN the plan's choice leads and every candidate is a host the plan did not reject as too small
    rejected = {r["instance_type"] for r in plan["endpoints"][0]["rejected"]}
    assert hosts[0] == plan["endpoints"][0]["instance_type"] == "ml.g6e.xlarge"
    assert len(hosts) == 3
    assert not set(hosts) & rejected


def test_job_request_from_the_plan(plan: dict[str, Any]) -> None:
    job = _job(plan)
    # THEN candidates, traffic phases (1 user, then the scaling target of 12) and the SLO-derived threshold
    assert job["InputConfig"]["EndpointConfigurations"][0] == {"InstanceType": "ml.g6e.xlarge"}
    assert [p["InitialNumberOfUsers"] for p in job["InputConfig"]["TrafficPattern"]["Phases"]] == [1, 12]
    assert job["StoppingConditions"]["ModelLatencyThresholds"] == [{"Percentile": "P95", "ValueInMilliseconds": 6850}]
    assert job["InputConfig"]["ContainerConfig"]["Task"] == "TEXT_GENERATION"
    assert job["JobType"] == "Advanced"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"role_arn": "not-an-arn"}, "invalid for CreateInferenceRecommendationsJob"),
        ({"instance_types": ["ml.z9.huge"]}, "none of ml.z9.huge is an instance type"),
        ({"endpoint": "nope"}, "'nope' is not an endpoint of the plan"),
    ],
)
def test_fails_before_anything_is_sent(plan: dict[str, Any], overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(InferenceConfigError, match=message):
        _job(plan, **overrides)


def test_sample_payload_is_one_json_request_in_a_tar_gz() -> None:
    archive = recommender.sample_payload_archive(StreamFormat.LMI, prompt="hi", max_tokens=16)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        [member] = tar.getmembers()
        body = json.loads(tar.extractfile(member).read())  # type: ignore[union-attr]
    assert member.name == "payload.json"
    assert body == {"inputs": "hi", "parameters": {"max_new_tokens": 16, "details": True}}


def test_submit_uploads_the_payload_looks_up_the_model_and_creates_the_job(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN the deployed endpoint's model behind its endpoint config, and S3 accepting the payload
    sagemaker, s3 = make_client("sagemaker", pool=1), make_client("s3", pool=1)
    sm, s3_stub = Stubber(sagemaker), Stubber(s3)
    now = dt.datetime(2026, 1, 1)
    sm.add_response(
        "describe_endpoint",
        {
            "EndpointName": "acme-genai-chat",
            "EndpointArn": "arn:aws:sagemaker:us-east-1:111122223333:endpoint/x",
            "EndpointConfigName": "cfg-1",
            "EndpointStatus": "InService",
            "CreationTime": now,
            "LastModifiedTime": now,
        },
        {"EndpointName": "acme-genai-chat"},
    )
    sm.add_response(
        "describe_endpoint_config",
        {
            "EndpointConfigName": "cfg-1",
            "EndpointConfigArn": "arn:aws:sagemaker:us-east-1:111122223333:endpoint-config/c",
            "ProductionVariants": [{"VariantName": "AllTraffic", "ModelName": "ChatModel-1A2B"}],
            "CreationTime": now,
        },
        {"EndpointConfigName": "cfg-1"},
    )
    s3_stub.add_response(
        "put_object",
        {},
        {
            "Bucket": "acme-ml-artifacts",
            "Key": "recommender/chat.tar.gz",
            "Body": ANY,
            "ContentType": "application/gzip",
        },
    )
    sm.add_response(
        "create_inference_recommendations_job",
        {"JobArn": "arn:aws:sagemaker:us-east-1:111122223333:inference-recommendations-job/j"},
        {
            "JobName": "job-1",
            "JobType": "Advanced",
            "RoleArn": ROLE,
            "JobDescription": ANY,
            "InputConfig": ANY,
            "StoppingConditions": ANY,
        },
    )
    monkeypatch.setattr(cli, "_control_client", lambda service, args: {"sagemaker": sagemaker, "s3": s3}[service])
    # WHEN recommend-job --submit runs
    with sm, s3_stub:
        code = main([*ARGV, "--job-name", "job-1", "--submit"])
        sm.assert_no_pending_responses()
        s3_stub.assert_no_pending_responses()
    # THEN every call happened in order with the looked-up model
    assert code == 0
    assert "created arn:aws:sagemaker" in capsys.readouterr().out


def test_recommend_job_without_submit_writes_the_request(tmp_path: Path) -> None:
    out, payload = tmp_path / "job.json", tmp_path / "payload.tar.gz"
    code = main([*ARGV, "--model-name", "m", "--out", str(out), "--payload-out", str(payload)])
    assert code == 0
    assert json.loads(out.read_text())["InputConfig"]["ModelName"] == "m"
    assert tarfile.is_tarfile(payload)


def test_recommend_job_needs_a_model_name_without_submit(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(ARGV)
    assert code == cli.EXIT_CONFIG_ERROR
    assert "--model-name: required without --submit" in capsys.readouterr().err


def test_results_map_what_inference_recommender_measures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a finished job with one recommendation
    sagemaker = make_client("sagemaker", pool=1)
    stub = Stubber(sagemaker)
    now = dt.datetime(2026, 1, 1)
    stub.add_response(
        "describe_inference_recommendations_job",
        {
            "JobName": "job-1",
            "JobType": "Advanced",
            "JobArn": "arn:aws:sagemaker:us-east-1:111122223333:x/j",
            "RoleArn": ROLE,
            "Status": "COMPLETED",
            "CreationTime": now,
            "LastModifiedTime": now,
            "InputConfig": {"ModelName": "m"},
            "InferenceRecommendations": [
                {
                    "Metrics": {
                        "CostPerHour": 2.61,
                        "CostPerInference": 0.0004,
                        "MaxInvocations": 110,
                        "ModelLatency": 5400,
                        "CpuUtilization": 12.5,
                        "MemoryUtilization": 40.0,
                        "ModelSetupTime": 420,
                    },
                    "EndpointConfiguration": {
                        "EndpointName": "e",
                        "VariantName": "v",
                        "InstanceType": "ml.g6e.xlarge",
                        "InitialInstanceCount": 1,
                    },
                    "ModelConfiguration": {},
                }
            ],
        },
        {"JobName": "job-1"},
    )
    monkeypatch.setattr(cli, "_control_client", lambda service, args: sagemaker)
    with stub:
        code = main(["results", "job-1", "--json"])
    report = json.loads(capsys.readouterr().out)
    # THEN what it measures is mapped; TTFT, ITL and tokens are blank and the report says why
    assert code == 0
    [row] = report["recommendations"]
    assert (row["instance_type"], row["model_latency_ms"], row["cost_per_inference_usd"]) == (
        "ml.g6e.xlarge",
        5400,
        0.0004,
    )
    assert (row["ttft_ms"], row["itl_ms"], row["output_tokens_per_s"]) == (None, None, None)
    assert "does not measure TTFT" in report["notes"][0]
    table = recommender.results_table(report)
    assert "ml.g6e.xlarge  1" in table
