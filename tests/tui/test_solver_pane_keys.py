"""The solver's pane while the player plays, at 80x24: its answer hidden until the player
solves or gives up (v, or a crossword's ctrl+g, shows it), the pane enlarged with ctrl+z and
shrunk again, and the pause hiding the puzzle in every kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from puzzles.crossword import generate
from puzzles.game24 import Hand
from solver import events as ev
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import HelpScreen
from tui.screens.game24 import Game24Screen
from tui.screens.puzzle import PauseScreen, PuzzleScreen
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.solver_pane import SolverPane

SMALL = (80, 24)
ANSWER = "(9 - 3) × (8 - 4) = 24"


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


def status(pane: SolverPane) -> str:
    return str(pane.query_one("#solver-status", Static).render())


def on_top(app: PonderApp) -> object:
    return app.screen


async def open_screen(pilot: Pilot[None], screen: PuzzleScreen) -> SolverPane:
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen.query_one(SolverPane)


def solver_finishes(screen: PuzzleScreen, answer: str) -> None:
    """The solver's run ends with ``answer``, as its events reach the screen."""
    pane = screen.query_one(SolverPane)
    pane.reset("bot", "offline")
    screen.receive(ev.RunFinished(answer, True, "", 1, 1, 1, 0.0, 0.1, "done", 1, 0))
    screen.flush_events(everything=True)


async def test_the_solvers_answer_waits_until_the_hand_is_over_or_asked_for(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = Game24Screen(Hand.parse("3 4 8 9"), "easy")
        pane = await open_screen(pilot, screen)
        solver_finishes(screen, "(9 - 3) * (8 - 4) = 24")
        assert "solved" in status(pane) and "hidden while you play (v shows it)" in status(pane)
        assert ANSWER not in status(pane)
        await pilot.press("v")
        assert ANSWER in status(pane)
        await pilot.press("v")
        assert ANSWER not in status(pane)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "hidden until you solve or give up: v shows it" in app.screen.notes
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("g", "y")  # giving up shows it
        await wait_for(pilot, lambda: screen.gave_up)
        assert ANSWER in status(pane)


async def test_a_word_problems_answer_is_hidden_too(app: PonderApp) -> None:
    from puzzles.wordproblem import generate as problems

    async with app.run_test(size=SMALL) as pilot:
        problem = problems(3, count=1, level="easy")[0]
        screen = WordProblemScreen(problem, "easy")
        pane = await open_screen(pilot, screen)
        solver_finishes(screen, problem.answer_text)
        assert "hidden while you play" in status(pane)
        assert f"answer: {problem.answer_text}" not in status(pane)
        await pilot.press("v")
        assert "hidden" not in status(pane)


async def test_a_crosswords_board_shows_with_the_ghost_only(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        mini = generate(7, blocks=False)
        screen = CrosswordScreen(mini, "open")
        pane = await open_screen(pilot, screen)
        board = "/".join(mini.solution)
        solver_finishes(screen, board)
        assert board not in status(pane) and "hidden while you play (ctrl+g" in status(pane)
        await pilot.press("v")  # a letter here
        assert board not in status(pane) and screen.board.filled == 1
        await pilot.press("ctrl+g")
        assert board in status(pane)
        await pilot.press("ctrl+g")
        assert board not in status(pane)


@pytest.mark.parametrize("kind", ["game24", "crossword"])
async def test_ctrl_z_enlarges_the_pane_and_esc_or_ctrl_z_shrinks_it(
    app: PonderApp, kind: str
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen: PuzzleScreen
        if kind == "game24":
            screen = Game24Screen(Hand.parse("3 4 8 9"), "easy")
        else:
            screen = CrosswordScreen(generate(7, blocks=False), "open")
        pane = await open_screen(pilot, screen)
        narrow = pane.size.width
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.maximized is pane and pane.size.width > narrow + 20
        assert screen.focused is not None and pane in screen.focused.ancestors
        assert pane.region.x == 0  # the puzzle's column is not drawn meanwhile
        assert pane.region.width == SMALL[0]  # the screen's width exactly: no line runs off
        await pilot.press("escape")  # esc shrinks it (and does not leave the puzzle)
        await pilot.pause()
        assert screen.maximized is None and on_top(app) is screen and pane.size.width == narrow
        assert screen.focused is screen.puzzle_focus()  # the keys are the puzzle's again
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.maximized is pane
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert screen.maximized is None and pane.size.width == narrow


async def test_p_pauses_a_hand_with_the_cards_hidden(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = Game24Screen(Hand.parse("3 4 8 9"), "easy")
        await open_screen(pilot, screen)
        await pilot.press("1")
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, PauseScreen) and screen.paused_at is not None
        assert "Paused" in str(app.screen.query_one("#pause-text", Static).render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: on_top(app) is screen)
        assert screen.paused_at is None and screen.first == 0  # the chosen card kept
