"""The offline engine's Iteration-of-Thought players, by what they do with what a prompt says.

Each test sends the guide or the answerer the prompt IoT sends (built by the Game of 24
domain) and reads the reply with the domain's own parsers, as the method does: what the guide
says about each kind of mistake, the answerer's habitual first attempt, how much harder it
tries each time it is told it is wrong, when it keeps an answer, and what GIoT's closing call
takes from the discussion. Where a player's choice is random the test asks for the share it
is meant to have over many samples, with room for chance.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from puzzles.arith import ClaimStatus, verify_claim
from puzzles.game24 import Hand
from solver.domains.base import Guidance, Reply
from solver.domains.game24 import Game24Domain, parse_guidance, parse_reply
from solver.model import Message
from solver.model.markers import G24_IOT_ANSWER, G24_IOT_GUIDE
from solver.model.offline import critics
from solver.model.offline.game24 import Play
from solver.roles import Role
from tests.solver.game24_replies import answer
from tests.solver.offline_calls import HAND, respond, text_of

RIGHT = "(7 - 8 / 8) * 4"
WRONG = "8 + 8 + 7 + 4"  # comes to 27
RECHECK = "Check your answer once more, step by step."
PRAISE = "Your answer uses each number once and makes the target."


def guide(answers: list[str | None], offset: int, hand: Hand = HAND) -> Guidance:
    """The guide's reply after the answerer gave ``answers``, one per turn."""
    domain = Game24Domain(hand)
    turns = tuple(domain.turn("Go on.", parse_reply(answer(a))) for a in answers)
    prompt = domain.prompt(Role.GUIDE, turns=turns, turn=len(turns) + 1, total=10)
    return parse_guidance(text_of("iot_guide", prompt, offset))


# ---------------------------------------------------------------- the guide


def test_a_guide_prompt_without_numbers_asks_for_them_and_does_not_stop() -> None:
    # The prompt is known as the guide's by its request (markers.G24_IOT_GUIDE).
    lost = (Message("user", f"{G24_IOT_GUIDE} Reply with one JSON object."),)
    for offset in range(5):
        got = parse_guidance(text_of("iot_guide", lost, offset))
        assert got == Guidance("Restate the numbers and the goal, then try again.", False)


def test_the_opening_names_the_hand_the_target_and_one_of_three_hints() -> None:
    openings = {guide([], offset).text for offset in range(40)}
    start = "You have 4 7 8 8 and need 24, each number exactly once. "
    assert openings == {
        start + "Look for two numbers that make a factor of 24 such as 2, 3, 4, 6, then use "
        "the rest to make its partner.",
        start + "Start with the largest numbers: can one operation bring them close to the target?",
        start + "List a few pairs and what they give before you commit to one.",
    }
    assert all(not guide([], offset).stop for offset in range(10))


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (None, "You have not given an expression yet."),
        ("4 + 7 + 7 + 8 + 8", "Check the numbers: you use 7 more often than it is given."),
        ("8 + 8 + 7", "Check the numbers: you leave out 4."),
        (
            "(9 - 8 / 8) * 3",
            "Check the numbers: 3 is not one of the numbers; 9 is not one of "
            "the numbers; you leave out 4, 7.",
        ),
        (
            WRONG,
            "Your expression comes to 27, not 24. Recompute it step by step and try "
            "another pair first.",
        ),
    ],
)
def test_the_guide_says_what_is_wrong_in_full(answer: str | None, problem: str) -> None:
    # The guide sometimes misjudges a wrong answer as right (then it stops or asks for one
    # more check); every other reply names the problem, word for word.
    replies = [guide([answer], offset) for offset in range(30)]
    named = [g for g in replies if g.text == problem and not g.stop]
    misjudged = [g for g in replies if g.text in (PRAISE, RECHECK)]
    assert len(named) + len(misjudged) == len(replies), {g.text for g in replies}
    assert len(named) >= 20, len(named)


# ---------------------------------------------------------------- the answerer


