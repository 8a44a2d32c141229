"""The offline Game of 24 player in the roles other than IO's and CoT's first answer, read
word for word (or by its share over many seeds) as the methods read them.

BoT's analysis of a chain, its condensing of a cumulative experience, its similarity of two
steps, its evaluation of a step and its next step; ToT's value of a state, its final answer,
its judge and its proposals; IO's habitual answer and what worked examples teach; how a result
is written. Each is a reply a model writes from the prompt alone. Where it can, a test uses a
hand of three numbers: it makes a state of two, which any reader checks in full, so where the
first mistake stands is certain.
"""

from __future__ import annotations

import asyncio
import re
import statistics
from collections import Counter
from fractions import Fraction

import pytest

import solver.domains.game24 as g24
from puzzles.game24 import Hand
from puzzles.game24.rules import State
from solver.domains.game24 import Game24Domain
from solver.model import Call, Message, ModelError, Sampling
from solver.model.markers import G24_STEP
from solver.model.offline import OfflineModel, critics
from solver.model.offline.game24 import read_habits
from solver.roles import Purpose, Role
from tests.solver.game24_replies import first_steps as opening_steps
from tests.solver.offline_calls import analysis, chain_entry, reply, value

KEEP = "Advice: keep this step. Recommendation or Reject: Recommend."
MAY = "looks reasonable. Advice: it may be kept. Recommendation or Reject: Recommend."
FOLLOWS = (
    "follows a wrong step. Advice: revise the earlier step first. Recommendation or Reject: Reject."
)


def rejected(step: int, what: str, before: str) -> str:
    return (
        f"Step {step}: {what} leaves numbers that cannot make 24. Advice: do not use {what} "
        f"from {before}; combine a different pair. Recommendation or Reject: Reject."
    )


# ---------------------------------------------------------------- the analysis of a chain


@pytest.mark.usefixtures("exact_critics")
def test_a_chain_that_makes_24_is_kept_step_by_step_with_full_confidence() -> None:
    chain = ["8 / 8 = 1 (left: 1 4 7)", "7 - 1 = 6 (left: 4 6)", "6 * 4 = 24 (left: 24)"]
    assert analysis("4 7 8 8", chain) == [
        "Analysis Report: The chain uses every number once and reaches 24, so it solves the task.",
        f"Step 1: correct. {KEEP}",
        f"Step 2: correct. {KEEP}",
        f"Step 3: correct. {KEEP}",
        "Confidence score: 1.0",
    ]


@pytest.mark.usefixtures("exact_critics")
def test_a_negative_number_in_parentheses_is_read_as_a_number() -> None:
    chain = ["2 - 4 = -2 (left: -2 26)", "26 + (-2) = 24 (left: 24)"]
    assert analysis("2 4 26", chain)[0] == (
        "Analysis Report: The chain uses every number once and reaches 24, so it solves the task."
    )


@pytest.mark.usefixtures("exact_critics")
def test_the_first_step_that_leaves_24_out_of_reach_is_rejected_and_those_before_it_kept() -> None:
    # 4 * 6 leaves 1 and 24 (24 * 1 makes 24); 24 + 1 leaves 25 alone.
    lines = analysis("1 4 6", ["4 * 6 = 24 (left: 1 24)", "24 + 1 = 25 (left: 25)"])
    assert lines[:-1] == [
        "Analysis Report: The chain ends with 25 instead of 24, so it does not solve the task; "
        "the mistake starts at step 2.",
        f"Step 1: {MAY}",
        rejected(2, "24 + 1 = 25", "1 24"),
    ]


@pytest.mark.usefixtures("exact_critics")
def test_the_steps_after_the_first_mistake_follow_a_wrong_step() -> None:
    # 8 - 8 = 0 leaves 0 4 7, from which nothing makes 24.
    chain = ["8 - 8 = 0 (left: 0 4 7)", "4 + 7 = 11 (left: 0 11)", "11 + 0 = 11 (left: 11)"]
    confidences = set()
    for seed in range(12):
        lines = analysis("4 7 8 8", chain, seed)
        assert lines[:-1] == [
            "Analysis Report: The chain ends with 11 instead of 24, so it does not solve the "
            "task; the mistake starts at step 1.",
            rejected(1, "8 - 8 = 0", "4 7 8 8"),
            f"Step 2: {FOLLOWS}",
            f"Step 3: {FOLLOWS}",
        ]
        confidences.add(lines[-1])
    assert confidences == {"Confidence score: 0.3", "Confidence score: 0.5"}


