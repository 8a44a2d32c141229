"""ReAct: Thought / Action / Observation with hard stops, observations only from code, the
finish action, the step cap, invalid actions, chat models breaking the format, and runs over
real HTTP.

ReAct pinned event by event and call by call: what each step asks (role, sampling, the stop
sequences that keep a model from inventing observations, the step in the context, the budget in
the prompt) and what it reports (each action with its thought, call and notes; each
observation; each claim under its step; how the episode ended).
"""

from __future__ import annotations

import asyncio
from typing import Any

from bench.fakeserver import FakeServer
from puzzles.wordproblem import problem_by_id
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    ClaimVerified,
    EpisodeEnded,
    Event,
    IterationStarted,
    ParseFailed,
    RunFinished,
    ToolCalled,
    ToolObserved,
)
from solver.methods import make_method, solve
from solver.methods.react import ReAct, ReActConfig, run_tool
from solver.model import Sampling, ScriptedModel
from solver.model.openai import OpenAIModel
from solver.tools import parse_action
from tests.solver.pinning import Recording, with_recorded_calculator
from tests.solver.pinning import pinned as pinned_as_tuples

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


# -- each run pinned event by event and call by call -----------------------------------------------

PINNED = (IterationStarted, ToolCalled, ToolObserved, EpisodeEnded, ParseFailed, ClaimVerified)
NO_ACTION = (
    "no action found: end your reply with one action, one of calculate[...], solve[...], "
    "finish[...]"
)


def pinned(events: list[Event]) -> list[tuple[Any, ...]]:
    return pinned_as_tuples(events, PINNED)


def test_a_react_episode_event_by_event_and_call_by_call() -> None:
    model = ScriptedModel(
        [
            " Singly: 30 * 11 = 330.\nAction 1: calculate[30 * 11 - 3 * 109]",
            " I am not sure what to do.",
            " Saving 3.\nAction 3: finish[$3]",
        ]
    )
    fin, events = run(model, steps=4, temperature=0.2, max_tokens=300)
    assert pinned(events) == [
        ("IterationStarted", 1, 4, "step 1"),
        ("ClaimVerified", "react1", "30 * 11", True),
        ("ToolCalled", 1, "calculate", "30 * 11 - 3 * 109", "Singly: 30 * 11 = 330.", 1, ()),
        ("ToolObserved", 1, "calculate", "3", "ok", "3"),
        ("IterationStarted", 2, 4, "step 2"),
        ("ParseFailed", "react_act", " I am not sure what to do.", NO_ACTION),
        ("ToolCalled", 2, "", "", "I am not sure what to do.", 2, ()),
        ("ToolObserved", 2, "", NO_ACTION, "invalid", None),
        ("IterationStarted", 3, 4, "step 3"),
        ("ToolCalled", 3, "finish", "$3", "Saving 3.", 3, ()),
        ("ToolObserved", 3, "finish", "Episode finished.", "ok", "$3"),
        ("EpisodeEnded", 3, "finish", "finish[$3]: correct (read as 3)"),
    ]  # fmt: skip
    assert fin.answer == "$3" and fin.solved and fin.reason == "finish"
    for i, call in enumerate(model.calls, 1):
        assert call.purpose == "react_act"
        stops = (f"\nObservation {i}:", "\nObservation:", f"\nThought {i + 1}:")
        assert call.sampling == Sampling(0.2, 1.0, 1, 300, stop=stops)
        assert call.context == DOMAIN.context(DOMAIN.start(), step=i)
        assert "4" in call.messages[0].content + call.messages[-1].content  # the budget


def test_a_cut_reply_is_noted_and_its_unfinished_last_line_is_not_an_action() -> None:
    model = ScriptedModel([" Saving 3.\nAction 1: finish[$3]"], finish_reason="length")
    fin, events = run(model, steps=1)
    (called,) = [e for e in events if isinstance(e, ToolCalled)]
    assert called.tool == "" and called.thought == "Saving 3."
    assert called.notes == ("the reply was cut off; only its finished lines were read",)
    assert fin.answer is None and fin.reason == "step cap"


def test_the_step_budget_reaches_the_prompt() -> None:
    prompts = []
    for steps in (3, 7):
        model = ScriptedModel([" Saving 3.\nAction 1: finish[$3]"])
        run(model, steps=steps)
        prompts.append(model.calls[0].messages)
    assert prompts[0] != prompts[1]


def test_invalid_actions_in_a_row_end_the_episode_and_each_shows_in_the_next_prompt() -> None:
    model = ScriptedModel([" I am not sure what to do."])
    fin, events = run(model, steps=10, invalid_limit=2)
    assert pinned(events)[-1] == ("EpisodeEnded", 2, "invalid", "2 invalid actions in a row")
    assert fin.answer is None and fin.reason == "invalid actions" and fin.calls == 2
    # Step 1 wrote no action: the next prompt says so, with what went wrong.
    second = model.calls[1].messages[-1].content
    assert "\nAction 1: (none)\n" in second and NO_ACTION in second


def test_a_valid_action_resets_the_invalid_count_and_observations_are_timed() -> None:
    model = ScriptedModel(
        [
            " Hmm.",
            " Singly: 30 * 11 = 330.\nAction 2: calculate[30 * 11 - 3 * 109]",
            " Hmm.",
            " Saving 3.\nAction 4: finish[$3]",
        ]
    )
    fin, events = run(model, steps=6, invalid_limit=2)
    assert fin.reason == "finish" and fin.solved  # invalid, valid, invalid: never two in a row
    (tool,) = [e for e in events if isinstance(e, ToolObserved) and e.tool == "calculate"]
    assert isinstance(tool.elapsed, float) and tool.elapsed >= 0


def recording_domain() -> tuple[Any, Recording]:
    return with_recorded_calculator(WordProblemDomain(DOMAIN.problem))


def test_each_tool_call_runs_under_the_configured_limit_and_reports_its_own_time() -> None:
    domain, calc = recording_domain()
    model = ScriptedModel([" Work it out.\nAction 1: calculate[30 * 11 - 3 * 109]"])
    fin, events = asyncio.run(solve(ReAct(ReActConfig(steps=2, tool_limit=1.5)), domain, model))
    assert calc.limits == [1.5, 1.5]
    observed = [e for e in events if isinstance(e, ToolObserved)]
    assert [(e.tool, e.value, e.elapsed) for e in observed] == [("calculate", "3", 0.125)] * 2
    # No finish within the budget: the cap ends the episode at its last step.
    assert pinned(events)[-1] == ("EpisodeEnded", 2, "cap", "no finish within 2 steps")
    assert fin.answer is None and fin.reason == "step cap"


def test_run_tool_passes_its_limit_and_knows_only_the_domains_tools() -> None:
    domain, calc = recording_domain()
    result = asyncio.run(run_tool(domain, "calculate", "2 + 2", 2.5))
    assert result is not None and result.value == "4" and calc.limits == [2.5]
    assert asyncio.run(run_tool(domain, "search", "anything", 2.5)) is None
    assert calc.limits == [2.5]


def test_a_finish_without_a_readable_answer_ends_the_episode_with_an_empty_finish() -> None:
    model = ScriptedModel([" I give up.\nAction 1: finish[]"])
    fin, events = run(model, steps=3)
    (ended,) = [e for e in events if isinstance(e, EpisodeEnded)]
    assert (ended.step, ended.by, ended.reason) == (1, "finish", "finish[]: no answer")
    assert fin.answer is None and fin.reason == "finish" and not fin.solved
