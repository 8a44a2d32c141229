"""The mini crossword's keys as a newcomer meets them at 80x24: the solver's pane reached by
keyboard (ctrl+f) and enlarged (ctrl+z), a help that lists only keys that act, give-up asked
first and showing the right letters where the player was wrong, Backspace back over a word's
start, auto-check and the pause."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, Tabs, Tree

from puzzles.crossword import Direction, generate
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import HelpScreen, LegendScreen
from tui.screens.puzzle import GiveUpDialog, PauseScreen
from tui.widgets.crossword_grid import CrosswordGrid
from tui.widgets.solver_pane import SolverPane

SMALL = (80, 24)


def on_top(app: PonderApp) -> object:
    """The screen in front (typed loosely: a test's isinstance checks do not narrow it)."""
    return app.screen


def focus_of(screen: CrosswordScreen) -> object:
    return screen.focused


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


async def open_mini(pilot: Pilot[None], seed: int = 7) -> CrosswordScreen:
    screen = CrosswordScreen(generate(seed, blocks=False), "open")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def message(screen: CrosswordScreen) -> str:
    return str(screen.query_one("#message", Static).render())


async def test_ctrl_f_takes_the_keys_to_the_solvers_tree_and_its_tabs_and_back(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        grid = screen.query_one(CrosswordGrid)
        assert focus_of(screen) is grid
        await pilot.press("ctrl+f")
        pane = screen.query_one(SolverPane)
        assert focus_of(screen) is pane.query_one("#thoughts", Tree)
        await pilot.press("a", "l")  # letters are the tree's keys now: l is the legend
        await pilot.pause()
        assert screen.board.filled == 0
        assert isinstance(app.screen, LegendScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("tab")  # tab goes on to the tab bar below the tree
        assert isinstance(screen.focused, Tabs) and pane in screen.focused.ancestors
        await pilot.press("right")
        assert screen.focused.active == "--content-tab-tab-experience"
        await pilot.press("ctrl+f")  # back to the grid, where letters type again
        assert focus_of(screen) is grid
        await pilot.press("a")
        assert screen.board.filled == 1
        # Tab still turns on the grid.
        before = screen.direction
        await pilot.press("tab")
        assert screen.direction is not before


async def test_crossword_help_lists_only_keys_that_act(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await open_mini(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.screen.rows)
        assert rows.get("^t / f3") == "Legend" and "l" not in rows  # l types a letter here
        assert "tab" not in rows and "shift+tab" not in rows  # the grid's keys, not focus
        assert sum(1 for key in rows if "tab" in key) == 2  # turn; next / previous clue
        assert "^f" in rows and "^z" in rows and "^d" in rows and "^a" in rows
        notes = app.screen.notes
        assert "tab until it has focus" not in notes
        assert "ctrl+f" in notes and "ctrl+t explains" in notes and "l explains" not in notes


async def test_give_up_asks_then_shows_the_right_letters_where_yours_were_wrong(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        solution = screen.crossword.solution
        await pilot.press(*solution[0].lower())  # the first row right
        wrong = "Z" if solution[1][0] != "Z" else "Q"
        screen.move_to((1, 0), Direction.ACROSS)
        await pilot.press(wrong.lower())  # one wrong letter
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert isinstance(app.screen, GiveUpDialog) and not screen.gave_up
        await pilot.press("n")  # keep playing
        await pilot.pause()
        assert on_top(app) is screen and not screen.over
        await pilot.press("ctrl+x")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert screen.gave_up
        assert screen.board.letters == solution  # every square shows the right letter
        assert screen.corrected == {(1, 0): wrong}
        assert {(0, c) for c in range(5)} <= screen.right
        assert (1, 0) not in screen.right and (1, 0) not in screen.revealed
        grid = screen.query_one(CrosswordGrid)
        assert grid.view is not None and grid.view.corrected == {(1, 0): wrong}
        lines = str(grid.render()).splitlines()
        assert lines[2][:3] == f"6 {wrong.lower()}"  # the player's letter in the corner
        assert lines[3][:3] == f" {solution[1][0]} "  # the right one below it
        assert "Letters 5/25" in message(screen) and "1 wrong letter corrected" in message(screen)
        # The corrected square is drawn apart from the player's right ones.
        corrected = grid.get_component_rich_style("crossword-grid--corrected", partial=True)
        right = grid.get_component_rich_style("crossword-grid--right", partial=True)
        assert corrected != right


async def test_backspace_on_a_words_first_empty_square_goes_back_a_word(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        first, second = screen.crossword.grid.slots[:2]
        await pilot.press("a", "b", "c", "d", "e")  # the first word, on to the next
        assert screen.cursor == second.cells[0] and not screen.board.letter(second.cells[0])
        await pilot.press("ctrl+k")  # the word the cursor moved on to, named
        said = message(screen)
        assert f"Nothing written in {second.number} {second.direction.value}" in said, said
        await pilot.press("backspace")
        assert screen.cursor == first.cells[-1]
        assert screen.board.letter(first.cells[-1]) == ""  # gone back, and erased
        assert screen.board.word(first) == "ABCD_"


async def test_auto_check_marks_wrong_letters_as_they_are_typed(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        row = screen.crossword.solution[0]
        wrong = "Z" if row[0] != "Z" else "Q"
        await pilot.press(wrong.lower())
        assert not screen.wrong  # no marks before it is asked for
        await pilot.press("ctrl+a")
        assert screen.auto_check and screen.wrong == {(0, 0)}  # marked at once
        assert "auto-check" in str(screen.query_one("#puzzle-title", Static).render())
        await pilot.press(row[1].lower(), wrong.lower() if row[2] != wrong else "q")
        assert screen.wrong == {(0, 0), (0, 2)}  # the right letter is not marked
        await pilot.press("ctrl+a")
        assert not screen.auto_check
        await pilot.press("z" if row[3] != "Z" else "q")
        assert (0, 3) not in screen.wrong


async def test_pause_hides_the_grid_and_stops_the_clock(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("a")
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, PauseScreen)
        assert not app.screen.query(CrosswordGrid)  # nothing of the grid is drawn
        assert screen.paused_at is not None  # the clock stands still
        await pilot.press("b")  # any key goes back; it types nothing
        await wait_for(pilot, lambda: on_top(app) is screen)
        assert screen.paused_at is None and screen.board.filled == 1
