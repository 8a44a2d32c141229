"""One vocabulary of what a call is for: every call a method sends names a :class:`Purpose`,
every prompt a domain builds is asked for by a :class:`Role`, and both are the plain strings
traces, results files and recordings have always held."""

from __future__ import annotations

import json
from typing import Any

import pytest

from solver.events import ModelCalled, event_from_json, event_to_json
from solver.kinds import KINDS
from solver.methods import make_method, methods_for, solve
from solver.model import Call, Generation, Model, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role

# The names written into every trace and recording so far: a renamed member would leave
# every file written before it unreadable by name.
TRACED_PURPOSES = {
    "io", "cot", "answer", "propose", "value", "judge", "clue_value", "bot_step",
    "bot_evaluate", "bot_feedback", "bot_condense", "bot_similar", "bot_final", "iot_guide",
    "iot_answer", "react_act", "deli_init", "deli_tool", "deli_revise", "check",
}  # fmt: skip
ROLE_NAMES = {
    "io", "cot", "propose", "value", "judge", "clue_value", "step", "evaluate", "analyze",
    "condense", "similar", "examples", "final", "guide", "respond", "act", "formalize",
    "revise",
}  # fmt: skip


def test_purposes_and_roles_are_the_names_files_have_always_held() -> None:
    assert {p.value for p in Purpose} == TRACED_PURPOSES
    assert {r.value for r in Role} == ROLE_NAMES
    assert Purpose("bot_step") is Purpose.BOT_STEP and str(Purpose.BOT_STEP) == "bot_step"
    assert {"bot_step": 1}[Purpose.BOT_STEP] == 1  # a recording's table keyed by the name
    assert json.dumps({"purpose": Purpose.BOT_STEP}) == '{"purpose": "bot_step"}'
    assert f"{Purpose.IOT_ANSWER} / {Role.RESPOND}" == "iot_answer / respond"


def test_each_purpose_asks_for_the_role_whose_prompt_it_sends() -> None:
    assert Purpose.BOT_FEEDBACK.role is Role.ANALYZE
    assert Purpose.ANSWER.role is Purpose.DELI_INIT.role is Role.COT
    assert Purpose.IOT_ANSWER.role is Role.RESPOND
    assert Purpose.DELI_TOOL.role is Role.FORMALIZE
    for purpose in Purpose:
        assert isinstance(purpose.role, Role)


def test_a_kind_s_roles_and_a_method_s_roles_are_roles() -> None:
    for kind in KINDS.values():
        assert kind.roles and all(isinstance(r, Role) for r in kind.roles)
        for spec in methods_for(kind.roles):
            assert spec.roles and all(isinstance(r, Role) for r in spec.roles)


def test_an_old_trace_line_reads_back_the_same() -> None:
    # A line as traces wrote it before the vocabulary was typed: plain strings.
    line = (
        '{"type": "ModelCalled", "t": 0.5, "call_id": 3, "purpose": "bot_step", "prompt": "", '
        '"replies": ["Step 1: 4 * 6 = 24"], "temperature": 0.7, "top_p": 1.0, "cached": false, '
        '"latency": 0.0, "finish_reasons": [], "notes": []}'
    )
    event = event_from_json(json.loads(line))
    assert isinstance(event, ModelCalled) and event.purpose == Purpose.BOT_STEP
    assert json.dumps(event_to_json(event)) == line


class _Calls:
    """The offline engine, keeping every call it is sent."""

    def __init__(self) -> None:
        self.inner = OfflineModel(seed=2)
        self.name = self.inner.name
        self.calls: list[Call] = []

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.calls.append(call)
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        return None


SMALL: dict[str, dict[str, Any]] = {"bot": {"iterations": 1, "trees": 2}}


@pytest.mark.parametrize("kind", list(KINDS))
async def test_every_call_a_method_sends_names_its_purpose(kind: str) -> None:
    spec = KINDS[kind]
    puzzle = spec.generate(1) if spec.generate is not None else None
    assert puzzle is not None
    for method in methods_for(spec.roles):
        model = _Calls()
        engine: Model = model
        _, events = await solve(
            make_method(method.name, **SMALL.get(method.name, {})),
            spec.make_domain(puzzle),
            engine,
            seed=1,
        )
        assert model.calls, method.name
        assert all(type(c.purpose) is Purpose for c in model.calls), method.name
        # The trace's call events name the same purposes, as their plain strings.
        called = [e for e in events if isinstance(e, ModelCalled)]
        written = [json.dumps(event_to_json(e)) for e in called]
        assert [json.loads(w)["purpose"] for w in written] == [c.purpose for c in model.calls]
        assert all(
            f'"purpose": "{c.purpose.value}"' in w
            for c, w in zip(model.calls, written, strict=True)
        )
