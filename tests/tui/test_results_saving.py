"""The app saves results without ever stalling the screen, and never loses one: a results file
locked by another program holds a result back (kept, retried, kept aside at exit) and an
unreadable row hides nothing but itself."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from solver.settings import Settings
from tests.tui.harness import Notice
from tests.tui.stores import HeldLock
from tui.app import PonderApp, make_app
from tui.store import Result, ResultStore

PLAYED: dict[str, Any] = {
    "kind": "game24",
    "puzzle": "4 7 8 8",
    "difficulty": "easy",
    "seconds": 12.0,
    "hints": 1,
    "solved": True,
    "answer": "(7 - 8 / 8) * 4",
}


def app_for(path: Path) -> PonderApp:
    return make_app(Settings(), store_path=path, seed=1)


async def test_a_locked_file_never_stalls_the_app_and_the_result_is_saved_later(
    tmp_path: Path,
    toasts: list[Notice],
) -> None:
    path = tmp_path / "results.sqlite3"
    app = app_for(path)
    assert app.store is not None
    async with app.run_test(size=(120, 40)) as pilot:
        with HeldLock(path) as lock:
            started = time.monotonic()
            app.record_result(**PLAYED)
            took = time.monotonic() - started
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert [r.puzzle for r in app.store.pending] == ["4 7 8 8"]
            assert app.store_message is not None and "not saved yet" in app.store_message
            assert any("not saved yet" in n.message for n in toasts)
            lock.release()
        app.save_results()  # what the retry timer does
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.store.pending == () and app.store_message is None
    # The screen's thread only hands the result to a worker (it used to wait 5 s, then give up).
    assert took < 0.2, took
    assert ResultStore(path).stats().played == 1


async def test_results_still_locked_at_exit_are_kept_and_saved_by_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.sqlite3"
    app = app_for(path)
    with HeldLock(path):
        async with app.run_test(size=(120, 40)):
            app.record_result(**PLAYED)
            await app.workers.wait_for_complete()
        message = app.close_store()
    assert message is not None and ".pending-" in message and "next start" in message
    assert ResultStore(path).stats().played == 0

    again = app_for(path)
    async with again.run_test(size=(120, 40)) as pilot:
        await again.workers.wait_for_complete()
        await pilot.pause()
    assert again.close_store() is None
    assert [r.puzzle for r in ResultStore(path).recent()] == ["4 7 8 8"]
    assert not list(tmp_path.glob("*.pending-*"))


async def test_home_lists_the_readable_games_and_says_how_many_rows_were_skipped(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.sqlite3"
    with ResultStore(path) as store:
        store.record(Result(started_at=datetime.now(UTC), **PLAYED))
    side = sqlite3.connect(path)
    side.execute(
        "INSERT INTO results (kind, puzzle, started_at, seconds, solved) "
        "VALUES ('game24', 'broken', 'not a time', 1, 1)"
    )
    side.commit()
    side.close()
    app = app_for(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        stats = str(app.screen.query_one("#stats", Static).render())
        assert "played 1" in stats
        assert "1 result in" in stats and "could not be read" in stats
        assert app.screen.query_one("#recent", DataTable).row_count == 1


async def test_a_record_that_cannot_be_written_is_shown_and_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toasts: list[Notice]
) -> None:
    path = tmp_path / "results.sqlite3"
    with ResultStore(path) as store:
        store.record(Result(started_at=datetime(2024, 5, 1, tzinfo=UTC), **PLAYED))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    # The folder as a read-only one: the decision is made here, since root writes anyway.
    monkeypatch.setattr("tui.store.can_write", lambda _: False)
    app = app_for(path)
    assert app.store is not None and app.store.read_only
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#recent", DataTable).row_count == 1  # the history is there
        app.record_result(**PLAYED)
        await app.workers.wait_for_complete()
        await pilot.pause()
        said = [n.message for n in toasts if "nothing new can be saved" in n.message]
        assert len(said) == 1 and str(path) in said[0]
        assert app.store.stats().played == 2  # this session's result, kept in memory
    assert app.close_store() is None
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
