"""Text that changes without changing size repaints itself and lays nothing else out: a layout
of the whole screen is the dearest part of a frame, and under a streaming solver a clock
redrawn once a second made one a second (keys typed then waited for it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from puzzles.game24 import Hand
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.screens.game24 import Game24Screen
from tui.widgets.grows import update_in_place


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The name of each screen laid out, in order, as the test goes on."""
    done: list[str] = []
    original = Screen._refresh_layout

    def counted(self: Screen[object], *args: object, **kwargs: object) -> None:
        done.append(type(self).__name__)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    yield done


async def settled(pilot: Pilot[None], layouts: list[str]) -> None:
    """Until a new screen has been laid out for the last time (three pauses with none)."""
    quiet = 0
    while quiet < 3:
        seen = len(layouts)
        await pilot.pause()
        quiet = quiet + 1 if len(layouts) == seen else 0


class Lines(App[None]):
    CSS = """
    #line { height: auto; width: 20; }
    #fit { height: 1; width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static("one short line", id="line")
        yield Static("ab", id="fit")


async def test_new_words_on_as_many_rows_lay_nothing_out(layouts: list[str]) -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        line = app.query_one("#line", Static)
        await pilot.pause()
        before = len(layouts)
        update_in_place(line, "another short one")
        await pilot.pause()
        assert len(layouts) == before
        assert "another short one" in str(line.render())
        # Words that wrap onto a second row need the layout, and get it.
        update_in_place(line, "a line far too long for twenty columns")
        await wait_for(pilot, lambda: line.region.height == 2)
        assert len(layouts) > before


async def test_a_widget_sized_to_its_text_that_grows_is_laid_out_again(
    layouts: list[str],
) -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        fit = app.query_one("#fit", Static)
        await pilot.pause()
        assert fit.region.width == 2
        update_in_place(fit, "abcdef")
        await wait_for(pilot, lambda: fit.region.width == 6)


async def test_the_game_clock_ticks_without_laying_the_screen_out(
    app: PonderApp, layouts: list[str]
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"))
        await app.push_screen(screen)
        await settled(pilot, layouts)
        title = screen.query_one("#puzzle-title", Static)
        before = layouts.count("Game24Screen")
        for _ in range(3):
            screen.refresh_title()
            await pilot.pause()
        assert layouts.count("Game24Screen") == before
        assert "⏱" in str(title.render())
