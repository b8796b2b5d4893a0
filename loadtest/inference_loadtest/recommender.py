"""SageMaker Inference Recommender: an advanced job that confirms a plan's host choice, and its results.

The job request is built from the plan and checked offline against botocore's ``sagemaker`` service model
(``CreateInferenceRecommendationsJob``) before anything is sent:

- the model (``ModelName``: the deployed endpoint's model) and its container domain/task;
- the candidate instance types: the sizing shortlist (the chosen host, then the next hosts the model fits,
  cheapest first), limited to the types the service model lists for production variants;
- a sample payload in the container's request format, as the single ``.tar.gz`` archive the service wants
  (``RecommendationJobPayloadConfig.SamplePayloadUrl``), uploaded to S3 on ``--submit``;
- traffic phases (one user, then the plan's concurrency target) and stopping conditions: ``MaxInvocations``
  (requests per minute) and a ``P95`` model-latency threshold (the only value custom load tests accept,
  per the service model) of ``SLO TTFT + SLO ITL x max output tokens``.

Inference Recommender measures model latency, invocations per minute, cost per hour and per inference,
CPU and memory utilization and model setup time; it does not measure time to first token, inter-token
latency or token counts, so :func:`results_report` leaves those blank and says so.
"""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Mapping, Sequence
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.formats import StreamFormat, format_for_image, request_body

SHORTLIST_LENGTH = 3
"""The chosen host plus the next two that fit."""
LATENCY_PERCENTILE = "P95"
"""``ModelLatencyThreshold.Percentile``: "Acceptable values are P95 and P99. For custom load tests, specify P95"
(botocore ``sagemaker`` service model documentation)."""
NOT_MEASURED_NOTE = (
    "Inference Recommender measures model latency, invocations per minute, cost per hour and per inference, "
    "CPU and memory utilization and model setup time; it does not measure TTFT, inter-token latency or token "
    "counts, so those columns are blank: run loadtest for them"
)


def _service_model() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("sagemaker")


def variant_instance_types() -> frozenset[str]:
    """Instance types the ``sagemaker`` service model allows in an endpoint configuration."""
    return frozenset(_service_model().shape_for("ProductionVariantInstanceType").enum)


def shortlist(config_path: str, endpoint: str, *, length: int = SHORTLIST_LENGTH) -> list[str]:
    """The chosen host of ``endpoint`` and the next hosts it fits (cheapest first), from the config's sizing."""
    from inference_constructs.catalog import load_catalog
    from inference_constructs.config import load_config
    from inference_constructs.plan import decide_endpoint, model_spec
    from inference_constructs.sizing import feasible_hosts
    from inference_constructs.spec import AcceleratorChoice

    config = load_config(config_path)
    catalog = load_catalog()
    for index, ep in enumerate(config.endpoints):
        if endpoint in (ep.name, f"{config.name}-{ep.name}"):
            chosen = decide_endpoint(index, ep, catalog).hosting.instance_type
            fits = feasible_hosts(
                model_spec(ep), serving=ep.serving, accelerator=AcceleratorChoice(ep.accelerator), catalog=catalog
            )
            names = [chosen] if chosen else []
            names += [f.instance.name for f in fits if f.instance.name not in names]
            return names[:length]
    raise InferenceConfigError(f"--endpoint: {endpoint!r} is not an endpoint of {config_path}")


def sample_payload_archive(fmt: StreamFormat, *, prompt: str, max_tokens: int) -> bytes:
    """A ``.tar.gz`` holding one JSON request (``payload.json``) in the container's non-streaming format."""
    body = request_body(fmt, prompt, max_tokens, stream=False)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("payload.json")
        info.size = len(body)
        info.mtime = 0
        tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def latency_threshold_ms(slo_ttft_ms: float, slo_itl_ms: float, max_tokens: int) -> int:
    """The whole-response model latency an SLO allows: first token plus the gaps to the last one."""
    return round(slo_ttft_ms + slo_itl_ms * max(max_tokens - 1, 0))


def build_job(
    *,
    plan: Mapping[str, Any],
    endpoint: str,
    job_name: str,
    role_arn: str,
    model_name: str,
    sample_payload_url: str,
    instance_types: Sequence[str],
    slo_ttft_ms: float,
    slo_itl_ms: float,
    max_tokens: int,
    max_invocations_per_minute: int,
    phase_seconds: int = 120,
) -> dict[str, Any]:
    """The ``CreateInferenceRecommendationsJob`` request, validated against the service model.

    Raises
    ------
    InferenceConfigError
        For an endpoint the plan does not have, no candidate the service accepts, or a request the
        service model rejects (names, ARNs, ranges).
    """
    from inference_loadtest.target import plan_endpoint

    _, entry = plan_endpoint(plan, endpoint)
    allowed = variant_instance_types()
    candidates = [t for t in instance_types if t in allowed]
    if not candidates:
        raise InferenceConfigError(
            f"recommend-job: none of {', '.join(instance_types) or 'no hosts'} is an instance type "
            "Inference Recommender accepts (ProductionVariantInstanceType)"
        )
    target = 4.0
    for policy in (entry.get("scaling") or {}).get("policies") or ():
        if policy.get("policy") == "Concurrency" and policy.get("target_value"):
            target = float(policy["target_value"])
    llm = format_for_image((entry.get("container") or {}).get("image")) is not None
    request: dict[str, Any] = {
        "JobName": job_name,
        "JobType": "Advanced",
        "RoleArn": role_arn,
        "JobDescription": f"confirm the host of {plan.get('name')}-{entry.get('name')} ({entry.get('instance_type')})",
        "InputConfig": {
            "ModelName": model_name,
            "EndpointConfigurations": [{"InstanceType": t} for t in candidates],
            "TrafficPattern": {
                "TrafficType": "PHASES",
                "Phases": [
                    {"InitialNumberOfUsers": 1, "SpawnRate": 1, "DurationInSeconds": phase_seconds},
                    {"InitialNumberOfUsers": max(1, round(target)), "SpawnRate": 1, "DurationInSeconds": phase_seconds},
                ],
            },
            "ResourceLimit": {"MaxNumberOfTests": len(candidates), "MaxParallelOfTests": 1},
            "ContainerConfig": {
                "Domain": "NATURAL_LANGUAGE_PROCESSING" if llm else "MACHINE_LEARNING",
                "Task": "TEXT_GENERATION" if llm else "OTHER",
                "PayloadConfig": {
                    "SamplePayloadUrl": sample_payload_url,
                    "SupportedContentTypes": ["application/json"],
                },
                "SupportedEndpointType": "Serverless" if entry.get("type") == "serverless" else "RealTime",
            },
        },
        "StoppingConditions": {
            "MaxInvocations": max_invocations_per_minute,
            "ModelLatencyThresholds": [
                {
                    "Percentile": LATENCY_PERCENTILE,
                    "ValueInMilliseconds": latency_threshold_ms(slo_ttft_ms, slo_itl_ms, max_tokens),
                }
            ],
        },
    }
    _validate("CreateInferenceRecommendationsJob", request)
    return request