@pytest.mark.usefixtures("exact_critics")
@pytest.mark.parametrize("second", ["I am not sure here", "9 + 9 = 18 (left: 1 18 24)"])
def test_a_step_it_cannot_read_or_play_is_named_by_its_number_and_rejected(second: str) -> None:
    # The second step is no step, or takes numbers that are not on the table.
    chain = ["4 * 6 = 24 (left: 1 24)", second, "24 * 1 = 24 (left: 24)"]
    lines = analysis("1 4 6", chain)
    assert "does not solve the task; the mistake starts at step 2." in lines[0]
    assert lines[1:-1] == [f"Step 1: {MAY}", rejected(2, "step 2", "1 24"), f"Step 3: {FOLLOWS}"]


@pytest.mark.usefixtures("exact_critics")
def test_a_chain_that_ends_at_24_through_a_step_that_does_not_hold_says_so() -> None:
    chain = ["4 * 6 = 24 (left: 1 24)", "I am not sure here", "24 * 1 = 24 (left: 24)"]
    assert analysis("1 4 6", chain)[0] == (
        "Analysis Report: The chain ends with 24, but step 2 does not hold, so it does not "
        "solve the task; the mistake starts at step 2."
    )


@pytest.mark.usefixtures("exact_critics")
def test_a_chain_that_stops_early_with_every_step_sound_keeps_them_all() -> None:
    lines = analysis("1 4 6", ["4 * 6 = 24 (left: 1 24)"])
    assert lines[:-1] == [
        "Analysis Report: The chain stops at 1 24 before it uses every number, so it does not "
        "solve the task yet; every step so far can still lead to 24.",
        f"Step 1: {MAY}",
    ]


def test_a_chain_without_steps_is_said_to_have_none() -> None:
    lines = analysis("4 7 8 8", [])
    assert lines[0] == "Analysis Report: The chain has no steps, so it does not solve the task."
    assert re.fullmatch(r"Confidence score: 0\.[35]", lines[1]) and len(lines) == 2


@pytest.mark.usefixtures("exact_critics")
@pytest.mark.parametrize(
    ("hand", "step", "holds"),
    [
        ("1 4 6", "4 * 6 = 25 (left: 1 25)", False),  # written wrong
        ("1 4 6", "1 / 4 = 0.25 (left: 0.25 6)", True),  # exact as a decimal
        ("1 4 6", "1 / 4 = 0.26 (left: 0.26 6)", False),  # a hundredth off is too far
        ("3 8 9", "8 / 3 = 2.67 (left: 2.67 9)", True),  # rounded to a hundredth
        ("3 8 9", "8 / 3 = 2.6766 (left: 2.6766 9)", True),  # just under a hundredth off
        ("3 8 9", "8 / 3 = 2.68 (left: 2.68 9)", False),  # more than a hundredth off
        ("3 8 9", "8 / 3 = 267/100 (left: 267/100 9)", False),  # a fraction must be exact
        ("3 8 9", "8 / 3 = x (left: 9 x)", False),  # no number at all
    ],
)
def test_a_result_holds_when_exact_or_a_decimal_within_a_hundredth(
    hand: str, step: str, holds: bool
) -> None:
    # Each step leaves two numbers that make 24, so a step that holds is kept and the
    # unreadable second step is the mistake; one that does not hold is the mistake itself.
    lines = analysis(hand, [step, "I give up"])
    assert lines[1] == (f"Step 1: {MAY}" if holds else rejected(1, step.split(" (")[0], hand))
    assert lines[0].endswith(f"the mistake starts at step {1 if not holds else 2}.")


# ---------------------------------------------------------------- condensing the experience

RIGHT = ["8 / 8 = 1 (left: 1 4 7)", "7 - 1 = 6 (left: 4 6)", "6 * 4 = 24 (left: 24)"]
WRONG = ["8 - 8 = 0 (left: 0 4 7)", "4 + 7 = 11 (left: 0 11)"]
OTHER = ["8 + 8 = 16 (left: 4 7 16)", "16 - 7 = 9 (left: 4 9)", "9 * 4 = 36 (left: 36)"]


def entry(index: int, chain: list[str], seed: int = 1) -> str:
    """The experience entry BoT writes for ``chain`` after the engine has analysed it."""
    text = "\n".join(analysis("4 7 8 8", chain, seed))
    return g24.parse_feedback(text, len(chain)).entry(index, chain)


def condensed(experience: str) -> list[str]:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.CONDENSE, experience=experience)
    return reply("bot_condense", prompt, 1).splitlines()


@pytest.mark.usefixtures("exact_critics")
def test_condensing_keeps_each_right_chain_once_and_each_lesson_once() -> None:
    experience = "\n".join([entry(1, WRONG), entry(2, RIGHT), entry(3, WRONG), entry(4, RIGHT)])
    assert condensed(experience) == [
        "Advice and error reports so far:",
        "- 8 - 8 = 0 leaves numbers that cannot make 24. Advice: do not use "
        "8 - 8 = 0 from 4 7 8 8; combine a different pair. Recommendation or Reject: Reject.",
        "- follows a wrong step. Advice: revise the earlier step first. "
        "Recommendation or Reject: Reject.",
        "1. Reasoning chain and comments (correct in full)",
        "---",
        *[f"Step {i}: {step}" for i, step in enumerate(RIGHT, 1)],
        "---",
        *[
            f"Step {i}: Advice: keep this step. Recommendation or Reject: Recommend."
            for i in (1, 2, 3)
        ],
    ]


