"""The offline engine learns from the worked examples it reads in its prompts.

IO's and CoT's shots and BoT+CoT's examples end in some way (two factors of 24 multiplied, a
sum, a difference) and use some operations; the engine reads them from the prompt text and
leans its own steps that way. Examples that end in products of factors make it reach for
factors of 24; examples that end in differences make it reach for numbers above 24; with no
examples it plays as before. The habits come from the text alone: the calls' ``context`` is
never read, and an example whose written result is not the target teaches nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any, Literal

import pytest

from puzzles.arith import BinOp, Expr, combine, parse, parse_number
from puzzles.game24 import Hand
from solver.domains import game24_prompts as g24p
from solver.model import Call, Message, Sampling
from solver.model.offline import OfflineModel
from solver.roles import Purpose

HANDS = ("4 7 8 8", "2 7 8 9", "1 5 5 5", "3 3 8 8", "1 4 5 6", "2 3 5 12")
SEEDS = range(4)
SAMPLES = 12

Examples = tuple[tuple[str, tuple[tuple[int, str, int], ...]], ...]
Shown = Examples | Literal["shipped"] | None
"""The examples a prompt shows: ours below, the ones ponder ships, or none."""


# Worked examples of our own (each number above 13 somewhere, as the shipped ones), each an
# exact solution: those that end by multiplying two factors of 24 ...
FACTORS: Examples = (
    ("3 4 14 16", ((16, "-", 14), (3, "*", 4), (12, "*", 2))),
    ("1 5 9 15", ((15, "-", 9), (5, "-", 1), (6, "*", 4))),
    ("3 5 14 17", ((17, "-", 14), (3, "+", 5), (8, "*", 3))),
)
# ... and those that end by taking a number from one above 24.
DIFFERENCES: Examples = (
    ("1 5 14 16", ((14, "+", 16), (5, "+", 1), (30, "-", 6))),
    ("2 4 13 19", ((13, "+", 19), (4, "*", 2), (32, "-", 8))),
    ("3 6 15 18", ((15, "+", 18), (6, "+", 3), (33, "-", 9))),
)


def shots(examples: Examples) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The same examples as IO's and CoT's shots: hand, steps 'a op b = c (left: ...)', answer."""
    out = []
    for numbers, moves in examples:
        left = [Fraction(n) for n in numbers.split()]
        built = [(Fraction(n), n) for n in numbers.split()]  # each number's expression
        lines = []
        for a, op, b in moves:
            fa, fb = Fraction(a), Fraction(b)
            ea = next(e for v, e in built if v == fa)
            built.remove((fa, ea))
            eb = next(e for v, e in built if v == fb)
            built.remove((fb, eb))
            c = combine(fa, op, fb)
            assert c is not None
            built.append((c, f"({ea} {op} {eb})"))
            left.remove(fa)
            left.remove(fb)
            left.append(c)
            lines.append(f"{a} {op} {b} = {c} (left: {' '.join(str(x) for x in sorted(left))})")
        ((value, answer),) = built
        assert value == 24 and parse(answer).value == 24  # each example is right
        out.append((numbers, tuple(lines), f"{answer} = 24"))
    return tuple(out)


def kinds(results: list[Fraction]) -> tuple[float, float]:
    """The share of results that are factors of 24 (2 to 12) and that are above 24."""
    n = len(results)
    factor = sum(1 for c in results if c.denominator == 1 and 1 < c < 24 and 24 % int(c) == 0)
    above = sum(1 for c in results if c > 24)
    return factor / n, above / n


def replies(purpose: str, text: str) -> list[str]:
    """The engine's replies to one prompt: SAMPLES samples for each seed of SEEDS."""

    async def run() -> list[str]:
        out: list[str] = []
        for seed in SEEDS:
            call = Call(
                Purpose(purpose), (Message("user", text),), Sampling(n=SAMPLES, temperature=0.7)
            )
            out.extend((await OfflineModel(seed).generate(call)).texts)
        return out

    return asyncio.run(run())


def result(a: str, op: str, b: str) -> Fraction:
    c = combine(parse_number(a), op, parse_number(b))
    assert c is not None
    return c


BOT_FIELDS = re.compile(r"Two numbers selected: (\S+) (\S+), Operation: ([-+*/])")
FIRST_STEP = re.compile(r"^(\S+) ([-+*/]) (\S+) = ", re.MULTILINE)


def bot_first_results(
    monkeypatch: pytest.MonkeyPatch, examples: Shown, edit: tuple[str, str] = ("", "")
) -> list[Fraction]:
    """What the first steps the engine gives BoT's step prompt make, on every hand, with
    ``examples`` shown as BoT+CoT shows them; ``edit`` replaces a text in the prompt."""
    if examples not in (None, "shipped"):
        monkeypatch.setattr(g24p, "BOT_EXAMPLES", examples)
    out = []
    for hand in HANDS:
        text = g24p.bot_step_prompt(Hand.parse(hand), "", [], examples=examples is not None)
        if edit[0]:
            assert edit[0] in text
            text = text.replace(*edit)
        for reply in replies("bot_step", text):
            m = BOT_FIELDS.search(reply)
            assert m is not None, reply
            out.append(result(m[1], m[3], m[2]))
    return out


