"""What the dashboard and alarms watch: small value objects, independent of the hosting and Bedrock constructs.

:meth:`MonitoredEndpoint.of` and :meth:`MonitoredProfile.of` read them off an endpoint construct (built or imported:
any :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`) or an application inference profile, and
``InferenceDashboard`` / ``InferenceAlarms`` take those constructs directly; the app's config layer builds these
values from the plan. Observability reads only the attributes, so it does not depend on how the endpoint or
profile was built (and this module never imports aws_cdk).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from inference_constructs._tokens import is_unresolved
from inference_constructs.errors import ProblemCollector
from inference_constructs.spec import EndpointKind

if TYPE_CHECKING:
    from inference_constructs.interfaces import IInferenceEndpoint

_ACCOUNT_ID = re.compile(r"^\d{12}$")


class _CopiedModel(Protocol):
    """What :meth:`MonitoredProfile.of` reads of the model a profile copies (a Bedrock ``ModelSource``)."""

    @property
    def value(self) -> str:
        """The model or system profile as given (id or ARN), shown in widget titles."""
        ...


@runtime_checkable
class _InferenceProfile(Protocol):
    """What :meth:`MonitoredProfile.of` reads from an ``ApplicationInferenceProfile``."""

    @property
    def profile_name(self) -> str: ...

    @property
    def profile_id(self) -> str: ...

    @property
    def model_source(self) -> _CopiedModel: ...


def _foreign_account(resource: object) -> str | None:
    """The literal account of a CDK resource imported from another account (``env.account`` of an ARN importer)
    when it differs from its stack's, else None (metrics are then read from the account the stack deploys to)."""
    env, stack = getattr(resource, "env", None), getattr(resource, "stack", None)
    account = getattr(env, "account", None)
    if not isinstance(account, str) or not _ACCOUNT_ID.match(account):
        return None
    return None if account == getattr(stack, "account", None) else account


def key(path: str, name: str) -> str:
    """Join a key path prefix and a key: ``key("observability", "x")`` is ``observability.x``."""
    if not path:
        return name
    if name.startswith("["):
        return f"{path}{name}"
    return f"{path}.{name}"


@dataclass(frozen=True)
class MonitoredEndpoint:
    """A SageMaker endpoint variant the app knows about.

    Parameters
    ----------
    name:
        Endpoint name (may be a token, e.g. ``endpoint.attr_endpoint_name``).
    variant_name:
        Production variant name (dimension ``VariantName``).
    kind:
        Hosting option; decides which metrics exist (async endpoints publish no ``Invocations``, serverless ones
        publish ``ModelSetupTime`` and no instance metrics).
    gpu_count:
        GPUs on one host. GPU metrics of ``/aws/sagemaker/Endpoints`` run 0–100 × this count, so per-endpoint
        widgets divide by it. Default: 0, the host has no GPU and gets no GPU widget.
    instance_type:
        ``ml.*`` instance type, shown in widget titles. Default: not shown (serverless endpoints have none).
    account_id:
        Account that hosts the endpoint, for a dashboard in a monitoring account. Default: the metrics are read
        from the account the dashboard is deployed in.
    inference_component_name:
        Name of the inference component that serves the model (real-time endpoints that scale to zero). Its
        invocation metrics (``Invocations``, ``ModelLatency``, ``Invocation*Errors`` in ``AWS/SageMaker``) carry
        the ``InferenceComponentName`` dimension instead of ``EndpointName, VariantName``. Default: the model is
        served by the variant itself.
    enhanced_metrics:
        True when the endpoint config turns ``MetricsConfig.EnableEnhancedMetrics`` on (real-time endpoints only):
        SageMaker then also publishes its metrics per instance (``InstanceId``), its GPU metrics per GPU
        (``AcceleratorId``) and an inference component's invocation metrics per container (``ContainerId``), and
        the dashboard graphs each instance and each GPU as its own line. Default: False, only the variant's
        aggregate metrics are graphed.
    """

    name: str
    variant_name: str = "AllTraffic"
    kind: EndpointKind = EndpointKind.REALTIME
    gpu_count: int = 0
    instance_type: str | None = None
    account_id: str | None = None
    inference_component_name: str | None = None
    enhanced_metrics: bool = False
    component: str | None = None
    """The config name of the inference component watched, when it is one of several after the first (its alarms'
    ids and descriptions name it). Default: the endpoint's own (or first) model."""

    @classmethod
    def of(
        cls, endpoint: IInferenceEndpoint | MonitoredEndpoint, *, account_id: str | None = None
    ) -> MonitoredEndpoint:
        """What the dashboard and alarms need to know of an endpoint construct, built or imported.

        From a built endpoint (``RealtimeEndpoint``, ...): its name, variant, kind, GPU count, instance type,
        inference component and whether its plan turns enhanced metrics on. From an imported one
        (``from_endpoint_name``, ...): its name, variant and kind (no GPU widgets: the host is not known), and the
        ARN's account when it is not the stack's. A ``MonitoredEndpoint`` is returned as is.

        Parameters
        ----------
        endpoint:
            Any :class:`~inference_constructs.hosting.interface.IInferenceEndpoint`.
        account_id:
            Account that hosts the endpoint. Default: the account of an endpoint imported by ARN from another
            account, else none (the dashboard's own account).
        """
        if isinstance(endpoint, MonitoredEndpoint):
            return endpoint
        component = getattr(endpoint, "inference_component", None)
        return cls(
            name=endpoint.endpoint_name,
            variant_name=endpoint.variant_name,
            kind=getattr(endpoint, "kind", EndpointKind.REALTIME),
            gpu_count=getattr(endpoint, "gpu_count", 0),
            instance_type=getattr(endpoint, "instance_type", None),
            account_id=account_id or _foreign_account(endpoint),
            inference_component_name=getattr(component, "inference_component_name", None),
            enhanced_metrics=enhanced_metrics_on(getattr(endpoint, "plan", None)),
        )


