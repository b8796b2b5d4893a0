"""Observability for inference platforms: a SEARCH-based dashboard, alarms on one encrypted SNS topic, an X-Ray
sampling rule, and a validator for every CloudWatch expression a template carries.

See docs/observability.md.
"""

from __future__ import annotations

from inference_constructs.observability import metrics
from inference_constructs.observability.alarms import InferenceAlarms, check_alarm_settings
from inference_constructs.observability.dashboard import InferenceDashboard, check_dashboard_inputs
from inference_constructs.observability.targets import MonitoredEndpoint, MonitoredProfile
from inference_constructs.observability.tracing import XRaySamplingRule, check_sampling_rule
from inference_constructs.observability.validate import validate_dashboard_body, validate_template

__all__ = [
    "InferenceAlarms",
    "InferenceDashboard",
    "MonitoredEndpoint",
    "MonitoredProfile",
    "XRaySamplingRule",
    "check_alarm_settings",
    "check_dashboard_inputs",
    "check_sampling_rule",
    "metrics",
    "validate_dashboard_body",
    "validate_template",
]
