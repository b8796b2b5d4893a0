"""Endpoints deployed elsewhere, behind :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`.

Every endpoint construct class offers ``from_endpoint_name``, ``from_endpoint_arn`` and ``from_endpoint_attributes``
(:class:`EndpointImports`, as aws-cdk's ``Endpoint.fromEndpointName`` / ``fromEndpointArn`` /
``fromEndpointAttributes``), so code written against the interface (grants, alarms, dashboards) works the same on an
endpoint another team or stack deployed.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import ClassVar, NoReturn, TypedDict, Unpack

from aws_cdk import Arn, ArnFormat, Resource, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

from inference_constructs._arns import format_arn
from inference_constructs._coerce import enum_prop
from inference_constructs._grants import grant_managed
from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import InferenceConfigError, ProblemCollector
from inference_constructs.hosting.decisions import DEFAULT_VARIANT_NAME
from inference_constructs.hosting.interface import IInferenceEndpoint, MetricOptions
from inference_constructs.hosting.metrics import EndpointMetrics
from inference_constructs.observability.metric_table import MetricDefinition
from inference_constructs.spec import EndpointKind

__all__ = ["EndpointAttributes", "EndpointImportOptions", "EndpointImports", "ImportedEndpoint", "invoke_actions"]

#: SageMaker's endpoint name rule (CreateEndpoint ``EndpointName``).
_ENDPOINT_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_NAME_RULE = "1 to 63 letters, digits and hyphens, starting and ending with a letter or digit"
_ARN_FORM = "arn:<partition>:sagemaker:<region>:<account>:endpoint/<name>"
_ACCOUNT = re.compile(r"^\d{12}$")


def invoke_actions(kind: EndpointKind) -> list[str]:
    """The IAM actions that invoke an endpoint of ``kind``: ``InvokeEndpointAsync`` for async endpoints,
    ``InvokeEndpoint`` and ``InvokeEndpointWithResponseStream`` for the others."""
    if kind is EndpointKind.ASYNC:
        return ["sagemaker:InvokeEndpointAsync"]
    return ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]


@dataclass(frozen=True)
class _Resolved:
    """An imported endpoint's checked attributes."""

    name: str
    arn: str
    variant_name: str
    kind: EndpointKind


class _ImportedEndpoint(EndpointMetrics, Resource):
    """An existing SageMaker endpoint: its names and ARN, invoke grants and ``metric_*`` (no resource is created).

    The per-copy (inference component) metrics are not offered: use :meth:`metric` with
    ``dimensions_map={"InferenceComponentName": ...}``. An endpoint imported by ARN from another account or Region
    than its stack's is read there: the ARN's account and Region are its metrics' ``account`` and ``region`` (for
    a cross-account or cross-Region graph or alarm) unless the metric's options say otherwise.
    """

    def __init__(self, scope: Construct, construct_id: str, attributes: _Resolved) -> None:
        super().__init__(scope, construct_id, environment_from_arn=attributes.arn)
        self.endpoint_name: str = attributes.name
        self.endpoint_arn: str = attributes.arn
        self.variant_name: str = attributes.variant_name
        self.kind: EndpointKind = attributes.kind
        self.inference_component = None

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """Permit ``grantee`` to invoke the endpoint (``InvokeEndpointAsync`` when imported with kind ``async``), in a
        managed policy on an identity this app creates, as :meth:`InferenceEndpoint.grant_invoke` does."""
        return grant_managed(self, grantee, actions=invoke_actions(self.kind), resource_arns=[self.endpoint_arn])

    def _metric_environment(self) -> MetricOptions:
        """The ARN's account and Region where they are literals that differ from the stack's literal ones."""
        stack, found = Stack.of(self), MetricOptions()
        if _literals_differ(self.env.account, stack.account):
            found["account"] = self.env.account
        if _literals_differ(self.env.region, stack.region):
            found["region"] = self.env.region
        return found

    def _component_metric(self, definition: MetricDefinition, options: MetricOptions) -> NoReturn:
        raise InferenceConfigError(
            f"{self.node.path}: an imported endpoint does not know its inference component, so {definition.name} "
            "cannot be dimensioned; use metric(name, dimensions_map={'InferenceComponentName': ...})"
        )


