"""The home screen plots the player's solve times over their games, when there is room."""

from __future__ import annotations

from pathlib import Path

from solver.settings import Settings
from tests.tui.stores import result
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
        assert not app.screen.query(TimesPlot)  # nor plotext imported for it
    store_with(tmp_path / "r.db", [(30.0, True), (20.0, True)])
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query(TimesPlot)


async def test_recent_games_show_every_column_at_80_and_120_columns(tmp_path: Path) -> None:
    """At 80 columns a long word problem took the whole table and the result, time and
    solver columns were cut; now the puzzle is cut with an ellipsis and the rest fits, a
    long result too ('solution shown · won race' reads 'shown · won' there)."""
    import dataclasses

    from textual.widgets import DataTable

    store = ResultStore(tmp_path / "r.db")
    long = "A baker makes 24 muffins and sells 3/4 of them. How many muffins are left?"
    for minute, puzzle in enumerate(("3 5 5 6", "4 7 8 8", long, "1 2 3 4 5 6 → 100")):
        row = dataclasses.replace(result(minute, puzzle=puzzle), solver_solved=True)
        if minute == 0:
            row = dataclasses.replace(row, solution_shown=True, race=True, race_won=True)
        store.record(dataclasses.replace(row, solver_method="tot-dfs"))
    store.close()
    for size, columns in (((80, 24), 4), ((120, 40), 5)):
        app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#recent", DataTable)
            await pilot.pause()
            assert len(table.columns) == columns and "solver" in [
                str(c.label) for c in table.columns.values()
            ]
            assert table.virtual_size.width <= table.size.width, size
            puzzles = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
            assert puzzles[0] == "1 2 3 4 5 6 → 100" or puzzles[0].endswith("…")
            assert any(p.endswith("…") and p.startswith("A bak") for p in puzzles)
            assert str(table.get_row_at(0)[-1]) == "tot-dfs ✓"
            shown = str(table.get_row_at(table.row_count - 1)[1])
            assert shown in ("shown · won", "solution shown · won race")
