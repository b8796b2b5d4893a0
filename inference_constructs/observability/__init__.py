"""Observability for inference platforms: a SEARCH-based dashboard, alarms on one encrypted SNS topic, an X-Ray
sampling rule, Transaction Search, the cross-account observability sink and links, and a validator for every
CloudWatch expression a template carries.

See docs/observability.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from inference_constructs._lazy import lazy_exports
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.observability.validate import validate_dashboard_body, validate_template

if TYPE_CHECKING:
    from inference_constructs.observability import metrics
    from inference_constructs.observability.alarm_resources import RenderedAlarm, alarm_of
    from inference_constructs.observability.alarms import InferenceAlarms
    from inference_constructs.observability.cross_account import ObservabilityLink, ObservabilitySink
    from inference_constructs.observability.dashboard import InferenceDashboard
    from inference_constructs.observability.tracing import XRaySamplingRule
    from inference_constructs.observability.transaction_search import TransactionSearch

# The constructs and metric factories load aws_cdk on first use, so the pure modules (metric definitions,
# targets, the template validator) import without it.
_getattr, __dir__ = lazy_exports(
    __name__,
    {
        "InferenceAlarms": "inference_constructs.observability.alarms",
        **dict.fromkeys(("RenderedAlarm", "alarm_of"), "inference_constructs.observability.alarm_resources"),
        "InferenceDashboard": "inference_constructs.observability.dashboard",
        **dict.fromkeys(("ObservabilityLink", "ObservabilitySink"), "inference_constructs.observability.cross_account"),
        "TransactionSearch": "inference_constructs.observability.transaction_search",
        "XRaySamplingRule": "inference_constructs.observability.tracing",
        "metrics": "",
    },
)


def __getattr__(name: str) -> Any:
    """``metrics`` is a submodule; every other lazy name is an attribute of one (PEP 562)."""
    if name == "metrics":
        return importlib.import_module(f"{__name__}.metrics")
    return _getattr(name)


__all__ = [
    "InferenceAlarms",
    "InferenceDashboard",
    "MonitoredEndpoint",
    "MonitoredProfile",
    "ObservabilityLink",
    "ObservabilitySink",
    "RenderedAlarm",
    "TransactionSearch",
    "XRaySamplingRule",
    "alarm_of",
    "metrics",
    "validate_dashboard_body",
    "validate_template",
]
