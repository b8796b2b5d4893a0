"""Policy statements as IAM JSON, built in Python, and a policy's whole document in one round trip (private).

Each ``iam.PolicyStatement(...)`` made in Python is one round trip to the jsii kernel. A statement written as
IAM JSON (:func:`allow`) costs none, and :func:`document` hands every statement of a policy over at once
(``iam.PolicyDocument.from_json``). ``PolicyDocument.fromJson`` builds each statement with
``PolicyStatement.fromJson``, which passes ``Sid``, ``Effect``, ``Action``, ``Resource`` and ``Condition`` to the
same ``PolicyStatement`` constructor, and the document is a plain ``PolicyDocument``: it renders, and is
minimized under ``@aws-cdk/aws-iam:minimizePolicies``, like one given the statements (aws-cdk-lib 2.275.0,
``aws-iam/lib/policy-document.ts``, ``aws-iam/lib/policy-statement.ts``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_iam as iam

__all__ = ["Statement", "allow", "document"]

Statement = Mapping[str, Any] | iam.PolicyStatement
"""A statement as IAM JSON (:func:`allow`), or an ``iam.PolicyStatement`` already made."""


def allow(
    actions: Sequence[str], resources: Sequence[str], conditions: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """An ``Allow`` statement of ``actions`` on ``resources`` (under ``conditions``, when given) as IAM JSON."""
    statement: dict[str, Any] = {"Effect": "Allow", "Action": list(actions), "Resource": list(resources)}
    if conditions is not None:
        statement["Condition"] = dict(conditions)
    return statement


def document(statements: Sequence[Statement]) -> iam.PolicyDocument:
    """The policy document of ``statements``, in their order: one round trip when all are IAM JSON (one more per
    IAM JSON statement when some are ``iam.PolicyStatement`` objects)."""
    as_json = [dict(s) for s in statements if isinstance(s, Mapping)]
    if len(as_json) == len(statements):
        return iam.PolicyDocument.from_json({"Version": "2012-10-17", "Statement": as_json})
    return iam.PolicyDocument(
        statements=[
            s if isinstance(s, iam.PolicyStatement) else iam.PolicyStatement.from_json(dict(s)) for s in statements
        ]
    )
