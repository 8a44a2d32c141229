"""The roles each puzzle kind's domain has prompts and parsers for, by kind.

Kept apart from the domains so that the app and the command line can offer each kind only the
methods it can run without importing its domain (the word-problem domain brings sympy, half a
second). Each domain's ``ROLES`` is its entry here, and each kind's spec
(:mod:`solver.kinds`) names it.
"""

from __future__ import annotations

from solver.roles import Role

__all__ = ["CROSSWORD", "GAME24", "WORDPROBLEM"]

GAME24 = frozenset(
    {Role.IO, Role.COT, Role.PROPOSE, Role.VALUE, Role.JUDGE, Role.STEP, Role.EVALUATE}
    | {Role.ANALYZE, Role.GUIDE, Role.RESPOND, Role.CONDENSE, Role.SIMILAR, Role.EXAMPLES}
    | {Role.FINAL}
)
"""The Game of 24 (``examples``: the step prompt can carry worked examples, BoT+CoT)."""

CROSSWORD = frozenset(
    {Role.IO, Role.COT, Role.PROPOSE, Role.CLUE_VALUE, Role.STEP, Role.EVALUATE, Role.ANALYZE}
    | {Role.GUIDE, Role.RESPOND, Role.FINAL}
)
"""Mini crosswords."""

WORDPROBLEM = frozenset(
    {Role.IO, Role.COT, Role.STEP, Role.EVALUATE, Role.ANALYZE, Role.GUIDE, Role.RESPOND}
    | {Role.ACT, Role.FORMALIZE, Role.REVISE, Role.FINAL}
)
"""Word problems."""
