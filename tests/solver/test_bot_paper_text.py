"""BoT as the paper's text has it, under ``paper``: the answer from the final prompt I^{T+1}
(every experience entry in it), the two-sided leaf band, experience entries that are exactly
what the model wrote (the chain with the scores it gave, its analysis word for word; a repeat
left out, never rewritten), and an analysis prompt that shows the chain alone. Outside
``paper`` each is an option, and the defaults are ours (the chain z^T, the hopeless side only,
the checked analysis on word problems)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TypeVar

import pytest

from puzzles.game24 import Hand
from puzzles.wordproblem import problem_by_id
from solver.domains.game24 import Game24Domain
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    Event,
    ExperienceAdded,
    FinalAnswered,
    LeafReached,
    ModelCalled,
)
from solver.methods import solve
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Message, Sampling, ScriptedModel
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role

E = TypeVar("E", bound=Event)


def of(events: Sequence[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


def numbers_of(call: Call) -> str:
    """The numbers on the table for this call, sorted."""
    nums = sorted(Fraction(str(n)) for n in call.context["numbers"])
    return " ".join(str(n) for n in nums)


def step(state: str, a: str, op: str, b: str, c: str, rest: str, after: str, score: str) -> str:
    """One BoT step reply in the paper's format, its score written as given."""
    return (
        f"Step 1, Current set: {state}, Two numbers selected: {a} {b}, Operation: {op}, "
        f"New number calculated: {c}, Remaining numbers: {rest}, New set: {after}, "
        f"Evaluation score: {score}"
    )


ANALYSIS = (
    "Analysis Report: the chain ends at 20, not 24.\n"
    "Step 1: 2 + 3 gives 5, which leads nowhere. Advice: multiply 2 by 3 instead. "
    "Recommendation or Reject: Reject.\n"
    "Step 2: 4 * 5 is 20. Advice: try 4 * 6. Recommendation or Reject: Reject.\n"
    "Confidence score: 0.3"
)
FINAL = "Step 1: 2 * 3 = 6\nStep 2: 6 * 4 = 24\nAnswer: 2 * 3 * 4 = 24"


def wrong_chain(call: Call) -> Iterable[str] | str:
    """Hand 2 3 4: every tree grows 2 + 3 = 5 (the model's score 0.7), then 4 * 5 = 20
    (0.7); every evaluation says 0.5; the analysis is ANALYSIS; the final reply is FINAL."""
    if call.purpose == "bot_step":
        return {
            "2 3 4": step("2 3 4", "2", "+", "3", "5", "4", "4 5", "0.7"),
            "4 5": step("4 5", "4", "*", "5", "20", "none", "20", "0.7"),
        }[numbers_of(call)]
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.5"
    if call.purpose == "bot_final":
        return FINAL
    return ANALYSIS


HAND = Hand.parse("2 3 4")


# ------------------------------------------------------------------ the final prompt


async def test_under_paper_the_answer_comes_from_the_final_prompt_with_every_entry() -> None:
    model = ScriptedModel(wrong_chain)
    domain = Game24Domain(HAND)
    fin, events = await solve(BoT(BoTConfig(iterations=2, trees=1, paper=True)), domain, model)
    finals = [c for c in model.calls if c.purpose == "bot_final"]
    assert len(finals) == 1 and model.calls[-1] is finals[0]  # one call, after the last analysis
    prompt = finals[0].messages[-1].content
    entries = [e.entry for e in of(events, ExperienceAdded) if e.entry]
    assert entries and all(entry in prompt for entry in entries)
    assert finals[0].messages == domain.prompt(Role.FINAL, experience="\n#\n".join(entries))
    # The answer is the final reply's, checked exactly; the chains never reached 24.
    answer = domain.parse_answer(FINAL)
    assert answer is not None and domain.check(answer).ok
    assert fin.answer == answer and fin.solved
    assert not any(e.chain_ok for e in of(events, ExperienceAdded))
    (said,) = of(events, FinalAnswered)
    assert (said.answer, said.ok) == (answer, True)
    called = {e.call_id: e.purpose for e in of(events, ModelCalled)}
    assert said.call_id is not None and called[said.call_id] == "bot_final"


@pytest.mark.parametrize(
    "config",
    [
        BoTConfig(iterations=2, trees=1),
        BoTConfig(iterations=2, trees=1, paper=True, final_prompt=False),
    ],
)
async def test_without_the_final_prompt_the_answer_is_the_last_chain_and_no_call(
    config: BoTConfig,
) -> None:
    model = ScriptedModel(wrong_chain)
    domain = Game24Domain(HAND)
    fin, events = await solve(BoT(config), domain, model)
    assert [c for c in model.calls if c.purpose == "bot_final"] == [] and not of(
        events, FinalAnswered
    )
    assert not fin.solved and fin.answer is not None and "20" in fin.answer


