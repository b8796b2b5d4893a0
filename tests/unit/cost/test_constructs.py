"""Cost constructs: tags and the required-tags check, tag activation, budget guardrail, anomaly monitor.

Every template is synthesized with the AwsSolutions, NIST 800-53 R5 and HIPAA packs as validation
plugins (any unacknowledged finding fails ``app.synth()``) and linted by cfn-lint with zero findings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from aws_cdk import App, AspectPriority, Aspects, Stack
from aws_cdk import aws_sagemaker as sagemaker
from aws_cdk.assertions import Annotations, Match, Template
from cfnlint.api import ManualArgs, lint  # type: ignore[import-untyped]

from inference_constructs.compliance import add_compliance_gates
from inference_constructs.cost import (
    BudgetGuardrail,
    CostAllocationTagActivation,
    CostAnomalyMonitor,
    RequireCostTags,
    apply_cost_tags,
    capacity_tags,
    tag_activation,
)
from inference_constructs.cost.budget import DENIED_ACTIONS
from inference_constructs.cost.decisions import monitor_expression, platform_expression
from inference_constructs.errors import InferenceConfigError

TEAM_TAGS = {"team": "ml-platform", "cost-center": "4711"}
DEPLOYER = "arn:aws:iam::123456789012:role/deployer"
PIPELINE = "arn:aws:iam::123456789012:role/ci/pipeline"
KEYS = ["team", "cost-center", "inference:capacity"]


def _synth(tmp_path: Path, build: Callable[[Stack], object]) -> Template:
    """Synthesize ``build`` with the nag packs on; assert cfn-lint reports nothing."""
    app = App(outdir=str(tmp_path))
    add_compliance_gates(app)
    stack = Stack(app, "Cost")
    build(stack)
    apply_cost_tags(app, TEAM_TAGS)
    app.synth()  # raises ValidationFailed on any unacknowledged nag finding
    template = Template.from_stack(stack)
    findings = lint(json.dumps(template.to_json()), config=ManualArgs(regions=["us-east-1"]))
    assert [str(f) for f in findings] == []
    return template


def _tag_activation(stack: Stack) -> CostAllocationTagActivation:
    return CostAllocationTagActivation(stack, "TagActivation", tag_keys=["team", "cost-center", "inference:capacity"])


def _guardrail(stack: Stack) -> BudgetGuardrail:
    return BudgetGuardrail(
        stack,
        "Budget",
        monthly_limit_usd=5000,
        notify_emails=["finops@example.com"],
        deny_role_arns=[DEPLOYER, PIPELINE],
        deny_at_percent=90,
    )


# --- tags -----------------------------------------------------------------------------------------


def test_team_and_capacity_tags_reach_the_endpoint(tmp_path: Path) -> None:
    # GIVEN an endpoint tagged with its baseline/burst split and the app tagged with team tags
    def build(stack: Stack) -> None:
        endpoint = sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_config_name="chat-config")
        apply_cost_tags(endpoint, capacity_tags(1, 4, price_per_hour_usd=1.515))

    # WHEN synthesized
    template = _synth(tmp_path, build)
    # THEN the endpoint carries both
    template.has_resource_properties(
        "AWS::SageMaker::Endpoint",
        {
            "Tags": [
                {"Key": "cost-center", "Value": "4711"},
                {"Key": "inference:baseline-instances", "Value": "1"},
                {"Key": "inference:baseline-usd-per-hour", "Value": "1.5150"},
                {"Key": "inference:capacity", "Value": "mixed"},
                {"Key": "inference:max-instances", "Value": "4"},
                {"Key": "team", "Value": "ml-platform"},
            ]
        },
    )


def test_required_tags_check_flags_a_taggable_resource_without_the_keys() -> None:
    # GIVEN an endpoint tagged with team only, and a check requiring team and cost-center
    app = App()
    stack = Stack(app, "Cost")
    sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_config_name="chat-config")
    apply_cost_tags(app, {"team": "ml-platform"})
    Aspects.of(app).add(RequireCostTags(["team", "cost-center"]), priority=AspectPriority.READONLY)
    # WHEN synthesized
    app.synth()
    # THEN the endpoint gets an error naming the missing key
    Annotations.from_stack(stack).has_error(
        "/Cost/Endpoint", Match.string_like_regexp("missing cost allocation tags: cost-center")
    )


def test_required_tags_check_passes_when_tags_are_applied_at_app_level() -> None:
    # GIVEN app-level team tags and the check
    app = App()
    stack = Stack(app, "Cost")
    sagemaker.CfnEndpoint(stack, "Endpoint", endpoint_config_name="chat-config")
    apply_cost_tags(app, TEAM_TAGS)
    Aspects.of(app).add(RequireCostTags(list(TEAM_TAGS)), priority=AspectPriority.READONLY)
    # WHEN synthesized THEN no error is reported
    app.synth()
    Annotations.from_stack(stack).has_no_error("*", Match.any_value())


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
def test_required_tags_check_handles_taggable_v2_resources(tagged: bool) -> None:
    # GIVEN a Bedrock application inference profile (an ITaggableV2 L1) and the check
    from aws_cdk import aws_bedrock as bedrock

    app = App()
    stack = Stack(app, "Cost")
    bedrock.CfnApplicationInferenceProfile(stack, "Profile", inference_profile_name="team-a")
    if tagged:
        apply_cost_tags(app, TEAM_TAGS)
    Aspects.of(app).add(RequireCostTags(list(TEAM_TAGS)), priority=AspectPriority.READONLY)
    # WHEN synthesized THEN the check reads its tags (an error only when they are missing)
    app.synth()
    if tagged:
        Annotations.from_stack(stack).has_no_error("*", Match.any_value())
    else:
        Annotations.from_stack(stack).has_error("/Cost/Profile", Match.string_like_regexp("missing cost allocation"))


def test_fails_to_apply_a_reserved_tag_key() -> None:
    # GIVEN a tag key with the reserved aws: prefix WHEN applied THEN the error names it
    with pytest.raises(
        InferenceConfigError, match=re.escape("tags.aws:team: tag keys starting with aws: are reserved")
    ):
        apply_cost_tags(App(), {"aws:team": "x"})


# --- tag activation -------------------------------------------------------------------------------


def test_tag_activation_is_a_custom_resource_with_the_configured_keys(tmp_path: Path) -> None:
    # GIVEN the activation construct WHEN synthesized
    template = _synth(tmp_path, _tag_activation)
    # THEN a custom resource carries the keys and a Python 3.14 function serves it
    template.has_resource_properties(
        "Custom::CostAllocationTags", {"TagKeys": ["team", "cost-center", "inference:capacity"]}
    )
    template.has_resource_properties(
        "AWS::Lambda::Function", {"Runtime": "python3.14", "Handler": "cost_allocation_tags.handler"}
    )


def test_tag_activation_retries_on_a_schedule_with_the_same_keys(tmp_path: Path) -> None:
    # GIVEN the activation construct WHEN synthesized
    template = _synth(tmp_path, _tag_activation)
    # THEN an EventBridge rule invokes the function every 6 hours with the keys
    template.has_resource_properties(
        "AWS::Events::Rule",
        {
            "ScheduleExpression": "rate(6 hours)",
            "Targets": [Match.object_like({"Input": json.dumps({"TagKeys": KEYS}, separators=(",", ":"))})],
        },
    )


def test_tag_activation_role_may_only_read_and_activate_tags_and_write_its_logs(tmp_path: Path) -> None:
    # GIVEN the activation construct WHEN synthesized
    template = _synth(tmp_path, _tag_activation)
    # THEN its one policy allows the two Cost Explorer tag calls and its own log streams, nothing else
    policies = template.find_resources("AWS::IAM::ManagedPolicy")
    (policy,) = policies.values()
    actions = [s["Action"] for s in policy["Properties"]["PolicyDocument"]["Statement"]]
    assert actions == [
        ["ce:ListCostAllocationTags", "ce:UpdateCostAllocationTagsStatus"],
        ["logs:CreateLogStream", "logs:PutLogEvents"],
    ]
    template.resource_count_is("AWS::IAM::Policy", 0)


def test_tag_activation_answers_within_a_service_timeout_and_encrypts_its_log(tmp_path: Path) -> None:
    # GIVEN the activation construct WHEN synthesized
    template = _synth(tmp_path, _tag_activation)
    # THEN CloudFormation waits at most 5 minutes for the answer, not its default hour
    template.has_resource_properties("Custom::CostAllocationTags", {"ServiceTimeout": "300"})
    template.has_resource_properties("AWS::Lambda::Function", {"Timeout": 120})
    # AND the log group is encrypted with a rotated key that CloudWatch Logs may use for this account's groups only
    template.has_resource_properties(
        "AWS::Logs::LogGroup", {"KmsKeyId": {"Fn::GetAtt": [Match.string_like_regexp("LogKey"), "Arn"]}}
    )
    (key,) = template.find_resources("AWS::KMS::Key").values()
    assert key["Properties"]["EnableKeyRotation"] is True
    statements = {s.get("Sid"): s for s in key["Properties"]["KeyPolicy"]["Statement"]}
    logs = statements["AllowCloudWatchLogsOfThisAccount"]
    assert list(logs["Condition"]) == ["ArnLike"]
    assert "kms:EncryptionContext:aws:logs:arn" in logs["Condition"]["ArnLike"]
    deny = statements["DenyGrantsExceptForAwsResources"]
    assert (deny["Effect"], deny["Action"], deny["Principal"]) == ("Deny", "kms:CreateGrant", {"AWS": "*"})
    assert deny["Condition"] == {
        "BoolIfExists": {"kms:GrantIsForAWSResource": "false", "aws:PrincipalIsAWSService": "false"}
    }


def test_tag_activation_alarms_when_keys_stay_pending_for_two_days(tmp_path: Path) -> None:
    # GIVEN the activation construct with an alarm topic WHEN synthesized
    from aws_cdk import aws_sns as sns

    def build(stack: Stack) -> None:
        topic = sns.Topic.from_topic_arn(stack, "Topic", "arn:aws:sns:us-east-1:123456789012:alarms")
        CostAllocationTagActivation(stack, "TagActivation", tag_keys=KEYS, alarm_topic=topic)

    template = _synth(tmp_path, build)
    # THEN the alarm reads the metric the handler writes: every 6-hour run pending for 8 periods (48 h)
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "Namespace": tag_activation.METRIC_NAMESPACE,
            "MetricName": "PendingKeys",
            "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": Match.string_like_regexp("Function")}}],
            "Statistic": "Minimum",
            "Period": 21600,
            "EvaluationPeriods": 8,
            "DatapointsToAlarm": 8,
            "Threshold": 1,
            "AlarmActions": ["arn:aws:sns:us-east-1:123456789012:alarms"],
        },
    )


def test_tag_activation_without_a_topic_writes_the_metric_but_has_no_alarm(tmp_path: Path) -> None:
    template = _synth(tmp_path, _tag_activation)
    template.resource_count_is("AWS::CloudWatch::Alarm", 0)


def test_fails_a_retry_interval_the_pending_alarm_cannot_use() -> None:
    # GIVEN a retry interval that is not whole minutes WHEN constructed THEN the error says what is allowed
    from aws_cdk import Duration

    with pytest.raises(InferenceConfigError, match=re.escape("retry_interval: 90 s is not allowed; use whole minutes")):
        CostAllocationTagActivation(Stack(App(), "Cost"), "T", tag_keys=["team"], retry_interval=Duration.seconds(90))


def test_fails_tag_activation_without_keys() -> None:
    # GIVEN no keys WHEN constructed THEN the error says what to list
    with pytest.raises(InferenceConfigError, match=re.escape("cost.activate_cost_allocation_tags: no tag key given")):
        CostAllocationTagActivation(Stack(App(), "Cost"), "TagActivation", tag_keys=[])


# --- budget guardrail -----------------------------------------------------------------------------


def test_budget_is_monthly_cost_with_actual_and_forecast_notifications(tmp_path: Path) -> None:
    # GIVEN a 5,000 USD guardrail WHEN synthesized
    template = _synth(tmp_path, _guardrail)
    # THEN the budget is a monthly cost budget notifying at 80 % and 100 % actual and 100 % forecast
    budget = template.find_resources("AWS::Budgets::Budget")
    (props,) = [r["Properties"] for r in budget.values()]
    assert props["Budget"] == {
        "BudgetType": "COST",
        "TimeUnit": "MONTHLY",
        "BudgetLimit": {"Amount": 5000, "Unit": "USD"},
    }
    thresholds = [
        (n["Notification"]["NotificationType"], n["Notification"]["Threshold"])
        for n in props["NotificationsWithSubscribers"]
    ]
    assert thresholds == [("ACTUAL", 80), ("ACTUAL", 100), ("FORECASTED", 100)]


def test_budget_action_applies_the_deny_policy_to_the_configured_roles(tmp_path: Path) -> None:
    # GIVEN a guardrail with two roles (one with a path) at 90 % WHEN synthesized
    template = _synth(tmp_path, _guardrail)
    # THEN the action applies the managed deny policy automatically to both role names
    template.has_resource_properties(
        "AWS::Budgets::BudgetsAction",
        {
            "ActionType": "APPLY_IAM_POLICY",
            "ApprovalModel": "AUTOMATIC",
            "NotificationType": "ACTUAL",
            "ActionThreshold": {"Type": "PERCENTAGE", "Value": 90},
            "Definition": {
                "IamActionDefinition": {
                    "PolicyArn": {"Ref": Match.string_like_regexp("BudgetDenyPolicy")},
                    "Roles": ["deployer", "pipeline"],
                }
            },
            "Subscribers": [{"Type": "EMAIL", "Address": "finops@example.com"}],
        },
    )


def test_deny_policy_blocks_creating_and_growing_endpoints(tmp_path: Path) -> None:
    # GIVEN the guardrail WHEN synthesized
    template = _synth(tmp_path, _guardrail)
    # THEN the managed policy denies exactly the endpoint create/update actions
    template.has_resource_properties(
        "AWS::IAM::ManagedPolicy",
        {
            "PolicyDocument": {
                "Statement": [
                    {
                        "Sid": "DenyNewSageMakerInferenceSpend",
                        "Effect": "Deny",
                        "Action": list(DENIED_ACTIONS),
                        "Resource": "*",
                    }
                ],
                "Version": "2012-10-17",
            }
        },
    )
    assert "sagemaker:CreateEndpoint" in DENIED_ACTIONS
    assert not any(a.startswith("sagemaker:Delete") for a in DENIED_ACTIONS)


def test_budget_execution_role_may_only_attach_and_detach_the_deny_policy_on_the_listed_roles(tmp_path: Path) -> None:
    # GIVEN the guardrail WHEN synthesized
    template = _synth(tmp_path, _guardrail)
    # THEN Budgets assumes the role, which may attach/detach only the deny policy, only on the two roles
    template.has_resource_properties(
        "AWS::IAM::Role",
        {
            "AssumeRolePolicyDocument": {
                "Statement": [Match.object_like({"Principal": {"Service": "budgets.amazonaws.com"}})]
            }
        },
    )
    template.has_resource_properties(
        "AWS::IAM::ManagedPolicy",
        {
            "PolicyDocument": {
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["iam:AttachRolePolicy", "iam:DetachRolePolicy"],
                        "Resource": [DEPLOYER, PIPELINE],
                        "Condition": {
                            "ArnEquals": {"iam:PolicyARN": {"Ref": Match.string_like_regexp("BudgetDenyPolicy")}}
                        },
                    }
                ],
                "Version": "2012-10-17",
            }
        },
    )


def test_budget_counts_only_the_spend_of_its_filter(tmp_path: Path) -> None:
    # GIVEN a guardrail on the platform's tagged spend WHEN synthesized
    template = _synth(
        tmp_path,
        lambda s: BudgetGuardrail(s, "Budget", monthly_limit_usd=100, filter_expression=platform_expression("acme")),
    )
    # THEN the budget's FilterExpression selects the inference:platform tag, under the key with and without user:
    (budget,) = template.find_resources("AWS::Budgets::Budget").values()
    assert budget["Properties"]["Budget"]["FilterExpression"] == {
        "Or": [
            {"Tags": {"Key": "inference:platform", "MatchOptions": ["EQUALS"], "Values": ["acme"]}},
            {"Tags": {"Key": "user:inference:platform", "MatchOptions": ["EQUALS"], "Values": ["acme"]}},
        ]
    }
    # AND it says how it aggregates, as CreateBudget asks of a FilterExpression
    assert budget["Properties"]["Budget"]["Metrics"] == ["UnblendedCost"]


def test_fails_a_deny_role_of_another_account_than_the_stacks() -> None:
    # GIVEN a stack in account 123456789012 and a role of another account
    from aws_cdk import Environment

    stack = Stack(App(), "Cost", env=Environment(account="123456789012", region="us-east-1"))
    other = "arn:aws:iam::999999999999:role/deployer"
    # WHEN constructed THEN the role is refused with its key path
    with pytest.raises(InferenceConfigError, match=re.escape("cost.budget.deny_role_arns[1]: role in account 999")):
        BudgetGuardrail(
            stack, "Budget", monthly_limit_usd=100, notify_emails=["a@example.com"], deny_role_arns=[DEPLOYER, other]
        )


def test_budget_without_roles_only_notifies(tmp_path: Path) -> None:
    # GIVEN a guardrail without deny roles WHEN synthesized
    template = _synth(
        tmp_path, lambda s: BudgetGuardrail(s, "Budget", monthly_limit_usd=100, notify_emails=["a@example.com"])
    )
    # THEN there is a budget but no action and no IAM
    template.resource_count_is("AWS::Budgets::Budget", 1)
    template.resource_count_is("AWS::Budgets::BudgetsAction", 0)
    template.resource_count_is("AWS::IAM::Role", 0)


def test_fails_listing_every_budget_problem() -> None:
    # GIVEN a zero limit, a bad address, a bad role ARN and a deny percentage of 0
    with pytest.raises(InferenceConfigError, match="4 problems") as err:
        BudgetGuardrail(
            Stack(App(), "Cost"),
            "Budget",
            monthly_limit_usd=0,
            notify_emails=["not-an-address"],
            deny_role_arns=["deployer"],
            deny_at_percent=0,
        )
    text = str(err.value)
    assert "cost.budget.monthly_limit_usd: 0 is not allowed" in text
    assert "cost.budget.notify_email[0]: 'not-an-address' is not an e-mail address" in text
    assert "cost.budget.deny_role_arns[0]: 'deployer' is not an IAM role ARN" in text
    assert "cost.budget.deny_new_endpoints_at_percent: 0 is not allowed" in text


def test_fails_deny_roles_without_a_notify_address() -> None:
    # GIVEN deny roles but nobody to tell WHEN constructed THEN the error asks for an address
    with pytest.raises(
        InferenceConfigError, match=re.escape("cost.budget.notify_email: is required when deny_role_arns is set")
    ):
        BudgetGuardrail(Stack(App(), "Cost"), "Budget", monthly_limit_usd=100, deny_role_arns=[DEPLOYER])


# --- anomaly monitor ------------------------------------------------------------------------------


def test_anomaly_monitor_watches_the_platforms_tagged_spend_and_mails_daily_above_the_threshold(
    tmp_path: Path,
) -> None:
    # GIVEN a 250 USD threshold on the platform's tagged spend WHEN synthesized
    template = _synth(
        tmp_path,
        lambda s: CostAnomalyMonitor(
            s,
            "Anomaly",
            notify_email="finops@example.com",
            threshold_usd=250,
            monitor_specification=monitor_expression("acme"),
        ),
    )
    # THEN the monitor is CUSTOM (never the account's one DIMENSIONAL SERVICE monitor), on the platform tag
    (monitor,) = template.find_resources("AWS::CE::AnomalyMonitor").values()
    assert monitor["Properties"]["MonitorType"] == "CUSTOM"
    assert "MonitorDimension" not in monitor["Properties"]
    assert json.loads(monitor["Properties"]["MonitorSpecification"]) == {
        "Tags": {"Key": "inference:platform", "Values": ["acme"]}
    }
    # AND the subscription e-mails daily at >= 250 USD total impact
    template.has_resource_properties(
        "AWS::CE::AnomalySubscription",
        {
            "Frequency": "DAILY",
            "Subscribers": [{"Address": "finops@example.com", "Type": "EMAIL"}],
            "MonitorArnList": [{"Fn::GetAtt": [Match.string_like_regexp("Anomaly"), "MonitorArn"]}],
        },
    )
    (subscription,) = template.find_resources("AWS::CE::AnomalySubscription").values()
    assert json.loads(subscription["Properties"]["ThresholdExpression"]) == {
        "Dimensions": {
            "Key": "ANOMALY_TOTAL_IMPACT_ABSOLUTE",
            "MatchOptions": ["GREATER_THAN_OR_EQUAL"],
            "Values": ["250"],
        }
    }


def test_anomaly_subscription_can_reuse_an_existing_monitor(tmp_path: Path) -> None:
    # GIVEN an account that already has a services monitor
    arn = "arn:aws:ce::123456789012:anomalymonitor/0f1e2d3c-aaaa-bbbb-cccc-123456789012"
    # WHEN synthesized THEN only the subscription is created, pointing at it
    template = _synth(
        tmp_path, lambda s: CostAnomalyMonitor(s, "Anomaly", notify_email="a@example.com", existing_monitor_arn=arn)
    )
    template.resource_count_is("AWS::CE::AnomalyMonitor", 0)
    template.has_resource_properties("AWS::CE::AnomalySubscription", {"MonitorArnList": [arn]})


def test_fails_anomaly_monitor_that_would_be_the_accounts_dimensional_monitor() -> None:
    # GIVEN neither a specification nor an existing monitor WHEN constructed THEN it refuses, naming both
    with pytest.raises(InferenceConfigError, match="no monitor_specification and no existing_monitor_arn"):
        CostAnomalyMonitor(Stack(App(), "Cost"), "Anomaly", notify_email="a@example.com")


def test_fails_anomaly_monitor_with_bad_address_threshold_and_frequency() -> None:
    # GIVEN three mistakes WHEN constructed THEN all are reported with their key paths
    with pytest.raises(InferenceConfigError, match="3 problems") as err:
        CostAnomalyMonitor(
            Stack(App(), "Cost"),
            "Anomaly",
            notify_email="x",
            threshold_usd=-1,
            frequency="IMMEDIATE",
            monitor_specification=monitor_expression("acme"),
        )
    text = str(err.value)
    assert "cost.anomaly_monitor.notify_email" in text
    assert "cost.anomaly_monitor.threshold_usd: -1 is not allowed" in text
    assert "IMMEDIATE needs an SNS subscriber" in text
