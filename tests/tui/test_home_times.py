"""The home screen plots the player's solve times over their games, when there is room."""

from __future__ import annotations

from pathlib import Path

from solver.settings import Settings
from tests.tui.test_store import result
from tui.app import make_app
from tui.screens.home import HomeScreen
from tui.store import ResultStore
from tui.widgets.times_plot import TimesPlot


def store_with(path: Path, games: list[tuple[float, bool]]) -> None:
    store = ResultStore(path)
    for minute, (seconds, solved) in enumerate(games):
        store.record(result(minute, seconds=seconds, solved=solved))
    store.close()


async def test_the_home_screen_plots_solve_times_oldest_first(tmp_path: Path) -> None:
    store_with(tmp_path / "r.db", [(40.0, True), (0.0, False), (25.0, True)])
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        plot = home.query_one(TimesPlot)
        assert plot.display
        drawn = str(plot.render())
        assert "seconds to solve" in drawn and "not solved" in drawn


async def test_no_plot_for_one_game_or_a_small_window(tmp_path: Path) -> None:
    store_with(tmp_path / "r.db", [(40.0, True)])
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one(TimesPlot).display
    store_with(tmp_path / "r.db", [(30.0, True), (20.0, True)])
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one(TimesPlot).display
