"""``XRaySamplingRule``: sample traces at the service that receives the request.

X-Ray decides whether to sample a request once, at the first instrumented service (the entry point: an API Gateway
stage, a Lambda function, an application behind a load balancer); every downstream call, including the SageMaker or
Bedrock invocation, follows that decision through the trace header. So the rule matches the entry service and the URL
path of the inference route, not the model endpoint.

CloudFormation: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-xray-samplingrule.html
"""

from __future__ import annotations

import math

from aws_cdk import Names
from aws_cdk import aws_xray as xray
from constructs import Construct

from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import ProblemCollector
from inference_constructs.observability.decisions import XRaySamplingDecision
from inference_constructs.observability.targets import key

_DEFAULT = XRaySamplingDecision(service_name="*")

_MAX_SERVICE_NAME = 64
_MAX_URL_PATH = 128
_MAX_RULE_NAME = 32


class XRaySamplingRule(Construct):
    """An X-Ray sampling rule for the entry service of an inference route.

    Parameters
    ----------
    scope, construct_id:
        Where the rule is created.
    service_name:
        Name the entry service records in its segments (1–64 characters, ``*`` and ``?`` wildcards allowed).
    url_path:
        Request path to match, e.g. ``/v1/chat/*`` (≤ 128 characters). Default: ``*``, every path.
    fixed_rate:
        Share of matching requests sampled once the reservoir is used up, 0–1. Default: 0.05 (5 %).
    priority:
        1–9999; X-Ray evaluates rules in ascending priority, so lower wins over the ``Default`` rule (10000).
        Default: 1000.
    reservoir_size:
        Requests per second sampled before ``fixed_rate`` applies, shared by all instances of the service.
        Default: 1.
    http_method:
        HTTP method to match (≤ 10 characters). Default: ``*``, every method.
    rule_name:
        Name of the rule (1–32 characters, unique in the account and Region). Default: a name derived from the
        construct path, stable across deployments.

    Raises
    ------
    InferenceConfigError
        When a value is outside the ranges above.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        service_name: str,
        url_path: str = _DEFAULT.url_path,
        fixed_rate: float = _DEFAULT.fixed_rate,
        priority: int = _DEFAULT.priority,
        reservoir_size: int = _DEFAULT.reservoir_size,
        http_method: str = "*",
        rule_name: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        rule = XRaySamplingDecision(
            service_name=service_name,
            url_path=url_path,
            fixed_rate=fixed_rate,
            priority=priority,
            reservoir_size=reservoir_size,
        )
        problems = check_sampling_rule(rule, http_method=http_method, rule_name=rule_name)
        problems.raise_if_any()
        self.rule_name: str = rule_name or Names.unique_resource_name(self, max_length=_MAX_RULE_NAME)
        """Name of the sampling rule."""
        self.resource = xray.CfnSamplingRule(
            self,
            "Resource",
            sampling_rule=xray.CfnSamplingRule.SamplingRuleProperty(
                rule_name=self.rule_name,
                priority=rule.priority,
                fixed_rate=rule.fixed_rate,
                reservoir_size=rule.reservoir_size,
                service_name=rule.service_name,
                service_type="*",
                host="*",
                http_method=http_method,
                url_path=rule.url_path,
                resource_arn="*",
                version=1,
            ),
        )
        """The ``AWS::XRay::SamplingRule``."""

    @property
    def rule_arn(self) -> str:
        """ARN of the sampling rule."""
        return self.resource.attr_rule_arn


def check_sampling_rule(
    rule: XRaySamplingDecision, *, http_method: str = "*", rule_name: str | None = None, path: str = ""
) -> ProblemCollector:
    """Collect every problem with sampling-rule settings (``path`` prefixes keys: ``observability.xray_sampling``)."""
    problems = ProblemCollector()
    if not is_unresolved(rule.service_name) and not 1 <= len(rule.service_name) <= _MAX_SERVICE_NAME:
        problems.add(
            key(path, "service_name"),
            f"{rule.service_name!r} is not allowed",
            f"use the entry service's segment name, 1..{_MAX_SERVICE_NAME} characters",
        )
    if not is_unresolved(rule.url_path) and not 1 <= len(rule.url_path) <= _MAX_URL_PATH:
        problems.add(
            key(path, "url_path"),
            f"{rule.url_path!r} is not allowed",
            f"use a path or '*', 1..{_MAX_URL_PATH} characters",
        )
    if isinstance(rule.fixed_rate, bool) or not math.isfinite(rule.fixed_rate) or not 0 <= rule.fixed_rate <= 1:
        problems.add(key(path, "fixed_rate"), f"{rule.fixed_rate} is not allowed", "use a fraction 0..1, e.g. 0.05")
    if isinstance(rule.priority, bool) or not isinstance(rule.priority, int) or not 1 <= rule.priority <= 9999:
        problems.add(key(path, "priority"), f"{rule.priority} is not allowed", "use a whole number 1..9999")
    if isinstance(rule.reservoir_size, bool) or not isinstance(rule.reservoir_size, int) or rule.reservoir_size < 0:
        problems.add(key(path, "reservoir_size"), f"{rule.reservoir_size} is not allowed", "use a whole number >= 0")
    if not is_unresolved(http_method) and not 1 <= len(http_method) <= 10:
        problems.add(key(path, "http_method"), f"{http_method!r} is not allowed", "use GET, POST or '*'")
    if rule_name is not None and not is_unresolved(rule_name) and not 1 <= len(rule_name) <= _MAX_RULE_NAME:
        problems.add(key(path, "rule_name"), f"{rule_name!r} is not allowed", f"use 1..{_MAX_RULE_NAME} characters")
    return problems
