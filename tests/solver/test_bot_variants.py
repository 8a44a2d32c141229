"""BoT's variants and ablations (issue 9): cumulative experience (a condensation call), BoT(No)
(the chains as experience, no analysis), no experience in the prompts, BoT+CoT (worked
examples), and greedy aggregation's similarity judged by the model; the offline engine
answers the new roles from the prompt text alone; no prompt shows a benchmark hand with its
answer.

BoT's decisions pinned call by call: what the condensation call (``--experience
cumulative``) and the similarity-judging call (``--similarity model``) send and how their
replies are read, what BoT(No)'s experience entry holds, greedy aggregation's choice over
three steps, and the message a domain without a parser for an asked variant gets. The
scripted replies make each right outcome the only possible one.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import pytest

from puzzles.game24 import Hand, check_answer
from puzzles.game24.catalogue import catalogue
from puzzles.wordproblem.generator import problem_by_id
from solver.domains import game24 as g24
from solver.domains import game24_prompts as g24p
from solver.domains.game24 import Game24Domain
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    ChainAggregated,
    ErrorRaised,
    Event,
    ExperienceAdded,
    ParseFailed,
    SolutionFound,
)
from solver.methods import METHODS, solve
from solver.methods.base import RunContext
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Message, Sampling, ScriptedModel
from solver.model.base import Generation, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role
from tests.solver.game24_replies import (
    FEEDBACK,
    GREEDY_EDGES,
    GREEDY_TREES,
    bot_text,
    chain_replies,
    first_steps,
    step_key,
    tree_replies,
)
from tests.solver.offline_calls import Recorder, Untouchable

E = TypeVar("E", bound=Event)


def of(events: Sequence[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


def experience_block(call: Call) -> str:
    """What a step prompt carries between its ``#####`` lines."""
    m = re.search(r"^#####\n(.*)^#####$", call.messages[-1].content, re.MULTILINE | re.DOTALL)
    assert m is not None
    return m.group(1)


def iterations_of(calls: Sequence[Call], marker: str) -> list[list[Call]]:
    """The step calls grouped by iteration: a call of purpose ``marker`` ends one."""
    out: list[list[Call]] = [[]]
    for call in calls:
        if call.purpose == marker:
            out.append([])
        elif call.purpose == "bot_step":
            out[-1].append(call)
    return [group for group in out if group]


# ------------------------------------------------------------------ the options


def test_the_variants_are_options_with_the_papers_defaults() -> None:
    infos = {o.name: o for o in METHODS["bot"].options()}
    assert infos["experience"].default == "additive"
    assert infos["experience"].option.choices == ("additive", "cumulative", "chains", "none")
    assert "analysis calls are still made" in infos["experience"].help
    assert infos["similarity"].default == "exact"
    assert "free and deterministic" in infos["similarity"].help
    assert "one call per comparison" in infos["similarity"].help
    assert infos["examples"].default is False
    with pytest.raises(ValueError, match="experience must be one of"):
        METHODS["bot"].make(experience="sometimes")
    with pytest.raises(ValueError, match="similarity must be one of"):
        METHODS["bot"].make(similarity="fuzzy")


# ------------------------------------------------------------------ cumulative


async def test_cumulative_condenses_each_iteration_and_the_text_replaces_the_experience() -> None:
    condensed: list[str] = []

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_condense":
            condensed.append(f"CONDENSED-{len(condensed) + 1}: keep 2 * 3, then 6 * 4.")
            return condensed[-1]
        return chain_replies(call)

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=3, trees=2, children=1, experience="cumulative")),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    asks = [c for c in model.calls if c.purpose == "bot_condense"]
    assert len(asks) == 3  # one condensation per iteration
    first = asks[0].messages[-1].content
    assert "ADVICE-ONE" in first and "REPORT-TEXT" in first and "CONDENSED" not in first
    # The second rewrites the first condensed text together with the new entry.
    second = asks[1].messages[-1].content
    assert "CONDENSED-1" in second and "2. Reasoning chain and comments" in second
    assert "1. Reasoning chain and comments" not in second
    groups = iterations_of(model.calls, "bot_condense")
    assert len(groups) == 3
    assert all(experience_block(c).strip() == "" for c in groups[0])
    for k, group in enumerate(groups[1:], 1):
        for call in group:  # exactly the last condensed text, nothing else
            assert experience_block(call).strip() == condensed[k - 1]
    # The pane's entry is what the next prompts carry.
    assert [e.entry for e in of(events, ExperienceAdded)] == condensed


async def test_an_empty_condensation_keeps_the_experience_as_it_was() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        return "" if call.purpose == "bot_condense" else chain_replies(call)

    model = ScriptedModel(replies)
    await solve(
        BoT(BoTConfig(iterations=2, trees=1, children=1, experience="cumulative")),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    later = iterations_of(model.calls, "bot_condense")[1]
    assert all("ADVICE-ONE" in experience_block(c) for c in later)


# ------------------------------------------------------------------ BoT(No): chains


async def test_chains_mode_makes_no_analysis_call_and_every_chain_reaches_the_next_prompt() -> None:
    model = ScriptedModel(chain_replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=2, trees=3, children=1, experience="chains")),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert Counter(c.purpose for c in model.calls) == {"bot_step": 12, "bot_evaluate": 12}
    later = [c for c in model.calls if c.purpose == "bot_step"][6:]
    for call in later:
        block = experience_block(call)
        assert "Analysis Report" not in block and "Advice" not in block
        assert block.count("New number calculated: 6") == 3  # all three trees' chains
        assert block.count("New number calculated: 24") == 3
        for tree in (1, 2, 3):  # each tree's own score of its first step
            assert f"Evaluation score: {0.1 * tree + 0.4:g}" in block
    first = of(events, ExperienceAdded)[0]
    assert first.advice == () and first.confidence is None
    assert first.entry.startswith("1. Reasoning chains of this iteration")


