"""What a race's result says: the player's answer as read (spaced, not as typed), and for a
solver that filled part of a crossword, how much it filled rather than "found no answer"."""

from __future__ import annotations

from puzzles.crossword import generate
from puzzles.game24 import Hand
from solver import events as ev
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen


def finished(answer: str | None) -> ev.RunFinished:
    return ev.RunFinished(
        answer=answer,
        solved=False,
        verdict="not solved",
        calls=3,
        prompt_tokens=0,
        completion_tokens=0,
        cost=None,
        wall_time=1.0,
    )


def test_the_players_24_answer_is_shown_as_read() -> None:
    screen = Game24Screen(Hand.parse("7 9 10 12"), "easy")
    assert screen.answer_text("12+10+9-7") == "12 + 10 + 9 - 7 = 24"
    assert screen.answer_text("(3+5)*(12/4)") == "(3 + 5) × 12 ÷ 4 = 24"
    assert screen.answer_text("(3+5") == "(3+5 = ?"  # unreadable: as typed, no value


def test_a_crossword_solver_that_filled_part_of_the_grid_says_how_much() -> None:
    crossword = generate(7)
    screen = CrosswordScreen(crossword, "open")
    rows = [list(row) for row in crossword.solution]
    rows[0][0] = "_"  # one square left empty
    rows[1][1] = "Q" if rows[1][1] != "Q" else "Z"  # one wrong letter
    answer = "/".join("".join(row) for row in rows)
    total = sum(1 for _ in crossword.grid.cells())
    said = screen.solver_shortfall(finished(answer))
    assert said == f"filled {total - 1} of {total} letters, {total - 2} right"
    assert screen.solver_shortfall(finished(None)) == "found no answer"
