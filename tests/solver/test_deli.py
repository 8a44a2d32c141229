"""DELI: the tool stage (equations solved by sympy) and the prose stage in turns, each stop
reason, the answer at the cap, unsolvable systems, and runs over real HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from bench.fakeserver import FakeServer
from puzzles.wordproblem import problem_by_id
from solver.domains.wordproblem import WordProblemDomain
from solver.events import DeliberationEnded, DeliberationStage, RunFinished, ToolObserved
from solver.methods import make_method, solve
from solver.methods.deli import DELI, DELIConfig
from solver.model import Call, ScriptedModel
from solver.model.openai import OpenAIModel

DOMAIN = WordProblemDomain(problem_by_id("bulk_saving/691459251"))  # answer 3
INIT = "Singly: 30 * 11 = 330\nPacks: 3 * 109 = 317\nSaving: 330 - 317 = 13\nAnswer: 13"
SOLVE = " As equations.\nAction 1: solve[a = 30 * 11, b = 3 * 109, c = a - b; a, b, c]"
REVISED = "Singly: 30 * 11 = 330\nPacks: 3 * 109 = 327\nSaving: 330 - 327 = 3\nAnswer: 3"


def by_purpose(**replies: list[str]) -> ScriptedModel:
    queues = {k: list(v) for k, v in replies.items()}

    def reply(call: Call) -> str:
        queue = queues[call.purpose]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedModel(reply)


def run(model: Any, **config: Any) -> tuple[RunFinished, list[Any]]:
    return asyncio.run(solve(DELI(DELIConfig(**config)), DOMAIN, model))


def of(events: list[Any], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_the_tool_stage_corrects_the_arithmetic_and_the_stages_agree() -> None:
    model = by_purpose(
        deli_init=[INIT], deli_tool=[SOLVE, "Final Answer: 3"], deli_revise=[REVISED]
    )
    fin, events = run(model)
    assert fin.solved and fin.answer == "3" and fin.reason == "answers agree"
    assert of(events, ToolObserved)[0].observation == "a = 330, b = 327, c = 3"
    stages = [(s.turn, s.stage, s.answer, s.ok) for s in of(events, DeliberationStage)]
    assert stages == [
        (0, "language", "13", False),
        (1, "tool", "3", True),
        (1, "language", "3", True),
    ]
    assert of(events, DeliberationEnded)[0].by == "agree"
    tool_prompt = next(c for c in model.calls if c.purpose == "deli_tool")
    assert (
        "Trial: " in tool_prompt.messages[-1].content and "\nOutput 1:" in tool_prompt.sampling.stop
    )


def test_at_the_cap_the_answer_is_the_last_tool_stages() -> None:
    model = by_purpose(
        deli_init=[INIT],
        deli_tool=[SOLVE, "Final Answer: 3"],
        deli_revise=["Saving: 13\nAnswer: 13", "Still\nAnswer: 14", "Again\nAnswer: 15"],
    )
    fin, events = run(model, turns=3)
    assert fin.reason == "turn cap" and fin.answer == "3" and fin.solved
    ended = of(events, DeliberationEnded)[0]
    assert (ended.by, ended.turn, ended.source) == ("cap", 3, "tool")


def test_an_unchanged_deliberation_has_converged() -> None:
    model = by_purpose(
        deli_init=["Answer: 13"], deli_tool=["Final Answer: 12"], deli_revise=["Answer: 13"]
    )
    fin, events = run(model, turns=3)
    assert fin.reason == "converged" and of(events, DeliberationEnded)[0].turn == 2


def test_an_unsolvable_system_is_an_observation_and_the_run_goes_on() -> None:
    model = by_purpose(
        deli_init=[INIT],
        deli_tool=[" try\nAction 1: solve[x + y = 1, x + y = 2; x, y]", "Final Answer: 13"],
        deli_revise=["Answer: 13"],
    )
    fin, events = run(model, turns=1)
    (observed,) = of(events, ToolObserved)
    assert observed.status == "error" and "no solution" in observed.observation
    assert fin.reason == "answers agree" and not fin.solved


def test_deli_over_http() -> None:
    def reply(request: dict[str, Any], index: int) -> str:
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"]
        if system.startswith("You check a solution"):
            return "Final Answer: 3" if "Output 1:" in user.split("Now the task.")[-1] else SOLVE
        if system.startswith("You revise"):
            return REVISED
        return INIT

    with FakeServer(reply=reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        fin, _ = asyncio.run(solve(make_method("deli"), DOMAIN, model))
        asyncio.run(model.aclose())
    assert fin.solved and fin.reason == "answers agree" and fin.calls == 4