def _validate(operation: str, params: Mapping[str, Any]) -> None:
    from botocore.exceptions import ParamValidationError
    from botocore.validate import validate_parameters

    shape = _service_model().operation_model(operation).input_shape
    try:
        validate_parameters(dict(params), shape)
    except ParamValidationError as exc:
        raise InferenceConfigError(f"recommend-job: the request is invalid for {operation}: {exc}") from None


def resolve_model_name(sagemaker: Any, endpoint_name: str) -> str:
    """The model behind a deployed endpoint: DescribeEndpoint -> DescribeEndpointConfig -> first variant."""
    config_name = sagemaker.describe_endpoint(EndpointName=endpoint_name)["EndpointConfigName"]
    variants = sagemaker.describe_endpoint_config(EndpointConfigName=config_name)["ProductionVariants"]
    return str(variants[0]["ModelName"])


def submit(request: Mapping[str, Any], *, sagemaker: Any, s3: Any, payload: bytes) -> str:
    """Upload the sample payload to its ``s3://`` URL, create the job, return its ARN."""
    url = request["InputConfig"]["ContainerConfig"]["PayloadConfig"]["SamplePayloadUrl"]
    bucket, _, key = url.removeprefix("s3://").partition("/")
    s3.put_object(Bucket=bucket, Key=key, Body=payload, ContentType="application/gzip")
    return str(sagemaker.create_inference_recommendations_job(**request)["JobArn"])


def results_report(job: Mapping[str, Any]) -> dict[str, Any]:
    """A finished job's ``DescribeInferenceRecommendationsJob`` output as report rows (one per recommendation)."""
    rows = []
    for rec in job.get("InferenceRecommendations") or ():
        metrics = rec.get("Metrics") or {}
        config = rec.get("EndpointConfiguration") or {}
        rows.append(
            {
                "instance_type": config.get("InstanceType"),
                "instances": config.get("InitialInstanceCount"),
                "max_invocations_per_minute": metrics.get("MaxInvocations"),
                "model_latency_ms": metrics.get("ModelLatency"),
                "cost_per_hour_usd": metrics.get("CostPerHour"),
                "cost_per_inference_usd": metrics.get("CostPerInference"),
                "cpu_utilization_percent": metrics.get("CpuUtilization"),
                "memory_utilization_percent": metrics.get("MemoryUtilization"),
                "model_setup_time_s": metrics.get("ModelSetupTime"),
                "ttft_ms": None,
                "itl_ms": None,
                "output_tokens_per_s": None,
            }
        )
    for perf in job.get("EndpointPerformances") or ():
        metrics = perf.get("Metrics") or {}
        rows.append(
            {
                "endpoint": (perf.get("EndpointInfo") or {}).get("EndpointName"),
                "max_invocations_per_minute": metrics.get("MaxInvocations"),
                "model_latency_ms": metrics.get("ModelLatency"),
                "ttft_ms": None,
                "itl_ms": None,
                "output_tokens_per_s": None,
            }
        )
    return {
        "job": job.get("JobName"),
        "status": job.get("Status"),
        "failure_reason": job.get("FailureReason"),
        "recommendations": rows,
        "notes": [NOT_MEASURED_NOTE],
    }


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def results_table(report: Mapping[str, Any]) -> str:
    """The results as a terminal table."""
    cols = ("instance", "count", "max inv/min", "latency ms", "$/h", "$/inference", "cpu %", "mem %", "setup s")
    keys = (
        "instance_type",
        "instances",
        "max_invocations_per_minute",
        "model_latency_ms",
        "cost_per_hour_usd",
        "cost_per_inference_usd",
        "cpu_utilization_percent",
        "memory_utilization_percent",
        "model_setup_time_s",
    )
    rows = [list(cols)]
    for rec in report["recommendations"]:
        rows.append(
            ["-" if rec.get(k) is None else f"{rec[k]:g}" if isinstance(rec[k], float) else str(rec[k]) for k in keys]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = [f"inference recommender job {report['job']}: {report['status']}"]
    if report.get("failure_reason"):
        lines.append(f"failure: {report['failure_reason']}")
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines += [f"note: {n}" for n in report["notes"]]
    return "\n".join(lines) + "\n"


def to_json(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, default=str) + "\n"
