"""The light table of methods (what home's Solver list reads at start-up, importing no
method) agrees with the catalogue the methods' modules declare."""

from __future__ import annotations

from solver.kinds import KINDS
from solver.methods import METHODS, methods_for
from solver.methods.listing import LISTED, listed_for


def test_the_light_table_lists_every_method_as_its_module_declares_it() -> None:
    listed = [(e.name, e.label, e.roles, e.order) for e in LISTED]
    declared = [(s.name, s.label, s.roles, s.order) for s in METHODS.values()]
    assert listed == declared, (
        "solver/methods/listing.py disagrees with the methods' SPECs: change LISTED to match"
    )


def test_each_kind_is_offered_the_same_methods_by_both() -> None:
    for kind in KINDS.values():
        light = [e.name for e in listed_for(kind.roles)]
        assert light == [s.name for s in methods_for(kind.roles)], kind.name
        assert light, f"{kind.name} can run no method"
