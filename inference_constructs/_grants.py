"""Grants that pass the compliance gates (private): each grant to a role, user or group this app owns is one
customer-managed policy attached to it, not a statement in its inline default policy.

``iam.Grant.add_to_principal`` puts the statement into the grantee's ``DefaultPolicy`` (an ``AWS::IAM::Policy``),
which the NIST 800-53 rev 5 and HIPAA Security packs flag (``IAMNoInlinePolicy``: "the IAM Group, User, or Role
contains an inline policy"; cdk-nag ``rules/iam/IAMNoInlinePolicy``). :func:`grant_managed` routes the same
statements into an ``AWS::IAM::ManagedPolicy`` created next to the grantee (in its stack, as aws-cdk places the
default policy) and returns the ``iam.Grant`` that ``add_to_principal`` would have returned, so ``apply_before``,
``assert_success`` and ``combine`` work as usual.

A grantee this app does not own (an imported role, a service or account principal) gets what aws-cdk gives it:
``iam.Grant.add_to_principal`` (an inline policy for a mutable imported role; nothing for an immutable one or a
service principal). Import such a role with ``mutable=False`` and attach the resource's policy statements in
the role's own stack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsii
from aws_cdk import Names
from aws_cdk import aws_iam as iam
from constructs import Construct

__all__ = ["add_statement_managed", "grant_managed", "owned_identity"]

#: The grantees whose grants become a managed policy: identities this app creates (not imports).
_OWNED_IDENTITIES = (iam.Role, iam.User, iam.Group)


def owned_identity(grantee: iam.IGrantable) -> iam.Role | iam.User | iam.Group | None:
    """The role, user or group behind ``grantee`` when this app creates it (a ``Function``'s role counts), else
    None (imported identities, service and account principals)."""
    principal = grantee.grant_principal
    return principal if isinstance(principal, _OWNED_IDENTITIES) else None


@jsii.implements(iam.IPrincipal)
class _ManagedPolicyPrincipal:
    """``identity`` as a principal whose added statements go into one managed policy attached to it."""

    def __init__(self, identity: iam.Role | iam.User | iam.Group, policy: iam.ManagedPolicy) -> None:
        self._identity = identity
        self._policy = policy

    @property
    def grant_principal(self) -> iam.IPrincipal:
        return self

    @property
    def assume_role_action(self) -> str:
        return self._identity.assume_role_action

    @property
    def policy_fragment(self) -> iam.PrincipalPolicyFragment:
        return self._identity.policy_fragment

    @property
    def principal_account(self) -> str | None:
        return self._identity.principal_account

    def add_to_policy(self, statement: iam.PolicyStatement) -> bool:
        return self.add_to_principal_policy(statement).statement_added

    def add_to_principal_policy(self, statement: iam.PolicyStatement) -> iam.AddToPrincipalPolicyResult:
        self._policy.add_statements(statement)
        return iam.AddToPrincipalPolicyResult(statement_added=True, policy_dependable=self._policy)


def _policy_for(resource: Construct, identity: iam.Role | iam.User | iam.Group) -> iam.ManagedPolicy:
    """The managed policy holding ``resource``'s grants to ``identity`` (id ``Grants<resource unique id>`` under
    the identity; created on the first grant, extended by later ones)."""
    policy_id = f"Grants{Names.unique_id(resource)}"
    existing = identity.node.try_find_child(policy_id)
    if isinstance(existing, iam.ManagedPolicy):
        return existing
    description = f"Grants on {resource.node.path} (one managed policy per resource, not an inline policy)"
    policy = iam.ManagedPolicy(identity, policy_id, description=description[:1000])
    if isinstance(identity, iam.Role):
        policy.attach_to_role(identity)
    elif isinstance(identity, iam.User):
        policy.attach_to_user(identity)
    else:
        policy.attach_to_group(identity)
    return policy


def grant_managed(
    resource: Construct,
    grantee: iam.IGrantable,
    *,
    actions: Sequence[str],
    resource_arns: Sequence[str],
    conditions: Mapping[str, Any] | None = None,
) -> iam.Grant:
    """``iam.Grant.add_to_principal(...)``, with the statement in a managed policy when the grantee is a role,
    user or group this app creates (see the module docstring); ``resource`` names the policy."""
    identity = owned_identity(grantee)
    target: iam.IGrantable = grantee
    if identity is not None:
        target = _ManagedPolicyPrincipal(identity, _policy_for(resource, identity))
    return iam.Grant.add_to_principal(
        grantee=target,
        actions=list(actions),
        resource_arns=list(resource_arns),
        conditions=dict(conditions) if conditions is not None else None,
    )


def add_statement_managed(resource: Construct, grantee: iam.IGrantable, statement: iam.PolicyStatement) -> None:
    """Add ``statement`` (e.g. a Deny that goes with a grant) where :func:`grant_managed` puts ``resource``'s
    grants for ``grantee``."""
    identity = owned_identity(grantee)
    if identity is None:
        grantee.grant_principal.add_to_principal_policy(statement)
    else:
        _policy_for(resource, identity).add_statements(statement)
