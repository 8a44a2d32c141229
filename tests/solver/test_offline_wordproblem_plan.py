"""The offline word-problem player's plan: how strongly each cue pulls, and what it binds.

``plan`` reads a question into steps, drawing each operation from weights the words around a
quantity set. These tests pin those weights exactly: a ``FixedDraw`` stands in for the random
source, and the draw that picks an operation is swept over evenly spaced values, so the share
of plans taking an operation is its probability to within the spacing, with no sampling
noise. At temperature 0 every operation starts at 0.1; a cue word adds 1 to its operation; at
the last quantity a word of the question's last sentence ("how many boxes") adds 1.5 to
division; a part (a percent or a value below 1) adds 6 to multiplication and halves the rest.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from solver.model.offline.wordproblem import Step, plan, quantities, slip_steps

STEPS = 4000


def shares(question: str, index: int, pick: int = 1) -> dict[str, float]:
    """How often step ``index`` of the plan takes each operation, its ``pick``-th draw swept.

    The draw that picks the operation runs over ``(k + 0.5) / STEPS`` for every k, so the share
    of plans taking an operation is its weight's share to within 1 / STEPS.
    """
    got: Counter[str] = Counter()
    for k in range(STEPS):
        rng = FixedDraw(pick, (k + 0.5) / STEPS)
        steps = plan(question, rng, 0.0, set())
        got[steps[index].op] += 1
    return {op: got[op] / STEPS for op in "+-*/"}


class FixedDraw(random.Random):
    """A random source whose ``pick``-th draw is ``value`` and every other draw is 0.99."""

    def __init__(self, pick: int, value: float) -> None:
        super().__init__(0)
        self.pick = pick
        self.value = value
        self.count = 0

    def random(self) -> float:
        self.count += 1
        return self.value if self.count == self.pick else 0.99


def high() -> FixedDraw:
    """Every draw 0.99: each pair a cue can bind binds (no draw is swept)."""
    return FixedDraw(0, 0.0)


def test_a_cue_word_adds_one_to_its_operation() -> None:
    # "left" cues subtraction; nothing else in the window, or in the last sentence, is a cue.
    got = shares("Ann had 12 pears; 5 were left. What is the count?", 0)
    assert got["-"] == pytest.approx(1.1 / 1.4, abs=1e-3)
    for op in "+*/":
        assert got[op] == pytest.approx(0.1 / 1.4, abs=1e-3)


def test_a_question_ending_how_many_boxes_adds_one_and_a_half_to_division() -> None:
    got = shares("Ann has 12 pears, 4 in a box. How many boxes does she fill?", 0)
    assert got["/"] == pytest.approx(1.6 / 1.9, abs=1e-3)


def test_a_part_adds_six_to_multiplication_and_halves_the_rest() -> None:
    # "and" cues addition (1.1, halved to 0.55); the percent is a part: * is 0.1 + 6, of 6.75.
    got = shares("Ann has 80 pears and 25% of them are red.", 0)
    assert got["*"] == pytest.approx(6.1 / 6.75, abs=1e-3)
    assert got["+"] == pytest.approx(0.55 / 6.75, abs=1e-3)
    for op in "-/":
        assert got[op] == pytest.approx(0.05 / 6.75, abs=1e-3)


# ---------------------------------------------------------------- what a cue binds

FARMER = (
    "A farmer has 3 bags with 10 apples in each and 4 boxes with 6 pears in each. "
    "How many fruits are there?"
)


def test_each_pair_a_cue_binds_is_multiplied_first_and_its_unit_word_is_used_up() -> None:
    # Both pairs bind (draws 1 and 2); "each" belongs to its product, so the window of the
    # step that joins them holds "and" and no "each": addition's 1.1 of 1.4.
    steps = plan(FARMER, high(), 0.0, set())
    assert [s.line() for s in steps[:2]] == ["Product: 3 * 10 = 30", "Product: 4 * 6 = 24"]
    got = shares(FARMER, 2, pick=3)
    assert got["+"] == pytest.approx(1.1 / 1.4, abs=1e-3)
    assert got["*"] == pytest.approx(0.1 / 1.4, abs=1e-3)


def test_a_bound_pair_after_a_lone_quantity_is_multiplied_once() -> None:
    question = "Ann has 5 dollars. She buys 3 pens at $2 each. How many dollars has she now?"
    for k in range(200):
        steps = plan(question, FixedDraw(2, (k + 0.5) / 200), 0.0, set())
        assert len(steps) == 2, [s.line() for s in steps]
        assert steps[0].line() == "Product: 3 * 2 = 6"
        assert {steps[1].a, steps[1].b} == {5, 6}


@pytest.mark.parametrize(("fair", "binds"), [("huge", True), ("large", False)])
def test_a_cue_binds_a_pair_at_most_32_characters_apart(fair: str, binds: bool) -> None:
    question = f"Ann buys 7 books at the {fair} school fair, $3 each. How many dollars is that?"
    seven, three = quantities(question)
    between = question[seven.end : three.start]  # "books at the ... fair, $"
    assert len(between) == (32 if binds else 33)
    first = plan(question, high(), 0.0, set())[0]
    assert (first.line() == "Product: 7 * 3 = 21") is binds


def test_a_unit_word_used_by_a_product_is_its_first_after_the_pair() -> None:
    # "hour" comes twice after 6; the product takes the first, so "and" stays in the window of
    # the 2 (with "more": 2.1 of 2.4 for addition).
    question = "A pump moves 40 litres an hour for 6 hours and 2 hours more. How much is that?"
    assert plan(question, high(), 0.0, set())[0].line() == "Product: 40 * 6 = 240"
    assert shares(question, 1, pick=2)["+"] == pytest.approx(2.1 / 2.4, abs=1e-3)


def test_a_pair_bound_by_per_without_a_unit_word_uses_up_nothing_after_it() -> None:
    # "more" right after 3 stays in the next window (with "and": 2.1 of 2.4 for addition).
    question = "A cow eats 2 kg per day for 3 more days, and 4 kg on the last day. How many kg?"
    assert plan(question, high(), 0.0, set())[0].line() == "Product: 2 * 3 = 6"
    assert shares(question, 1, pick=2)["+"] == pytest.approx(2.1 / 2.4, abs=1e-3)


def test_a_percent_is_never_bound_as_a_count() -> None:
    question = (
        "Sara puts 200 dollars in a bank with 5% interest each year. What has she after 1 year?"
    )
    for k in range(100):
        steps = plan(question, FixedDraw(1, (k + 0.5) / 100), 0.0, set())
        assert all(s.label != "Product" for s in steps), [s.line() for s in steps]
    steps = plan(question, high(), 0.0, set())
    assert [s.line() for s in steps[:2]] == [
        "Then: 200 * (1/20) = 10",
        "The new amount: 200 + 10 = 210",
    ]


# ---------------------------------------------------------------- the window a cue is read in


def test_a_step_reads_cues_from_the_last_quantity_on_not_from_the_question_start() -> None:
    # "left" and "and" come before the 5: the 8's window holds only "then" (1.1 of 1.4).
    question = (
        "Ann has 20 pears left, and Bob sends her 5 pears. Then Cal sends her 8 pears. Count?"
    )
    got = shares(question, 1, pick=2)
    assert got["+"] == pytest.approx(1.1 / 1.4, abs=1e-3)
    assert got["-"] == pytest.approx(0.1 / 1.4, abs=1e-3)


@pytest.mark.parametrize(("words", "cued"), [("far less", True), ("rather less", False)])
def test_a_cue_counts_within_16_characters_after_its_quantity(words: str, cued: bool) -> None:
    # After "5 " comes "figs, far less" (14 characters) or "figs, rather less" (17).
    question = f"Ann has 20 pears. Bob sends her 5 figs, {words} than Cal does. What is the count?"
    assert shares(question, 0)["-"] == pytest.approx(1.1 / 1.4 if cued else 0.25, abs=1e-3)


# ---------------------------------------------------------------- division by zero and slips


def test_a_division_by_zero_skips_that_quantity_and_goes_on() -> None:
    question = "Ann splits 12 pears into 0 bags, then picks 5 more. How many pears?"
    divided = 0
    for k in range(200):
        steps = plan(question, FixedDraw(1, (k + 0.5) / 200), 0.0, set())
        assert 5 in (steps[-1].a, steps[-1].b), [s.line() for s in steps]
        divided += steps[0].b != 0
    assert divided  # some draws divide 12 by 0 and drop the 0


@pytest.mark.parametrize(
    ("question", "label"),
    [
        (
            "Sara puts 200 dollars in a bank with 5% interest. She then adds 30. What has she?",
            "The new amount",
        ),
        (
            "A coat costs 80 dollars and is 25% off. She then pays 30 more. What does she pay?",
            "What is left",
        ),
    ],
)
def test_a_slipped_amount_is_carried_into_the_next_step(question: str, label: str) -> None:
    steps = plan(question, high(), 0.0, set())
    assert [s.label for s in steps] == ["Then", label, "Then"], [s.line() for s in steps]
    for seed in range(20):
        slipped = slip_steps(steps, random.Random(seed), 1.0)
        assert slipped[1].written != slipped[1].value
        assert slipped[1].written in (slipped[2].a, slipped[2].b)


class FirstChoice(random.Random):
    """Takes the first of any choices: a slip writes its result 10 too low."""

    def choice(self, seq: Any) -> Any:
        return seq[0]


def test_a_slip_that_makes_a_later_divisor_zero_ends_the_work_there() -> None:
    steps = [
        Step(Fraction(5), "+", Fraction(5), Fraction(10), Fraction(10), "Then"),
        Step(Fraction(20), "/", Fraction(10), Fraction(2), Fraction(2), "Then"),
    ]
    slipped = slip_steps(steps, FirstChoice(0), 1.0)
    assert [s.line() for s in slipped] == ["Then: 5 + 5 = 0"]
