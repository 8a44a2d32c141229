"""The method catalogue as a light table: each method's name, label, roles and place, read
without importing a method's module (home's Solver list at its first frame needs no more).

The table is a start-up hint, not a second registry: it repeats what the built-in modules'
``SPEC`` declare (a test checks that each row agrees with its SPEC), and once the catalogue
itself is loaded (the app loads it just after home's first frame) :func:`listed_for` and
:func:`every_listed` read the catalogue instead. A method added in a module of its own, with
no row here, is offered as soon as the catalogue is loaded.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from solver.roles import Role

__all__ = ["LISTED", "Listed", "catalogue_loaded", "every_listed", "listed_for"]


@dataclass(frozen=True, slots=True)
class Listed:
    """One method as a list of methods names it."""

    name: str
    label: str
    roles: frozenset[Role]
    order: int


def _listed(name: str, label: str, order: int, *roles: Role) -> Listed:
    return Listed(name, label, frozenset(roles), order)


R = Role
LISTED: tuple[Listed, ...] = (
    _listed("bot", "BoT", 10, R.ANALYZE, R.EVALUATE, R.STEP),
    _listed("aiot", "AIoT", 15, R.GUIDE, R.RESPOND),
    _listed("giot", "GIoT", 16, R.GUIDE, R.RESPOND),
    _listed("react", "ReAct", 20, R.ACT),
    _listed("tot", "ToT", 20, R.COT, R.JUDGE, R.PROPOSE, R.VALUE),
    _listed("tot-dfs", "ToT-DFS", 21, R.CLUE_VALUE, R.PROPOSE),
    _listed("react-cotsc", "ReAct→CoT-SC", 22, R.ACT, R.COT),
    _listed("cotsc-react", "CoT-SC→ReAct", 23, R.ACT, R.COT),
    _listed("deli", "DELI", 25, R.COT, R.FORMALIZE, R.REVISE),
    _listed("cot-sc", "CoT-SC", 30, R.COT),
    _listed("cot", "CoT", 40, R.COT),
    _listed("io", "IO", 50, R.IO),
)
"""Every method, in the catalogue's order (as :data:`solver.methods.METHODS`)."""
del R


def catalogue_loaded() -> bool:
    """Whether :data:`solver.methods.METHODS` has been loaded (by anyone) in this process."""
    package = sys.modules.get("solver.methods")
    return package is not None and "METHODS" in vars(package)


def every_listed() -> tuple[Listed, ...]:
    """Every method, in the catalogue's order: from the catalogue once it is loaded, else
    from the light table."""
    if not catalogue_loaded():
        return LISTED
    from solver.methods import METHODS

    return tuple(Listed(s.name, s.label, s.roles, s.order) for s in METHODS.values())


def listed_for(roles: frozenset[Role]) -> list[Listed]:
    """The methods, in the catalogue's order, whose every role is among ``roles``."""
    return [entry for entry in every_listed() if entry.roles <= roles]
