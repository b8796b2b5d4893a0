"""Deprecated alias of :mod:`inference_loadtest`; removed in the next minor release.

The load tester is its own distribution, ``inference-loadtest``, which the library's ``loadtest`` extra installs
(``pip install 'inference-constructs[loadtest]'``): import from ``inference_loadtest`` instead. This module
re-exports the names ``inference_loadtest`` exports; its submodules (``runner``, ``server``, ...) are only
there, under ``inference_loadtest``. The library itself never imports this module.
"""

import warnings

try:
    import inference_loadtest as _tester
    from inference_loadtest import *  # noqa: F403 - the alias is exactly the tester's public names
except ModuleNotFoundError as exc:
    if exc.name != "inference_loadtest":
        raise
    raise ModuleNotFoundError(
        "inference_constructs.loadtest moved to the inference-loadtest distribution (import inference_loadtest); "
        "install it with: pip install 'inference-constructs[loadtest]'",
        name=exc.name,
    ) from None

warnings.warn(
    "inference_constructs.loadtest is deprecated and removed in the next minor release; import inference_loadtest",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = list(_tester.__all__)