async def test_the_final_prompt_is_an_option_outside_paper() -> None:
    model = ScriptedModel(wrong_chain)
    config = BoTConfig(iterations=1, trees=1, final_prompt=True)
    fin, _ = await solve(BoT(config), Game24Domain(HAND), model)
    assert [c.purpose for c in model.calls].count(Purpose.BOT_FINAL) == 1 and fin.solved


async def test_a_final_reply_without_an_answer_leaves_the_run_without_one() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        return "I am not sure." if call.purpose == "bot_final" else wrong_chain(call)

    fin, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, paper=True)),
        Game24Domain(HAND),
        ScriptedModel(replies),
    )
    (said,) = of(events, FinalAnswered)
    assert said.answer is None and not said.ok and fin.answer is None and not fin.solved


# ------------------------------------------------------------------ the leaf band


def confident(call: Call) -> Iterable[str] | str:
    """Hand 2 3 4: a first step both the model and the evaluation score 0.9."""
    if call.purpose == "bot_step":
        return {
            "2 3 4": step("2 3 4", "2", "*", "3", "6", "4", "4 6", "0.9"),
            "4 6": step("4 6", "4", "*", "6", "24", "none", "24", "0.9"),
        }[numbers_of(call)]
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.9"
    if call.purpose == "bot_final":
        return FINAL
    return ANALYSIS


@pytest.mark.parametrize(
    ("config", "ends"),
    [
        (BoTConfig(iterations=1, trees=1, children=1, paper=True), True),
        (BoTConfig(iterations=1, trees=1, children=1), False),
        (BoTConfig(iterations=1, trees=1, children=1, confident_leaf=True), True),
        (BoTConfig(iterations=1, trees=1, children=1, paper=True, confident_leaf=False), False),
    ],
)
async def test_under_paper_a_step_confident_on_both_scores_is_a_leaf(
    config: BoTConfig, ends: bool
) -> None:
    model = ScriptedModel(confident)
    _, events = await solve(BoT(config), Game24Domain(HAND), model)
    grown = [numbers_of(c) for c in model.calls if c.purpose == "bot_step"]
    reasons = [e.reason for e in of(events, LeafReached)]
    if ends:
        assert grown == ["2 3 4"] and len(reasons) == 1 and reasons[0].startswith("confident")
    else:
        assert grown == ["2 3 4", "4 6"] and not any(r.startswith("confident") for r in reasons)


# ------------------------------------------------------------------ the entries


@pytest.mark.parametrize("paper", [False, True])
async def test_an_entry_is_the_chain_with_the_models_scores_and_its_analysis_word_for_word(
    paper: bool,
) -> None:
    model = ScriptedModel(wrong_chain)
    _, events = await solve(
        BoT(BoTConfig(iterations=3, trees=1, children=1, paper=paper)), Game24Domain(HAND), model
    )
    first, second, third = of(events, ExperienceAdded)
    assert first.entry.endswith(f"---\n{ANALYSIS}")
    # Each step with the score the model wrote (0.7), not the evaluation's (0.5) or none.
    quoted = first.entry.split("---\n")[1]
    assert quoted.count(", Evaluation score: 0.7\n") == 2 and "0.5" not in quoted
    # The same chain and analysis again: left out and said so, never a line of ours.
    assert [(e.entry, e.repeat_of) for e in (second, third)] == [("", 1), ("", 1)]
    later = [c.messages[-1].content for c in model.calls if c.purpose == "bot_step"][-1]
    assert later.count(ANALYSIS) == 1
    texts = "\n".join(c.messages[-1].content for c in model.calls)
    assert "came back" not in texts and "try something else" not in texts


# ------------------------------------------------------------------ the analysis prompt


def word_chain(call: Call) -> Iterable[str] | str:
    """One step with wrong arithmetic, whatever the problem."""
    if call.purpose == "bot_step":
        return "Step 1: Answer: 3 * 7 = 22, Evaluation score: 0.9"
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.5"
    if call.purpose == "bot_final":
        return "The answer is: 22"
    return "Analysis Report: fine.\nConfidence score: 0.9"


