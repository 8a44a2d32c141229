"""What the domains' reading limits cut short is not read as if whole.

Each domain reads a bounded part of a reply (20,000 characters) and of each line (400 or 600
characters), so hostile replies cost linear time. A limit can fall inside what the model
wrote: ``8 / 8 = 12`` cut to ``8 / 8 = 1`` is a true claim the model never made, ``CEDES`` cut
to ``CEDE`` a word of the wrong length it never wrote. What a limit may have cut short is not
read at all; what ends before it is read as usual.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from puzzles.crossword import generate
from puzzles.game24 import Hand
from puzzles.wordproblem import WordProblem
from solver.domains.crossword import CrosswordDomain
from solver.domains.game24 import Game24Domain
from solver.domains.reading import clip_text, reads_the_same, whole_lines
from solver.domains.wordproblem import WordProblemDomain, parse_answer


def padded(tail: str, cut_at: int, keep: int) -> str:
    """A line of prose ending in ``tail``, placed so that a cap of ``cut_at`` characters
    keeps the first ``keep`` characters of ``tail``."""
    prose = ("We think it through carefully. " * 40)[: cut_at - keep]
    return prose + tail


def test_whole_lines_leaves_out_the_line_the_limit_cuts_through() -> None:
    assert whole_lines("one\ntwo\nthree", 100) == "one\ntwo\nthree"
    assert whole_lines("one\ntwo\nthree", 10) == "one\ntwo\n"
    assert whole_lines("one\ntwo\nthree", 7) == "one\ntwo"  # the limit falls on a line end
    assert whole_lines("a single long line", 5) == ""


def test_a_cut_line_is_read_only_where_the_cut_changes_nothing() -> None:
    def first_word(text: str) -> str | None:
        return text.split()[0] if text.split() else None

    assert reads_the_same(first_word, "TROLL and so on", "TROLL")
    assert not reads_the_same(first_word, "CEDE", "CEDE")


GAME = Game24Domain(Hand.parse("4 7 8 8"))


@pytest.mark.parametrize("keep", range(7, 12))
def test_a_game24_step_the_line_cap_cuts_short_is_not_read(keep: int) -> None:
    # " 8 / 8 = 12" is 11 characters: kept up to its "1", or whole with nothing after it.
    line = padded(" 8 / 8 = 12 (left: 4 7 12)", 400, keep)
    assert GAME.parse_steps(line, GAME.start()) == []


def test_a_game24_step_that_ends_before_the_line_cap_is_read() -> None:
    line = padded(" 8 / 8 = 12 (left: 4 7 12)", 400, 16)
    (step,) = GAME.parse_steps(line, GAME.start())
    assert step.claimed == "12" and not step.valid and "actually 1" in step.problem


def test_a_bot_step_whose_fields_the_line_cap_cuts_short_is_not_read() -> None:
    tail = " Two numbers selected: 8 8, Operation: /, New number calculated: 12, Remaining"
    cut = padded(tail, 400, len(tail) - len("2, Remaining"))
    assert GAME.parse_steps(cut, GAME.start()) == []
    whole = padded(tail, 400, len(tail) - len("ing"))
    (step,) = GAME.parse_steps(whole, GAME.start())
    assert step.claimed == "12" and not step.valid


def test_a_game24_reply_past_the_reply_limit_loses_only_its_cut_line() -> None:
    # The limit keeps "7 - 1 = 6" of "7 - 1 = 60": a true claim the model never made.
    first = "8 / 8 = 1 (left: 1 4 7)\n"
    prose = "x" * (20000 - len(first) - 1 - len("7 - 1 = 6"))
    reply = f"{first}{prose}\n7 - 1 = 60 (left: 4 60)"
    assert reply[:20000].endswith("\n7 - 1 = 6")
    steps = GAME.parse_steps(reply, GAME.start())
    assert [s.text for s in steps] == ["8 / 8 = 1 (left: 1 4 7)"]


WORD = WordProblemDomain(WordProblem("Ann has 300 pens and buys 900. How many?", Fraction(1200)))


def test_a_word_problem_claim_the_line_cap_cuts_short_is_not_read() -> None:
    line = padded(" so 300 + 900 = 1200 pens.", 600, len(" so 300 + 900 = 12"))
    assert WORD.parse_steps(line, WORD.start()) == []


def test_a_word_problem_answer_the_line_cap_cuts_short_is_not_read() -> None:
    cut = padded(" Answer: 1200 pens", 600, len(" Answer: 12"))
    assert WORD.parse_steps(cut, WORD.start()) == []
    whole = padded(" Answer: 1200 pens", 600, len(" Answer: 1200 pe"))
    (step,) = WORD.parse_steps(whole, WORD.start())
    assert step.answer == "1200"


def test_a_final_answer_line_cut_by_the_reply_limit_is_not_the_answer() -> None:
    reply = "Answer: 1100\n" + "x" * (20000 - len("Answer: 1100\n") - 10) + "\nAnswer: 1200"
    assert len(reply) > 20000 and parse_answer(reply) == "1100"


CROSS = CrosswordDomain(generate(5))  # ACRES / TROLL / TABOO / INEPT / CEDES


@pytest.mark.parametrize("keep", [len("-> C"), len("-> CED"), len("-> CEDE"), len("-> CEDES")])
def test_a_crossword_word_the_line_cap_cuts_short_is_not_read(keep: int) -> None:
    line = "h5. " + padded("-> CEDES (high)", 400 - 4, keep)
    assert CROSS.parse_steps(line, CROSS.start()) == []


def test_a_crossword_word_that_ends_before_the_line_cap_is_read() -> None:
    line = "h5. " + padded("-> CEDES (high)", 400 - 4, len("-> CEDES (h"))
    (step,) = CROSS.parse_steps(line, CROSS.start())
    assert (step.name, step.word) == ("h5", "CEDES") and step.valid


def test_a_crossword_grid_row_cut_by_the_reply_limit_is_not_read() -> None:
    head = "Output:\nACRES\nTROLL\nTABOO\nINEPT\n"
    reply = head + "x" * (20000 - len(head) - 3) + "\nCEDES"
    assert CROSS.parse_answer(reply) == "ACRES/TROLL/TABOO/INEPT/_____"


def test_a_clipped_text_ends_where_a_sentence_ends() -> None:
    # Clipped at 40 characters, "8 / 8 = 12 + 3" would read "8 / 8 = 12" (or "= 1").
    text = "First, 4 + 4 = 8. Then 8 / 8 = 12 + 3 is what we get."
    assert clip_text(text, 40) == "First, 4 + 4 = 8. …"
    assert clip_text(text, 200) == text
    assert clip_text("x" * 50, 40) == "…"


def test_an_explanation_clipped_to_4000_characters_claims_only_what_it_says_whole() -> None:
    # The IoT answerer's explanation is read for arithmetic: a claim at the clip is not.
    body = "We count the pens one by one. " * 133  # 3,990 characters
    reply = WORD.parse_reply(
        '{"explanation": "' + body + 'So 300 + 900 = 1200 pens.", "answer": "1200"}'
    )
    assert reply.explanation.endswith("one by one. …")
    assert WORD.claims(reply.explanation) == []
    game = GAME.parse_reply('{"explanation": "' + body + 'So 8 / 8 = 12.", "answer": "1"}')
    assert game.explanation.endswith("one by one. …") and GAME.claims(game.explanation) == []


def test_an_answer_is_judged_whole_or_refused_as_too_long() -> None:
    # A Game of 24 answer is read whole and judged whole: one too long to parse is refused.
    long_sum = "(7 - 8 / 8) * 4" + " + 0" * 200  # 815 characters, still 24
    assert GAME.parse_reply('{"answer": "' + long_sum + '"}').answer == long_sum
    too_long = "(7 - 8 / 8) * 4" + " + 0" * 400
    answer = GAME.parse_reply('{"answer": "' + too_long + '"}').answer
    assert answer == too_long and "too long" in GAME.check(answer).reason
    assert GAME.parse_reply('{"answer": "(7 - 8 / 8) * 4 = 24' + " ok" * 200 + '"}').answer == (
        "(7 - 8 / 8) * 4"
    )
    # A word-problem answer is kept to 1,000 characters, and refused over 200 as too long.
    answer = parse_answer("Answer: " + "1" * 1001)
    assert WORD.check(answer).reason == "the answer is too long (1000 characters; at most 200)"


def test_a_tool_argument_too_long_to_run_whole_is_refused_not_run_in_part() -> None:
    from solver.tools import parse_action

    action = parse_action("Thought: add\nAction 1: calculate[" + "1 + " * 600 + "1]", ["calculate"])
    assert not action.valid
    assert action.problem == "the argument of calculate is too long (2401 characters; at most 2000)"


def test_a_reasoning_thought_is_clipped_where_a_sentence_ends() -> None:
    from solver.tools import parse_action

    text = "Thought: " + "We add the pens. " * 120 + "So 300 + 900 = 1200.\nAction 1: finish[1200]"
    action = parse_action(text, ["finish"])
    assert action.valid and action.thought.endswith("We add the pens. …")
    assert WORD.claims(action.thought) == []


def test_a_final_answer_line_cut_by_the_reply_limit_is_not_delis_answer() -> None:
    from solver.tools import parse_final

    head = "Final Answer: 1100\n"
    reply = head + "x" * (20000 - len(head) - 1 - len("Final Answer: 12")) + "\nFinal Answer: 1200"
    assert parse_final(reply) == "1100"


def test_a_refused_argument_carries_no_arithmetic_to_check() -> None:
    from solver.tools import parse_action

    action = parse_action("Action 1: calculate[" + "1 + " * 600 + "1 = 601]", ["calculate"])
    assert action.argument == "" and WORD.claims(action.argument) == []
