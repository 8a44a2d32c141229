"""What each method promises, pinned field by field: the events it emits and their fields,
the calls it makes and their sampling, the paper's rules for values, scores, leaves and
answers; what a CoT-SC call carries, what a run with no readable answer reports, and which
value event a shared value comes from.

Scripted replies only (helpers from ``game24_replies``); every test is fast and offline. The
tests were written where mutation testing of solver/methods found a change no test noticed.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar, cast

import pytest

from puzzles.arith import extract_claims
from puzzles.game24 import Hand, State, apply
from solver.domains import game24_prompts as g24p
from solver.domains.base import Domain
from solver.domains.game24 import Game24Domain, similarity
from solver.events import (
    ChainAggregated,
    ClaimVerified,
    ErrorRaised,
    Event,
    ExperienceAdded,
    IterationStarted,
    LeafReached,
    ModelCalled,
    ParseFailed,
    RunFinished,
    RunStarted,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
    TokensUsed,
    TreeStarted,
)
from solver.methods import METHODS, make_method, run_method, solve
from solver.methods.base import Outcome, RunContext, StopRun
from solver.methods.baselines import (
    IO,
    CoT,
    CoTConfig,
    CoTSC,
    CoTSCConfig,
    IOConfig,
    sample_calls,
)
from solver.methods.bot import BoT, BoTConfig, Node
from solver.methods.iot import IoT
from solver.methods.tot import ToT, ToTConfig, _Beam
from solver.model import (
    Call,
    Generation,
    Message,
    ModelError,
    Sampling,
    ScriptedModel,
    Usage,
)
from solver.roles import Purpose
from tests.solver.game24_replies import (
    ADVICE,
    FEEDBACK,
    FIRST_FEEDBACK,
    bot_text,
    iterations_replies,
    numbers_of,
    step_key,
    sum_and_product,
)

E = TypeVar("E", bound=Event)

HAND = "4 7 8 8"

GREEDY_DOMAIN = Game24Domain(Hand.parse("2 3 4"))
"""Greedy aggregation asks the domain how alike two steps are."""


def of(events: Sequence[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


def check_stream(events: Sequence[Event]) -> dict[str, ThoughtAdded]:
    """What every run promises about its events, whatever the method: node ids are unique,
    a parent was added before its child, in the same tree, one level up; every node's call
    is a call made before it; events about nodes name nodes that exist; the finish counts
    every call and token. Returns the nodes by id."""
    nodes: dict[str, ThoughtAdded] = {}
    calls: dict[int, ModelCalled] = {}
    for e in events:
        if isinstance(e, ModelCalled):
            assert e.call_id == len(calls) + 1
            calls[e.call_id] = e
        elif isinstance(e, ThoughtAdded):
            assert e.node_id and e.node_id not in nodes
            assert isinstance(e.tree_id, str) and e.tree_id
            if e.parent_id is None:
                assert e.depth == 1, e
            else:
                parent = nodes[e.parent_id]
                assert parent.tree_id == e.tree_id and e.depth == parent.depth + 1, e
            assert e.call_id in calls, e
            nodes[e.node_id] = e
        elif isinstance(e, ClaimVerified) and e.node_id is not None:
            assert e.node_id in nodes
        elif hasattr(e, "node_id"):
            assert e.node_id in nodes, e
    fin = events[-1]
    assert isinstance(fin, RunFinished)
    assert fin.calls == len(calls)
    last = of(events, TokensUsed)
    if last:
        assert (fin.calls, fin.prompt_tokens, fin.completion_tokens) == (
            last[-1].calls,
            last[-1].prompt_tokens,
            last[-1].completion_tokens,
        )
        assert fin.prompt_tokens > 0 and fin.completion_tokens > 0
    return nodes


def added(events: Sequence[Event]) -> list[tuple[Any, ...]]:
    return [
        (e.tree_id, e.node_id, e.parent_id, e.text, e.depth, e.state, e.call_id)
        for e in of(events, ThoughtAdded)
    ]


# ------------------------------------------------------------------ IO and CoT: one chain

CHAIN = (
    "Let me think.\n"
    "8 / 8 = 1 (left: 1 4 7)\n"
    "\n"
    "7 - 1 = 6 (left: 4 6)\n"
    "4 * 6 = 24 (left: 24)\n"
    "Answer: (7 - 8 / 8) * 4 = 24\n"
)


@pytest.mark.parametrize(("cls", "purpose"), [(IO, "io"), (CoT, "cot")])
async def test_io_and_cot_show_the_chain_as_one_branch(cls: type[IO], purpose: str) -> None:
    model = ScriptedModel([CHAIN])
    fin, events = await solve(cls(), Game24Domain(Hand.parse(HAND)), model)
    check_stream(events)
    (call,) = model.calls
    assert call.purpose == purpose
    assert call.sampling == Sampling(0.7, 1.0, 1, 1000)
    assert of(events, IterationStarted) == [IterationStarted(1, 1, purpose, t=events[1].t)]
    assert added(events) == [
        ("s1", "n1", None, "8 / 8 = 1 (left: 1 4 7)", 1, "4 7 1", 1),
        ("s1", "n2", "n1", "7 - 1 = 6 (left: 4 6)", 2, "4 6", 1),
        ("s1", "n3", "n2", "4 * 6 = 24 (left: 24)", 3, "24", 1),
        ("s1", "n4", "n3", "Answer: (7 - 8 / 8) * 4 = 24", 4, "", 1),
    ]
    claims = of(events, ClaimVerified)
    assert [(c.node_id, c.ok) for c in claims] == [
        ("n1", True),
        ("n2", True),
        ("n3", True),
        ("n4", True),
    ]
    assert [(e.node_id, e.answer) for e in of(events, SolutionFound)] == [("n4", "(7 - 8 / 8) * 4")]
    assert not of(events, LeafReached) and not of(events, ParseFailed)
    assert fin.answer == "(7 - 8 / 8) * 4" and fin.solved and fin.reason == "done"
    assert fin.calls == 1


async def test_io_with_k_samples_says_so_and_sends_the_puzzle_state() -> None:
    domain = Game24Domain(Hand.parse(HAND))
    model = ScriptedModel([CHAIN, "Answer: 8 * 8"])
    fin, events = await solve(IO(IOConfig(samples=3)), domain, model)
    assert [e.label for e in of(events, IterationStarted)] == ["3 samples"]
    (call,) = model.calls
    assert call.sampling.n == 3 and call.context == domain.context(domain.start())
    assert (fin.answer, fin.samples, fin.samples_solved) == ("(7 - 8 / 8) * 4", 3, 2)


async def test_io_answers_nothing_when_the_server_sends_no_sample() -> None:
    class Silent(ScriptedModel):
        async def generate(self, call: Call, on_token: Any = None) -> Generation:
            self.calls.append(call)
            return Generation((), Usage(5, 0), 0.01, finish_reasons=())

    fin, _ = await solve(IO(), Game24Domain(Hand.parse(HAND)), Silent([]))
    assert fin.answer is None and fin.verdict == "no answer" and fin.reason == "done"
    assert (fin.samples, fin.samples_solved) == (1, 0)


async def test_event_times_and_the_wall_time_count_from_the_start_of_the_run() -> None:
    before = time.perf_counter()
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), ScriptedModel([CHAIN]))
    took = time.perf_counter() - before
    assert all(0 <= e.t <= took + 0.001 for e in events)
    assert all(e.t == round(e.t, 4) for e in events)  # stamped to a tenth of a millisecond
    assert 0 <= fin.wall_time <= took + 0.001 and fin.t >= fin.wall_time


async def test_the_wall_time_is_stamped_to_a_tenth_of_a_millisecond() -> None:
    for _ in range(5):
        slow = ScriptedModel([CHAIN], delay=0.02)
        fin, _events = await solve(IO(), Game24Domain(Hand.parse(HAND)), slow)
        assert fin.wall_time >= 0.02 and fin.wall_time == round(fin.wall_time, 4)


def test_samples_are_split_into_batches_each_told_where_its_samples_start() -> None:
    asked = (Message("user", "ask"),)

    def split(samples: int, batch: int) -> list[tuple[int, int]]:
        calls = sample_calls(Purpose.IO, asked, Sampling(0.7), samples, batch, {"left": "1 2"})
        assert all(c.messages == asked and c.context == {"left": "1 2"} for c in calls)
        return [(c.sample_offset, c.sampling.n) for c in calls]

    assert split(5, 2) == [(0, 2), (2, 2), (4, 1)]
    assert split(3, 1) == [(0, 1), (1, 1), (2, 1)]
    assert split(2, 0) == [(0, 1), (1, 1)]  # a batch below one still draws one at a time
    assert split(3, 20) == [(0, 3)]


async def test_io_config_is_kept_and_defaults_when_absent() -> None:
    assert IO().config == IOConfig() and CoT().config == CoTConfig()
    assert IO(IOConfig(temperature=0.1)).config.temperature == 0.1
    assert CoT(CoTConfig(max_tokens=7)).config.max_tokens == 7
    model = ScriptedModel([CHAIN])
    await solve(IO(IOConfig(0.2, 50)), Game24Domain(Hand.parse(HAND)), model)
    assert model.calls[0].sampling == Sampling(0.2, 1.0, 1, 50)


async def test_a_wrong_step_is_shown_and_the_chain_goes_on_from_the_last_good_state() -> None:
    text = (
        "9 + 9 = 18 (left: 4 7 18)\n"  # not on the table: no state
        "8 / 8 = 1 (left: 1 4 7)\n"
        "Answer: 4 * 7 - 8 / 8 = 27\n"
    )
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), ScriptedModel([text]))
    check_stream(events)
    assert added(events) == [
        ("s1", "n1", None, "9 + 9 = 18 (left: 4 7 18)", 1, "", 1),
        ("s1", "n2", "n1", "8 / 8 = 1 (left: 1 4 7)", 2, "4 7 1", 1),
        ("s1", "n3", "n2", "Answer: 4 * 7 - 8 / 8 = 27", 3, "", 1),
    ]
    (leaf,) = of(events, LeafReached)
    assert leaf.node_id == "n3" and leaf.reason == fin.verdict and "27" in leaf.reason
    assert not of(events, SolutionFound)
    assert fin.answer == "4 * 7 - 8 / 8" and not fin.solved


async def test_only_the_first_forty_lines_become_thoughts() -> None:
    text = "chatter\n" * 40 + "Answer: (7 - 8 / 8) * 4 = 24\n"
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), ScriptedModel([text]))
    assert not of(events, ThoughtAdded)
    assert not of(events, SolutionFound) and not of(events, LeafReached)
    assert fin.answer == "(7 - 8 / 8) * 4" and fin.solved  # the answer still counts


async def test_a_long_answer_line_is_shown_cut_to_200_characters() -> None:
    line = "Answer: (7 - 8 / 8) * 4 = 24 " + "because " * 40
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), ScriptedModel([line]))
    (node,) = of(events, ThoughtAdded)
    assert node.text == line.strip()[:200] and len(node.text) == 200
    assert fin.solved


async def test_a_reply_without_an_answer_is_a_parse_failure_at_its_last_thought() -> None:
    text = "8 / 8 = 1 (left: 1 4 7)\nI give up."
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), ScriptedModel([text]))
    assert of(events, ParseFailed) == [
        ParseFailed("answer", text, "no 'Answer:' line", t=of(events, ParseFailed)[0].t)
    ]
    assert [(e.node_id, e.reason) for e in of(events, LeafReached)] == [("n1", "no answer")]
    assert fin.answer is None and fin.reason == "done"


async def test_a_cut_reply_shows_its_steps_and_gives_no_answer() -> None:
    text = "8 / 8 = 1 (left: 1 4 7)\n7 - 1 = 6 (left: 4 6)\nAnswer: (7 - 8 / 8) * 4 = 24"
    model = ScriptedModel([text], finish_reason="length")
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), model)
    assert [a[1:5] for a in added(events)] == [
        ("n1", None, "8 / 8 = 1 (left: 1 4 7)", 1),
        ("n2", "n1", "7 - 1 = 6 (left: 4 6)", 2),
    ]
    assert [(e.node_id, e.reason) for e in of(events, LeafReached)] == [
        ("n2", "the reply was cut off at the token limit: no answer taken")
    ]
    assert not of(events, SolutionFound) and not of(events, ParseFailed)
    assert fin.answer is None and fin.reason == "reply cut"
    # Cut before any step: nothing to mark.
    model = ScriptedModel(["I will start with 8 / 8"], finish_reason="length")
    fin, events = await solve(IO(), Game24Domain(Hand.parse(HAND)), model)
    assert not of(events, LeafReached) and fin.reason == "reply cut"


# ------------------------------------------------------------------ CoT-SC


async def test_cot_sc_batches_samples_and_shows_each_as_its_own_branch() -> None:
    samples = [
        "I cannot do this.",  # no answer: skipped, the rest still vote
        "Answer: 4 * 8 - 7 - 8 +",  # unreadable: skipped, the rest still vote
        "8 / 8 = 1 (left: 1 4 7)\nAnswer: (7 - 8 / 8) * 4 = 24",
        "Answer: 4 + 7 + 8 + 8 = 27",
        "Answer: (7 - 8/8) * 4 = 24",
    ]

    def replies(call: Call) -> Iterable[str]:
        return samples[call.sample_offset : call.sample_offset + call.sampling.n]

    model = ScriptedModel(replies)
    fin, events = await solve(
        CoTSC(CoTSCConfig(samples=5, batch=2, temperature=0.5, max_tokens=300)),
        Game24Domain(Hand.parse(HAND)),
        model,
    )
    nodes = check_stream(events)
    assert [(c.purpose, c.sample_offset, c.sampling) for c in model.calls] == [
        ("cot", 0, Sampling(0.5, 1.0, 2, 300)),
        ("cot", 2, Sampling(0.5, 1.0, 2, 300)),
        ("cot", 4, Sampling(0.5, 1.0, 1, 300)),
    ]
    assert of(events, IterationStarted) == [
        IterationStarted(1, 1, "5 samples", t=of(events, IterationStarted)[0].t)
    ]
    assert [(n.tree_id, n.parent_id, n.depth, n.call_id) for n in nodes.values()] == [
        ("s2", None, 1, 1),
        ("s3", None, 1, 2),
        ("s3", "n2", 2, 2),
        ("s4", None, 1, 2),
        ("s5", None, 1, 3),
    ]
    # Two of the three readable answers are one expression: the majority, its first wording.
    assert fin.answer == "(7 - 8 / 8) * 4" and fin.solved and fin.votes == 2
    assert fin.calls == 3


async def test_cot_sc_without_any_answer_answers_nothing() -> None:
    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=3, batch=3)),
        Game24Domain(Hand.parse(HAND)),
        ScriptedModel(["no idea"]),
    )
    assert fin.answer is None and fin.reason == "done"
    assert CoTSC().config == CoTSCConfig()


# ------------------------------------------------------------------ ToT

# Hand 2 3 4 (two equations, then the answer), breadth 2, two value samples. Two of the first
# step's states tie (1.001 each): the earlier proposed is kept.
TOT_SMALL = {
    "2 3 4": "2 * 3 = 6 (left: 4 6)\n3 + 4 = 7 (left: 2 7)\n4 * 3 = 12 (left: 2 12)\n"
    "2 + 4 = 6 (left: 3 6)",
    "4 6": "4 * 6 = 24 (left: 24)\n6 - 4 = 2 (left: 2)",
    "2 7": "7 - 2 = 5 (left: 5)",
}
TOT_SMALL_VALUES = {
    "4 6": ("sure", "likely"),  # 21
    "2 7": ("likely", "impossible"),  # 1.001
    "2 12": ("impossible", "impossible"),  # 0.002
    "3 6": ("impossible", "maybe?"),  # "maybe" reads as likely: 1.001
    "2": ("likely", "nonsense"),  # an unreadable sample counts 0: 1
    "5": ("impossible", "impossible"),
    "24": ("sure", "sure"),
}


def tot_small_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "propose":
        return TOT_SMALL[numbers_of(call)]
    if call.purpose == "value":
        return TOT_SMALL_VALUES[numbers_of(call)]
    if call.purpose == "answer":  # both final beams start with 2 * 3: the same answer
        assert call.context["steps"][0] == "2 * 3 = 6"
        return "Answer: 2 * 3 * 4 = 24"
    if call.purpose == "judge":
        assert call.messages[-1].content.endswith("Answer: 2 * 3 * 4\nJudge:")
        return ("impossible", "likely")
    raise AssertionError(call.purpose)


async def test_tot_events_pin_the_search_step_by_step() -> None:
    model = ScriptedModel(tot_small_replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=2, value_samples=2)), Game24Domain(Hand.parse("2 3 4")), model
    )
    check_stream(events)
    assert [(e.iteration, e.total, e.label) for e in of(events, IterationStarted)] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]
    assert added(events) == [
        ("tot", "n1", None, "2 * 3 = 6 (left: 4 6)", 1, "4 6", 1),
        ("tot", "n2", None, "3 + 4 = 7 (left: 2 7)", 1, "2 7", 1),
        ("tot", "n3", None, "4 * 3 = 12 (left: 2 12)", 1, "2 12", 1),
        ("tot", "n4", None, "2 + 4 = 6 (left: 3 6)", 1, "3 6", 1),
        ("tot", "n5", "n1", "4 * 6 = 24 (left: 24)", 2, "24", 6),
        ("tot", "n6", "n1", "6 - 4 = 2 (left: 2)", 2, "2", 6),
        ("tot", "n7", "n2", "7 - 2 = 5 (left: 5)", 2, "5", 7),
        ("tot", "n8", "n5", "Answer: 2 * 3 * 4", 3, "", 11),
    ]  # n6 is one number, 2, not 24: no answer is asked for it (issue 9)
    # Values: 20 / 1 / 0.001 summed over the samples; the judge's value is shared by the two
    # equal answers (one call: the second has no call of its own).
    assert [
        (e.node_id, e.score, e.edge_score, e.samples, e.call_id) for e in of(events, ThoughtScored)
    ] == [
        ("n1", 21.0, None, ("sure", "likely"), 2),
        ("n2", 1.001, None, ("likely", "impossible"), 3),
        ("n3", 0.002, None, ("impossible", "impossible"), 4),
        ("n4", 1.001, None, ("impossible", "likely"), 5),
        ("n5", 40.0, None, ("sure", "sure"), 8),
        ("n6", 1.0, None, ("likely", "?"), 9),
        ("n7", 0.002, None, ("impossible", "impossible"), 10),
        ("n8", 1.001, None, ("impossible", "likely"), 12),
    ]
    assert [(e.node_id, e.reason) for e in of(events, ThoughtPruned)] == [
        ("n4", "value 1.001 below the kept 1.001"),
        ("n3", "value 0.002 below the kept 1.001"),
        ("n7", "value 0.002 below the kept 1"),
    ]
    assert [(e.purpose, e.text, e.reason) for e in of(events, ParseFailed)] == [
        ("value", "nonsense", "no sure / likely / impossible")
    ]
    assert [(e.node_id, e.answer) for e in of(events, SolutionFound)] == [
        ("n8", "2 * 3 * 4"),
    ]
    assert ("n6", "one number left, not the target") in [
        (e.node_id, e.reason) for e in of(events, LeafReached)
    ]
    assert [(c.purpose, c.sampling) for c in model.calls] == [
        ("propose", Sampling(0.7, 1.0, 1, 1000)),
        *[("value", Sampling(0.7, 1.0, 2, 1000))] * 4,
        *[("propose", Sampling(0.7, 1.0, 1, 1000))] * 2,
        *[("value", Sampling(0.7, 1.0, 2, 1000))] * 3,
        ("answer", Sampling(0.7, 1.0, 1, 1000)),
        ("judge", Sampling(0.7, 1.0, 2, 1000)),
    ]
    assert fin.answer == "2 * 3 * 4" and fin.solved and fin.reason == "done"
    assert fin.calls == 12 and fin.rounds == 6


async def test_tot_judges_a_wrong_answer_a_leaf_and_checks_the_evaluators_arithmetic() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "propose":
            # The state reaches 24; the model's answer from it is wrong.
            return {"2 3 4": "2 * 3 = 6 (left: 4 6)", "4 6": "4 * 6 = 24 (left: 24)"}[
                numbers_of(call)
            ]
        if call.purpose == "value":
            return "4 * 5 = 20, 5 - 4 = 1\nimpossible"
        if call.purpose == "answer":
            return "Answer: (2 + 3) * 4 = 20"
        return "The answer is 20, not 24\nimpossible"

    weights = {"impossible": 0.12345}  # the config's weights, rounded to 3 places when shown
    fin, events = await solve(
        ToT(ToTConfig(breadth=1, value_samples=1, weights=weights)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(replies),
    )
    check_stream(events)
    assert [(e.node_id, e.score) for e in of(events, ThoughtScored)] == [
        ("n1", 0.123),
        ("n2", 0.123),
        ("n3", 0.123),
    ]
    # The value replies' trial arithmetic is checked and tied to the valued state.
    claims = [(c.node_id, c.expression, c.ok) for c in of(events, ClaimVerified)]
    assert ("n1", "4 * 5", True) in claims and ("n1", "5 - 4", True) in claims
    assert [(e.node_id, e.reason) for e in of(events, LeafReached)] == [("n3", fin.verdict)]
    assert "20" in fin.verdict and not of(events, SolutionFound)
    assert fin.answer == "(2 + 3) * 4" and not fin.solved


async def test_tot_value_prompt_names_the_target_and_the_numbers_left() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "propose":
            return "2 + 3 = 5 (left: 4 5)"
        return "likely"

    model = ScriptedModel(replies)
    await solve(ToT(ToTConfig(steps=1)), Game24Domain(Hand.parse("2 3 4", target=9)), model)
    (value,) = [c for c in model.calls if c.purpose == "value"]
    prompt = value.messages[-1].content
    assert "can reach 9 " in prompt and prompt.endswith("\n4 5\n")


async def test_tot_a_failed_value_call_ends_the_run_with_the_models_error() -> None:
    class Failing(ScriptedModel):
        async def generate(self, call: Call, on_token: Any = None) -> Any:
            if call.purpose == "value":
                self.calls.append(call)
                raise ModelError("rate_limited", "slow down")
            return await super().generate(call, on_token)

    # Two proposals leave the same numbers: both wait on one value call, which fails.
    model = Failing(["3 + 4 = 7 (left: 2 7)\n4 + 3 = 7 (left: 2 7)"])
    fin, events = await solve(ToT(), Game24Domain(Hand.parse("2 3 4")), model)
    assert [(e.kind, e.message) for e in of(events, ErrorRaised)] == [("rate_limited", "slow down")]
    assert fin.reason == "error" and fin.answer is None
    assert len([c for c in model.calls if c.purpose == "value"]) == 1


async def test_tot_breadth_zero_keeps_nothing() -> None:
    fin, events = await solve(
        ToT(ToTConfig(breadth=0, value_samples=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(["2 + 3 = 5 (left: 4 5)", "likely"]),
    )
    assert [e.reason for e in of(events, ThoughtPruned)] == ["value 1 below the kept 0"]
    assert fin.answer is None and fin.calls == 2


def test_tot_final_answer_skips_beams_without_a_readable_answer() -> None:
    domain = Game24Domain(Hand.parse("2 3 4"))
    state = domain.start()
    beams = [
        _Beam("a", state, ()),  # no answer
        _Beam("b", state, (), "2 * 3 +"),  # unreadable
        _Beam("c", state, (), "2 * 3"),  # misses a number
        _Beam("d", state, (), "(2 + 3) * 4"),  # every number: the answer
        _Beam("e", state, (), "2 * 3 * 4"),
    ]
    assert ToT()._final(domain, beams) == "(2 + 3) * 4"
    # No beam uses every number: the first with an answer.
    assert ToT()._final(domain, [beams[0], beams[2], beams[1]]) == "2 * 3"
    assert ToT()._final(domain, [beams[0]]) is None


async def test_tot_a_duplicate_candidate_scores_zero_without_a_call() -> None:
    domain = Game24Domain(Hand.parse("2 3 4"))
    events: list[Event] = []
    model = ScriptedModel(["sure"])
    ctx = RunContext(model, events.append)
    state = domain.start()
    after = state  # the state does not matter here, only the lines and the answer
    first = _Beam("n1", after, ("2 + 3 = 5 (left: 4 5)",))
    twin = _Beam("n2", after, ("2 + 3 = 5 (left: 4 5)",))
    other = _Beam("n3", after, ("2 + 3 = 5 (left: 4 5)",), "(2 + 3) * 4")
    third = _Beam("n4", after, ("2 + 3 = 5 (left: 4 5)",), "2 * 3 * 4")
    await ToT(ToTConfig(value_samples=1))._value_all(domain, ctx, [first, twin, other, third], {})
    scored = [(e.node_id, e.score, e.samples) for e in of(events, ThoughtScored)]
    assert ("n2", 0.0, ("duplicate",)) in scored
    assert twin.value == 0.0 and first.value == 20.0
    # Answers on equal lines are different candidates, each judged.
    assert other.value == third.value == 20.0
    assert len(model.calls) == 3
    assert [e.node_id for e in of(events, ThoughtScored)].count("n2") == 1


# ------------------------------------------------------------------ BoT


def bot_step(
    state: str, a: str, op: str, b: str, c: str, rest: str, after: str, score: float | None
) -> str:
    """One BoT step reply; without ``score``, no ``Evaluation score`` (0.5 is used)."""
    text = bot_text(state, a, op, b, c, rest, after, score or 0.0)
    return text if score is not None else text.rsplit(", Evaluation score", 1)[0]


# Hand 2 3 4 (depth 2), two trees of two children a node, grown layer by layer.
# Tree 1: 2 * 3 (0.9, edge 0.8), then 4 * 6 = 24 (0.7, 1.0) and 6 - 4 (no scores: 0.5, 0.5);
#         9 + 9 is invalid (a leaf with edge 0, no evaluation call).
# Tree 2: 2 + 3 (0.1, 0.2) is hopeless; 3 + 4 (0.3, 0.3) sits on the band's edge and grows;
#         its two replies are the same step (one child), 2 * 7 (0.8, 0.8) at the depth limit.
BOT_STEPS = {
    (1, "2 3 4"): [
        bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.9),
        bot_step("2 3 4", "9", "+", "9", "18", "2 3 4", "2 3 4 18", 0.9),
    ],
    (1, "4 6"): [
        bot_step("4 6", "4", "*", "6", "24", "none", "24", 0.7),
        bot_step("4 6", "6", "-", "4", "2", "none", "2", None),
    ],
    (2, "2 3 4"): [
        bot_step("2 3 4", "2", "+", "3", "5", "4", "4 5", 0.1),
        bot_step("2 3 4", "3", "+", "4", "7", "2", "2 7", 0.3),
    ],
    (2, "2 7"): [bot_step("2 7", "2", "*", "7", "14", "none", "14", 0.8)] * 2,
}
BOT_EDGES = {
    "2 * 3 = 6": "Evaluation score: 0.8",
    "4 * 6 = 24": "Evaluation score: 1.0",
    "6 - 4 = 2": "looks fine",
    "2 + 3 = 5": "Evaluation score: 0.2",
    "3 + 4 = 7": "Evaluation score: 0.3",
    "2 * 7 = 14": "Evaluation score: 0.8",
}


def bot_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "bot_step":
        return BOT_STEPS[(call.sample_offset // 2 + 1, numbers_of(call))]
    if call.purpose == "bot_evaluate":
        return BOT_EDGES[step_key(call.context["step"])]
    return FEEDBACK


async def test_bot_events_pin_trees_scores_leaves_and_the_experience() -> None:
    model = ScriptedModel(bot_replies)
    cfg = BoTConfig(
        iterations=1, trees=2, growth=("layer",), temperatures=(0.4, 1.1), top_ps=(0.3, 0.9)
    )
    fin, events = await solve(BoT(cfg), Game24Domain(Hand.parse("2 3 4")), model, seed=5)
    check_stream(events)
    assert [(e.iteration, e.total, e.label) for e in of(events, IterationStarted)] == [
        (1, 1, "iteration 1")
    ]
    trees = of(events, TreeStarted)
    assert [(t.tree_id, t.strategy) for t in trees] == [("i1.t1", "layer"), ("i1.t2", "layer")]
    assert all(t.temperature in cfg.temperatures and t.top_p in cfg.top_ps for t in trees)
    for call in model.calls:
        if call.purpose == "bot_step":  # each tree's own sampling, its own samples
            tree = trees[call.sample_offset // 2]
            assert call.sampling == Sampling(tree.temperature, tree.top_p, 2, 500)
        elif call.purpose == "bot_evaluate":
            assert call.sampling == Sampling(0.2, 0.2, 1, 500) and call.sample_offset == 0
        else:
            assert call.sampling == Sampling(0.3, 1.0, 1, 500)
    assert [(c.purpose, c.sample_offset) for c in model.calls if c.purpose == "bot_step"] == [
        ("bot_step", 0),
        ("bot_step", 2),
        ("bot_step", 0),
        ("bot_step", 2),
    ]
    invalid = "Current set: 2 3 4, Two numbers selected: 9 9, Operation: +, New number "
    assert [(a[0], a[1], a[2], a[3][:60], a[4], a[5], a[6]) for a in added(events)] == [
        ("i1.t1", "i1.t1.n1", None, "2 * 3 = 6 (left: 4 6)", 1, "4 6", 1),
        ("i1.t1", "i1.t1.n2", None, invalid[:60], 1, "", 1),
        ("i1.t2", "i1.t2.n3", None, "2 + 3 = 5 (left: 4 5)", 1, "4 5", 2),
        ("i1.t2", "i1.t2.n4", None, "3 + 4 = 7 (left: 2 7)", 1, "2 7", 2),
        ("i1.t1", "i1.t1.n5", "i1.t1.n1", "4 * 6 = 24 (left: 24)", 2, "24", 6),
        ("i1.t1", "i1.t1.n6", "i1.t1.n1", "6 - 4 = 2 (left: 2)", 2, "2", 6),
        ("i1.t2", "i1.t2.n7", "i1.t2.n4", "2 * 7 = 14 (left: 14)", 2, "14", 7),
    ]
    scored = of(events, ThoughtScored)
    assert [(e.node_id, e.score, e.edge_score, e.samples, e.call_id) for e in scored] == [
        ("i1.t1.n1", 0.9, 0.8, (), 3),
        ("i1.t1.n2", 0.9, 0.0, (), None),  # invalid: no evaluation call, edge 0
        ("i1.t2.n3", 0.1, 0.2, (), 4),
        ("i1.t2.n4", 0.3, 0.3, (), 5),
        ("i1.t1.n5", 0.7, 1.0, (), 8),
        ("i1.t1.n6", 0.5, 0.5, (), 9),
        ("i1.t2.n7", 0.8, 0.8, (), 10),
    ]
    assert [(e.node_id, e.reason) for e in of(events, LeafReached)] == [
        ("i1.t1.n2", "invalid step: 9 is not among 2 3 4"),
        ("i1.t2.n3", "hopeless (0.1, 0.2)"),
        ("i1.t1.n6", "depth limit"),
        ("i1.t2.n7", "depth limit"),
    ]
    assert [(e.node_id, e.answer) for e in of(events, SolutionFound)] == [
        ("i1.t1.n5", "4 * 2 * 3 = 24")
    ]
    assert [(e.purpose, e.reason) for e in of(events, ParseFailed)] == [
        ("bot_step", "no evaluation score; using 0.5"),
        ("bot_evaluate", "no evaluation score; using 0.5"),
    ]
    # The evaluation call sees the chain so far with its edge scores, and the step.
    evaluate = [c for c in model.calls if c.purpose == "bot_evaluate"]
    assert evaluate[3].context["step"] == "4 * 6 = 24 (left: 24)"
    assert "New set: 4 6, Evaluation score: 0.8" in evaluate[3].messages[-1].content
    assert "New number calculated: 24" in evaluate[3].messages[-1].content
    (agg,) = of(events, ChainAggregated)
    assert (agg.iteration, agg.strategy, agg.node_ids, agg.steps, agg.score) == (
        1,
        "best_first",
        ("i1.t1.n1", "i1.t1.n5"),
        ("2 * 3 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)"),
        3.4,
    )
    (feedback,) = [c for c in model.calls if c.purpose == "bot_feedback"]
    assert feedback.context["chain"] == list(agg.steps)
    assert feedback.context["valid"] == [True, True]
    assert feedback.context["numbers"] == ["24"]
    assert "Two numbers selected: 4 6, Operation: *" in feedback.messages[-1].content
    (exp,) = of(events, ExperienceAdded)
    assert exp == ExperienceAdded(
        1,
        agg.steps,
        "not yet.",
        ("try again", ""),
        0.3,
        "reaches 24 exactly",
        True,
        ("reject", ""),
        exp.entry,
        ("", ""),
        t=exp.t,
    )
    # The entry as the next prompts carry it (issue 9: the event holds the same text).
    assert exp.entry.startswith("1. Reasoning chain and comments\n---\nStep 1: Step 1, ")
    # The analysis exactly as the model wrote it.
    assert exp.entry.endswith("---\n" + FEEDBACK)
    assert fin.answer == "4 * 2 * 3 = 24" and fin.solved and fin.reason == "done"
    assert fin.calls == 11


async def test_bot_iterations_carry_every_entry_and_skip_an_iteration_without_chains() -> None:
    # Iteration 1: every step reply is unreadable (no chain, no analysis, no entry).
    # Iterations 2 and 3 find 2 * 3, 4 * 6; iteration 3's prompt carries iteration 2's entry.
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            if len(model.calls) == 1:  # the first call of all
                return "I am not sure what to do."
            return BOT_STEPS[(1, numbers_of(call))][0]
        if call.purpose == "bot_evaluate":
            return BOT_EDGES[step_key(call.context["step"])]
        return FIRST_FEEDBACK

    model = ScriptedModel(replies)
    fin, events = await solve(
        BoT(BoTConfig(iterations=3, trees=1, children=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    check_stream(events)
    assert [(e.iteration, e.total, e.label) for e in of(events, IterationStarted)] == [
        (1, 3, "iteration 1"),
        (2, 3, "iteration 2"),
        (3, 3, "iteration 3"),
    ]
    assert [t.tree_id for t in of(events, TreeStarted)] == ["i1.t1", "i2.t1", "i3.t1"]
    assert [(e.purpose, e.reason) for e in of(events, ParseFailed)] == [
        ("bot_step", "no step found")
    ]
    assert [e.iteration for e in of(events, ChainAggregated)] == [2, 3]
    assert [e.iteration for e in of(events, ExperienceAdded)] == [2, 3]
    steps = [c for c in model.calls if c.purpose == "bot_step" and not c.context["chain"]]
    assert len(steps) == 3
    entry = "2. Reasoning chain and comments\n---\nStep 1: Step 1, Current set: 2 3 4"
    assert "#####\n\n#####" in steps[1].messages[-1].content  # no experience yet
    assert entry in steps[2].messages[-1].content
    assert [len(c.context["experience"]) for c in steps] == [0, 0, 1]
    assert steps[2].context["experience"][0] == {
        "chain": ["2 * 3 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)"],
        "verdicts": ["recommend", "recommend"],
        "advice": list(ADVICE),
        "confidence": 0.9,
    }
    assert fin.answer == "4 * 2 * 3 = 24" and fin.solved


async def test_bot_entries_are_joined_by_a_hash_line() -> None:
    model = ScriptedModel(iterations_replies)
    await solve(
        BoT(BoTConfig(iterations=3, trees=1, children=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    roots = [c for c in model.calls if c.purpose == "bot_step" and not c.context["chain"]]
    prompt = roots[2].messages[-1].content
    first = prompt.index("1. Reasoning chain and comments")
    second = prompt.index("2. Reasoning chain and comments")
    assert first < second and prompt[second - 3 : second] == "\n#\n"
    assert prompt.count("\n#\n") == 1


@pytest.mark.parametrize(
    ("growth", "order"),
    [("leaf", ["2 3 4", "2 7", "4 5"]), ("layer", ["2 3 4", "4 5", "2 7"])],
)
async def test_bot_leaf_wise_growth_expands_the_best_node_of_the_deepest_layer_first(
    growth: str, order: list[str]
) -> None:
    # From the root: 2 + 3 (0.5, 0.5) then 3 + 4 (0.9, 0.9): the second is grown first, its
    # children at the depth limit, then the first.
    steps = {
        "2 3 4": [
            bot_step("2 3 4", "2", "+", "3", "5", "4", "4 5", 0.5),
            bot_step("2 3 4", "3", "+", "4", "7", "2", "2 7", 0.9),
        ],
        "2 7": [
            bot_step("2 7", "2", "*", "7", "14", "none", "14", 0.5),
            bot_step("2 7", "7", "-", "2", "5", "none", "5", 0.5),
        ],
        "4 5": [
            bot_step("4 5", "4", "*", "5", "20", "none", "20", 0.5),
            bot_step("4 5", "5", "-", "4", "1", "none", "1", 0.5),
        ],
    }
    edges = {"2 + 3 = 5": 0.5, "3 + 4 = 7": 0.9}

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return steps[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return f"Evaluation score: {edges.get(step_key(call.context['step']), 0.5)}"
        return FEEDBACK

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, growth=(growth,))),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert [t.strategy for t in of(events, TreeStarted)] == [growth]
    grown = [numbers_of(c) for c in model.calls if c.purpose == "bot_step"]
    assert grown == order
    assert len(of(events, ThoughtAdded)) == 6
    # Best chain: 3 + 4 (1.8) and either child (1.0): the first of the two.
    (agg,) = of(events, ChainAggregated)
    assert [step_key(s) for s in agg.steps] == ["3 + 4 = 7", "2 * 7 = 14"]
    assert agg.score == 2.8


@pytest.mark.parametrize("confident_leaf", [False, True])
async def test_bot_confident_leaves_only_when_asked_and_strictly_above_the_band(
    confident_leaf: bool,
) -> None:
    steps = {
        "2 3 4": [
            bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.9),  # 0.9, 0.9: confident
            bot_step("2 3 4", "3", "+", "4", "7", "2", "2 7", 0.8),  # 0.8, 0.9: on the edge
        ],
        "4 6": [bot_step("4 6", "6", "-", "4", "2", "none", "2", 0.5)],
        "2 7": [bot_step("2 7", "7", "-", "2", "5", "none", "5", 0.5)],
    }

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return steps[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.9"
        return FEEDBACK

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, growth=("layer",), confident_leaf=confident_leaf)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    leaves = [(e.node_id, e.reason) for e in of(events, LeafReached)]
    grown = sorted(numbers_of(c) for c in model.calls if c.purpose == "bot_step")
    if confident_leaf:
        assert ("i1.t1.n1", "confident (0.9, 0.9)") in leaves
        assert grown == ["2 3 4", "2 7"]
    else:
        assert all("confident" not in r for _, r in leaves)
        assert grown == ["2 3 4", "2 7", "4 6"]


def chain_node(tree: str, parent: Node | None, state: State, line: str, valid: bool = True) -> Node:
    depth = parent.depth + 1 if parent else 1
    return Node(f"{tree}.{depth}", parent, state, depth, line=line, valid=valid)


def test_bot_replays_a_chain_exactly_and_says_how_it_ends() -> None:
    domain = Game24Domain(Hand.parse("2 3 4"))
    start = domain.start()
    root = Node("root", None, start, 0)
    times = apply(start, Fraction(2), "*", Fraction(3))  # 4 6
    plus = apply(start, Fraction(2), "+", Fraction(3))  # 4 5
    a = chain_node("a", root, times, "2 * 3 = 6")
    win = chain_node("a", a, apply(times, Fraction(4), "*", Fraction(6)), "4 * 6 = 24")
    short = chain_node("a", a, apply(times, Fraction(6), "-", Fraction(4)), "6 - 4 = 2")
    b = chain_node("b", root, plus, "2 + 3 = 5")
    b_next = chain_node("b", b, apply(plus, Fraction(4), "*", Fraction(5)), "4 * 5 = 20")
    bot = BoT()
    state, verdict, ok = bot.check_chain(domain, [a, win])
    assert (verdict, ok) == ("reaches 24 exactly", True) and state is not None
    assert state.numbers == (Fraction(24),)
    assert bot.check_chain(domain, [a, short])[1:] == ("ends at 2, not 24", False)
    assert bot.check_chain(domain, [a])[1:] == ("stops with 4 6 left", False)
    # Stitched from two trees: 4 * 5 cannot follow 2 * 3.
    state, verdict, ok = bot.check_chain(domain, [a, b_next])
    assert state is None and not ok and verdict.startswith("step 2 does not follow: ")
    bad = chain_node("c", root, start, "9 + 9 = 18", valid=False)
    assert bot.check_chain(domain, [a, bad]) == (None, "step 2 is invalid", False)
    assert bot.check_chain(domain, [root]) == (None, "step 1 is empty", False)


def test_bot_greedy_stops_when_no_step_is_like_the_last_one() -> None:
    domain = Game24Domain(Hand.parse("2 3 4"))
    start = domain.start()
    root = Node("root", None, start, 0)
    s1 = apply(start, Fraction(2), "*", Fraction(3))
    s2 = apply(start, Fraction(3), "+", Fraction(4))
    a = Node("a1", root, s1, 1, line="2 * 3 = 6 (left: 4 6)", score=0.9, edge=0.9)
    a2 = Node("a2", a, apply(s1, Fraction(4), "*", Fraction(6)), 2, line="4 * 6 = 24 (left: 24)")
    b = Node("b1", root, s2, 1, line="3 + 4 = 7 (left: 2 7)", score=0.1, edge=0.1)
    b2 = Node("b2", b, apply(s2, Fraction(2), "*", Fraction(7)), 2, line="2 * 7 = 14 (left: 14)")
    bot = BoT(BoTConfig(aggregation="greedy"))
    assert [n.id for n in bot.greedy_chain(GREEDY_DOMAIN, [[b, b2], [a, a2]], 2)] == ["a1", "a2"]
    # Only steps more similar than the threshold continue: at 1.0 none is.
    strict = BoT(BoTConfig(aggregation="greedy", similar_above=1.0))
    assert [n.id for n in strict.greedy_chain(GREEDY_DOMAIN, [[b, b2], [a, a2]], 2)] == ["a1"]
    # One step deep: nothing to stitch.
    assert [n.id for n in bot.greedy_chain(GREEDY_DOMAIN, [[b, b2], [a, a2]], 1)] == ["a1"]
    # Of several continuations, the one with the best edge.
    a2_low = Node("a2low", a, a2.state, 2, line=a2.line, edge=0.1)
    a2_high = Node("a2high", a, a2.state, 2, line=a2.line, edge=0.7)
    chains = [[a, a2_low], [a, a2_high], [a, a2_low]]
    assert [n.id for n in bot.greedy_chain(GREEDY_DOMAIN, chains, 2)] == ["a1", "a2high"]


def test_similarity_counts_shared_numbers_and_operators() -> None:
    assert similarity("2 * 3 = 6 (left: 4 6)", "2 * 3 = 6 (left: 4 6)") == 1.0
    # 2 * 3 = 6 | 4 6  against  2 + 3 = 5 | 4 5: 2, 3, 4 shared of six tokens each.
    assert similarity("2 * 3 = 6 (left: 4 6)", "2 + 3 = 5 (left: 4 5)") == pytest.approx(3 / 6)
    assert similarity("", "2 * 3 = 6") == 0.0 and similarity("2 * 3 = 6", "no numbers") == 0.0
    # Sizes differ: divided by the larger.
    assert similarity("2 * 3 = 6 (left: 4 6)", "2 + 2 = 4 (left: 3 4 4)") == pytest.approx(3 / 7)
    assert similarity("2 + 2 = 4 (left: 3 4 4)", "2 * 3 = 6 (left: 4 6)") == pytest.approx(3 / 7)


async def test_cot_sc_a_sample_without_a_readable_answer_does_not_stop_its_batch() -> None:
    # Batches of three. 27 comes first twice; 24 three times, twice right after a sample that
    # gives no vote (unreadable, or no answer) in the same batch: every vote counts, 24 wins.
    right, wrong = "Answer: (7 - 8 / 8) * 4 = 24", "Answer: 4 + 7 + 8 + 8 = 27"
    samples = [wrong, "Answer: 4 * 8 - 7 - 8 +", right, wrong, "no idea", right, right]

    def replies(call: Call) -> Iterable[str]:
        return samples[call.sample_offset : call.sample_offset + call.sampling.n]

    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=7, batch=3)),
        Game24Domain(Hand.parse(HAND)),
        ScriptedModel(replies),
    )
    assert fin.answer == "(7 - 8 / 8) * 4" and fin.solved and fin.votes == 3


async def test_tot_shows_unreadable_proposals_and_answers_as_parse_failures() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "propose":
            return {
                "2 3 4": "2 * 3 = 6 (left: 4 6)\n9 * 9 = 81 (left: 2 3 4 81)",
                "4 6": "Let me think about this.",
                "2 3": "2 * 3 = 6 (left: 6)",
            }[numbers_of(call)]
        if call.purpose == "value":
            return "likely"
        return "I think it is 24."

    model = ScriptedModel(replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=1, value_samples=1, steps=3)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert [a[3:6] for a in added(events)] == [
        ("2 * 3 = 6 (left: 4 6)", 1, "4 6"),
        ("9 * 9 = 81 (left: 2 3 4 81)", 1, ""),  # not on the table: shown, no state, pruned
    ]
    assert [(e.node_id, e.reason[:13]) for e in of(events, ThoughtPruned)] == [
        ("n2", "invalid step:")
    ]
    assert [(e.purpose, e.text, e.reason) for e in of(events, ParseFailed)] == [
        ("propose", "Let me think about this.", "no step of the form 'a op b = c'")
    ]
    assert fin.answer is None
    # The answer step: the prompt carries the beam's steps; a reply without 'Answer:' fails.
    # (The target is 6, so the state 6 is asked for its answer.)
    model = ScriptedModel(replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=1, value_samples=1)),
        Game24Domain(Hand.parse("2 3", target=6)),
        model,
    )
    (answer,) = [c for c in model.calls if c.purpose == "answer"]
    assert "2 * 3 = 6 (left: 6)" in answer.messages[-1].content
    assert [(e.purpose, e.text, e.reason) for e in of(events, ParseFailed)] == [
        ("answer", "I think it is 24.", "no 'Answer:' line")
    ]
    assert fin.answer is None


async def test_tot_takes_no_answer_from_a_cut_reply() -> None:
    class CutAnswers(ScriptedModel):
        async def generate(self, call: Call, on_token: Any = None) -> Generation:
            gen = await super().generate(call, on_token)
            if call.purpose == "answer":
                return replace(gen, finish_reasons=("length",))
            return gen

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "propose":
            return "2 * 3 = 6 (left: 6)"
        if call.purpose == "value":
            return "sure"
        return "Answer: 2 * 3 = 6\n"  # a whole line, but the reply was cut after it

    model = CutAnswers(replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=1, value_samples=1)), Game24Domain(Hand.parse("2 3", target=6)), model
    )
    assert [c.purpose for c in model.calls] == ["propose", "value", "answer"]
    assert not of(events, ParseFailed) and len(of(events, ThoughtAdded)) == 1
    assert fin.answer is None


# ------------------------------------------------------------------ base: the run's accounting


class BilledModel:
    """Returns one reply per call with fixed usage and the cost, requests and finish reasons
    given per call in order."""

    name = "billed"

    def __init__(self, bills: Sequence[tuple[float | None, int, tuple[str, ...]]]) -> None:
        self.bills = list(bills)
        self.calls: list[Call] = []

    async def generate(self, call: Call, on_token: Any = None) -> Generation:
        self.calls.append(call)
        cost, requests, reasons = self.bills[len(self.calls) - 1]
        return Generation(
            ("first line\nsecond",),
            Usage(10 * len(self.calls), 3),
            latency=0.123456,
            cached=requests == 0,
            model=self.name,
            cost=cost,
            requests=requests,
            finish_reasons=reasons,
            notes=("note",),
        )

    async def aclose(self) -> None:
        return None


class Scripted:
    """A method that runs ``body`` with the context (to drive RunContext directly)."""

    name = "scripted-method"

    def __init__(self, body: Any, config: dict[str, Any] | None = None) -> None:
        self.body = body
        self.config = config or {}

    def config_dict(self) -> dict[str, Any]:
        return self.config

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        result: Outcome = await self.body(domain, ctx)
        return result


def a_call(purpose: str = "p", temperature: float = 0.6, top_p: float = 0.8) -> Call:
    return Call(
        cast(Purpose, purpose),
        (Message("user", f"ask {purpose}"),),
        Sampling(temperature, top_p, 1),
    )


async def test_every_call_is_counted_billed_and_reported() -> None:
    seen: list[tuple[str, int]] = []

    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        gen, call_id = await ctx.call(a_call("one"))
        seen.append((gen.text, call_id))
        pair = await ctx.gather(ctx.call(a_call("two")), ctx.call(a_call("three")))
        seen.extend((g.text, i) for g, i in pair)
        gen, call_id = await ctx.call(a_call("four"))  # fully cached: no request, no price
        seen.append((gen.text, call_id))
        return Outcome("2 * 3 * 4", "because")

    model = BilledModel(
        [(0.25, 1, ("stop",)), (0.5, 2, ("length",)), (0.125, 1, ()), (None, 0, ())]
    )
    method = Scripted(body, {"k": (1, 2)})
    fin, events = await solve(method, Game24Domain(Hand.parse("2 3 4")), model)
    (started,) = of(events, RunStarted)
    assert (started.method, started.puzzle, started.kind, started.model, started.config) == (
        "scripted-method",
        "2 3 4",
        "game24",
        "billed",
        {"k": [1, 2]},  # as JSON has it
    )
    called = of(events, ModelCalled)
    assert [
        (c.call_id, c.purpose, c.prompt, c.replies, c.temperature, c.top_p, c.cached, c.latency)
        for c in called
    ] == [
        (1, "one", "[user]\nask one", ("first line\nsecond",), 0.6, 0.8, False, 0.1235),
        (2, "two", "[user]\nask two", ("first line\nsecond",), 0.6, 0.8, False, 0.1235),
        (3, "three", "[user]\nask three", ("first line\nsecond",), 0.6, 0.8, False, 0.1235),
        (4, "four", "[user]\nask four", ("first line\nsecond",), 0.6, 0.8, True, 0.1235),
    ]
    assert [(c.finish_reasons, c.notes) for c in called] == [
        (("stop",), ("note",)),
        (("length",), ("note",)),
        ((), ("note",)),
        ((), ("note",)),
    ]
    # The cut reply comes back without its unfinished last line; the others whole.
    assert seen == [
        ("first line\nsecond", 1),
        ("first line\n", 2),
        ("first line\nsecond", 3),
        ("first line\nsecond", 4),
    ]
    used = [(u.calls, u.prompt_tokens, u.completion_tokens, u.cost) for u in of(events, TokensUsed)]
    assert used == [(1, 10, 3, 0.25), (3, 30, 6, 0.75), (4, 60, 9, 0.875), (4, 100, 12, 0.875)]
    assert (fin.calls, fin.prompt_tokens, fin.completion_tokens, fin.cost) == (4, 100, 12, 0.875)
    assert (fin.answer, fin.reason, fin.rounds) == ("2 * 3 * 4", "because", 3)
    assert fin.solved and fin.verdict == "uses 2 3 4 once each and equals 24"
    assert [e.t for e in events] == sorted(e.t for e in events) and events[-1].t > 0


async def test_an_unpriced_request_makes_the_cost_unknown_for_good() -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        await ctx.call(a_call())
        await ctx.call(a_call())
        await ctx.call(a_call())
        return Outcome(None)

    model = BilledModel([(0.25, 1, ()), (None, 1, ()), (0.5, 1, ())])
    fin, events = await solve(Scripted(body), Game24Domain(Hand.parse("2 3 4")), model)
    assert [u.cost for u in of(events, TokensUsed)] == [0.25, None, None]
    assert fin.cost is None and fin.calls == 3
    assert fin.answer is None and fin.verdict == "no answer" and fin.reason == "done"


async def test_a_context_made_without_options_records_prompts_and_does_not_stream() -> None:
    events: list[Event] = []

    class Streaming(BilledModel):
        async def generate(self, call: Call, on_token: Any = None) -> Generation:
            assert on_token is None  # nothing asked for the reply as it streams
            return await super().generate(call, on_token)

    ctx = RunContext(Streaming([(0.1, 1, ())]), events.append)
    await ctx.call(a_call())
    (called,) = of(events, ModelCalled)
    assert called.prompt == a_call().prompt and called.prompt


async def test_prompts_are_left_out_of_the_events_when_not_recorded() -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        await ctx.call(a_call())
        return Outcome(None)

    events = [
        e
        async for e in run_method(
            Scripted(body),
            Game24Domain(Hand.parse("2 3 4")),
            BilledModel([(0.1, 1, ())]),
            record_prompts=False,
        )
    ]
    (called,) = of(events, ModelCalled)
    assert called.prompt == "" and called.replies == ("first line\nsecond",)


async def test_a_failed_call_counts_makes_the_cost_unknown_and_ends_the_run() -> None:
    class Failing(BilledModel):
        async def generate(self, call: Call, on_token: Any = None) -> Generation:
            if self.calls:
                self.calls.append(call)
                raise ModelError("server", "HTTP 500")
            return await super().generate(call, on_token)

    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        await ctx.call(a_call())
        await ctx.call(a_call())
        return Outcome("2 * 3 * 4")

    fin, events = await solve(
        Scripted(body), Game24Domain(Hand.parse("2 3 4")), Failing([(0.25, 1, ())])
    )
    assert [(e.kind, e.message, e.fatal) for e in of(events, ErrorRaised)] == [
        ("server", "HTTP 500", True)
    ]
    assert (fin.calls, fin.cost, fin.reason, fin.answer, fin.rounds) == (2, None, "error", None, 1)
    assert fin.prompt_tokens == 10
    assert (fin.votes, fin.samples, fin.samples_solved) == (0, 0, 0)  # no vote, no samples


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (ValueError("boom"), "internal", "ValueError: boom"),
        (TimeoutError("not ours"), "internal", "TimeoutError: not ours"),
    ],
)
async def test_a_bug_in_a_method_ends_the_run_with_an_internal_error(
    error: Exception, kind: str, message: str
) -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        raise error

    fin, events = await solve(
        Scripted(body), Game24Domain(Hand.parse("2 3 4")), BilledModel([]), seed=1
    )
    assert [(e.kind, e.message, e.fatal) for e in of(events, ErrorRaised)] == [
        (kind, message, True)
    ]
    assert fin.reason == "error" and fin.answer is None
    assert (fin.votes, fin.samples, fin.samples_solved) == (0, 0, 0)


async def test_a_run_past_its_deadline_is_stopped_with_a_deadline_error() -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        await asyncio.sleep(5)
        return Outcome("2 * 3 * 4")

    events = [
        e
        async for e in run_method(
            Scripted(body), Game24Domain(Hand.parse("2 3 4")), BilledModel([]), deadline=0.05
        )
    ]
    assert [(e.kind, e.message, e.fatal) for e in of(events, ErrorRaised)] == [
        ("deadline", "The run passed its deadline of 0.05 seconds and was stopped.", True)
    ]
    fin = events[-1]
    assert isinstance(fin, RunFinished) and fin.reason == "deadline" and fin.answer is None


async def test_a_solution_verified_early_ends_the_run_with_its_answer() -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        raise StopRun("2 * 3 * 4")

    fin, _ = await solve(Scripted(body), Game24Domain(Hand.parse("2 3 4")), BilledModel([]))
    assert (fin.answer, fin.reason, fin.solved) == ("2 * 3 * 4", "solved early", True)


async def test_the_context_helpers() -> None:
    events: list[Event] = []
    ctx = RunContext(BilledModel([]), events.append, seed=3)
    assert [ctx.node_id(), ctx.node_id("t"), ctx.node_id()] == ["n1", "t2", "n3"]
    assert ctx.rng.random() == random.Random(3).random()
    ctx.parse_failed(Purpose.VALUE, "x" * 600, "why")
    assert ctx.parse_failures == 1
    (failed,) = of(events, ParseFailed)
    assert (failed.purpose, failed.text, failed.reason) == ("value", "x" * 500, "why")
    (claim,) = extract_claims("so 7 * 3 = 22")
    ctx.verified("n1", claim)
    (checked,) = of(events, ClaimVerified)
    assert (checked.node_id, checked.expression, checked.claimed, checked.exact) == (
        "n1",
        "7 * 3",
        "22",
        "21",
    )
    assert (checked.status, checked.ok, checked.reason) == ("wrong", False, "")
    (zero,) = extract_claims("then 4 / 0 = 1")
    ctx.verified(None, zero)
    checked = of(events, ClaimVerified)[-1]
    assert (checked.node_id, checked.exact, checked.status, checked.reason) == (
        None,
        None,
        "invalid",
        "division by zero",
    )
    assert ctx.calls == 0 and ctx.total_cost == 0.0 and ctx.rounds == 0
    assert await ctx.gather() == []


# ------------------------------------------------------------------ make_method


def test_make_method_reads_names_loosely_and_options_strictly() -> None:
    made = {name: type(make_method(name)) for name in METHODS}
    assert (
        made.items()
        >= {
            "io": IO,
            "cot": CoT,
            "cot-sc": CoTSC,
            "tot": ToT,
            "bot": BoT,
            "aiot": IoT,
            "giot": IoT,
        }.items()
    )
    for name in ("CoT_SC", "cotsc", "COT-SC", "cot_sc"):
        assert isinstance(make_method(name), CoTSC), name
    method = make_method("ToT", breadth=2, value_samples=None)
    assert isinstance(method, ToT) and method.config == ToTConfig(breadth=2)
    assert make_method("bot", trees=3, iterations=None).config == BoTConfig(trees=3)  # type: ignore[attr-defined]
    with pytest.raises(ValueError) as info:
        make_method("nosuch")
    assert str(info.value) == f"unknown method 'nosuch'; choose from {', '.join(METHODS)}"
    with pytest.raises(ValueError) as info:
        make_method("tot", breadth=0)
    assert str(info.value) == "breadth must be between 1 and 10000"
    with pytest.raises(ValueError) as info:
        make_method("bot", aggregation="random")
    assert str(info.value) == "aggregation must be one of best_first, greedy"
    with pytest.raises(ValueError) as info:
        make_method("tot", breadth=2, width=3, depth=None, height=1)
    assert str(info.value) == "tot has no option width, height"


async def test_bot_analysis_is_asked_of_a_checker_and_its_arithmetic_checked() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return BOT_STEPS[(1, numbers_of(call))][0]
        if call.purpose == "bot_evaluate":
            return BOT_EDGES[step_key(call.context["step"])]
        return "Well, 80 / 4 = 24 I suppose."  # no report, no advice, no confidence

    model = ScriptedModel(replies)
    fin, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    (feedback,) = [c for c in model.calls if c.purpose == "bot_feedback"]
    assert feedback.messages[0] == Message("system", g24p.FEEDBACK_SYSTEM)
    content = feedback.messages[-1].content
    assert "Remaining numbers: 4, New set: 4 6" in content
    assert "Remaining numbers: none, New set: 24" in content
    claims = [(c.node_id, c.expression, c.claimed, c.ok) for c in of(events, ClaimVerified)]
    assert claims[-1] == (None, "80 / 4", "24", False)
    assert [(e.purpose, e.text, e.reason) for e in of(events, ParseFailed)] == [
        ("bot_feedback", "Well, 80 / 4 = 24 I suppose.", "no analysis report or confidence")
    ]
    assert fin.solved


async def test_bot_without_any_chain_answers_nothing() -> None:
    fin, events = await solve(
        BoT(BoTConfig(iterations=2, trees=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(["no idea"]),
    )
    assert not of(events, ChainAggregated) and fin.answer is None and fin.calls == 2


@pytest.mark.parametrize(
    ("score", "edge", "leaf"),
    [
        (0.1, 0.2, "hopeless (0.1, 0.2)"),
        (0.1, 0.9, None),  # one score in the band or above: not hopeless
        (0.9, 0.1, None),
        (0.3, 0.1, None),  # the band's lower edge is in the band
        (0.1, 0.3, None),
        (0.9, 0.9, "confident (0.9, 0.9)"),
        (0.9, 0.8, None),  # the upper edge too
        (0.8, 0.9, None),
    ],
)
async def test_bot_leaf_band(score: float, edge: float, leaf: str | None) -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            if numbers_of(call) == "2 3 4":
                return bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", score)
            return bot_step("4 6", "6", "-", "4", "2", "none", "2", 0.5)
        if call.purpose == "bot_evaluate":
            first = step_key(call.context["step"]) == "2 * 3 = 6"
            return f"Evaluation score: {edge if first else 0.5}"
        return FEEDBACK

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, confident_leaf=True)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    reasons = {e.node_id: e.reason for e in of(events, LeafReached)}
    assert reasons.get("i1.t1.n1") == leaf
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == (1 if leaf else 2)


async def test_bot_a_single_number_left_is_a_leaf_whatever_the_depth() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return {
                "2 3 4": bot_step("2 3 4", "2", "+", "3", "5", "4", "4 5", 0.9),
                "4 5": bot_step("4 5", "4", "*", "5", "20", "none", "20", 0.9),
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.5"
        return FEEDBACK

    model = ScriptedModel(replies)
    fin, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, depth=5)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert [(e.node_id, e.reason) for e in of(events, LeafReached)] == [("i1.t1.n2", "depth limit")]
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == 2
    assert fin.answer == "4 * (2 + 3) = 20" and not fin.solved


def test_bot_greedy_stitches_every_step_of_a_longer_chain() -> None:
    domain = Game24Domain(Hand.parse("1 2 3 4"))
    start = domain.start()
    root = Node("root", None, start, 0)

    def step(parent: Node, name: str, a: int, op: str, b: int, edge: float) -> Node:
        state = apply(parent.state, Fraction(a), op, Fraction(b))
        line = f"{a} {op} {b} = {state.numbers[-1]} (left: {state.left()})"
        return Node(name, parent, state, parent.depth + 1, line=line, score=0.5, edge=edge)

    a1 = step(root, "a1", 1, "+", 2, 0.9)
    a2 = step(a1, "a2", 3, "+", 3, 0.5)
    a3 = step(a2, "a3", 6, "*", 4, 0.5)
    b1 = step(root, "b1", 1, "+", 2, 0.1)
    b2 = step(b1, "b2", 3, "+", 3, 0.5)  # like a2, same edge: the first found is kept
    b3 = step(b2, "b3", 6, "*", 4, 0.9)  # the best continuation of the second step
    bot = BoT(BoTConfig(aggregation="greedy"))
    assert [n.id for n in bot.greedy_chain(GREEDY_DOMAIN, [[a1, a2, a3], [b1, b2, b3]], 3)] == [
        "a1",
        "a2",
        "b3",
    ]


async def test_bot_depth_is_one_level_per_step_unless_set() -> None:
    async def chains_extended(config: BoTConfig, hand: str) -> list[int]:
        """How many steps long each chain was that a step call extended."""
        model = ScriptedModel(sum_and_product)
        await solve(BoT(config), Game24Domain(Hand.parse(hand)), model)
        steps = [c for c in model.calls if c.purpose == "bot_step"]
        return sorted({len(c.context["chain"]) for c in steps})

    one = BoTConfig(iterations=1, trees=1)
    assert await chains_extended(one, "2 3 4") == [0, 1]
    assert await chains_extended(one, "1 2 3 4 5") == [0, 1, 2, 3]
    assert await chains_extended(replace(one, depth=2), "1 2 3 4 5") == [0, 1]


@pytest.mark.parametrize("verify_steps", [True, False])
async def test_bot_a_step_with_wrong_arithmetic_is_an_invalid_leaf_when_verifying(
    verify_steps: bool,
) -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return {
                "2 3 4": bot_step("2 3 4", "2", "*", "3", "7", "4", "4 7", 0.9),
                "4 6": bot_step("4 6", "4", "*", "6", "24", "none", "24", 0.9),
                "4 7": bot_step("4 7", "4", "*", "7", "28", "none", "28", 0.9),
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.9"
        return FEEDBACK

    model = ScriptedModel(replies)
    fin, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, verify_steps=verify_steps)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    purposes = [c.purpose for c in model.calls]
    (exp,) = of(events, ExperienceAdded)
    if verify_steps:
        (leaf,) = of(events, LeafReached)
        assert leaf.node_id == "i1.t1.n1" and leaf.reason.startswith("invalid step: ")
        assert purposes == ["bot_step", "bot_feedback"]
        assert exp.verdict == "step 1 is invalid" and not exp.chain_ok
        assert fin.answer is None
    else:  # issue 9: the model's state goes on (4 7, as it wrote), never the exact 4 6
        assert purposes == ["bot_step", "bot_evaluate", "bot_step", "bot_evaluate", "bot_feedback"]
        assert not fin.solved and not exp.chain_ok


async def test_bot_step_calls_carry_the_system_prompt_and_the_chain_score_is_rounded() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.5)
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.12345"
        return FEEDBACK

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, depth=1)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    (step,) = [c for c in model.calls if c.purpose == "bot_step"]
    assert step.messages[0] == Message("system", g24p.BOT_SYSTEM)
    (agg,) = of(events, ChainAggregated)
    assert agg.score == 0.623


async def test_bot_takes_every_sample_after_an_unreadable_or_repeated_one() -> None:
    texts = [
        "no step here",
        bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.5),
        bot_step("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.5),
        bot_step("2 3 4", "3", "+", "4", "7", "2", "2 7", 0.5),
    ]

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return texts
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.5"
        return FEEDBACK

    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=4, depth=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(replies),
    )
    assert [step_key(e.text) for e in of(events, ThoughtAdded)] == ["2 * 3 = 6", "3 + 4 = 7"]


async def test_bot_reads_at_most_eight_steps_of_a_reply() -> None:
    # Nine steps that cannot be played here, then one that can: past the cap, the reply's
    # first step is the child (shown as invalid).
    unplayable = "\n".join(f"{n} + {n} = {2 * n} (left: {2 * n})" for n in range(10, 18))
    text = f"{unplayable}\n2 * 3 = 6 (left: 4 6)\nEvaluation score: 0.9"

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return text
        return FEEDBACK

    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, depth=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(replies),
    )
    (node,) = of(events, ThoughtAdded)
    assert node.text.startswith("10 + 10 = 20") and node.state == ""
    short = f"{unplayable.split(chr(10), 1)[1]}\n2 * 3 = 6 (left: 4 6)\nEvaluation score: 0.9"
    text = short  # seven unplayable steps: the eighth, playable, is taken
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, depth=1)),
        Game24Domain(Hand.parse("2 3 4")),
        ScriptedModel(replies),
    )
    (node,) = of(events, ThoughtAdded)
    assert node.text == "2 * 3 = 6 (left: 4 6)"


async def test_bot_leaf_wise_growth_follows_the_best_branch_and_stops_after_four_leaves() -> None:
    model = ScriptedModel(sum_and_product)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, growth=("leaf",))),
        Game24Domain(Hand.parse("1 1 1 1")),  # never 24: no early stop
        model,
    )
    # Issue 9: leaf-wise growth follows the best branch down and stops after 4 leaves (the
    # reference code's max_stops): 2 + 2 + 4 nodes from 4 step calls, not the whole tree.
    assert len(of(events, ThoughtAdded)) == 2 + 2 + 4
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == 1 + 1 + 2
    assert len(of(events, LeafReached)) + len(of(events, SolutionFound)) == 4


async def test_bot_leaf_wise_growth_counts_leaves_and_counts_a_barren_node_as_one_stop() -> None:
    # Three stops allowed: two calls down the best branch find no leaf, the third finds two
    # (2 stops, go on), the fourth two more (4 stops, done): a stop is a leaf, not a call.
    model = ScriptedModel(sum_and_product)
    await solve(
        BoT(BoTConfig(iterations=1, trees=1, growth=("leaf",), leaf_stops=3)),
        Game24Domain(Hand.parse("1 1 1 1")),
        model,
    )
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == 4

    def barren(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":  # three first steps; below them the model has nothing
            if numbers_of(call) == "1 1 1 1":
                return [
                    "1 + 1 = 2\nEvaluation score: 0.5",
                    "1 * 1 = 1\nEvaluation score: 0.5",
                    "1 - 1 = 0\nEvaluation score: 0.5",
                ]
            return "I cannot see a step from here."
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.5"
        return FEEDBACK

    # Two stops allowed: each node that gives no step is one stop, so the root and two of its
    # three children are asked, and the third child never is.
    model = ScriptedModel(barren)
    await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=3, growth=("leaf",), leaf_stops=2)),
        Game24Domain(Hand.parse("1 1 1 1")),
        model,
    )
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == 3


async def test_a_cut_reply_loses_only_its_own_unfinished_line() -> None:
    class TwoSamples(BilledModel):
        async def generate(self, call: Call, on_token: Any = None) -> Generation:
            self.calls.append(call)
            texts, reasons = self.bills[len(self.calls) - 1]  # type: ignore[misc]
            return Generation(texts, Usage(1, 1), finish_reasons=reasons)

    got: list[tuple[str, ...]] = []

    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        for _ in range(3):
            gen, _ = await ctx.call(a_call())
            got.append(gen.texts)
        return Outcome(None)

    bills: Any = [
        (("a\nb", "c\nd"), ("length", "stop")),
        (("\nhalf", "no newline"), ("length", "content_filter")),
        (("whole",), ("stop",)),
    ]
    await solve(Scripted(body), Game24Domain(Hand.parse("2 3 4")), TwoSamples(bills))
    assert got == [("a\n", "c\nd"), ("\n", ""), ("whole",)]


async def test_gather_waits_for_the_siblings_it_cancels_and_closes_unstarted_work() -> None:
    ctx = RunContext(ScriptedModel([]), lambda e: None)
    log: list[str] = []

    async def slow() -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            await asyncio.sleep(0)
            log.append("cancelled")
            raise

    async def fail() -> None:
        await asyncio.sleep(0)
        raise ValueError("x")

    with pytest.raises(ValueError):
        await ctx.gather(slow(), fail())
    assert log == ["cancelled"]  # the sibling was stopped and finished before gather raised

    work = [slow(), slow()]
    outer = asyncio.ensure_future(ctx.gather(*work))
    await asyncio.sleep(0)  # gather has made its tasks; none has started
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert [inspect.getcoroutinestate(w) for w in work] == ["CORO_CLOSED", "CORO_CLOSED"]


async def test_a_cancel_while_gather_winds_its_siblings_down_still_reports_the_failure() -> None:
    ctx = RunContext(ScriptedModel([]), lambda e: None)
    release = asyncio.Event()
    winding_down = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            winding_down.set()
            await release.wait()  # slow to wind down: gather is still waiting for it
            raise

    async def fail() -> None:
        await asyncio.sleep(0)
        raise ValueError("the model failed")

    outer = asyncio.ensure_future(ctx.gather(stubborn(), fail()))
    await winding_down.wait()  # fail() has failed; gather waits for stubborn() to stop
    outer.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(ValueError, match="the model failed"):
        await outer


def test_parse_failures_are_counted_and_a_stop_carries_its_answer() -> None:
    ctx = RunContext(ScriptedModel([]), lambda e: None)
    ctx.parse_failed(Purpose.IO, "x", "y")
    ctx.parse_failed(Purpose.IO, "x", "y")
    assert ctx.parse_failures == 2
    stop = StopRun("2 * 3 * 4")
    assert stop.answer == "2 * 3 * 4" and str(stop) == "2 * 3 * 4"


async def test_a_run_whose_task_is_cancelled_still_reports_it_stopped() -> None:
    # Ctrl-C in the CLI cancels every task but the consumer: the finish still reaches it.
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        await asyncio.sleep(5)
        return Outcome(None)

    events: list[Event] = []

    async def consume() -> None:
        async for event in run_method(
            Scripted(body), Game24Domain(Hand.parse("2 3 4")), BilledModel([])
        ):
            events.append(event)

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(0.01)
    for task in asyncio.all_tasks():
        if task is not consumer and task is not asyncio.current_task():
            task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    fin = events[-1]
    assert isinstance(fin, RunFinished) and fin.reason == "stopped" and fin.answer is None
    assert (fin.votes, fin.samples, fin.samples_solved) == (0, 0, 0)  # no vote, no samples


class CheckFails(Game24Domain):
    """A domain whose check has a bug: it raises on every answer."""

    def check(self, answer: str | None) -> Any:
        raise ValueError("the check broke")


async def test_a_check_that_raises_ends_the_run_with_an_internal_error() -> None:
    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        return Outcome("2 * 3 * 4")

    domain = CheckFails(Hand.parse("2 3 4"))
    fin, events = await asyncio.wait_for(solve(Scripted(body), domain, BilledModel([])), 5)
    assert [(e.kind, e.message) for e in of(events, ErrorRaised)] == [
        ("internal", "ValueError: the check broke")
    ]
    assert fin.answer == "2 * 3 * 4" and not fin.solved
    assert fin.verdict == "the answer could not be checked (ValueError)"


async def test_a_bug_that_escapes_the_run_is_raised_to_the_consumer_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import solver.methods.base as base

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("finish broke")

    monkeypatch.setattr(base, "_finish", broken)

    async def body(domain: Game24Domain, ctx: RunContext) -> Outcome:
        return Outcome("2 * 3 * 4")

    async def consume() -> None:
        async for _event in run_method(
            Scripted(body), Game24Domain(Hand.parse("2 3 4")), BilledModel([])
        ):
            pass

    with pytest.raises(RuntimeError, match="finish broke"):
        await asyncio.wait_for(consume(), timeout=5)


# -- CoT-SC's context, a run with no answer, a shared value ----------------------------------------


async def test_cot_sc_calls_carry_the_puzzles_context() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    model = ScriptedModel(["Answer: (7 - 8 / 8) * 4 = 24"])
    await solve(CoTSC(CoTSCConfig(samples=3, batch=2)), domain, model)
    assert [c.context for c in model.calls] == [domain.context(domain.start())] * 2


async def test_cot_sc_without_a_readable_answer_still_reports_its_samples() -> None:
    model = ScriptedModel(["I could not find one.", "Answer: 4 * 8 - 7 - 8 +"])
    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=4, batch=4)), Game24Domain(Hand.parse("4 7 8 8")), model
    )
    assert fin.answer is None and not fin.solved
    assert (fin.samples, fin.samples_solved, fin.votes) == (4, 0, 0)


def _two_ways_to_four_four(call: Call) -> str:
    """From 2 2 4, two proposals leave the same numbers (4 4); everything else is valued."""
    if call.purpose == "propose":
        return "2 + 2 = 4 (left: 4 4)\n2 * 2 = 4 (left: 4 4)"
    return "sure"


async def test_a_shared_value_names_no_call_of_its_own() -> None:
    _, events = await solve(
        ToT(ToTConfig(breadth=2, steps=1, value_samples=1)),
        Game24Domain(Hand.parse("2 2 4")),
        ScriptedModel(_two_ways_to_four_four),
    )
    scored = [e for e in events if isinstance(e, ThoughtScored)]
    assert len(scored) == 2 and scored[0].score == scored[1].score
    # One value call for the two states: the first names it, the one that shared it none.
    assert isinstance(scored[0].call_id, int) and scored[1].call_id is None
