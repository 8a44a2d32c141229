"""Home starts with the kinds list focused: the arrows pick a kind and enter plays it, with no
Tab first, and the help still lists Play on enter first."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.settings import Settings
from tui.app import PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.home import KindList
from tui.screens.wordproblem import WordProblemScreen


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


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
