"""Lazy re-exports (PEP 562) for package ``__init__`` modules (private).

Pure decision modules (sizing, plan, commitment, model-source parsing) must import without loading
aws_cdk, so a package whose public API also holds constructs resolves each name on first use.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], *, deprecated: Collection[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` resolving ``name -> submodule`` on first access.

    ``exports`` maps each public name to the module (relative to ``package``, e.g. ``".sizing"``)
    that defines it. ``deprecated``: the names ``package`` keeps offering for one release only (their home is
    elsewhere now); each access to one warns (``DeprecationWarning``) with its module. Default: none.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - module-level __getattr__ (PEP 562)
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if name in deprecated:
            warnings.warn(
                f"{package}.{name} is deprecated and removed in the next release; import it from {module}",
                DeprecationWarning,
                stacklevel=2,
            )
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:  # noqa: N807 - module-level __dir__ (PEP 562)
        return sorted(set(exports) | set(vars(sys.modules[package])))

    return __getattr__, __dir__


def moved_module(package: str, new: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, the old path of module ``new`` kept for one release.

    Every name of ``new`` still resolves from ``package``, to the same object, with a ``DeprecationWarning``
    naming ``new``; ``package`` imports nothing until a name is read.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - module-level __getattr__ (PEP 562)
        if name.startswith("__"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(new), name)
        warnings.warn(
            f"{package} is deprecated and removed in the next release; import {name} from {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    def __dir__() -> list[str]:  # noqa: N807 - module-level __dir__ (PEP 562)
        return sorted(set(getattr(importlib.import_module(new), "__all__", ())) | set(vars(sys.modules[package])))

    return __getattr__, __dir__


def renamed(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """``__getattr__`` for ``package`` resolving each old name in ``names`` (old -> new) to the object of its new name.

    For public names renamed in place, kept for one release: each access warns (``DeprecationWarning``) with the new
    name.
    """
    return _deprecated(
        package,
        names,
        lambda name, new: getattr(sys.modules[package], new),
        lambda name, new: f"it is {package}.{new} now",
    )


def moved_names(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """``__getattr__`` for ``package`` resolving each name in ``names`` (name -> the module it lives in now).

    For names a module re-exported and no longer does, kept for one release: each access warns
    (``DeprecationWarning``) with the module to import the name from.
    """
    return _deprecated(
        package,
        names,
        lambda name, new: getattr(importlib.import_module(new), name),
        lambda name, new: f"import {name} from {new}",
    )


def _deprecated(
    package: str,
    names: Mapping[str, str],
    resolve: Callable[[str, str], Any],
    instead: Callable[[str, str], str],
) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:  # noqa: N807 - module-level __getattr__ (PEP 562)
        new = names.get(name)
        if new is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        warnings.warn(
            f"{package}.{name} is deprecated and removed in the next release; {instead(name, new)}",
            DeprecationWarning,
            stacklevel=2,
        )
        return resolve(name, new)

    return __getattr__
