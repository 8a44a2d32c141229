"""The results store: recording, reading, stats and streaks, migrations, atomicity, damaged and
newer files, and several stores on one file."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import ClassVar

import pytest

from solver.settings import data_dir
from tests.tui.stores import T0, HeldLock, result
from tui.store import (
    FILE_NAME,
    MEMORY,
    MIGRATIONS,
    SAVE_WAIT_S,
    SCHEMA_VERSION,
    CorruptStoreError,
    Migration,
    NewerStoreError,
    Result,
    ResultStore,
    Stats,
    StoreError,
)

ROOT = Path(__file__).resolve().parents[2]


def user_version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        version: int = db.execute("PRAGMA user_version").fetchone()[0]
        return version
    finally:
        db.close()


def row_count(path: Path, table: str = "results") -> int:
    db = sqlite3.connect(path)
    try:
        count: int = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return count
    finally:
        db.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / FILE_NAME


@pytest.fixture
def store(db_path: Path) -> Iterator[ResultStore]:
    with ResultStore(db_path) as opened:
        yield opened


# --- recording and reading --------------------------------------------------------------------


def test_record_returns_ids_and_recent_is_newest_first(store: ResultStore) -> None:
    # Recorded out of order: "newest" means most recently started, not most recently recorded.
    ids = [store.record(result(m, puzzle=f"p{m}")) for m in (5, 1, 9, 3)]
    assert ids == sorted(ids) and len(set(ids)) == 4
    assert [r.puzzle for r in store.recent()] == ["p9", "p5", "p3", "p1"]
    assert [r.puzzle for r in store.recent(limit=2)] == ["p9", "p5"]
    assert store.recent(limit=0) == []
    assert all(r.id is not None for r in store.recent())


def test_a_result_comes_back_as_it_went_in(store: ResultStore) -> None:
    plus_two = timezone(timedelta(hours=2))
    sent = Result(
        kind="game24",
        puzzle="1 5 5 5",
        difficulty="hard",
        started_at=datetime(2024, 5, 1, 14, 30, 15, 250000, tzinfo=plus_two),
        seconds=93.25,
        hints=2,
        solved=True,
        answer="5 * (5 - 1 / 5)",
        solver_method="tot",
        solver_solved=False,
        solver_seconds=4.5,
    )
    row_id = store.record(sent)
    (back,) = store.recent()
    assert back.id == row_id
    assert back.started_at == sent.started_at  # the same instant...
    assert back.started_at.utcoffset() == timedelta(0)  # ...stored in UTC
    assert back == Result(**{**vars(sent), "id": row_id, "started_at": back.started_at})


def test_optional_fields_round_trip_as_none(store: ResultStore) -> None:
    store.record(result(solved=False, gave_up=True))
    (back,) = store.recent()
    assert (back.difficulty, back.answer, back.solver_method) == (None, None, None)
    assert (back.solver_solved, back.solver_seconds) == (None, None)
    assert (back.solved, back.gave_up) == (False, True)


def test_recent_and_stats_filter_by_kind(store: ResultStore) -> None:
    store.record(result(0, kind="game24"))
    store.record(result(1, kind="crossword", solved=False))
    store.record(result(2, kind="game24", seconds=10))
    assert [r.kind for r in store.recent(kind="game24")] == ["game24", "game24"]
    assert [r.kind for r in store.recent(kind="crossword")] == ["crossword"]
    assert store.recent(kind="sudoku") == []
    assert store.stats(kind="game24").played == 2
    assert store.stats(kind="game24").current_streak == 2
    assert store.stats().current_streak == 1  # over all kinds, the crossword broke it


@pytest.mark.parametrize(
    "bad",
    [
        {"started_at": datetime(2024, 5, 1, 12)},  # naive: which zone?
        {"solved": True, "gave_up": True},
        {"seconds": -1.0},
        {"seconds": float("nan")},
        {"hints": -1},
        {"kind": ""},
        {"solver_seconds": float("inf")},
    ],
)
def test_result_rejects_impossible_values(bad: dict[str, object]) -> None:
    fields: dict[str, object] = {
        "kind": "game24",
        "puzzle": "1 2 3 4",
        "started_at": T0,
        "seconds": 1.0,
        "solved": False,
    }
    with pytest.raises((ValueError, TypeError)):
        Result(**{**fields, **bad})  # type: ignore[arg-type]


# --- stats ------------------------------------------------------------------------------------


def test_stats_of_an_empty_store(store: ResultStore) -> None:
    assert store.stats() == Stats(
        played=0,
        solved=0,
        solve_rate=0.0,
        current_streak=0,
        best_streak=0,
        best_seconds=None,
        average_seconds=None,
        hints_used=0,
    )


def test_stats_totals_times_and_streaks(store: ResultStore) -> None:
    outcomes = [  # (solved, gave_up, seconds, hints), in the order played
        (True, False, 40.0, 1),
        (True, False, 20.0, 0),
        (False, False, 99.0, 2),  # ran out of time: breaks the streak
        (True, False, 30.0, 0),
        (True, False, 50.0, 0),
        (True, False, 10.0, 1),  # best streak: 3
        (False, True, 5.0, 3),  # gave up: breaks it too, and its 5 s is no "best time"
        (True, False, 60.0, 0),
    ]
    for minute, (solved, gave_up, seconds, hints) in enumerate(outcomes):
        store.record(result(minute, solved=solved, gave_up=gave_up, seconds=seconds, hints=hints))
    stats = store.stats()
    assert stats.played == 8
    assert stats.solved == 6
    assert stats.solve_rate == pytest.approx(6 / 8)
    assert stats.current_streak == 1
    assert stats.best_streak == 3
    assert stats.best_seconds == 10.0
    assert stats.average_seconds == pytest.approx((40 + 20 + 30 + 50 + 10 + 60) / 6)
    assert stats.hints_used == 7


def test_current_streak_is_zero_after_a_loss_and_follows_start_times(store: ResultStore) -> None:
    store.record(result(2, solved=False, gave_up=True))  # the latest game, recorded first
    store.record(result(0))
    store.record(result(1))
    stats = store.stats()
    assert (stats.current_streak, stats.best_streak) == (0, 2)
    store.record(result(3))
    store.record(result(4))
    store.record(result(5))
    stats = store.stats()
    assert (stats.current_streak, stats.best_streak) == (3, 3)


def test_all_solved_streak_equals_played(store: ResultStore) -> None:
    for minute in range(5):
        store.record(result(minute))
    stats = store.stats()
    assert stats.current_streak == stats.best_streak == stats.played == 5
    assert stats.solve_rate == 1.0


# --- files, migrations and lifecycle ----------------------------------------------------------


def test_default_path_is_in_the_data_dir_and_the_folder_is_created() -> None:
    store = ResultStore()
    assert store.path == data_dir() / FILE_NAME
    assert not data_dir().exists()  # opened lazily: nothing happens until first use
    store.record(result())
    assert store.path.is_file()
    store.close()


def test_a_new_file_is_migrated_to_the_current_version(db_path: Path) -> None:
    with ResultStore(db_path) as store:
        store.record(result())
    assert user_version(db_path) == SCHEMA_VERSION == len(MIGRATIONS)
    assert row_count(db_path) == 1


def test_an_empty_file_is_migrated(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"")
    with ResultStore(db_path) as store:
        assert store.stats().played == 0
    assert user_version(db_path) == SCHEMA_VERSION


def test_reopening_is_idempotent_and_keeps_rows(db_path: Path) -> None:
    with ResultStore(db_path) as store:
        store.record(result(0))
    before = sqlite3.connect(db_path)
    schema = before.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    before.close()
    for minute in (1, 2):
        with ResultStore(db_path) as store:
            store.record(result(minute))
    after = sqlite3.connect(db_path)
    assert after.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema
    after.close()
    assert user_version(db_path) == SCHEMA_VERSION
    assert row_count(db_path) == 3


def test_close_is_idempotent_and_a_closed_store_reopens(db_path: Path) -> None:
    store = ResultStore(db_path)
    store.record(result(0))
    store.close()
    store.close()
    store.record(result(1))
    assert store.stats().played == 2
    store.close()


def test_an_in_memory_store_writes_nothing(tmp_path: Path) -> None:
    with ResultStore(MEMORY) as store:
        assert store.in_memory and store.path is None
        store.record(result())
        assert store.stats().played == 1
    assert not any(tmp_path.rglob("*sqlite*"))


def test_store_module_does_not_import_textual() -> None:
    code = (
        "import sys, tui.store\n"
        "sys.exit(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=60)
    assert done.returncode == 0


# --- atomicity --------------------------------------------------------------------------------


def _failing_step(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE half_done (x)")
    db.execute("INSERT INTO results (kind) VALUES ('oops')")  # NOT NULL violation


class _BrokenUpgrade(ResultStore):
    migrations: ClassVar[Sequence[Migration]] = (*MIGRATIONS, _failing_step)


def _add_note(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE results ADD COLUMN note TEXT")


class _GoodUpgrade(ResultStore):
    migrations: ClassVar[Sequence[Migration]] = (*MIGRATIONS, _add_note)


def test_a_failing_migration_leaves_the_file_as_it_was(db_path: Path) -> None:
    with ResultStore(db_path) as store:
        store.record(result())
    with pytest.raises(StoreError, match=str(db_path)):
        _BrokenUpgrade(db_path).open()
    assert user_version(db_path) == SCHEMA_VERSION
    db = sqlite3.connect(db_path)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    db.close()
    assert "half_done" not in tables
    assert row_count(db_path) == 1
    # ...and a working upgrade then goes through, keeping the rows.
    with _GoodUpgrade(db_path) as upgraded:
        assert upgraded.stats().played == 1
    assert user_version(db_path) == SCHEMA_VERSION + 1


def test_a_failing_insert_leaves_nothing_and_the_store_still_works(
    store: ResultStore, db_path: Path
) -> None:
    side = sqlite3.connect(db_path)
    side.executescript(
        """
        CREATE TABLE audit (x);
        CREATE TRIGGER explode AFTER INSERT ON results WHEN NEW.puzzle = 'boom' BEGIN
            INSERT INTO audit VALUES (NEW.id);
            -- FAIL keeps what the statement already did: only the transaction undoes it.
            SELECT RAISE(FAIL, 'refused');
        END;
        """
    )
    side.close()
    with pytest.raises(StoreError, match="refused"):
        store.record(result(puzzle="boom"))
    assert row_count(db_path) == 0
    assert row_count(db_path, "audit") == 0
    store.record(result(puzzle="fine"))  # not left inside a dangling transaction
    assert [r.puzzle for r in store.recent()] == ["fine"]


def test_a_process_killed_after_record_keeps_the_row(db_path: Path) -> None:
    code = (
        "import os, sys\n"
        "from datetime import datetime, UTC\n"
        "from tui.store import Result, ResultStore\n"
        "store = ResultStore(sys.argv[1])\n"
        "store.record(Result(kind='game24', puzzle='1 2 3 4', started_at=datetime.now(UTC),\n"
        "                    seconds=1.0, solved=True))\n"
        "os._exit(9)  # no close, no cleanup\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(db_path)], cwd=ROOT, timeout=60)
    assert done.returncode == 9
    with ResultStore(db_path) as store:
        assert [r.puzzle for r in store.recent()] == ["1 2 3 4"]


# --- damaged, foreign, newer and unreachable files ---------------------------------------------


def _garbage(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"this is not sqlite\x00\xff" * 300
    path.write_bytes(data)
    return data


def _truncated_database(path: Path) -> bytes:
    with ResultStore(path) as store:
        for minute in range(300):
            store.record(result(minute, puzzle="x" * 200))
    data = path.read_bytes()
    cut = data[: len(data) // 2]
    path.write_bytes(cut)
    return cut


def _foreign_database(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('soup')")
    db.commit()
    db.close()
    return path.read_bytes()


def _results_without_columns(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE results (id INTEGER PRIMARY KEY, kind TEXT)")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.commit()
    db.close()
    return path.read_bytes()


DAMAGES: dict[str, Callable[[Path], bytes]] = {
    "garbage": _garbage,
    "truncated": _truncated_database,
    "foreign": _foreign_database,
    "wrong-columns": _results_without_columns,
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_file_raises_a_corrupt_error_naming_it(db_path: Path, damage: str) -> None:
    before = DAMAGES[damage](db_path)
    store = ResultStore(db_path)
    with pytest.raises(CorruptStoreError) as caught:
        store.record(result())
    assert str(caught.value).startswith(f"{db_path}: ")
    if damage == "garbage":  # what failed, and on trying what
        assert str(caught.value) == (
            f"{db_path}: damaged or not a ponder results file (file is not a database; "
            "on trying to open it)"
        )
    assert caught.value.path == str(db_path)
    assert db_path.read_bytes() == before  # nothing was lost


@pytest.mark.parametrize("damage", DAMAGES)
def test_recovery_moves_a_damaged_file_aside_and_starts_afresh(db_path: Path, damage: str) -> None:
    before = DAMAGES[damage](db_path)
    with pytest.raises(CorruptStoreError) as caught:
        ResultStore(db_path).open()
    store, message = ResultStore.open_or_recover(db_path)
    try:
        (aside,) = db_path.parent.glob(f"{FILE_NAME}.corrupt-*")
        assert aside.read_bytes() == before
        # The player is told what was wrong with the file, where it went, and what now.
        assert message == f"{caught.value}. It was kept as {aside} and a fresh record was started."
        assert not store.in_memory and store.path == db_path
        assert store.stats().played == 0
        store.record(result())
    finally:
        store.close()
    assert user_version(db_path) == SCHEMA_VERSION
    assert row_count(db_path) == 1


def test_two_recoveries_never_overwrite_an_earlier_copy(db_path: Path) -> None:
    first = _garbage(db_path)
    ResultStore.open_or_recover(db_path)[0].close()
    second = b"other garbage" * 100
    db_path.write_bytes(second)
    for name in (f"{FILE_NAME}-wal", f"{FILE_NAME}-shm"):
        (db_path.parent / name).unlink(missing_ok=True)
    ResultStore.open_or_recover(db_path)[0].close()
    copies = [
        p
        for p in db_path.parent.glob(f"{FILE_NAME}.corrupt-*")
        if not p.name.endswith(("-wal", "-shm", "-journal"))
    ]
    assert sorted(p.read_bytes() for p in copies) == sorted([first, second])


def _newer_database(path: Path) -> bytes:
    with ResultStore(path) as store:
        store.record(result())
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    return path.read_bytes()


def test_a_newer_file_raises_and_is_left_untouched(db_path: Path) -> None:
    before = _newer_database(db_path)
    with pytest.raises(NewerStoreError) as caught:
        ResultStore(db_path).open()
    assert (caught.value.found, caught.value.known) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)
    assert str(db_path) in str(caught.value) and "newer" in str(caught.value)
    assert db_path.read_bytes() == before


def test_recovery_from_a_newer_file_works_in_memory_and_leaves_it_alone(db_path: Path) -> None:
    before = _newer_database(db_path)
    store, message = ResultStore.open_or_recover(db_path)
    assert store.in_memory
    assert message is not None and str(db_path) in message and "newer" in message
    store.record(result())
    assert store.stats().played == 1
    store.close()
    assert db_path.read_bytes() == before
    assert not list(db_path.parent.glob("*.corrupt-*"))
    assert row_count(db_path) == 1


def test_an_unusable_folder_raises_and_recovery_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    path = blocker / FILE_NAME
    with pytest.raises(StoreError, match=str(path)):
        ResultStore(path).record(result())
    store, message = ResultStore.open_or_recover(path)
    assert store.in_memory and message is not None and str(path) in message
    store.record(result())
    store.close()
    assert blocker.read_text() == "a file where the data folder should be"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_read_only_folder_raises_and_recovery_falls_back_to_memory() -> None:
    # A folder that exists but where no file can be made, whoever asks: chmod does not stop
    # root (tests run as root in containers), but /proc refuses new files to everyone.
    folder = Path("/proc")
    path = folder / FILE_NAME
    assert folder.is_dir() and not path.exists()
    with pytest.raises(StoreError, match=str(path)):
        ResultStore(path).open()
    store, message = ResultStore.open_or_recover(path)
    assert store.in_memory and message is not None and str(path) in message
    store.record(result())
    assert store.stats().played == 1
    store.close()
    assert not path.exists()


# --- several stores on one file ---------------------------------------------------------------


def test_a_second_store_sees_the_first_ones_rows(db_path: Path) -> None:
    with ResultStore(db_path) as first, ResultStore(db_path) as second:
        first.record(result(0))
        assert [r.id for r in second.recent()] == [r.id for r in first.recent()]
        second.record(result(1, solved=False))
        assert first.stats().played == 2
        assert first.stats().current_streak == 0


def test_stores_opening_a_new_file_together_migrate_once(db_path: Path) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def play(n: int) -> None:
        try:
            start.wait()
            with ResultStore(db_path) as store:
                for minute in range(10):
                    store.record(result(minute, puzzle=f"{n}"))
        except BaseException as err:  # reported below, on the test's thread
            errors.append(err)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert row_count(db_path) == 60
    assert user_version(db_path) == SCHEMA_VERSION


def test_one_store_is_safe_to_share_between_threads(store: ResultStore) -> None:
    def play() -> None:
        for minute in range(20):
            store.record(result(minute))
            store.stats()

    threads = [threading.Thread(target=play) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert store.stats().played == 80


# --- a lock held elsewhere, and rows that cannot be read ----------------------------------------


def test_save_under_a_lock_held_elsewhere_keeps_the_result_and_reads_go_on(
    store: ResultStore, db_path: Path
) -> None:
    store.record(result(0, puzzle="before"))
    with HeldLock(db_path) as lock:
        reports = []
        saving = threading.Thread(target=lambda: reports.append(store.save(result(1))))
        started = time.monotonic()
        saving.start()
        time.sleep(0.1)  # the save is now waiting for the lock
        reading = time.monotonic()
        assert [r.puzzle for r in store.recent()] == ["before"]
        assert store.stats().played == 1
        read_took = time.monotonic() - reading
        saving.join(timeout=30)
        save_took = time.monotonic() - started
        (report,) = reports
        assert report.saved == 0 and report.waiting == 1 and report.error is not None
        waited = round(SAVE_WAIT_S * 1000)
        assert f"another program kept it locked for {waited} ms" in str(report.error)
        assert [r.puzzle for r in store.pending] == ["4 7 8 8"]
        lock.release()
    # Reads never waited for the writer; the save gave up after SAVE_WAIT_S, not 5 s.
    assert read_took < 0.5, read_took
    assert save_took < SAVE_WAIT_S + 1.0, save_took
    report = store.save(result(2, puzzle="after"))
    assert (report.saved, report.waiting, report.error) == (2, 0, None)
    assert [r.puzzle for r in store.recent()] == ["after", "4 7 8 8", "before"]
    assert store.pending == ()


def test_an_exclusive_lock_is_waited_out_the_same_way(store: ResultStore, db_path: Path) -> None:
    store.open()
    with HeldLock(db_path, exclusive=True):
        report = store.save(result(0))
        assert report.waiting == 1 and store.recent() == []
    assert store.flush().saved == 1 and store.stats().played == 1


def test_close_keeps_waiting_results_aside_and_the_next_open_saves_them(db_path: Path) -> None:
    store = ResultStore(db_path).open()
    with HeldLock(db_path):
        assert store.save(result(0, puzzle="kept")).waiting == 1
        kept = store.close()
    assert kept is not None and kept.exists() and kept.parent == db_path.parent
    assert row_count(db_path) == 0
    # Two ponders start together: the kept result is saved once.
    first, second = ResultStore(db_path).open(), ResultStore(db_path).open()
    assert [r.puzzle for r in first.pending] == [r.puzzle for r in second.pending] == ["kept"]
    assert first.flush().saved == 1
    assert second.flush().saved == 0 and second.pending == ()
    assert [r.puzzle for r in second.recent()] == ["kept"]
    assert not kept.exists() and row_count(db_path) == 1
    for opened in (first, second):
        assert opened.close() is None
    assert not list(db_path.parent.glob("*.pending-*"))


def test_close_with_nothing_waiting_writes_no_side_file(store: ResultStore, db_path: Path) -> None:
    assert store.save(result(0)).saved == 1
    assert store.close() is None
    assert not list(db_path.parent.glob("*.pending-*"))


@pytest.mark.parametrize("damage", ['{"kind": "game24"\n', "[" * 100_000 + "\n"])
def test_a_damaged_side_file_is_left_alone(db_path: Path, damage: str) -> None:
    ResultStore(db_path).open().close()
    side = db_path.with_name(db_path.name + ".pending-damaged.jsonl")
    side.write_text(damage)
    with ResultStore(db_path) as store:
        assert store.pending == () and store.flush().saved == 0
    assert side.read_text() == damage


def test_a_read_that_fails_is_a_store_error_saying_what_failed(
    store: ResultStore, db_path: Path
) -> None:
    store.record(result(0))
    side = sqlite3.connect(db_path)
    side.execute("ALTER TABLE results RENAME TO elsewhere")  # another program's doing
    side.commit()
    side.close()
    with pytest.raises(StoreError) as caught:
        store.recent()
    assert str(caught.value).startswith(f"{db_path}: cannot ")
    assert "no such table: results" in str(caught.value)


BAD_ROWS = {
    "not a time": "'game24', 'bad time', 'yesterday', 1, 1",
    "bad UTF-8": "'game24', CAST(x'ff34' AS TEXT), '2024-05-01T12:30:00.000000+00:00', 1, 1",
    "seconds as text": "'game24', 'bad seconds', '2024-05-01T12:31:00.000000+00:00', 'abc', 1",
    "no kind": "'', 'no kind', '2024-05-01T12:32:00.000000+00:00', 1, 0",
    "naive time": "'game24', 'naive', '2024-05-01T12:33:00', 1, 1",
}


def test_unreadable_rows_are_skipped_and_counted_not_hiding_the_rest(
    store: ResultStore, db_path: Path
) -> None:
    for minute in range(3):
        store.record(result(minute, solved=minute != 1, puzzle=f"good {minute}"))
    side = sqlite3.connect(db_path)
    for values in BAD_ROWS.values():
        side.execute(
            f"INSERT INTO results (kind, puzzle, started_at, seconds, solved) VALUES ({values})"
        )
    side.commit()
    side.close()
    assert [r.puzzle for r in store.recent()] == ["good 2", "good 1", "good 0"]
    assert [r.puzzle for r in store.recent(2)] == ["good 2", "good 1"]
    stats = store.stats()
    assert (stats.played, stats.solved, stats.unreadable) == (3, 2, len(BAD_ROWS))
    assert stats.current_streak == 1 and stats.best_streak == 1
    assert store.stats(kind="game24").unreadable == len(BAD_ROWS) - 1  # '' is another kind
    store.record(result(60, puzzle="still works"))
    assert store.recent(1)[0].puzzle == "still works"


# --- a file ponder may not write ---------------------------------------------------------------


def _folder_state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_file_ponder_may_not_write_is_read_and_never_written(db_path: Path) -> None:
    with ResultStore(db_path) as first:
        for minute in range(3):
            first.record(result(minute, puzzle=f"p{minute}"))
    before = _folder_state(db_path.parent)
    asked: list[Path] = []

    def writable(path: Path) -> bool:  # the decision, made here as it would be read-only
        asked.append(path)
        return False

    store, message = ResultStore.open_or_recover(db_path, writable=writable)
    assert asked == [db_path]
    assert store.read_only and store.in_memory and store.name == str(db_path)
    assert message is not None and "read-only" in message and "nothing new can be saved" in message
    assert [r.puzzle for r in store.recent()] == ["p2", "p1", "p0"]
    # This session's results are kept until the store closes, and never reach the file.
    assert store.save(result(9, puzzle="new")).saved == 1
    assert store.stats().played == 4
    assert store.close() is None
    assert _folder_state(db_path.parent) == before


def test_a_read_only_connection_refuses_writes_and_reads(db_path: Path) -> None:
    from solver.sqlite_files import open_read_only

    with ResultStore(db_path) as first:
        first.record(result(0))
    db = open_read_only(db_path, 1000)
    try:
        assert db.execute("SELECT count(*) FROM results").fetchone() == (1,)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.execute("DELETE FROM results")
    finally:
        db.close()
    assert row_count(db_path) == 1


def test_an_older_layout_is_read_without_being_migrated(db_path: Path) -> None:
    db_path.parent.mkdir()
    db = sqlite3.connect(db_path)
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.execute(
        "INSERT INTO results (kind, puzzle, started_at, seconds, solved) "
        "VALUES ('game24', 'old', '2024-01-01T00:00:00.000000+00:00', 12, 1)"
    )
    db.commit()
    db.close()
    store, message = ResultStore.open_or_recover(db_path, writable=lambda _: False)
    assert store.read_only and message is not None
    assert [(r.puzzle, r.race) for r in store.recent()] == [("old", False)]
    store.close()
    assert user_version(db_path) == 1  # the copy in memory was brought up to date, not the file


def test_a_writable_file_is_opened_as_before(db_path: Path) -> None:
    store, message = ResultStore.open_or_recover(db_path, writable=lambda _: True)
    assert message is None and not store.read_only and not store.in_memory
    store.record(result())
    store.close()
    assert row_count(db_path) == 1


def test_a_read_only_folder_is_read_by_a_process_that_cannot_write_it(db_path: Path) -> None:
    from tests.readonly import read_only, run_bound

    with ResultStore(db_path) as first:
        first.record(result(0, puzzle="kept"))
    before = _folder_state(db_path.parent)
    code = (
        "import sys\n"
        "from tests.tui.stores import result\n"
        "from tui.store import ResultStore\n"
        "store, message = ResultStore.open_or_recover(sys.argv[1])\n"
        "print(store.read_only, [r.puzzle for r in store.recent()])\n"
        "print(store.save(result(1, puzzle='new')).saved, store.stats().played, store.close())\n"
        "print(message)\n"
    )
    with read_only(db_path.parent):
        done = run_bound("-c", code, str(db_path))
    assert done.returncode == 0, done.stderr
    shown, saved, message = done.stdout.splitlines()
    assert (shown, saved) == ("True ['kept']", "1 2 None")
    assert message.startswith(f"{db_path}: read-only") and "nothing new can be saved" in message
    assert _folder_state(db_path.parent) == before


# --- renames never replace what is not a regular file -------------------------------------------


def test_recovery_never_renames_over_a_link(db_path: Path, tmp_path: Path) -> None:
    garbage = _garbage(db_path)
    now = datetime.now(UTC)
    links = []
    for second in range(5):  # the names the copy would take over the next seconds
        stamp = (now + timedelta(seconds=second)).strftime("%Y%m%dT%H%M%SZ")
        links.append(db_path.with_name(f"{FILE_NAME}.corrupt-{stamp}"))
        links[-1].symlink_to(tmp_path / "nowhere")
    store, message = ResultStore.open_or_recover(db_path)
    store.close()
    assert message is not None and "kept as" in message
    assert all(link.is_symlink() for link in links) and not (tmp_path / "nowhere").exists()
    copies = [
        p
        for p in db_path.parent.glob(f"{FILE_NAME}.corrupt-*")
        if not p.is_symlink() and not p.name.endswith(("-wal", "-shm", "-journal"))
    ]
    assert [p.read_bytes() for p in copies] == [garbage]


def test_a_side_file_is_never_renamed_over_a_link(db_path: Path, tmp_path: Path) -> None:
    store = ResultStore(db_path).open()
    with HeldLock(db_path):
        assert store.save(result(0, puzzle="kept")).waiting == 1
        kept = store.close()
    assert kept is not None
    victim = tmp_path / "victim.txt"
    victim.write_text("someone's file\n")
    done = kept.with_name(kept.name + ".saved")
    done.symlink_to(victim)
    again = ResultStore(db_path).open()
    report = again.flush()
    assert report.saved == 0 and "a symbolic link" in str(report.error)
    assert done.is_symlink() and victim.read_text() == "someone's file\n" and kept.exists()
    assert row_count(db_path) == 0  # the transaction that would have saved it was undone
    done.unlink()
    assert again.flush().saved == 1 and [r.puzzle for r in again.recent()] == ["kept"]
    again.close()