# ------------------------------------------------------------------ none: the ablation


async def test_none_keeps_the_experience_out_of_every_prompt_and_still_analyses() -> None:
    plain, ablated = ScriptedModel(chain_replies), ScriptedModel(chain_replies)
    hand = Hand.parse("2 3 4")
    await solve(BoT(BoTConfig(iterations=3, trees=2, children=1)), Game24Domain(hand), plain)
    _, events = await solve(
        BoT(BoTConfig(iterations=3, trees=2, children=1, experience="none")),
        Game24Domain(hand),
        ablated,
    )
    steps = [c for c in ablated.calls if c.purpose == "bot_step"]
    assert len(steps) == 12
    assert all(experience_block(c).strip() == "" for c in steps)
    assert all("ADVICE" not in m.content for c in steps for m in c.messages)
    assert all(c.context["experience"] == [] for c in steps)
    # The analysis is still asked (and shown), so the calls compare with additive's.
    assert Counter(c.purpose for c in ablated.calls) == Counter(c.purpose for c in plain.calls)
    assert [c.purpose for c in ablated.calls].count(Purpose.BOT_FEEDBACK) == 3
    exp = of(events, ExperienceAdded)
    assert all(e.entry == "" and "ADVICE-ONE" in e.advice for e in exp)
    # Additive carries it (the control).
    later = [c for c in plain.calls if c.purpose == "bot_step"][4:]
    assert all("ADVICE-ONE" in experience_block(c) for c in later)


# ------------------------------------------------------------------ BoT+CoT: examples


async def test_examples_appear_in_every_step_prompt_only_when_asked() -> None:
    on, off = ScriptedModel(chain_replies), ScriptedModel(chain_replies)
    hand = Hand.parse("2 3 4 4")  # four numbers and 24: the examples fit
    await solve(
        BoT(BoTConfig(iterations=1, trees=2, children=1, examples=True)), Game24Domain(hand), on
    )
    await solve(BoT(BoTConfig(iterations=1, trees=2, children=1)), Game24Domain(hand), off)
    first_example = g24p.bot_example_chain(*g24p.BOT_EXAMPLES[0])
    for call in (c for c in on.calls if c.purpose == "bot_step"):
        text = call.messages[-1].content
        assert "Worked examples" in text and all(line in text for line in first_example)
        # before the experience and the steps so far, after the task
        assert text.index("The numbers are: 2 3 4 4") < text.index("Worked examples")
        assert text.index("Worked examples") < text.index("#####")
    for call in on.calls:  # only the step prompt carries them
        if call.purpose != "bot_step":
            assert "Worked examples" not in call.messages[-1].content
    assert not any("Worked examples" in c.messages[-1].content for c in off.calls)


def test_the_worked_examples_are_right_and_of_no_benchmark_hand() -> None:
    assert len(g24p.BOT_EXAMPLES) == 5
    for numbers, moves in g24p.BOT_EXAMPLES:
        hand = Hand.parse(numbers)
        assert max(hand.numbers) > 13 and sorted_key(hand) not in BENCHMARK
        domain = Game24Domain(hand)
        state = domain.start()
        for line in g24p.bot_example_chain(numbers, moves):
            (step,) = domain.parse_steps(line, state)
            assert step.valid, line
            assert step.state is not None
            state = step.state
        assert domain.is_goal(state)
    # Not for another target or another size of hand.
    ten = Game24Domain(Hand.parse("1 2 3 4", target=10)).prompt(
        Role.STEP, experience="", chain=[], examples=True
    )
    assert "Worked examples" not in ten[-1].content


# ------------------------------------------------------------------ similarity model


def greedy_replies(similar: str) -> Any:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return GREEDY_TREES[(call.sample_offset + 1, len(call.context["chain"]))]
        if call.purpose == "bot_evaluate":
            return f"Evaluation score: {GREEDY_EDGES[step_key(call.context['step'])]:g}"
        if call.purpose == "bot_similar":
            return similar
        return FEEDBACK

    return replies


@pytest.mark.parametrize(
    ("similarity", "reply", "second"),
    [
        # Exact: 8 / 8 shares too little with 7 - 4; the best edge after a 7 - 4 is 8 + 8.
        ("exact", "", "8 + 8 = 16"),
        # The model says 8 / 8 is like 7 - 4: tree 1's continuation (edge 1.0) wins.
        ("model", "They are alike.\nSimilarity: 90%", "7 - 1 = 6"),
        ("model", "Similarity: 20%", "8 + 8 = 16"),
    ],
)
async def test_model_similarity_asks_the_model_and_merges_as_it_says(
    similarity: str, reply: str, second: str
) -> None:
    model = ScriptedModel(greedy_replies(reply))
    config = BoTConfig(
        iterations=1, trees=3, depth=2, children=1, aggregation="greedy", similarity=similarity
    )
    _, events = await solve(BoT(config), Game24Domain(Hand.parse("4 7 8 8")), model)
    (agg,) = of(events, ChainAggregated)
    assert [step_key(s) for s in agg.steps] == ["7 - 4 = 3", second]
    asked = [c for c in model.calls if c.purpose == "bot_similar"]
    if similarity == "exact":
        assert asked == []
        return
    # Two trees hold the same 7 - 4 text (no call); 8 / 8 is asked about once.
    assert len(asked) == 1
    text = asked[0].messages[-1].content
    assert "Step A: 7 - 4 = 3 (left:" in text and "Step B: 8 / 8 = 1 (left:" in text


