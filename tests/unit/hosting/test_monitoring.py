"""The dashboard and the alarms take the endpoint and profile constructs themselves (built or imported)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aws_cdk import App, Environment, Stack
from aws_cdk.assertions import Template

from inference_constructs import (
    ApplicationInferenceProfile,
    Capacity,
    InferenceAlarms,
    InferenceDashboard,
    InferenceEndpoint,
    ModelSpec,
    MonitoredEndpoint,
    MonitoredProfile,
    RealtimeEndpoint,
)
from inference_constructs.spec import EndpointKind

ENV = Environment(account="111122223333", region="us-east-1")
OTHER_ACCOUNT_ARN = "arn:aws:sagemaker:us-east-1:444455556666:endpoint/team-b-chat"
QWEN = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6)


def _alarm_dimensions(template: Mapping[str, Any]) -> list[tuple[str | None, dict[str, str]]]:
    """(AccountId, dimensions) of every metric every alarm reads."""
    found = []
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::CloudWatch::Alarm":
            continue
        for query in resource["Properties"].get("Metrics", []):
            if "MetricStat" in query:
                metric = query["MetricStat"]["Metric"]
                found.append((query.get("AccountId"), {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}))
    return found


def test_monitored_endpoint_of_a_built_endpoint_reads_what_the_plan_decided() -> None:
    # GIVEN a real-time GPU endpoint and a scale-to-zero one (hosted through an inference component)
    stack = Stack(App(), "S")
    chat = RealtimeEndpoint(stack, "Chat", model=QWEN)
    idle = RealtimeEndpoint(stack, "Idle", model=QWEN, capacity=Capacity(0, 2))
    # WHEN described for monitoring
    chat_seen, idle_seen = MonitoredEndpoint.of(chat), MonitoredEndpoint.of(idle)
    # THEN the name, variant, kind, GPU count, instance type and inference component are the endpoint's own
    assert chat_seen == MonitoredEndpoint(
        name=chat.endpoint_name,
        variant_name="AllTraffic",
        kind=EndpointKind.REALTIME,
        gpu_count=chat.gpu_count,
        instance_type=chat.instance_type,
    )
    assert chat_seen.gpu_count >= 1
    assert idle.inference_component is not None
    assert idle_seen.inference_component_name == idle.inference_component.inference_component_name


def test_dashboard_and_alarms_take_built_imported_and_profile_constructs() -> None:
    # GIVEN a built endpoint, an endpoint imported by ARN from another account, and a profile
    stack = Stack(App(), "S", env=ENV)
    chat = RealtimeEndpoint(stack, "Chat", model=QWEN)
    team_b = InferenceEndpoint.from_endpoint_arn(stack, "TeamB", OTHER_ACCOUNT_ARN)
    profile = ApplicationInferenceProfile(
        stack, "TeamA", name="team-a", model="us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    )
    # WHEN the constructs themselves are given to the dashboard and the alarms
    InferenceDashboard(stack, "Dashboard", endpoints=[chat, team_b], profiles=[profile])
    InferenceAlarms(stack, "Alarms", endpoints=[chat, team_b], profiles=[profile])
    template = Template.from_stack(stack).to_json()
    # THEN the alarms watch each endpoint on its own dimensions, the imported one in the ARN's account,
    # the profile on its id, and the dashboard has the built endpoint's per-GPU graph
    seen = _alarm_dimensions(template)
    assert (None, {"EndpointName": chat.endpoint_name, "VariantName": "AllTraffic"}) in seen
    assert ("444455556666", {"EndpointName": "team-b-chat", "VariantName": "AllTraffic"}) in seen
    profile_id = stack.resolve(profile.profile_id)
    assert (None, {"ModelId": profile_id}) in seen
    (dashboard,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    assert f"gpuutilization/{chat.gpu_count}" in body
    assert MonitoredProfile.of(profile) == MonitoredProfile(
        name="team-a", profile_id=profile.profile_id, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    )


def test_an_imported_endpoint_in_the_stacks_own_account_is_read_from_that_account() -> None:
    # GIVEN an endpoint imported by ARN from the stack's own account
    stack = Stack(App(), "S", env=ENV)
    own = InferenceEndpoint.from_endpoint_arn(stack, "Own", OTHER_ACCOUNT_ARN.replace("444455556666", "111122223333"))
    # WHEN described for monitoring THEN no account is set (the metrics are this account's)
    assert MonitoredEndpoint.of(own).account_id is None
    assert MonitoredEndpoint.of(own, account_id="444455556666").account_id == "444455556666"
