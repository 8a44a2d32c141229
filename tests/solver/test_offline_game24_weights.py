"""How the offline Game of 24 player weighs its choices, exactly.

The player picks each step at random, in proportion to a weight per possible step: a weight
for how the result looks, multiplied by what the prompt taught (a chain the analysis
recommended, advice against a step, the worked examples' habits). The roles tests see those
weights only through shares over many samples; here they are read where the player makes its
choice (its ``_pick``, watched without changing it), so a factor of 40 is told from one of 41.

The hands have three numbers: a step leaves two, which the player checks in full, so a
step's weight has no random part. Where a rule is about a draw of the random source (ToT's
jitter, a mental try, a rescaled choice), a stand-in source scripts the draws.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import pytest

from puzzles.arith import format_number
from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.model import Call, Message, Sampling
from solver.model.markers import G24_IO
from solver.model.offline import OfflineModel, writing
from solver.model.offline import game24 as player
from solver.roles import Purpose, Role
from tests.solver.offline_calls import chain_entry, reply

Weights = dict[str, float]


def named(move: Sequence[Any]) -> str:
    a, op, b = move[0], move[1], move[2]
    return f"{format_number(a)} {op} {format_number(b)}"


def picks(
    monkeypatch: pytest.MonkeyPatch,
    purpose: str,
    prompt: tuple[Message, ...],
    seed: int = 1,
    top_p: float = 1.0,
) -> list[Weights]:
    """The weights of every choice the player made writing one reply, in order."""
    seen: list[Weights] = []
    pick = player.Play.pick

    def watched(self: Any, moves: list[Any], weights: list[float], *rest: Any) -> Any:
        seen.append({named(m): w for m, w in zip(moves, weights, strict=True)})
        return pick(self, moves, weights, *rest)

    monkeypatch.setattr(player.Play, "pick", watched)
    reply(purpose, prompt, seed, 0.7, top_p)
    monkeypatch.undo()
    return seen


def opening(
    monkeypatch: pytest.MonkeyPatch, hand: str, experience: str = "", top_p: float = 1.0
) -> Weights:
    """The weights of BoT's first step from ``hand`` under ``experience``."""
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.STEP, experience=experience, chain=[])
    (weights,) = picks(monkeypatch, "bot_step", prompt, top_p=top_p)
    return weights


# ---------------------------------------------------------------- how a step looks


def test_a_steps_own_weight_is_the_product_of_how_its_result_looks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # From 1 4 6: 6 * 4 makes 24, a divisor of 24 (twice as welcome), and leaves 1 24, from
    # which 24 is made (four times). 6 / 1 makes 6, a divisor, by a division that comes out
    # whole (1.3), and leaves 4 6 (four times). 6 / 4 makes a fraction (0.08); so does 1 / 4,
    # but it leaves 6 and 1/4, and 6 / (1/4) is 24.
    weights = opening(monkeypatch, "1 4 6")
    assert weights["6 * 4"] == pytest.approx(8.0)
    assert weights["6 / 1"] == pytest.approx(2 * 1.3 * 4)
    assert weights["6 / 4"] == pytest.approx(0.08)
    assert weights["1 / 4"] == pytest.approx(0.08 * 4)
    assert weights["4 + 1"] == pytest.approx(1.0)
    # From 1 2 201: a result above 100 counts a fifth, a fraction above it too.
    weights = opening(monkeypatch, "1 2 201")
    assert weights["201 * 2"] == pytest.approx(0.2)
    assert weights["201 / 2"] == pytest.approx(0.08 * 0.2)
    assert weights["2 / 201"] == pytest.approx(0.08)
    assert weights["201 / 1"] == pytest.approx(0.2 * 1.3)