@pytest.mark.parametrize(
    ("config", "checked"),
    [
        (BoTConfig(iterations=1, trees=1, children=1), True),
        (BoTConfig(iterations=1, trees=1, children=1, paper=True), False),
        (BoTConfig(iterations=1, trees=1, children=1, paper=True, checked_analysis=True), True),
        (BoTConfig(iterations=1, trees=1, children=1, checked_analysis=False), False),
    ],
)
async def test_under_paper_the_word_problem_analysis_sees_only_the_chain(
    config: BoTConfig, checked: bool
) -> None:
    model = ScriptedModel(word_chain)
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    await solve(BoT(config), domain, model)
    (asked,) = [c for c in model.calls if c.purpose == "bot_feedback"]
    prompt = asked.messages[-1].content
    assert "3 * 7 = 22" in prompt  # the chain is shown either way
    assert ("checked exactly" in prompt) is checked
    assert ("actually 21" in prompt) is checked


# ------------------------------------------------------------------ the offline engine


def final_call(domain: Game24Domain, experience: str) -> Call:
    # No context: the engine reads the prompt's text only.
    return Call(
        Purpose.BOT_FINAL,
        domain.prompt(Role.FINAL, experience=experience),
        Sampling(0.3, 0.3, 1, 500),
        {},
    )


def endorsed_entry(numbers: str, moves: Sequence[tuple[str, str, str]]) -> str:
    """An experience entry whose analysis recommends every step of a whole chain."""
    ops = {"+": Fraction.__add__, "-": Fraction.__sub__, "*": Fraction.__mul__}
    cur = [Fraction(n) for n in numbers.split()]
    show = " ".join
    lines = []
    for i, (a, op, b) in enumerate(moves, 1):
        before = show(str(n) for n in sorted(cur))
        x, y = Fraction(a), Fraction(b)
        cur.remove(x)
        cur.remove(y)
        c = ops[op](x, y) if op in ops else x / y
        rest = show(str(n) for n in sorted(cur)) or "none"
        cur.append(c)
        lines.append(
            f"Step {i}: Step {i}, Current set: {before}, Two numbers selected: {a} {b}, "
            f"Operation: {op}, New number calculated: {c}, Remaining numbers: {rest}, "
            f"New set: {show(str(n) for n in sorted(cur))}, Evaluation score: 0.9"
        )
    verdicts = [
        f"Step {i}: correct. Advice: keep it. Recommendation or Reject: Recommend."
        for i in range(1, len(moves) + 1)
    ]
    return "\n".join(
        [
            "1. Reasoning chain and comments",
            "---",
            *lines,
            "---",
            "Analysis Report: it reaches 24.",
            *verdicts,
            "Confidence score: 1.0",
        ]
    )


@pytest.mark.parametrize(
    ("numbers", "moves"),
    [
        ("3 3 8 8", [("8", "/", "3"), ("3", "-", "8/3"), ("8", "/", "1/3")]),
        ("1 5 5 5", [("1", "/", "5"), ("5", "-", "1/5"), ("5", "*", "24/5")]),
    ],
)
async def test_the_offline_engine_answers_the_final_prompt_from_its_experience(
    numbers: str, moves: Sequence[tuple[str, str, str]]
) -> None:
    domain = Game24Domain(Hand.parse(numbers))
    solved = {"with": 0, "without": 0}
    for seed in range(8):
        for label, experience in (("with", endorsed_entry(numbers, moves)), ("without", "")):
            gen = await OfflineModel(seed=seed).generate(final_call(domain, experience))
            answer = domain.parse_answer(gen.text)
            assert answer is not None  # always an answer line, read as any answer is
            solved[label] += domain.check(answer).ok
    # A chain the experience recommends in full is what the final reply follows; a hand
    # the engine does not solve on its own.
    assert solved["with"] > solved["without"] and solved["with"] >= 6, solved


async def test_the_offline_engine_refuses_a_final_prompt_it_cannot_read() -> None:
    call = Call(
        Purpose.BOT_FINAL, (Message("user", "Say something."),), Sampling(0.3, 0.3, 1, 50), {}
    )
    with pytest.raises(Exception, match="cannot read"):
        await OfflineModel(seed=0).generate(call)


def test_the_final_prompt_asks_for_the_whole_solution_with_all_experience() -> None:
    domain = Game24Domain(Hand.parse("4 5 10 11"))
    marker = f"ENTRY-{random.Random(0).random()}"
    text = "\n".join(m.content for m in domain.prompt(Role.FINAL, experience=marker))
    assert f"#####\n{marker}\n#####" in text and "4 5 10 11" in text and "Answer:" in text