@pytest.mark.usefixtures("exact_critics")
def test_condensing_numbers_each_right_chain_and_says_when_there_is_no_advice() -> None:
    two = ["8 / 8 = 1 (left: 1 4 7)", "7 - 1 = 6 (left: 4 6)", "4 * 6 = 24 (left: 24)"]
    lines = condensed("\n".join([entry(1, RIGHT), entry(2, two)]))
    assert lines[0] == "No advice so far."
    assert [ln for ln in lines if "Reasoning chain" in ln] == [
        "1. Reasoning chain and comments (correct in full)",
        "2. Reasoning chain and comments (correct in full)",
    ]
    assert lines.count("---") == 4 and len(lines) == 1 + 2 * (1 + 2 + 3 + 3)


@pytest.mark.usefixtures("exact_critics")
def test_condensing_an_experience_again_keeps_it_as_it_is() -> None:
    once = "\n".join(condensed("\n".join([entry(1, WRONG), entry(2, RIGHT), entry(3, OTHER)])))
    assert "\n".join(condensed(once)) == once


@pytest.mark.usefixtures("exact_critics")
def test_condensing_keeps_the_newest_forty_lessons() -> None:
    lessons = "\n".join(
        f"Step 1: {n} + 1 leaves too little. Advice: do not use {n} + 1. "
        "Recommendation or Reject: Reject."
        for n in range(50)
    )
    lines = condensed(f"1. Reasoning chain and comments\n{lessons}")
    assert len(lines) == 41
    assert lines[1].startswith("- 10 + 1 leaves") and lines[-1].startswith("- 49 + 1 leaves")


@pytest.mark.usefixtures("exact_critics")
def test_condensing_keeps_a_chain_whose_analysis_was_unreadable_when_it_makes_24() -> None:
    # No verdicts to go by: the reader replays each chain from the hand.
    unread = g24.parse_feedback("I like turtles", 3)
    lines = condensed("\n".join([unread.entry(1, OTHER), unread.entry(2, RIGHT)]))
    start = lines.index("1. Reasoning chain and comments (correct in full)")
    assert lines[start + 1 : start + 6] == [
        "---",
        *[f"Step {i}: {step}" for i, step in enumerate(RIGHT, 1)],
        "---",
    ]
    assert "2. Reasoning chain and comments (correct in full)" not in lines  # OTHER makes 36


@pytest.mark.usefixtures("exact_critics")
def test_condensing_drops_an_advice_line_with_nothing_in_its_fields() -> None:
    unread = g24.parse_feedback("I like turtles", 3)
    assert condensed(unread.entry(1, OTHER)) == ["No advice so far."]
    # The lessons after such a line are still read.
    lines = condensed("\n".join([unread.entry(1, OTHER), entry(2, WRONG)]))
    assert lines[:2] == [
        "Advice and error reports so far:",
        "- 8 - 8 = 0 leaves numbers that cannot make 24. Advice: do not use "
        "8 - 8 = 0 from 4 7 8 8; combine a different pair. Recommendation or Reject: Reject.",
    ]


@pytest.mark.parametrize(
    "user",
    [
        "The numbers are: 4 7 8 8.\n#####\nStep 1: x\n#####",  # no target
        "Task: make 24.\n#####\nStep 1: x\n#####",  # no numbers
        "Task: make 24.\nThe numbers are: 4 7 8 8.\nNothing learnt yet.",  # no experience
    ],
)
def test_a_condense_prompt_missing_a_part_is_refused(user: str) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        reply("bot_condense", (Message("user", user),), 1)


# ---------------------------------------------------------------- how alike two steps are


def similarity(a: str, b: str, seed: int = 1, temp: float = 0.7) -> str:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.SIMILAR, a=a, b=b)
    return reply("bot_similar", prompt, seed, temp)


SAME = "Both steps combine the same numbers with the same operation.\nSimilarity: 100%"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("7 - 4 = 3 (left: 3 8 8)", "7 - 4 = 3 (left: 3 8 8)", True),
        ("8 + 4 = 12 (left: 7 8 12)", "4 + 8 = 12 (left: 7 8 12)", True),
        ("8 * 4 = 32 (left: 7 8 32)", "4 * 8 = 32 (left: 7 8 32)", True),
        ("8 - 4 = 4 (left: 4 7 8)", "4 - 8 = -4 (left: -4 7 8)", False),
        ("8 / 4 = 2 (left: 2 7 8)", "4 / 8 = 1/2 (left: 1/2 7 8)", False),
        ("8 + 4 = 12 (left: 7 8 12)", "8 * 4 = 32 (left: 7 8 32)", False),
    ],
)
def test_the_same_numbers_by_the_same_operation_are_the_same_step(
    a: str, b: str, same: bool
) -> None:
    assert (similarity(a, b) == SAME) is same


