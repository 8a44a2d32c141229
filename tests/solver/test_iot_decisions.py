"""IoT's run pinned event by event and call by call: what each turn asks (role, JSON mode,
sampling, the transcript so far, the turn in the context), what it reports (the guidance or its
fallback, the stop flag, the exact check, whether the answer changed, the call it came from),
and how each dialogue ends; so that a change to any of these is seen."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from puzzles.game24 import Hand
from solver.domains.dialogue import IOT_FIRST_PROMPT
from solver.domains.game24 import Game24Domain
from solver.events import (
    ClaimVerified,
    DialogueStopped,
    Event,
    IterationStarted,
    ParseFailed,
    TurnAnswered,
    TurnGuided,
)
from solver.methods import solve
from solver.methods.iot import AIoTConfig, GIoTConfig, IoT
from solver.model import Sampling, ScriptedModel
from tests.solver.test_iot import RIGHT, WRONG, answer, dialogue, guide

HAND = Hand.parse("4 7 8 8")
OWN_FINAL = "the answerer said its own answer is final (its iteration_stop)"
PINNED = (IterationStarted, TurnGuided, TurnAnswered, DialogueStopped, ParseFailed)


def run(method: IoT, model: ScriptedModel) -> tuple[Any, list[Event]]:
    return asyncio.run(solve(method, Game24Domain(HAND), model))


def pinned(events: list[Event]) -> list[tuple[Any, ...]]:
    """The events that tell the dialogue, as plain tuples without their times."""
    out = []
    for e in events:
        if isinstance(e, PINNED):
            values = dataclasses.asdict(e)
            values.pop("t")
            if isinstance(e, TurnAnswered):
                values.pop("prompt_tokens")  # grows with the transcript: pinned elsewhere
            if isinstance(e, ParseFailed):
                values = {"purpose": values["purpose"], "reason": values["reason"]}
            out.append((type(e).__name__, *values.values()))
    return out


def test_an_aiot_dialogue_the_guide_opens_event_by_event() -> None:
    model = ScriptedModel(
        dialogue(
            [guide(""), guide("Use 8 / 8 = 1.", stop=False)],
            [answer(WRONG), "no json here", answer(RIGHT, final=True, doubt="a little")],
        )
    )
    fin, events = run(IoT(AIoTConfig(iterations=5, temperature=0.3, iot_start="guide")), model)
    fallback = "Try again, and check every step."
    reply = f"I tried {WRONG}."
    assert pinned(events) == [
        ("IterationStarted", 1, 5, "turn 1"),
        ("ParseFailed", "iot_guide", "no JSON object with guidance and stop"),  # empty: none
        ("TurnGuided", 1, 5, fallback, False, "discuss", 1),
        ("TurnAnswered", 1, reply, WRONG, False, "", False, "equals 67, not 24", True, 2),
        ("IterationStarted", 2, 5, "turn 2"),
        ("TurnGuided", 2, 5, "Use 8 / 8 = 1.", False, "discuss", 3),
        ("ParseFailed", "iot_answer", "no JSON object with an answer"),
        ("TurnAnswered", 2, "no json here", None, False, "", False, "no answer", True, 4),
        ("IterationStarted", 3, 5, "turn 3"),
        ("TurnGuided", 3, 5, "Use 8 / 8 = 1.", False, "discuss", 5),
        ("TurnAnswered", 3, f"I tried {RIGHT}.", RIGHT, True, "a little", True,
         "uses 4 7 8 8 once each and equals 24", True, 6),
        ("DialogueStopped", 3, "answerer", OWN_FINAL),
    ]  # fmt: skip
    assert fin.answer == RIGHT and fin.solved
    # The guide's arithmetic is checked too: 8 / 8 = 1 from turn 2's and 3's guidance.
    guided = [c for c in events if isinstance(c, ClaimVerified) and c.expression == "8 / 8"]
    assert len(guided) == 2 and all(c.ok for c in guided)
    # Every call: its role, JSON mode, the method's sampling, the turn in its context.
    sampling = Sampling(0.3, 1.0, 1, 1000)
    assert [(c.purpose, c.json, c.sampling, c.context["turn"]) for c in model.calls] == [
        (purpose, True, sampling, turn)
        for turn in (1, 2, 3)
        for purpose in ("iot_guide", "iot_answer")
    ]
    # A turn's prompt carries the dialogue so far: turn 3's guide sees both earlier replies and
    # the guidance it gave (its fallback included); its answerer also sees this turn's guidance.
    third_guide = model.calls[4].messages[-1].content
    assert fallback in third_guide and reply in third_guide and "no json here" in third_guide
    third_answer = model.calls[5].messages[-1].content
    assert reply in third_answer and "no json here" in third_answer
    # Each answerer is given its own turn's guidance (turn 1's: the fallback), free to conclude.
    assert fallback in model.calls[1].messages[-1].content
    assert not any("Do not give a final answer yet" in c.messages[-1].content for c in model.calls)


def test_an_aiot_dialogue_the_answerer_opens_event_by_event() -> None:
    # The paper's order (Algorithm 1): r_0 unguided, then the guide reacts to it; the guide's
    # stop flag is shown and ends nothing; the answerer's own final does.
    model = ScriptedModel(
        dialogue(
            [guide("Looks right.", stop=True), guide("Use 8 / 8 = 1.")],
            [answer(WRONG), answer(WRONG), answer(RIGHT, final=True)],
        )
    )
    fin, events = run(IoT(AIoTConfig(iterations=5, paper=True)), model)
    wrong = (f"I tried {WRONG}.", WRONG, False, "", False, "equals 67, not 24")
    assert pinned(events) == [
        ("IterationStarted", 1, 6, "first answer, unguided"),
        ("TurnGuided", 1, 6, IOT_FIRST_PROMPT, False, "first", None),
        ("TurnAnswered", 1, *wrong, True, 1),
        ("IterationStarted", 2, 6, "turn 2"),
        ("TurnGuided", 2, 6, "Looks right.", True, "discuss", 2),
        ("TurnAnswered", 2, *wrong, False, 3),
        ("IterationStarted", 3, 6, "turn 3"),
        ("TurnGuided", 3, 6, "Use 8 / 8 = 1.", False, "discuss", 4),
        ("TurnAnswered", 3, f"I tried {RIGHT}.", RIGHT, True, "", True,
         "uses 4 7 8 8 once each and equals 24", True, 5),
        ("DialogueStopped", 3, "answerer", OWN_FINAL),
    ]  # fmt: skip
    assert fin.answer == RIGHT and fin.solved
    assert [(c.purpose, c.context["turn"]) for c in model.calls] == [
        ("iot_answer", 1),
        ("iot_guide", 2),
        ("iot_answer", 2),
        ("iot_guide", 3),
        ("iot_answer", 3),
    ]
    # The guide is told the turn in the answerer's count.
    assert "This is turn 2 of at most 6" in model.calls[1].messages[-1].content


def test_an_answer_carries_over_a_turn_without_one_and_the_cap_says_so() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(RIGHT), answer(None)]))
    fin, events = run(IoT(AIoTConfig(iterations=1)), model)
    cap = ("DialogueStopped", 2, "cap", "the cap of 1 guided turn was reached")
    assert pinned(events)[-1] == cap
    # Turn 2 gave no answer, so it is no change and the run keeps turn 1's.
    assert [(t.answer, t.changed) for t in events if isinstance(t, TurnAnswered)] == [
        (RIGHT, True),
        (None, True),
    ]
    assert fin.answer == RIGHT and fin.solved


def test_a_giot_dialogue_the_guide_opens_event_by_event() -> None:
    model = ScriptedModel(
        dialogue([guide("Go on.", stop=True)], [answer(WRONG, final=True), answer(RIGHT)])
    )
    fin, events = run(IoT(GIoTConfig(turns=3, temperature=0.5, iot_start="guide")), model)
    closing = "This is the last turn: give your definitive answer from the whole discussion."
    wrong = ("equals 67, not 24",)
    right = ("uses 4 7 8 8 once each and equals 24",)
    assert pinned(events) == [
        ("IterationStarted", 1, 3, "turn 1"),
        ("TurnGuided", 1, 3, "Go on.", True, "discuss", 1),
        ("TurnAnswered", 1, f"I tried {WRONG}.", WRONG, True, "", False, *wrong, True, 2),
        ("IterationStarted", 2, 3, "turn 2"),
        ("TurnGuided", 2, 3, "Go on.", True, "discuss", 3),
        ("TurnAnswered", 2, f"I tried {RIGHT}.", RIGHT, False, "", True, *right, True, 4),
        ("IterationStarted", 3, 3, "turn 3, final answer"),
        ("TurnGuided", 3, 3, closing, False, "final", None),
        ("TurnAnswered", 3, f"I tried {RIGHT}.", RIGHT, False, "", True, *right, False, 5),
        ("DialogueStopped", 3, "fixed", "3 answers: 2 forced turns, then the final answer"),
    ]  # fmt: skip
    assert fin.answer == RIGHT and fin.solved
    sampling = Sampling(0.5, 1.0, 1, 1000)
    assert [(c.purpose, c.json, c.sampling, c.context["turn"]) for c in model.calls] == [
        ("iot_guide", True, sampling, 1),
        ("iot_answer", True, sampling, 1),
        ("iot_guide", True, sampling, 2),
        ("iot_answer", True, sampling, 2),
        ("iot_answer", True, sampling, 3),
    ]
    assert closing in model.calls[-1].messages[-1].content


def test_a_giot_dialogue_the_answerer_opens_event_by_event() -> None:
    model = ScriptedModel(dialogue([guide("Go on.")], [answer(WRONG), answer(RIGHT)]))
    fin, events = run(IoT(GIoTConfig(turns=2, paper=True)), model)
    right = ("uses 4 7 8 8 once each and equals 24",)
    assert pinned(events) == [
        ("IterationStarted", 1, 2, "first answer, unguided"),
        ("TurnGuided", 1, 2, IOT_FIRST_PROMPT, False, "first", None),
        ("TurnAnswered", 1, f"I tried {WRONG}.", WRONG, False, "", False, "equals 67, not 24",
         True, 1),
        ("IterationStarted", 2, 2, "turn 2, final answer"),
        ("TurnGuided", 2, 2, "Go on.", False, "discuss", 2),
        ("TurnAnswered", 2, f"I tried {RIGHT}.", RIGHT, False, "", True, *right, True, 3),
        ("DialogueStopped", 2, "fixed", "2 answers: 1 forced turn, then the final answer"),
    ]  # fmt: skip
    assert fin.answer == RIGHT and fin.solved
    asked = [c.messages[-1].content for c in model.calls]
    assert "Do not give a final answer yet" in asked[0] and IOT_FIRST_PROMPT in asked[0]
    assert "definitive final answer now" in asked[2] and "Your guide now says: Go on." in asked[2]


def test_giots_closing_answer_replaces_the_discussions() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(WRONG), answer(RIGHT)]))
    fin, _ = run(IoT(GIoTConfig(turns=2)), model)
    assert fin.answer == RIGHT and fin.solved


def test_giot_keeps_the_last_answer_when_the_closing_reply_has_none() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(RIGHT), answer(None)]))
    fin, _ = run(IoT(GIoTConfig(turns=2)), model)
    assert fin.answer == RIGHT and fin.solved


class CutFirstAnswer(ScriptedModel):
    """Reports the answerer's first reply as cut off at the token limit, however whole it looks."""

    answers = 0

    async def generate(self, call: Any, on_token: Any = None) -> Any:
        gen = await super().generate(call, on_token)
        if call.purpose == "iot_answer":
            self.answers += 1
            if self.answers == 1:
                return dataclasses.replace(gen, finish_reasons=("length",))
        return gen


def test_a_cut_off_answer_keeps_its_words_but_gives_no_answer_and_ends_nothing() -> None:
    # The cut reply's finished first line reads as a whole, final, right answer (its
    # unfinished last line is dropped); it must count for none of that.
    whole_line = answer(RIGHT, final=True, doubt="some") + "\nThen I would che"
    model = CutFirstAnswer(dialogue([guide()], [whole_line, answer(WRONG)]))
    fin, events = run(IoT(AIoTConfig(iterations=1)), model)
    answered = [p for p in pinned(events) if p[0] == "TurnAnswered"]
    assert answered[0] == (
        "TurnAnswered", 1, f"I tried {RIGHT}.", None, False, "some", False, "no answer", False, 1
    )  # fmt: skip
    assert not any(isinstance(e, ParseFailed) for e in events)  # cut, not unreadable
    # Turn 2 happened (the cut final did not end the dialogue) and its answer is the run's.
    assert answered[1][1:4] == (2, f"I tried {WRONG}.", WRONG)
    cap = ("DialogueStopped", 2, "cap", "the cap of 1 guided turn was reached")
    assert pinned(events)[-1] == cap
    assert fin.answer == WRONG and not fin.solved