class EndpointImportOptions(TypedDict, total=False):
    """What the importers (``from_endpoint_name``, ``from_endpoint_arn``, ``from_endpoint_attributes``) take
    besides the endpoint's name or ARN, as keyword arguments.

    ``variant_name``: the production variant the metrics are dimensioned on. Default: ``AllTraffic``.

    ``kind``: the hosting option (an :class:`EndpointKind` or its value): ``async`` makes ``grant_invoke`` grant
    ``InvokeEndpointAsync``, and the dashboard and alarms pick the metrics the kind publishes. Default: the kind of
    the class the importer is called on (``realtime`` for ``InferenceEndpoint`` and ``RealtimeEndpoint``, whose
    grant is ``InvokeEndpoint`` and ``InvokeEndpointWithResponseStream``).
    """

    variant_name: str
    kind: EndpointKind | str


class EndpointAttributes(EndpointImportOptions, total=False):
    """What ``from_endpoint_attributes`` takes (aws-cdk's ``EndpointAttributes``): the endpoint's name, its ARN, or
    both, and the :class:`EndpointImportOptions`.

    ``endpoint_name``: the endpoint's name, case as deployed. Default: the name in ``endpoint_arn``.

    ``endpoint_arn``: the endpoint's ARN; its account and Region are where the metrics are read. Default: formatted
    from ``endpoint_name`` in the stack's partition, Region and account.
    """

    endpoint_name: str
    endpoint_arn: str


class EndpointImports:
    """``from_endpoint_name``, ``from_endpoint_arn`` and ``from_endpoint_attributes``: an existing endpoint as an
    :class:`IInferenceEndpoint` (grants and metrics; nothing is created), as aws-cdk's ``Endpoint.fromEndpoint*``.

    Mixed into every endpoint construct class, so the importer sits where the endpoint's own class is: an endpoint
    imported through ``ServerlessEndpoint`` is a serverless one (its dashboard shows ``ModelSetupTime``, not
    instance metrics), through ``MultiModelEndpoint`` a multi-model one, through ``InferenceEndpoint`` or
    ``RealtimeEndpoint`` a real-time one, unless the ``kind`` option says otherwise.
    """

    #: The kind of an endpoint imported through this class when no ``kind`` is given.
    imported_kind: ClassVar[EndpointKind] = EndpointKind.REALTIME

    @classmethod
    def from_endpoint_name(
        cls, scope: Construct, construct_id: str, endpoint_name: str, **options: Unpack[EndpointImportOptions]
    ) -> IInferenceEndpoint:
        """An existing endpoint of the stack's account and Region, by its name (case as deployed: the metric
        dimensions use it as is; the ARN is formatted in the stack's partition, Region and account with the name
        lower-cased, as SageMaker writes it). ``options``: :class:`EndpointImportOptions`.

        Raises :class:`InferenceConfigError` as :meth:`from_endpoint_attributes` does.
        """
        return cls.from_endpoint_attributes(scope, construct_id, endpoint_name=endpoint_name, **options)

    @classmethod
    def from_endpoint_arn(
        cls, scope: Construct, construct_id: str, endpoint_arn: str, **options: Unpack[EndpointImportOptions]
    ) -> IInferenceEndpoint:
        """An existing endpoint in any account and Region, by its ARN
        (``arn:<partition>:sagemaker:<region>:<account>:endpoint/<name>``): its metrics are read in the ARN's
        account and Region. ``options``: :class:`EndpointImportOptions`.

        The name is taken from the ARN (with ``Arn.split`` for a token), where SageMaker writes it in lower case:
        for an endpoint whose name has capitals, give the exact name too (:meth:`from_endpoint_attributes`), as the
        metrics are dimensioned on it. Raises :class:`InferenceConfigError` as :meth:`from_endpoint_attributes`
        does.
        """
        return cls.from_endpoint_attributes(scope, construct_id, endpoint_arn=endpoint_arn, **options)

    @classmethod
    def from_endpoint_attributes(
        cls, scope: Construct, construct_id: str, **attributes: Unpack[EndpointAttributes]
    ) -> IInferenceEndpoint:
        """An existing endpoint by its name, its ARN, or both (:class:`EndpointAttributes`).

        Raises
        ------
        InferenceConfigError
            Neither name nor ARN; a literal name SageMaker refuses; an ARN that is not a SageMaker endpoint's, or
            whose name is not ``endpoint_name``; an empty ``variant_name``; an unknown ``kind``. Tokens are not
            checked.
        """
        endpoint_name, endpoint_arn = attributes.get("endpoint_name"), attributes.get("endpoint_arn")
        problems = ProblemCollector()
        try:
            kind = enum_prop("kind", attributes.get("kind", cls.imported_kind), EndpointKind)
        except InferenceConfigError as error:
            problems.extend(error.problems)
            kind = cls.imported_kind
        variant_name = attributes.get("variant_name", DEFAULT_VARIANT_NAME)
        if endpoint_name is None and endpoint_arn is None:
            problems.add("endpoint_name", "neither endpoint_name nor endpoint_arn is given", "give one or both")
        if endpoint_name is not None and not is_unresolved(endpoint_name) and not _ENDPOINT_NAME.match(endpoint_name):
            problems.add("endpoint_name", f"{endpoint_name!r} is not a SageMaker endpoint name", f"use {_NAME_RULE}")
        arn_name = _arn_name(endpoint_arn, problems) if endpoint_arn is not None else None
        if endpoint_name is not None and arn_name is not None and _names_differ(endpoint_name, arn_name):
            problems.add(
                "endpoint_name",
                f"{endpoint_name!r} is not the name in endpoint_arn ({arn_name!r})",
                "give the ARN's endpoint, or leave endpoint_name out",
            )
        if not is_unresolved(variant_name) and not variant_name:
            problems.add("variant_name", "is empty", f"give the production variant name, e.g. {DEFAULT_VARIANT_NAME}")
        problems.raise_if_any()
        name = endpoint_name if endpoint_name is not None else arn_name or ""
        arn = endpoint_arn if endpoint_arn is not None else _format_arn(scope, name)
        return _ImportedEndpoint(scope, construct_id, _Resolved(name, arn, variant_name, kind))


