"""How the offline engine writes a chain of steps as one expression, and which numbers it is
glad to make on the way: shared by its Game of 24 and IoT players."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from puzzles.arith import format_number

__all__ = ["expression", "nice"]


def nice(target: Fraction) -> frozenset[Fraction]:
    """The target and its whole divisors: numbers a person is glad to make on the way."""
    t = abs(int(target))
    return frozenset({target} | {Fraction(d) for d in range(1, min(t, 1000) + 1) if t % d == 0})


def expression(start: Sequence[Fraction], path: Sequence[tuple[Any, ...]]) -> str:
    """The expression a path of steps builds from ``start`` (as a person would write it)."""
    exprs: list[tuple[Fraction, str, int]] = [(n, format_number(n), 4) for n in start]
    for step in path:
        a, op, b = step[0], step[1], step[2]
        parts = []
        for value in (a, b):
            idx = next((i for i, e in enumerate(exprs) if e[0] == value), None)
            if idx is None:
                parts.append((value, format_number(value), 4))
            else:
                parts.append(exprs.pop(idx))
        prec = 1 if op in "+-" else 2
        left = parts[0][1] if parts[0][2] >= prec else f"({parts[0][1]})"
        right_paren = parts[1][2] < prec or (parts[1][2] == prec and op in "-/")
        right = f"({parts[1][1]})" if right_paren else parts[1][1]
        value = {"+": a + b, "-": a - b, "*": a * b}.get(op)
        if value is None:
            value = a / b if b else Fraction(0)
        exprs.append((value, f"{left} {op} {right}", prec))
    return " ".join(e[1] for e in exprs) if len(exprs) != 1 else exprs[0][1]