def percents(a: str, b: str, temp: float, seeds: int = 300) -> list[int]:
    out = []
    for seed in range(seeds):
        text = similarity(a, b, seed, temp)
        assert text.startswith("The steps share some of their numbers and words.\n"), text
        found = re.fullmatch(r"Similarity: (\d+)%", text.splitlines()[-1])
        assert found, text
        out.append(int(found.group(1)))
    return out


def test_two_steps_are_compared_by_what_they_do_not_by_what_is_left() -> None:
    # 8 - 4 = 4 against 8 / 4 = 2: two of their four tokens match (8 and 4): 50 %, by eye.
    got = percents("8 - 4 = 4 (left: 4 7 8)", "8 / 4 = 2 (left: 2 7 8)", 0.0, 400)
    assert statistics.mean(got) == pytest.approx(50, abs=0.4)
    assert 2.5 < statistics.stdev(got) < 3.5  # 3 points off either way at temperature 0
    hot = percents("8 - 4 = 4 (left: 4 7 8)", "8 / 4 = 2 (left: 2 7 8)", 1.0, 600)
    assert 7.4 < statistics.stdev(hot) < 8.6  # 3 + 5 points at temperature 1


def test_texts_that_are_not_steps_are_compared_word_for_word_whatever_their_case() -> None:
    # Three of four words in common: 75 %, by eye.
    got = percents("Add the two eights", "add THE two fours", 0.0, 400)
    assert statistics.mean(got) == pytest.approx(75, abs=0.4)
    # The same text is never judged above 99 %, nor anything below 0 %.
    assert max(percents("Add the two eights", "Add the two eights", 1.0, 100)) == 99
    none = Counter(percents("Add the two eights", "keep it", 0.0, 100))
    assert min(none) == 0 and none[0] >= 30


def test_a_text_without_numbers_or_words_shares_nothing() -> None:
    assert similarity("???", "8 - 4 = 4") == "Similarity: 0%"
    assert similarity("8 - 4 = 4", "...") == "Similarity: 0%"


# ---------------------------------------------------------------- ToT's value, answer and judge


def test_a_lone_number_is_sure_when_it_is_24_and_impossible_otherwise() -> None:
    # GPT-4 never erred on a lone 24; on another lone number it said "likely" 1.1 % of the
    # time (critics.VALUE_UNREACHABLE[1]).
    assert {value("24", s) for s in range(20)} == {"24: I can reach 24 from here\nsure"}
    said = Counter(value("25", s).splitlines()[-1] for s in range(1000))
    assert set(said) <= {"impossible", "likely"} and said["likely"] <= 25, said


def shares(numbers: str, seeds: int = 2000) -> dict[str, float]:
    said = Counter(value(numbers, s).splitlines()[-1] for s in range(seeds))
    return {word: said[word] / seeds for word in ("sure", "likely", "impossible")}


@pytest.mark.parametrize(
    ("numbers", "can"),
    [("4 6", True), ("2 3", False), ("3 8 9", True), ("7 7 70", False), ("1/3 5 7", False)],
)
def test_the_value_words_come_at_the_shares_gpt4_gave_them(numbers: str, can: bool) -> None:
    # Two numbers are no longer checked in full, nor three tried a few times: the engine
    # works the numbers out and says each word as often as GPT-4 did in ToT's run, for
    # numbers that could (or could not) make 24 (critics.VALUE_*).
    size = len(numbers.split())
    want = (critics.VALUE_REACHABLE if can else critics.VALUE_UNREACHABLE)[size]
    got = shares(numbers)
    for word, share in zip(("sure", "likely", "impossible"), want, strict=True):
        assert got[word] == pytest.approx(share, abs=0.03), (numbers, got)


def test_the_value_of_a_state_is_whether_the_critic_could_make_24_not_a_few_tries() -> None:
    # 1 5 5 5 makes 24 only through a fraction (5 * (5 - 1 / 5)), which the engine's own
    # tries rarely think of: the critic's working finds it, so it is judged as reachable.
    got = shares("5 5 1/5", 1000)
    assert got["impossible"] == pytest.approx(critics.VALUE_REACHABLE[3][2], abs=0.03)


def final(hand: str, steps: list[str]) -> str:
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.COT, steps=tuple(steps))
    return reply("answer", prompt, 1)


def test_tots_answer_builds_the_expression_of_the_steps_it_reads() -> None:
    steps = ["8 / 8 = 1 (left: 1 4 7)", "7 - 1 = 6 (left: 4 6)", "6 * 4 = 24 (left: 24)"]
    assert final("4 7 8 8", steps) == "Answer: (7 - 8 / 8) * 4 = 24"
    # A line that is no step is passed over, not the end of the reading.
    noisy = [steps[0], "Let me think.", *steps[1:]]
    assert final("4 7 8 8", noisy) == "Answer: (7 - 8 / 8) * 4 = 24"


