"""Each method's decisions, pinned with scripted replies that make the right choice unambiguous.

The replies are functions of the call: every state, step and answer has its own value, so a
method that keeps the wrong states, aggregates the wrong chain or answers from the wrong beam,
iteration or vote gives a different, visible result.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from fractions import Fraction

import pytest

from puzzles.game24 import Hand
from solver.domains import game24 as g24
from solver.domains import game24_prompts as g24p
from solver.domains.game24 import Game24Domain
from solver.events import (
    ChainAggregated,
    ExperienceAdded,
    ModelCalled,
    RunFinished,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
)
from solver.methods import solve
from solver.methods.baselines import CoTSC, CoTSCConfig
from solver.methods.bot import BoT, BoTConfig
from solver.methods.tot import ToT, ToTConfig
from solver.model import Call, Generation, Sampling, ScriptedModel, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Purpose
from tests.solver.game24_replies import (
    ADVICE,
    FEEDBACK,
    FIRST_CHAIN,
    GREEDY_EDGES,
    GREEDY_TREES,
    REPORT,
    bot_text,
    iterations_replies,
    numbers_of,
    step_key,
    tree_replies,
)

VALUES = {  # three value samples each, so every state below has its own sum
    60.0: ("sure", "sure", "sure"),
    41.0: ("sure", "sure", "likely"),
    22.0: ("sure", "likely", "likely"),
    3.0: ("likely", "likely", "likely"),
    1.002: ("likely", "impossible", "impossible"),
    0.003: ("impossible", "impossible", "impossible"),
}


def sort_left(numbers: str) -> str:
    return " ".join(sorted(numbers.split(), key=Fraction))


def proposed_from(call: Call) -> str:
    """The numbers a propose prompt shows the model (its last ``Input:`` line), sorted."""
    return sort_left(re.findall(r"^Input: (.*)$", call.messages[-1].content, re.MULTILINE)[-1])


# ------------------------------------------------------------------ ToT: breadth

# Hand 2 3 5 7. Six proposals from the start, in an order where the two best come third and
# fifth; from each of those two, three more, the best again not first.
TOT_PROPOSALS = {
    "2 3 5 7": [
        "2 + 3 = 5 (left: 5 5 7)",
        "3 * 5 = 15 (left: 2 7 15)",
        "7 - 2 = 5 (left: 3 5 5)",
        "5 + 7 = 12 (left: 2 3 12)",
        "2 * 7 = 14 (left: 3 5 14)",
        "3 + 7 = 10 (left: 2 5 10)",
    ],
    "3 5 14": [
        "14 - 5 = 9 (left: 3 9)",
        "3 + 5 = 8 (left: 8 14)",
        "5 * 3 = 15 (left: 14 15)",
    ],
    "3 5 5": [
        "5 * 5 = 25 (left: 3 25)",
        "5 - 3 = 2 (left: 2 5)",
        "3 + 5 = 8 (left: 5 8)",
    ],
}
TOT_VALUES = {
    # step 1: best 3 5 14 (60), then 3 5 5 (41), then 2 5 10 (22)
    "5 5 7": 3.0,
    "2 7 15": 0.003,
    "3 5 5": 41.0,
    "2 3 12": 1.002,
    "3 5 14": 60.0,
    "2 5 10": 22.0,
    # step 2: best 5 8 (60), then 3 25 (41)
    "3 9": 1.002,
    "8 14": 0.003,
    "14 15": 3.0,
    "3 25": 41.0,
    "2 5": 22.0,
    "5 8": 60.0,
}


def tot_breadth_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "propose":
        return "\n".join(TOT_PROPOSALS.get(numbers_of(call), []))
    if call.purpose == "value":
        return VALUES[TOT_VALUES[numbers_of(call)]]
    raise AssertionError(f"unexpected call {call.purpose}")


async def test_tot_keeps_exactly_the_b_best_states_and_proposes_only_from_them() -> None:
    model = ScriptedModel(tot_breadth_replies)
    _, events = await solve(
        ToT(ToTConfig(breadth=2, steps=3)), Game24Domain(Hand.parse("2 3 5 7")), model
    )
    proposals = [c for c in model.calls if c.purpose == "propose"]
    by_size: dict[int, list[str]] = {}
    for call in proposals:
        by_size.setdefault(len(call.context["numbers"]), []).append(proposed_from(call))
    assert by_size[4] == ["2 3 5 7"]
    # Step 2 proposes from exactly the two best of six (not the first two, not only one).
    assert sorted(by_size[3]) == ["3 5 14", "3 5 5"]
    # Step 3 from exactly the two best of the six that those two proposed.
    assert sorted(by_size[2]) == ["3 25", "5 8"]
    # Every other candidate was cut, once, and none of the kept ones.
    added = {e.node_id: e for e in events if isinstance(e, ThoughtAdded)}
    cut = [sort_left(added[e.node_id].state) for e in events if isinstance(e, ThoughtPruned)]
    assert sorted(cut) == sorted(
        ["5 5 7", "2 7 15", "2 3 12", "2 5 10", "3 9", "8 14", "14 15", "2 5"]
    )
    floors = [e.reason for e in events if isinstance(e, ThoughtPruned)]
    assert all(r.endswith("below the kept 41") for r in floors)


async def test_tot_breadth_one_keeps_only_the_best_state() -> None:
    model = ScriptedModel(tot_breadth_replies)
    await solve(ToT(ToTConfig(breadth=1, steps=3)), Game24Domain(Hand.parse("2 3 5 7")), model)
    proposals = [proposed_from(c) for c in model.calls if c.purpose == "propose"]
    # One state a step: the best of six, then the best of its three (14 15, valued 3).
    assert proposals == ["2 3 5 7", "3 5 14", "14 15"]


# ------------------------------------------------------------------ ToT: the final answer

# Hand 1 2 3 4, breadth 3: three paths survive to the answer step, and each beam writes a
# different answer. The judge values them so that the best-valued answer does not use all
# four numbers, the second does, and the third does too (and is another expression).
TOT_PATHS = {  # three beams, each at 24 after three steps (only those are asked to answer)
    "1 2 3 4": ["1 + 2 = 3 (left: 3 3 4)", "1 * 2 = 2 (left: 2 3 4)", "3 * 4 = 12 (left: 1 2 12)"],
    "3 3 4": ["3 + 3 = 6 (left: 4 6)"],
    "2 3 4": ["2 * 3 = 6 (left: 4 6)"],
    "1 2 12": ["2 * 12 = 24 (left: 1 24)"],
    "4 6": ["4 * 6 = 24 (left: 24)"],
    "1 24": ["1 * 24 = 24 (left: 24)"],
}
FIRST_STEP_ANSWERS = {  # the beam's first step -> the model's answer line (wrong or right)
    "1 + 2 = 3": "Answer: 4 * 6 = 24",  # misses 1 2 3: never the answer
    "1 * 2 = 2": "Answer: (4 - 1) * 2 + 3 = 9",  # all four numbers, not 24
    "3 * 4 = 12": "Answer: (3 * 4 + 1) * 2 = 26",  # all four numbers, not 24
}
JUDGE_VALUES = {  # answer -> value: the order of the final beams
    "4 * 6": 60.0,
    "(4 - 1) * 2 + 3": 41.0,
    "(3 * 4 + 1) * 2": 22.0,
}


def tot_answer_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "propose":
        return "\n".join(TOT_PATHS[numbers_of(call)])
    if call.purpose == "value":
        return VALUES[3.0]
    if call.purpose == "answer":
        return FIRST_STEP_ANSWERS[call.context["steps"][0]]
    if call.purpose == "judge":
        return VALUES[JUDGE_VALUES[call.context["answer"]]]
    raise AssertionError(f"unexpected call {call.purpose}")


async def test_tot_answers_with_the_first_final_beam_that_uses_all_numbers() -> None:
    model = ScriptedModel(tot_answer_replies)
    fin, _ = await solve(ToT(ToTConfig(breadth=3)), Game24Domain(Hand.parse("1 2 3 4")), model)
    answers = [c for c in model.calls if c.purpose == "answer"]
    assert len(answers) == 3  # three final beams, three different answers
    # The best-valued beam misses numbers; the next uses all four: it is the answer, though it
    # is wrong and a lower beam's is wrong too (ToT's rule: the first such beam, then check).
    assert fin.answer == "(4 - 1) * 2 + 3"
    assert not fin.solved and "9" in fin.verdict


async def test_tot_answer_is_the_best_valued_beam_when_it_uses_all_numbers() -> None:
    # The same run with the judge's order changed: a beam using every number now comes first,
    # the one missing numbers second; the first is the answer.
    order = {"(3 * 4 + 1) * 2": 60.0, "4 * 6": 41.0, "(4 - 1) * 2 + 3": 22.0}

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "judge":
            return VALUES[order[call.context["answer"]]]
        return tot_answer_replies(call)

    fin, _ = await solve(
        ToT(ToTConfig(breadth=3)), Game24Domain(Hand.parse("1 2 3 4")), ScriptedModel(replies)
    )
    assert fin.answer == "(3 * 4 + 1) * 2"


@pytest.mark.parametrize("stop_early", [False, True])
async def test_tot_stop_early_answers_with_a_verified_beam(stop_early: bool) -> None:
    # The third beam's answer is right. ToT's rule answers with the first beam that uses
    # every number (wrong here); stopping early ends on the verified one instead.
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "answer" and call.context["steps"][0] == "3 * 4 = 12":
            return "Answer: (3 * 4 / 1) * 2 = 24"
        if call.purpose == "judge":
            return VALUES[22.0 if call.context["answer"] == "(3 * 4 / 1) * 2" else 41.0]
        return tot_answer_replies(call)

    fin, _ = await solve(
        ToT(ToTConfig(breadth=3, stop_early=stop_early)),
        Game24Domain(Hand.parse("1 2 3 4")),
        ScriptedModel(replies),
    )
    if stop_early:
        assert fin.answer == "(3 * 4 / 1) * 2" and fin.solved and fin.reason == "solved early"
    else:
        assert fin.answer == "(4 - 1) * 2 + 3" and not fin.solved and fin.reason == "done"


# ------------------------------------------------------------------ BoT: aggregation


# Hand 4 7 8 8, three trees of depth 1 with two children each. Sums of V_i + V_{i-1,i}:
#   tree 1: 8 / 8 (0.9 + 0.1 = 1.0), 7 - 4 (0.3 + 0.5 = 0.8)
#   tree 2: 8 - 4 (0.5 + 0.7 = 1.2), 7 + 8 (0.1 + 0.9 = 1.0, the best edge)
#   tree 3: 8 * 4 (1.0 + 0.1 = 1.1, the best own score), 7 * 4 (0.1 + 0.1 = 0.2, the worst)
# The paper's score picks 8 - 4 from tree 2: neither first nor last, nor best by one score.
BEST_FIRST_TREES = {
    1: [
        bot_text("4 7 8 8", "8", "/", "8", "1", "4 7", "1 4 7", 0.9),
        bot_text("4 7 8 8", "7", "-", "4", "3", "8 8", "3 8 8", 0.3),
    ],
    2: [
        bot_text("4 7 8 8", "8", "-", "4", "4", "7 8", "4 7 8", 0.5),
        bot_text("4 7 8 8", "7", "+", "8", "15", "4 8", "4 8 15", 0.1),
    ],
    3: [
        bot_text("4 7 8 8", "8", "*", "4", "32", "7 8", "7 8 32", 1.0),
        bot_text("4 7 8 8", "7", "*", "4", "28", "8 8", "8 8 28", 0.1),
    ],
}
BEST_FIRST_EDGES = {
    "8 / 8 = 1": 0.1,
    "7 - 4 = 3": 0.5,
    "8 - 4 = 4": 0.7,
    "7 + 8 = 15": 0.9,
    "8 * 4 = 32": 0.1,
    "7 * 4 = 28": 0.1,
}


async def test_bot_best_first_aggregates_the_chain_with_the_best_summed_scores() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return BEST_FIRST_TREES[call.sample_offset // 2 + 1]
        if call.purpose == "bot_evaluate":
            return f"Evaluation score: {BEST_FIRST_EDGES[step_key(call.context['step'])]:g}"
        return FEEDBACK

    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=3, depth=1)),
        Game24Domain(Hand.parse("4 7 8 8")),
        ScriptedModel(replies),
    )
    assert len([e for e in events if isinstance(e, ThoughtAdded)]) == 6
    (agg,) = [e for e in events if isinstance(e, ChainAggregated)]
    assert [step_key(s) for s in agg.steps] == ["8 - 4 = 4"]
    assert agg.node_ids[0].startswith("i1.t2.") and agg.score == pytest.approx(1.2)
    (exp,) = [e for e in events if isinstance(e, ExperienceAdded)]
    assert [step_key(s) for s in exp.chain] == ["8 - 4 = 4"]


@pytest.mark.parametrize(
    ("aggregation", "steps", "trees", "score"),
    [
        ("best_first", ["8 / 8 = 1", "7 - 1 = 6"], ["i1.t1", "i1.t1"], 3.2),
        ("greedy", ["7 - 4 = 3", "8 + 8 = 16"], ["i1.t2", "i1.t3"], 2.8),
    ],
)
async def test_bot_aggregation_picks_by_the_papers_scores(
    aggregation: str, steps: list[str], trees: list[str], score: float
) -> None:
    replies = tree_replies(GREEDY_TREES, GREEDY_EDGES)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=3, depth=2, children=1, aggregation=aggregation)),
        Game24Domain(Hand.parse("4 7 8 8")),
        ScriptedModel(replies),
    )
    (agg,) = [e for e in events if isinstance(e, ChainAggregated)]
    assert agg.strategy == aggregation
    assert [step_key(s) for s in agg.steps] == steps
    assert [n.rsplit(".n", 1)[0] for n in agg.node_ids] == trees
    assert agg.score == pytest.approx(score)


# ------------------------------------------------------------------ BoT: iterations


async def test_bot_answers_with_the_last_iterations_chain() -> None:
    fin, events = await solve(
        BoT(BoTConfig(iterations=2, trees=2, children=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(iterations_replies),
    )
    exp = [e for e in events if isinstance(e, ExperienceAdded)]
    assert [e.chain_ok for e in exp] == [True, False]  # the iterations ended differently
    assert any(isinstance(e, SolutionFound) for e in events)
    # The paper's z^T: the last aggregated chain, even though an earlier one was right.
    assert fin.answer == "(2 + 3) * 4 = 20" and not fin.solved


async def test_bot_experience_text_reaches_every_later_prompt() -> None:
    model = ScriptedModel(iterations_replies)
    await solve(
        BoT(BoTConfig(iterations=2, trees=2, children=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    first_feedback = next(i for i, c in enumerate(model.calls) if c.purpose == "bot_feedback")
    before = [c for c in model.calls[:first_feedback] if c.purpose == "bot_step"]
    after = [c for c in model.calls[first_feedback + 1 :] if c.purpose == "bot_step"]
    assert len(before) == len(after) == 4  # two trees, two levels each
    pieces = [
        f"Analysis Report: {REPORT}",
        f"Advice: {ADVICE[0]}",
        f"Advice: {ADVICE[1]}",
        "Confidence score: 0.9",
        # the chain, in BoT's step format (without the model's own scores)
        "Step 1, Current set: 2 3 4, Two numbers selected: 2 3, Operation: *, "
        "New number calculated: 6",
        "Two numbers selected: 6 4, Operation: *, New number calculated: 24",
    ]
    for call in after:
        prompt = call.messages[-1].content
        for piece in pieces:
            assert piece in prompt, piece
        # inside the experience block, before the steps so far
        assert prompt.index(REPORT) < prompt.index("The reasoning steps so far")
    for call in before:
        assert REPORT not in call.messages[-1].content


async def test_a_bot_call_keeps_the_experience_it_was_asked_with() -> None:
    # A call is a record of what was asked: the experience growing later must not reach
    # back into the calls of earlier iterations (a replay, a trace or a cache would lie).
    model = ScriptedModel(iterations_replies)
    await solve(
        BoT(BoTConfig(iterations=2, trees=1, children=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    steps = [c for c in model.calls if c.purpose == "bot_step"]
    assert [len(c.context["experience"]) for c in steps] == [0, 0, 1, 1]


# ------------------------------------------------------------------ BoT: stop early


class PacedModel(ScriptedModel):
    """Scripted replies with a delay that depends on the call."""

    def __init__(
        self,
        replies: Callable[[Call], Iterable[str] | str],
        pace: Callable[[Call], float],
    ) -> None:
        super().__init__(replies)
        self.pace = pace
        self.started: list[Call] = []

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.started.append(call)
        await asyncio.sleep(self.pace(call))
        return await super().generate(call, on_token)


async def test_bot_stop_early_stops_within_the_first_iteration() -> None:
    # Four trees all find 24; tree 1 answers at once, the others slowly. A full iteration is
    # 4 trees x 2 levels x (step + evaluation) + 1 analysis = 17 calls.
    def pace(call: Call) -> float:
        return 0.0 if call.purpose != "bot_step" or call.sample_offset == 0 else 0.05

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return FIRST_CHAIN[len(call.context["chain"])]
        return iterations_replies(call)

    full = ScriptedModel(replies)
    await solve(
        BoT(BoTConfig(iterations=1, trees=4, children=1)), Game24Domain(Hand.parse("2 3 4")), full
    )
    assert len(full.calls) == 17
    model = PacedModel(replies, pace)
    fin, events = await solve(
        BoT(BoTConfig(iterations=3, trees=4, children=1, stop_early=True)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert fin.solved and fin.reason == "solved early" and fin.answer == "2 * 3 * 4 = 24"
    # Tree 1's four calls, and the first call of each other tree, already under way.
    assert len(model.started) < len(full.calls)
    assert len(model.started) == 4 + 3
    assert not any(c.purpose == "bot_feedback" for c in model.started)
    assert fin.calls == len([e for e in events if isinstance(e, ModelCalled)]) == 4


# ------------------------------------------------------------------ CoT-SC: the majority


@pytest.mark.parametrize("batch", [5, 2])
async def test_cot_sc_answers_with_the_majority_not_the_first_or_a_right_answer(
    batch: int,
) -> None:
    # Five samples: the first (and the fourth) give the right answer; three give another,
    # written three different ways that read as one expression.
    samples = [
        "Answer: (7 - 8 / 8) * 4 = 24",
        "Answer: 4 + 7 + 8 + 8 = 27",
        "Answer: 4+7+8+8 = 27",
        "Answer: (7 - 8 / 8) * 4 = 24",
        "Answer: **4 + 7 + 8 + 8** = 27",
    ]

    def replies(call: Call) -> Iterable[str] | str:
        return samples[call.sample_offset : call.sample_offset + call.sampling.n]

    model = ScriptedModel(replies)
    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=5, batch=batch)), Game24Domain(Hand.parse("4 7 8 8")), model
    )
    assert sum(c.sampling.n for c in model.calls) == 5
    assert fin.answer == "4 + 7 + 8 + 8" and not fin.solved


async def test_cot_sc_majority_of_a_right_answer_wins_over_a_first_wrong_one() -> None:
    samples = ["Answer: 4 * 8 - 7 - 8 = 17"] * 2 + ["Answer: (7 - 8 / 8) * 4 = 24"] * 3
    samples = [samples[0], samples[2], samples[3], samples[1], samples[4]]
    model = ScriptedModel(samples)
    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=5, batch=5)), Game24Domain(Hand.parse("4 7 8 8")), model
    )
    assert fin.answer == "(7 - 8 / 8) * 4" and fin.solved


# ------------------------------------------------------------------ offline engine: experience


def bot_root_call(hand: Hand, feedback: str | None, chain: list[str], sample: int) -> Call:
    """The first BoT step call of an iteration, built as BoT builds it, with (or without) one
    experience entry: ``feedback`` on ``chain`` (step lines ``a op b = c (left: ...)``)."""
    domain = Game24Domain(hand)
    experience, structured = "", []
    if feedback is not None:
        parsed = g24.parse_feedback(feedback, len(chain))
        experience = parsed.entry(1, chain)
        structured = [
            {
                "chain": chain,
                "verdicts": list(parsed.verdicts),
                "advice": list(parsed.advice),
                "confidence": parsed.confidence,
            }
        ]
    return Call(
        Purpose.BOT_STEP,
        g24p.messages(g24p.bot_step_prompt(hand, experience, []), g24p.BOT_SYSTEM),
        Sampling(0.7, 1.0, 1, 500),
        domain.context(domain.start(), experience=structured, chain=[]),
        sample_offset=sample,
    )


async def first_steps(model: OfflineModel, calls: list[Call]) -> Counter[str]:
    hand_state = Hand.parse("4 7 8 8").start()
    out: Counter[str] = Counter()
    for call in calls:
        gen = await model.generate(call)
        (step,) = g24.parse_steps(gen.text, hand_state, limit=1)
        out[f"{step.a} {step.op} {step.b}"] += 1
    return out


async def test_offline_engine_follows_the_experience_in_its_prompt() -> None:
    hand = Hand.parse("4 7 8 8")
    model = OfflineModel(seed=7)
    n = 60
    plain = await first_steps(model, [bot_root_call(hand, None, [], i) for i in range(n)])
    favourite, times = plain.most_common(1)[0]
    assert times >= 6  # a step the engine likes from this position, without experience
    a, op, b = favourite.split()
    line = f"{a} {op} {b} = 0 (left: 0)"  # the analysis is about the step, not its result
    reject = (
        "Analysis Report: the first step leaves numbers that cannot make 24.\n"
        f"Step 1: {a} {op} {b} is a dead end. Advice: do not start with {a} {op} {b}. "
        "Recommendation or Reject: Reject.\nConfidence score: 0.3"
    )
    rejected = await first_steps(model, [bot_root_call(hand, reject, [line], i) for i in range(n)])
    assert rejected[favourite] <= times // 5, (favourite, plain, rejected)
    # A step it rarely takes, recommended by an analysis of a chain that reached 24: taken
    # far more often than without the experience.
    rare = min(plain, key=lambda k: (plain[k], k))
    ra, rop, rb = rare.split()
    endorse = (
        "Analysis Report: the chain reaches 24.\n"
        f"Step 1: correct. Advice: keep {ra} {rop} {rb}. Recommendation or Reject: Recommend."
        "\nConfidence score: 1.0"
    )
    line = f"{ra} {rop} {rb} = 0 (left: 0)"
    taken = await first_steps(model, [bot_root_call(hand, endorse, [line], i) for i in range(n)])
    assert taken[rare] >= plain[rare] + n // 3, (rare, plain, taken)


async def test_bot_second_iteration_differs_because_of_experience_on_the_offline_engine() -> None:
    # Iteration 2's first calls differ from iteration 1's only by the experience: with the
    # same seed and sampling, the rejected opening is avoided. (The analysis is fallible at
    # the sourced rates, solver.model.offline.critics: seed 6 is one whose analysis rejects
    # the opening; seed 3's now keeps it.)
    model = OfflineModel(seed=6)
    recorded: list[Call] = []
    original = model.generate

    async def spy(call: Call, on_token: TokenCallback | None = None) -> Generation:
        recorded.append(call)
        return await original(call, on_token)

    model.generate = spy  # type: ignore[method-assign]
    fin, events = await solve(
        BoT(BoTConfig(iterations=2, trees=1, depth=1, children=1)),
        Game24Domain(Hand.parse("4 7 8 8")),
        model,
        seed=6,
    )
    assert isinstance(fin, RunFinished)
    roots = [c for c in recorded if c.purpose == "bot_step"]
    assert len(roots) == 2
    exp = next(e for e in events if isinstance(e, ExperienceAdded))
    assert exp.verdicts == ("reject",)
    first, second = roots
    assert first.messages[-1].content != second.messages[-1].content
    second = replace(second, sampling=first.sampling)  # the trees drew their own
    del model.generate
    # The same two calls, many samples each: the opening iteration 1 took (and the analysis
    # rejected) all but disappears in iteration 2.
    key = exp.chain[0].split(" = ")[0]  # "8 / 4"
    before = await first_steps(model, [replace(first, sample_offset=i) for i in range(40)])
    after = await first_steps(model, [replace(second, sample_offset=i) for i in range(40)])
    assert before[key] >= 4 and after[key] <= 1, (key, before, after)
