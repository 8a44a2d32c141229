"""The catalogue of every Game of 24 hand of four cards from 1 to 13, rated for difficulty.

There are 1,820 such hands (multisets); 1,362 of them can make 24. Each gets an
:class:`Entry` built from the exact solver (:mod:`puzzles.game24.solve`).

**Difficulty.** A person looks for *one* solution, so what matters is how easy the easiest
routes are and how many there are. The score adds up, in points:

==========================  ======  ==========================================================
feature                     weight  why
==========================  ======  ==========================================================
needs fractions             +4      every solution passes through a non-whole number
                                    (``8 / (3 - 8 / 3)``); people rarely think of it, and it
                                    is the mark of the famous hard hands
largest number held         +1 per  the smallest, over whole-number solutions, of the largest
                            doubling value reached (``max_intermediate``), in doublings
                                    above the target: 96 on the way to 24 is 2 points
needs a product             +1      no solution gets by with + and - alone (multiplying or
                                    dividing by 1 does not count)
no 1 in the hand            +1      a 1 is a spare part: it can be added, taken away, or
                                    multiplied in without changing anything
routes                      -1 per  log2(1 + count of whole-number solutions, or of all
                            doubling solutions when every one needs fractions): twice as many
                                    routes, one point easier
==========================  ======  ==========================================================

plus 3, floored at 0, so the easiest hands score 0 and the hardest about 8. Unsolvable hands
score infinity. The weights were chosen by hand after fitting a linear model to the human
solve times behind Tree of Thoughts' ``24.csv`` (4nums.com; its ``Rank`` orders the 1,362
solvable hands by mean time): this score's Spearman correlation with that ranking is 0.58,
where the number of solutions alone gives 0.43. A "needs division" feature was tried and
dropped: once the size of the numbers was counted, its fitted weight came out negative.

**Levels.** ``easy`` below 2.5, ``medium`` below 3.5, ``hard`` below 5, ``expert`` from 5;
``unsolvable`` for hands without a solution. Over the catalogue that is 445 easy, 534 medium,
288 hard and 95 expert hands, and their mean ranks in ``24.csv`` rise in that order (415, 706,
877, 1200 of 1,362).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from pathlib import Path

from puzzles.arith import format_number, format_operand
from puzzles.game24.rules import DEFAULT_TARGET, Hand, Step, apply
from puzzles.game24.solve import Solution, solve

__all__ = [
    "LEVELS",
    "UNSOLVABLE",
    "Entry",
    "catalogue",
    "entry",
    "hardest",
    "hints",
    "pick",
    "rate",
    "reload",
]

LEVELS = ("easy", "medium", "hard", "expert")
"""The levels of solvable hands, easiest first."""
UNSOLVABLE = "unsolvable"
"""The level of hands without a solution."""

LOWEST_CARD = 1
HIGHEST_CARD = 13
CARDS_PER_HAND = 4

# Upper bounds of each level's score; at or above the last one a hand is "expert".
_LEVEL_BOUNDS = ((2.5, "easy"), (3.5, "medium"), (5.0, "hard"))

# Weights of the difficulty score; the module docstring says why.
_BASE = 3.0
_FRACTIONS = 4.0
_DOUBLING = 1.0
_PRODUCT = 1.0
_NO_ONE = 1.0
_ROUTES = 1.0


@dataclass(frozen=True, slots=True)
class Entry:
    """A hand, its solutions and its difficulty rating, with the features behind it."""

    hand: Hand
    solvable: bool
    solutions: int
    """Distinct solutions (see :mod:`puzzles.game24.solve` for what counts as distinct)."""
    whole_solutions: int
    """Solutions whose every step is a whole number."""
    needs_fractions: bool
    """Solvable, but every solution passes through a non-whole number."""
    needs_product: bool
    """Solvable, but no solution makes do with + and - (and multiplying or dividing by 1)."""
    max_intermediate: Fraction | None
    """The smallest largest value a solution must reach, preferring whole-number solutions;
    None when unsolvable."""
    has_one: bool
    """Whether a card is 1."""
    difficulty: float
    """The score: 0 (easiest) to about 8 (hardest); infinity when unsolvable."""
    level: str
    """One of :data:`LEVELS`, or :data:`UNSOLVABLE`."""

    @property
    def few_solutions(self) -> bool:
        """Solvable in only one or two distinct ways."""
        return 0 < self.solutions <= 2


def _needs_no_product(solution: Solution) -> bool:
    """True when every multiplication or division in the solution is by 1."""
    for step in solution.steps:
        if step.op == "/" and step.b != 1:
            return False
        if step.op == "*" and step.a != 1 and step.b != 1:
            return False
    return True


def _level(score: float) -> str:
    for bound, level in _LEVEL_BOUNDS:
        if score < bound:
            return level
    return LEVELS[-1]


def _rated(
    hand: Hand, solutions: int, whole: int, needs_product: bool, largest: Fraction | None
) -> Entry:
    """The entry for a hand from the solver's findings: the score is worked out here."""
    has_one = 1 in hand.numbers
    if solutions == 0 or largest is None:
        return Entry(hand, False, 0, 0, False, False, None, has_one, math.inf, UNSOLVABLE)
    scale = Fraction(max(abs(hand.target), 1))
    doublings = math.log2(max(largest, scale) / scale)
    score = (
        _BASE
        + _FRACTIONS * (not whole)
        + _DOUBLING * doublings
        + _PRODUCT * needs_product
        + _NO_ONE * (not has_one)
        - _ROUTES * math.log2(1 + (whole or solutions))
    )
    score = round(max(score, 0.0), 3)
    return Entry(
        hand=hand,
        solvable=True,
        solutions=solutions,
        whole_solutions=whole,
        needs_fractions=not whole,
        needs_product=needs_product,
        max_intermediate=largest,
        has_one=has_one,
        difficulty=score,
        level=_level(score),
    )


