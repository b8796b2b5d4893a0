"""Rules that span several keys of the config file and that only the file has (which keys are present, the
config's own blocks), checked on the raw data so that they are reported together with field-level problems
(one message for the whole file).

Rules that a decision guards live next to that decision, once, and the plan runs them with the config's key
paths: capacity and schedule bounds and provisioned concurrency in
:mod:`inference_constructs.scaling.decisions`; blocks of another endpoint type, ``multi_model`` and ``image``
required, ``model.s3_uri`` required for source s3 in :mod:`inference_constructs.hosting.checks`; reserved tag
prefixes in :mod:`inference_constructs.config.constraints`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from inference_constructs.config.schema import Endpoint, Model
from inference_constructs.errors import Problem

#: What an omitted key means (the schema's defaults, read from the models rather than written again).
_DEFAULT_TYPE = Endpoint.model_fields["type"].default.value
_DEFAULT_SOURCE = Model.model_fields["source"].default.value


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cross_field_problems(data: dict[str, Any]) -> list[Problem]:
    """Every cross-field problem in ``data`` (lines ``<key path>: <what>; <fix>``; kind ``conflict`` unless
    said otherwise)."""
    return [Problem.of(p, "conflict") for p in _problems(data)]


def _problems(data: dict[str, Any]) -> Iterator[str]:
    endpoints = _list(data.get("endpoints"))
    yield from _duplicates("endpoints", [_dict(e).get("name") for e in endpoints], "endpoint names must be unique")
    for i, raw in enumerate(endpoints):
        yield from _endpoint_problems(f"endpoints[{i}]", _dict(raw))
    profiles = _list(_dict(data.get("bedrock")).get("profiles"))
    yield from _duplicates(
        "bedrock.profiles",
        [_dict(p).get("name") for p in profiles],
        "application inference profile names must be unique",
    )
    cost = _dict(data.get("cost"))
    budget = _dict(cost.get("budget"))
    if budget.get("monthly_limit_usd") is None:
        for key in ("notify_email", "deny_role_arns", "scope"):
            if budget.get(key):
                yield f"cost.budget.{key}: needs cost.budget.monthly_limit_usd; set the monthly limit or remove {key}"
    if budget.get("deny_role_arns") and budget.get("monthly_limit_usd") is not None and not budget.get("notify_email"):
        yield (
            "cost.budget.notify_email: is required when deny_role_arns is set (a budget action needs a subscriber); "
            "set an address that is told when the deny policy is applied"
        )
    if "deny_new_endpoints_at_percent" in budget and not budget.get("deny_role_arns"):
        yield (
            "cost.budget.deny_new_endpoints_at_percent: has no effect without cost.budget.deny_role_arns; "
            "list the roles to freeze, or remove it"
        )
    monitor = _dict(cost.get("anomaly_monitor"))
    for key, what in (("threshold_usd", "the monitor is"), ("existing_monitor_arn", "the subscription is")):
        if key in monitor and not monitor.get("notify_email"):
            yield (
                f"cost.anomaly_monitor.{key}: {what} created only with notify_email; "
                f"set cost.anomaly_monitor.notify_email, or remove {key}"
            )
    observability = _dict(data.get("observability"))
    if observability.get("source_account_ids") and observability.get("dashboard") is False:
        yield (
            "observability.source_account_ids: only the dashboard searches other accounts, and dashboard is false; "
            "set dashboard: true, or remove source_account_ids"
        )


def _duplicates(path: str, names: list[Any], why: str) -> Iterator[str]:
    counts = Counter(n for n in names if isinstance(n, str))
    for index, name in enumerate(names):
        if isinstance(name, str) and counts[name] > 1 and names.index(name) != index:
            yield Problem(f"{path}[{index}].name", f"{name!r} is used more than once", why, "duplicate")


def _endpoint_problems(path: str, ep: dict[str, Any]) -> Iterator[str]:
    kind = ep.get("type", _DEFAULT_TYPE)
    components = _list(ep.get("components"))
    if not components:
        yield from _model_problems(path, _dict(ep.get("model")), kind)
    elif "model" in ep:
        yield f"{path}.model: an endpoint with components gives each component its model; move it under components"
    for i, component in enumerate(components):
        yield from _model_problems(f"{path}.components[{i}]", _dict(_dict(component).get("model")), kind)
    names = [_dict(c).get("name") for c in (*components, *_list(ep.get("adapters")))]
    yield from _duplicates(f"{path}.components", names, "component and adapter names must be unique")
    if kind == "serverless" and "capacity" in ep:
        yield (
            f"{path}.capacity: serverless endpoints have no instances to count; size them with "
            "serverless.max_concurrency and serverless.provisioned_concurrency, and remove capacity"
        )
    capture = _dict(ep.get("data_capture"))
    if _int(capture.get("sampling_percent")) and not capture.get("s3_uri"):
        yield f"{path}.data_capture.s3_uri: required when sampling_percent > 0; give an s3:// destination"


def _model_problems(path: str, model: dict[str, Any], kind: Any) -> Iterator[str]:
    """The cross-field problems of one ``model`` block (the endpoint's, or a component's)."""
    source = model.get("source", _DEFAULT_SOURCE)
    if model.get("s3_uri") and source != "s3":
        yield f"{path}.model.s3_uri: only used with model.source s3; set source: s3, or remove s3_uri"
    if model.get("s3_uri") and kind == "multi-model":
        yield (
            f"{path}.model.s3_uri: multi-model endpoints load models from multi_model.model_data_prefix; "
            "remove model.s3_uri"
        )
    if source == "huggingface" and not model.get("id"):
        yield f"{path}.model.id: required when model.source is huggingface; give the Hugging Face model id"
