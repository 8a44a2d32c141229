"""Issue 27, section 1, in the solver's readers: every kind's step and answer readers, and the
methods that use them, read real writers' notation as meant (one implementation,
puzzles/arith and solver/domains/reading). The replies are written here in the manner of chat
models; none is copied from a benchmark."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from puzzles.arith import ClaimStatus
from puzzles.game24 import Hand, State
from puzzles.wordproblem import problem_by_id
from solver.domains import game24 as g24
from solver.domains import wordproblem as wp
from solver.domains.game24 import Game24Domain
from solver.domains.reading import unlabelled_answer
from solver.domains.wordproblem import WordProblemDomain
from solver.events import ClaimVerified, ThoughtAdded
from solver.methods import make_method, solve
from solver.methods.tot import ToT, ToTConfig
from solver.model import Call, ScriptedModel
from tui.cli.replay import rechecked


def state(*numbers: str) -> State:
    return State(tuple(Fraction(n) for n in numbers))


def of(events: Sequence[object], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# ------------------------------------------------------------------ Game of 24 steps


def test_an_approximate_step_is_read_and_its_state_is_exact_unless_paper() -> None:
    before = state("11", "3", "8")
    (step,) = g24.parse_steps("11 / 3 ≈ 3.67 (left: 3.67 8)", before)
    assert step.valid and step.claim.status is ClaimStatus.APPROX and step.claim.approximate
    assert step.claimed == "3.67" and step.text == "11 / 3 ≈ 3.67 (left: 3.67 8)"
    assert step.state is not None and sorted(step.state.numbers) == [Fraction(11, 3), Fraction(8)]
    # --paper: the state follows the model, the rounded number as written.
    paper = g24.claimed_state(before, step)
    assert paper is not None and paper.numbers == (Fraction(367, 100), Fraction(8))
    assert g24.claimed_line(step, paper) == "11 / 3 ≈ 3.67 (left: 3.67 8)"


def test_approx_written_in_the_step_and_in_its_left_list() -> None:
    before = state("19", "7")
    (step,) = g24.parse_steps("19 / 7 = approx. 2.71 (left: approx. 2.71)", before)
    assert step.valid and step.claim.approximate and step.claimed == "2.71"
    paper = g24.claimed_state(before, step)
    assert paper is not None and paper.numbers == (Fraction(271, 100),)


def test_approximate_marks_before_any_number_of_a_left_list() -> None:
    before = state("4", "7", "10", "3")
    (step,) = g24.parse_steps("10 / 3 = approx. 3.33 (left: 4 7 approx. 3.33)", before)
    paper = g24.claimed_state(before, step)
    assert paper is not None and paper.left() == "4 7 3.33"
    (step,) = g24.parse_steps("9 - ~4.33 = ~4.67 (left: 6 ~4.67)", state("9", "4.33", "6"))
    assert step.valid and step.claim.approximate and step.claim.status is ClaimStatus.EXACT
    paper = g24.claimed_state(state("9", "4.33", "6"), step)
    assert paper is not None and paper.numbers == (Fraction(6), Fraction(467, 100))


def test_a_mixed_number_in_a_step_and_in_its_left_list() -> None:
    before = state("8", "3", "9")
    (step,) = g24.parse_steps("8 / 3 = 2 2/3 (left: 2 2/3 9)", before)
    assert step.valid and step.claim.status is ClaimStatus.EXACT
    paper = g24.claimed_state(before, step)
    assert paper is not None and paper.numbers == (Fraction(8, 3), Fraction(9))
    (last,) = g24.parse_steps("2 2/3 * 9 = 24 (left: 24)", state("8/3", "9"))
    assert last.valid and (last.a, last.b) == (Fraction(8, 3), Fraction(9))
    # Three numbers left after a step from four: 2, 1/3 and 8, not 2 1/3 and 8.
    four = state("1", "3", "2", "8")
    (step,) = g24.parse_steps("1 / 3 = 1/3 (left: 2 1/3 8)", four)
    paper = g24.claimed_state(four, step)
    assert paper is not None and paper.numbers == (Fraction(2), Fraction(1, 3), Fraction(8))


@pytest.mark.parametrize(
    "line",
    [
        "$4 \\times 6 = 24$ (left: 24)",
        "\\( 4 \\cdot 6 = 24 \\) (left: 24)",
        "**4 * 6 = 24** (left: 24)",
        "1. 4 × 6 = 24 (left: 24)",
    ],
)
def test_a_step_in_latex_or_bold_or_a_list(line: str) -> None:
    (step,) = g24.parse_steps(line, state("4", "6"))
    assert step.valid and (step.a, step.op, step.b) == (Fraction(4), "*", Fraction(6))
    assert step.state is not None and step.state.numbers == (Fraction(24),)


def test_a_decimal_after_a_list_number_or_a_bullet() -> None:
    (step,) = g24.parse_steps("1. 1.5 * 16 = 24 (left: 24)", state("1.5", "16"))
    assert (step.a, step.b) == (Fraction(3, 2), Fraction(16)) and step.valid
    (step,) = g24.parse_steps("- 0.5 * 48 = 24 (left: 24)", state("0.5", "48"))
    assert (step.a, step.b) == (Fraction(1, 2), Fraction(48)) and step.valid


def test_a_step_whose_result_cannot_be_read_is_no_failed_step() -> None:
    (step,) = g24.parse_steps("6 * 4 = 4! (left: 24)", state("6", "4"))
    assert step.claim.status is ClaimStatus.INVALID and step.claim.describe().startswith("? ")
    assert step.valid and step.state is not None and step.state.numbers == (Fraction(24),)


async def test_tot_in_paper_mode_puts_the_rounded_number_on_the_table() -> None:
    def reply(call: Call) -> str:
        if call.purpose == "propose":
            return "10 / 3 ≈ 3.33 (left: 3.33 5 6)\n5 + 6 = 11 (left: 3 10 11)"
        return "likely"

    for paper, shown in ((True, "3.33 5 6"), (False, "5 6 10/3")):
        config = ToTConfig(steps=1, paper=paper)
        hand = Game24Domain(Hand.parse("3 5 6 10"))
        _, events = await solve(ToT(config), hand, ScriptedModel(reply))
        steps = {e.text: e.state for e in of(events, ThoughtAdded)}
        assert shown in steps["10 / 3 ≈ 3.33 (left: 3.33 5 6)"], steps
        approx = [e for e in of(events, ClaimVerified) if e.approximate]
        assert [(e.mark, e.said) for e in approx] == [("≈", "10 / 3 ≈ 3.33")]


# ------------------------------------------------------------------ answers without a label

IO_REPLY = "Let me try the pairs.\n\n(6 / (9 - 7)) * 8 = 24"
COT_REPLY = "9 - 7 = 2 (left: 2 6 8)\n6 / 2 = 3 (left: 3 8)\n3 * 8 = 24 (left: 24)"


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        (IO_REPLY, "(6 / (9 - 7)) * 8"),
        ("(6 / (9 - 7)) * 8 = 24.\n\n", "(6 / (9 - 7)) * 8"),
        ("```\n(6 / (9 - 7)) * 8 = 24\n```", "(6 / (9 - 7)) * 8"),
        ("**(6 / (9 - 7)) * 8 = 24**", "(6 / (9 - 7)) * 8"),
        ("$(6 \\div (9 - 7)) \\times 8 = 24$", "(6 ÷ (9 - 7)) × 8"),
        ("Answer: \\( (6 / (9 - 7)) \\times 8 = 24 \\)", "(6 / (9 - 7)) × 8"),
        (COT_REPLY, None),  # a step with its remark is no answer
        ("So that makes 24.", None),
        ("(6 / (9 - 7)) * 8 = 24 is my answer", None),
    ],
)
def test_the_game24_answer_reader(reply: str, answer: str | None) -> None:
    assert g24.parse_answer(reply) == answer
    assert g24.parse_reply(reply).answer == answer  # IoT's answerer, in plain text


@pytest.mark.parametrize("method", ["io", "cot"])
async def test_io_and_cot_take_an_answer_without_a_label(method: str) -> None:
    hand = Hand.parse("6 7 8 9")
    model = ScriptedModel(lambda call: IO_REPLY)
    fin, _ = await solve(make_method(method), Game24Domain(hand), model)
    assert fin.solved and fin.answer == "(6 / (9 - 7)) * 8"


async def test_tots_answer_call_takes_an_answer_without_a_label() -> None:
    moves = {
        "1 2 3 4": "1 + 2 = 3 (left: 3 3 4)",
        "3 3 4": "3 + 3 = 6 (left: 4 6)",
        "4 6": "4 * 6 = 24 (left: 24)",
    }

    def reply(call: Call) -> str:
        if call.purpose == "propose":
            return moves.get(" ".join(sorted(call.context["numbers"])), "")
        if call.purpose == "value":
            return "sure"
        return "Putting the steps together:\n(1 + 2 + 3) * 4 = 24"

    fin, events = await solve(ToT(), Game24Domain(Hand.parse("1 2 3 4")), ScriptedModel(reply))
    answers = [e.text for e in of(events, ThoughtAdded) if e.text.startswith("Answer:")]
    assert answers == ["Answer: (1 + 2 + 3) * 4"] and fin.solved


def test_the_word_problem_answer_reader() -> None:
    worked = "Each pack costs 30 * 11 = 330 cents.\n330 + 12 = 342"
    assert wp.parse_answer(worked) == "342"
    assert wp.parse_reply(worked).answer == "342"
    assert wp.parse_answer("30 * 11 = 330\n$342") == "$342"
    assert wp.parse_answer("11 / 3 ≈ 3.67") == "3.67"
    assert wp.parse_answer("Answer: \\frac{17}{4}") == "17/4"
    assert wp.parse_answer("So the total is $342.") is None
    assert wp.parse_answer("x = 3", numeric=False) is None  # algebra: a label is needed
    assert unlabelled_answer("- 330 + 12 = 342") == "330 + 12 = 342"


async def test_io_on_a_word_problem_takes_an_answer_without_a_label() -> None:
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))  # answer 3
    model = ScriptedModel(lambda call: "Buying singly costs more.\n15 - 12 = 3")
    fin, _ = await solve(make_method("io"), domain, model)
    assert fin.solved and fin.answer == "3"


def test_word_problem_steps_read_every_notation() -> None:
    lines = (
        "1. 25% of 80 = 20\n- $350,000 * (5/100) = $17500\n7 * 1 1/4 = 8.75\n"
        "$4 \\times 6 = 24$\n19 / 7 = approx. 2.71"
    )
    steps = wp.parse_steps(lines, wp.Work())
    assert [str(s.claim.status) for s in steps] == ["exact"] * 4 + ["approx"]
    assert all(s.valid for s in steps)


# ------------------------------------------------------------------ what panes and replays show


def test_the_pane_event_says_approximate_and_unreadable_as_such() -> None:
    approx = ClaimVerified(None, "11 / 3", "3.67", "11/3", "approx", True, "", True)
    assert approx.mark == "≈" and approx.said == "11 / 3 ≈ 3.67"
    unread = ClaimVerified(None, "6 * 4", "4!", "24", "invalid", False, "unexpected '!'")
    assert unread.mark == "?"
    wrong = ClaimVerified(None, "6 * 4", "25", "24", "wrong", False)
    assert wrong.mark == "✗" and wrong.said == "6 * 4 = 25"


def test_a_replayed_approximate_claim_keeps_its_verdict() -> None:
    event = ClaimVerified(None, "350000 * 0.0537", "18,800", "18795", "approx", True, "", True)
    (again,) = list(rechecked([event], Game24Domain(Hand.parse("4 6"))))
    assert again == event
    said_exactly = dataclasses.replace(event, approximate=False)
    assert [
        type(e).__name__ for e in rechecked([said_exactly], Game24Domain(Hand.parse("4 6")))
    ] == [
        "ErrorRaised",
        "ClaimVerified",
    ]


def test_no_reader_raises_on_notation_it_cannot_read() -> None:
    junk = ["\\frac{", "$$", "\\left", "}{", "≈≈≈", "1 1/", "25% of", "\\frac{1}{0} = 2", "~="]
    for text in junk:
        g24.parse_steps(text, state("1", "2"))
        g24.parse_answer(text)
        wp.parse_steps(text, wp.Work())
        wp.parse_answer(text)