class ImportedEndpoint(_ImportedEndpoint):
    """An existing SageMaker endpoint, by both its name and its ARN, taken as given (``kind`` defaults to
    ``realtime``). Deprecated, and removed in the next release: use ``InferenceEndpoint.from_endpoint_attributes``
    (or ``from_endpoint_name`` / ``from_endpoint_arn``), which checks the name and ARN and returns an
    :class:`IInferenceEndpoint`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        endpoint_name: str,
        endpoint_arn: str,
        **options: Unpack[EndpointImportOptions],
    ) -> None:
        warnings.warn(
            "inference_constructs.hosting.ImportedEndpoint is deprecated and removed in the next release; use "
            "InferenceEndpoint.from_endpoint_attributes (or from_endpoint_name / from_endpoint_arn)",
            DeprecationWarning,
            stacklevel=2,
        )
        kind = enum_prop("kind", options.get("kind", EndpointKind.REALTIME), EndpointKind)
        variant_name = options.get("variant_name", DEFAULT_VARIANT_NAME)
        super().__init__(scope, construct_id, _Resolved(endpoint_name, endpoint_arn, variant_name, kind))


def _arn_name(arn: str, problems: ProblemCollector) -> str | None:
    """The endpoint name in ``arn`` (a token for a token ARN), or None with a problem recorded."""
    if is_unresolved(arn):
        return Arn.split(arn, ArnFormat.SLASH_RESOURCE_NAME).resource_name
    parts = arn.split(":", 5)
    resource, _, name = parts[5].partition("/") if len(parts) == 6 else ("", "", "")
    ok = len(parts) == 6 and parts[0] == "arn" and parts[1] and parts[2] == "sagemaker" and resource == "endpoint"
    if not ok or not parts[3] or not _ACCOUNT.match(parts[4]) or not _ENDPOINT_NAME.match(name):
        problems.add(
            "endpoint_arn",
            f"{arn!r} is not a SageMaker endpoint ARN",
            f"use {_ARN_FORM} with a 12-digit account and a name of {_NAME_RULE}",
            code="arn_format",
        )
        return None
    return name


def _format_arn(scope: Construct, name: str) -> str:
    # SageMaker lower-cases endpoint names in ARNs; a token name is used as is.
    arn_name = name if is_unresolved(name) else name.lower()
    return format_arn(Stack.of(scope), service="sagemaker", resource="endpoint", resource_name=arn_name)


def _names_differ(name: str, arn_name: str) -> bool:
    """Literal names that are not the same endpoint (the ARN's may be lower-cased)."""
    return _literals_differ(name, arn_name) and name.lower() != arn_name.lower()


def _literals_differ(own: str, other: str) -> bool:
    return not is_unresolved(own) and not is_unresolved(other) and own != other
