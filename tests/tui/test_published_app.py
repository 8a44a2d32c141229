"""GPT-4 (ToT's published run) as an engine in the app (issue 27, section 3): chosen in the
settings, the Game of 24 deals the 100 hands GPT-4 played and home says so; the solver is ToT
in paper mode, replayed a call at a time, and ends as the logged run ended on that hand; an
own hand, another method or another kind get a plain message, not a run of errors."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, cast

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Button, Input, Select, Static

from solver.model import Call, Generation, Message, Sampling
from solver.model.recording import load_recording
from solver.published import BUNDLED, SEARCH, row_of
from solver.roles import Purpose
from solver.settings import Settings, config_path, load_settings
from tests.tui.harness import wait_for
from tui.app import PUBLISHED_SECONDS_PER_CALL, OneAtATime, PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.home import HomeScreen
from tui.screens.settings import SettingsScreen
from tui.widgets.solver_pane import SolverPane

PUBLISHED = Settings(engine="replay", replay_file=SEARCH)


def logged_outcome(row: int) -> bool:
    """Whether ToT's logged run kept a correct answer among its final states on ``row``."""
    for call in load_recording(BUNDLED[SEARCH].path).calls:
        logged = call.context["tot_log"]
        if logged["idx"] == row and "final" in logged:
            return any(logged["final"])
    raise AssertionError(f"row {row} is not in the recording")


def text(screen: Screen[Any], selector: str) -> str:
    return " ".join(str(screen.query_one(selector, Static).render()).split())


def quick(settings: Settings, tmp_path: Path) -> PonderApp:
    app = make_app(settings, store_path=tmp_path / "r.db", seed=1)
    app.published_pace = 0.001  # the pace itself is tested below
    return app


async def play_seed(app: PonderApp, pilot: Pilot[None], seed: str) -> Game24Screen:
    home = app.screen
    assert isinstance(home, HomeScreen)
    box = home.query_one("#seed", Input)
    box.value = seed
    box.focus()
    await pilot.press("enter")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, Game24Screen)
    return screen


