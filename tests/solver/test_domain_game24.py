"""The Game of 24 adapter: prompts carry the right state, parsers survive real model output."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.game24 import Hand, apply, check_answer
from puzzles.game24.rules import State, Step
from solver.domains import game24 as g24
from solver.domains import game24_prompts as g24p
from solver.domains.base import Guidance, Reply, RolesMissing
from solver.roles import Role


def test_every_shot_in_the_prompts_is_correct() -> None:
    assert len(g24p.SHOTS) >= 4
    for numbers, steps, answer in g24p.SHOTS:
        hand = Hand.parse(numbers)
        assert check_answer(hand, answer).ok, answer
        state = hand.start()
        for line in steps:
            parsed = g24.parse_steps(line, state)
            assert len(parsed) == 1 and parsed[0].valid, line
            assert parsed[0].state is not None
            state = parsed[0].state
        assert state.is_goal()


def test_parse_steps_reads_prose_markdown_and_lists() -> None:
    state = Hand.parse("4 7 8 8").start()
    text = (
        "Sure! Here are some possible next steps:\n"
        "1. **7 - 4 = 3 (left: 3 8 8)**\n"
        "* 8 + 8 = 16 (left: 4 7 16) and also 4 * 7 = 28 (left: 8 8 28)\n"
        "`8 x 8 = 64`\n"
        "That's all."
    )
    steps = g24.parse_steps(text, state)
    read = [(int(s.a), s.op, int(s.b)) for s in steps]
    assert read == [(7, "-", 4), (8, "+", 8), (4, "*", 7), (8, "*", 8)]
    assert all(s.valid for s in steps)
    assert steps[0].state is not None and sorted(steps[0].state.numbers) == [3, 8, 8]


def test_parse_steps_flags_wrong_numbers_and_wrong_arithmetic() -> None:
    state = Hand.parse("4 7 8 8").start()
    wrong_number, wrong_sum, rounded = g24.parse_steps(
        "9 - 4 = 5 (left: 5 8 8)\n7 * 8 = 54 (left: 4 8 54)\n8 / 7 = 1.14", state
    )
    assert not wrong_number.valid and "9 is not among" in wrong_number.problem
    assert not wrong_sum.valid and "actually 56" in wrong_sum.problem
    assert rounded.valid and rounded.claim.status == "approx"
    # The state keeps the exact value, not the rounding.
    assert rounded.state is not None and Fraction(8, 7) in rounded.state.numbers


def test_parse_steps_reads_bot_format() -> None:
    state = Hand.parse("1 1 4 6").start()
    text = (
        "Step 1, Current set: 1 1 4 6, Two numbers selected: 1 1, Operation: +, New number "
        "calculated: 2, Remaining numbers: 4 6, New set: 2 4 6, Evaluation score: 0.7"
    )
    (step,) = g24.parse_steps(text, state)
    assert (step.a, step.op, step.b) == (Fraction(1), "+", Fraction(1))
    assert step.state is not None and sorted(step.state.numbers) == [2, 4, 6]
    assert g24.parse_score(text) == 0.7


def test_parse_value_and_score_labels() -> None:
    assert g24.parse_value("10 + 14 = 24\nsure") == "sure"
    assert g24.parse_value("hmm\nMaybe.\n") == "likely"
    assert g24.parse_value("**Impossible**") == "impossible"
    assert g24.parse_value("no label here") is None
    assert g24.parse_score("Evaluation score: **0.9**") == 0.9
    assert g24.parse_score("evaluation score = 7") == 0.7  # a 1-10 scale, rescaled
    assert g24.parse_score("Evaluation score: 1.5") == 0.15  # above 1 is that scale too
    assert g24.parse_score("Evaluation score: 1") == 1.0
    assert g24.parse_score("Evaluation score: 85%") == 0.85
    assert g24.parse_score("Evaluation score: 85") == 0.85  # above 10: a percentage
    assert g24.parse_score("score 0.3") is None


def test_parse_feedback_reads_report_advice_verdicts_confidence() -> None:
    text = (
        "Analysis Report: The chain ends at 20, not 24; the mistake is at step 2.\n"
        "Step 1: fine. Advice: keep it. Recommendation or Reject: Recommend.\n"
        "Step 2: wasteful. Advice: multiply 3 by 8 instead. Recommendation or Reject: Reject.\n"
        "Confidence score: 0.3"
    )
    fb = g24.parse_feedback(text, 2)
    assert fb.report.startswith("The chain ends at 20") and "step 2" in fb.report
    assert fb.advice == ("keep it", "multiply 3 by 8 instead")
    assert fb.verdicts == ("recommend", "reject")
    assert fb.confidence == 0.3 and fb.parsed
    entry = fb.entry(1, ["a", "b"])
    assert "Analysis Report:" in entry and "Confidence score: 0.3" in entry


def test_parse_feedback_of_garbage_is_marked_unparsed() -> None:
    fb = g24.parse_feedback("I like turtles", 3)
    assert not fb.parsed and fb.confidence is None and fb.advice == ("", "", "")


def test_parse_answer_takes_the_last_answer_line() -> None:
    assert g24.parse_answer("Answer: 1+2\nthen\nAnswer: **(4 + 8) * 2 = 24**") == "(4 + 8) * 2"
    assert g24.parse_answer("no answer") is None


def test_prompts_show_only_public_state() -> None:
    hand = Hand.parse("4 7 8 8")
    domain = g24.Game24Domain(hand)
    state = apply(hand.start(), Fraction(7), "-", Fraction(4))
    assert "Input: 8 8 3" in g24p.propose_prompt(state.left())
    ctx = domain.context(state)
    assert ctx["numbers"] == ["8", "8", "3"] and ctx["steps"] == ["7 - 4 = 3"]
    assert "4 7 8 8" in g24p.bot_step_prompt(hand, "", [])


@settings(max_examples=200, deadline=500)
@given(st.text(max_size=400))
def test_parsers_never_raise_on_any_text(text: str) -> None:
    state = Hand.parse("4 7 8 8").start()
    g24.parse_steps(text, state)
    g24.parse_value(text)
    g24.parse_score(text)
    g24.parse_feedback(text, 3)
    g24.parse_answer(text)


def test_parse_answer_keeps_only_the_expression_of_chatty_answers() -> None:
    # Seen from a small real model: prose after the expression is not part of the answer.
    assert g24.parse_answer("Answer: 42. Output 42.") == "42"
    assert g24.parse_answer("Answer: (4 + 8) * 2, which is 24") == "(4 + 8) * 2"
    assert g24.parse_answer("Answer: 1 x 2 x 3 x 4 = 24") == "1 x 2 x 3 x 4"
    assert g24.parse_answer("Answer: I do not know") == "I do not know"  # judged invalid later


def test_an_answer_line_is_no_step() -> None:
    state = Hand.parse("6 6 6 6").start()
    assert g24.parse_steps("Answer: 6 + 6 + 6 + 6 = 24", state) == []
    assert g24.parse_steps("3 * 4 + 10 / 5 = 14", Hand.parse("3 4 10 5").start()) == []


def test_fraction_operands_in_step_lines_are_one_operand() -> None:
    state = apply(Hand.parse("3 8 8 8").start(), Fraction(8), "/", Fraction(3))
    (step,) = g24.parse_steps("8 / 8/3 = 3 (left: 3 3)", state)
    assert step.valid and (step.a, step.op, step.b) == (Fraction(8), "/", Fraction(8, 3))
    assert step.claim.lhs == "8 / (8/3)" and step.claim.ok  # the reading it used
    assert step.text == "8 / 8/3 = 3 (left: 3 3)"
    # The bracketed form ponder writes reads the same.
    (same,) = g24.parse_steps("8 / (8/3) = 3 (left: 3 3)", state)
    assert (same.a, same.b) == (step.a, step.b) and same.valid
    # Written without spaces, the numbers on the table settle the reading.
    (tight,) = g24.parse_steps("8/8/3 = 3", state)
    assert tight.valid and tight.b == Fraction(8, 3)


def test_step_lines_ponder_writes_bracket_fractions() -> None:
    state = apply(Hand.parse("3 8 8 8").start(), Fraction(8), "/", Fraction(3))
    (step,) = g24.parse_steps("8 / 8/3 = 3", state)
    line = g24.Game24Domain(Hand.parse("3 8 8 8")).step_line(step)
    assert line.startswith("8 / (8/3) = 3")


def test_answers_that_cannot_be_read_whole_are_not_solved() -> None:
    hand = Hand.parse("4 7 8 8")
    domain = g24.Game24Domain(hand)
    assert domain.check(g24.parse_answer("Answer: (7 - 8 / 8) * 4 = 24")).ok
    for tail, reason in [
        (" - sqrt(9) = 21", "unexpected 's'"),
        (" ^ 2 = 24", "'^' is not allowed"),
        (" / 0 = 24", "division by zero"),
        (" % 5 = 24", "'%' is not allowed"),
    ]:
        answer = g24.parse_answer(f"Answer: (7 - 8 / 8) * 4{tail}")
        assert answer == f"(7 - 8 / 8) * 4{tail.split(' =')[0]}"
        verdict = domain.check(answer)
        assert not verdict.ok and reason in verdict.reason, (answer, verdict)


def test_each_json_name_a_guide_or_answerer_may_use_is_read() -> None:
    # The guide's text under any of its names; the answerer's doubts under any of theirs.
    for name in ("guidance", "self_thought", "prompt", "thought"):
        guide = g24.parse_guidance(f'{{"{name}": "Try 4 * 6.", "stop": false}}')
        assert (guide.text, guide.stop, guide.parsed) == ("Try 4 * 6.", False, True)
    for name in ("uncertainty", "doubts", "unsure"):
        reply = g24.parse_reply(f'{{"answer": "4 * 6", "{name}": "is 6 here?", "final": true}}')
        assert (reply.answer, reply.uncertainty, reply.final) == ("4 * 6", "is 6 here?", True)


def test_an_empty_reply_is_read_as_nothing_said() -> None:
    assert g24.parse_reply("  \n") == Reply("", None, "", False, parsed=False)
    feedback = g24.parse_feedback("  \n", 3)
    assert (feedback.report, feedback.parsed, feedback.advice) == ("(no analysis)", False, ())


def test_examples_for_24_are_shown_only_to_a_hand_of_four_for_24() -> None:
    assert g24p.io_prompt(Hand.parse("4 7 8 8")).count("Input:") == len(g24p.SHOTS) + 1
    for other in (Hand.parse("4 7 8 8", target=30), Hand.parse("2 3 4")):
        prompt = g24p.io_prompt(other)
        assert prompt.count("Input:") == 1 and prompt.endswith("Answer:")


def test_the_worked_examples_are_numbered_from_one() -> None:
    shown = g24p.bot_examples()
    numbers = [int(n) for n in re.findall(r"^Example (\d+), numbers", shown, re.MULTILINE)]
    assert numbers == list(range(1, len(g24p.BOT_EXAMPLES) + 1))


# ------------------------------------------------------------------ found by a larger draw

DOMAIN = g24.Game24Domain(Hand.parse("4 7 8 8"))


def test_an_operation_written_as_a_word_is_read_whatever_its_case() -> None:
    line = "Two numbers selected: 8 8, Operation: Divide, New number calculated: 1"
    (step,) = g24.parse_steps(line, Hand.parse("4 7 8 8").start())
    assert step.op == "/" and step.valid


def test_a_claimed_set_of_none_or_nothing_is_empty() -> None:
    before = Hand.parse("4 6").start()
    for left in ("none", "Nothing", "EMPTY"):
        (step,) = g24.parse_steps(f"4 * 6 = 24 (left: {left})", before)
        claimed = g24.claimed_state(before, step)
        assert claimed is not None and claimed.numbers == (), left


def test_a_chain_of_claims_spells_its_expression_with_the_brackets_it_needs() -> None:
    steps = [
        Step(Fraction(8), "+", Fraction(4), Fraction(12)),
        Step(Fraction(20), "-", Fraction(12), Fraction(8)),
    ]
    assert g24.claimed_expression(Hand.parse("4 8 20"), steps) == "20 - (8 + 4)"
    # A number never given or built stands as itself.
    odd = [Step(Fraction(9), "*", Fraction(2), Fraction(18))]
    assert g24.claimed_expression(Hand.parse("2 4"), odd) == "9 * 2"


def test_a_json_answer_that_is_no_expression_is_kept_for_the_check_to_refuse() -> None:
    reply = g24.parse_reply('{"answer": "four times six", "explanation": ["a", "b"]}')
    assert reply.answer == "four times six" and reply.explanation == '["a", "b"]'
    assert not DOMAIN.check(reply.answer).ok


def test_a_prose_reply_loses_its_markdown() -> None:
    reply = g24.parse_reply("**So** we get `(7 - 8 / 8) * 4`.\nAnswer: (7 - 8 / 8) * 4")
    assert reply.explanation == "So we get (7 - 8 / 8) * 4. Answer: (7 - 8 / 8) * 4"


def test_guidance_left_empty_or_missing_is_read_as_none_given() -> None:
    assert g24.parse_guidance('{"guidance": "", "stop": true}') == Guidance("", True, parsed=False)
    assert g24.parse_guidance("") == Guidance("", False, parsed=False)


def test_scores_and_labels_on_other_scales_are_read() -> None:
    assert g24.parse_score("Evaluation score: 10") == 1.0  # the top of a 1-10 scale
    assert g24.parse_score("Evaluation score: 11") == 0.11  # a percentage
    assert g24.parse_value("Hard to say.\nunlikely") == "impossible"


def test_feedback_of_nothing_keeps_its_text_and_a_huge_step_number_is_passed_over() -> None:
    assert g24.parse_feedback("", 2) == g24.Feedback("(no analysis)", parsed=False, text="")
    huge = "Step " + "9" * 5000 + ": wrong. Advice: stop. Recommendation or Reject: Reject"
    assert g24.parse_feedback(huge, 2).verdicts == ("", "")
    plain = g24.parse_feedback("Step 1: the step looks fine to me", 1)
    assert plain.advice == ("the step looks fine to me",)


def test_an_entry_is_the_chain_then_the_analysis_as_the_model_wrote_it() -> None:
    """No verdict is filled in where the model gave none: the analysis is kept word for word."""
    text = (
        "Analysis: r\nStep 1: Advice: keep. Recommendation or Reject: recommend\n"
        "Step 2: Advice: drop."
    )
    feedback = g24.Feedback("r", ("keep", "drop"), ("recommend",), text=text)
    entry = feedback.entry(1, ["8 / 8 = 1", "7 - 1 = 6"])
    assert entry.splitlines() == [
        "1. Reasoning chain and comments",
        "---",
        "Step 1: 8 / 8 = 1",
        "Step 2: 7 - 1 = 6",
        "---",
        *text.splitlines(),
    ]


def test_a_claimed_chain_with_no_steps_says_so() -> None:
    assert DOMAIN.replay_claimed([]) == (None, "no steps", False)


def test_a_missing_roles_message_names_the_role_and_the_kind() -> None:
    with pytest.raises(RolesMissing) as info:
        DOMAIN.prompt(Role.ACT)
    assert str(info.value) == (
        "a method cannot solve game24 puzzles yet: the game24 domain has no act prompt"
    )


def test_the_cot_prompts_worked_examples_show_their_steps() -> None:
    text = DOMAIN.prompt(Role.COT)[-1].content
    assert re.search(r"^Input: [\d ]+\nSteps:\n", text, re.MULTILINE)


def test_feedback_without_a_report_label_keeps_its_first_300_characters_as_the_report() -> None:
    text = "I looked at it. " * 40
    assert g24.parse_feedback(text, 1).report == " ".join(text.split())[:300]
    assert len(g24.parse_feedback(text, 1).report) == 300


@pytest.mark.parametrize(
    ("line", "read"),
    [
        # A real ToT proposal: "1." of 1.33 was once taken for a list number (33 + 4 = 5.33).
        ("1.33 + 4 = 5.33 (left: 5.33 13)", (Fraction(133, 100), "+", Fraction(4), "5.33")),
        ("1. 1.5 * 2 = 3", (Fraction(3, 2), "*", Fraction(2), "3")),
        ("2) 0.5 * 8 = 4 (left: 4 13)", (Fraction(1, 2), "*", Fraction(8), "4")),
        ("- 0.5 * 8 = 4", (Fraction(1, 2), "*", Fraction(8), "4")),
        ("-0.5 * 8 = -4", (Fraction(-1, 2), "*", Fraction(8), "-4")),  # a sign, no bullet
        ("12. 4 + 13 = 17", (Fraction(4), "+", Fraction(13), "17")),
    ],
)
def test_a_decimal_at_the_head_of_a_line_is_no_list_number(
    line: str, read: tuple[Fraction, str, Fraction, str]
) -> None:
    state = State((Fraction(4, 3), Fraction(4), Fraction(13)))
    (step,) = g24.parse_steps(line, state)
    assert (step.a, step.op, step.b, step.claimed) == read
    assert step.claim.status.name == "EXACT"  # true as written: never marked wrong
