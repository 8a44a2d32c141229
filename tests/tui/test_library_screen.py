"""The Experience library screen searches its entries as you type and clears a kind (or all)
once the player confirms it."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Static

from solver.library import Entry, ExperienceLibrary
from solver.settings import load_settings
from tui.app import PonderApp, make_app
from tui.library_file import default_path
from tui.screens.library import ClearLibraryDialog, LibraryScreen

ENTRIES = [
    Entry("game24", "bot", "offline", "4 5 10 11 -> 24", 1, "1. Try 10 * 11 first."),
    Entry("game24", "bot", "offline", "1 1 1 2 -> 24", 2, "2. Products beat sums here."),
    Entry("crossword", "bot", "offline", "mini 7: h1 AGEND", 1, "1. Fill h1 with AGENDA."),
]


def seed() -> None:
    """Three entries (conftest's PONDER_DATA_DIR)."""
    with ExperienceLibrary(default_path()) as library:
        library.add(ENTRIES)


def stored() -> list[str]:
    with ExperienceLibrary(default_path()) as library:
        return [e.entry for e in library.entries()]


async def open_screen(app: PonderApp, pilot: Pilot[None]) -> LibraryScreen:
    app.push_screen(LibraryScreen())
    await pilot.pause(0.5)
    screen = app.screen
    assert isinstance(screen, LibraryScreen)
    return screen


def app_for(tmp_path: Path) -> PonderApp:
    return make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)


async def test_search_filters_by_puzzle_or_entry_any_case_as_you_type(tmp_path: Path) -> None:
    seed()
    app = app_for(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await open_screen(app, pilot)
        table = screen.query_one("#library-table", DataTable)
        assert table.row_count == 3
        await pilot.press("ctrl+f")
        assert app.focused is screen.query_one("#library-search", Input)
        await pilot.press(*"PRODUCT")  # in an entry, in another case
        await pilot.pause()
        assert [e.entry for e in screen.shown] == ["2. Products beat sums here."]
        assert table.row_count == 1
        await pilot.press(*"x")  # no entry holds "productx"
        await pilot.pause()
        assert screen.shown == [] and table.row_count == 0
        note = str(screen.query_one("#library-entry", Static).render())
        assert "none that match the search" in note
        screen.query_one("#library-search", Input).value = "agend"  # in a puzzle
        await pilot.pause()
        assert [e.kind for e in screen.shown] == ["crossword"]
        # The search and the kind narrow together.
        screen.query_one("#library-search", Input).value = "24"
        await pilot.pause()
        assert len(screen.shown) == 2
        screen.query_one("#library-kind", Select).value = "crossword"
        await pilot.pause()
        assert screen.shown == []
        screen.query_one("#library-search", Input).value = ""
        await pilot.pause()
        assert [e.kind for e in screen.shown] == ["crossword"]
        # Typing a "q" into the search does not close the screen.
        await pilot.press("ctrl+f", "q")
        await pilot.pause()
        assert app.screen is screen and screen.search == "q"


async def test_clear_asks_first_and_keeps_everything_when_refused(tmp_path: Path) -> None:
    seed()
    app = app_for(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await open_screen(app, pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ClearLibraryDialog) and "all 3 entries" in dialog.what
        await pilot.press("n")
        await pilot.pause(0.3)
        assert app.screen is screen and len(screen.shown) == 3
        await pilot.click("#library-clear")  # the button asks too; escape refuses
        await pilot.pause()
        assert isinstance(app.screen, ClearLibraryDialog)
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert app.screen is screen
    assert len(stored()) == 3


async def test_clear_deletes_the_kind_shown_once_confirmed(tmp_path: Path) -> None:
    seed()
    app = app_for(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await open_screen(app, pilot)
        screen.query_one("#library-kind", Select).value = "game24"
        await pilot.pause()
        await pilot.press("ctrl+l")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ClearLibraryDialog) and "the 2 game24 entries" in dialog.what
        await pilot.click("#library-clear-yes")
        await pilot.pause(0.5)
        assert app.screen is screen
        assert [e.kind for e in screen.entries] == ["crossword"]
        assert [e.kind for e in screen.shown] == ["crossword"]  # the kind is gone: all kinds
        assert screen.query_one("#library-table", DataTable).row_count == 1
    assert stored() == ["1. Fill h1 with AGENDA."]


async def test_clearing_all_empties_the_table_and_says_so(tmp_path: Path) -> None:
    seed()
    app = app_for(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await open_screen(app, pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause(0.5)
        assert app.screen is screen and screen.entries == [] and screen.shown == []
        assert screen.query_one("#library-table", DataTable).row_count == 0
        assert "The library is empty" in str(screen.query_one("#library-entry", Static).render())
        # Nothing left: clear says so and asks nothing.
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.screen is screen
    assert stored() == []


async def test_clear_on_an_absent_library_creates_no_file(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await open_screen(app, pilot)
        await pilot.click("#library-clear")
        await pilot.pause()
        assert app.screen is screen
    assert not default_path().exists()
