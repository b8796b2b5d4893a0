"""The scaling hooks of an endpoint construct: ``auto_scale``, ``auto_scale_copies`` and ``auto_scale_from_plan``
(a mixin of :class:`~inference_constructs.hosting.endpoint.InferenceEndpoint`, as aws-cdk's sagemaker endpoint
variant offers ``autoScaleInstanceCount``).

Each hook creates the scaling construct of :mod:`inference_constructs.scaling` (id ``Scaling``) that matches the
endpoint: variant instances, serverless provisioned concurrency, or the inference component's copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from constructs import Construct

from inference_constructs._synth_checks import add_synth_check
from inference_constructs.errors import ProblemCollector
from inference_constructs.scaling.autoscaling import EndpointScaling, ServerlessScaling
from inference_constructs.scaling.decisions import ScalableDimension, ScalingPlan
from inference_constructs.scaling.inference_component import InferenceComponentScaling, ModelInferenceComponent
from inference_constructs.spec import EndpointKind

if TYPE_CHECKING:
    from aws_cdk import aws_sagemaker as sagemaker
    from constructs import Node

    from inference_constructs.hosting.decisions import EndpointPlan
    from inference_constructs.hosting.request import Capacity

__all__ = ["EndpointScalingHooks"]

_C = TypeVar("_C", bound=Construct)


class EndpointScalingHooks:
    """The ``auto_scale*`` methods of an endpoint construct (a mixin: the endpoint supplies the names below)."""

    kind: EndpointKind
    plan: EndpointPlan
    endpoint_name: str
    variant_name: str
    scaling: Construct | None
    inference_component: ModelInferenceComponent | None
    resource: sagemaker.CfnEndpoint

    if TYPE_CHECKING:

        @property
        def node(self) -> Node: ...

        @property
        def capacity(self) -> Capacity: ...

        @property
        def gpu_count(self) -> int: ...

        @property
        def instance_type(self) -> str | None: ...

        def _key(self, name: str) -> str: ...

    @property
    def _construct(self) -> Construct:
        """This endpoint as the scope of its scaling construct."""
        assert isinstance(self, Construct)
        return self

    def _require_copy_scaling(self) -> None:
        """Refuse to synthesize an inference-component endpoint whose copies nothing scales (real-time min 0 needs
        copy scaling to reach zero)."""
        add_synth_check(self._construct, self._copies_not_scaled)

    def _copies_not_scaled(self) -> str | None:
        if self.scaling is not None or self.plan.capacity.min > 0:  # a component of several may keep warm copies
            return None
        return (
            f"{self._key('capacity.min')}: 0 on a realtime endpoint needs copy scaling to leave and return to zero; "
            "call auto_scale_from_plan(plan) or auto_scale_copies().scale_on_concurrency(per_copy=...)"
        )

    def auto_scale(self, *, min_capacity: int | None = None, max_capacity: int | None = None) -> EndpointScaling:
        """Scale this endpoint's instance count; add policies with ``scale_on_*`` on the returned object.

        ::

            endpoint.auto_scale(min_capacity=1, max_capacity=8).scale_on_concurrency(per_instance=8)

        Creates an :class:`~inference_constructs.scaling.EndpointScaling` (id ``Scaling``) on
        ``endpoint/<name>/variant/<variant>``, created after the endpoint. GPU-memory targets are
        multiplied by this host's GPU count; burstable (``ml.t*``) hosts are refused.

        Parameters
        ----------
        min_capacity:
            Fewest instances (0 only for async endpoints). Default: the endpoint's ``capacity.min``.
        max_capacity:
            Most instances, 1..1000. Default: the endpoint's ``capacity.max``.

        Raises
        ------
        InferenceConfigError
            A serverless endpoint (use ``auto_scale_provisioned_concurrency``), an endpoint hosted
            through an inference component (use :meth:`auto_scale_from_plan`), scaling added twice, or
            bounds the scaling rules refuse.
        """
        problems = ProblemCollector()
        if self.kind is EndpointKind.SERVERLESS:
            problems.add(
                self._key("type"),
                "a serverless endpoint has no instances to scale",
                "use auto_scale_provisioned_concurrency(...) on the serverless endpoint",
            )
        elif self.plan.uses_inference_component:
            problems.add(
                self._key("capacity.min"),
                "0 hosts the model through an inference component, whose copies scale, not the variant's instances",
                "use auto_scale_from_plan(plan_scaling(...)), or inference_component.auto_scale_copies(...)",
            )
        self._check_not_scaled(problems)
        problems.raise_if_any()
        host = self.plan.host
        scaling = EndpointScaling(
            self._construct,
            "Scaling",
            endpoint_name=self.endpoint_name,
            variant_name=self.variant_name,
            kind=self.kind,
            min_capacity=self.capacity.min if min_capacity is None else min_capacity,
            max_capacity=self.capacity.max if max_capacity is None else max_capacity,
            gpu_count=self.gpu_count,
            burstable=bool(host and host.instance.burstable),
            instance_type=self.instance_type,
            serving=self.plan.serving,
        )
        self._retain_variant_properties()
        return self._attach(scaling)

    def auto_scale_from_plan(self, plan: ScalingPlan) -> Construct | None:
        """Create the auto scaling a :class:`~inference_constructs.scaling.ScalingPlan` describes (id ``Scaling``).

        The plan comes from ``plan_scaling(...)`` or ``plan_from_config(...)`` for this same endpoint.
        Whatever it scales is built: variant instances (``EndpointScaling``), serverless provisioned
        concurrency (``ServerlessScaling``), or the inference component's copies
        with the ``NoCapacityInvocationFailures`` wake-up (real-time ``capacity.min: 0``).

        Parameters
        ----------
        plan:
            The scaling decisions of this endpoint.

        Returns
        -------
        Construct | None
            The scaling construct, or ``None`` when the plan is not enabled (fixed capacity, no policies).

        Raises
        ------
        InferenceConfigError
            The plan was made for another kind, dimension or capacity than this endpoint's, or scaling
            was already added.
        """
        problems = ProblemCollector()
        self._check_plan(plan, problems)
        if plan.enabled:
            self._check_not_scaled(problems)
        problems.raise_if_any()
        if not plan.enabled:
            return None
        if plan.uses_inference_component and self.inference_component is not None:
            # ModelInferenceComponent makes the copy scaling depend on the component, which depends on the endpoint.
            self.scaling = self.inference_component.auto_scale_from_plan(plan)
            return self.scaling
        if plan.dimension is ScalableDimension.PROVISIONED_CONCURRENCY:
            return self._attach(
                ServerlessScaling.from_plan(
                    self._construct,
                    "Scaling",
                    endpoint_name=self.endpoint_name,
                    plan=plan,
                    variant_name=self.variant_name,
                )
            )
        if plan.owns_variant_instance_count:
            self._retain_variant_properties()
        return self._attach(
            EndpointScaling.from_plan(
                self._construct, "Scaling", endpoint_name=self.endpoint_name, plan=plan, variant_name=self.variant_name
            )
        )

    def _retain_variant_properties(self) -> None:
        """Application Auto Scaling now owns the variant's instance count: updates keep it (the rule and its source
        are in :mod:`inference_constructs.hosting.deployment`)."""
        self.resource.retain_all_variant_properties = True

    def _check_not_scaled(self, problems: ProblemCollector) -> None:
        if self.scaling is not None:
            problems.add(
                self._key("scaling"),
                f"auto scaling was already added to {self.node.path}",
                "add policies to the object the first call returned (endpoint.scaling)",
            )

    def _attach(self, scaling: _C) -> _C:
        # endpoint_name is a literal string, so the scalable target needs an explicit dependency.
        scaling.node.add_dependency(self.resource)
        self.scaling = scaling
        return scaling

    def _check_plan(self, plan: ScalingPlan, problems: ProblemCollector) -> None:
        """The plan must describe this endpoint: same kind, scaled dimension and capacity."""
        mismatch = self._plan_mismatch(plan)
        if mismatch is not None:
            key, problem = mismatch
            problems.add(
                self._key(key),
                problem,
                "plan the scaling from this endpoint's own config (same type, capacity and serverless keys)",
            )

    def _plan_mismatch(self, plan: ScalingPlan) -> tuple[str, str] | None:
        """(key, what differs) of the first way ``plan`` does not describe this endpoint; None when it does."""
        if plan.kind is not self.kind:
            return "type", f"the scaling plan is for a {plan.kind.value} endpoint, this one is {self.kind.value}"
        if self.kind is EndpointKind.SERVERLESS:
            expected = ScalableDimension.PROVISIONED_CONCURRENCY
        elif self.plan.uses_inference_component:
            expected = ScalableDimension.INFERENCE_COMPONENT_COPIES
        else:
            expected = ScalableDimension.VARIANT_INSTANCES
        if plan.dimension is not expected:
            return (
                "capacity.min",
                f"the scaling plan scales {plan.dimension.value}, but this endpoint scales {expected.value}",
            )
        if self.kind is EndpointKind.SERVERLESS:
            s = self.plan.serverless
            want = (s.provisioned_concurrency, s.max_concurrency) if s else (0, 0)
            key, what = "serverless", "provisioned_concurrency..max_concurrency"
        else:
            want = (self.capacity.min, self.capacity.max)
            key, what = "capacity", "capacity"
        got = (plan.min_capacity, plan.max_capacity)
        if got != want:
            return (
                key,
                f"the scaling plan's range {got[0]}..{got[1]} differs from this endpoint's {what} {want[0]}..{want[1]}",
            )
        return None

    def auto_scale_copies(
        self, *, min_copy_count: int | None = None, max_copy_count: int | None = None
    ) -> InferenceComponentScaling:
        """Scale the inference component's copies (real-time ``capacity.min: 0`` only); add a policy on the result.

        ::

            endpoint.auto_scale_copies().scale_on_concurrency(per_copy=8)

        With minimum 0 it also creates the wake-up: a +1 copy step policy driven by an alarm on
        ``NoCapacityInvocationFailures >= 1``. Add ``scale_on_concurrency`` or ``scale_on_invocations`` so
        copies return to zero when idle.

        Parameters
        ----------
        min_copy_count:
            Fewest copies. Default: the endpoint's ``capacity.min`` (0).
        max_copy_count:
            Most copies. Default: the endpoint's ``capacity.max`` (one copy fills one instance).

        Raises
        ------
        InferenceConfigError
            The endpoint is not hosted through an inference component, or scaling was already added.
        """
        problems = ProblemCollector()
        if self.inference_component is None:
            problems.add(
                self._key("capacity.min"),
                f"{self.capacity.min} keeps the model on the variant, which has no inference component copies",
                "use auto_scale(...), or capacity min 0 on a realtime endpoint",
            )
        self._check_not_scaled(problems)
        problems.raise_if_any()
        assert self.inference_component is not None
        scaling = self.inference_component.auto_scale_copies(
            min_copy_count=self.capacity.min if min_copy_count is None else min_copy_count,
            max_copy_count=self.capacity.max if max_copy_count is None else max_copy_count,
        )
        self.scaling = scaling
        return scaling
