"""ARNs formatted in Python are the strings ``Stack.format_arn`` gives, for every ARN shape and stack environment."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from aws_cdk import App, ArnFormat, Environment, Stack

from inference_constructs._arns import format_arn
from tests.javascript_stack import javascript_stack

#: The ARN shapes: each resource-name format, with and without a name, and each component given or emptied.
SHAPES: list[dict[str, Any]] = [
    {"service": "sagemaker", "resource": "endpoint", "resource_name": "my-endpoint"},
    {"service": "ecr", "resource": "repository", "resource_name": "*", "account": "763104351884"},
    {"service": "ecr", "resource": "repository", "resource_name": "repo", "account": "1" * 12, "region": "eu-west-1"},
    {"service": "sns", "resource": "*", "arn_format": ArnFormat.NO_RESOURCE_NAME},
    {
        "service": "logs",
        "resource": "log-group",
        "resource_name": "/aws/x",
        "arn_format": ArnFormat.COLON_RESOURCE_NAME,
    },
    {
        "service": "iam",
        "resource": "role",
        "resource_name": "R",
        "region": "",
        "arn_format": ArnFormat.SLASH_RESOURCE_NAME,
    },
    {"service": "s3", "resource": "bucket", "region": "", "account": "", "partition": "aws-cn"},
    {
        "service": "apigateway",
        "resource": "restapis",
        "resource_name": "abc",
        "arn_format": ArnFormat.SLASH_RESOURCE_SLASH_RESOURCE_NAME,
    },
]

#: Stacks whose partition, region and account are tokens, literals, or literals only under partition literals.
ENVIRONMENTS: dict[str, tuple[dict[str, Any], Environment | None]] = {
    "agnostic": ({}, None),
    "bound": ({}, Environment(account="123456789012", region="us-east-1")),
    "bound, partition literals": (
        {"@aws-cdk/core:enablePartitionLiterals": True},
        Environment(account="123456789012", region="cn-north-1"),
    ),
}


@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s['service']}-{s.get('arn_format', 'default')}")
def test_an_arn_is_the_string_stack_format_arn_gives(environment: str, shape: dict[str, Any]) -> None:
    # GIVEN a stack in the environment WHEN an ARN is formatted in Python and by the stack
    context, env = ENVIRONMENTS[environment]
    stack = Stack(App(context=context), "Arns", env=env)
    ours = format_arn(stack, **shape)
    theirs = stack.format_arn(**shape)
    # THEN both are the same string (tokens included), hence the same value in the template
    assert ours == theirs
    assert stack.resolve(ours) == stack.resolve(theirs)


def test_each_stack_environment_is_read_once_and_kept_per_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN two stacks, one bound to an environment, with reads of their environment counted
    reads: Counter[str] = Counter()

    def counted(name: str, original: property) -> property:
        def read(stack: Stack) -> str:
            reads[name] += 1
            return str(original.fget(stack))  # type: ignore[misc]

        return property(read)

    for name in ("partition", "region", "account"):
        monkeypatch.setattr(Stack, name, counted(name, getattr(Stack, name)))
    app = App()
    agnostic, bound = Stack(app, "A"), Stack(app, "B", env=Environment(account="123456789012", region="eu-west-1"))
    # WHEN three ARNs are formatted in each
    arns = [format_arn(stack, service="sns", resource=t) for t in "xyz" for stack in (agnostic, bound)]
    # THEN each stack's environment was read once, and each ARN has its own stack's
    assert reads == {"partition": 2, "region": 2, "account": 2}
    assert all(arn.endswith(":sns:eu-west-1:123456789012:" + arn[-1]) for arn in arns[1::2])
    assert not any("eu-west-1" in arn for arn in arns[::2])


def test_stack_of_is_stack_of_and_kept_on_the_construct(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a construct two levels below a stack, and a stack in a stage-less app
    from constructs import Construct

    from inference_constructs._arns import keep_stack, stack_of

    stack = Stack(App(), "S")
    outer = Construct(stack, "Outer")
    inner = Construct(outer, "Inner")
    # THEN stack_of gives what Stack.of gives, and a stack is its own
    assert stack_of(inner) is Stack.of(inner) is stack
    assert stack_of(stack) is stack
    # AND once read (or kept for a new child), it is read again without asking the jsii kernel
    child = Construct(inner, "Child")
    assert keep_stack(child, inner) is stack

    def refuse(_: object) -> Stack:
        raise AssertionError("Stack.of was called again")

    monkeypatch.setattr(Stack, "of", staticmethod(refuse))
    assert stack_of(inner) is stack
    assert stack_of(child) is stack


def test_a_construct_outside_any_stack_fails_as_stack_of_does() -> None:
    from constructs import Construct

    from inference_constructs._arns import stack_of

    orphan = Construct(App(), "NoStack")
    with pytest.raises(RuntimeError, match="no Stack found"):
        Stack.of(orphan)
    with pytest.raises(RuntimeError, match="no Stack found"):
        stack_of(orphan)


def test_a_value_kept_on_a_stack_made_in_javascript_is_found_through_each_proxy(tmp_path: Any) -> None:
    from inference_constructs._arns import kept_on_stack

    # GIVEN a stack made in JavaScript, read twice (two Python proxies of one stack), and a stack made in Python
    nested = javascript_stack(tmp_path)
    first, second = nested(), nested()
    assert first is not second
    made: list[str] = []

    def maker(name: str) -> Any:
        def make() -> str:
            made.append(name)
            return name

        return make

    # WHEN a value is kept under one key through each proxy, and under the same key on the other stack
    values = [kept_on_stack(s, "_test_key", maker(n)) for n, s in (("a", first), ("b", second))]
    other = kept_on_stack(Stack(App(), "Other"), "_test_key", lambda: "c")
    # THEN it was made once for the JavaScript stack, and separately for the other
    assert values == ["a", "a"] and made == ["a"] and other == "c"


def test_endpoints_under_two_reads_of_a_stack_made_in_javascript_share_its_rules_and_storage(tmp_path: Any) -> None:
    from aws_cdk.assertions import Template
    from constructs import Construct

    from inference_constructs import AsyncOptions, ModelSpec, RealtimeEndpoint

    # GIVEN a stack made in JavaScript (a new Python proxy per read)
    nested = javascript_stack(tmp_path)
    model = ModelSpec(id="Qwen/Qwen2.5-7B-Instruct", parameters_billion=7.6)
    # WHEN two real-time and two async endpoints are made in it, each under its own read of the stack
    for name in ("A", "B"):
        RealtimeEndpoint(Construct(nested(), f"Group{name}"), name, model=model)
        RealtimeEndpoint(Construct(nested(), f"Async{name}"), name, model=model, async_inference=AsyncOptions())
    # THEN the stack has one region rule, one image mapping and one storage, used by all four
    template = Template.from_stack(nested()).to_json()
    assert list(template["Rules"]) == ["InferenceRegions"]
    assert list(template["Mappings"]) == ["InferenceImageRegistry"]
    assert len([t for t in template["Resources"].values() if t["Type"] == "AWS::SageMaker::Endpoint"]) == 4
    storage = [p for p in nested().node.find_all() if p.node.path.endswith("/InferenceStorage")]
    assert len(storage) == 1


def test_staged_endpoints_under_two_reads_of_a_stack_made_in_javascript_share_its_staging_provider(
    tmp_path: Any,
) -> None:
    from constructs import Construct

    from inference_constructs import HfTokenSecret, ModelSpec, RealtimeEndpoint
    from inference_constructs.hosting.staging import PROVIDER_ID

    # GIVEN a stack made in JavaScript, and a gated model whose weights are staged at deploy time
    nested = javascript_stack(tmp_path)
    model = ModelSpec(
        id="meta-llama/Llama-3.1-8B-Instruct",
        revision="0e9e39f249a16976918f6564b8830bc894c89659",
        parameters_billion=8,
        hf_token=HfTokenSecret("acme/hf-token"),
    )
    # WHEN two endpoints stage it, each under its own read of the stack
    for name in ("A", "B"):
        RealtimeEndpoint(Construct(nested(), f"Group{name}"), name, model=model, instance_type="ml.g6e.xlarge")
    # THEN the stack has one staging provider
    providers = [c for c in nested().node.find_all() if c.node.id == PROVIDER_ID]
    assert len(providers) == 1
