"""The app's solver wiring, driven through Pilot: race mode, ``n`` keeping the difficulty, the
method dialog reaching the next run, the settings screen's connection test against a real
local server, the solver's fields saved with a result, and a replay's pause and speed keys.

Each test watches what the app does (the model's calls, the run's ``RunStarted``, the rows in
the results file, the events a replay delivers), not what it says it did.
"""

from __future__ import annotations

import dataclasses
import socket
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static, Switch

from bench.fakeserver import FakeServer
from puzzles.crossword import generate
from puzzles.game24 import Hand
from puzzles.game24.catalogue import entry
from solver import events as ev
from solver.domains.game24 import Game24Domain
from solver.methods import find_spec, make_method, run_method
from solver.model import Call, Generation, TokenCallback
from solver.model.offline import OfflineModel
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, Replay, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import MethodDialog
from tui.screens.game24 import Game24Screen
from tui.screens.home import HomeScreen
from tui.screens.puzzle import PuzzleScreen
from tui.screens.settings import SettingsScreen
from tui.widgets.solver_pane import SolverPane

Condition = Callable[[], object]


class CountingModel:
    """The offline player, counting the calls the app makes of it."""

    def __init__(self) -> None:
        self.inner = OfflineModel(delay=0.01)
        self.name = self.inner.name
        self.calls = 0

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.calls += 1
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[ev.Event]:
    """Every event the solver pane shows, in order (live runs and replays alike)."""
    seen: list[ev.Event] = []
    original = SolverPane.apply

    def recording(
        pane: SolverPane, events: Iterable[ev.Event], deadline: float | None = None
    ) -> int:
        batch = list(events)
        shown = original(pane, batch, deadline)  # a tick's budget may leave some for later
        seen.extend(batch[:shown])
        return shown

    monkeypatch.setattr(SolverPane, "apply", recording)
    return seen


def message(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def runs_started(events: list[ev.Event]) -> list[ev.RunStarted]:
    return [e for e in events if isinstance(e, ev.RunStarted)]


# -- race mode ----------------------------------------------------------------------------------


async def test_race_mode_starts_the_solver_with_the_players_clock(
    tmp_path: Path, applied: list[ev.Event]
) -> None:
    model = CountingModel()
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await pilot.click("#race")
        await pilot.pause()
        assert home.query_one("#race", Switch).value and app.race
        await pilot.press("p")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        pane = screen.query_one(SolverPane)
        # No key pressed in the game, and the solver is already at work on this hand.
        await wait_for(pilot, lambda: runs_started(applied) and model.calls > 0)
        (run,) = runs_started(applied)
        assert run.method == app.method_name and str(screen.hand) in run.puzzle
        assert pane.started is not None and pane.started >= screen.started
        await pilot.press("escape")  # leaving stops it


async def test_without_race_mode_the_solver_waits_for_the_player(tmp_path: Path) -> None:
    model = CountingModel()
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        assert not app.screen.query_one("#race", Switch).value and not app.race
        await pilot.press("p")
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        assert model.calls == 0 and not screen.query_one(SolverPane).running
        await pilot.press("s")
        await wait_for(pilot, lambda: model.calls > 0)


# -- n keeps the difficulty ---------------------------------------------------------------------


@pytest.mark.parametrize("level", ["expert", "easy"])
async def test_n_deals_a_new_hand_of_the_same_difficulty(tmp_path: Path, level: str) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        app.screen.query_one("#level", Select).value = level
        await pilot.press("p")
        await pilot.pause()
        screens: list[Game24Screen] = []
        for _ in range(4):
            screen = app.screen
            assert isinstance(screen, Game24Screen) and screen not in screens
            assert screen.level == level and entry(screen.hand).level == level
            screens.append(screen)
            await pilot.press("n")
            await pilot.pause()
        # Dealt, not the same hand again and again.
        assert len({str(s.hand) for s in screens}) > 1


# -- the method dialog --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "field", "value"),
    [("tot", "breadth", 2), ("bot", "trees", 3), ("cot-sc", "samples", 7)],
)
async def test_the_method_dialog_sets_the_next_run(
    tmp_path: Path, applied: list[ev.Event], method: str, field: str, value: int
) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("1 1 1 2"), "unsolvable")  # runs on till stopped
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = method
        await pilot.pause()
        # Only the chosen method's options show, each under an id of method and option.
        shown = [str(w.id) for w in dialog.query(Input) if w.region.area]
        assert f"{method}-{field}" in shown
        assert all(name.startswith(f"{method}-") for name in shown)
        dialog.query_one(f"#{method}-{field}", Input).value = str(value)
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        assert app.screen is screen
        assert find_spec(method).label in message(screen, "#message")
        assert runs_started(applied) == []  # choosing does not start a run
        await pilot.press("s")
        await wait_for(pilot, lambda: runs_started(applied))
        (run,) = runs_started(applied)
        assert run.method == method and run.config[field] == value
        await pilot.press("s")


