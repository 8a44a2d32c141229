"""The method catalogue as a light table: each method's name, label, roles and place, read
without importing a method's module (home's Solver list at start-up needs no more).

It repeats what each module's ``SPEC`` declares; a test checks that the two agree, so a
method added, renamed or given other roles is added or changed here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.roles import Role

__all__ = ["LISTED", "Listed", "listed_for"]


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


def listed_for(roles: frozenset[Role]) -> list[Listed]:
    """The methods, in the catalogue's order, whose every role is among ``roles``."""
    return [entry for entry in LISTED if entry.roles <= roles]
