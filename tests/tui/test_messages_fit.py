"""At 80x24 the puzzle's messages and a crossword's clue are shown whole: a win, a give-up
and a long clue each keep their last words (the message sits at the bottom of the puzzle's
column; what is above it gives up room first)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from puzzles.crossword import generate
from puzzles.game24 import Hand
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.puzzle import PuzzleScreen
from tui.screens.wordproblem import WordProblemScreen

SMALL = (80, 24)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


def lines_needed(widget: Static) -> int:
    """How many lines the widget's text takes at its width."""
    content = widget.render()
    assert isinstance(content, Content)
    return len(content.wrap(widget.content_region.width))


def whole(screen: PuzzleScreen, widget: Static) -> bool:
    """Whether every line of ``widget`` is on screen, inside the puzzle's column."""
    column: Widget = screen.query_one("#puzzle")
    region = widget.region
    return (
        region.y >= column.region.y
        and region.bottom <= column.region.bottom
        and widget.size.height >= lines_needed(widget)
    )


async def open_screen(pilot: Pilot[None], screen: PuzzleScreen) -> None:
    await pilot.app.push_screen(screen)
    await pilot.pause()


async def test_a_win_after_three_steps_is_said_whole(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = Game24Screen(Hand.parse("2 8 10 11"), "easy")
        await open_screen(pilot, screen)
        # 10 - 8, then 2 x 11, then 2 + 22: three step lines above the message.
        await pilot.press("3", "minus", "2", "2", "asterisk", "3", "1", "plus", "2")
        await wait_for(pilot, lambda: screen.over)
        await pilot.pause()
        message = screen.query_one("#message", Static)
        assert "Press n for a new" in str(message.render())
        assert whole(screen, message)


async def test_a_game24_give_up_is_said_whole(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = Game24Screen(Hand.parse("2 8 10 11"), "easy")
        await open_screen(pilot, screen)
        await pilot.press("3", "minus", "2", "2", "asterisk", "3")  # two steps made
        await pilot.press("g", "y")
        await wait_for(pilot, lambda: screen.gave_up)
        await pilot.press("escape")  # the solutions dialog
        await pilot.pause()
        message = screen.query_one("#message", Static)
        assert "Press n for a new hand" in str(message.render()) and whole(screen, message)


async def test_a_word_problem_give_up_is_said_whole(app: PonderApp) -> None:
    from puzzles.wordproblem import generate as problems

    async with app.run_test(size=SMALL) as pilot:
        problem = problems(3, count=1, level="hard")[0]
        screen = WordProblemScreen(problem, "hard")
        await open_screen(pilot, screen)
        await pilot.press("h", "g", "y")
        await wait_for(pilot, lambda: screen.gave_up)
        await pilot.pause()
        message = screen.query_one("#message", Static)
        assert "Press n for a new problem" in str(message.render()) and whole(screen, message)


LONG_CLUE = "A clue long enough to need three lines in the narrow column, ending in WORDS"


async def test_a_long_clue_and_a_crossword_give_up_are_shown_whole(app: PonderApp) -> None:
    mini = generate(7, blocks=False)
    first = dataclasses.replace(mini.clues[0], text=LONG_CLUE)
    mini = dataclasses.replace(mini, clues=(first, *mini.clues[1:]))
    async with app.run_test(size=SMALL) as pilot:
        screen = CrosswordScreen(mini, "open")
        await open_screen(pilot, screen)
        clue = screen.query_one("#cw-clue", Static)
        assert first.slot == screen.slot and "ending in WORDS" in str(clue.render())
        assert lines_needed(clue) >= 3 and whole(screen, clue)
        message = screen.query_one("#message", Static)
        assert clue.region.bottom <= message.region.y
        await pilot.press("z", "z", "z", "z", "z", "ctrl+x", "y")
        await wait_for(pilot, lambda: screen.gave_up)
        await pilot.pause()
        said = str(message.render())
        assert "ctrl+n for a new mini" in said and "wrong letter" in said
        assert whole(screen, message)
        assert whole(screen, screen.query_one("#cw-clue", Static))