@pytest.mark.parametrize("start", ["guide", "answer"])
async def test_the_method_dialog_sets_who_speaks_first_in_iot(
    tmp_path: Path, applied: list[ev.Event], start: str
) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("1 1 1 2"), "unsolvable")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = "aiot"
        await pilot.pause()
        choice = dialog.query_one("#aiot-iot-start", Select)
        assert choice.region.area and choice.value == "auto"
        choice.value = start
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        await pilot.press("s")
        await wait_for(pilot, lambda: runs_started(applied))
        (run,) = runs_started(applied)
        assert run.method == "aiot" and run.config["iot_start"] == start
        await pilot.press("s")


async def test_a_cancelled_method_dialog_changes_nothing(
    tmp_path: Path, applied: list[ev.Event]
) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("1 1 1 2"), "unsolvable")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        app.screen.query_one("#bot-trees", Input).value = "3"
        app.screen.query_one("#method", Select).value = "tot"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("s")
        await wait_for(pilot, lambda: runs_started(applied))
        (run,) = runs_started(applied)
        assert run.method == "bot" and run.config["trees"] == 15  # the paper's default
        await pilot.press("s")


async def test_a_bad_value_in_the_method_dialog_is_refused(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(Game24Screen(Hand.parse("1 2 3 4"), "easy"))
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#method", Select).value = "tot"
        await pilot.pause()
        dialog.query_one("#tot-breadth", Input).value = "0"
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        assert app.screen is dialog
        # The catalogue's own check and message (OptionInfo.check), in the dialog.
        assert "breadth must be between 1 and 10000" in message(dialog, "#method-error")
        dialog.query_one("#tot-breadth", Input).value = "2.5"
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        assert "breadth must be a whole number" in message(dialog, "#method-error")
        assert app.method_options == {}
        dialog.query_one("#tot-breadth", Input).value = "2"  # put right: the error goes
        await pilot.pause()
        assert message(dialog, "#method-error") == ""
        assert "states kept per step" in message(dialog, "#option-help")  # the focused field's
        dialog.query_one("#method", Select).value = "bot"
        await pilot.pause()
        dialog.query_one("#bot-trees", Input).value = "0"
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        assert "trees must be between" in message(dialog, "#method-error")
        dialog.query_one("#bot-iterations", Input).value = "3"  # another field: it stays
        await pilot.pause()
        assert "trees must be between" in message(dialog, "#method-error")


async def test_a_method_without_fields_says_only_that(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(CrosswordScreen(generate(1)))
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = "tot-dfs"
        await pilot.pause()
        assert message(dialog, "#option-help") == ""
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        said = message(app.screen, "#message")  # "Solver method: ToT-DFS (Tree of ...)"
        assert "ToT-DFS (Tree of Thoughts, depth-first)" in said and "))" not in said


# -- the settings screen's connection test ------------------------------------------------------


def free_port() -> int:
    """A port that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def connection_test_says(app: PonderApp, pilot: Pilot[None], model: str = "") -> str:
    """Open settings, optionally type a model name into the form, test; what it says then."""
    await pilot.press("s")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    if model:
        screen.query_one("#model", Input).value = model
    await pilot.click("#test")
    await wait_for(pilot, lambda: "Connecting" not in message(screen, "#settings-message"))
    return message(screen, "#settings-message")


def openai_settings(base_url: str, model: str = "fake-model") -> Settings:
    return Settings(engine="openai", base_url=base_url, model=model, api_key="sk-test-1234567890")


async def test_the_connection_test_names_the_model_it_reached(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    app = make_app(openai_settings(fake_server.url), store_path=tmp_path / "r.db")
    async with app.run_test(size=(120, 40)) as pilot:
        said = await connection_test_says(app, pilot)
    assert said.startswith("Connected to") and "'fake-model'" in said and fake_server.url in said
    assert [r.path for r in fake_server.requests] == ["/v1/models"]


async def test_the_connection_test_reports_an_unknown_model(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    app = make_app(openai_settings(fake_server.url, "no-such-model"), store_path=tmp_path / "r")
    async with app.run_test(size=(120, 40)) as pilot:
        said = await connection_test_says(app, pilot)
    assert said.startswith("unknown model:") and "no-such-model" in said


async def test_the_connection_test_uses_the_model_typed_in_the_form(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    app = make_app(openai_settings(fake_server.url), store_path=tmp_path / "r.db")
    async with app.run_test(size=(120, 40)) as pilot:
        said = await connection_test_says(app, pilot, model="typed-model")
    assert said.startswith("unknown model:") and "typed-model" in said


async def test_the_connection_test_reports_an_unreachable_server(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    app = make_app(openai_settings(url), store_path=tmp_path / "r.db")
    async with app.run_test(size=(120, 40)) as pilot:
        said = await connection_test_says(app, pilot)
    assert said.startswith("unreachable:") and url in said


# -- the solver's fields are saved with a result ------------------------------------------------


def saved_rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT puzzle, solved, solver_method, solver_solved, solver_seconds FROM results"
        ).fetchall()


async def test_a_result_keeps_what_the_solver_did(tmp_path: Path) -> None:
    store = tmp_path / "results.sqlite3"
    app = make_app(Settings(), store_path=store, seed=1)
    app.method_name = "tot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("1 2 3 4"), "easy")
        await app.push_screen(screen)
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        finished = pane.finished
        assert finished is not None and finished.solved
        for _ in range(3):  # the player wins too: 1*2, 2*3, 6*4
            await pilot.press("1", "asterisk", "2")
        assert screen.board.solved
        await app.workers.wait_for_complete()
    ((puzzle, solved, method, solver_solved, seconds),) = saved_rows(store)
    assert (puzzle, solved, method, solver_solved) == ("1 2 3 4", 1, "tot", 1)
    assert seconds == pytest.approx(finished.wall_time) and seconds > 0


async def test_a_solver_that_failed_is_saved_as_failed(tmp_path: Path) -> None:
    store = tmp_path / "results.sqlite3"
    app = make_app(Settings(), store_path=store, seed=1)
    app.method_name = "io"  # one guess, on a hand with no solution: it cannot succeed
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("1 1 1 2"), "unsolvable")
        await app.push_screen(screen)
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        await pilot.press("g", "y")  # the player gives up (and says yes)
        await app.workers.wait_for_complete()
    ((_, solved, method, solver_solved, seconds),) = saved_rows(store)
    assert (solved, method, solver_solved) == (0, "io", 0) and seconds is not None


async def test_a_result_without_a_solver_run_has_no_solver_fields(tmp_path: Path) -> None:
    store = tmp_path / "results.sqlite3"
    app = make_app(Settings(), store_path=store, seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(Game24Screen(Hand.parse("1 2 3 4"), "easy"))
        await pilot.press("g", "y")
        await app.workers.wait_for_complete()
    assert saved_rows(store) == [("1 2 3 4", 0, None, None, None)]


# -- replay: pause and speed --------------------------------------------------------------------


async def replay_of(hand: str, spacing: float) -> Replay:
    """A real run's events, re-timed to arrive ``spacing`` seconds apart at speed 1."""
    events = [
        e
        async for e in run_method(
            make_method("bot", iterations=2, trees=2),
            Game24Domain(Hand.parse(hand)),
            OfflineModel(),
        )
    ]
    timed = [dataclasses.replace(e, t=i * spacing) for i, e in enumerate(events)]
    return Replay({"method": "bot", "puzzle": hand, "model": "offline"}, timed)


async def test_space_pauses_a_replay_and_resumes_it(applied: list[ev.Event]) -> None:
    replay = await replay_of("4 7 8 8", spacing=0.05)
    total = len(replay.events)
    assert total > 40  # at speed 1 the replay takes seconds: time to pause it midway
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(applied) >= 3)
        await pilot.press("space")
        assert replay.paused
        pane = app.screen.query_one(SolverPane)
        assert "paused" in pane.notice
        await pilot.pause(0.2)  # an event already on its way may still land
        held = len(applied)
        await pilot.pause(0.6)  # twelve events' worth at this speed
        assert len(applied) == held < total
        await pilot.press("space")
        assert not replay.paused
        await wait_for(pilot, lambda: len(applied) > held)
        # A run of a few seconds starts slowed down (Replay.default_speed).
        assert f"playing at {replay.speed:g}x" in pane.notice


async def test_brackets_change_a_replays_speed_and_its_pace(applied: list[ev.Event]) -> None:
    # Two events a second at speed 1: the whole replay at that pace would take over 20 s.
    replay = await replay_of("4 7 8 8", spacing=0.5)
    assert len(replay.events) > 40
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(SolverPane)
        assert replay.speed == 1.0
        await pilot.press("right_square_bracket")
        assert replay.speed == 2.0 and "playing at 2x" in pane.notice
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert replay.speed == 0.5 and "playing at 0.5x" in pane.notice
        await pilot.press(*["right_square_bracket"] * 10)
        assert replay.speed == 64.0  # the fastest there is
        # At 64x the events come 1/128 s apart: all of them well inside the wait below.
        await wait_for(pilot, lambda: pane.finished is not None, timeout=10)
        assert len(applied) == len(replay.events)
        await pilot.press(*["left_square_bracket"] * 12)
        assert replay.speed == Replay.SLOWEST  # the slowest there is


async def test_a_replay_says_when_it_is_over_and_r_plays_it_again(
    applied: list[ev.Event],
) -> None:
    replay = await replay_of("4 7 8 8", spacing=0.001)
    # Half a second of events: slowed down to last several seconds at the start.
    assert replay.speed < 1.0 and replay.speed * Replay.SHORTEST_SECONDS >= 0.04
    replay.speed = Replay.FASTEST
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.screen.query_one(SolverPane)
        await wait_for(pilot, lambda: replay.finished)
        assert "replay over" in pane.notice and "R plays it again" in pane.notice
        screen = app.screen
        assert isinstance(screen, PuzzleScreen)
        stopped = screen.elapsed()
        await pilot.pause(1.2)  # the clock does not tick on after the replay is over
        assert screen.elapsed() == stopped
        await pilot.press("space")  # nothing plays: it says so, not "paused"
        assert not replay.paused and "replay over" in pane.notice
        await pilot.press("right_square_bracket")
        assert "playing" not in pane.notice
        before = len(applied)
        await pilot.press("R")
        await wait_for(pilot, lambda: replay.finished and len(applied) >= 2 * before)
        assert len(applied) == 2 * before
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = str(app.screen.query_one("#help-keys", Static).render())
        assert "Faster" in help_text and "Slower" in help_text and "[" in help_text
        assert "Restart replay" in help_text
