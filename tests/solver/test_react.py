"""ReAct: Thought / Action / Observation with hard stops, observations only from code, the
finish action, the step cap, invalid actions, chat models breaking the format, and runs over
real HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from bench.fakeserver import FakeServer
from puzzles.wordproblem import problem_by_id
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    ClaimVerified,
    EpisodeEnded,
    ParseFailed,
    RunFinished,
    ToolCalled,
    ToolObserved,
)
from solver.methods import make_method, solve
from solver.methods.react import ReAct, ReActConfig
from solver.model import ScriptedModel
from solver.model.openai import OpenAIModel
from solver.tools import parse_action

DOMAIN = WordProblemDomain(problem_by_id("bulk_saving/691459251"))  # answer 3
NAMES = ["calculate", "solve", "finish"]


def run(model: Any, **config: Any) -> tuple[RunFinished, list[Any]]:
    return asyncio.run(solve(ReAct(ReActConfig(**config)), DOMAIN, model))


def of(events: list[Any], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_a_tool_then_finish_solves_and_observations_come_from_the_tool() -> None:
    model = ScriptedModel(
        [
            " Buying singly costs 30 * 11 = 330.\nAction 1: calculate[30 * 11 - 3 * 109]",
            " So the saving is 3.\nAction 2: finish[$3]",
        ]
    )
    fin, events = run(model)
    assert fin.solved and fin.answer == "$3" and fin.reason == "finish" and fin.calls == 2
    (observed, _done) = of(events, ToolObserved)
    assert (observed.tool, observed.observation, observed.status) == ("calculate", "3", "ok")
    assert of(events, EpisodeEnded)[0].by == "finish"
    assert any(c.expression == "30 * 11" for c in of(events, ClaimVerified))
    stops = model.calls[0].sampling.stop
    assert "\nObservation 1:" in stops
    second = model.calls[1].messages[-1].content
    assert "Observation 1: 3" in second and second.endswith("Thought 2:")


def test_an_invented_observation_is_dropped_and_the_tool_answers_instead() -> None:
    model = ScriptedModel(
        [
            " I compute.\nAction 1: calculate[30 * 11]\nObservation 1: 999\nAction 2: finish[999]",
            "Thought 2: done\nAction 2:\n\nFinish[3]",
        ]
    )
    fin, events = run(model)
    calls = of(events, ToolCalled)
    assert "observation" in " ".join(calls[0].notes)
    assert of(events, ToolObserved)[0].observation == "330"
    assert fin.solved and calls[1].tool == "finish"  # capitalised, on the next line


def test_repeated_invalid_actions_end_the_episode_with_that_reason() -> None:
    model = ScriptedModel(["I think hard.\nAction 1: search[kites]"])
    fin, events = run(model, invalid_limit=3)
    assert fin.reason == "invalid actions" and fin.calls == 3 and not fin.solved
    observed = of(events, ToolObserved)
    assert all(o.status == "invalid" and "invalid action" in o.observation for o in observed)
    assert of(events, EpisodeEnded)[0].by == "invalid"
    assert len(of(events, ParseFailed)) == 3


def test_a_model_that_never_finishes_stops_at_the_step_cap() -> None:
    model = ScriptedModel([" more\nAction 1: calculate[1 + 1]"])
    fin, events = run(model, steps=4)
    assert fin.reason == "step cap" and fin.calls == 4 and fin.answer is None
    ended = of(events, EpisodeEnded)[0]
    assert ended.by == "cap" and "4 steps" in ended.reason
    assert "repeats the action of step 1" in of(events, ToolCalled)[1].notes


def test_hostile_actions_get_clear_observations_and_nothing_hangs() -> None:
    model = ScriptedModel(
        [
            " big\nAction 1: calculate[2^99999999]",
            " solve it\nAction 2: solve[x^12 + y^12 = 1, x^11 - y^7 = 2; x, y]",
            " done\nAction 3: finish[" + "9" * 10_000 + "]",
        ]
    )
    fin, events = run(model, tool_limit=0.5)
    statuses = [(o.tool, o.status) for o in of(events, ToolObserved)]
    assert statuses[:2] == [("calculate", "error"), ("solve", "timeout")]
    assert not fin.solved and "too long" in fin.verdict


def test_the_action_parser_forgives_what_chat_models_do() -> None:
    a = parse_action("**Thought:** compute\n**Action:** `calculate(12 * 5)`", NAMES)
    assert (a.name, a.argument) == ("calculate", "12 * 5")
    a = parse_action("I will finish now: finish[18 dollars]", NAMES)
    assert (a.name, a.argument) == ("finish", "18 dollars") and a.notes
    a = parse_action("Action 1: calculate[1 + 2\n", NAMES)
    assert not a.valid and "closing" in a.problem
    a = parse_action("", NAMES)
    assert not a.valid and a.problem


def test_react_over_http() -> None:
    replies = iter([" compute\nAction 1: calculate[30 * 11 - 327]", " done\nAction 2: finish[3]"])

    def reply(request: dict[str, Any], index: int) -> str:
        return next(replies)

    with FakeServer(reply=reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        fin, events = asyncio.run(solve(make_method("react"), DOMAIN, model))
        asyncio.run(model.aclose())
        sent = server.chat_requests[0].json
    assert fin.solved and fin.calls == 2
    assert "\nObservation 1:" in sent["stop"]
    assert of(events, ToolObserved)[0].observation == "3"