def test_tots_answer_writes_what_the_steps_end_with_even_when_it_is_not_24() -> None:
    steps = ["8 + 8 = 16 (left: 4 7 16)", "16 - 7 = 9 (left: 4 9)", "9 * 4 = 36 (left: 36)"]
    assert final("4 7 8 8", steps) == "Answer: (8 + 8 - 7) * 4 = 36"
    # A division by zero is written, its value taken as 0 by the steps after it.
    zero = ["4 - 4 = 0 (left: 0 6 24)", "6 / 0 = 0 (left: 0 24)", "24 + 0 = 24 (left: 24)"]
    assert final("4 4 6 24", zero).startswith("Answer: 24 + 6 / (4 - 4) = ")
    # Steps that stop early leave more than one expression, written side by side.
    assert final("1 4 6", ["4 * 6 = 24 (left: 1 24)"]) == "Answer: 1 4 * 6 = 1 24"


def judged(hand: str, answer: str, seeds: int = 400) -> Counter[str]:
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.JUDGE, answer=answer)
    return Counter(reply("judge", prompt, s) for s in range(seeds))


def test_the_judge_rereads_the_answer_and_misjudges_at_gpt4s_rates() -> None:
    # GPT-4's judge in ToT's run called 26.4 % of right answers impossible and 15.8 % of
    # wrong ones sure (critics.JUDGE_*); the engine's judge does the same.
    seeds = 2000
    right = judged("4 7 8 8", "(7 - 8 / 8) * 4", seeds)
    wrong = judged("4 7 8 8", "(8 + 8 - 7) * 4", seeds)
    assert set(right) == set(wrong) == {"Judge: sure", "Judge: impossible"}
    assert right["Judge: impossible"] / seeds == pytest.approx(
        critics.JUDGE_FALSE_IMPOSSIBLE, abs=0.03
    )
    assert wrong["Judge: sure"] / seeds == pytest.approx(critics.JUDGE_FALSE_SURE, abs=0.03)
    # An answer that does not use the hand's numbers is wrong whatever it comes to.
    for answer in ("4 * 6", "(7 - 8 / 8) *"):  # the second is unreadable
        assert judged("4 7 8 8", answer, seeds)["Judge: sure"] / seeds == pytest.approx(
            critics.JUDGE_FALSE_SURE, abs=0.03
        )


# ---------------------------------------------------------------- IO's habit, ToT's proposals


def io_answers(hand: str, seeds: int = 400) -> Counter[str]:
    """IO's answers from one engine (its habits are its own), one per sample."""
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.IO)
    engine = OfflineModel(seed=3)
    out: Counter[str] = Counter()
    for s in range(seeds):
        call = Call(Purpose.IO, prompt, Sampling(0.7, 1.0, 1, 600, ()), {}, sample_offset=s)
        out[asyncio.run(engine.generate(call)).text.splitlines()[-1]] += 1
    return out


def test_io_repeats_a_habitual_answer_and_otherwise_tries_twice_on_its_own() -> None:
    # Two samples in three give the hand's habitual answer (here a wrong one: it makes 5);
    # the others try twice, and one time in two fall back on the habit when both fail.
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    said = io_answers("4 7 8 8")
    habit, count = said.most_common(1)[0]
    assert habit == "Answer: 7 - 8 / (8 - 4) = 24" and 0.58 < count / 400 < 0.74, count
    right = sum(n for text, n in said.items() if domain.check(domain.parse_answer(text)).ok)
    assert 0.17 < right / 400 < 0.28, right


def test_proposals_list_five_to_eight_steps() -> None:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(
        Role.PROPOSE, state=Hand.parse("4 7 8 8").start()
    )
    counts = Counter(len(reply("propose", prompt, s).splitlines()) for s in range(200))
    assert set(counts) == {5, 6, 7, 8}, counts


def test_the_worked_examples_teach_each_operations_share_of_their_steps() -> None:
    # Counted independently: the operators of each example's answer, read as text.
    text = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.IO)[-1].content
    answers = re.findall(r"^Answer: (.*) = 24$", text, re.MULTILINE)
    assert len(answers) >= 3
    ops = Counter(op for answer in answers for op in re.findall(r" ([-+*/]) ", answer))
    habits = read_habits(text, Fraction(24))
    assert habits is not None
    total = sum(ops.values())
    assert dict(habits.ops) == {op: ops[op] / total for op in "+-*/"}


def test_an_operation_inside_a_negation_counts_among_an_examples_steps() -> None:
    text = "Input: 4 6 8\nAnswer: -(4 - 8) * 6 = 24\nInput: 4 7 8 8\n"
    habits = read_habits(text, Fraction(24))
    assert habits is not None
    assert dict(habits.ops) == {"+": 0.0, "-": 0.5, "*": 0.5, "/": 0.0}


