"""Arithmetic as a person reads it: ``×`` and ``÷``, fractions in brackets.

Everything ponder shows of arithmetic (the solver's tree, its answer, hints) passes through
:func:`written`; what is parsed or checked keeps the ASCII the parser reads.
"""

from __future__ import annotations

import re

__all__ = ["written"]

_FRACTION = re.compile(r"(?<![\d./])(\d+/\d+)(?![\d./])")
_SPACED_DIVIDE = re.compile(r"\s/\s")
_OPERATOR = "+-×÷"


def written(arithmetic: str) -> str:
    """``8 * 3 / (4 - 1)`` as ``8 × 3 ÷ (4 - 1)``; ``4 * 8/3`` as ``4 × (8/3)``.

    A slash with spaces around it, or next to a bracket, divides; ``8/3`` written tight
    between two whole numbers is a fraction, bracketed wherever it is an operand so that
    ``8 ÷ (8/3)`` cannot be read another way."""
    text = _SPACED_DIVIDE.sub(" ÷ ", arithmetic.replace("*", "×"))
    text = re.sub(r"(?<=\))\s*/\s*|\s*/\s*(?=\()", " ÷ ", text)

    def bracket(match: re.Match[str]) -> str:
        start, end = match.span()
        before, after = text[:start].rstrip(" "), text[end:].lstrip(" ")
        if before.endswith("(") and after.startswith(")"):
            return match.group(1)  # already bracketed
        operand = bool(before and before[-1] in _OPERATOR) or bool(after and after[0] in _OPERATOR)
        return f"({match.group(1)})" if operand else match.group(1)

    return _FRACTION.sub(bracket, text)
