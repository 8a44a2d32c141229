"""The app stops a solver run at the settings' run deadline."""

from __future__ import annotations

from pathlib import Path

from solver.model.offline import OfflineModel
from solver.settings import Settings
from tests.tui.harness import open_hand, wait_for
from tui.app import make_app
from tui.widgets.solver_pane import SolverPane


async def test_a_run_past_the_settings_deadline_is_stopped(tmp_path: Path) -> None:
    app = make_app(
        Settings(deadline=0.5),
        model=lambda: OfflineModel(delay=0.05),
        store_path=tmp_path / "r.sqlite3",
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 1 1 2")  # no solution: the run would go on
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None, timeout=10)
        assert pane.finished is not None and pane.finished.reason == "deadline"
        assert not pane.running
