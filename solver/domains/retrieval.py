"""Demonstrations retrieved for a problem from a pool of worked solutions, ranked by BM25.

DELI starts, as the CARP paper describes (§3.1, App. D), from a solution written with
retrieved examples: problems are matched question to question with BM25 and the nearest
ones' question + solution pairs go into the first prompt (the reference code: 8 of them).
Here the pool is any sequence of solved problems; BM25 comes from ``bm25s`` (imported only
when a pool is first searched). The index is built on first use and kept; a problem identical
to the one being solved (the same question, whatever its case and spacing) is never its own
demonstration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.domains.base import Demonstration

__all__ = ["DemonstrationPool", "Solved", "normal_question", "tokens"]

_WORD = re.compile(r"[a-z]+")


def tokens(text: str) -> list[str]:
    """The words BM25 matches on: lower-case letter runs. Numbers are left out: they are what
    differs between two problems of one kind, and would rank a problem with the same
    numbers above one with the same story."""
    return _WORD.findall(text.lower())


def normal_question(text: str) -> str:
    """A question's text for telling two problems apart: case and spacing ignored."""
    return " ".join(text.lower().split())


@dataclass(frozen=True, slots=True)
class Solved:
    """One problem of the pool: its id, question, worked steps and answer."""

    id: str
    question: str
    steps: tuple[str, ...]
    answer: str


@dataclass
class DemonstrationPool:
    """Solved problems searched by BM25, question to question; the index is built lazily."""

    problems: Sequence[Solved]
    name: str = "a pool"
    """What the pool is, for people (``400 generated problems``)."""
    _index: Any = field(default=None, init=False, repr=False)
    _normal: list[str] = field(default_factory=list, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.problems)

    def _bm25(self) -> Any:
        if self._index is None:
            import bm25s  # numpy comes with it: only a run that retrieves pays for it

            index = bm25s.BM25()
            index.index([tokens(p.question) for p in self.problems], show_progress=False)
            self._normal = [normal_question(p.question) for p in self.problems]
            self._index = index
        return self._index

    def nearest(self, question: str, k: int) -> tuple[tuple[Demonstration, ...], int]:
        """The ``k`` problems whose questions are nearest ``question`` by BM25, best first
        (ties in pool order), none with no word in common; and how many identical problems
        were left out."""
        if k <= 0 or not self.problems:
            return (), 0
        scores = self._bm25().get_scores(tokens(question))
        own = normal_question(question)
        ranked = sorted(range(len(self.problems)), key=lambda i: (-float(scores[i]), i))
        out: list[Demonstration] = []
        excluded = 0
        for i in ranked:
            p = self.problems[i]
            if self._normal[i] == own:
                excluded += 1
                continue
            if float(scores[i]) <= 0 or len(out) >= k:
                continue
            out.append(Demonstration(p.id, p.question, p.steps, p.answer, float(scores[i])))
        return tuple(out), excluded