def shown(monkeypatch: pytest.MonkeyPatch, examples: Shown) -> None:
    """IO's and CoT's shots set to ``examples``."""
    if examples is None:
        monkeypatch.setattr(g24p, "SHOTS", ())
    elif examples != "shipped":
        monkeypatch.setattr(g24p, "SHOTS", shots(examples))


def cot_first_results(monkeypatch: pytest.MonkeyPatch, examples: Shown) -> list[Fraction]:
    """What the first steps of the engine's CoT answers make, on every hand."""
    shown(monkeypatch, examples)
    out = []
    for hand in HANDS:
        for reply in replies("cot", g24p.cot_prompt(Hand.parse(hand))):
            m = FIRST_STEP.search(reply)
            assert m is not None, reply
            out.append(result(m[1], m[2], m[3]))
    return out


def io_inner_results(monkeypatch: pytest.MonkeyPatch, examples: Shown) -> list[Fraction]:
    """The numbers the engine's IO answers make on the way (every operation of an answer
    but its last). IO's shots show only answers: the engine reads how they end from the
    expressions."""
    shown(monkeypatch, examples)
    out: list[Fraction] = []
    for hand in HANDS:
        for reply in replies("io", g24p.io_prompt(Hand.parse(hand))):
            expr = parse(reply.removeprefix("Answer: ").rsplit("=", 1)[0])
            out.extend(inner_values(expr))
    return out


def inner_values(expr: Expr, root: bool = True) -> list[Fraction]:
    if not isinstance(expr, BinOp):
        return []
    mine = [] if root else [expr.value]
    return [*mine, *inner_values(expr.left, False), *inner_values(expr.right, False)]


READERS = {"bot": bot_first_results, "cot": cot_first_results, "io": io_inner_results}


# ------------------------------------------------------------------ the habits, both ways


@pytest.mark.parametrize("method", sorted(READERS))
def test_examples_that_end_in_factors_or_differences_pull_the_steps_their_way(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    read = READERS[method]
    none_factor, none_above = kinds(read(monkeypatch, None))
    fact_factor, fact_above = kinds(read(monkeypatch, FACTORS))
    diff_factor, diff_above = kinds(read(monkeypatch, DIFFERENCES))
    # Examples ending in "6 * 4 = 24": many more steps make a factor of 24 than with none,
    # and fewer go above 24.
    assert fact_factor > none_factor + 0.12
    assert fact_above < none_above
    # Examples ending in "30 - 6 = 24": more steps go above 24 than with none ...
    assert diff_above > none_above + 0.05
    # ... and the two teachings pull apart, each its own way.
    assert fact_factor > diff_factor + 0.12
    assert diff_above > fact_above + 0.08


@pytest.mark.parametrize("method", sorted(READERS))
def test_the_shipped_examples_and_shots_teach_factors(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """BoT+CoT's own examples (two of five end in 2 * 12) and IO's and CoT's shots (three of
    five end in a product of factors) make factor steps more common than the same prompts
    with no examples: what the figures page's ``--examples`` row and IO/CoT figures measure."""
    read = READERS[method]
    none_factor, _ = kinds(read(monkeypatch, None))
    monkeypatch.undo()
    factor, _ = kinds(read(monkeypatch, "shipped"))
    assert factor > none_factor + 0.1


# ------------------------------------------------------------------ read from the text only


def test_examples_whose_written_ending_is_not_the_target_teach_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same examples with each last step's written result changed from 24 to 25 are not
    worked solutions to a reader, so the engine plays as with no examples: the habit comes
    from what the text says, not from a flag that examples were asked for."""
    none_factor, _ = kinds(bot_first_results(monkeypatch, None))
    fact_factor, _ = kinds(bot_first_results(monkeypatch, FACTORS))
    edit = ("New number calculated: 24,", "New number calculated: 25,")
    wrong_factor, _ = kinds(bot_first_results(monkeypatch, FACTORS, edit))
    assert abs(wrong_factor - none_factor) < 0.08
    assert fact_factor > wrong_factor + 0.12


class Untouchable(Mapping[str, Any]):
    """A context that fails the test when anyone looks inside."""

    def __getitem__(self, key: str) -> Any:
        raise AssertionError(f"the engine read context[{key!r}]")

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the engine iterated over the context")

    def __len__(self) -> int:
        raise AssertionError("the engine measured the context")


GARBAGE: dict[str, Any] = {
    "examples": False,
    "hand": "1 1 1 1",
    "habits": {"factors": 0.0, "difference": 1.0},
    "target": 10,
    "steps": ["13 * 13 = 169"],
}


@pytest.mark.parametrize(
    ("purpose", "prompt"),
    [
        ("bot_step", lambda hand: g24p.bot_step_prompt(hand, "", [], examples=True)),
        ("cot", g24p.cot_prompt),
        ("io", g24p.io_prompt),
    ],
)
def test_a_garbage_or_untouchable_context_changes_no_reply(purpose: str, prompt: Any) -> None:
    async def texts(context: Mapping[str, Any]) -> list[tuple[str, ...]]:
        out = []
        for hand in HANDS[:4]:
            call = Call(
                Purpose(purpose),
                (Message("user", prompt(Hand.parse(hand))),),
                Sampling(n=5, temperature=0.7),
            )
            gen = await OfflineModel(3).generate(dataclasses.replace(call, context=context))
            out.append(gen.texts)
        return out

    plain = asyncio.run(texts({}))
    assert asyncio.run(texts(GARBAGE)) == plain
    assert asyncio.run(texts(Untouchable())) == plain
