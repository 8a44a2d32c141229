"""ReAct pinned event by event and call by call: what each step asks (role, sampling, the stop
sequences that keep a model from inventing observations, the step in the context, the budget in
the prompt) and what it reports (each action with its thought, call and notes; each
observation; each claim under its step; how the episode ended)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from solver.events import (
    ClaimVerified,
    EpisodeEnded,
    Event,
    IterationStarted,
    ParseFailed,
    ToolCalled,
    ToolObserved,
)
from solver.methods import solve
from solver.methods.react import ReAct, ReActConfig
from solver.model import Sampling, ScriptedModel
from tests.solver.test_react import DOMAIN

PINNED = (IterationStarted, ToolCalled, ToolObserved, EpisodeEnded, ParseFailed, ClaimVerified)
NO_ACTION = (
    "no action found: end your reply with one action, one of calculate[...], solve[...], "
    "finish[...]"
)


def run(model: ScriptedModel, **config: Any) -> tuple[Any, list[Event]]:
    return asyncio.run(solve(ReAct(ReActConfig(**config)), DOMAIN, model))


def pinned(events: list[Event]) -> list[tuple[Any, ...]]:
    out = []
    for e in events:
        if isinstance(e, PINNED):
            values = dataclasses.asdict(e)
            values.pop("t")
            values.pop("elapsed", None)
            if isinstance(e, ClaimVerified):
                values = {k: values[k] for k in ("node_id", "expression", "ok")}
            out.append((type(e).__name__, *values.values()))
    return out


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
    assert "(none)" in second and NO_ACTION in second


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
