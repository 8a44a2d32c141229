"""The registry of puzzle kinds: one entry per kind, read by the home screen,
``app.open_puzzle(kind)``, replay (the kind comes from the trace header) and the command line.

A new kind is one entry here, one domain adapter in ``solver/domains``, one offline player in
``solver/model/offline`` and one screen. Screens and domains are imported by path when first
used, so the registry itself stays cheap to import.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "PuzzleKind", "UnknownKind", "find_kind"]


class UnknownKind(ValueError):
    """A puzzle kind nobody registered."""


@dataclass(frozen=True, slots=True)
class PuzzleKind:
    """One puzzle kind as the app and the command line know it."""

    name: str
    """The kind as traces and the store record it (``game24``)."""
    label: str
    """For people (``Game of 24``)."""
    cli: str
    """What people type on the command line (``24``)."""
    aliases: tuple[str, ...] = ()
    screen: str | None = None
    """``module:Class`` of its screen; None while it cannot be played in the app."""
    domain: str | None = None
    """``module:Class`` of its domain adapter; None while the solvers cannot play it."""
    checks: str = "Arithmetic"
    """What the solver pane's first tab lists: the solver's claims checked exactly
    (arithmetic for numbers, words against their crossings for crosswords)."""
    puzzles: str = "hands"
    """What its puzzles are called in counts (``100 hands``, ``20 minis``)."""

    @property
    def playable(self) -> bool:
        return self.screen is not None

    @property
    def solvable(self) -> bool:
        return self.domain is not None

    def screen_class(self) -> Any:
        return _load(self.screen, f"{self.label} cannot be played in the app yet")

    def methods(self) -> list[Any]:
        """The method specs this kind's puzzles can be solved with, in the catalogue's order
        (none for a kind the solvers do not play); its domain is not imported."""
        from solver.domains.roles import KIND_ROLES
        from solver.methods import methods_for

        roles = KIND_ROLES.get(self.name)
        return methods_for(roles) if self.solvable and roles is not None else []

    def domain_class(self) -> Any:
        return _load(self.domain, f"the solvers do not play {self.label} puzzles yet")


def _load(path: str | None, missing: str) -> Any:
    if path is None:
        raise UnknownKind(missing)
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


KINDS: dict[str, PuzzleKind] = {
    k.name: k
    for k in (
        PuzzleKind(
            "game24",
            "Game of 24",
            "24",
            ("game24", "gameof24"),
            screen="tui.screens.game24:Game24Screen",
            domain="solver.domains.game24:Game24Domain",
        ),
        PuzzleKind(
            "crossword",
            "Mini crosswords",
            "crossword",
            ("crosswords", "mini"),
            screen="tui.screens.crossword:CrosswordScreen",
            domain="solver.domains.crossword:CrosswordDomain",
            checks="Words",
            puzzles="minis",
        ),
        PuzzleKind(
            "wordproblem",
            "Word problems",
            "wordproblem",
            ("wordproblems", "math", "gsm8k"),
            screen="tui.screens.wordproblem:WordProblemScreen",
            domain="solver.domains.wordproblem:WordProblemDomain",
            puzzles="problems",
        ),
    )
}
"""Kind name -> entry, in the order the home screen lists them."""


def find_kind(text: str) -> PuzzleKind:
    """The kind a person named (any case; ``-`` and ``_`` ignored; aliases)."""
    key = text.strip().lower().replace("-", "").replace("_", "")
    for kind in KINDS.values():
        if key in (kind.name, kind.cli, *kind.aliases):
            return kind
    names = ", ".join(repr(k.cli) for k in KINDS.values())
    raise UnknownKind(f"unknown puzzle kind {text!r}; use {names}")
