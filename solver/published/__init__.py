"""Published model runs bundled with ponder, as recordings the replay engine answers from.

Each has a short name for ``--engine replay --replay NAME`` (:func:`resolve` turns a name into
its file; anything else is taken as a path), and so has the set of hands they answer
(``--file tot-24-rows-900-999``, :func:`hands_file`). :func:`which` finds the run a name or
path replays, :func:`problem` says before a run why it cannot replay (another kind, a method
the run did not make, ToT outside paper mode, a hand GPT-4 never saw). The files are built by
``scripts/import_tot_runs.py`` from Tree of Thoughts' published logs (MIT; the notice is
``data/LICENSE-tree-of-thought-llm``) by :mod:`solver.published.tot_game24`.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from puzzles.game24 import Hand
from puzzles.game24.loaders import load_hands

__all__ = [
    "BUNDLED",
    "DATA",
    "HANDS_FILE",
    "HANDS_NAME",
    "SEARCH",
    "Bundled",
    "bundled",
    "hands",
    "hands_file",
    "problem",
    "resolve",
    "row_of",
    "which",
]

DATA = Path(__file__).parent / "data"
"""Where the bundled recordings are."""
HANDS_FILE = DATA / "tot-24-rows-900-999.txt"
"""The 100 hands of ToT's runs (rows 900-999 of its ``24.csv``), one a line, in order: a
file ``ponder bench 24 --file`` reads."""
HANDS_NAME = HANDS_FILE.name.removesuffix(".txt")
"""The short name of :data:`HANDS_FILE` for ``--file`` (:func:`hands_file`)."""
FIRST_ROW = 900
"""The row of ToT's ``24.csv`` the first of :data:`HANDS_FILE`'s hands is."""


@dataclass(frozen=True, slots=True)
class Bundled:
    """One bundled recording."""

    name: str
    file: str
    title: str
    methods: tuple[str, ...]
    """The ponder methods whose calls it answers (with ``--paper`` for ToT)."""
    paper: bool = False
    """Whether it replays only in paper mode (``--paper``): ToT's search, whose states follow
    GPT-4's own ``left:`` lists; ponder's exact states ask for calls GPT-4 never got."""

    @property
    def path(self) -> Path:
        return DATA / self.file


BUNDLED: dict[str, Bundled] = {
    b.name: b
    for b in (
        Bundled(
            "tot-gpt4-io",
            "tot-gpt4-io.jsonl.gz",
            "GPT-4, IO, 100 replies a hand (ToT's published run)",
            ("io",),
        ),
        Bundled(
            "tot-gpt4-cot",
            "tot-gpt4-cot.jsonl.gz",
            "GPT-4, CoT, 100 replies a hand (ToT's published run)",
            ("cot", "cot-sc"),
        ),
        Bundled(
            "tot-gpt4-bfs",
            "tot-gpt4-bfs.jsonl.gz",
            "GPT-4, ToT breadth-first: propose, value x3, keep 5 (ToT's published run)",
            ("tot",),
            paper=True,
        ),
    )
}
"""The bundled recordings by name; each answers the hands of :data:`HANDS_FILE`."""
SEARCH = "tot-gpt4-bfs"
"""The run the app offers as an engine, "GPT-4 (ToT's published run)": ToT's search."""


def bundled(name: str) -> Bundled | None:
    """The bundled recording called ``name`` (case and spaces ignored), or None."""
    return BUNDLED.get(name.strip().lower())


def resolve(text: str | os.PathLike[str]) -> Path:
    """The recording file ``--replay`` names: a bundled name (``tot-gpt4-io``) gives its
    file, unless a file of that name exists here (a file is never hidden by a name);
    anything else is a path, returned as given (the reader says if it is missing)."""
    path = Path(text)
    if isinstance(text, str) and not path.exists():
        found = bundled(text)
        if found is not None:
            return found.path
    return path


def hands() -> list[Hand]:
    """The 100 hands of ToT's published runs, in the order of its ``24.csv``."""
    return load_hands(HANDS_FILE)


def hands_file(text: str | os.PathLike[str]) -> Path:
    """The hand file ``--file`` names: :data:`HANDS_NAME` gives :data:`HANDS_FILE`, unless a
    file of that name exists here; anything else is a path, returned as given."""
    path = Path(text)
    if isinstance(text, str) and not path.exists() and text.strip().lower() == HANDS_NAME:
        return HANDS_FILE
    return path


def which(text: str | os.PathLike[str] | None) -> Bundled | None:
    """The bundled run that ``text`` (a name or a path, as ``--replay`` or the settings'
    ``replay_file`` give it) replays, or None for any other recording."""
    if not text:
        return None
    path = resolve(os.path.expanduser(text) if isinstance(text, str) else text)
    for item in BUNDLED.values():
        try:
            if os.path.samefile(path, item.path):
                return item
        except (OSError, ValueError):
            continue
    return None


def row_of(hand: Hand) -> int | None:
    """The row of ToT's ``24.csv`` that ``hand`` is (900 to 999: the cards in any order,
    target 24), or None for a hand the published runs never saw."""
    if hand.target != 24:
        return None
    for index, known in enumerate(_hand_keys()):
        if known == hand.key:
            return FIRST_ROW + index
    return None


@functools.cache
def _hand_keys() -> tuple[str, ...]:
    return tuple(h.key for h in hands())


def problem(
    run: Bundled,
    *,
    kind: str = "game24",
    method: str | None = None,
    paper: bool = True,
    hand: Hand | None = None,
) -> str | None:
    """Why ``run`` cannot answer a run of ``method`` (``paper``: in paper mode) on ``hand``
    of ``kind``, in a sentence without a remedy (the command line and the app each give
    theirs); None when it can. Said before a run, in place of a not-recorded error per call."""
    if kind != "game24":
        return f"{run.name} is ToT's published GPT-4 run on the Game of 24 only"
    if method is not None and method not in run.methods:
        answers = " / ".join(run.methods)
        return f"{run.name} holds the calls of {answers} only, not {method}'s"
    if run.paper and method is not None and not paper:
        return (
            f"ToT's published run ({run.name}) replays only in paper mode (--paper): ponder's "
            "own mode keeps exact states and asks for calls GPT-4 never got"
        )
    if hand is not None and row_of(hand) is None:
        shown = str(hand) if hand.target == 24 else f"{hand} -> {hand.target}"
        return (
            f"the hand {shown} is not one of the 100 of ToT's published run (rows 900-999 of "
            "its 24.csv): GPT-4 never played it"
        )
    return None
