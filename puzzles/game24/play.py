"""A person's game in progress: cards on the table, steps taken, undo."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from puzzles.arith import format_number
from puzzles.game24.rules import Hand, StepError

__all__ = ["Board", "Card"]

_OPS = {"+": 1, "-": 1, "*": 2, "/": 2}


def _operand(value: Fraction) -> str:
    """A number as an operand: fractions bracketed, so "8 / (1/3)" is not "8 / 1 / 3"."""
    return format_number(value) if value.denominator == 1 else f"({format_number(value)})"


@dataclass(frozen=True, slots=True)
class Card:
    """A number on the table and the expression that made it."""

    value: Fraction
    expression: str
    precedence: int = 3  # 3: a plain number; 2: a product; 1: a sum

    @property
    def label(self) -> str:
        return format_number(self.value)


@dataclass(frozen=True, slots=True)
class Board:
    """The cards of one hand as the player combines them, step by step.

    A board never changes: a step, an undo or a reset gives a new one (so a screen that holds
    the board sees every change as a new value)."""

    hand: Hand
    cards: tuple[Card, ...] = ()
    steps: tuple[str, ...] = ()
    before: Board | None = None
    """The board one step back (what :meth:`undo` returns)."""

    def __post_init__(self) -> None:
        if not self.cards:
            object.__setattr__(self, "cards", _dealt(self.hand))

    def reset(self) -> Board:
        """Back to the four starting cards."""
        return Board(self.hand)

    def combine(self, first: int, op: str, second: int) -> Board:
        """The board with cards ``first`` and ``second`` replaced by ``first op second``.

        The new card takes the first card's place. Raises :class:`StepError` for an unknown
        operator, a card that is not there, the same card twice, or division by zero.
        """
        op = {"x": "*", "×": "*", "÷": "/", "−": "-"}.get(op, op)
        if op not in _OPS:
            raise StepError(f"unknown operation {op!r}")
        if first == second:
            raise StepError("pick two different cards")
        if not (0 <= first < len(self.cards) and 0 <= second < len(self.cards)):
            raise StepError("there is no such card")
        a, b = self.cards[first], self.cards[second]
        if op == "/" and b.value == 0:
            raise StepError("division by zero")
        value = {
            "+": lambda: a.value + b.value,
            "-": lambda: a.value - b.value,
            "*": lambda: a.value * b.value,
            "/": lambda: a.value / b.value,
        }[op]()
        prec = _OPS[op]
        left = a.expression if a.precedence >= prec else f"({a.expression})"
        right_needs = b.precedence < prec or (b.precedence == prec and op in "-/")
        right = f"({b.expression})" if right_needs else b.expression
        card = Card(value, f"{left} {op} {right}", prec)
        cards = list(self.cards)
        cards[first] = card
        del cards[second]
        step = f"{_operand(a.value)} {op} {_operand(b.value)} = {card.label}"
        return Board(self.hand, tuple(cards), (*self.steps, step), self)

    def undo(self) -> Board | None:
        """The board before the last step; None when there is none."""
        return self.before

    @property
    def finished(self) -> bool:
        return len(self.cards) == 1

    @property
    def solved(self) -> bool:
        return self.finished and self.cards[0].value == self.hand.target

    @property
    def expression(self) -> str | None:
        return self.cards[0].expression if self.finished else None


def _dealt(hand: Hand) -> tuple[Card, ...]:
    return tuple(Card(Fraction(n), str(n)) for n in hand.numbers)