def enhanced_metrics_on(plan: object) -> bool:
    """True when an endpoint plan (anything with a ``metrics_config`` whose ``enable_enhanced_metrics`` is set)
    turns ``MetricsConfig.EnableEnhancedMetrics`` on; False without a plan, a metrics config or that field."""
    metrics_config = getattr(plan, "metrics_config", None)
    return getattr(metrics_config, "enable_enhanced_metrics", None) is True


@dataclass(frozen=True)
class MonitoredProfile:
    """A Bedrock application inference profile the app knows about.

    Parameters
    ----------
    name:
        Human-readable name used in widget titles and alarm descriptions.
    profile_id:
        Inference profile id (may be a token: ``Ref`` of ``AWS::Bedrock::ApplicationInferenceProfile``). Traffic
        through the profile carries it as the ``ModelId`` dimension of ``AWS/Bedrock``.
    model:
        The model or system profile the application profile copies, shown in widget titles. Default: not shown.
    account_id:
        Account that owns the profile, for a dashboard in a monitoring account. Default: the metrics are read from
        the account the dashboard is deployed in.
    """

    name: str
    profile_id: str
    model: str = ""
    account_id: str | None = None

    @classmethod
    def of(cls, profile: _InferenceProfile | MonitoredProfile, *, name: str | None = None) -> MonitoredProfile:
        """What the dashboard and alarms need to know of an ``ApplicationInferenceProfile`` construct: its id
        (the ``ModelId`` dimension), its name and the model it copies. A ``MonitoredProfile`` is returned as is.

        Parameters
        ----------
        profile:
            The profile construct.
        name:
            Title in widgets and alarm ids. Default: the profile's ``InferenceProfileName``.
        """
        if isinstance(profile, MonitoredProfile):
            return profile
        return cls(name=name or profile.profile_name, profile_id=profile.profile_id, model=profile.model_source.value)


#: What ``InferenceDashboard`` and ``InferenceAlarms`` take as an endpoint: a construct or its description.
EndpointLike: TypeAlias = "IInferenceEndpoint | MonitoredEndpoint"
#: What ``InferenceDashboard`` and ``InferenceAlarms`` take as a profile: a construct or its description.
ProfileLike: TypeAlias = "_InferenceProfile | MonitoredProfile"


def monitored_endpoints(endpoints: Sequence[EndpointLike]) -> list[MonitoredEndpoint]:
    """Each of ``endpoints`` as a :class:`MonitoredEndpoint` (:meth:`MonitoredEndpoint.of`), each endpoint
    construct that hosts several inference components followed by one per further component
    (:func:`with_components`)."""
    return [m for e in endpoints for m in with_components(e)]


