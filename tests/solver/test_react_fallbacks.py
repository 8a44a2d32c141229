"""ReAct -> CoT-SC and CoT-SC -> ReAct, decision by decision: ReAct's step budget spent without
an answer hands over to CoT-SC's n samples at temperature 0.7; a CoT-SC majority with fewer
than n/2 votes hands over to ReAct, and one with n/2 or more stands; each decision is reported,
taken or not, with CoT-SC's count."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from puzzles.wordproblem import WordProblem
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    EpisodeEnded,
    Event,
    FallbackDecided,
    ModelCalled,
    RunFinished,
    VotesCounted,
)
from solver.kinds import KINDS
from solver.methods import make_method, methods_for, solve
from solver.methods.react_cotsc import FallbackConfig
from solver.model import Call, ScriptedModel

DOMAIN = WordProblemDomain(
    WordProblem("Ann has 3 pens and buys 4. How many pens does she have?", Fraction(7))
)
COMPUTE = " I add them.\nAction 1: calculate[3 + 4]"
FINISH = " She has 7.\nAction 1: finish[7]"


def model(react: str, cot: Callable[[int], str]) -> ScriptedModel:
    """ReAct's every reply is ``react``; CoT sample i (over all calls) is ``cot(i)``."""

    def reply(call: Call) -> list[str]:
        if call.purpose == "react_act":
            return [react]
        return [cot(call.sample_offset + i) for i in range(call.sampling.n)]

    return ScriptedModel(reply)


def run(name: str, scripted: ScriptedModel, **options: Any) -> tuple[RunFinished, list[Event]]:
    return asyncio.run(solve(make_method(name, **options), DOMAIN, scripted))


def purposes(scripted: ScriptedModel) -> list[str]:
    return [c.purpose for c in scripted.calls]


def cot_samples(scripted: ScriptedModel) -> int:
    return sum(c.sampling.n for c in scripted.calls if c.purpose == "cot")


def test_both_are_offered_only_where_both_parts_can_run() -> None:
    for kind, spec in KINDS.items():
        names = {s.name for s in methods_for(spec.roles)}
        both = {"react", "cot-sc"} <= names
        assert ({"react-cotsc", "cotsc-react"} <= names) == both, kind
        assert bool(names & {"react-cotsc", "cotsc-react"}) == both, kind


def test_react_without_an_answer_in_its_steps_falls_back_to_cot_sc() -> None:
    cfg = FallbackConfig()
    scripted = model(COMPUTE, lambda i: "3 + 4 = 7\nAnswer: 7" if i % 3 else "Answer: 8")
    fin, events = run("react-cotsc", scripted)
    assert purposes(scripted)[: cfg.steps] == ["react_act"] * cfg.steps
    assert set(purposes(scripted)[cfg.steps :]) == {"cot"}
    assert cot_samples(scripted) == cfg.samples
    assert {c.sampling.temperature for c in scripted.calls if c.purpose == "cot"} == {0.7}
    assert {c.sampling.temperature for c in scripted.calls if c.purpose != "cot"} == {0.0}
    kinds = [type(e) for e in events if isinstance(e, EpisodeEnded | FallbackDecided)]
    assert kinds == [EpisodeEnded, FallbackDecided]
    (ended,) = [e for e in events if isinstance(e, EpisodeEnded)]
    (decided,) = [e for e in events if isinstance(e, FallbackDecided)]
    assert ended.by == "cap"
    assert (decided.source, decided.target, decided.taken) == ("react", "cot-sc", True)
    assert f"within {cfg.steps} steps" in decided.reason
    first_cot = next(
        i for i, e in enumerate(events) if isinstance(e, ModelCalled) and e.purpose == "cot"
    )
    assert events.index(decided) < first_cot
    (counted,) = [e for e in events if isinstance(e, VotesCounted)]
    sevens = sum(1 for i in range(cfg.samples) if i % 3)
    assert counted.answers == ("7", "8") and counted.counts == (sevens, cfg.samples - sevens)
    assert fin.answer == "7" and fin.solved and fin.votes == sevens


def test_react_with_an_answer_keeps_it_and_draws_no_sample() -> None:
    scripted = model(FINISH, lambda i: "Answer: 8")
    fin, events = run("react-cotsc", scripted)
    assert purposes(scripted) == ["react_act"]
    (decided,) = [e for e in events if isinstance(e, FallbackDecided)]
    assert not decided.taken and not [e for e in events if isinstance(e, VotesCounted)]
    assert fin.answer == "7" and fin.solved


def test_invalid_actions_end_react_early_except_in_paper_mode() -> None:
    steps = FallbackConfig().steps
    for paper, calls in ((False, 3), (True, steps)):
        scripted = model(" I am not sure.", lambda i: "Answer: 7")
        fin, events = run("react-cotsc", scripted, paper=paper)
        assert purposes(scripted).count("react_act") == calls
        (decided,) = [e for e in events if isinstance(e, FallbackDecided)]
        assert decided.taken and fin.answer == "7"


@pytest.mark.parametrize(
    ("samples", "majority", "taken"),
    [(21, 10, True), (21, 11, False), (4, 1, True), (4, 2, False), (5, 2, True), (5, 3, False)],
)
def test_cot_sc_falls_back_to_react_when_the_majority_has_fewer_than_half(
    samples: int, majority: int, taken: bool
) -> None:
    # ``majority`` samples say 8 (wrong); the rest say different numbers, one each.
    scripted = model(FINISH, lambda i: "Answer: 8" if i < majority else f"Answer: {100 + i}")
    fin, events = run("cotsc-react", scripted, samples=samples)
    (counted,) = [e for e in events if isinstance(e, VotesCounted)]
    assert counted.answers[0] == "8" and counted.counts[0] == majority
    assert sum(counted.counts) == samples
    (decided,) = [e for e in events if isinstance(e, FallbackDecided)]
    assert (decided.source, decided.target, decided.taken) == ("cot-sc", "react", taken)
    assert f"{majority} of {samples}" in decided.reason
    assert ("react_act" in purposes(scripted)) == taken
    assert fin.answer == ("7" if taken else "8")


def test_cot_sc_with_no_answer_at_all_falls_back() -> None:
    scripted = model(FINISH, lambda i: "I cannot tell.")
    fin, events = run("cotsc-react", scripted)
    (counted,) = [e for e in events if isinstance(e, VotesCounted)]
    assert counted.answers == () and counted.unanswered == FallbackConfig().samples
    (decided,) = [e for e in events if isinstance(e, FallbackDecided)]
    assert decided.taken and fin.answer == "7"


def test_cot_sc_draws_the_papers_samples_at_its_temperature() -> None:
    scripted = model(FINISH, lambda i: "Answer: 7")
    fin, _events = run("cotsc-react", scripted)
    assert cot_samples(scripted) == FallbackConfig().samples
    assert {c.sampling.temperature for c in scripted.calls} == {0.7}
    assert fin.votes == FallbackConfig().samples and fin.solved


def test_react_in_a_combination_prompts_as_react_does() -> None:
    # The same worked trajectories: ReAct's own prompt under the same options.
    for paper in (False, True):
        alone = model(FINISH, lambda i: "")
        run("react", alone, paper=paper)
        combined = model(FINISH, lambda i: "")
        run("react-cotsc", combined, paper=paper)
        assert combined.calls[0].messages == alone.calls[0].messages