async def test_model_similarity_is_not_asked_for_best_first() -> None:
    model = ScriptedModel(greedy_replies("Similarity: 90%"))
    await solve(
        BoT(BoTConfig(iterations=1, trees=3, depth=2, children=1, similarity="model")),
        Game24Domain(Hand.parse("4 7 8 8")),
        model,
    )
    assert not any(c.purpose == "bot_similar" for c in model.calls)


def test_the_similarity_reply_is_read_tolerantly() -> None:
    assert g24.parse_similarity("Similarity: 85%") == pytest.approx(0.85)
    assert g24.parse_similarity("**Similarity:** 0.4") == pytest.approx(0.4)
    assert g24.parse_similarity("similarity = 70") == pytest.approx(0.7)
    assert g24.parse_similarity("no idea") is None


async def test_a_domain_without_the_roles_is_refused_before_any_call() -> None:
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    for config in (BoTConfig(experience="cumulative"), BoTConfig(examples=True)):
        model = ScriptedModel(["x"])
        fin, events = await solve(BoT(config), domain, model)
        (err,) = of(events, ErrorRaised)
        assert err.kind == "unsupported" and fin.reason == "error" and model.calls == []


# ------------------------------------------------------------------ the offline engine


async def run_engine(call: Call, seed: int = 0) -> tuple[str, ...]:
    gen = await OfflineModel(seed=seed).generate(call)
    return gen.texts


def engine_call(purpose: str, messages: tuple[Message, ...], n: int = 1) -> Call:
    return Call(Purpose(purpose), messages, Sampling(0.7, 1.0, n, 500), Untouchable())


REJECTED = (
    "{i}. Reasoning chain and comments\n---\n"
    "Step 1: Step 1, Current set: 4 7 8 8, Two numbers selected: 8 8, Operation: +, "
    "New number calculated: 16, Remaining numbers: 4 7, New set: 4 7 16\n---\n"
    "Analysis Report: it ends at 11.\n"
    "Step 1: Error report: 8 + 8 = 16 leaves numbers that cannot make 24. Advice: do not use "
    "8 + 8 = 16 from 4 7 8 8; combine a different pair. Recommendation or Reject: Reject\n"
    "Confidence score: 0.3"
)


async def test_the_engine_condenses_by_reading_the_experience_and_keeps_the_advice_once() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    experience = "\n#\n".join(REJECTED.format(i=i) for i in (1, 2))
    (reply,) = await run_engine(
        engine_call("bot_condense", domain.prompt(Role.CONDENSE, experience=experience))
    )
    assert reply.count("do not use 8 + 8 = 16 from 4 7 8 8") == 1
    assert "Analysis Report" not in reply and len(reply) < len(experience)
    # Read again with a new entry: the old lesson is kept once, the new one added.
    other = (
        REJECTED.format(i=3)
        .replace("8 + 8 = 16", "8 * 7 = 56")
        .replace(
            "Two numbers selected: 8 8, Operation: +, New number calculated: 16",
            "Two numbers selected: 8 7, Operation: *, New number calculated: 56",
        )
    )
    (again,) = await run_engine(
        engine_call("bot_condense", domain.prompt(Role.CONDENSE, experience=f"{reply}\n#\n{other}"))
    )
    assert again.count("do not use 8 + 8 = 16") == 1 and again.count("do not use 8 * 7 = 56") == 1


async def test_the_engine_learns_from_condensed_advice_through_the_prompt_text() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    condensed = (
        "Advice and error reports so far:\n- Error report: 8 - 7 = 1 leaves numbers that "
        "cannot make 24. Advice: do not use 8 - 7 = 1 from 4 7 8 8; combine a different pair."
    )
    blank = await run_engine(
        engine_call("bot_step", domain.prompt(Role.STEP, experience="", chain=[]), 200)
    )
    told = await run_engine(
        engine_call("bot_step", domain.prompt(Role.STEP, experience=condensed, chain=[]), 200)
    )
    # 8 - 7 is among the engine's favourite openings; told not to, it nearly never plays it.
    assert first_steps(blank)["8 - 7"] >= 20
    assert first_steps(told)["8 - 7"] <= first_steps(blank)["8 - 7"] // 5


SOLVED_CHAIN = (
    "1. Reasoning chains of this iteration, without analysis\nChain 1 (total score 3):\n---\n"
    "Step 1: Step 1, Current set: 4 7 8 8, Two numbers selected: 8 8, Operation: /, New "
    "number calculated: 1, Remaining numbers: 4 7, New set: 1 4 7\n"
    "Step 2: Step 2, Current set: 1 4 7, Two numbers selected: 7 1, Operation: -, New "
    "number calculated: 6, Remaining numbers: 4, New set: 4 6\n"
    "Step 3: Step 3, Current set: 4 6, Two numbers selected: 6 4, Operation: *, New "
    "number calculated: 24, Remaining numbers: none, New set: 24\n---"
)


