"""Game of 24 rules: hands, states, steps, and the exact check of a final answer."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from puzzles.arith import ArithError, Expr, format_number, format_operand, parse, parse_number

__all__ = [
    "DEFAULT_TARGET",
    "MAX_CARD",
    "Hand",
    "HandError",
    "State",
    "Step",
    "StepError",
    "Verdict",
    "answer_expression",
    "apply",
    "check_answer",
    "format_numbers",
    "parse_numbers",
]

DEFAULT_TARGET = 24
MAX_CARD = 10**6
"""Largest absolute value of a card or target a person may ask for."""
OPS = ("+", "-", "*", "/")


class HandError(ValueError):
    """A hand that cannot be played, with a reason."""


class StepError(ValueError):
    """A step that does not follow the rules from a state, with a reason."""


def format_numbers(numbers: Iterable[Fraction | int]) -> str:
    """``4 6 8/3``: space-separated, exact."""
    return " ".join(format_number(n) for n in numbers)


def parse_numbers(text: str) -> tuple[Fraction, ...]:
    """Numbers written with spaces or commas between them (``4 6 8/3``, ``4, 6, 2.5``)."""
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    out = []
    for part in parts:
        try:
            out.append(parse_number(part))
        except ArithError as exc:
            raise HandError(
                f"{part!r} is not a number" if "not a number" in str(exc) else f"{part!r}: {exc}"
            ) from exc
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Hand:
    """Four (or more) integers to combine into ``target``."""

    numbers: tuple[int, ...]
    target: int = DEFAULT_TARGET

    def __post_init__(self) -> None:
        if not 2 <= len(self.numbers) <= 6:
            raise HandError(f"a hand has 2 to 6 numbers, not {len(self.numbers)}")
        for n in (*self.numbers, self.target):
            if not isinstance(n, int) or isinstance(n, bool):
                raise HandError(f"{n!r} is not a whole number")
            if abs(n) > MAX_CARD:
                raise HandError(f"{n} is too large (at most {MAX_CARD})")
        for n in self.numbers:
            if n < 1:
                raise HandError(f"cards are positive whole numbers, not {n}")

    @classmethod
    def parse(cls, text: str, target: int = DEFAULT_TARGET) -> Hand:
        """``"4 7 8 8"`` (spaces or commas) as a hand; :class:`HandError` when not one."""
        if not isinstance(text, str) or not text.strip():
            raise HandError("a hand needs numbers, e.g. '4 7 8 8'")
        if len(text) > 200:
            raise HandError("that hand is far too long")
        values = parse_numbers(text)
        ints = []
        for v in values:
            if v.denominator != 1:
                raise HandError(f"cards are whole numbers, not {format_number(v)}")
            ints.append(v.numerator)
        return cls(tuple(ints), target)

    @property
    def key(self) -> str:
        """Sorted, space-separated: the hand's identity (``1 1 4 6``)."""
        return " ".join(str(n) for n in sorted(self.numbers))

    def __str__(self) -> str:
        return " ".join(str(n) for n in self.numbers)

    def start(self) -> State:
        return State(tuple(Fraction(n) for n in self.numbers))


@dataclass(frozen=True, slots=True)
class Step:
    """``a op b = result``, taken from a state."""

    a: Fraction
    op: str
    b: Fraction
    result: Fraction

    def __str__(self) -> str:
        # Operands are bracketed so "8 / (1/3)" does not read as "8 / 1 / 3".
        c = self.result
        shown = format_number(c) if c.denominator == 1 else f"({format_number(c)})"
        return f"{format_operand(self.a)} {self.op} {format_operand(self.b)} = {shown}"


