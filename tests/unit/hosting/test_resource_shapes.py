"""The profile is a CDK Resource with aws-cdk MetricOptions on its metrics; an endpoint imported by ARN from another
account or Region is measured there."""

from __future__ import annotations

from aws_cdk import App, Duration, Environment, RemovalPolicy, Resource, Stack
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk.assertions import Template

from inference_constructs import ApplicationInferenceProfile, InferenceEndpoint

ENV = Environment(account="111122223333", region="us-east-1")
HAIKU = "anthropic.claude-3-haiku-20240307-v1:0"


def test_the_profile_is_a_resource_whose_default_child_is_the_profile() -> None:
    # GIVEN a profile WHEN its removal policy is set THEN it is a Resource and the L1 profile is retained
    stack = Stack(App(), "S")
    profile = ApplicationInferenceProfile(stack, "TeamA", name="team-a", model=HAIKU)
    profile.apply_removal_policy(RemovalPolicy.RETAIN)
    assert isinstance(profile, Resource)
    assert isinstance(profile.node.default_child, bedrock.CfnApplicationInferenceProfile)
    retained = Template.from_stack(stack).find_resources(
        "AWS::Bedrock::ApplicationInferenceProfile", {"DeletionPolicy": "Retain"}
    )
    assert len(retained) == 1


def test_profile_metrics_take_the_aws_cdk_metric_options() -> None:
    # GIVEN a profile WHEN its metrics are asked with MetricOptions
    stack = Stack(App(), "S")
    profile = ApplicationInferenceProfile(stack, "TeamA", name="team-a", model=HAIKU)
    tokens = profile.metric_output_token_count(period=Duration.hours(1), label="tokens", color="#ff0000")
    latency = profile.metric_invocation_latency(statistic="p99")
    default = profile.metric_time_to_first_token()
    # THEN the options override the defaults, and the defaults stay where none is given
    assert (tokens.statistic, tokens.period.to_minutes(), tokens.label, tokens.color) == (
        "Sum",
        60,
        "tokens",
        "#ff0000",
    )
    assert (latency.statistic, latency.period.to_minutes()) == ("p99", 5)
    assert (default.statistic, stack.resolve(default.dimensions)) == (
        "Average",
        {"ModelId": stack.resolve(profile.profile_id)},
    )


def test_an_endpoint_imported_from_another_account_and_region_is_measured_there() -> None:
    # GIVEN endpoints imported by ARN from another account and Region, and from the stack's own
    stack = Stack(App(), "S", env=ENV)
    far = InferenceEndpoint.from_endpoint_arn(stack, "Far", "arn:aws:sagemaker:eu-west-1:444455556666:endpoint/chat")
    near = InferenceEndpoint.from_endpoint_arn(stack, "Near", "arn:aws:sagemaker:us-east-1:111122223333:endpoint/chat")
    # WHEN their metrics are made
    far_latency, near_latency = far.metric_model_latency(), near.metric_model_latency()
    # THEN the far one's carry the ARN's account and Region (an option still wins), the near one's none
    assert (far_latency.account, far_latency.region) == ("444455556666", "eu-west-1")
    assert far.metric_invocations(region="eu-central-1").region == "eu-central-1"
    assert (near_latency.account, near_latency.region) == (None, None)
    graph = cloudwatch.GraphWidget(left=[far_latency])
    rendered = stack.resolve(graph.to_json())
    assert {"accountId": "444455556666", "region": "eu-west-1"}.items() <= rendered[0]["properties"]["metrics"][0][
        -1
    ].items()
