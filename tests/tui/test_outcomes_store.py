"""The outcomes added in layout 2: a win with the solution shown, an abandoned puzzle, races;
how they count in the streak and the fastest time; and a layout-1 file migrated in place."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tui.store import SCHEMA_VERSION, Result, ResultStore

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def played(minute: int, seconds: float = 30.0, **fields: bool | int | None) -> Result:
    values: dict[str, bool | int | None] = {"solved": True, **fields}
    return Result(
        kind="game24",
        puzzle="4 7 8 8",
        started_at=T0 + timedelta(minutes=minute),
        seconds=seconds,
        **values,  # type: ignore[arg-type]
    )


def test_a_win_with_the_solution_shown_is_solved_but_not_fastest_and_ends_the_streak(
    tmp_path: Path,
) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        store.record(played(0, 50.0))
        store.record(played(1, 40.0))
        store.record(played(2, 5.0, hints=3, solution_shown=True))
        stats = store.stats()
        assert (stats.played, stats.solved) == (3, 3)
        assert stats.best_seconds == 40.0 and stats.average_seconds == 45.0
        assert (stats.current_streak, stats.best_streak) == (0, 2)
        (last, *_) = store.recent(1)
        assert last.solution_shown and last.solved


def test_an_abandoned_puzzle_breaks_the_streak(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        store.record(played(0))
        store.record(played(1))
        store.record(played(2, solved=False, abandoned=True))
        store.record(played(3))
        stats = store.stats()
        assert (stats.current_streak, stats.best_streak, stats.solved) == (1, 2, 3)
        assert [r.abandoned for r in store.recent(4)] == [False, True, False, False]


def test_races_and_race_wins_are_counted(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        store.record(played(0, race=True, race_won=True))
        store.record(played(1, race=True, race_won=False))
        store.record(played(2, solved=False, gave_up=True, race=True, race_won=False))
        store.record(played(3))
        stats = store.stats()
        assert (stats.races, stats.races_won) == (3, 1)


@pytest.mark.parametrize(
    "fields",
    [
        {"solved": True, "abandoned": True},
        {"solved": False, "solution_shown": True},
        {"race_won": True},
    ],
)
def test_outcomes_that_cannot_go_together_are_refused(fields: dict[str, bool | int | None]) -> None:
    with pytest.raises(ValueError):
        played(0, 30.0, **fields)


def test_a_layout_1_file_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE results (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, puzzle TEXT NOT NULL,"
        " difficulty TEXT, started_at TEXT NOT NULL, seconds REAL NOT NULL, hints INTEGER NOT"
        " NULL DEFAULT 0, solved INTEGER NOT NULL, gave_up INTEGER NOT NULL DEFAULT 0, answer"
        " TEXT, solver_method TEXT, solver_solved INTEGER, solver_seconds REAL)"
    )
    db.execute(
        "INSERT INTO results (kind, puzzle, started_at, seconds, solved) VALUES (?, ?, ?, ?, 1)",
        ("game24", "1 2 3 4", T0.isoformat(timespec="microseconds"), 12.0),
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with ResultStore(path) as store:
        (old,) = store.recent(5)
        assert old.solved and not old.solution_shown and not old.race and old.race_won is None
        store.record(played(1, race=True, race_won=True))
        assert store.stats().races_won == 1
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    check.close()


def test_a_side_file_from_layout_1_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with ResultStore(path):
        pass
    old = {
        "kind": "game24",
        "puzzle": "1 2 3 4",
        "difficulty": None,
        "started_at": T0.isoformat(timespec="microseconds"),
        "seconds": 3.0,
        "hints": 0,
        "solved": True,
        "gave_up": False,
        "answer": None,
        "solver_method": None,
        "solver_solved": None,
        "solver_seconds": None,
    }
    (tmp_path / "r.db.pending-old.jsonl").write_text(json.dumps(old) + "\n")
    with ResultStore(path) as store:
        store.flush()
        assert [r.puzzle for r in store.recent(5)] == ["1 2 3 4"]
