"""Every decision for one config endpoint: :class:`EndpointDecisions`, made by :func:`decide_endpoint` (hosting,
then scaling on the chosen host), and the weekly capacity schedule the commitment is sized on.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from inference_constructs.catalog import Catalog
from inference_constructs.config.schema import CapacityConfig, Endpoint, Scaling
from inference_constructs.cost.commitment import CapacitySchedule
from inference_constructs.errors import InferenceConfigError
from inference_constructs.hosting.components_plan import plan_hosting
from inference_constructs.hosting.decisions import EndpointPlan, EndpointRequest
from inference_constructs.layout import EndpointFootprint
from inference_constructs.observability.decisions import AlarmDecision
from inference_constructs.plan.endpoint_entry import container_entry, host_entry, hosting_entry, serverless_entry
from inference_constructs.plan.endpoint_request import endpoint_request, model_spec
from inference_constructs.plan.scaling import plan_from_config
from inference_constructs.scaling.decisions import ScalingPlan
from inference_constructs.sizing import HostDecision
from inference_constructs.spec import EndpointKind, ModelSpec
from inference_constructs.units import HOURS_PER_MONTH

__all__ = ["HOURS_PER_MONTH", "EndpointDecisions", "capacity_schedule", "decide_endpoint"]

#: Hours in a billing month (AWS convention: 365 × 24 / 12).


@dataclass(frozen=True)
class EndpointDecisions:
    """Every decision for one config endpoint: hosting (host, image, environment, timeouts, update policy),
    scaling, and the stack it is built in.

    ``host`` is None for serverless endpoints (SageMaker picks the compute; billing is per request).
    ``request`` is what the hosting plan was made from (the constructs take it with the plan), and
    ``schedule`` the weekly capacity schedule the commitment and the capacity tags are sized on (None for
    serverless), so the stacks read the plan only.
    """

    index: int
    config: Endpoint
    model: ModelSpec
    hosting: EndpointPlan
    scaling: ScalingPlan
    warnings: tuple[str, ...] = ()
    stack: str = ""
    request: EndpointRequest | None = None
    schedule: CapacitySchedule | None = None
    endpoint_name: str = ""
    """The SageMaker endpoint name clients invoke: ``<platform>-<endpoint>`` (stable across updates)."""
    alarms: tuple[AlarmDecision, ...] = ()
    """The endpoint's monitoring alarms (latency and traffic anomalies, error rate, backlog, cold start), built in
    its hosting stack on the platform's alarm topic."""
    component_scaling: tuple[ScalingPlan, ...] = ()
    """The copy scaling of every inference component after the first (``components[1:]``; the first's is
    ``scaling``); empty for an endpoint without ``components``."""

    @property
    def footprint(self) -> EndpointFootprint:
        """What decides this endpoint's resource count (for sharding)."""
        sp = self.scaling
        return EndpointFootprint(
            kind=self.kind,
            scaling_policies=len(sp.target_tracking),
            scaling_enabled=sp.enabled,
            wake_up=sp.wake_up is not None,
            inference_component=sp.uses_inference_component,
            rollback_alarms=self.hosting.deployment.rollback_on_alarms,
            staged=self.hosting.model_data.staging is not None,
            pool_models=sum(p.own_model for p in pools.pools) if (pools := self.hosting.instance_pools) else 0,
            extra_resources=self._component_resources(),
        )

    def _component_resources(self) -> int:
        """Resources of the components after the first and of the adapters: a model and a component each, their
        rollback alarms, and their copy scaling (target, policies, the wake-up step policy and alarm)."""
        c = self.hosting.components
        if c is None:
            return 0
        rollback = 2 if self.hosting.deployment.rollback_on_alarms else 0
        scaling = sum(
            1 + len(sp.target_tracking) + (2 if sp.wake_up is not None else 0) for sp in self.component_scaling
        )
        # each further component: its model and component, rollback alarms and up to 4 monitoring alarms
        return len(c.components[1:]) * (2 + rollback + 4) + scaling + len(c.adapters)

    @property
    def hosting_request(self) -> EndpointRequest:
        """The request the hosting plan was made from."""
        return self.request if self.request is not None else endpoint_request(self.config)

    @property
    def host(self) -> HostDecision | None:
        """The host decision, None for serverless."""
        return self.hosting.host

    @property
    def path(self) -> str:
        """Key path of this endpoint in the config file, e.g. ``endpoints[2]``."""
        return f"endpoints[{self.index}]"

    @property
    def name(self) -> str:
        """Endpoint name from the config."""
        return self.config.name

    @property
    def kind(self) -> EndpointKind:
        """Hosting option."""
        return self.config.type

    @property
    def price_per_hour_usd(self) -> float | None:
        """On-demand price of one instance per hour; None for serverless."""
        return self.host.price_per_hour_usd if self.host else None

    @property
    def monthly_usd_at_min(self) -> float | None:
        """On-demand cost of a month at minimum capacity (730 h): ``capacity.min`` instances, or the instances an
        inference-components endpoint's minimum copies need where that is more; None for serverless."""
        price = self.price_per_hour_usd
        components = self.hosting.components
        instances = self.config.capacity.min if components is None else components.billed_instances_at_min
        return None if price is None else round(price * instances * HOURS_PER_MONTH, 2)

    @property
    def monthly_usd_at_max(self) -> float | None:
        """On-demand cost of a month at maximum capacity (730 h); None for serverless."""
        price = self.price_per_hour_usd
        return None if price is None else round(price * self.config.capacity.max * HOURS_PER_MONTH, 2)

    def to_json(self) -> dict[str, Any]:
        """The plan entry (``docs/config.md``, "The plan")."""
        host, h = self.host, self.hosting
        entry: dict[str, Any] = {"name": self.name, "type": self.kind.value}
        if host is None:
            entry.update(serverless_entry(h))
        else:
            entry.update(
                host_entry(host, monthly_usd_at_min=self.monthly_usd_at_min, monthly_usd_at_max=self.monthly_usd_at_max)
            )
        entry["stack"] = self.stack
        entry["endpoint_name"] = self.endpoint_name
        entry["capacity"] = {"min": self.config.capacity.min, "max": self.config.capacity.max}
        entry["container"] = container_entry(h)
        entry["hosting"] = hosting_entry(h)
        entry["scaling"] = self.scaling.to_dict()
        entry["network_isolation"] = {"enabled": h.network_isolation, "reason": h.network_isolation_reason}
        # How a gated or private hub model's token is used: staged into S3 by a job, or (opt-in) in the environment.
        entry["model_access"] = h.model_access.to_json() if h.model_access else None
        entry["deployment"] = h.update_policy.to_dict()
        # Null unless real-time with capacity.min 0, and unless serverless.
        entry["inference_component"] = asdict(h.inference_component) if h.inference_component else None
        entry["serverless"] = asdict(h.serverless) if h.serverless else None
        if h.components is not None:  # only with components, so other plans keep their shape
            entry["components"] = h.components.to_dict()
            scalings = (self.scaling, *self.component_scaling)
            for component, planned, scaling in zip(
                entry["components"]["components"], h.components.components, scalings, strict=True
            ):
                component["container"] = container_entry(planned.plan)
                component["inference_component"] = {
                    "accelerator_devices": planned.accelerator_devices,
                    "min_memory_required_mb": planned.min_memory_required_mb,
                    "max_instance_count": h.components.max_instance_count,
                    "initial_instance_count": planned.copy_count,
                }
                component["deployment"] = planned.plan.update_policy.to_dict()
                component["scaling"] = scaling.to_dict()
        entry["alarms"] = [a.to_dict() for a in self.alarms]
        entry["decisions"] = list(self.hosting.reasons)
        entry["warnings"] = list(self.warnings)
        return entry


