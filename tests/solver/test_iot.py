"""Iteration of Thought: who speaks first, each stop reason (only the answerer's own flag
ends AIoT), GIoT's N answers, the exact check beside the model's claim, the transcript in every
call, tolerant parsing, the offline players reading only the prompt, and JSON mode over real
HTTP.

IoT's run pinned event by event and call by call: what each turn asks (role, JSON mode,
sampling, the transcript so far, the turn in the context), what it reports (the guidance or its
fallback, the stop flag, the exact check, whether the answer changed, the call it came from),
and how each dialogue ends; so that a change to any of these is seen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import pytest

from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver.domains.dialogue import IOT_FIRST_PROMPT
from solver.domains.game24 import Game24Domain, parse_guidance, parse_reply
from solver.events import (
    ClaimVerified,
    DialogueStopped,
    Event,
    IterationStarted,
    ParseFailed,
    RunFinished,
    RunStarted,
    TurnAnswered,
    TurnGuided,
)
from solver.methods import make_method, solve
from solver.methods.iot import AIoTConfig, GIoTConfig, IoT
from solver.model import Call, Generation, Message, Model, Sampling, ScriptedModel, TokenCallback
from solver.model.markers import G24_IOT_ANSWER
from solver.model.offline import OfflineModel, critics
from solver.model.openai import OpenAIModel
from solver.roles import Purpose, Role
from tests.solver.game24_replies import RIGHT, WRONG, answer, dialogue, guide

HAND = Hand.parse("4 7 8 8")


def run(method: Any, model: Model, **kw: Any) -> tuple[RunFinished, list[Event]]:
    return asyncio.run(solve(method, Game24Domain(HAND), model, **kw))


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_aiot_stops_when_the_answerer_says_final() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(WRONG), answer(RIGHT, final=True)]))
    fin, events = run(IoT(AIoTConfig(iterations=10)), model)
    (stop,) = of(events, DialogueStopped)
    assert (stop.turn, stop.by) == (2, "answerer")
    assert [c.purpose for c in model.calls] == ["iot_answer", "iot_guide", "iot_answer"]
    assert fin.calls == 3 and fin.answer == RIGHT and fin.solved


@pytest.mark.parametrize(
    "config", [AIoTConfig(paper=True), GIoTConfig(paper=True), AIoTConfig(), GIoTConfig()]
)
def test_iot_opens_with_the_answerers_own_unguided_answer(config: AIoTConfig | GIoTConfig) -> None:
    # The paper's Algorithm 1, line 1: r_0 = L(q, initial prompt), before the guide speaks.
    # Under --paper, and the everyday default (auto) too.
    model = ScriptedModel(dialogue([guide()], [answer(WRONG), answer(RIGHT)]))
    _, events = run(IoT(config), model)
    first = model.calls[0]
    assert first.purpose == "iot_answer"
    prompt = first.messages[-1].content
    assert IOT_FIRST_PROMPT in prompt and "Your guide now says" not in prompt
    assert "(nothing yet" in prompt  # no guide's words, no earlier turn
    opening = of(events, TurnGuided)[0]
    assert (opening.turn, opening.phase, opening.call_id) == (1, "first", None)
    # The guide's first prompt answers that reply: it is in the guide's transcript.
    assert model.calls[1].purpose == "iot_guide"
    assert f"I tried {WRONG}." in model.calls[1].messages[-1].content


def test_a_puzzle_answered_at_once_costs_aiot_one_call() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(RIGHT, final=True)]))
    fin, events = run(IoT(AIoTConfig(paper=True)), model)
    assert fin.calls == 1 and fin.solved
    assert [(s.turn, s.by) for s in of(events, DialogueStopped)] == [(1, "answerer")]


@pytest.mark.parametrize("name", ["aiot", "giot"])
def test_the_guide_can_speak_first_as_in_the_reference_code(name: str) -> None:
    model = ScriptedModel(dialogue([guide("Start with 8 / 8.")], [answer(WRONG)]))
    run(make_method(name, iot_start="guide", paper=True), model)  # explicit beats --paper
    assert model.calls[0].purpose == "iot_guide"
    assert "Your guide now says: Start with 8 / 8." in model.calls[1].messages[-1].content


@pytest.mark.parametrize("start", ["answer", "guide"])
def test_only_the_answerers_own_flag_stops_aiot(start: str) -> None:
    # The guide calls the answer final every turn (even a right one): its flag judges the reply
    # before the new one, so it is advice; the dialogue goes on to the cap.
    model = ScriptedModel(dialogue([guide("Looks right.", stop=True)], [answer(RIGHT)]))
    fin, events = run(IoT(AIoTConfig(iterations=3, iot_start=start)), model)
    answers = 4 if start == "answer" else 3  # Algorithm 1: r_0, then at most T guided turns
    assert [g.stop for g in of(events, TurnGuided) if g.phase == "discuss"] == [True] * 3
    (stop,) = of(events, DialogueStopped)
    assert (stop.turn, stop.by) == (answers, "cap")
    assert fin.calls == answers + 3 and len(of(events, TurnAnswered)) == answers
    # The answerer's flag about the answer it has just given ends it, at once.
    model = ScriptedModel(
        dialogue([guide("Wrong.", stop=False)], [answer(WRONG), answer(RIGHT, final=True)])
    )
    fin, events = run(IoT(AIoTConfig(iterations=3, iot_start=start)), model)
    (stop,) = of(events, DialogueStopped)
    assert (stop.turn, stop.by) == (2, "answerer") and fin.answer == RIGHT
    assert model.calls[-1].purpose == "iot_answer"


def test_aiot_stops_at_the_cap_with_the_last_answer() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(RIGHT), answer(WRONG)]))
    fin, events = run(IoT(AIoTConfig(iterations=3)), model)
    (stop,) = of(events, DialogueStopped)
    # r_0 and three guided turns: four answers, three guide calls.
    assert (stop.turn, stop.by) == (4, "cap")
    assert fin.calls == 7 and fin.answer == WRONG and not fin.solved  # drifted off RIGHT


def test_a_premature_stop_on_a_wrong_answer_is_visible() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(WRONG, final=True)]))
    fin, events = run(IoT(), model)
    (turn,) = of(events, TurnAnswered)
    assert turn.final and not turn.ok and "not 24" in turn.verdict
    assert not fin.solved and of(events, DialogueStopped)[0].by == "answerer"


@pytest.mark.parametrize("start", ["answer", "guide"])
@pytest.mark.parametrize("n", [1, 2, 4])
def test_giot_makes_n_answers_the_last_final_in_2n_minus_1_calls(start: str, n: int) -> None:
    # N - 1 forced turns and the final answer at the N-th, as the paper counts them; the
    # guide's and the answerer's flags are ignored.
    model = ScriptedModel(
        dialogue([guide("Good.", stop=True)], [answer(WRONG, final=True), answer(RIGHT)])
    )
    fin, events = run(IoT(GIoTConfig(turns=n, iot_start=start)), model)
    purposes = [c.purpose for c in model.calls]
    assert fin.calls == 2 * n - 1
    assert purposes.count(Purpose.IOT_ANSWER) == n and purposes.count(Purpose.IOT_GUIDE) == n - 1
    asked = [c.messages[-1].content for c in model.calls if c.purpose == "iot_answer"]
    assert all("Do not give a final answer yet" in p for p in asked[:-1])
    assert "definitive final answer now" in asked[-1]
    assert [t.turn for t in of(events, TurnAnswered)] == list(range(1, n + 1))
    (stop,) = of(events, DialogueStopped)
    assert (stop.turn, stop.by) == (n, "fixed")
    phases = [g.phase for g in of(events, TurnGuided)]
    if start == "answer":  # unguided first answer; the N-th answers the guide's prompt
        assert purposes == ["iot_answer"] + ["iot_guide", "iot_answer"] * (n - 1)
        assert phases == ["first"] + ["discuss"] * (n - 1)
    else:  # the guide opens; the N-th answers a fixed closing request
        assert purposes == ["iot_guide", "iot_answer"] * (n - 1) + ["iot_answer"]
        assert phases == ["discuss"] * (n - 1) + ["final"]
    assert fin.answer == (RIGHT if n > 1 else WRONG)


def test_every_turn_is_checked_exactly_and_marked_changed_or_not() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(WRONG), answer(WRONG), answer(RIGHT)]))
    _, events = run(IoT(AIoTConfig(iterations=2)), model)
    turns = of(events, TurnAnswered)
    assert [(t.answer, t.ok, t.changed) for t in turns] == [
        (WRONG, False, True),
        (WRONG, False, False),
        (RIGHT, True, True),
    ]
    assert turns[0].verdict == "equals 67, not 24"


def test_the_whole_transcript_travels_in_every_call_and_prompts_grow() -> None:
    model = ScriptedModel(
        dialogue([guide("First hint."), guide("Second hint.")], [answer(WRONG), answer("4 * 6")])
    )
    _, events = run(IoT(AIoTConfig(iterations=3)), model)
    third_guide = [c for c in model.calls if c.purpose == "iot_guide"][2].messages[-1].content
    for seen in ("First hint.", "Second hint.", WRONG, "4 * 6", "This is turn 4 of at most 4"):
        assert seen in third_guide
    tokens = [t.prompt_tokens for t in of(events, TurnAnswered)]
    assert tokens == sorted(tokens) and tokens[0] < tokens[-1]


def test_the_guide_may_be_another_model() -> None:
    answerer = ScriptedModel(dialogue([guide()], [answer(WRONG)]))
    guide_model = ScriptedModel(dialogue([guide()], [answer(WRONG)]), name="guide")
    fin, events = run(IoT(AIoTConfig(iterations=2)), answerer, guide_model=guide_model)
    assert {c.purpose for c in guide_model.calls} == {"iot_guide"}
    assert {c.purpose for c in answerer.calls} == {"iot_answer"}
    assert fin.calls == 5
    # The run's record names the guide beside the method's own options; alone, it has none.
    (started,) = of(events, RunStarted)
    assert started.config["guide_model"] == "guide"
    assert started.config == {**IoT(AIoTConfig(iterations=2)).config_dict(), "guide_model": "guide"}
    _, alone = run(
        IoT(AIoTConfig(iterations=2)), ScriptedModel(dialogue([guide()], [answer(WRONG)]))
    )
    assert "guide_model" not in of(alone, RunStarted)[0].config


def test_an_unfinished_reply_gives_no_answer_and_cannot_end_the_dialogue() -> None:
    model = ScriptedModel(dialogue([guide()], [answer(RIGHT, final=True)]), finish_reason="length")
    fin, events = run(IoT(AIoTConfig(iterations=2)), model)
    assert [t.answer for t in of(events, TurnAnswered)] == [None, None, None]
    assert of(events, DialogueStopped)[0].by == "cap" and fin.answer is None


def test_garbage_replies_are_parse_failures_not_crashes() -> None:
    model = ScriptedModel(["{" * 5000, "\x00\x1b[2J not json", "[]"])
    fin, events = run(IoT(AIoTConfig(iterations=2)), model)
    assert fin.reason == "done" and of(events, ParseFailed)
    assert all(t.answer is None or isinstance(t.answer, str) for t in of(events, TurnAnswered))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Sure!\n```json\n{"guidance": "Use 8 / 8.", "stop": false}\n```', ("Use 8 / 8.", False)),
        ('{"self_thought": "Done.", "iteration_stop": "True"}', ("Done.", True)),
        ("Try a product first. stop: true", ("Try a product first. stop: true", True)),
    ],
)
def test_guidance_is_read_from_json_among_prose_or_from_prose(
    text: str, expected: tuple[str, bool]
) -> None:
    g = parse_guidance(text)
    assert (g.text, g.stop) == expected


def test_replies_are_read_tolerantly() -> None:
    r = parse_reply('Here: {"answer_expression": "(7 - 8/8) * 4 = 24", "answer_to_query": "yes"}')
    assert (r.answer, r.final, r.parsed) == ("(7 - 8/8) * 4", True, True)
    r = parse_reply("I think so.\nAnswer: 4 * 6 = 24")
    assert (r.answer, r.final, r.parsed) == ("4 * 6", False, False)
    r = parse_reply('{"explanation": "x", "answer": "(7 - 8 / 8) * 4 - sqrt(9)"}')
    assert r.answer == "(7 - 8 / 8) * 4 - sqrt(9)"  # whole, so the check rejects it
    assert not Game24Domain(HAND).check(r.answer).ok


class ContextBlind:
    """The offline engine behind a wall: every call's ``context`` is emptied first."""

    def __init__(self, inner: OfflineModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        return await self.inner.generate(dataclasses.replace(call, context={}), on_token)

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("name", ["aiot", "giot"])
def test_the_offline_iot_players_read_only_the_prompt(name: str) -> None:
    for hand in ("4 7 8 8", "1 5 5 5", "3 3 8 8"):
        domain = Game24Domain(Hand.parse(hand))
        seen, _ = asyncio.run(solve(make_method(name), domain, OfflineModel(seed=3)))
        blind, _ = asyncio.run(solve(make_method(name), domain, ContextBlind(OfflineModel(seed=3))))
        assert (seen.answer, seen.calls) == (blind.answer, blind.calls)


def test_the_offline_guide_points_at_the_mistake_it_sees() -> None:
    model = OfflineModel(seed=0)
    domain = Game24Domain(HAND)
    turns = (domain.turn("Start.", parse_reply(answer("8 + 8 + 7 + 4"))),)
    call = Call(Purpose.IOT_GUIDE, domain.prompt(Role.GUIDE, turns=turns, turn=2, total=10))
    texts = set()
    for seed in range(20):
        model.seed = seed
        texts.add(parse_guidance(asyncio.run(model.generate(call)).text).text)
    assert any("comes to 27, not 24" in t for t in texts)
    turns = (domain.turn("Start.", parse_reply(answer("8 * 8 * 8 * 7"))),)
    call = Call(Purpose.IOT_GUIDE, domain.prompt(Role.GUIDE, turns=turns, turn=2, total=10))
    text = parse_guidance(asyncio.run(OfflineModel(seed=1).generate(call)).text).text
    assert "you leave out 4" in text and "more often" in text


def test_iot_over_http_asks_for_json_mode_and_falls_back_without_it() -> None:
    reply = dialogue([guide()], [answer(RIGHT, final=True)])

    def server_reply(request: dict[str, Any], index: int) -> str:
        system = request["messages"][0]["content"]
        guiding = system.startswith("You are the inner guide")
        role = Purpose.IOT_GUIDE if guiding else Purpose.IOT_ANSWER
        return reply(Call(role, ()))

    for json_mode in (True, False):
        with FakeServer(reply=server_reply, json_mode=json_mode) as server:
            model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
            aiot = make_method("aiot", iot_start="guide")  # two calls: a guide's, an answer's
            fin, _ = asyncio.run(solve(aiot, Game24Domain(HAND), model))
            asyncio.run(model.aclose())
            asked = [("response_format" in r.json) for r in server.chat_requests]
        assert fin.solved and fin.answer == RIGHT
        if json_mode:
            assert asked == [True, True] and not model.json_mode_refused
        else:  # refused once, then asked in the prompt only
            assert asked == [True, False, False] and model.json_mode_refused


@pytest.mark.parametrize("faults", [["429", "500"], ["cut", "malformed"], ["", "length"]])
def test_iot_over_http_survives_a_misbehaving_server(faults: list[str]) -> None:
    reply = dialogue([guide()], [answer(WRONG), answer(RIGHT, final=True)])
    turns = iter(range(10**6))

    def server_reply(request: dict[str, Any], index: int) -> str:
        system = request["messages"][0]["content"]
        if system.startswith("You are the inner guide"):
            return reply(Call(Purpose.IOT_GUIDE, ()))
        # The answerer's replies in order, counting only what the model keeps.
        return [answer(WRONG), answer(RIGHT, final=True)][min(next(turns), 1)]

    with FakeServer(reply=server_reply) as server:
        server.faults.extend(faults)
        model = OpenAIModel(
            base_url=server.url, api_key="k", model="fake-model", cache=False, backoff_base=0.001
        )
        aiot = make_method("aiot", iot_start="guide")  # the faults hit the guide, then an answer
        fin, events = asyncio.run(solve(aiot, Game24Domain(HAND), model))
        asyncio.run(model.aclose())
    answered = of(events, TurnAnswered)
    if "length" in faults:
        # The first answer was cut off: it gives no answer and cannot end the dialogue.
        assert answered[0].answer is None and fin.reason == "done"
    else:  # retried until whole
        assert fin.solved and fin.answer == RIGHT and model.retries >= 1
    assert of(events, DialogueStopped)


@pytest.mark.usefixtures("exact_critics")  # it doubts and keeps by its own (exact) judgement
@pytest.mark.parametrize("start", ["answer", "guide"])
def test_the_offline_engine_discusses_then_closes_with_a_final_answer_it_keeps_if_right(
    start: str,
) -> None:
    # GIoT's discussion turns ask for no final answer and its closing call for a definitive
    # one; the engine reads that from the prompt, and a right answer it reached is kept.
    kept = 0
    for hand in ("4 7 8 8", "1 5 5 5", "3 3 8 8", "2 7 8 9"):
        for seed in range(4):
            _, events = asyncio.run(
                solve(
                    IoT(GIoTConfig(turns=4, iot_start=start)),
                    Game24Domain(Hand.parse(hand)),
                    OfflineModel(seed=seed),
                    seed=seed,
                )
            )
            answered = of(events, TurnAnswered)
            assert [t.turn for t in answered] == [1, 2, 3, 4]
            assert [t.final for t in answered] == [False, False, False, True], (hand, seed)
            # It doubts exactly the answers it could not make reach the target.
            assert all((t.uncertainty == "") == t.ok for t in answered), (hand, seed)
            if answered[2].ok:
                assert answered[3].ok and answered[3].answer == answered[2].answer
                kept += 1
    assert kept >= 2  # the draw includes hands solved during the discussion


def test_the_offline_guide_opens_with_the_puzzle_and_judges_each_answer_as_the_check_does() -> None:
    hints = judged = 0
    for numbers, target in (("4 7 8 8", 24), ("2 7 8 9", 24), ("1 2 3 4", 10), ("3 3 8 8", 24)):
        hand = Hand.parse(numbers, target=target)
        for seed in range(3):
            _, events = asyncio.run(
                solve(
                    IoT(AIoTConfig(iterations=4, iot_start="guide")),
                    Game24Domain(hand),
                    OfflineModel(seed=seed),
                    seed=seed,
                )
            )
            guided = of(events, TurnGuided)
            opening = guided[0].guidance
            assert opening.startswith(
                f"You have {numbers} and need {target}, each number exactly once. "
            )
            factors = re.search(r"a factor of \d+ such as ([\d, ]+), then", opening)
            if factors:
                hints += 1
                assert all(target % int(f) == 0 for f in factors.group(1).split(", "))
            # Each later turn's guidance reads the previous answer as the exact check did.
            for turn, told in zip(of(events, TurnAnswered), guided[1:], strict=False):
                if turn.ok:
                    assert told.guidance.startswith(("Your answer uses each number once", "Check"))
                elif turn.verdict.startswith("equals "):
                    value = turn.verdict.removeprefix("equals ").split(",")[0]
                    said = f"Your expression comes to {value}, not {target}."
                    assert told.guidance.startswith(said) or told.stop, told.guidance
                    judged += 1
    assert hints >= 1 and judged >= 5


def test_the_offline_guide_names_a_number_not_in_the_hand_and_misjudges_only_now_and_then() -> None:
    domain = Game24Domain(HAND)

    def guidance(expr: str, seeds: int) -> list[tuple[str, bool]]:
        turns = (domain.turn("Start.", parse_reply(answer(expr))),)
        call = Call(Purpose.IOT_GUIDE, domain.prompt(Role.GUIDE, turns=turns, turn=2, total=10))
        out = []
        for seed in range(seeds):
            said = parse_guidance(asyncio.run(OfflineModel(seed=seed).generate(call)).text)
            out.append((said.text, said.stop))
        return out

    # A model's answer may use a number the hand does not have (the offline answerer never
    # writes one): the guide says which.
    foreign = guidance("(9 - 8 / 8) * 3", 10)
    assert any("9 is not one of the numbers" in t and "3 is not one" in t for t, _ in foreign)
    assert all("you leave out 4, 7" in t for t, stop in foreign if not stop), foreign
    # A wrong answer passes as right now and then (a misjudgement); a right one is usually
    # accepted, and sometimes sent back for one more check: as often as GPT-4's judge erred
    # in ToT's run (critics.GUIDE_FALSE_STOP, critics.GUIDE_MISSED_STOP).
    wrong = guidance("8 + 8 + 7 + 4", 400)
    passed = sum(stop for _, stop in wrong) / 400
    assert passed == pytest.approx(critics.GUIDE_FALSE_STOP, abs=0.05), passed
    right = guidance(RIGHT, 400)
    stops = sum(stop for _, stop in right) / 400
    assert stops == pytest.approx(1 - critics.GUIDE_MISSED_STOP, abs=0.06), stops
    assert {t for t, stop in right if not stop} == {"Check your answer once more, step by step."}


@pytest.mark.usefixtures("exact_critics")  # else it doubts its right answer now and then
def test_the_offline_answerer_keeps_a_praised_answer_and_gives_none_without_numbers() -> None:
    domain = Game24Domain(HAND)
    turns = (domain.turn("Start.", parse_reply(answer(RIGHT))),)
    praise = "Your answer uses each number once and makes the target."
    call = Call(
        Purpose.IOT_ANSWER, domain.prompt(Role.RESPOND, turns=turns, guidance=praise, mode="free")
    )
    for seed in range(10):
        said = parse_reply(asyncio.run(OfflineModel(seed=seed).generate(call)).text)
        assert (said.answer, said.explanation) == (RIGHT, "I keep my answer."), said
    lost = Call(
        Purpose.IOT_ANSWER, (Message("user", f"Reply with one JSON object: {G24_IOT_ANSWER}"),)
    )
    said = parse_reply(asyncio.run(OfflineModel(seed=1).generate(lost)).text)
    assert said.answer is None and said.explanation == "I cannot find the numbers.", said


# -- each run pinned event by event and call by call -----------------------------------------------

OWN_FINAL = "the answerer said its own answer is final (its iteration_stop)"
PINNED = (IterationStarted, TurnGuided, TurnAnswered, DialogueStopped, ParseFailed)


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
