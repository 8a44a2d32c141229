"""BoT's decisions pinned call by call: what the condensation call (``--experience
cumulative``) and the similarity-judging call (``--similarity model``) send and how their
replies are read, what BoT(No)'s experience entry holds, greedy aggregation's choice over
three steps, and the message a domain without a parser for an asked variant gets. The
scripted replies make each right outcome the only possible one."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import pytest

from puzzles.game24 import Hand
from puzzles.wordproblem.generator import problem_by_id
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
from solver.methods import solve
from solver.methods.base import RunContext
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Sampling, ScriptedModel
from solver.model.base import Generation, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Role
from tests.solver.test_bot_variants import chain_replies
from tests.solver.test_method_decisions import FEEDBACK, bot_text, step_key, tree_replies

E = TypeVar("E", bound=Event)
Replies = Callable[[Call], Iterable[str] | str]


def of(events: Sequence[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


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


def word_problem_claiming(*roles: Role) -> WordProblemDomain:
    """A word problem that claims roles it has no parser for."""
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    domain.roles = domain.roles | set(roles)
    return domain


@pytest.mark.parametrize(
    ("config", "role", "method"),
    [
        (BoTConfig(experience="cumulative"), Role.CONDENSE, "bot --experience cumulative"),
        (
            BoTConfig(aggregation="greedy", similarity="model"),
            Role.SIMILAR,
            "bot --similarity model",
        ),
    ],
)
async def test_a_domain_without_the_variants_parser_is_told_which_before_any_call(
    config: BoTConfig, role: Role, method: str
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
        (BoTConfig(experience="cumulative"), Role.CONDENSE, "bot --experience cumulative"),
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
