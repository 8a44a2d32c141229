"""Reasoning methods, each written once against the model and domain seams.

The catalogue is collected from the modules of this package: each declares ``SPEC`` (or
``SPECS``), a :class:`~solver.methods.spec.MethodSpec`. Adding a method is adding a module:
the command line, the app's dialogs and the panes read it from here (home's first frame
reads the light table :mod:`solver.methods.listing`, which gives way to this catalogue once
it is loaded). The catalogue is collected when first asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from solver.roles import Role

if TYPE_CHECKING:
    from solver.methods.base import Method, Outcome, RunContext, run_method, solve
    from solver.methods.spec import MethodSpec, OptionInfo

    METHODS: dict[str, MethodSpec]

__all__ = [
    "METHODS",
    "Method",
    "MethodSpec",
    "OptionInfo",
    "Outcome",
    "RunContext",
    "all_options",
    "find_spec",
    "make_method",
    "methods_for",
    "run_method",
    "solve",
]

_NOT_METHODS = ("base", "spec", "listing")
"""Modules of this package that declare no method."""

_LAZY = {
    "Method": "solver.methods.base",
    "Outcome": "solver.methods.base",
    "RunContext": "solver.methods.base",
    "run_method": "solver.methods.base",
    "solve": "solver.methods.base",
    "MethodSpec": "solver.methods.spec",
    "OptionInfo": "solver.methods.spec",
}


def collect() -> dict[str, MethodSpec]:
    found: list[MethodSpec] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_METHODS:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        specs = getattr(module, "SPECS", None) or (
            (module.SPEC,) if hasattr(module, "SPEC") else ()
        )
        found.extend(specs)
    found.sort(key=lambda s: (s.order, s.name))
    out: dict[str, MethodSpec] = {}
    for spec in found:
        if spec.name in out:
            raise RuntimeError(f"two methods are called {spec.name!r}")
        out[spec.name] = spec
    return out


def __getattr__(name: str) -> Any:
    """The catalogue (``METHODS``: every method module imported) and the run machinery are
    loaded when first asked for, so that importing this package, or reading the light table
    in :mod:`solver.methods.listing`, imports no method."""
    if name == "METHODS":
        methods = collect()
        globals()["METHODS"] = methods
        return methods
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _methods() -> dict[str, MethodSpec]:
    """Method name -> spec, in the order people see them (``METHODS``)."""
    methods: dict[str, MethodSpec] | None = globals().get("METHODS")
    return methods if methods is not None else __getattr__("METHODS")


def methods_for(roles: frozenset[Role]) -> list[MethodSpec]:
    """The methods, in the catalogue's order, whose every role is among ``roles`` (a domain's:
    what its puzzles can be solved with)."""
    return [spec for spec in _methods().values() if spec.roles <= roles]


def find_spec(name: str) -> MethodSpec:
    """The spec of the method ``name`` (any case; ``_`` for ``-``; aliases).

    Raises ``ValueError`` listing the methods when there is none of that name.
    """
    key = name.strip().lower().replace("_", "-")
    methods = _methods()
    for spec in methods.values():
        if key == spec.name or key in spec.aliases:
            return spec
    raise ValueError(f"unknown method {name!r}; choose from {', '.join(methods)}")


def make_method(name: str, **options: Any) -> Method:
    """A method by name with config fields overridden by ``options`` (None values ignored).

    Raises ``ValueError`` naming the method or option that does not exist, or a value out of
    the option's bounds.
    """
    method: Method = find_spec(name).make(**options)
    return method


def all_options(
    specs: Iterable[MethodSpec] | None = None,
) -> dict[str, tuple[OptionInfo, list[MethodSpec]]]:
    """Every user-facing option of every method (of ``specs`` when given): name -> (the first
    method's declaration, the methods that have it)."""
    out: dict[str, tuple[OptionInfo, list[MethodSpec]]] = {}
    for spec in _methods().values() if specs is None else specs:
        for opt in spec.options():
            if opt.name in out:
                out[opt.name][1].append(spec)
            else:
                out[opt.name] = (opt, [spec])
    return out