async def test_the_engine_reuses_a_chain_shown_without_analysis_that_reaches_the_target() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    chain = SOLVED_CHAIN
    blank = await run_engine(
        engine_call("bot_step", domain.prompt(Role.STEP, experience="", chain=[]), 200)
    )
    shown = await run_engine(
        engine_call("bot_step", domain.prompt(Role.STEP, experience=chain, chain=[]), 200)
    )
    assert first_steps(shown)["8 / 8"] > 2 * max(first_steps(blank)["8 / 8"], 5)
    # A chain that does not reach 24, shown the same way, teaches nothing (the samples
    # differ, as any change of the prompt changes them, but 8 / 8 stays a minor opening).
    wrong = chain.replace(
        "Operation: *, New number calculated: 24", "Operation: +, New number calculated: 10"
    ).replace("New set: 24", "New set: 10")
    unmoved = await run_engine(
        engine_call("bot_step", domain.prompt(Role.STEP, experience=wrong, chain=[]), 200)
    )
    assert first_steps(unmoved)["8 / 8"] < 2 * max(first_steps(blank)["8 / 8"], 5)
    assert first_steps(unmoved)["8 / 8"] < first_steps(shown)["8 / 8"] // 4


async def test_the_engine_reads_many_recommended_chains_without_overflowing() -> None:
    # BoT(No) after a few iterations: the same solved chain shown a hundred times over.
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    block = SOLVED_CHAIN.split("\n", 1)[1]
    experience = "1. Reasoning chains of this iteration, without analysis\n" + "\n".join(
        [block] * 100
    )
    call = engine_call("bot_step", domain.prompt(Role.STEP, experience=experience, chain=[]), 50)
    texts = await run_engine(dataclasses.replace(call, sampling=Sampling(0.2, 1.0, 50, 500)))
    assert first_steps(texts)["8 / 8"] >= 45


async def test_the_engine_judges_similarity_from_the_two_steps_it_reads() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))

    async def judged(a: str, b: str) -> float:
        (text,) = await run_engine(
            engine_call("bot_similar", domain.prompt(Role.SIMILAR, a=a, b=b))
        )
        value = g24.parse_similarity(text)
        assert value is not None
        return value

    assert await judged("7 - 4 = 3 (left: 3 8 8)", "7 - 4 = 3 (left: 3 8 8)") == 1.0
    assert await judged("8 + 4 = 12 (left: 7 8 12)", "4 + 8 = 12 (left: 7 8 12)") == 1.0
    assert await judged("7 - 4 = 3 (left: 3 8 8)", "8 / 8 = 1 (left: 1 4 7)") < 0.7
    with pytest.raises(Exception, match="cannot read"):
        await run_engine(engine_call("bot_similar", (Message("user", "Compare these."),)))


@pytest.mark.parametrize(
    "options",
    [
        {"experience": "cumulative"},
        {"experience": "chains"},
        {"experience": "none"},
        {"examples": True},
        {"aggregation": "greedy", "similarity": "model"},
    ],
)
async def test_no_variant_call_touches_the_context(options: dict[str, Any]) -> None:
    recorder = Recorder(OfflineModel(seed=5))
    await solve(
        BoT(BoTConfig(iterations=2, trees=3, **options)),
        Game24Domain(Hand.parse("3 3 8 8")),
        recorder,
        seed=5,
    )
    engine = OfflineModel(seed=5)
    purposes = set()
    for call, texts in recorder.calls:
        again = await engine.generate(dataclasses.replace(call, context=Untouchable()))
        assert again.texts == texts, call.purpose
        purposes.add(call.purpose)
    extra = {"cumulative": "bot_condense"}.get(options.get("experience", ""))
    if extra:
        assert extra in purposes
    if options.get("similarity") == "model":
        assert "bot_similar" in purposes
    if options.get("experience") == "chains":
        assert "bot_feedback" not in purposes


# ------------------------------------------------------------------ no benchmark answers

BENCHMARK = {tuple(sorted(int(n) for n in e.hand.numbers)) for e in catalogue() if e.solvable}
"""Every solvable hand of four cards 1-13: ToT's 1,362 hands, our catalogue, the hardest 100."""
_GROUP = re.compile(r"(?=(?<![\d/.])(\d+)[ ,]+(\d+)[ ,]+(\d+)[ ,]+(\d+)(?![\d/.]))")


def sorted_key(hand: Hand) -> tuple[int, ...]:
    return tuple(sorted(int(n) for n in hand.numbers))


def benchmark_answers(text: str) -> list[str]:
    """Each benchmark hand the text shows together with its answer: an expression of exactly
    its numbers that makes 24, or steps from it that end at 24, before the next hand."""
    found = []
    spots = [(m.start(), tuple(int(g) for g in m.groups())) for m in _GROUP.finditer(text)]
    for k, (start, numbers) in enumerate(spots):
        key = tuple(sorted(numbers))
        if key not in BENCHMARK:
            continue
        ends = [s for s, other in spots[k + 1 :] if tuple(sorted(other)) != key]
        segment = text[start : ends[0] if ends else len(text)]
        hand = Hand.parse(" ".join(map(str, numbers)))
        domain = Game24Domain(hand)
        state = domain.start()
        shown = False
        for line in segment.splitlines():
            candidate = line.split(":")[-1].split("=")[0].strip()
            if candidate and check_answer(hand, candidate).ok:
                shown = True
            steps = [s for s in domain.parse_steps(line, state) if s.valid]
            if steps and steps[0].state is not None:
                state = steps[0].state
        if shown or domain.is_goal(state):
            found.append(" ".join(map(str, numbers)))
    return found


