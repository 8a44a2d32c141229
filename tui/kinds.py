"""The puzzle kinds as the app knows them: each kind of :data:`solver.kinds.KINDS`, with the
screen that plays it.

A kind's screen is a :class:`tui.screens.puzzle.PuzzleScreen` whose ``KIND`` is the kind's
name, in the module ``tui.screens.<kind>`` or in another package's module named by the
``ponder.screens`` entry point (``toy = "toy_pkg.screen:ToyScreen"``). Screens are found by
module name and imported when first opened, so listing the kinds stays cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.kinds import KINDS as SPECS
from solver.kinds import KindError, KindSpec, load, plugins

__all__ = ["KINDS", "SCREEN_ENTRY_POINTS", "PuzzleKind", "UnknownKind", "find_kind"]

UnknownKind = KindError
"""A puzzle kind nobody registered, or one the app cannot play."""

SCREEN_ENTRY_POINTS = "ponder.screens"
"""The entry-point group through which another package gives its kind a screen."""


@dataclass(frozen=True, slots=True)
class PuzzleKind:
    """One puzzle kind as the app and the command line know it."""

    spec: KindSpec
    screen: str | None = None
    """``module`` or ``module:Class`` of its screen; None while the app cannot play it."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def cli(self) -> str:
        return self.spec.cli

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.spec.aliases

    @property
    def checks(self) -> str:
        return self.spec.checks

    @property
    def puzzles(self) -> str:
        return self.spec.puzzles

    @property
    def playable(self) -> bool:
        return self.screen is not None

    @property
    def solvable(self) -> bool:
        return True

    def screen_class(self) -> Any:
        """The screen that plays this kind: the class a ``module:Class`` path names, or the
        screen in the module whose ``KIND`` is this kind's name."""
        if self.screen is None:
            raise UnknownKind(f"{self.label} cannot be played in the app yet")
        if ":" in self.screen:
            return load(self.screen)
        module = importlib.import_module(self.screen)
        for value in vars(module).values():
            if isinstance(value, type) and getattr(value, "KIND", None) == self.name:
                return value
        raise UnknownKind(f"{self.screen} has no screen whose KIND is {self.name!r}")

    def methods(self) -> list[Any]:
        """The method specs this kind's puzzles can be solved with, in the catalogue's order;
        its domain is not imported."""
        from solver.methods import methods_for

        return methods_for(self.spec.roles)

    def listed(self) -> list[Any]:
        """The methods this kind's puzzles can be solved with, as the light table lists them
        (:class:`solver.methods.listing.Listed`): names and labels, no method's module
        imported (nor the package, until asked: ``ponder --help`` reads none)."""
        from solver.methods.listing import listed_for

        return listed_for(self.spec.roles)

    def domain_class(self) -> Any:
        return self.spec.domain_class()


def _screens() -> dict[str, str]:
    """Kind name -> where its screen is: ``tui.screens.<kind>`` modules, then entry points."""
    # Listed from the folder, not imported: the screens import this registry.
    folder = Path(__file__).with_name("screens")
    found = {
        info.name: f"tui.screens.{info.name}"
        for info in pkgutil.iter_modules([str(folder)])
        if info.name in SPECS
    }
    for point in plugins(SCREEN_ENTRY_POINTS):
        found[point.name] = point.value
    return found


def _kinds() -> dict[str, PuzzleKind]:
    screens = _screens()
    return {name: PuzzleKind(spec, screens.get(name)) for name, spec in SPECS.items()}


KINDS: dict[str, PuzzleKind] = _kinds()
"""Kind name -> entry, in the order the home screen lists them."""


def find_kind(text: str) -> PuzzleKind:
    """The kind a person named (any case; ``-`` and ``_`` ignored; aliases)."""
    from solver.kinds import find_kind as find_spec

    return KINDS[find_spec(text).name]
