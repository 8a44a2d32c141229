"""A solver you can watch: in ``ponder`` the offline engine answers one call at a time at a pace
the eye can follow (8 a second unless the settings say), and ``[`` / ``]`` change the pace while
it runs; the command line, benchmarks and races are not slowed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from solver.model import Call, Generation, Message, Sampling
from solver.model.paced import OneAtATime, Pace
from solver.roles import Purpose
from solver.settings import Settings, SettingsError, load_settings
from tests.tui.harness import open_hand, wait_for
from tui.app import WATCH_PACE, make_app
from tui.widgets.solver_pane import SolverPane


def test_the_pace_steps_through_its_speeds_to_full_speed_and_back() -> None:
    pace = Pace(8)
    assert pace.delay == 0.125 and pace.describe() == "8 calls a second"
    pace.faster()
    assert pace.per_second == 16
    for _ in range(3):
        pace.faster()
    assert pace.full_speed and pace.delay == 0 and pace.describe() == "full speed"
    pace.faster()
    assert pace.full_speed  # stays
    pace.slower()
    assert pace.per_second == 64
    slow = Pace(1)
    slow.slower()
    assert slow.describe() == "a call every 2 s" and slow.short() == "1 call/2 s"
    slow.slower()
    assert slow.per_second == 0.5  # the slowest stays
    with pytest.raises(ValueError):
        Pace(-1)


class Slow:
    name = "slow"

    async def generate(self, call: Call, on_token: object = None) -> Generation:
        await asyncio.sleep(0.05)
        return Generation((call.purpose,))

    async def aclose(self) -> None:
        return None


def calls(n: int) -> list[Call]:
    return [Call(Purpose.ANSWER, (Message("user", f"x{i}"),), Sampling()) for i in range(n)]


async def test_at_full_speed_calls_run_together_and_a_change_applies_to_the_next() -> None:
    pace = Pace(0)
    model = OneAtATime(Slow(), pace)
    started = time.monotonic()
    await asyncio.gather(*(model.generate(c) for c in calls(6)))
    assert time.monotonic() - started < 0.25  # together, not 6 x 0.05 in turn
    pace.per_second = 20
    started = time.monotonic()
    await asyncio.gather(*(model.generate(c) for c in calls(4)))
    assert time.monotonic() - started >= 4 * 0.05


def test_ponder_paces_the_offline_engine_and_nothing_else(tmp_path: Path) -> None:
    assert 2 <= WATCH_PACE <= 16
    app = make_app(Settings(solver_pace=8), use_store=False)
    model = app.make_model()
    assert isinstance(model, OneAtATime) and model.delay == 0.125
    assert app.engine_pace() is app.pace  # one pace for the session: a change holds
    raced = app.make_model(paced=False)
    assert not isinstance(raced, OneAtATime) and app.pace is None
    served = Settings(engine="openai", base_url="http://127.0.0.1:9/v1", model="m")
    assert make_app(served, use_store=False).engine_pace() is None


def test_the_pace_is_a_setting_and_an_environment_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("solver_pace = 2\n", encoding="utf-8")
    monkeypatch.setenv("PONDER_CONFIG", str(config))
    assert load_settings().solver_pace == 2
    monkeypatch.setenv("PONDER_SOLVER_PACE", "0")
    assert load_settings().solver_pace == 0
    monkeypatch.setenv("PONDER_SOLVER_PACE", "fast")
    with pytest.raises(SettingsError, match="PONDER_SOLVER_PACE"):
        load_settings()
    monkeypatch.delenv("PONDER_SOLVER_PACE")
    config.write_text("solver_pace = -3\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="solver_pace"):
        load_settings()


def status(pane: SolverPane) -> str:
    return str(pane.query_one("#solver-status", Static).render())


async def test_brackets_change_the_pace_while_the_solver_runs(tmp_path: Path) -> None:
    app = make_app(Settings(solver_pace=4), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "4 9 10 13")
        screen.query_one(Input).blur()  # the keys act when no box takes them as typing
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        said = "pace 4 calls/s · [ slower ] faster"
        await wait_for(pilot, lambda: pane.running and said in status(pane))
        calls_then = pane.calls
        await pilot.pause(0.5)
        assert pane.calls - calls_then <= 4  # one at a time, about 4 a second
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: "pace 8 calls/s" in status(pane))
        await pilot.press("left_square_bracket", "left_square_bracket")
        await wait_for(pilot, lambda: "pace 2 calls/s" in status(pane))
        for _ in range(6):
            await pilot.press("right_square_bracket")
        assert app.pace is not None and app.pace.full_speed
        await wait_for(pilot, lambda: pane.finished is not None)  # at full speed, soon
        assert "pace " not in status(pane)  # said only while it runs


async def test_the_race_handicap_spaces_the_calls_of_the_whole_run() -> None:
    """'A call every 3 s' held each call back 3 s, so 15 calls made together all finished
    after about 3 s; now they start one at a time, the handicap apart."""
    from solver.model.paced import PacedModel

    model = PacedModel(Slow(), 0.05)
    started = time.monotonic()
    await asyncio.gather(*(model.generate(c) for c in calls(6)))
    assert time.monotonic() - started >= 6 * 0.05