# ---------------------------------------------------------------- BoT's step reads the advice


def first_steps(experience: str, seeds: int = 300) -> Counter[str]:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.STEP, experience=experience, chain=[])
    return opening_steps(reply("bot_step", prompt, seed) for seed in range(seeds))


def advice(step: str) -> str:
    return (
        "Advice and error reports so far:\n- Error report: "
        f"{step} leaves numbers that cannot make 24. Advice: do not use {step} from 4 7 8 8; "
        "combine a different pair."
    )


def test_advice_against_a_sum_holds_for_its_numbers_in_either_order_and_no_other_sum() -> None:
    told = first_steps(advice("8 + 4 = 12"))
    assert told["8 + 4"] + told["4 + 8"] <= 2
    assert told["8 + 7"] + told["7 + 4"] >= 15  # other sums are played as before


def test_advice_against_a_difference_holds_for_that_order_only() -> None:
    assert first_steps(advice("8 - 4 = 4"))["8 - 4"] <= 3
    assert first_steps(advice("4 - 8 = -4"))["8 - 4"] >= 30  # 8 - 4 is another step


def test_a_step_its_chains_analysis_recommended_is_taken_about_six_times_as_often() -> None:
    # 8 + 7 opens 4 of 200 samples unprompted; recommended in a chain whose second step was
    # rejected, its weight is tripled (a chain recommended in full would multiply it by 40).
    mixed = chain_entry(
        ["8 + 7 = 15 (left: 4 8 15)", "15 * 4 = 60 (left: 8 60)"], ["Recommend", "Reject"]
    )
    assert first_steps("", 200)["8 + 7"] <= 8
    assert 12 <= first_steps(mixed, 200)["8 + 7"] <= 30


def test_a_step_its_chains_analysis_rejected_is_all_but_never_taken_again() -> None:
    rejected = chain_entry(
        ["8 - 7 = 1 (left: 1 4 8)", "8 * 1 = 8 (left: 4 8)"], ["Reject", "Reject"]
    )
    assert first_steps("", 200)["8 - 7"] >= 20
    assert first_steps(rejected, 200)["8 - 7"] <= 2


def test_a_tight_nucleus_keeps_only_the_heaviest_steps() -> None:
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.STEP, experience="", chain=[])
    free = first_steps("", 200)
    tight = opening_steps(reply("bot_step", prompt, s, 0.7, 0.1) for s in range(200))
    assert len(tight) <= 8 < len(free)
    assert tight.most_common(1)[0][0] in {step for step, _ in free.most_common(3)}


def test_advice_for_other_numbers_does_not_stop_the_reading_of_the_rest() -> None:
    both = (
        "Advice and error reports so far:\n"
        "- Advice: do not use 1 + 2 = 3 from 1 2 3 4; combine a different pair.\n"
        "- Advice: do not use 8 - 7 = 1 from 4 7 8 8; combine a different pair."
    )
    assert first_steps(both, 200)["8 - 7"] <= 2


def test_a_condensed_experience_is_read_for_its_advice_and_its_right_chains() -> None:
    once = "\n".join(condensed("\n".join([entry(1, WRONG), entry(2, RIGHT)])))
    assert once.startswith("Advice and error reports so far:")
    assert first_steps(once, 100)["8 / 8"] >= 80  # RIGHT's opening, recommended in full


def test_a_chain_shown_without_a_heading_is_read_too() -> None:
    shown = "---\n" + "\n".join(f"Step {i}: {s}" for i, s in enumerate(RIGHT, 1)) + "\n---"
    assert first_steps(shown, 100)["8 / 8"] >= 80


def test_a_chains_verdicts_count_over_where_the_chain_ends() -> None:
    # RIGHT makes 24, but its analysis rejected its opening: the verdict is what is read.
    misjudged = chain_entry(RIGHT, ["Reject", "Recommend", "Recommend"])
    assert first_steps(misjudged, 200)["8 / 8"] <= 2


# ---------------------------------------------------------------- BoT's evaluation of a step


def evaluation_of(hand: str, step: str, seed: int, temp: float = 0.7) -> str:
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.EVALUATE, chain=[], step=step)
    return reply("bot_evaluate", prompt, seed, temp)


@pytest.mark.parametrize("temp", [0.0, 1.5])
def test_an_evaluation_is_judged_calmly_whatever_the_sampling_temperature(temp: float) -> None:
    # 4 * 6 = 24 leaves 1 24, which surely makes 24 (a promise of 0.95); read with a spread
    # of 0.12 at any temperature, a score falls to 0.7 or below about one time in ten.
    said = Counter(evaluation_of("1 4 6", "4 * 6 = 24 (left: 1 24)", s, temp) for s in range(400))
    assert said["Evaluation score: 0.9"] + said["Evaluation score: 1"] > 300
    low = 400 - said["Evaluation score: 0.9"] - said["Evaluation score: 1"]
    assert 0.05 < low / 400 < 0.17, said


