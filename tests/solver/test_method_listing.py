"""The light table of methods (what home's Solver list reads for its first frame, importing no
method) agrees with the catalogue the methods' modules declare, and gives way to the
catalogue once it is loaded, so a method added in a module of its own needs no row there."""

from __future__ import annotations

import pytest

from solver.kinds import KINDS
from solver.methods import METHODS, listing, methods_for
from solver.methods.listing import LISTED, Listed, every_listed, listed_for


def declared() -> list[Listed]:
    return [Listed(s.name, s.label, s.roles, s.order) for s in METHODS.values()]


def test_each_row_of_the_light_table_is_what_its_module_declares_in_the_catalogues_order() -> None:
    rows = {entry.name: entry for entry in declared()}
    for entry in LISTED:
        assert rows.get(entry.name) == entry, (
            f"solver/methods/listing.py's row for {entry.name} disagrees with its SPEC"
        )
    order = [entry.name for entry in declared()]
    assert [e.name for e in LISTED] == [n for n in order if n in {e.name for e in LISTED}]


def test_each_kind_is_offered_the_same_methods_by_both() -> None:
    for kind in KINDS.values():
        light = [e.name for e in listed_for(kind.roles)]
        assert light == [s.name for s in methods_for(kind.roles)], kind.name
        assert light, f"{kind.name} can run no method"


def test_a_method_the_table_lacks_is_offered_once_the_catalogue_is_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(listing, "LISTED", tuple(e for e in LISTED if e.name != "io"))
    monkeypatch.setattr(listing, "catalogue_loaded", lambda: False)  # home's first frame
    assert "io" not in [e.name for e in every_listed()]
    monkeypatch.undo()
    monkeypatch.setattr(listing, "LISTED", tuple(e for e in LISTED if e.name != "io"))
    assert listing.catalogue_loaded()  # METHODS was read above
    assert [e.name for e in every_listed()] == [e.name for e in declared()]
    game24 = KINDS["game24"].roles
    assert "io" in [e.name for e in listed_for(game24)]
