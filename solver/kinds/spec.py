"""What the rest of ponder needs to know about one puzzle kind: :class:`KindSpec`.

Each kind declares one spec in a module of :mod:`solver.kinds` (``KIND = KindSpec(...)``), or
in a package of its own named by the ``ponder.kinds`` entry point. Everything slow (the puzzle
package, the domain, the offline player) is named by path or imported inside a function, so
reading the catalogue costs almost nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from solver.roles import Role

if TYPE_CHECKING:
    from solver.domains.base import Domain

__all__ = ["KindError", "KindSpec", "load"]


class KindError(ValueError):
    """A kind nobody registered, a puzzle its solvers cannot play, or a trace header that
    names no puzzle of the kind; the message says which, in plain words."""


def load(path: str) -> Any:
    """The object a ``module:name`` path names."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class KindSpec:
    """One puzzle kind as the solvers, the benchmarks, the command line and the app read it."""

    name: str
    """The kind as traces, results and the store record it (``game24``)."""
    label: str
    """For people (``Game of 24``)."""
    cli: str
    """What people type on the command line (``24``)."""
    roles: frozenset[Role]
    """The roles its domain has prompts and parsers for: which methods can play it."""
    domain: str
    """``module:Class`` of its domain adapter, built from one puzzle."""
    read_header: Callable[[Mapping[str, Any]], Any]
    """The puzzle a trace header records (``ValueError`` says why there is none)."""
    aliases: tuple[str, ...] = ()
    order: int = 100
    """Place in lists (smaller first)."""
    player: str | None = None
    """``module:Class`` of its offline player (:class:`solver.model.offline.Player`); None:
    the offline engine refuses its prompts (unless the last-asked player reads them)."""
    player_last: bool = False
    """Its player is asked after every other kind's: it answers what none of them
    recognises, and refuses, saying why, what it cannot read (the Game of 24's)."""
    checks: str = "Arithmetic"
    """What the solver pane's first tab lists (arithmetic, or words against crossings)."""
    puzzles: str = "hands"
    """What its puzzles are called in counts (``100 hands``, ``20 minis``)."""
    header: Callable[[Any], dict[str, Any]] | None = None
    """What a trace header records of a puzzle, so :attr:`read_header` can read it back
    (None: the puzzle's text as ``puzzle``)."""
    parse: Callable[[str], Any] | None = None
    """A puzzle from what a person types; ``ValueError`` says what is wrong with it."""
    generate: Callable[[int], Any] | None = None
    """A puzzle made from a seed (a benchmark's generated set)."""
    refuse: Callable[[Any], str | None] | None = None
    """Why the solvers cannot play a puzzle of the kind (a grid too large), or None."""
    bench_setting: str = ""
    """What the papers' figures were measured on, printed under a benchmark's table."""
    levels: tuple[str, ...] = ()
    """The difficulty levels its puzzles come in, easiest first (home offers them)."""
    topics: Callable[[], tuple[str, ...]] | None = None
    """The topics its puzzles come in, read when asked (home offers them); None: no topics."""
    own: str = ""
    """An example of a puzzle a person types in (home's 'your own' box shows it); empty when
    the app takes no typed puzzles of the kind."""
    state: str = "state"
    """What a thought's state is called in the solver pane's Details (``numbers left``)."""
    files: str = ""
    """What a file of its puzzles may hold (home offers to open one); empty when none opens."""

    def domain_class(self) -> Any:
        return load(self.domain)

    def make_domain(self, puzzle: Any) -> Domain[Any, Any]:
        """The domain the solvers play ``puzzle`` through; :class:`KindError` when they
        cannot play it."""
        reason = self.refuse(puzzle) if self.refuse is not None else None
        if reason:
            raise KindError(reason)
        domain: Domain[Any, Any] = self.domain_class()(puzzle)
        return domain

    def header_of(self, puzzle: Any) -> dict[str, Any]:
        """What a trace header records of ``puzzle``."""
        return self.header(puzzle) if self.header is not None else {"puzzle": str(puzzle)}

    def puzzle_from_header(self, header: Mapping[str, Any]) -> Any:
        """The puzzle a trace was run on; :class:`KindError` says why a header has none."""
        try:
            return self.read_header(header)
        except KindError:
            raise
        except (ValueError, TypeError, KeyError) as exc:
            raise KindError(f"the trace's header holds no {self.label} puzzle ({exc})") from None

    def make_player(self) -> Any:
        """Its offline player, or None when it has none."""
        return load(self.player)() if self.player else None