def test_an_evaluation_prompt_without_its_step_is_refused() -> None:
    # Without the line that asks for it, nothing in the prompt says what it asks for (the
    # role is read from the text, not from the call's purpose).
    prompt = Game24Domain(Hand.parse("1 4 6")).prompt(Role.EVALUATE, chain=[], step="x")
    broken = tuple(Message(m.role, m.content.replace("The next step", "A step")) for m in prompt)
    with pytest.raises(ModelError, match="cannot read this as any Game of 24 prompt"):
        reply("bot_evaluate", broken, 1)


def test_an_evaluation_reads_a_hard_state_as_middling() -> None:
    # 8 - 8 = 0 leaves 0 4 7: no try makes 24, yet the numbers are in range (a promise of
    # 0.55): mostly 0.5, often 0.7 or 0.3, never 0.1 or 1.
    said = Counter(evaluation_of("4 7 8 8", "8 - 8 = 0 (left: 0 4 7)", s) for s in range(400))
    assert said.most_common(1)[0][0] == "Evaluation score: 0.5"
    assert said["Evaluation score: 0.7"] > 60 and said["Evaluation score: 0.3"] > 20
    assert set(said) <= {f"Evaluation score: {x}" for x in ("0.3", "0.5", "0.7", "0.9")}


def test_a_sure_step_is_scored_both_0_9_and_1() -> None:
    said = Counter(evaluation_of("1 4 6", "4 * 6 = 24 (left: 1 24)", s) for s in range(400))
    assert said["Evaluation score: 0.9"] > 100 and said["Evaluation score: 1"] > 100


@pytest.mark.parametrize(
    ("step", "scores"),
    [
        ("24 * 1 = 24 (left: 24)", ("1", "0.9", "0.7")),  # the last step makes 24
        ("24 + 1 = 25 (left: 25)", ("0.1", "0.3", "0.5")),  # the last step misses it
    ],
)
def test_the_last_steps_evaluation_is_whether_it_makes_24(
    step: str, scores: tuple[str, str, str]
) -> None:
    prompt = Game24Domain(Hand.parse("1 4 6")).prompt(
        Role.EVALUATE, chain=[("4 * 6 = 24 (left: 1 24)", 0.9)], step=step
    )
    said = Counter(reply("bot_evaluate", prompt, s).split(": ")[1] for s in range(200))
    # Mostly the first score, often the second, now and then the third.
    assert set(said) <= set(scores) and said[scores[0]] > 100 and said[scores[1]] >= 5, said


def test_two_numbers_that_cannot_make_24_are_scored_low() -> None:
    said = Counter(evaluation_of("1 4 6", "1 + 4 = 5 (left: 5 6)", s) for s in range(200))
    assert said["Evaluation score: 0.1"] >= 150, said


# ---------------------------------------------------------------- where BoT's chain has got to


def step_after(chain_step: str, experience: str = "") -> str:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    chain = [(chain_step, 0.9)] if chain_step else []
    return reply("bot_step", domain.prompt(Role.STEP, experience=experience, chain=chain), 1)


def test_bots_next_step_plays_the_chain_rather_than_trusting_its_written_set() -> None:
    # The chain says its new set is 1 4 9; 8 / 8 from 4 7 8 8 leaves 4 7 1.
    written = (
        "Step 1, Current set: 4 7 8 8, Two numbers selected: 8 8, Operation: /, New number "
        "calculated: 1, Remaining numbers: 4 7, New set: 1 4 9"
    )
    assert step_after(written).startswith("Step 2, Current set: 4 7 1,")


def test_bots_next_step_takes_the_written_set_of_a_step_it_cannot_play() -> None:
    # 9 / 9 is not on the table: the step's own "New set" is all there is to go by.
    unplayable = (
        "Step 1, Current set: 4 7 8 8, Two numbers selected: 9 9, Operation: /, New number "
        "calculated: 1, Remaining numbers: 4 7, New set: 1 4 7 8"
    )
    assert step_after(unplayable).startswith("Step 2, Current set: 1 4 7 8,")


def test_advice_whose_numbers_cannot_be_read_is_passed_over() -> None:
    unread = (
        "Advice and error reports so far:\n- Advice: do not use 8 - 4 = 4 from -; combine a "
        "different pair."
    )
    assert step_after("", unread).startswith("Step 1, Current set: 4 7 8 8,")