def test_the_detector_finds_a_benchmark_hand_with_its_answer() -> None:
    # The judge's old shot (ToT's data) and a chain of steps: both are caught.
    assert benchmark_answers("Input: 4 9 10 13\nAnswer: (13 - 9) * (10 - 4) = 24\nJudge: sure")
    steps = "\n".join(
        [
            "The numbers are: 4 7 8 8.",
            bot_text("4 7 8 8", "8", "/", "8", "1", "4 7", "1 4 7", 0.9),
            bot_text("1 4 7", "7", "-", "1", "6", "4", "4 6", 0.9),
            bot_text("4 6", "6", "*", "4", "24", "none", "24", 0.9),
        ]
    )
    assert benchmark_answers(steps) == ["4 7 8 8"]
    # A hand with a wrong answer, or the question alone, is not.
    assert not benchmark_answers("Input: 4 9 10 13\nAnswer: (13 - 4) * (10 - 9) = 24")
    assert not benchmark_answers("The numbers are: 4 7 8 8.\nStep 1, ...")


def role_args(domain: Game24Domain, role: str) -> dict[str, Any]:
    state = domain.start()
    chain = [(bot_text("4 7 8 8", "8", "+", "8", "16", "4 7", "4 7 16", 0.3), 0.3)]
    table: dict[str, dict[str, Any]] = {
        "io": {},
        "cot": {"steps": ()},
        "propose": {"state": state},
        "value": {"state": state},
        "judge": {"answer": "4 + 7 + 8 + 8"},
        "step": {"experience": "", "chain": chain, "examples": True},
        "evaluate": {"chain": [], "step": chain[0][0]},
        "analyze": {"chain": [chain[0][0]]},
        "condense": {"experience": "1. Reasoning chain and comments"},
        "similar": {"a": "8 + 8 = 16 (left: 4 7 16)", "b": "7 - 4 = 3 (left: 3 8 8)"},
        "guide": {"turns": [], "turn": 1, "total": 3},
        "respond": {"turns": [], "guidance": "Try again.", "mode": "free"},
        "examples": {},
        "final": {"experience": "", "examples": True},
    }
    return table[role]


@pytest.mark.parametrize("role", sorted(g24.ROLES - {Role.EXAMPLES}))
def test_no_prompt_of_any_role_shows_a_benchmark_hand_with_its_answer(role: Role) -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    messages = domain.prompt(role, **role_args(domain, role))
    text = "\n".join(m.content for m in messages)
    assert benchmark_answers(text) == [], role


# -- decisions pinned call by call -----------------------------------------------------------------

Replies = Callable[[Call], Iterable[str] | str]


def failures(events: Sequence[Event]) -> list[tuple[str, str, str]]:
    """The run's parse failures: purpose, the text, the reason."""
    return [(e.purpose, e.text, e.reason) for e in of(events, ParseFailed)]


class CutScripted(ScriptedModel):
    """A scripted model whose replies to one purpose are cut at the token limit."""

    def __init__(self, replies: Replies, cut: str) -> None:
        super().__init__(replies)
        self.cut = cut

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        gen = await super().generate(call, on_token)
        if call.purpose != self.cut:
            return gen
        return dataclasses.replace(gen, finish_reasons=("length",) * len(gen.texts))


# ------------------------------------------------------------------ BoT(No): the entry

# chain_replies (hand 2 3 4, depth 2): tree k opens with 2 * 3 scored 0.1 * k + 0.4 and ends
# with 6 * 4 = 24 scored 0.9; every evaluation says 0.7.
CHAINS_ENTRY = """\
1. Reasoning chains of this iteration, without analysis
Chain 1 (total score 2.8):
---
Step 1: Step 1, Current set: 2 3 4, Two numbers selected: 2 3, Operation: *, New number \
calculated: 6, Remaining numbers: 4, New set: 4 6, Evaluation score: 0.5, Edge score: 0.7
Step 2: Step 2, Current set: 4 6, Two numbers selected: 6 4, Operation: *, New number \
calculated: 24, Remaining numbers: none, New set: 24, Evaluation score: 0.9, Edge score: 0.7
---
Chain 2 (total score 2.9):
---
Step 1: Step 1, Current set: 2 3 4, Two numbers selected: 2 3, Operation: *, New number \
calculated: 6, Remaining numbers: 4, New set: 4 6, Evaluation score: 0.6, Edge score: 0.7
Step 2: Step 2, Current set: 4 6, Two numbers selected: 6 4, Operation: *, New number \
calculated: 24, Remaining numbers: none, New set: 24, Evaluation score: 0.9, Edge score: 0.7
---"""


async def test_the_chains_entry_numbers_every_chain_and_step_from_one_with_both_scores() -> None:
    model = ScriptedModel(chain_replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=2, trees=2, children=1, experience="chains")),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    first, second = of(events, ExperienceAdded)
    assert first.entry == CHAINS_ENTRY
    assert first.report == "no analysis: the chains are the experience"
    # The next iteration's step prompts carry it word for word.
    later = [c for c in model.calls if c.purpose == "bot_step"][4:]
    assert later and all(CHAINS_ENTRY in c.messages[-1].content for c in later)
    # The same chains again: left out (the prompts carry them once), never rewritten.
    assert second.entry == "" and second.repeat_of == 1
    last = [c for c in model.calls if c.purpose == "bot_step"][-1].messages[-1].content
    assert last.count("Reasoning chains of this iteration") == 1