def rate(hand: Hand) -> Entry:
    """Solve ``hand`` and rate it; works for any hand, in the catalogue or not."""
    found = solve(hand)
    if not found:
        return _rated(hand, 0, 0, False, None)
    whole = [s for s in found if not s.fractional]
    largest = min(s.peak for s in (whole or found))
    needs_product = not any(_needs_no_product(s) for s in found)
    return _rated(hand, len(found), len(whole), needs_product, largest)


TABLE = Path(__file__).with_name("catalogue.csv")
"""The solver's findings for every catalogue hand, shipped so the catalogue loads at once;
``python -m puzzles.game24.catalogue`` writes it again, and a test checks it against the
exact solver."""
_TABLE_HEADER = "cards,solutions,whole_solutions,needs_product,max_intermediate"


def _hands() -> list[Hand]:
    cards = range(LOWEST_CARD, HIGHEST_CARD + 1)
    return [Hand(c) for c in combinations_with_replacement(cards, CARDS_PER_HAND)]


def table_text(entries: list[Entry]) -> str:
    """The shipped table's text for ``entries`` (see :data:`TABLE`)."""
    rows = [_TABLE_HEADER]
    for e in entries:
        largest = "" if e.max_intermediate is None else format_number(e.max_intermediate)
        cards = " ".join(str(n) for n in e.hand.numbers)
        rows.append(f"{cards},{e.solutions},{e.whole_solutions},{int(e.needs_product)},{largest}")
    return "\n".join(rows) + "\n"


def _from_table(text: str) -> tuple[Entry, ...] | None:
    """The entries read back from the table, or None if it does not fit the catalogue."""
    lines = text.splitlines()
    hands = _hands()
    if not lines or lines[0] != _TABLE_HEADER or len(lines) != len(hands) + 1:
        return None
    out = []
    for hand, line in zip(hands, lines[1:], strict=True):
        cards, solutions, whole, product, largest = line.split(",")
        if cards != " ".join(str(n) for n in hand.numbers):
            return None
        value = Fraction(largest) if largest else None
        out.append(_rated(hand, int(solutions), int(whole), product == "1", value))
    return tuple(out)


@cache
def _entries() -> tuple[Entry, ...]:
    try:
        shipped = _from_table(TABLE.read_text(encoding="ascii"))
    except (OSError, ValueError):
        shipped = None
    # Without the table (or with a damaged one) the solver builds it: slower, same result.
    return shipped if shipped is not None else tuple(rate(hand) for hand in _hands())


@cache
def _by_key() -> dict[str, Entry]:
    return {e.hand.key: e for e in _entries()}


def catalogue() -> list[Entry]:
    """All 1,820 hands of four cards 1-13 with target 24, in order of their sorted cards.

    Read from the shipped table on first use and kept for the life of the process."""
    return list(_entries())


def reload() -> None:
    """Forget the catalogue read so far: the next use reads ``TABLE`` again (after the table
    is rebuilt, or pointed elsewhere)."""
    _entries.cache_clear()
    _by_key.cache_clear()


def entry(hand: Hand) -> Entry:
    """The catalogue entry for ``hand`` (in any card order); hands outside the catalogue
    (other targets, other cards) are rated on the spot."""
    if hand.target == DEFAULT_TARGET:
        found = _by_key().get(hand.key)
        if found is not None:
            return found
    return rate(hand)


def pick(level: str | None = None, seed: int = 0) -> Hand:
    """A hand of the given level (any solvable hand when None), chosen by ``seed``: the same
    level and seed always give the same hand."""
    if level is None:
        pool = [e for e in _entries() if e.solvable]
    elif level in LEVELS or level == UNSOLVABLE:
        pool = [e for e in _entries() if e.level == level]
    else:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    return random.Random(seed).choice(pool).hand


def hardest(n: int) -> list[Hand]:
    """The ``n`` hardest solvable hands by our score, hardest first (ties by their cards)."""
    solvable = [e for e in _entries() if e.solvable]
    solvable.sort(key=lambda e: (-e.difficulty, e.hand.numbers))
    return [e.hand for e in solvable[: max(n, 0)]]


def _describe(step: Step) -> str:
    """``8 / (1/3) = 24``: fractions bracketed so the step reads one way only."""
    a, b = format_operand(step.a), format_operand(step.b)
    return f"{a} {step.op} {b} = {format_number(step.result)}"


def hints(hand: Hand) -> list[str]:
    """Progressive hints from the exact solver: a nudge, a first step, a full solution.

    An unsolvable hand gets a single hint saying so. The solution is the plainest one (whole
    numbers, small values), and the first step is the first step of that solution."""
    found = solve(hand)
    if not found:
        return [
            f"This hand has no solution: no way of combining {hand} with + - * / "
            f"makes {hand.target}."
        ]
    best = found[0]
    first = best.steps[0]  # a hand has at least two cards, so at least one step
    nudge = f"Start with {format_number(first.a)} and {format_number(first.b)}."
    if best.fractional:
        nudge += " This one needs a fraction along the way."
    elif len(found) == 1:
        nudge += " There is only one way to do it."
    state = apply(hand.start(), first.a, first.op, first.b)
    step = f"Try {_describe(first)} (left: {state.left()})."
    return [nudge, step, f"{best.expression} = {hand.target}"]


if __name__ == "__main__":
    # Write the shipped table again from the exact solver.
    TABLE.write_text(table_text([rate(hand) for hand in _hands()]), encoding="ascii")
    print(f"{TABLE}: {len(_hands())} hands")
