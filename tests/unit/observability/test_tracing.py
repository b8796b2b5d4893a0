"""XRaySamplingRule: the rule matches the entry service and path, with configurable priority and rate."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from inference_constructs.errors import InferenceConfigError
from inference_constructs.observability.decisions import XRaySamplingDecision
from inference_constructs.observability.tracing import XRaySamplingRule, check_sampling_rule
from tests.unit.observability.conftest import Synth, cfn_lint


def test_rule_matches_entry_service_and_path(app: App, stack: Stack, synth: Synth) -> None:
    # GIVEN a rule for the chat API's inference route, 10 % at priority 100
    rule = XRaySamplingRule(
        stack, "Sampling", service_name="chat-api", url_path="/v1/chat/*", fixed_rate=0.1, priority=100
    )
    # WHEN synthesized with the nag packs
    template = synth(app, stack)
    # THEN the rule matches that service and path, any host/method/resource, and lints clean
    Template.from_json(template).has_resource_properties(
        "AWS::XRay::SamplingRule",
        {
            "SamplingRule": {
                "RuleName": rule.rule_name,
                "ServiceName": "chat-api",
                "URLPath": "/v1/chat/*",
                "FixedRate": 0.1,
                "Priority": 100,
                "ReservoirSize": 1,
                "Host": "*",
                "HTTPMethod": "*",
                "ServiceType": "*",
                "ResourceARN": "*",
                "Version": 1,
            }
        },
    )
    assert len(rule.rule_name) <= 32
    assert cfn_lint(template) == []


def test_default_rule_name_is_stable(stack: Stack) -> None:
    # GIVEN the same construct path in two apps / WHEN named by default / THEN the names are equal
    other = Stack(App(), "Observability")
    first = XRaySamplingRule(stack, "Sampling", service_name="a").rule_name
    second = XRaySamplingRule(other, "Sampling", service_name="a").rule_name
    assert first == second


def test_resource_is_the_primary_child(stack: Stack) -> None:
    # GIVEN a rule / WHEN created / THEN its L1 child has the id "Resource"
    rule = XRaySamplingRule(stack, "Sampling", service_name="chat-api")
    assert rule.node.default_child is rule.resource


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"service_name": ""}, r"service_name: '' is not allowed"),
        ({"service_name": "s" * 65}, r"service_name: 's{65}' is not allowed; use the entry service's segment name"),
        ({"url_path": "/" + "p" * 128}, r"url_path: .* is not allowed; use a path or '\*', 1..128 characters"),
        ({"fixed_rate": 1.5}, r"fixed_rate: 1.5 is not allowed; use a fraction 0..1"),
        ({"priority": 0}, r"priority: 0 is not allowed; use a whole number 1..9999"),
        ({"priority": 10000}, r"priority: 10000 is not allowed"),
        ({"reservoir_size": -1}, r"reservoir_size: -1 is not allowed"),
        ({"rule_name": "r" * 33}, r"rule_name: 'r{33}' is not allowed; use 1..32 characters"),
    ],
)
def test_fails_on_invalid_settings(stack: Stack, kwargs: dict[str, Any], message: str) -> None:
    # GIVEN an out-of-range setting / WHEN the rule is created / THEN one error names the key and the range
    settings: dict[str, Any] = {"service_name": "chat-api", **kwargs}
    with pytest.raises(InferenceConfigError, match=message):
        XRaySamplingRule(stack, "Sampling", **settings)


def test_config_path_prefixes_problem_keys() -> None:
    # GIVEN the config layer's path / WHEN checked / THEN keys are prefixed with it
    problems = check_sampling_rule(
        XRaySamplingDecision(service_name="a", priority=0), path="observability.xray_sampling"
    ).problems
    assert problems == ["observability.xray_sampling.priority: 0 is not allowed; use a whole number 1..9999"]
