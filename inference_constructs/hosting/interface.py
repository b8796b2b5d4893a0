"""What every endpoint construct offers, whatever its kind: :class:`IInferenceEndpoint` (and the
:class:`MetricOptions` of its ``metric*`` methods).

Code that invokes, grants on or watches an endpoint (alarms, dashboards, an API in front of it) takes an
``IInferenceEndpoint`` rather than a concrete kind. Both live in :mod:`inference_constructs.interfaces`, below every
package that uses them; this module re-exports them.
"""

from __future__ import annotations

from inference_constructs.interfaces import IInferenceEndpoint, MetricOptions

__all__ = ["IInferenceEndpoint", "MetricOptions"]