def decide_endpoint(index: int, endpoint: Endpoint, catalog: Catalog) -> EndpointDecisions:
    """Every decision for one config endpoint. Raises InferenceConfigError listing its problems."""
    path = f"endpoints[{index}]"
    _check_component_keys(endpoint, path)
    request = endpoint_request(endpoint)
    hosting = plan_hosting(request, catalog=catalog, path=path)
    host = hosting.host
    scaled = [(path, endpoint)]
    if endpoint.components:
        scaled = [
            (
                f"{path}.components[{i}]",
                endpoint.model_copy(
                    update={
                        "capacity": CapacityConfig(min=c.copies.min, max=c.copies.max),
                        "scaling": c.scaling or Scaling(),
                    }
                ),
            )
            for i, c in enumerate(endpoint.components)
        ]
    scaling, *component_scaling = [
        plan_from_config(
            key,
            cfg,
            gpu_count=hosting.gpu_count,
            burstable=bool(host and host.instance.burstable),
            instance_type=hosting.instance_type,
            inference_component=hosting.uses_inference_component,
        )
        for key, cfg in scaled
    ]
    if scaling.owns_variant_instance_count:
        # Application Auto Scaling owns the instance count: an update keeps it (see hosting.deployment).
        hosting = replace(hosting, update_policy=replace(hosting.update_policy, retain_all_variant_properties=True))
    return EndpointDecisions(
        index=index,
        config=endpoint,
        model=model_spec(endpoint),
        hosting=hosting,
        scaling=scaling,
        warnings=tuple(_named(w, path, endpoint.name) for w in (*scaling.warnings, *hosting.warnings)),
        request=request,
        schedule=_capacity_schedule(endpoint, hosting) if host is not None else None,
        component_scaling=tuple(component_scaling),
    )


def _check_component_keys(endpoint: Endpoint, path: str) -> None:
    """The keys that only apply with ``components``, and the endpoint keys a component gives instead."""
    problems: list[str] = []
    if not endpoint.components:
        for key in ("adapters", "placement", "max_az_imbalance", "data_cache"):
            if getattr(endpoint, key) not in (None, []):
                problems.append(f"{path}.{key}: only applies with components; list the models under components")
    elif endpoint.scaling != Scaling():
        problems.append(f"{path}.scaling: an endpoint with components scales each one; set components[].scaling")
    if problems:
        raise InferenceConfigError(problems)


def _named(warning: str, path: str, name: str) -> str:
    """``warning`` with the endpoint's name after its leading key path: ``endpoints[2].scaling (chat): ...``; a
    warning that does not start with the endpoint's key path gets ``endpoints[2] (chat): `` in front."""
    key = re.match(re.escape(path) + r"[\w.\[\]]*", warning)
    if key is None:
        return f"{path} ({name}): {warning}"
    return f"{key.group()} ({name}){warning[key.end() :]}"


def capacity_schedule(decisions: EndpointDecisions) -> CapacitySchedule:
    """The weekly capacity schedule of an instance-backed endpoint (min, scheduled floors, max, price)."""
    if decisions.schedule is not None:
        return decisions.schedule
    return _capacity_schedule(decisions.config, decisions.hosting)


def _capacity_schedule(cfg: Endpoint, hosting: EndpointPlan) -> CapacitySchedule:
    return CapacitySchedule(
        price_per_hour_usd=hosting.host.price_per_hour_usd if hosting.host else 0.0,
        min_capacity=cfg.capacity.min,
        max_capacity=cfg.capacity.max,
        floors=tuple((floor.cron, floor.min) for floor in cfg.scaling.schedule),
        name=cfg.name,
    )
