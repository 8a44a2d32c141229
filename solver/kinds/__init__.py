"""The catalogue of puzzle kinds, collected the way :mod:`solver.methods` collects its methods:
every module here declares ``KIND`` (a :class:`KindSpec`), and a package outside ponder adds a
kind through the ``ponder.kinds`` entry point (its value names a ``KindSpec``). Benchmarks,
replays, the command line and the app read kinds from here; no list of kinds is kept anywhere
else.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from importlib.metadata import EntryPoints, entry_points
from typing import Any

from solver.kinds.spec import KindError, KindSpec, load

__all__ = [
    "ENTRY_POINTS",
    "KINDS",
    "KindError",
    "KindSpec",
    "collect",
    "find_kind",
    "load",
    "plugins",
]

ENTRY_POINTS = "ponder.kinds"
"""The entry-point group through which another package adds a puzzle kind."""


@functools.cache
def _installed() -> Any:
    # Every group at once (EntryPoints, or Python 3.11's SelectableGroups: both select).
    return entry_points()


def plugins(group: str) -> EntryPoints:
    """The installed packages' entry points of ``group``; the installed packages are scanned
    once for every group (a start-up cost)."""
    found: EntryPoints = _installed().select(group=group)
    return found


def collect() -> dict[str, KindSpec]:
    """Every kind: this package's modules, then the ``ponder.kinds`` entry points."""
    found: list[KindSpec] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name not in ("spec", "roles"):
            found.append(importlib.import_module(f"{__name__}.{info.name}").KIND)
    for point in plugins(ENTRY_POINTS):
        spec = point.load()
        if not isinstance(spec, KindSpec):
            raise TypeError(f"entry point {point.name!r} of {ENTRY_POINTS} is not a KindSpec")
        found.append(spec)
    found.sort(key=lambda k: (k.order, k.name))
    out: dict[str, KindSpec] = {}
    for spec in found:
        if spec.name in out:
            raise RuntimeError(f"two puzzle kinds are called {spec.name!r}")
        out[spec.name] = spec
    return out


KINDS: dict[str, KindSpec] = collect()
"""Kind name -> spec, in the order people see them."""


def find_kind(text: str) -> KindSpec:
    """The kind a person named (any case; ``-`` and ``_`` ignored; aliases)."""
    key = text.strip().lower().replace("-", "").replace("_", "")
    for kind in KINDS.values():
        if key in (kind.name, kind.cli, *kind.aliases):
            return kind
    names = ", ".join(repr(k.cli) for k in KINDS.values())
    raise KindError(f"unknown puzzle kind {text!r}; use {names}")
