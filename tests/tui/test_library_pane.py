"""The experience pane marks the entries a BoT run started with from the experience library
(earlier runs) apart from the entries the run adds itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable, RichLog, Select, Static, TabbedContent

from puzzles.game24 import Hand
from solver import events as ev
from solver.domains.game24 import Game24Domain
from solver.library import Entry, ExperienceLibrary, WithLibrary
from solver.methods import solve
from solver.methods.bot import BoT, BoTConfig
from solver.model.offline import OfflineModel
from solver.settings import load_settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.library_file import default_path
from tui.screens.game24 import Game24Screen
from tui.screens.library import LibraryScreen
from tui.widgets.solver_pane import SolverPane

PAST = (  # short enough not to wrap in the pane
    "1. Earlier run: 1 + 1 first left 2 1 1.\n   step 1 reject: try a product first",
    "2. Earlier run: (1 + 1) * (1 + 1) = 4.",
)


async def log_lines(pane: SolverPane, pilot: Pilot[None]) -> list[str]:
    """The Experience tab's lines, as a player who opens the tab sees them (a log out of
    sight keeps its lines until it has a size)."""
    pane.query_one("#solver-tabs", TabbedContent).active = "tab-experience"
    await pilot.pause(0.1)
    return [strip.text.rstrip() for strip in pane.query_one("#experience", RichLog).lines]


def tab_title(pane: SolverPane) -> str:
    return pane.query_one("#solver-tabs", TabbedContent).get_tab("tab-experience").label_text


def seed_library() -> None:
    """Two entries of an earlier run on a similar hand (conftest's PONDER_DATA_DIR)."""
    with ExperienceLibrary(default_path()) as library:
        library.add(
            [
                Entry("game24", "bot", "offline", "1 1 1 2 -> 24", i, text, chain_ok=False)
                for i, text in enumerate(PAST, 1)
            ]
        )


def bot_app(tmp_path: Path) -> PonderApp:
    app = make_app(
        load_settings().replace(experience_library=True),
        store_path=tmp_path / "r.sqlite3",
        seed=1,
    )
    app.method_name = "bot"
    app.method_options = {"iterations": 2, "trees": 2}
    return app


async def run_bot(app: PonderApp, pilot: Pilot[None]) -> SolverPane:
    # A hand with no solution: both iterations run and add their own entries.
    screen = Game24Screen(Hand.parse("1 1 1 1"), "easy")
    await app.push_screen(screen)
    await pilot.pause()
    await pilot.press("s")
    pane = screen.query_one(SolverPane)
    await wait_for(pilot, lambda: pane.finished is not None)
    await pilot.pause(0.2)
    return pane


async def test_library_entries_are_marked_apart_from_the_runs_own(tmp_path: Path) -> None:
    seed_library()
    app = bot_app(tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        pane = await run_bot(app, pilot)
        assert sorted(pane.carried) == sorted(PAST)
        assert tab_title(pane) == "Experience · 2 from library"
        lines = await log_lines(pane, pilot)
    head = lines.index(
        "From the library: 2 entries of earlier runs (carried into this run's prompts)"
    )
    own = lines.index("This run's own experience:")
    marked = [i for i, line in enumerate(lines) if line.startswith("  library │ ")]
    # Each library entry's first line carries the mark, between the two headings.
    assert len(marked) == 2 and all(head < i < own for i in marked)
    assert {lines[i].removeprefix("  library │ ") for i in marked} == {
        text.splitlines()[0] for text in PAST
    }
    assert "          │    step 1 reject: try a product first" in lines[head:own]
    # The run's own analyses come after the mark, none of them marked as the library's.
    analyses = [i for i, line in enumerate(lines) if line.startswith("Analysis ")]
    assert len(analyses) == 2 and all(i > own for i in analyses)
    assert not any("library │" in line for line in lines[own:])


async def test_a_run_with_an_empty_library_marks_nothing(tmp_path: Path) -> None:
    app = bot_app(tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        pane = await run_bot(app, pilot)
        lines = await log_lines(pane, pilot)
        assert pane.carried == () and tab_title(pane) == "Experience"
    assert any(line.startswith("Analysis 1") for line in lines)
    assert not any("library" in line or "own experience" in line for line in lines)


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane(checks="Arithmetic")


async def test_the_ablation_says_the_entries_stayed_out_and_a_new_run_drops_the_mark() -> None:
    app = PaneApp()
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply(
            [
                ev.RunStarted("bot", "1 1 1 1", "game24", "offline"),
                ev.ExperienceCarried((PAST[1],), kept_out=True),
            ]
        )
        await pilot.pause()
        lines = await log_lines(pane, pilot)
        assert "From the library: 1 entry of earlier runs (kept out of the prompts)" in lines
        assert tab_title(pane) == "Experience · 1 from library"
        pane.running = False  # the run ended; the next one starts afresh
        pane.apply([ev.RunStarted("bot", "1 1 1 1", "game24", "offline")])
        await pilot.pause()
        assert pane.carried == () and tab_title(pane) == "Experience"
        assert not any("library" in line for line in await log_lines(pane, pilot))


@pytest.mark.parametrize("variant", ["additive", "none"])
def test_bot_says_which_entries_it_started_with_and_whether_its_prompts_carry_them(
    variant: str,
) -> None:
    seed_library()
    with ExperienceLibrary(default_path()) as library:
        method = WithLibrary(BoT(BoTConfig(iterations=1, trees=1, experience=variant)), library)
        _, events = asyncio.run(
            solve(method, Game24Domain(Hand.parse("1 1 1 1")), OfflineModel(seed=1), seed=1)
        )
    carried = [e for e in events if isinstance(e, ev.ExperienceCarried)]
    assert len(carried) == 1 and sorted(carried[0].entries) == sorted(PAST)
    assert carried[0].kept_out is (variant == "none")
    # Before the first iteration, so everything after it is the run's own.
    assert events.index(carried[0]) < next(
        i for i, e in enumerate(events) if isinstance(e, ev.IterationStarted)
    )
    prompts = " ".join(e.prompt for e in events if isinstance(e, ev.ModelCalled))
    assert (PAST[1] in prompts) is (variant != "none")  # the ablation keeps them out


async def test_the_library_screen_lists_entries_newest_first_by_kind(tmp_path: Path) -> None:
    seed_library()
    with ExperienceLibrary(default_path()) as library:
        library.add([Entry("crossword", "bot", "offline", "a mini", 1, "1. Try h1 first.")])
    app = make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)
    async with app.run_test(size=(140, 45)) as pilot:
        app.push_screen(LibraryScreen())
        await pilot.pause(0.5)
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        assert [e.kind for e in screen.shown] == ["crossword", "game24", "game24"]
        table = screen.query_one("#library-table", DataTable)
        assert table.row_count == 3 and table.get_row_at(0)[5] == "1. Try h1 first."
        screen.query_one("#library-kind", Select).value = "game24"
        await pilot.pause()
        assert [e.entry for e in screen.shown] == [PAST[1], PAST[0]]  # newest first
        assert table.row_count == 2
        await pilot.press("down")
        await pilot.pause()
        shown = str(screen.query_one("#library-entry", Static).render())
        assert "step 1 reject: try a product first" in shown and "1 1 1 2 -> 24" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LibraryScreen)


async def test_an_absent_library_is_said_to_be_empty_and_not_created(tmp_path: Path) -> None:
    app = make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)
    async with app.run_test(size=(140, 45)) as pilot:
        app.push_screen(LibraryScreen())
        await pilot.pause(0.5)
        shown = str(app.screen.query_one("#library-entry", Static).render())
        assert "The library is empty" in shown
    assert not default_path().exists()


async def test_the_palette_offers_the_library(tmp_path: Path) -> None:
    app = make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)
    async with app.run_test(size=(140, 45)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Experience library" in titles