# ------------------------------------------------------------------ cumulative: condensing


async def test_the_condensation_call_sends_the_whole_experience_with_the_analysis_sampling() -> (
    None
):
    condensed: list[str] = []

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_condense":
            condensed.append(f"CONDENSED-{len(condensed) + 1}")
            return condensed[-1]
        return chain_replies(call)

    model = ScriptedModel(replies)
    domain = Game24Domain(Hand.parse("2 3 4"))
    config = BoTConfig(
        iterations=2,
        trees=1,
        children=1,
        experience="cumulative",
        feedback_temperature=0.45,
        max_tokens=321,
    )
    _, events = await solve(BoT(config), domain, model)
    asks = [c for c in model.calls if c.purpose == "bot_condense"]
    assert len(asks) == 2
    sent = [str(c.context["experience"]) for c in asks]
    assert sent[0].startswith("1. Reasoning chain and comments\n") and "ADVICE-ONE" in sent[0]
    # The second rewrites the first condensed text and iteration 2's entry (the same chain,
    # numbered 2: cumulative experience sends no "came back" line), joined as the prompts are.
    assert sent[1] == "CONDENSED-1\n#\n2" + sent[0][1:]
    for call, experience in zip(asks, sent, strict=True):
        assert call.messages == domain.prompt(Role.CONDENSE, experience=experience)
        assert f"#####\n{experience}\n#####" in call.messages[-1].content
        # The analysis call's sampling: its temperature, top_p 1, one sample, the token cap.
        assert call.sampling == Sampling(0.45, 1.0, 1, 321)
        # The start of the hand (not the chain's last state) and the experience, for the pane.
        assert call.context == {**domain.context(domain.start()), "experience": experience}
        assert call.context["numbers"] == ["2", "3", "4"]
    assert [e.entry for e in of(events, ExperienceAdded)] == condensed
    assert of(events, ParseFailed) == []


async def test_an_unreadable_condensation_is_reported_and_the_experience_kept() -> None:
    fences = "```\n```"

    def replies(call: Call) -> Iterable[str] | str:
        return fences if call.purpose == "bot_condense" else chain_replies(call)

    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, experience="cumulative")),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(replies),
    )
    assert failures(events) == [("bot_condense", fences, "no condensed experience; kept as it was")]
    (added,) = of(events, ExperienceAdded)
    assert added.entry.startswith("1. Reasoning chain and comments") and fences not in added.entry


# ------------------------------------------------------------------ a parser missing


def word_problem_claiming(*roles: str) -> WordProblemDomain:
    """A word problem that claims roles it has no parser for."""
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    domain.roles = domain.roles | {Role(r) for r in roles}
    return domain


@pytest.mark.parametrize(
    ("config", "role", "method"),
    [
        (BoTConfig(experience="cumulative"), "condense", "bot --experience cumulative"),
        (
            BoTConfig(aggregation="greedy", similarity="model"),
            "similar",
            "bot --similarity model",
        ),
    ],
)
async def test_a_domain_without_the_variants_parser_is_told_which_before_any_call(
    config: BoTConfig, role: str, method: str
) -> None:
    domain = word_problem_claiming(role)
    model = ScriptedModel(["x"])
    fin, events = await solve(BoT(config), domain, model)
    assert [(e.kind, e.message, e.fatal) for e in of(events, ErrorRaised)] == [
        (
            "unsupported",
            f"{method} cannot solve {domain.kind} puzzles yet: the {domain.kind} domain has "
            f"no {role} prompt",
            True,
        )
    ]
    assert domain.kind == "wordproblem"
    assert fin.reason == "error" and model.calls == []


@pytest.mark.parametrize(
    ("config", "role", "method"),
    [
        (BoTConfig(experience="cumulative"), "condense", "bot --experience cumulative"),
        (BoTConfig(aggregation="greedy", similarity="model"), "similar", "bot --similarity model"),
        (BoTConfig(examples=True), "examples", "bot --examples"),
    ],
)
async def test_a_domain_without_the_variants_prompt_is_told_which_option_needs_it(
    config: BoTConfig, role: str, method: str
) -> None:
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    assert role not in domain.roles
    model = ScriptedModel(["x"])
    fin, events = await solve(BoT(config), domain, model)
    assert [(e.kind, e.message) for e in of(events, ErrorRaised)] == [
        (
            "unsupported",
            f"{method} cannot solve wordproblem puzzles yet: the wordproblem domain has no "
            f"{role} prompt",
        )
    ]
    assert fin.reason == "error" and model.calls == []


async def test_greedy_aggregation_with_exact_similarity_needs_no_similarity_prompt() -> None:
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    assert "similar" not in domain.roles
    config = BoTConfig(iterations=1, trees=2, aggregation="greedy", similarity="exact")
    fin, events = await solve(BoT(config), domain, OfflineModel(seed=1), seed=1)
    assert not of(events, ErrorRaised) and fin.reason == "done"
    assert [e.strategy for e in of(events, ChainAggregated)] == ["greedy"]


