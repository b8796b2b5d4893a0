"""Deprecated: moved to :mod:`inference_constructs.plan.scaling`, removed in the next release."""

from inference_constructs._lazy import moved_module

__getattr__, __dir__ = moved_module(__name__, "inference_constructs.plan.scaling")
