"""Values that cross from one platform stack to another through SSM parameters, never through exports.

CloudFormation refuses to change or delete an output another stack imports with ``Fn::ImportValue`` ("After
another stack imports an output value, you can't delete the stack that is exporting the output value or modify
the exported output value", ``Fn::ImportValue`` in the CloudFormation template reference). A Bedrock profile id
changes whenever a model bump replaces the profile, and a removed profile's export disappears, so an export of
either blocks a routine update. Instead the producing stack writes the value into an ``AWS::SSM::Parameter``
with a stable name (only ``Name`` is create-only, so the parameter is updated in place when the value changes),
and the consuming stack reads it through a template parameter of type ``AWS::SSM::Parameter::Value<String>``,
which CloudFormation resolves on every create and update of that stack (``ResolvedValue`` of the CloudFormation
``Parameter`` data type). The consuming stack depends on the producing one, so ``cdk deploy`` updates the
producer first. SSM dynamic references (``{{resolve:ssm:...}}``) are not used: a template parameter works in
every property, including alarm dimensions and dashboard bodies.

Platforms deployed before values crossed stacks this way import them with ``Fn::ImportValue``; their first
update would remove exports still in use. Deploy once with the context flag :data:`KEEP_EXPORTS` set
(``cdk deploy --all -c inference-constructs:keep-exports=true``): the producers keep those exports under their
old names (``Stack.export_value``, which names an export as the automatic cross-stack reference did) and the
Bedrock profiles keep their old names, while every consumer switches to the SSM parameters; then deploy without
the flag, which drops the exports nobody imports any more and gives the profiles their update-safe names.

Parameter names: ``/inference-platform/<producing stack name>/<key>``; a name may not begin with ``aws`` or
``ssm`` and may use ``a-zA-Z0-9_.-/`` (SSM ``PutParameter`` naming constraints), which stack names satisfy.
"""

from __future__ import annotations

import hashlib
import re

from aws_cdk import Reference, Stack, Token, Tokenization
from aws_cdk import aws_sns as sns
from aws_cdk import aws_ssm as ssm
from constructs import Construct

#: First level of every handoff parameter's name (SSM reserves the prefixes ``aws`` and ``ssm``).
PARAMETER_ROOT = "/inference-platform"

KEEP_EXPORTS = "inference-constructs:keep-exports"
"""CDK context key of the one migration deploy described above (``true`` to set it)."""

_KEY = re.compile(r"^[a-zA-Z0-9_.-]+(/[a-zA-Z0-9_.-]+)*$")


def keeps_exports(scope: Construct) -> bool:
    """True when the context flag :data:`KEEP_EXPORTS` is set (``true``, from ``cdk.json`` or ``-c``)."""
    return str(scope.node.try_get_context(KEEP_EXPORTS)).lower() == "true"


def key_segment(name: str) -> str:
    """``name`` as one segment of a handoff key. A name of letters and digits only stays as it is; any other name
    has each character outside ``a-zA-Z0-9_.-`` replaced by ``_`` and a digest of the name appended. CDK derives
    the reading stack's template parameter id from the key's letters and digits alone, so names that differ
    only in other characters (``team a``, ``team-a``, ``team_a``) would otherwise share one id and fail synth."""
    if name.isascii() and name.isalnum():
        return name
    return re.sub(r"[^a-zA-Z0-9_.-]", "_", name) + "-" + hashlib.sha256(name.encode()).hexdigest()[:8]


def parameter_name(producer_stack_name: str, key: str) -> str:
    """The SSM parameter name a value of ``producer_stack_name`` is handed over under."""
    if not _KEY.match(key):
        raise ValueError(f"handoff key {key!r} must be segments of a-zA-Z0-9_.- separated by /")
    return f"{PARAMETER_ROOT}/{producer_stack_name}/{key}"


def local_value(consumer: Stack, value: str, *, key: str) -> str:
    """``value`` as ``consumer`` may use it without an export.

    A literal, or a value of ``consumer``'s own resources, is returned unchanged. A reference to a resource
    of another stack is written into an SSM parameter in that stack (once per key) and read back in
    ``consumer`` through an ``AWS::SSM::Parameter::Value<String>`` template parameter; ``consumer`` then
    depends on the producing stack.
    """
    producer = _producing_stack(value)
    if producer is None or producer is consumer:
        return value
    if Token.is_unresolved(producer.stack_name):
        raise ValueError(f"stack {producer.node.path} needs a literal stack name to hand over {key!r}")
    name = parameter_name(producer.stack_name, key)
    # readable and collision-free: the key's letters plus a digest of the key itself
    construct_id = "Handoff" + re.sub(r"[^A-Za-z0-9]", "", key.title()) + hashlib.sha256(key.encode()).hexdigest()[:6]
    existing = producer.node.try_find_child(construct_id)
    if existing is None:
        ssm.StringParameter(
            producer,
            construct_id,
            parameter_name=name,
            string_value=value,
            description=f"{key} of stack {producer.stack_name}, read by the platform's other stacks at each deploy",
        )
        if keeps_exports(producer):
            producer.export_value(value)  # the export the consumer imported until now, for one deploy
    elif not isinstance(existing, ssm.StringParameter):
        raise ValueError(f"{producer.node.path}/{construct_id} exists and is not a handoff parameter")
    consumer.add_stack_dependency(producer, f"reads {name}")
    return ssm.StringParameter.value_for_string_parameter(consumer, name)


def local_topic(stack: Stack, topic: sns.ITopic) -> sns.ITopic:
    """``topic`` as ``stack`` may notify it: itself when it is in ``stack``, else imported (construct id
    ``AlarmTopic``) by the ARN the topic's stack hands over under the key ``alarm-topic-arn``."""
    topic_arn = topic.topic_arn
    arn = local_value(stack, topic_arn, key="alarm-topic-arn")
    return topic if arn == topic_arn else sns.Topic.from_topic_arn(stack, "AlarmTopic", arn)


def _producing_stack(value: str) -> Stack | None:
    """The stack of the one resource ``value`` refers to, or None for a literal or anything else."""
    if not Token.is_unresolved(value):
        return None
    fragments = Tokenization.reverse_string(value)
    if fragments.length != 1:
        return None
    token = fragments.first_token
    if not isinstance(token, Reference):
        return None
    return Stack.of(token.target)
