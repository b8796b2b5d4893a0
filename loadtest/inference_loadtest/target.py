"""What a load test runs against: a SageMaker endpoint or a Bedrock profile, named directly or from the plan.

From the plan (``cdk.out/inference-plan.json``, or a config file planned on the spot) the target gets the
deployed endpoint name (``<platform>-<endpoint>``), the request and stream format of its container, the
instance price and count for cost per token, and the concurrency scaling target the knee is compared with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from inference_constructs.errors import InferenceConfigError
from inference_loadtest.formats import StreamFormat, format_for_image
from inference_loadtest.stats import Pricing


class Api(StrEnum):
    """The runtime API a load test calls."""

    STREAM = "InvokeEndpointWithResponseStream"
    INVOKE = "InvokeEndpoint"
    ASYNC = "InvokeEndpointAsync"
    CONVERSE_STREAM = "ConverseStream"


@dataclass(frozen=True)
class Target:
    """A resolved load-test target."""

    api: Api
    identifier: str
    """SageMaker endpoint name, or the Bedrock profile ID/ARN (``modelId``)."""
    format: StreamFormat
    pricing: Pricing
    scaling_target: float | None = None
    """The plan's concurrency-per-instance target tracking value, when the endpoint has one."""
    target_key: str | None = None
    """The config key path of that value, e.g. ``endpoints[0].scaling.concurrency_per_instance``."""
    profile_name: str | None = None
    """A plan profile name still to be resolved to its ARN (application profiles get a generated ID)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "api": self.api.value,
            "identifier": self.identifier,
            "format": self.format.value,
            "price_per_hour_usd": self.pricing.price_per_hour_usd,
            "instances": self.pricing.instances,
            "pricing_source": self.pricing.source,
            "scaling_target": self.scaling_target,
            "target_key": self.target_key,
        }


def load_plan(path: str | Path) -> dict[str, Any]:
    """A plan document: the JSON synth writes, or a config file (.yaml/.yml) planned now without synth."""
    p = Path(path)
    if p.suffix in (".yaml", ".yml"):
        from inference_constructs.config import load_config
        from inference_constructs.plan import plan_platform

        doc: Any = json.loads(plan_platform(load_config(p)).to_json_text())
        return dict(doc)
    try:
        doc = json.loads(p.read_text())
    except OSError as exc:
        raise InferenceConfigError(f"--plan: cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise InferenceConfigError(
            f"--plan: {path} is not JSON; use cdk.out/inference-plan.json or a config .yaml"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("endpoints"), list):
        raise InferenceConfigError(f"--plan: {path} is not a plan document (no endpoints list)")
    return doc


def plan_endpoint(plan: Mapping[str, Any], name: str) -> tuple[int, Mapping[str, Any]]:
    """The index and plan entry of endpoint ``name`` (the config name, or the deployed ``<platform>-<name>``).

    Raises
    ------
    InferenceConfigError
        Naming the endpoints the plan has.
    """
    entries = list(plan.get("endpoints") or ())
    for index, entry in enumerate(entries):
        if name in (entry.get("name"), f"{plan.get('name')}-{entry.get('name')}"):
            return index, entry
    known = ", ".join(str(e.get("name")) for e in entries) or "none"
    raise InferenceConfigError(f"--endpoint: {name!r} is not an endpoint of the plan; use one of: {known}")


def _concurrency_target(entry: Mapping[str, Any]) -> float | None:
    for policy in (entry.get("scaling") or {}).get("policies") or ():
        if policy.get("policy") == "Concurrency" and policy.get("target_value") is not None:
            return float(policy["target_value"])
    return None


def resolve_target(
    *,
    endpoint: str | None,
    profile: str | None,
    plan: Mapping[str, Any] | None = None,
    fmt: StreamFormat = StreamFormat.AUTO,
    stream: bool | None = None,
    instances: int | None = None,
    price_per_hour_usd: float | None = None,
    asynchronous: bool = False,
) -> Target:
    """Resolve the command line's target against the plan (``asynchronous``: an endpoint named directly is async).

    Raises
    ------
    InferenceConfigError
        Without exactly one of ``endpoint`` / ``profile``, or for a plan endpoint the test cannot drive.
    """
    if bool(endpoint) == bool(profile):
        raise InferenceConfigError(
            "loadtest: name exactly one target; use --endpoint NAME (SageMaker) or --profile ID_OR_ARN (Bedrock)"
        )
    if profile:
        names = {p.get("name") for p in (plan or {}).get("bedrock") or ()}
        pricing = Pricing(price_per_hour_usd, None, "--price-per-hour" if price_per_hour_usd else "none")
        if price_per_hour_usd is not None:
            pricing = Pricing(price_per_hour_usd, instances or 1, "--price-per-hour")
        return Target(
            api=Api.CONVERSE_STREAM,
            identifier=profile,
            format=StreamFormat.AUTO,
            pricing=pricing,
            profile_name=profile if profile in names else None,
        )
    assert endpoint is not None
    if plan is not None:
        index, entry = plan_endpoint(plan, endpoint)
        return _from_plan(
            index=index,
            entry=entry,
            platform=str(plan.get("name")),
            fmt=fmt,
            stream=stream,
            instances=instances,
            price=price_per_hour_usd,
        )
    return Target(
        api=Api.ASYNC if asynchronous else Api.INVOKE if stream is False else Api.STREAM,
        identifier=endpoint,
        format=fmt,
        pricing=Pricing(price_per_hour_usd, instances or 1 if price_per_hour_usd else instances, "--price-per-hour"),
    )


def _from_plan(
    *,
    index: int,
    entry: Mapping[str, Any],
    platform: str,
    fmt: StreamFormat,
    stream: bool | None,
    instances: int | None,
    price: float | None,
) -> Target:
    path = f"endpoints[{index}]"
    kind = entry.get("type")
    if kind in ("async", "serverless", "multi-model") and stream:
        raise InferenceConfigError(f"--stream: {path} is a {kind} endpoint; response streaming needs a realtime one")
    image_format = format_for_image((entry.get("container") or {}).get("image"))
    use_stream = stream if stream is not None else (image_format is not None and kind == "realtime")
    capacity = entry.get("capacity") or {}
    count = instances if instances is not None else max(int(capacity.get("min") or 1), 1)
    source = "plan price_per_hour_usd x " + ("--instances" if instances is not None else "capacity.min")
    hourly = price if price is not None else entry.get("price_per_hour_usd")
    if kind == "serverless":
        hourly, source = price, "serverless is billed per request duration, not per instance hour"
    return Target(
        api=Api.ASYNC if kind == "async" else Api.STREAM if use_stream else Api.INVOKE,
        identifier=f"{platform}-{entry.get('name')}",
        format=fmt if fmt is not StreamFormat.AUTO else (image_format or StreamFormat.AUTO),
        pricing=Pricing(float(hourly) if hourly else None, count, source),
        scaling_target=_concurrency_target(entry),
        target_key=f"{path}.scaling.concurrency_per_instance",
    )