@dataclass(frozen=True, slots=True)
class State:
    """The numbers still on the table, in play order, and the steps taken so far."""

    numbers: tuple[Fraction, ...]
    steps: tuple[Step, ...] = ()

    @property
    def key(self) -> tuple[Fraction, ...]:
        return tuple(sorted(self.numbers))

    def left(self) -> str:
        return format_numbers(self.numbers)

    def is_goal(self, target: int = DEFAULT_TARGET) -> bool:
        return len(self.numbers) == 1 and self.numbers[0] == target

    def expression(self) -> str | None:
        """The single expression these steps build, when they end in one number."""
        exprs: list[tuple[Fraction, str, int]] = [(n, format_number(n), 4) for n in self._start()]
        for step in self.steps:
            i = _index_of(exprs, step.a)
            ea = exprs.pop(i)
            j = _index_of(exprs, step.b)
            eb = exprs.pop(j)
            prec = 1 if step.op in "+-" else 2
            left = ea[1] if ea[2] >= prec else f"({ea[1]})"
            right_needs = eb[2] < prec or (eb[2] == prec and step.op in "-/")
            right = f"({eb[1]})" if right_needs else eb[1]
            exprs.append((step.result, f"{left} {step.op} {right}", prec))
        return exprs[0][1] if len(exprs) == 1 else None

    def _start(self) -> list[Fraction]:
        """The numbers before any step (undoing each step's effect)."""
        numbers = list(self.numbers)
        for step in reversed(self.steps):
            numbers.remove(step.result)
            numbers.extend([step.a, step.b])
        return numbers


def _index_of(exprs: Sequence[tuple[Fraction, str, int]], value: Fraction) -> int:
    for i, e in enumerate(exprs):
        if e[0] == value:
            return i
    raise StepError(f"{format_number(value)} is not available")


def _combine(a: Fraction, op: str, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise StepError("division by zero")
        return a / b
    raise StepError(f"unknown operation {op!r}")


def apply(state: State, a: Fraction, op: str, b: Fraction) -> State:
    """Take ``a`` and ``b`` from the state and put ``a op b`` back; :class:`StepError` if the
    numbers are not there or the operation is invalid."""
    op = {"x": "*", "×": "*", "÷": "/", "−": "-"}.get(op, op)
    if op not in OPS:
        raise StepError(f"unknown operation {op!r}")
    remaining = list(state.numbers)
    for value in (a, b):
        if value not in remaining:
            raise StepError(f"{format_number(value)} is not among {state.left() or 'nothing'}")
        remaining.remove(value)
    result = _combine(a, op, b)
    if abs(result.numerator) > 10**12 or result.denominator > 10**12:
        raise StepError("that number is too large to play")
    return State((*remaining, result), (*state.steps, Step(a, op, b, result)))


@dataclass(frozen=True, slots=True)
class Verdict:
    """The exact judgement of an answer, with a reason a person can read."""

    ok: bool
    reason: str
    value: Fraction | None = None
    expression: str = ""


_ANSWER_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:：]\s*", re.IGNORECASE)


def answer_expression(text: str) -> str:
    """The expression part of an answer line: ``Answer: (4+8)*2 = 24`` gives ``(4+8)*2``."""
    line = text.strip().splitlines()[-1] if text.strip() else ""
    line = _ANSWER_PREFIX.sub("", line)
    line = line.strip().strip("`*$ ").strip()
    return line.split("=")[0].strip()


def check_answer(hand: Hand, text: str) -> Verdict:
    """Accept ``text`` only if it uses exactly the hand's numbers, once each, and equals the
    target exactly. ``text`` may be an answer line (``Answer: ... = 24``) or a bare expression."""
    expr_text = answer_expression(text)
    if not expr_text:
        return Verdict(False, "no expression given")
    try:
        tree: Expr = parse(expr_text)
    except ArithError as exc:
        return Verdict(False, f"not a valid expression: {exc}", expression=expr_text)
    used = [leaf.value for leaf in tree.leaves()]
    want = Counter(Fraction(n) for n in hand.numbers)
    got = Counter(used)
    if got != want:
        missing = want - got
        extra = got - want
        parts = []
        if missing:
            parts.append("does not use " + format_numbers(sorted(missing.elements())))
        for value in sorted(extra):
            # A card of the hand used again is "twice", not "not in the hand".
            times = got[value]
            if value in want:
                count = {2: "twice", 3: "three times"}.get(times, f"{times} times")
                parts.append(f"uses {format_number(value)} {count}")
            else:
                parts.append(f"uses {format_number(value)}, which is not in the hand")
        return Verdict(False, "; ".join(parts) + f" (the hand is {hand})", tree.value, expr_text)
    if tree.value != hand.target:
        return Verdict(
            False,
            f"equals {format_number(tree.value)}, not {hand.target}",
            tree.value,
            expr_text,
        )
    return Verdict(True, f"uses {hand} once each and equals {hand.target}", tree.value, expr_text)
