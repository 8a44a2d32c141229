"""The roles each puzzle kind's domain has prompts and parsers for, by kind.

Kept apart from the domains so that the app and the command line can offer each kind only the
methods it can run without importing its domain (the word-problem domain brings sympy, half a
second). Each domain's ``ROLES`` is its entry here, and each kind's spec
(:mod:`solver.kinds`) names it.
"""

from __future__ import annotations

__all__ = ["CROSSWORD", "GAME24", "WORDPROBLEM"]

GAME24 = frozenset(
    {"io", "cot", "propose", "value", "judge", "step", "evaluate", "analyze", "guide", "respond"}
    | {"condense", "similar", "examples", "final"}
)
"""The Game of 24 (``examples``: the step prompt can carry worked examples, BoT+CoT)."""

CROSSWORD = frozenset(
    {"io", "cot", "propose", "clue_value", "step", "evaluate", "analyze", "guide", "respond"}
    | {"final"}
)
"""Mini crosswords."""

WORDPROBLEM = frozenset(
    {"io", "cot", "step", "evaluate", "analyze", "guide", "respond", "act", "formalize", "revise"}
    | {"final"}
)
"""Word problems."""