async def test_the_engine_is_chosen_and_gpt4s_search_plays_beside_a_hand(tmp_path: Path) -> None:
    app = quick(load_settings(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        settings = app.screen
        assert isinstance(settings, SettingsScreen)
        settings.query_one("#engine", Select).value = "published"
        await pilot.pause()
        assert settings.query_one("#replay-file", Input).value == SEARCH
        settings.query_one("#save", Button).press()
        await pilot.pause()
        assert text(settings, "#settings-message").startswith("Saved engine, replay file")
        assert (app.settings.engine, app.settings.replay_file) == ("replay", SEARCH)
        await pilot.press("escape")
        await pilot.pause()

        home = app.screen
        assert isinstance(home, HomeScreen)
        line = text(home, "#model-line")
        assert "GPT-4 (ToT's published run: tot-gpt4-bfs)" in line
        assert "Game of 24 deals GPT-4's 100 hands." in line
        assert home.query_one("#method", Select).value == "tot"

        outcomes = []
        for seed in ("139", "104"):  # rows 900 (solved in the log) and 902 (not solved)
            screen = await play_seed(app, pilot, seed)
            row = row_of(screen.hand)
            assert row is not None  # one of the 100 hands GPT-4 played
            assert f"s: watch GPT-4's search (row {row})" in text(screen, "#message")
            await pilot.press("s")
            pane = screen.query_one(SolverPane)
            await wait_for(pilot, lambda pane=pane: pane.finished is not None)  # type: ignore[misc]
            assert pane.error == "" and pane.finished is not None
            assert pane.method == "tot" and pane.config["paper"] is True
            assert pane.model.startswith("gpt-4")
            assert pane.finished.solved is logged_outcome(row)
            outcomes.append(pane.finished.solved)
            await pilot.press("escape")  # leave: the run counted as begun
            await pilot.pause()
            if not isinstance(app.screen, HomeScreen):
                await pilot.press("y")
                await pilot.pause()
        assert outcomes == [True, False]

    saved = load_settings(config_path(), env={})
    assert (saved.engine, saved.replay_file) == ("replay", SEARCH)


async def test_the_settings_show_the_engine_chosen_and_allow_it_in_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.served import FILES_VAR

    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv(FILES_VAR, str(shared))  # served: files only from this folder
    app = quick(load_settings(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        settings = app.screen
        assert isinstance(settings, SettingsScreen)
        settings.query_one("#engine", Select).value = "published"
        await pilot.pause()
        settings.query_one("#test", Button).press()
        await pilot.pause()
        said = text(settings, "#settings-message")
        assert said.startswith("The replay engine needs no connection: tot-gpt4-bfs holds")
        settings.query_one("#save", Button).press()
        await pilot.pause()
        assert text(settings, "#settings-message").startswith("Saved engine, replay file")
        await pilot.press("escape")
        await pilot.press("s")
        await pilot.pause()
        again = app.screen
        assert isinstance(again, SettingsScreen) and again is not settings
        assert again.query_one("#engine", Select).value == "published"


async def test_an_own_hand_gets_a_plain_message_not_a_run_of_errors(tmp_path: Path) -> None:
    app = quick(PUBLISHED, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert home.query_one("#method", Select).value == "tot"  # chosen at start too
        own = home.query_one("#own", Input)
        own.focus()
        await pilot.press(*"1 2 3 4", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen) and screen.level == "own"
        never = "GPT-4's published run never played this hand"
        assert never in text(screen, "#message")
        await pilot.press("s")
        await pilot.pause(0.2)
        pane = screen.query_one(SolverPane)
        assert not pane.running and pane.finished is None and pane.calls == 0
        assert pane.error == ""
        assert never in text(screen, "#message") and "n deals one of its hands" in text(
            screen, "#message"
        )
        await pilot.press("escape")
        await pilot.pause()

        # An own hand that is one of the 100, its cards in another order, replays.
        own = app.screen.query_one("#own", Input)
        own.value = ""
        own.focus()
        await pilot.press(*"10 6 5 4", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        assert "s: watch GPT-4's search (row 900)" in text(screen, "#message")


async def test_another_method_or_kind_is_told_what_the_run_holds(tmp_path: Path) -> None:
    app = quick(PUBLISHED, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.method_name = "bot"
        await play_seed(app, pilot, "139")
        screen = app.screen
        await pilot.press("s")
        await pilot.pause(0.2)
        assert "holds ToT's calls only: press m for ToT." in text(screen, "#message")
        assert screen.query_one(SolverPane).calls == 0
        app.pop_screen()
        await pilot.pause()

        app.method_name = "tot"
        app.open_puzzle("crossword")
        await pilot.pause()
        crossword = app.screen
        assert isinstance(crossword, CrosswordScreen)
        assert crossword.start_solver() is False
        assert "GPT-4's published run is Game of 24 only" in text(crossword, "#message")
        assert "Mini crosswords" in text(crossword, "#message")
        assert crossword.query_one(SolverPane).calls == 0


def test_the_published_run_is_replayed_at_a_pace_people_can_watch(tmp_path: Path) -> None:
    app = make_app(PUBLISHED, use_store=False)
    model = app.make_model()
    assert isinstance(model, OneAtATime) and model.delay == PUBLISHED_SECONDS_PER_CALL
    assert 0.1 <= PUBLISHED_SECONDS_PER_CALL <= 1
    app = make_app(PUBLISHED.replace(replay_speed=2), use_store=False)
    model = app.make_model()
    assert isinstance(model, OneAtATime) and model.delay == PUBLISHED_SECONDS_PER_CALL / 2
    recording = tmp_path / "mine.jsonl"
    recording.write_text('{"ponder_recording": 1}\n', encoding="utf-8")
    # A recording keeps its own time; the offline engine's pace is its own (test_watch_pace).
    other = Settings(engine="replay", replay_file=str(recording))
    assert not isinstance(make_app(other, use_store=False).make_model(), OneAtATime)


class Instant:
    name = "instant"

    def __init__(self) -> None:
        self.order: list[str] = []

    async def generate(self, call: Call, on_token: object = None) -> Generation:
        self.order.append(call.purpose)
        return Generation((call.purpose,))

    async def aclose(self) -> None:
        return None


async def test_one_at_a_time_answers_calls_a_pace_apart_in_order() -> None:
    model = OneAtATime(Instant(), 0.05)
    # The stand-in model answers with the call's purpose: any name does.
    calls = [Call(cast(Purpose, p), (Message("user", p),), Sampling()) for p in ("a", "b", "c")]
    started = time.monotonic()
    done: list[str] = []

    async def ask(call: Call) -> None:
        done.append((await model.generate(call)).text)

    await asyncio.gather(*(ask(c) for c in calls))
    assert time.monotonic() - started >= 0.15
    assert done == ["a", "b", "c"]