def test_a_result_of_zero_counts_a_fifth(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = opening(monkeypatch, "4 4 6")
    assert weights["4 - 4"] == pytest.approx(0.2)
    assert weights["4 + 4"] == pytest.approx(2.0)  # 8 divides 24


def test_the_numbers_that_feel_nice_are_the_target_and_its_divisors() -> None:
    assert writing.nice(Fraction(24)) == {Fraction(d) for d in (1, 2, 3, 4, 6, 8, 12, 24)}
    assert writing.nice(Fraction(2)) == {Fraction(1), Fraction(2)}
    assert writing.nice(Fraction(1)) == {Fraction(1)}
    # Divisors are looked for up to 1,000 (a target of a billion is read in no time).
    assert Fraction(1000) in writing.nice(Fraction(2000))
    assert Fraction(1001) not in writing.nice(Fraction(2002))


# ---------------------------------------------------------------- what the experience teaches


CHAIN = ["4 * 6 = 24 (left: 1 24)", "24 * 1 = 24 (left: 24)"]


MISSED = ["4 * 6 = 24 (left: 1 24)", "24 + 1 = 25 (left: 25)"]


@pytest.mark.parametrize(
    ("chain", "verdicts", "factor"),
    [
        (CHAIN, ["Recommend", "Recommend"], 40.0),  # recommended in full: a chain to reuse
        (MISSED, ["Recommend", "Reject"], 3.0),  # recommended, in a chain that went wrong
        (MISSED, ["Reject", "Reject"], 0.02),
        (MISSED, ["-", "-"], 1.0),  # no verdict that can be read
        (CHAIN, ["-", "-"], 40.0),  # none, but the chain makes 24: a worked solution
    ],
)
def test_a_chains_verdict_multiplies_the_weight_of_its_step(
    monkeypatch: pytest.MonkeyPatch, chain: list[str], verdicts: list[str], factor: float
) -> None:
    plain = opening(monkeypatch, "1 4 6")
    taught = opening(monkeypatch, "1 4 6", chain_entry(chain, verdicts))
    assert taught["6 * 4"] == pytest.approx(plain["6 * 4"] * factor)
    assert {k: w for k, w in taught.items() if k != "6 * 4"} == {
        k: w for k, w in plain.items() if k != "6 * 4"
    }


def advice_against(step: str, times: int = 1) -> str:
    line = f"- Advice: do not use {step} from 1 4 6; combine a different pair."
    return "Advice and error reports so far:\n" + "\n".join([line] * times)


def test_advice_cuts_a_step_to_a_fiftieth_of_its_weight_however_often_it_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = opening(monkeypatch, "1 4 6")["6 * 4"]
    assert plain == pytest.approx(8.0)
    for times in (1, 2, 3):
        told = opening(monkeypatch, "1 4 6", advice_against("4 * 6 = 24", times))
        assert told["6 * 4"] == pytest.approx(plain * 0.02)


def test_a_step_both_rejected_by_its_chain_and_advised_against_is_cut_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = opening(monkeypatch, "1 4 6")["6 * 4"]
    both = chain_entry(CHAIN, ["Reject", "Reject"]) + "\n" + advice_against("4 * 6 = 24")
    assert opening(monkeypatch, "1 4 6", both)["6 * 4"] == pytest.approx(plain * 0.02)


def test_advice_against_a_step_its_chain_recommended_still_cuts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = opening(monkeypatch, "1 4 6")["6 * 4"]
    both = chain_entry(CHAIN, ["Recommend", "Reject"]) + "\n" + advice_against("4 * 6 = 24")
    assert opening(monkeypatch, "1 4 6", both)["6 * 4"] == pytest.approx(plain * 3 * 0.02)


def entry_of_three_chains() -> str:
    """One entry quoting three chains, each followed by its own analysis."""
    chains = [
        (["4 * 6 = 24 (left: 1 24)", "24 * 1 = 24 (left: 24)"], "Recommend"),
        (["1 + 4 = 5 (left: 5 6)", "5 * 6 = 30 (left: 30)"], "Reject"),
        (["6 / 1 = 6 (left: 4 6)", "6 * 4 = 24 (left: 24)"], "Recommend"),
    ]
    lines = ["1. Reasoning chain and comments"]
    for steps, verdict in chains:
        lines += ["---", *(f"Step {i}: {s}" for i, s in enumerate(steps, 1)), "---"]
        lines += [
            f"Step {i}: Error report: -. Advice: -. Recommendation or Reject: {verdict}"
            for i in (1, 2)
        ]
    return "\n".join(lines)


def test_an_entry_of_several_chains_is_read_chain_by_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each chain's verdicts are those written between it and the next chain.
    plain = opening(monkeypatch, "1 4 6")
    taught = opening(monkeypatch, "1 4 6", entry_of_three_chains())
    assert taught["6 * 4"] == pytest.approx(plain["6 * 4"] * 40)
    assert taught["4 + 1"] == pytest.approx(plain["4 + 1"] * 0.02)
    assert taught["6 / 1"] == pytest.approx(plain["6 / 1"] * 40)


def test_a_quoted_block_without_steps_does_not_end_the_reading_of_its_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    empty = "1. Reasoning chain and comments\n---\n(no steps were taken)\n---\n"
    entry = empty + "\n".join(chain_entry(CHAIN, ["Recommend", "Recommend"]).splitlines()[1:])
    plain = opening(monkeypatch, "1 4 6")
    assert opening(monkeypatch, "1 4 6", entry)["6 * 4"] == pytest.approx(plain["6 * 4"] * 40)


# ---------------------------------------------------------------- the nucleus


@pytest.mark.parametrize("top_p", [0.2, 0.5, 0.8, 0.95])
def test_a_nucleus_keeps_the_heaviest_steps_until_they_make_up_top_p_of_the_weight(
    monkeypatch: pytest.MonkeyPatch, top_p: float
) -> None:
    full = opening(monkeypatch, "1 4 6")
    heaviest = sorted(full, key=lambda k: -full[k])
    total, kept = sum(full.values()), 0
    while sum(full[k] for k in heaviest[:kept]) < top_p * total:
        kept += 1
    assert 1 < kept < len(full)  # the nucleus cuts somewhere in the middle
    assert opening(monkeypatch, "1 4 6", top_p=top_p) == {k: full[k] for k in heaviest[:kept]}


def test_a_nucleus_its_heaviest_steps_fill_exactly_keeps_them_and_no_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = opening(monkeypatch, "1 4 6")
    heaviest = sorted(full, key=lambda k: -full[k])
    total, top_two = sum(full.values()), full[heaviest[0]] + full[heaviest[1]]
    top_p = top_two / total
    assert top_p * total == top_two  # exactly, in floating point
    assert opening(monkeypatch, "1 4 6", top_p=top_p) == {k: full[k] for k in heaviest[:2]}


# ---------------------------------------------------------------- the worked examples' habits

SUM_EXAMPLES = (  # an IO prompt, known as one by its rule (markers.G24_IO)
    f"Use the numbers to obtain 24. {G24_IO}\n"
    "Input: 4 4 5\nAnswer: 4 * 5 + 4 = 24\nInput: 3 3 7\nAnswer: 3 * 7 + 3 = 24\nInput: {hand}\n"
)


def attempt_picks(
    monkeypatch: pytest.MonkeyPatch, user: str, seed: int
) -> tuple[list[Weights], Weights]:
    """Every choice an IO reply made, and the weights of its hand's opening with no
    examples."""
    hand = user.strip().splitlines()[-1].removeprefix("Input: ")
    choices = picks(monkeypatch, "io", (Message("user", user),), seed)
    bare = (Message("user", f"Use them to obtain 24. {G24_IO}\nInput: {hand}\n"),)
    alone = picks(monkeypatch, "io", bare, 99)[0]
    return choices, alone


def test_examples_that_end_in_a_sum_pull_towards_whole_parts_of_24_and_their_operations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Both examples end in a sum (share 1) and use * and + once each (shares 1/2; - and /
    # none): a step that makes a whole number between 0 and 24 weighs 1 + 2 x 1 = 3 times
    # as much, and + or * 1 + 1.6 x (1/2 - 1/4) = 1.4 times, - or / 1 - 1.6 / 4 = 0.6 times.
    choices, alone = attempt_picks(monkeypatch, SUM_EXAMPLES.format(hand="4 4 6"), 1)
    taught = choices[0]
    expected = {
        "4 + 4": 3 * 1.4,  # 8
        "6 + 4": 3 * 1.4,  # 10
        "6 - 4": 3 * 0.6,  # 2
        "4 / 4": 3 * 0.6,  # 1
        "4 * 4": 3 * 1.4,  # 16
        "6 * 4": 1.4,  # 24 itself is no part of 24
        "4 - 4": 0.6,  # nor is 0
        "6 / 4": 0.6,  # nor a fraction
    }
    for step, factor in expected.items():
        assert taught[step] == pytest.approx(alone[step] * factor), step


def test_every_sample_that_tries_on_its_own_keeps_the_examples_habits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sample gives its habitual answer, or tries on its own: both start from the hand
    # with the weights the examples taught.
    user = SUM_EXAMPLES.format(hand="4 4 6")
    tried = 0
    for seed in range(12):
        choices, alone = attempt_picks(monkeypatch, user, seed)
        openings = [w for w in choices if len(w) == len(choices[0])]
        tried += len(openings) > 1
        assert all(w == choices[0] for w in openings)
        assert openings[0]["6 + 4"] == pytest.approx(alone["6 + 4"] * 4.2)
    assert tried >= 3


def habits(text: str, target: int = 24) -> player.Habits:
    read = player.read_habits(text, Fraction(target))
    assert read is not None
    return read


@pytest.mark.parametrize(
    ("answer", "ending"),
    [
        ("6 * 4 = 24", "factors"),
        ("12 + 12 = 24", "sum"),  # two factors added are a sum
        ("30 - 6 = 24", "difference"),
        ("24 * 1 = 24", ""),  # 1 is no factor
        ("48 / 2 = 24", ""),
    ],
)
def test_an_example_is_sorted_by_how_its_last_step_ends(answer: str, ending: str) -> None:
    a, _, b = answer.split()[:3]
    text = f"Input: {a} {b}\nAnswer: {answer}\nInput: 1 2 3 4\n"
    assert dict(habits(text).endings) == ({ending: 1.0} if ending else {})


def move(a: int, op: str, b: int, c: Fraction, rest: int = 1) -> Any:
    return (Fraction(a), op, Fraction(b), c, (Fraction(rest),))


@pytest.mark.parametrize(
    ("ending", "made", "fits"),
    [
        ("factors", Fraction(6), True),
        ("factors", Fraction(5), False),
        ("factors", Fraction(24), False),
        ("factors", Fraction(3, 2), False),
        ("sum", Fraction(1), True),
        ("sum", Fraction(23), True),
        ("sum", Fraction(0), False),
        ("sum", Fraction(24), False),
        ("sum", Fraction(1, 2), False),
        ("difference", Fraction(25), True),
        ("difference", Fraction(24), False),
        ("difference", Fraction(51, 2), False),
    ],
)
def test_a_step_prepares_an_ending_when_it_makes_that_endings_kind_of_number(
    ending: str, made: Fraction, fits: bool
) -> None:
    # A factor of the target for factors, a whole part of it for a sum, a whole number above
    # it for a difference. Every operation's share is a quarter: only the ending pulls.
    shares = tuple((op, 0.25) for op in "+-*/")
    taught = player.Habits(((ending, 1.0),), shares)
    assert taught.weight(move(2, "+", 3, made), Fraction(24)) == pytest.approx(3.0 if fits else 1.0)


def test_a_target_of_zero_has_no_factors_to_prepare() -> None:
    shares = tuple((op, 0.25) for op in "+-*/")
    taught = player.Habits((("factors", 1.0),), shares)
    assert taught.weight(move(2, "+", 3, Fraction(5)), Fraction(0)) == pytest.approx(1.0)
    assert player.ending_of((Fraction(5), "*", Fraction(7), "0"), Fraction(0)) == ""


def test_the_last_step_is_left_to_the_target_itself() -> None:
    taught = habits(SUM_EXAMPLES.format(hand="1 2 3"))
    last = (Fraction(20), "+", Fraction(4), Fraction(24), ())
    assert taught.weight(last, Fraction(24)) == 1.0


def test_a_bot_cot_examples_steps_are_read_from_their_first_step_line_even_indented() -> None:
    text = (
        "Example 1, numbers 2 3 4:\n"
        "  Step 1, Current set: 2 3 4, Two numbers selected: 2 3, Operation: +, "
        "New number calculated: 5, Remaining numbers: 4\n"
        "  Step 2, Current set: 4 5, Two numbers selected: 5 4, Operation: *, "
        "New number calculated: 20, Remaining numbers: none\n"
        "Example 2, numbers 4 6:\n"
        "Step 1, Current set: 4 6, Two numbers selected: 4 6, Operation: *, "
        "New number calculated: 24, Remaining numbers: none\n"
        "6 - 4 = 2 (left: 2)\n"
    )
    # Example 1 makes 20, not 24: it is no worked solution. Example 2 ends at its last
    # step line (the equation after it is not one of its steps).
    assert dict(habits(text).ops) == {"+": 0.0, "-": 0.0, "*": 1.0, "/": 0.0}
    shifted = text.replace("Example 1, numbers 2 3 4:", "Example 1, numbers 2 3 4 24:").replace(
        "New number calculated: 20", "New number calculated: 24"
    )
    assert dict(habits(shifted).ops) == {"+": 1 / 3, "-": 0.0, "*": 2 / 3, "/": 0.0}


def test_an_io_examples_written_steps_count_over_its_answer() -> None:
    # The steps under an example's Input are what it teaches; its answer is read only
    # when it has none.
    text = (
        "Input: 2 3 4\n2 * 3 = 6 (left: 4 6)\n6 * 4 = 24 (left: 24)\n"
        "Answer: (2 + 3) * 4 + 4 = 24\nInput: 1 2 3 4\n"
    )
    assert dict(habits(text).ops) == {"+": 0.0, "-": 0.0, "*": 1.0, "/": 0.0}


def test_a_number_in_parentheses_is_read_only_with_both_of_them() -> None:
    assert player.read_number("(12)") == 12
    assert player.read_number("(-2)") == -2
    assert player.read_number("(12") is None
    assert player.read_number("12)") is None


# ---------------------------------------------------------------- draws of the random source


class Scripted(random.Random):
    """A random source whose draws are ``draws`` in turn, then ``then`` for ever."""

    def __init__(self, draws: Sequence[float], then: float = 0.99) -> None:
        super().__init__(0)
        self.draws: Iterator[float] = iter(draws)
        self.then = then

    def random(self) -> float:
        return next(self.draws, self.then)


def test_tots_proposals_rank_by_weight_times_a_jitter_of_half_to_one_and_a_half() -> None:
    engine = player.Play(seed=0)
    nums = (Fraction(1), Fraction(4), Fraction(6))
    moves = list(player.moves_from(nums))
    weights = [engine.step_weight(m, random.Random(0)) for m in moves]
    changed = 0
    for seed in range(20):
        draws = [random.Random(f"{seed}|{i}").random() for i in range(len(moves))]
        ranked = sorted(range(len(moves)), key=lambda i: -weights[i] * (0.5 + draws[i]))
        lines = engine.propose(nums, Scripted(draws), 0.7).splitlines()
        assert [line.split(" = ")[0] for line in lines] == [
            named(moves[i]) for i in ranked[: len(lines)]
        ]
        plain = sorted(range(len(moves)), key=lambda i: -weights[i])
        changed += ranked[: len(lines)] != plain[: len(lines)]
    assert changed >= 10  # the jitter reorders the proposals more often than not


def test_a_try_that_finds_nothing_to_do_is_only_one_try() -> None:
    # Every step from 2/5 3/20 1/9 makes a fraction, which comes to mind one time in seven
    # (a draw below 0.15); 3/20 * 1/9 = 1/60 leaves 2/5 1/60, and (2/5) / (1/60) = 24.
    engine = player.Play(seed=0)
    nums = (Fraction(2, 5), Fraction(3, 20), Fraction(1, 9))
    moves = list(player.moves_from(nums))
    assert all(m[3].denominator != 1 for m in moves)
    key = next(i for i, m in enumerate(moves) if {m[0], m[2]} == set(nums[1:]) and m[1] == "*")
    nothing = [0.5] * len(moves)  # the first try: no step comes to mind
    only_key = [0.1 if i == key else 0.5 for i in range(len(moves))]
    found = engine.tries(nums, Scripted([*nothing, *only_key]), 2)
    assert found == [Fraction(2, 5), Fraction(1, 60)]
    assert engine.tries(nums, Scripted([*nothing, *only_key]), 1) is None


def test_weights_too_large_to_raise_are_rescaled_to_the_same_choice() -> None:
    # At temperature 0.5 a choice goes by the square of each weight: 1e300 and 5e299 have
    # no square a float holds, so they are divided by the largest first. The lighter is
    # picked when the draw passes 1 / (1 + 0.25), a fifth of the time.
    engine = player.Play(seed=0)
    draws = [(i + 0.5) / 1000 for i in range(1000)]
    chosen = [engine.pick(["heavy", "light"], [1e300, 5e299], Scripted([d]), 0.5) for d in draws]
    assert chosen.count("light") == 200


# ---------------------------------------------------------------- the promise of a state


@pytest.mark.parametrize(
    ("numbers", "promise"),
    [
        ((60, 1, 1), 0.55),  # 1 is a divisor of 24 (+0.1)
        ((61, 1, 1), 0.25),  # a number above 60 (-0.3)
        ((61, 5, 5), 0.15),
        ((1, 1, 4), 0.55),  # sum 6 times the largest, 4, makes 24: enough in range
        ((1, 1, 3), 0.25),  # 5 x 3 = 15 falls short of 24 (-0.3)
    ],
)
def test_a_state_that_no_try_finishes_is_scored_by_a_feel_for_its_numbers(
    numbers: tuple[int, ...], promise: float
) -> None:
    nums = tuple(Fraction(n) for n in numbers)
    engine = player.Play(seed=0)
    assert engine.tries(nums, random.Random(0), 200) is None  # nothing makes 24
    assert engine.promise(nums, random.Random(0)) == pytest.approx(promise)


# ---------------------------------------------------------------- the engine as a model


def test_the_engine_names_itself_in_every_generation() -> None:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.IO)
    call = Call(Purpose.IO, prompt, Sampling(0.7, 1.0, 2, 600), {})
    assert asyncio.run(OfflineModel(seed=0).generate(call)).model == "offline"


def test_an_engine_made_without_a_seed_plays_as_seed_zero() -> None:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.COT)
    call = Call(Purpose.COT, prompt, Sampling(1.0, 1.0, 8, 600), {})

    def texts(engine: OfflineModel) -> tuple[str, ...]:
        return asyncio.run(engine.generate(call)).texts

    assert texts(OfflineModel()) == texts(OfflineModel(seed=0)) != texts(OfflineModel(seed=1))