def with_components(endpoint: EndpointLike, first: MonitoredEndpoint | None = None) -> list[MonitoredEndpoint]:
    """The endpoint as the dashboard and alarms watch it, then each of its inference components after the first
    (an ``InferenceComponentsEndpoint``'s ``components``: the same endpoint, that component's
    ``InferenceComponentName`` and its config name as ``component``). Any other endpoint: itself only.

    ``first`` is the endpoint's own description when the caller knows it better than the construct (the platform
    reads it off the plan). Default: :meth:`MonitoredEndpoint.of` ``(endpoint)``."""
    first = first or MonitoredEndpoint.of(endpoint)
    further = getattr(endpoint, "components", None) if not isinstance(endpoint, MonitoredEndpoint) else None
    if not isinstance(further, Mapping):
        return [first]
    return [
        first,
        *(
            replace(first, inference_component_name=resources.component.inference_component_name, component=name)
            for name, resources in further.items()
        ),
    ]


def monitored_profiles(profiles: Sequence[ProfileLike]) -> list[MonitoredProfile]:
    """Each of ``profiles`` as a :class:`MonitoredProfile` (:meth:`MonitoredProfile.of`)."""
    return [MonitoredProfile.of(p) for p in profiles]


def validate_endpoints(endpoints: Sequence[MonitoredEndpoint], *, path: str = "endpoints") -> list[str]:
    """Problems with the monitored endpoints, one ``<key path>: <what>; <fix>`` line each (empty when valid)."""
    problems = ProblemCollector()
    seen: set[tuple[str, str, str | None]] = set()
    for index, endpoint in enumerate(endpoints):
        where = key(path, f"[{index}]")
        if not is_unresolved(endpoint.name) and not endpoint.name:
            problems.add(key(where, "name"), "is empty", "give the endpoint name")
        if not is_unresolved(endpoint.variant_name) and not endpoint.variant_name:
            problems.add(key(where, "variant_name"), "is empty", "give the production variant name, e.g. AllTraffic")
        if endpoint.gpu_count < 0:
            problems.add(key(where, "gpu_count"), f"{endpoint.gpu_count} is negative", "use 0 for hosts without gpus")
        if endpoint.kind is EndpointKind.SERVERLESS and endpoint.gpu_count > 0:
            problems.add(
                key(where, "gpu_count"),
                f"{endpoint.gpu_count} gpus on a serverless endpoint",
                "serverless endpoints run on cpu only; use 0",
            )
        if endpoint.account_id is not None and not _ACCOUNT_ID.match(endpoint.account_id):
            problems.add(key(where, "account_id"), f"{endpoint.account_id!r} is not an aws account id", "use 12 digits")
        if endpoint.enhanced_metrics and endpoint.kind is not EndpointKind.REALTIME:  # the enhanced-metrics page
            problems.add(
                key(where, "enhanced_metrics"),
                f"is true for a {endpoint.kind.value} endpoint",
                "sagemaker documents enhanced metrics for realtime endpoints only; set it false",
            )
        if not is_unresolved(endpoint.name):
            pair = (endpoint.name, endpoint.variant_name, endpoint.component)
            if pair in seen:
                shown = "/".join(x for x in pair if x)
                problems.add(key(where, "name"), f"{shown} is listed twice", "list it once")
            seen.add(pair)
    return problems.problems


def validate_profiles(profiles: Sequence[MonitoredProfile], *, path: str = "profiles") -> list[str]:
    """Problems with the monitored Bedrock profiles (empty when valid)."""
    problems = ProblemCollector()
    for index, profile in enumerate(profiles):
        where = key(path, f"[{index}]")
        if not profile.name:
            problems.add(key(where, "name"), "is empty", "give the profile a name")
        if not is_unresolved(profile.profile_id) and not profile.profile_id:
            problems.add(key(where, "profile_id"), "is empty", "pass the inference profile id (Ref of the profile)")
        if profile.account_id is not None and not _ACCOUNT_ID.match(profile.account_id):
            problems.add(key(where, "account_id"), f"{profile.account_id!r} is not an aws account id", "use 12 digits")
    return problems.problems


def validate_account_ids(account_ids: Iterable[str], *, path: str = "source_account_ids") -> list[str]:
    """Problems with source account ids: each must be 12 digits, as a string, listed once."""
    problems = ProblemCollector()
    seen: set[str] = set()
    for index, account in enumerate(account_ids):
        where = key(path, f"[{index}]")
        if not isinstance(account, str) or not _ACCOUNT_ID.match(account):
            problems.add(where, f"{account!r} is not an aws account id", "use 12 digits as a quoted string")
        elif account in seen:
            problems.add(where, f"{account} is listed twice", "list each account once")
        else:
            seen.add(account)
    return problems.problems
