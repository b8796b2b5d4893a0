"""The plan document's entry of one endpoint, in parts: what the sizing chose (:func:`host_entry`, or
:func:`serverless_entry` when there is no host), the container and the hosting settings. ``EndpointDecisions.to_json``
puts them together in the order ``docs/config.md`` ("The plan") shows.
"""

from __future__ import annotations

from typing import Any

from inference_constructs.hosting.decisions import EndpointPlan
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import Accelerator

__all__ = ["container_entry", "host_entry", "hosting_entry", "serverless_entry"]


def serverless_entry(hosting: EndpointPlan) -> dict[str, Any]:
    """The sizing fields of a serverless endpoint: no host, CPU compute billed per request."""
    memory = hosting.serverless.memory_mb if hosting.serverless else None
    return {
        "instance_type": None,
        "accelerator": Accelerator.CPU.value,
        "devices": 0,
        "memory_required_gb": None,
        "memory_available_gb": round(memory / 1024, 2) if memory else None,
        "tensor_parallel_degree": 1,
        "price_per_hour_usd": None,
        "monthly_usd_at_min": None,
        "monthly_usd_at_max": None,
        "reason": "serverless: SageMaker provides CPU compute per request and bills per request duration "
        "and memory, so there is no host to choose and no idle instance cost",
        "rejected": [],
    }


def host_entry(
    host: HostDecision, *, monthly_usd_at_min: float | None, monthly_usd_at_max: float | None
) -> dict[str, Any]:
    """The sizing fields of an instance-backed endpoint: the host, its devices and memory, its price, why it was
    chosen, what was rejected, and the cheaper dtype the sizing hints at."""
    entry: dict[str, Any] = {
        "instance_type": host.instance.name,
        "accelerator": host.accelerator.value,
        "devices": host.devices,
        "memory_required_gb": round(host.memory_required_gb, 2),
        "memory_available_gb": round(host.memory_available_gb, 2),
        "tensor_parallel_degree": host.tensor_parallel_degree,
        "price_per_hour_usd": round(host.price_per_hour_usd, 4),
        "monthly_usd_at_min": monthly_usd_at_min,
        "monthly_usd_at_max": monthly_usd_at_max,
        "reason": host.reason,
        "rejected": [{"instance_type": r.instance_type, "reason": r.reason} for r in host.rejected],
        # Every cheaper host passed over, per reason ("rejected" lists a few of each).
        "passed_over": {kind.value: n for kind, n in host.passed_over},
        "weights_gb": round(host.weights_gb, 2),
        "kv_cache_gb": round(host.kv_cache_gb, 2),
        "price_is_estimate": host.instance.price_is_estimate,
        "architecture": host.architecture.to_dict() if host.architecture else None,
        "tensor_parallel": {
            "degree": host.tensor_parallel_degree,
            "attention_heads_per_shard": host.heads_per_shard,
            "kv_heads_per_shard": host.kv_heads_per_shard,
            "padding_gb": host.padding_gb,
            "rejected_degrees": list(host.degree_rejections),
        },
        "margin_gb": round(host.margin_gb, 2),
        "kv_cache": host.kv.to_dict() if host.kv else None,
        "host_ram_required_gb": round(host.host_ram_required_gb, 2),
        "dtype_note": host.dtype_note or None,
    }
    if host.draft_weights_gb:  # only with speculative decoding, so other plans keep their shape
        entry["draft_model"] = {
            "weights_gb": round(host.draft_weights_gb, 2),
            "kv_cache_gb": round(host.draft_kv_cache_gb, 2),
        }
    if host.lora is not None:  # only on a base component with adapters, so other plans keep their shape
        entry["lora_adapters"] = host.lora.to_dict()
    hint = host.quantization_hint
    entry["quantization_hint"] = (
        None
        if hint is None
        else {
            "dtype": hint.dtype.value,
            "instance_type": hint.instance_type,
            "price_per_hour_usd": hint.price_per_hour_usd,
            "saving_percent": hint.saving_percent,
            "caveat": hint.caveat,
        }
    )
    return entry


def container_entry(h: EndpointPlan) -> dict[str, Any]:
    """The container: its image, environment, timeouts and routing strategy (with the prefix-aware routing values
    and the serving options' variables when the endpoint sets them)."""
    entry: dict[str, Any] = {
        "image": h.image.key if h.image else h.custom_image,
        "environment": dict(h.environment),
        "model_data_download_timeout_seconds": h.model_data_download_timeout_seconds,
        "container_startup_health_check_timeout_seconds": h.container_startup_health_check_timeout_seconds,
        "routing_strategy": h.routing_strategy,
    }
    if h.prefix_aware_routing is not None:
        entry["prefix_aware_routing"] = h.prefix_aware_routing.to_dict()
    if h.serving_options is not None:
        entry["serving_options"] = h.serving_options.to_dict()
    return entry


def hosting_entry(h: EndpointPlan) -> dict[str, Any]:
    """The endpoint's variant, storage, encryption, network and data settings for the plan document."""
    a, c, v = h.async_inference, h.data_capture, h.vpc
    entry: dict[str, Any] = {
        "variant_name": h.variant_name,
        "initial_instance_count": h.initial_instance_count,
        "volume_size_gb": h.volume_size_gb,
        "kms_key_arn": h.kms_key_arn,
        "kms_omitted_reason": h.kms_omitted_reason,
        "inference_ami_version": h.inference_ami_version,
        "inference_ami": h.host_ami.to_dict(),
        "network_isolation": h.network_isolation,
        "vpc": None
        if v is None
        else {"subnet_ids": list(v.subnet_ids), "security_group_ids": list(v.security_group_ids)},
        "model_data": {
            "kind": h.model_data.kind.value,
            "uri": h.model_data.uri,
            # Staged hub weights: the stack's data bucket is created with the stack, so only the key prefix is known.
            "staged_key_prefix": h.model_data.staging.key_prefix if h.model_data.staging else None,
        },
        "multi_model_cache": None if h.multi_model is None else h.multi_model.cache,
        "async_inference": (
            None
            if a is None
            else {
                # As written: without a trailing slash; null = the stack's data bucket under async/<endpoint>.
                "output_s3_uri": a.output_s3_uri.rstrip("/") if a.output_s3_uri else None,
                "notifications": a.notifications,
                "max_concurrent_invocations_per_instance": h.max_concurrent_invocations_per_instance,
            }
        ),
        "data_capture": (
            None
            if c is None or not h.data_capture_enabled
            else {"sampling_percent": c.sampling_percent, "s3_uri": c.s3_uri.rstrip("/") if c.s3_uri else None}
        ),
    }
    # Present only when configured (an endpoint without them plans as before).
    if h.instance_pools is not None:
        entry["instance_pools"] = h.instance_pools.to_dict(h.capacity.min, h.capacity.max)
    if h.capacity_reservation is not None:
        entry["capacity_reservation"] = h.capacity_reservation.to_dict()
    if h.metrics_config is not None:
        entry["metrics_config"] = h.metrics_config.to_dict()
    return entry
