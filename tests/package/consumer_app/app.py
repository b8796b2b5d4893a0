"""A CDK app of a platform team that installed the wheel: each construct used the way the README shows, with the
compliance gates on. Run by tests/package/test_consumer.py in a clean venv, and type-checked with mypy --strict."""

from __future__ import annotations

import json

from aws_cdk import App, Duration, Stack
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam

from inference_constructs import (
    ApplicationInferenceProfile,
    DType,
    IInferenceEndpoint,
    InferenceAlarms,
    InferenceDashboard,
    InferenceEndpoint,
    ModelSourceKind,
    ModelSpec,
    MonitoredEndpoint,
    RealtimeEndpoint,
    ServerlessEndpoint,
    alarm_of,
)
from inference_constructs.compliance import add_compliance_gates

app = App()
add_compliance_gates(app)
stack = Stack(app, "Consumer")

# Strings where the YAML has strings, a tuple for capacity
chat = RealtimeEndpoint(
    stack,
    "Chat",
    model=ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6, dtype=DType.BF16),
    serving="lmi",
    accelerator="gpu",
    capacity=(1, 3),
)
chat.auto_scale().scale_on_concurrency(per_instance=6)

churn_role = iam.Role(stack, "ChurnRole", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"))
churn = ServerlessEndpoint(
    stack,
    "Churn",
    model=ModelSpec(source=ModelSourceKind.S3, s3_uri="s3://my-models/churn/model.tar.gz"),
    role=churn_role,
)
team_b = InferenceEndpoint.from_endpoint_name(stack, "TeamB", "team-b-chat")
profile = ApplicationInferenceProfile(
    stack,
    "TeamA",
    name="team-a-sonnet",
    model="us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    tags={"team": "team-a"},
)

caller = iam.Role(stack, "Caller", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
endpoints: list[IInferenceEndpoint] = [chat, churn, team_b]
for endpoint in endpoints:
    endpoint.grant_invoke(caller)
profile.grant_invoke(caller)

latency = chat.metric_model_latency(statistic="p50", period=Duration.minutes(5))
team_b_errors = team_b.metric_invocation_5xx_errors(period=Duration.minutes(5))
tokens = profile.metric_output_token_count(period=Duration.hours(1))
InferenceDashboard(stack, "Dashboard", endpoints=endpoints, profiles=[profile])
alarms = InferenceAlarms(stack, "Alarms", endpoints=endpoints, profiles=[profile])
alarm_of(chat.rollback_alarms[0]).add_alarm_action(actions.SnsAction(alarms.topic))

app.synth()
print(
    json.dumps(
        {
            "instance_type": chat.instance_type,
            "capacity": [chat.capacity.min, chat.capacity.max],
            "monitored": MonitoredEndpoint.of(team_b).name,
            "latency": latency.statistic,
            "team_b_errors": [team_b_errors.metric_name, (team_b_errors.dimensions or {})["EndpointName"]],
            "tokens_period_minutes": tokens.period.to_minutes(),
        }
    )
)