def test_an_answer_prompt_without_numbers_gets_no_answer_a_doubt_and_no_final() -> None:
    lost = (Message("user", f"Reply with one JSON object: {G24_IOT_ANSWER}"),)
    for offset in range(5):
        got = parse_reply(text_of("iot_answer", lost, offset))
        assert got == Reply("I cannot find the numbers.", None, "which numbers to use", False)


@pytest.mark.usefixtures("exact_critics")  # else it doubts a right habit now and then
def test_the_first_answer_is_a_habitual_attempt_and_later_ones_are_fresh() -> None:
    # Like a model, the engine has one habitual attempt per hand, the same in every sample.
    # IoT's answerer starts from it: where it solves the hand, every sample of the first turn
    # gives it; told it is wrong, the answerer's samples try afresh and differ.
    habitual = 0
    for text in ("4 7 8 8", "1 2 3 4", "2 3 4 6", "3 3 8 8", "1 5 5 5", "4 4 6 8", "2 2 6 6"):
        hand = Hand.parse(text)
        for seed in range(3):
            first = {respond([], "Begin.", "free", n, hand, seed).answer for n in range(8)}
            if len(first) == 1 and Game24Domain(hand).check(first.pop()).ok:
                habitual += 1
                later = {
                    respond(["1 + 1"], "Try again.", "free", n, hand, seed).answer for n in range(8)
                }
                assert len(later) > 1, (text, seed, later)
    assert habitual >= 6, habitual