@pytest.mark.parametrize(("last", "left", "score"), [("*", "24", "1.0"), ("+", "10", "0.1")])
def test_bots_step_after_a_finished_chain_has_nothing_to_combine(
    last: str, left: str, score: str
) -> None:
    steps = [
        "8 / 8 = 1 (left: 1 4 7)",
        "7 - 1 = 6 (left: 4 6)",
        f"6 {last} 4 = {left} (left: {left})",
    ]
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    prompt = domain.prompt(Role.STEP, experience="", chain=[(s, 0.9) for s in steps])
    assert reply("bot_step", prompt, 1) == (
        f"Step 4: only {left} is left, so there is nothing to combine. Evaluation score: {score}"
    )


def test_bots_last_step_leaves_no_remaining_numbers() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    steps = [("8 / 8 = 1 (left: 1 4 7)", 0.9), ("7 - 1 = 6 (left: 4 6)", 0.9)]
    for seed in range(5):
        text = reply("bot_step", domain.prompt(Role.STEP, experience="", chain=steps), seed)
        assert text.startswith("Step 3, Current set: 4 6,") and ", Remaining numbers: none," in text


@pytest.mark.parametrize(
    "user",
    [
        "Take the next step.",  # no numbers, no target
        "Task: make 24.\nThe numbers are: 4 7 8 8.\nTake the next step.",  # no chain block
    ],
)
def test_a_bot_step_prompt_missing_a_part_is_refused_by_name(user: str) -> None:
    # The step prompt is known by its request (markers.G24_STEP), the missing part named.
    with pytest.raises(ModelError, match="Game of 24 bot_step prompt"):
        reply("bot_step", (Message("user", f"{user}\n{G24_STEP}"),), 1)


# ---------------------------------------------------------------- reading and writing numbers


@pytest.mark.parametrize(
    ("hand", "steps", "answer"),
    [
        ("2 4 48", ["4 * 2 = 8 (left: 8 48)", "48 / 8 = 6 (left: 6)"], "48 / (4 * 2) = 6"),
        ("1 2 3", ["2 + 3 = 5 (left: 1 5)", "1 + 5 = 6 (left: 6)"], "1 + 2 + 3 = 6"),
        ("1 2 3", ["2 - 3 = -1 (left: -1 1)", "1 - (-1) = 2 (left: 2)"], "1 - (2 - 3) = 2"),
    ],
)
def test_an_expression_has_the_parentheses_it_needs_and_no_more(
    hand: str, steps: list[str], answer: str
) -> None:
    assert final(hand, steps) == f"Answer: {answer}"


def test_a_result_written_in_parentheses_is_shown_without_them() -> None:
    lines = analysis("1 4 6", ["1 / 4 = (1/5) (left: 1/5 6)", "I give up"])
    assert lines[1] == rejected(1, "1 / 4 = 1/5", "1 4 6")


def test_a_hand_of_six_numbers_is_played() -> None:
    text = reply("io", Game24Domain(Hand.parse("1 2 3 4 5 6")).prompt(Role.IO), 1)
    assert text.startswith("Answer: ") and text.endswith(" = 24")


# ---------------------------------------------------------------- how a result is written


def written_results(temp: float, seeds: int = 600) -> list[tuple[Fraction, str]]:
    """(exact result, as written) for every proposal from 1 2 over ``seeds`` samples."""
    state = State((Fraction(1), Fraction(2)))
    prompt = Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.PROPOSE, state=state)
    out = []
    for seed in range(seeds):
        for line in reply("propose", prompt, seed, temp).splitlines():
            found = re.fullmatch(r"(\d+) ([-+*/]) (\d+) = (\S+) \(left: .*\)", line)
            assert found, line
            a, op, b = Fraction(found[1]), found[2], Fraction(found[3])
            exact = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]
            out.append((exact, found[4]))
    return out


def slips(results: list[tuple[Fraction, str]]) -> list[Fraction]:
    """How far each result written wrong is off (decimals of a fraction are not slips)."""
    out = []
    for exact, text in results:
        if text == f"{float(exact):.2f}" and exact.denominator != 1:
            continue
        value = Fraction(text)
        if value != exact:
            out.append(value - exact)
    return out


def test_a_result_now_and_then_slips_by_one_or_two_more_often_when_hot() -> None:
    warm = written_results(0.7)
    off = slips(warm)
    assert set(off) == {-2, -1, 1, 2}
    assert 0.012 < len(off) / len(warm) < 0.04  # 2 % x (0.5 + 0.7)
    cold, hot = written_results(0.0, 300), written_results(1.5, 300)
    assert len(slips(cold)) / len(cold) < 0.02 < 0.028 < len(slips(hot)) / len(hot) < 0.06


def test_a_fraction_is_written_as_a_decimal_about_half_the_time_and_a_whole_number_never() -> None:
    results = written_results(0.7)
    halves = [text for exact, text in results if exact == Fraction(1, 2)]
    assert set(halves) >= {"1/2", "0.50"} and 0.35 < halves.count("0.50") / len(halves) < 0.65
    assert not [t for exact, t in results if exact.denominator == 1 and "." in t]
