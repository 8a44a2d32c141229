"""The replay engine and recording in the app: chosen and checked on the settings screen, a
recorded run replayed as often as asked, a call the recording lacks shown as a model error."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static

from puzzles.game24 import Hand
from solver.model.recording import read_recording
from solver.settings import Settings, config_path, load_settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.game24 import Game24Screen
from tui.screens.settings import SettingsScreen
from tui.served import FILES_VAR
from tui.widgets.solver_pane import SolverPane


async def solve(app: PonderApp, pilot: Pilot[None], hand: str, runs: int = 1) -> SolverPane:
    """Open ``hand``, run the solver to its end ``runs`` times; the pane."""
    screen = Game24Screen(Hand.parse(hand), "easy")
    await app.push_screen(screen)
    pane = screen.query_one(SolverPane)
    for _ in range(runs):
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        if pane.error:
            break
    return pane


async def test_a_run_recorded_in_the_app_replays_again_and_again(tmp_path: Path) -> None:
    recording = tmp_path / "runs.jsonl"
    app = make_app(Settings(record_file=str(recording)), store_path=tmp_path / "r.db", seed=1)
    app.method_name = "io"
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await solve(app, pilot, "1 2 3 4")
        assert pane.error == "" and pane.finished is not None
    assert [c.purpose for c in read_recording(recording).calls] == ["io"]

    replay = Settings(engine="replay", replay_file=str(recording))
    app = make_app(replay, store_path=tmp_path / "r2.db", seed=1)
    app.method_name = "io"
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.model_label == f"replay of {recording} (model offline)"
        # The one recorded call answers each run: every run replays from the start.
        pane = await solve(app, pilot, "1 2 3 4", runs=3)
        assert pane.error == "" and pane.finished is not None and pane.finished.calls == 1
        await pilot.press("escape")
        pane = await solve(app, pilot, "1 1 1 2")  # a hand never recorded
        assert pane.error.startswith("not in the recording: ")
        assert "holds no reply for the io call (hand: 1, 1, 1, 2;" in pane.error
        assert "nearest recorded: line 2, io call (hand: 1, 2, 3, 4;" in pane.error
        shown = str(pane.query_one("#solver-status", Static).render())
        assert "not in the recording" in shown and "Traceback" not in shown


async def open_settings(app: PonderApp, pilot: Pilot[None]) -> SettingsScreen:
    await pilot.press("s")
    await pilot.pause()
    assert isinstance(app.screen, SettingsScreen)
    return app.screen


def said(screen: SettingsScreen) -> str:
    return str(screen.query_one("#settings-message", Static).render())


async def test_the_settings_screen_chooses_a_replay_and_a_record_file(tmp_path: Path) -> None:
    recording = tmp_path / "runs.jsonl"
    recording.write_text(
        '{"ponder_recording": 1, "engine": "gpt-4 at https://api.openai.com/v1"}\n'
        '{"purpose": "io", "reply": {"texts": ["1 + 2 + 3 + 4"]}}\n',
        encoding="utf-8",
    )
    app = make_app(load_settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#engine", Select).value = "replay"
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert said(screen) == (
            "Not saved: the replay engine needs a recording: type its file in Replay file"
        )
        screen.query_one("#replay-file", Input).value = str(tmp_path / "none.jsonl")
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert said(screen).startswith(f"Not saved: cannot replay {tmp_path}/none.jsonl: no such")
        assert app.settings.engine == "offline" and not config_path().exists()

        screen.query_one("#replay-file", Input).value = str(recording)
        screen.query_one("#replay-speed", Input).value = "1"
        screen.query_one("#record-file", Input).value = str(tmp_path)  # a folder
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert "cannot record to" in said(screen) and "is a directory" in said(screen)

        screen.query_one("#record-file", Input).value = str(tmp_path / "again.jsonl")
        screen.query_one("#test", Button).press()
        await pilot.pause()
        assert said(screen) == (
            f"The replay engine needs no connection: {recording} holds 1 call of "
            "gpt-4 at https://api.openai.com/v1."
        )
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert said(screen).startswith("Saved engine, replay file, record file, replay speed")
    saved = load_settings(config_path(), env={})
    assert (saved.engine, saved.replay_file, saved.replay_speed) == ("replay", str(recording), 1)
    assert saved.record_file == str(tmp_path / "again.jsonl")
    assert app.settings == saved


async def test_a_served_app_uses_files_only_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed = tmp_path / "shared"
    allowed.mkdir()
    monkeypatch.setenv(FILES_VAR, str(allowed))
    app = make_app(load_settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#record-file", Input).value = str(tmp_path / "runs.jsonl")
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert said(screen) == f"Not saved: in the browser only files under {allowed} can be used"
        screen.query_one("#record-file", Input).value = str(allowed / "runs.jsonl")
        screen.query_one("#save", Button).press()
        await pilot.pause()
        assert said(screen).startswith("Saved record file")
    assert app.settings.record_file == str(allowed / "runs.jsonl")
