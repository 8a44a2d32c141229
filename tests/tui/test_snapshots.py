"""Snapshot tests: the main screens at a fixed size, compared with accepted SVGs.

Regenerate after a deliberate change with ``pytest tests/tui/test_snapshots.py
--snapshot-update`` and look at the report before accepting. Clocks are frozen and the
solver pane is fed a fixed, recorded event list, so nothing depends on timing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from puzzles.game24 import Hand
from solver import events as ev
from solver.domains.game24 import Game24Domain
from solver.methods import make_method, run_method
from solver.model.offline import OfflineModel
from solver.settings import Settings
from tests.tui.harness import FrozenClock
from tui.app import PonderApp, make_app
from tui.screens.game24 import Game24Screen
from tui.widgets.solver_pane import SolverPane

SIZE = (100, 30)

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The game timer (⏱) and the solver's elapsed seconds would tick during a slow run."""
    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())
    monkeypatch.setattr("tui.widgets.solver_pane.time", FrozenClock())


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    """The app on default settings, an empty results store and a fixed seed."""
    # The settings screen prints the config path: keep it the same in every run.
    monkeypatch.setenv("PONDER_CONFIG", "/home/player/.config/ponder/config.toml")
    return make_app(Settings(), store_path=tmp_path / "results.sqlite3", seed=1)


async def open_hand(pilot: Pilot[None], hand: str = "4 7 8 8") -> Game24Screen:
    screen = Game24Screen(Hand.parse(hand), "easy")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


async def recorded_events() -> list[ev.Event]:
    """A short BoT run on the offline engine; only the timings differ between runs."""
    events: list[ev.Event] = []
    async for event in run_method(
        make_method("bot", iterations=1, trees=2),
        Game24Domain(Hand.parse("4 7 8 8")),
        OfflineModel(seed=1),
        seed=1,
    ):
        event = dataclasses.replace(event, t=0.0)
        if isinstance(event, ev.ModelCalled):
            event = dataclasses.replace(event, latency=0.0)
        elif isinstance(event, ev.RunFinished):
            event = dataclasses.replace(event, wall_time=0.0)
        events.append(event)
    return events


def test_home(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(app, terminal_size=SIZE)


def test_playing_after_one_step(snap_compare: SnapCompare, app: PonderApp) -> None:
    # 7 × 8 = 56 by keys: card 2, times, card 3.
    assert snap_compare(app, terminal_size=SIZE, press=["2", "asterisk", "3"], run_before=open_hand)


def test_solver_mid_run(snap_compare: SnapCompare, app: PonderApp) -> None:
    async def feed_the_pane(pilot: Pilot[None]) -> None:
        screen = await open_hand(pilot)
        events = await recorded_events()
        # Stop just after the first solution is found, before the run finishes.
        cut = next(i for i, e in enumerate(events) if isinstance(e, ev.SolutionFound)) + 1
        assert not any(isinstance(e, ev.RunFinished) for e in events[:cut])
        pane = screen.query_one(SolverPane)
        pane.reset("bot", "offline")
        with pilot.app.batch_update():
            pane.apply(events[:cut])

    assert snap_compare(app, terminal_size=SIZE, run_before=feed_the_pane)


def test_settings(snap_compare: SnapCompare, app: PonderApp) -> None:
    async def open_settings(pilot: Pilot[None]) -> None:
        await pilot.press("s")
        await pilot.pause()
        # The focused box's cursor blinks: a slow machine took the picture with it on.
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=open_settings)


def test_help_on_the_game_screen(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(app, terminal_size=SIZE, press=["question_mark"], run_before=open_hand)


# -- 80x24: the smallest terminal ponder is made for (issue 12) --------------------------------

SMALL = (80, 24)


async def _with_history(pilot: Pilot[None]) -> None:
    """Two results in the history, so its solver column (with ✓ / ✗) is on screen."""
    app = pilot.app
    assert isinstance(app, PonderApp)
    for solved, method in ((True, "cot-sc"), (False, "bot")):
        app.record_result(
            kind="game24",
            puzzle="10 11 12 13",
            difficulty="hard",
            seconds=75.0,
            hints=1,
            solved=solved,
            gave_up=not solved,
            answer=None,
            solver_method=method,
            solver_solved=solved,
            solver_seconds=1.0,
        )
    await pilot.pause(0.5)
    await app.workers.wait_for_complete()
    screen = app.screen
    if hasattr(screen, "refresh_home"):
        screen.refresh_home()
    await pilot.pause()


def test_home_80x24(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(app, terminal_size=SMALL, run_before=_with_history)


def test_playing_80x24(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(
        app, terminal_size=SMALL, press=["2", "asterisk", "3"], run_before=open_hand
    )


def test_solver_mid_run_80x24(snap_compare: SnapCompare, app: PonderApp) -> None:
    async def feed_the_pane(pilot: Pilot[None]) -> None:
        screen = await open_hand(pilot)
        events = await recorded_events()
        cut = next(i for i, e in enumerate(events) if isinstance(e, ev.SolutionFound)) + 1
        pane = screen.query_one(SolverPane)
        pane.reset("bot", "offline")
        with pilot.app.batch_update():
            pane.apply(events[:cut])

    assert snap_compare(app, terminal_size=SMALL, run_before=feed_the_pane)


def test_method_dialog_80x24(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(app, terminal_size=SMALL, press=["m"], run_before=open_hand)


def test_help_80x24(snap_compare: SnapCompare, app: PonderApp) -> None:
    assert snap_compare(app, terminal_size=SMALL, press=["question_mark"], run_before=open_hand)
