"""Giving up and quitting ask first in every kind: g (ctrl+x in a crossword) asks before the
solution is shown, and ctrl+q in the middle of a puzzle asks before the app ends; a puzzle
quit that way is saved as abandoned, and home's stats say how many were left unfinished."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from puzzles.crossword import generate
from puzzles.game24 import Hand
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.home import HomeScreen
from tui.screens.puzzle import GiveUpDialog, PuzzleScreen, QuitDialog
from tui.screens.wordproblem import WordProblemScreen
from tui.store import ResultStore
from tui.widgets.footer import KeyHints

SMALL = (80, 24)


def on_top(app: PonderApp) -> object:
    """The screen in front (typed loosely: a test's isinstance checks do not narrow it)."""
    return app.screen


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


PLAY_ONLY = {
    "game24": ["Undo", "Reset", "Type", "Hint", "Give up"],
    "crossword": ["Check word", "Reveal", "Pencil"],
    "wordproblem": ["Answer", "Hint", "Give up"],
}
"""The footer's keys that only play the puzzle: gone once it is given up."""


def screens() -> list[tuple[str, PuzzleScreen, str]]:
    """A puzzle of each kind, its give-up key and a first move on it."""
    from puzzles.wordproblem import generate as problem

    return [
        ("g", Game24Screen(Hand.parse("4 7 8 8"), "easy"), "h"),
        ("ctrl+x", CrosswordScreen(generate(7, blocks=False), "open"), "a"),
        ("g", WordProblemScreen(problem(3, count=1, level="easy")[0], "easy"), "h"),
    ]


@pytest.mark.parametrize("index", [0, 1, 2], ids=["game24", "crossword", "wordproblem"])
async def test_give_up_asks_first_in_every_kind(app: PonderApp, index: int) -> None:
    key, screen, _ = screens()[index]
    async with app.run_test(size=SMALL) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, GiveUpDialog) and not screen.over
        said = str(app.screen.query_one(Static).render())
        assert "Give up" in said and "not solved" in said
        await pilot.press("escape")  # no: the puzzle goes on
        await pilot.pause()
        assert on_top(app) is screen and not screen.over
        footer = screen.query_one(KeyHints)
        assert all(f" {key} " in f" {footer.text()} " for key in PLAY_ONLY[screen.KIND])
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.gave_up)
        # Over: the footer offers no key that would only say so (n deals a new one).
        await wait_for(pilot, lambda: "New" in footer.text())
        offered = footer.text()
        assert not [key for key in PLAY_ONLY[screen.KIND] if f" {key} " in f" {offered} "]
        assert "v" not in screen.active_bindings  # the answer shows: nothing left to peek at


async def quit_mid_game(app: PonderApp, pilot: Pilot[None], index: int) -> PuzzleScreen:
    _, screen, move = screens()[index]
    await app.push_screen(screen)
    await pilot.pause()
    await pilot.press(move)
    await pilot.pause()
    assert screen.in_play
    await pilot.press("ctrl+q")
    await pilot.pause()
    return screen


@pytest.mark.parametrize("index", [0, 1, 2], ids=["game24", "crossword", "wordproblem"])
async def test_ctrl_q_mid_game_asks_and_saves_the_puzzle_as_abandoned(
    app: PonderApp, tmp_path: Path, index: int
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await quit_mid_game(app, pilot, index)
        assert isinstance(app.screen, QuitDialog)
        assert "abandoned" in str(app.screen.query_one(Static).render())
        await pilot.press("n")  # keep playing
        await pilot.pause()
        assert on_top(app) is screen and app.return_code is None
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.return_code == 0
    assert app.close_store() is None  # the close writes what the quit queued
    with ResultStore(tmp_path / "r.db") as store:
        (result,) = store.recent(5)
        assert result.kind == screen.KIND and result.abandoned and not result.solved
        assert store.stats().abandoned == 1 and store.stats().current_streak == 0


async def test_ctrl_q_twice_quits_and_nothing_in_play_quits_at_once(
    app: PonderApp, tmp_path: Path
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await quit_mid_game(app, pilot, 0)
        await pilot.press("ctrl+q")  # asked already: a second ctrl+q means yes
        await pilot.pause()
        assert app.return_code == 0
    app.close_store()
    with ResultStore(tmp_path / "r.db") as store:
        assert store.stats().abandoned == 1
    other = make_app(Settings(), store_path=tmp_path / "other.db", seed=1)
    async with other.run_test(size=SMALL) as pilot:
        await other.push_screen(Game24Screen(Hand.parse("4 7 8 8"), "easy"))
        await pilot.pause()
        await pilot.press("ctrl+q")  # nothing begun: no question
        await pilot.pause()
        assert other.return_code == 0


async def test_home_says_how_many_were_left_unfinished(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("h", "escape", "y")  # leave a started hand: abandoned
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen))
        await wait_for(pilot, lambda: "unfinished" in str(app.screen.query_one("#stats").render()))
        stats = str(app.screen.query_one("#stats", Static).render())
        assert "played 1" in stats and "left unfinished 1" in stats


async def test_ctrl_q_reaches_past_the_help_and_still_asks(app: PonderApp, tmp_path: Path) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("h", "question_mark")
        await pilot.pause()
        await pilot.press("ctrl+q")  # over the help: asked, not ignored
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog)
        await pilot.press("enter")
        await pilot.pause()
        assert app.return_code == 0
    app.close_store()
    with ResultStore(tmp_path / "r.db") as store:
        assert store.stats().abandoned == 1