# Hand 1 2 3 4, two trees, neither of which reaches 24 (V_i, V_{i-1,i}):
#   tree 1: 4 / 1 (0.9, 0.9), 2 * 3 (0.5, 0.5), 6 + 4 = 10 (0.1, 0.1)
#   tree 2: 2 * 3 (0.4, 0.4), 6 * 4 = 24 with 1 left (0.5, 0.9), 24 - 1 = 23 (0.5, 0.5)
# Greedy stitches 4 / 1, 2 * 3, then the best edge after a step like 2 * 3 (tree 2's first
# step is: it shares 6 of 7 numbers and operators): tree 2's 6 * 4, which from tree 1's 4 6
# makes 24 exactly.
STITCHED_TREES = {
    (1, 0): bot_text("1 2 3 4", "4", "/", "1", "4", "2 3", "2 3 4", 0.9),
    (1, 1): bot_text("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.5),
    (1, 2): bot_text("4 6", "6", "+", "4", "10", "none", "10", 0.1),
    (2, 0): bot_text("1 2 3 4", "2", "*", "3", "6", "1 4", "1 4 6", 0.4),
    (2, 1): bot_text("1 4 6", "6", "*", "4", "24", "1", "1 24", 0.5),
    (2, 2): bot_text("1 24", "24", "-", "1", "23", "none", "23", 0.5),
}
STITCHED_EDGES = {
    "4 / 1 = 4": 0.9,
    "2 * 3 = 6": 0.5,
    "6 + 4 = 10": 0.1,
    "6 * 4 = 24": 0.9,
    "24 - 1 = 23": 0.5,
}


async def test_stop_early_ends_the_run_when_greedy_stitches_a_solution_no_tree_found() -> None:
    replies = tree_replies(STITCHED_TREES, STITCHED_EDGES)
    config = BoTConfig(iterations=3, trees=2, children=1, aggregation="greedy", stop_early=True)
    fin, events = await solve(
        BoT(config), Game24Domain(Hand.parse("1 2 3 4")), ScriptedModel(replies)
    )
    assert not of(events, SolutionFound)  # no tree reached 24 itself
    (aggregated,) = of(events, ChainAggregated)  # one iteration: the stitched chain solved it
    assert [step_key(s) for s in aggregated.steps] == ["4 / 1 = 4", "2 * 3 = 6", "6 * 4 = 24"]
    (added,) = of(events, ExperienceAdded)
    assert added.chain_ok
    assert fin.solved and fin.reason == "solved early"


# ------------------------------------------------------------------ similarity model

# Hand 4 7 8 8, depth 3, two trees of one child per node (V_i, V_{i-1,i}):
#   tree 1: 8 / 8 (0.9, 0.9), 7 - 1 (0.5, 0.5), 6 * 4 = 24 (0.9, 0.9)
#   tree 2: 7 - 4 (0.4, 0.4), 8 * 3 (0.5, 0.5), 24 - 8 (0.5, 1.0)
# Greedy opens with 8 / 8 (the best first step) and, no other step being like it, follows
# it with 7 - 1. The model judges 8 * 3 90% like 7 - 1 (every other pair 10%), so the third
# step is the best edge after 7 - 1 or 8 * 3: 24 - 8 (1.0) over 6 * 4 (0.9).
DEEP_TREES = {
    (1, 0): bot_text("4 7 8 8", "8", "/", "8", "1", "4 7", "1 4 7", 0.9),
    (1, 1): bot_text("1 4 7", "7", "-", "1", "6", "4", "4 6", 0.5),
    (1, 2): bot_text("4 6", "6", "*", "4", "24", "none", "24", 0.9),
    (2, 0): bot_text("4 7 8 8", "7", "-", "4", "3", "8 8", "3 8 8", 0.4),
    (2, 1): bot_text("3 8 8", "8", "*", "3", "24", "8", "8 24", 0.5),
    (2, 2): bot_text("8 24", "24", "-", "8", "16", "none", "16", 0.5),
}
DEEP_EDGES = {
    "8 / 8 = 1": 0.9,
    "7 - 1 = 6": 0.5,
    "6 * 4 = 24": 0.9,
    "7 - 4 = 3": 0.4,
    "8 * 3 = 24": 0.5,
    "24 - 8 = 16": 1.0,
}
_PAIR = re.compile(r"^Step A: (.*)\nStep B: (.*)$", re.MULTILINE)


def asked_pair(call: Call) -> tuple[str, str]:
    """The two steps a similarity prompt shows (read from the prompt, as a model would)."""
    m = _PAIR.search(call.messages[-1].content)
    assert m is not None
    return m[1], m[2]


def deep_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "bot_similar":
        a, b = (step_key(s) for s in asked_pair(call))
        return "Similarity: 90%" if (a, b) == ("7 - 1 = 6", "8 * 3 = 24") else "Similarity: 10%"
    return tree_replies(DEEP_TREES, DEEP_EDGES)(call)


async def test_greedy_with_the_model_stitches_all_three_steps_asking_each_pair_once() -> None:
    model = ScriptedModel(deep_replies)
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    config = BoTConfig(
        iterations=2,
        trees=2,
        children=1,
        aggregation="greedy",
        similarity="model",
        eval_temperature=0.15,
        eval_top_p=0.35,
        max_tokens=321,
    )
    _, events = await solve(BoT(config), domain, model)
    aggregated = of(events, ChainAggregated)
    assert len(aggregated) == 2
    for agg in aggregated:  # the second iteration reuses the first one's judgements
        assert [step_key(s) for s in agg.steps] == ["8 / 8 = 1", "7 - 1 = 6", "24 - 8 = 16"]
        assert [n.rsplit(".n", 1)[0][-2:] for n in agg.node_ids] == ["t1", "t1", "t2"]
        assert agg.score == pytest.approx(4.3)
    asked = [c for c in model.calls if c.purpose == "bot_similar"]
    pairs = [asked_pair(c) for c in asked]
    # Against 8 / 8 (second step) and 7 - 1 (third), every other step of a chain but its
    # last, once in the whole run; identical texts are never asked.
    assert sorted((step_key(a), step_key(b)) for a, b in pairs) == [
        ("7 - 1 = 6", "7 - 4 = 3"),
        ("7 - 1 = 6", "8 * 3 = 24"),
        ("7 - 1 = 6", "8 / 8 = 1"),
        ("8 / 8 = 1", "7 - 1 = 6"),
        ("8 / 8 = 1", "7 - 4 = 3"),
        ("8 / 8 = 1", "8 * 3 = 24"),
    ]
    assert ("8 / 8 = 1 (left: 4 7 1)", "8 * 3 = 24 (left: 8 24)") in pairs
    for call, (a, b) in zip(asked, pairs, strict=True):
        assert call.messages == domain.prompt(Role.SIMILAR, a=a, b=b)
        # The evaluation calls' sampling: their temperature and top_p, one sample, the cap.
        assert call.sampling == Sampling(0.15, 0.35, 1, 321)
        # The hand's start and the two steps, for the pane.
        assert call.context == {**domain.context(domain.start()), "a": a, "b": b}
        assert call.context["numbers"] == ["4", "7", "8", "8"]
    assert not [e for e in of(events, ParseFailed) if e.purpose == "bot_similar"]


# Hand 4 7 8 8, depth 2. Tree 1 opens with 8 / 8 (0.9, 0.9) and then writes no step, so its
# chain is that step alone; tree 2 goes 7 - 4 (0.5, 0.5), 8 * 3 (0.5, 0.5). Greedy opens
# with 8 / 8; only a judge that finds 7 - 4 like it lets 8 * 3 follow.
SHORT_TREES = {
    (1, 0): bot_text("4 7 8 8", "8", "/", "8", "1", "4 7", "1 4 7", 0.9),
    (1, 1): "I see no further step.",
    (2, 0): bot_text("4 7 8 8", "7", "-", "4", "3", "8 8", "3 8 8", 0.5),
    (2, 1): bot_text("3 8 8", "8", "*", "3", "24", "8", "8 24", 0.5),
}
SHORT_EDGES = {"8 / 8 = 1": 0.9, "7 - 4 = 3": 0.5, "8 * 3 = 24": 0.5}


def short_replies(similar: str) -> Replies:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return SHORT_TREES[(call.sample_offset + 1, len(call.context["chain"]))]
        if call.purpose == "bot_evaluate":
            return f"Evaluation score: {SHORT_EDGES[step_key(call.context['step'])]:g}"
        if call.purpose == "bot_similar":
            return similar
        return FEEDBACK

    return replies


@pytest.mark.parametrize(
    ("reply", "cut", "steps", "failed"),
    [
        # The control: judged alike, 7 - 4's continuation follows 8 / 8.
        ("Similarity: 90%", False, ["8 / 8 = 1", "8 * 3 = 24"], None),
        # Judged different: nothing can follow, the chain ends after its first step.
        ("Similarity: 10%", False, ["8 / 8 = 1"], None),
        # No similarity in the reply: taken as different, and reported.
        ("They look alike to me.", False, ["8 / 8 = 1"], "They look alike to me."),
        # Cut at the token limit: the unfinished line is dropped, not read as 9%, 90% or more.
        (
            "They share the numbers.\nSimilarity: 9",
            True,
            ["8 / 8 = 1"],
            "They share the numbers.\n",
        ),
    ],
)
async def test_the_judges_reply_decides_and_an_unreadable_one_means_different(
    reply: str, cut: bool, steps: list[str], failed: str | None
) -> None:
    replies = short_replies(reply)
    model = CutScripted(replies, "bot_similar") if cut else ScriptedModel(replies)
    _, events = await solve(
        BoT(
            BoTConfig(
                iterations=1, trees=2, depth=2, children=1, aggregation="greedy", similarity="model"
            )
        ),
        Game24Domain(Hand.parse("4 7 8 8")),
        model,
    )
    (agg,) = of(events, ChainAggregated)
    assert [step_key(s) for s in agg.steps] == steps
    assert not of(events, ErrorRaised)
    (asked,) = [c for c in model.calls if c.purpose == "bot_similar"]
    assert [step_key(s) for s in asked_pair(asked)] == ["8 / 8 = 1", "7 - 4 = 3"]
    expected = [] if failed is None else [failed]
    assert [f for f in failures(events) if f[0] != "bot_step"] == [
        ("bot_similar", text, "no similarity; taken as different") for text in expected
    ]


async def test_similarities_are_one_for_the_same_text_reused_once_judged_and_asked_once() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    last, known, new = (
        "7 - 4 = 3 (left: 3 8 8)",
        "8 / 8 = 1 (left: 1 4 7)",
        "8 + 8 = 16 (left: 4 7 16)",
    )
    model = ScriptedModel(["Similarity: 40%"])
    events: list[Event] = []
    ctx = RunContext(model, events.append)
    judged = {(last, known): 0.25}
    sims = await BoT(BoTConfig(similarity="model"))._similarities(
        domain, ctx, last, [last, known, new, new, last], judged
    )
    assert sims == {last: 1.0, known: 0.25, new: pytest.approx(0.4)}
    assert [asked_pair(c) for c in model.calls] == [(last, new)]
    assert judged == {(last, known): 0.25, (last, new): pytest.approx(0.4)}
