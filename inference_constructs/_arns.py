"""ARNs in a stack, formatted in Python (private).

``Stack.format_arn`` is one round trip to the jsii kernel per ARN, and all it does is join strings: the
partition, region and account (the components given, else the stack's own, which are token strings unless the
stack is bound to an environment) with the service, the resource and the resource name (aws-cdk-lib 2.275.0,
``core/lib/arn.ts``, ``Arn.format``). :func:`format_arn` reads the stack's three once per stack and joins the same
strings in the same order, so an ARN is the same (token) string and renders as the same ``Fn::Join``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from aws_cdk import ArnFormat, Stack
from constructs import IConstruct

__all__ = ["format_arn", "keep_stack", "kept_on_stack", "stack_environment", "stack_of"]

_T = TypeVar("_T")

_ENV = "_inference_arn_environment"
_STACK = "_inference_stack"


def stack_of(scope: IConstruct) -> Stack:
    """``Stack.of(scope)``: ``scope`` when it is a stack, else the stack kept on ``scope``'s Python object (by
    :func:`keep_stack` or an earlier call), else read from the jsii kernel and kept. A construct's stack never
    changes, and each ``Stack.of`` is a round trip to the kernel."""
    if isinstance(scope, Stack):
        return scope
    found = getattr(scope, _STACK, None)
    if isinstance(found, Stack):
        return found
    stack = Stack.of(scope)
    setattr(scope, _STACK, stack)
    return stack


def keep_stack(construct: IConstruct, scope: IConstruct) -> Stack:
    """Keep on ``construct``, a new child of ``scope`` that is not a stack, the stack it is in (``scope``'s, read
    through :func:`stack_of`); returns it."""
    stack = stack_of(scope)
    setattr(construct, _STACK, stack)
    return stack


#: What :func:`kept_on_stack` keeps: the stack's object id in the jsii kernel -> key -> value.
_KEPT: dict[str, dict[str, Any]] = {}


def kept_on_stack(stack: Stack, key: str, make: Callable[[], _T]) -> _T:
    """What ``make()`` gives for ``stack``, made once per stack and kept under ``key`` (a name of this library's):
    for what is the same for every construct of a stack (one rule set, one mapping, one import) or costs round trips
    to the jsii kernel to make or read.

    Kept by the stack's object id in the jsii kernel, not on its Python object: a stack made in JavaScript (a
    ``CfnInclude`` nested stack) comes back to Python as a new proxy on each read, so a value set on one proxy is
    not seen through the next, and a second construct of that stack would make the value again (a second rule or
    import of the same construct id). The kernel keeps every object for the life of the process, and so does this.
    """
    kept = _KEPT.setdefault(cast(str, stack.__jsii_ref__.ref), {})  # type: ignore[attr-defined]
    if key not in kept:
        kept[key] = make()
    return cast(_T, kept[key])


def stack_environment(stack: Stack) -> tuple[str, str, str]:
    """(partition, region, account) of ``stack``, read from the jsii kernel once and kept per stack
    (:func:`kept_on_stack`; they never change once the stack exists): the one read every per-stack helper starts
    from."""
    return kept_on_stack(stack, _ENV, lambda: (stack.partition, stack.region, stack.account))


def format_arn(
    stack: Stack,
    *,
    service: str,
    resource: str,
    resource_name: str | None = None,
    arn_format: ArnFormat = ArnFormat.SLASH_RESOURCE_NAME,
    partition: str | None = None,
    region: str | None = None,
    account: str | None = None,
) -> str:
    """``stack.format_arn(...)`` with the same arguments, without the round trip.

    ``partition``, ``region`` and ``account`` default to the stack's (an empty string is kept, as in
    ``Stack.format_arn``: ``region=""`` for IAM). The separator before ``resource_name`` is ``:`` for
    ``ArnFormat.COLON_RESOURCE_NAME``, else ``/``; ``SLASH_RESOURCE_SLASH_RESOURCE_NAME`` puts a ``/`` before the
    resource too; without ``resource_name`` the ARN ends at the resource.
    """
    own_partition, own_region, own_account = stack_environment(stack)
    parts = [
        "arn",
        partition if partition is not None else own_partition,
        service,
        region if region is not None else own_region,
        account if account is not None else own_account,
        ("/" if arn_format == ArnFormat.SLASH_RESOURCE_SLASH_RESOURCE_NAME else "") + resource,
    ]
    arn = ":".join(parts)
    if resource_name is None:
        return arn
    return arn + (":" if arn_format == ArnFormat.COLON_RESOURCE_NAME else "/") + resource_name
