"""Key policies for service principals: scoped to this account, and no grants except for AWS resources."""

from __future__ import annotations

from typing import Any

from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from inference_constructs._kms import DENY_GRANTS_SID, alarm_topic_key


def _statements() -> dict[str, dict[str, Any]]:
    stack = Stack(App(), "Keys")
    alarm_topic_key(stack, "Key", description="alarm topic key")
    (key,) = Template.from_stack(stack).find_resources("AWS::KMS::Key").values()
    return {s.get("Sid", "root"): s for s in key["Properties"]["KeyPolicy"]["Statement"]}


def test_cloudwatch_may_use_the_alarm_topic_key_only_for_this_accounts_topics_and_alarms() -> None:
    # GIVEN the alarm topic key WHEN synthesized
    statement = _statements()["AllowCloudWatchAlarmsOfThisAccountToPublish"]
    # THEN CloudWatch's use is limited to SNS topics of this account and Region, and to this account's alarms
    # whenever the request names its source
    assert statement["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    condition = statement["Condition"]
    assert set(condition) == {"StringLike", "StringEqualsIfExists", "ArnLikeIfExists"}
    topics = str(condition["StringLike"]["kms:EncryptionContext:aws:sns:topicArn"])
    assert ":sns:" in topics and "AWS::AccountId" in topics
    assert condition["StringEqualsIfExists"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert ":alarm:*" in str(condition["ArnLikeIfExists"]["aws:SourceArn"])


def test_every_library_key_denies_grants_except_for_aws_resources() -> None:
    statement = _statements()[DENY_GRANTS_SID]
    assert statement["Effect"] == "Deny"
    assert statement["Condition"] == {
        "BoolIfExists": {"kms:GrantIsForAWSResource": "false", "aws:PrincipalIsAWSService": "false"}
    }
