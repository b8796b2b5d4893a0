"""The plan's platform sections, which the stacks build from without reading the config: name, environment and
tags, the observability section (alarm subscription, thresholds, dashboard, every alarm), the cost section and
the typed Bedrock entries."""

from __future__ import annotations

import pytest

from inference_constructs.bedrock.plan_sections import InvocationLoggingPlan, ProfilePlan
from inference_constructs.config import parse_config
from inference_constructs.plan import PlatformPlan, plan_platform

PLATFORM = """
name: acme
account: "111122223333"
region: us-east-1
tags: {team: ml}
endpoints:
  - name: chat
    model: {id: org/chat-8b, parameters_billion: 8, max_context_tokens: 8192, max_concurrent_sequences: 16}
    serving: lmi
    accelerator: gpu
    capacity: {min: 1, max: 2}
  - name: churn
    type: serverless
    serving: sklearn
    model: {source: s3, s3_uri: "s3://acme-models/churn.tar.gz"}
    serverless: {memory_mb: 3072}
bedrock:
  profiles:
    - name: team-a
      model: anthropic.claude-3-haiku-20240307-v1:0
      tags: {owner: team-a}
  invocation_logging: {s3: true}
observability:
  alarm_email: oncall@example.com
  anomaly_std_devs: 3
  xray_sampling: {service_name: api, fixed_rate: 0.2}
cost:
  activate_cost_allocation_tags: [team]
  budget:
    monthly_limit_usd: 1000
    notify_email: finops@example.com
    deny_new_endpoints_at_percent: 150
    deny_role_arns: ["arn:aws:iam::111122223333:role/ml-deployer"]
  anomaly_monitor: {notify_email: finops@example.com, threshold_usd: 50}
"""


@pytest.fixture(scope="module")
def plan() -> PlatformPlan:
    return plan_platform(parse_config(PLATFORM))


def test_the_environment_and_tags_are_plan_fields(plan: PlatformPlan) -> None:
    assert (plan.name, plan.account, plan.region) == ("acme", "111122223333", "us-east-1")
    assert plan.tags == {"inference:platform": "acme", "team": "ml"}
    doc = plan.to_json()
    assert (doc["account"], doc["tags"]) == ("111122223333", {"inference:platform": "acme", "team": "ml"})


def test_each_endpoint_lists_its_alarms_with_the_configured_band(plan: PlatformPlan) -> None:
    chat, churn = plan.to_json()["endpoints"]
    # THEN the alarms are named after the SageMaker endpoint name and use the config's band width
    assert [a["construct"] for a in chat["alarms"]] == [
        "Alarms/AcmeChatModelLatencyP99Anomaly",
        "Alarms/AcmeChatInvocationsAnomaly",
        "Alarms/AcmeChat5xxErrorRate",
    ]
    assert {a["std_devs"] for a in chat["alarms"] if a["kind"] == "anomaly"} == {3}
    # AND the serverless endpoint's cold-start alarm is there, in microseconds
    (cold,) = [a for a in churn["alarms"] if a["metric"] == "ModelSetupTime"]
    assert cold["threshold"] == 60_000_000


def test_the_observability_section_holds_what_the_stacks_build(plan: PlatformPlan) -> None:
    obs = plan.to_json()["observability"]
    assert obs["alarm_email"] == "oncall@example.com"
    assert obs["dashboard"] == {"gpu_endpoints": ["acme-chat"], "profiles": ["team-a"], "source_account_ids": []}
    assert obs["xray_sampling"]["fixed_rate"] == 0.2
    assert [a["construct"] for a in obs["alarms"]] == ["Alarms/TeamAOutputTokensAnomaly"]
    # the invocation log bucket also takes CloudWatch Logs' large objects: three delivery paths can fail
    assert [a["metric"] for a in obs["governance_alarms"]] == [
        "ModelInvocationLogsS3DeliveryFailure",
        "ModelInvocationLogsCloudWatchDeliveryFailure",
        "ModelInvocationLargeDataS3DeliveryFailure",
    ]
    assert obs["governance_dashboard"] is True


def test_the_cost_section_holds_the_budget_subscription_and_required_keys(plan: PlatformPlan) -> None:
    cost = plan.to_json()["cost"]
    assert cost["budget"] == {
        "monthly_limit_usd": 1000,
        "notify_emails": ["finops@example.com"],
        "notify_at_percent": [80, 100],
        "deny_role_arns": ["arn:aws:iam::111122223333:role/ml-deployer"],
        "deny_at_percent": 150,
        "metrics": ["UnblendedCost"],
    }
    assert cost["anomaly_subscription"] == {
        "notify_email": "finops@example.com",
        "threshold_usd": 50,
        "frequency": "DAILY",
    }
    assert cost["required_tag_keys"] == ["team"]
    assert cost["tag_activation_alarm"]["evaluation_periods"] == 8
    assert plan.cost.needs_stack


def test_without_cost_settings_no_cost_stack_is_planned() -> None:
    plan = plan_platform(parse_config("name: bare\n"))
    assert not plan.cost.needs_stack
    assert plan.cost.tag_activation_alarm is None
    assert plan.to_json()["observability"]["governance_alarms"] == []


def test_bedrock_entries_are_typed_and_render_the_documented_keys(plan: PlatformPlan) -> None:
    (profile,) = plan.bedrock
    assert isinstance(profile, ProfilePlan)
    assert isinstance(plan.bedrock_invocation_logging, InvocationLoggingPlan)
    entry = plan.to_json()["bedrock"][0]
    assert (entry["name"], entry["tags"], entry["source_kind"]) == ("team-a", {"owner": "team-a"}, "foundation-model")
    assert plan.to_json()["bedrock_invocation_logging"]["destinations"] == ["s3", "cloudwatch_logs"]