@pytest.mark.usefixtures("exact_critics")
def test_each_time_it_is_told_it_is_wrong_it_makes_two_more_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The attempts are counted where the engine makes them; every one is made to fail (and
    # the answerer judges its own attempts without error here), so none ends the search
    # early. The first turn is the habitual attempt (a cool, fixed walk)
    # and one more at the call's temperature; each wrong answer since adds two.
    temps: list[float] = []
    walk = Play.walk

    def failing(self: Play, nums: Any, rng: random.Random, temp: float) -> Any:
        temps.append(temp)
        return walk(self, nums, rng, temp)[0], False

    monkeypatch.setattr(Play, "walk", failing)
    for wrong_so_far, expected in ((0, [0.3, 0.7]), (1, [0.7] * 3), (2, [0.7] * 5)):
        temps.clear()
        reply = respond([WRONG] * wrong_so_far, "Try again.", "free", 1)
        assert temps == expected, (wrong_so_far, temps)
        assert reply.answer and reply.uncertainty == "I am not sure this makes exactly 24."


@pytest.mark.usefixtures("exact_critics")  # it never believes the wrong answer and keeps it
def test_its_explanation_writes_the_steps_of_its_answer() -> None:
    checked = 0
    for offset in range(30):
        reply = respond([WRONG], "Try again.", "free", offset)
        steps = reply.explanation.split("; ")
        assert len(steps) == 3, reply.explanation
        claims = [verify_claim(step) for step in steps]
        assert all(c.status is not ClaimStatus.INVALID for c in claims), steps
        checked += sum(c.status is ClaimStatus.EXACT for c in claims)
    assert checked >= 80, checked  # a step is now and then slipped or rounded


def test_a_right_answer_is_kept_when_praised_and_believed_and_mostly_kept_otherwise() -> None:
    # The answerer believes its right answer as often as GPT-4's judge believed a right
    # answer (1 - critics.ANSWERER_MISSED_FINAL, 73.6 %); praised, it then keeps it.
    believed = 1 - critics.ANSWERER_MISSED_FINAL
    praised = [respond([RIGHT], PRAISE, "free", n) for n in range(400)]
    kept = [r for r in praised if r.explanation == "I keep my answer."]
    assert all(r == Reply("I keep my answer.", RIGHT, "", True) for r in kept)
    assert len(kept) / 400 == pytest.approx(believed, abs=0.06), len(kept)
    # GIoT's discussion turns: kept, never final, but now and then set aside to talk more.
    discussed = [respond([RIGHT], PRAISE, "discuss", n) for n in range(400)]
    kept_there = [r for r in discussed if r.explanation == "I keep my answer."]
    assert not any(r.final for r in discussed)
    assert len(kept_there) / 400 == pytest.approx(believed * 0.7, abs=0.06), len(kept_there)
    # Sent back for one more check, it keeps a right answer it believes 70 times in 100.
    rechecked = [respond([RIGHT], RECHECK, "free", n) for n in range(400)]
    kept_anyway = sum(r.explanation == "I keep my answer." for r in rechecked)
    assert kept_anyway / 400 == pytest.approx(believed * 0.7, abs=0.06), kept_anyway


def test_it_calls_an_answer_final_mostly_when_it_works_and_seldom_when_not() -> None:
    final_when_right: list[bool] = []
    final_when_wrong: list[bool] = []
    for offset in range(300):
        reply = respond([], "Begin.", "free", offset, Hand.parse("2 5 7 9"), seed=offset)
        works = Game24Domain(Hand.parse("2 5 7 9")).check(reply.answer).ok
        (final_when_right if works else final_when_wrong).append(reply.final)
    assert len(final_when_right) >= 60 and len(final_when_wrong) >= 60
    assert 0.75 <= sum(final_when_right) / len(final_when_right) <= 0.96
    assert 0.1 <= sum(final_when_wrong) / len(final_when_wrong) <= 0.4


def test_the_closing_call_takes_the_answer_it_believes_from_the_discussion() -> None:
    # GIoT's last call: an earlier answer was right, the last one is wrong. Reading back from
    # the last, it takes the wrong one when it believes it (critics.ANSWERER_FALSE_FINAL,
    # 15.8 %), else the right one when it believes that (73.6 % of the rest).
    replies = [respond([RIGHT, WRONG], RECHECK, "close", n) for n in range(400)]
    taken = [r for r in replies if r.explanation == "From the discussion, this answer works."]
    right = [r for r in taken if r == Reply(r.explanation, RIGHT, "", True)]
    wrong = [r for r in taken if r == Reply(r.explanation, WRONG, "", True)]
    assert len(right) + len(wrong) == len(taken)
    false_final, missed = critics.ANSWERER_FALSE_FINAL, critics.ANSWERER_MISSED_FINAL
    assert len(wrong) / 400 == pytest.approx(false_final, abs=0.05), len(wrong)
    assert len(right) / 400 == pytest.approx((1 - false_final) * (1 - missed), abs=0.06)
    # Otherwise it works the hand again, and still gives a final answer of its own.
    others = [r for r in replies if r not in taken]
    assert all(r.parsed and r.answer and r.final for r in others), others
    # An unanswered turn is nothing to take.
    nothing = [respond([None, WRONG], RECHECK, "close", n) for n in range(40)]
    assert not any(
        r.explanation.startswith("From the discussion") and r.answer != WRONG for r in nothing
    )


def test_every_reply_is_one_json_object_with_the_fields_the_prompt_asks_for() -> None:
    # The prompt's format names the fields; a reply that leaves one out (even a false flag)
    # is not what it asked for.
    domain = Game24Domain(HAND)
    lost_guide = (Message("user", f"{G24_IOT_GUIDE} Reply with one JSON object."),)
    lost = (Message("user", f"Reply with one JSON object: {G24_IOT_ANSWER}"),)
    for offset in range(30):
        for answers in ([], [WRONG], [RIGHT], [None]):
            turns = tuple(domain.turn("Go on.", parse_reply(answer(a))) for a in answers)
            prompt = domain.prompt(Role.GUIDE, turns=turns, turn=len(turns) + 1, total=10)
            for text in (
                text_of("iot_guide", prompt, offset),
                text_of("iot_guide", lost_guide, offset),
            ):
                assert set(json.loads(text)) == {"guidance", "stop"}, text
            for mode in ("free", "discuss", "close"):
                prompt = domain.prompt(Role.RESPOND, turns=turns, guidance="Go on.", mode=mode)
                for text in (
                    text_of("iot_answer", prompt, offset),
                    text_of("iot_answer", lost, offset),
                ):
                    assert set(json.loads(text)) == {
                        "explanation",
                        "answer",
                        "uncertainty",
                        "final",
                    }
