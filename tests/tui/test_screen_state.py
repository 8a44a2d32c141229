"""A puzzle screen draws itself from its state: a new board, a chosen card, a moved cursor, a
mark, a scratchpad line or a hint is shown as soon as it is set, with no redraw asked for. Its
timers run only while there is something to time: the title's clock while the puzzle is played
(not once it is over, nor while it is paused), the solver pane's clock while a run is under
way, and a race's line follows the pane's clock instead of polling it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TypeVar

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from puzzles.crossword import generate
from puzzles.game24 import Hand
from puzzles.wordproblem import Solution, WordProblem
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.puzzle import PauseScreen
from tui.screens.wordproblem import WordProblemScreen, check_line
from tui.widgets.crossword_grid import CrosswordGrid
from tui.widgets.number_card import NumberCard
from tui.widgets.solver_pane import SolverPane

SIZE = (120, 40)

S = TypeVar("S", Game24Screen, CrosswordScreen, WordProblemScreen)


def text(screen: Game24Screen | CrosswordScreen | WordProblemScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_screen(pilot: Pilot[None], screen: S) -> S:
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


# -- the Game of 24: cards, steps and the choice follow the screen's state -------------------


async def test_a_new_board_a_chosen_card_and_a_hint_redraw_the_hand(app: PonderApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, Game24Screen(Hand.parse("4 7 8 8"), "easy"))
        cards = list(screen.query(NumberCard))
        assert [c.value for c in cards[:4]] == ["4", "7", "8", "8"]

        screen.board = screen.board.combine(2, "/", 3)  # 8 / 8: no redraw asked for
        assert [c.value for c in cards[:3]] == ["4", "7", "1"] and not cards[3].display
        assert "1. 8 ÷ 8 = 1" in text(screen, "#steps")

        screen.first = 2
        assert cards[2].has_class("-selected") and not cards[0].has_class("-selected")
        assert text(screen, "#selection") == "8 ÷ 8 = 1 … now an operator"
        screen.op = "*"
        assert text(screen, "#selection") == "8 ÷ 8 = 1 × …"

        undone = screen.board.undo()
        assert undone is not None
        screen.first, screen.board = None, undone
        assert [c.value for c in cards[:4]] == ["4", "7", "8", "8"] and cards[3].display
        assert not any(c.has_class("-selected") for c in cards)
        assert text(screen, "#steps") == "" and text(screen, "#selection") == ""

        assert "hints" not in text(screen, "#puzzle-title")
        screen.hints_used = 2  # the title counts them
        assert "hints 2" in text(screen, "#puzzle-title")


# -- the crossword: the grid, the clue and the title follow the screen's state ---------------


async def test_letters_marks_cursor_and_ghost_redraw_the_grid(app: PonderApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, CrosswordScreen(generate(7), "open"))
        grid = screen.query_one(CrosswordGrid)

        screen.board = screen.board.write((0, 0), "Q")
        assert grid.view is not None and grid.view.board.letter((0, 0)) == "Q"
        screen.wrong = frozenset({(0, 0)})
        assert grid.view.wrong == {(0, 0)}
        screen.right, screen.revealed = frozenset({(0, 1)}), frozenset({(0, 2)})
        assert grid.view.right == {(0, 1)} and grid.view.revealed == {(0, 2)}

        down = next(s for s in screen.crossword.grid.slots if s.direction.value == "down")
        screen.cursor, screen.direction = down.cells[0], down.direction
        assert grid.view.cursor == down.cells[0] and grid.view.word == set(down.cells)
        assert text(screen, "#cw-clue").startswith(f"{down.number} down")

        solved = screen.crossword.solved_board()
        screen.ghost = solved
        assert grid.view.ghost is None  # kept, not shown
        screen.show_ghost = True
        assert grid.view.ghost is solved and "ghost" in text(screen, "#puzzle-title")
        screen.pencil = True
        assert "✎" in text(screen, "#puzzle-title")


# -- the word problem: the scratchpad and the hints follow the screen's state ----------------


async def test_scratch_lines_and_hints_redraw_the_work(app: PonderApp) -> None:
    problem = WordProblem(
        "A wall takes 12 rows of 150 bricks. How many bricks is that?",
        Fraction(1800),
        Solution.parse("That is 12 * 150 = <<12*150=1800>>1800 bricks."),
        topic="measurement",
        level="easy",
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, WordProblemScreen(problem, "easy"))
        pad, shown = screen.query_one("#scratch-lines"), screen.query_one("#hints")
        assert not pad.display and not shown.display  # nothing to show yet
        screen.scratch = tuple(check_line("12 * 150 = 1800"))
        assert pad.display and "Scratchpad" in text(screen, "#scratch-lines")
        assert "1800" in text(screen, "#scratch-lines")
        screen.shown_hints = (("A nudge", "count the bricks in one row"),)
        assert shown.display and "A nudge: count the bricks" in text(screen, "#hints")
        screen.scratch = ()
        assert not pad.display


# -- the clocks: a timer runs only while there is something to time ---------------------------


async def test_the_title_clock_runs_while_playing_and_stops_when_paused_or_won(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, Game24Screen(Hand.parse("4 7 8 8"), "easy"))
        assert screen.ticking and screen.clock_timer is not None

        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PauseScreen))
        assert not screen.ticking and screen.clock_timer is None
        await pilot.press("x")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.ticking and screen.clock_timer is not None

        await pilot.press("e", *"(7-8/8)*4", "enter")
        await wait_for(pilot, lambda: screen.over)
        assert not screen.ticking and screen.clock_timer is None
        assert "Solved" in text(screen, "#message")


async def test_the_title_clock_stops_on_giving_up(app: PonderApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, CrosswordScreen(generate(7), "open"))
        assert screen.clock_timer is not None
        screen.give_up_now()
        assert screen.over and not screen.ticking and screen.clock_timer is None


async def test_the_pane_clock_runs_only_while_a_run_is_under_way(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SolverPane, "TICK", 0.02)  # a quick clock, for a quick test
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, Game24Screen(Hand.parse("4 7 8 8"), "easy"))
        pane = screen.query_one(SolverPane)
        assert not pane.running and pane.ticker is None  # idle: nothing ticks
        pane.reset("bot", "offline")
        assert pane.running and pane.ticker is not None
        await wait_for(pilot, lambda: pane.elapsed > 0)  # its clock goes on by itself
        pane.stopped()
        assert not pane.running and pane.ticker is None


async def test_a_race_line_follows_the_solvers_clock(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    app.race, app.race_delay = True, 10.0  # a handicap home offers: no call for 10 s
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, Game24Screen(Hand.parse("4 7 8 8"), "easy"))
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.running)
        pane.elapsed = 65.0  # as its ticker would, after a minute and five seconds
        assert "is thinking · 0 calls · 1:05" in text(screen, "#race-status")
