"""Home starts with the kinds list focused: the arrows pick a kind and enter plays it, with no
Tab first, and the help still lists Play on enter first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Select

from solver.methods import METHODS
from solver.settings import Settings
from tests.tui.harness import choices, wait_for
from tui.app import PonderApp, make_app
from tui.kinds import KINDS
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.footer import KeyHints
from tui.widgets.home_lists import KindList


@pytest.mark.parametrize(
    ("downs", "screen"), [(0, Game24Screen), (1, CrosswordScreen), (2, WordProblemScreen)]
)
async def test_arrows_pick_a_kind_and_enter_plays_it(
    app: PonderApp, downs: int, screen: type
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.focused, KindList)
        for _ in range(downs):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, screen)


async def test_the_title_stays_in_view_with_the_list_focused(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        title = app.screen.query_one("#home-title")
        assert app.screen.region.contains_region(title.region)


async def test_the_solver_list_follows_the_kind_and_each_kind_keeps_its_method(
    tmp_path: Path,
) -> None:
    """With DELI chosen for word problems, s in a Game of 24 failed with "deli cannot solve
    game24 puzzles yet" while the m dialog showed BoT: one choice carried across kinds."""
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        kinds = home.query_one("#kinds", OptionList)
        method = home.query_one("#method", Select)

        def offered() -> list[str]:
            listed = choices(method)
            return [s.name for s in METHODS.values() if s.label in listed]

        kinds.highlighted = list(KINDS).index("wordproblem")
        await pilot.pause()
        assert "deli" in offered() and "tot" not in offered()
        method.value = "deli"
        await pilot.pause()
        kinds.highlighted = list(KINDS).index("game24")
        await pilot.pause()
        assert "deli" not in offered() and "react" not in offered() and "tot" in offered()
        assert method.value == "bot"
        kinds.highlighted = list(KINDS).index("wordproblem")
        await pilot.pause()
        assert method.value == "deli"  # kept for word problems
        kinds.highlighted = list(KINDS).index("game24")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen)
        assert app.method_name == "bot"
        assert app.method_for("wordproblem") == "deli"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_model_line_and_its_settings_key_fit_on_one_row(
    app: PonderApp, size: tuple[int, int]
) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        line = app.screen.query_one("#model-line")
        assert "(s:" in str(line.render()) and line.content_region.height == 1


async def test_open_file_is_offered_for_the_kinds_that_read_files(app: PonderApp) -> None:
    """Game of 24 opens no file of hands: o is not in its footer or help, where it could only
    say so; a crossword's and a word problem's files it opens."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyHints)
        assert "Open file" not in footer.text()
        await pilot.press("down")  # mini crosswords
        await wait_for(pilot, lambda: "Open file" in footer.text(), timeout=5)
        await pilot.press("down")  # word problems
        await pilot.pause()
        assert "Open file" in footer.text()
