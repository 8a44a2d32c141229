"""Results and a lock held by another process, for the tests of the results store."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tui.store import (
    Result,
)

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def result(
    minute: int = 0,
    *,
    solved: bool = True,
    gave_up: bool = False,
    seconds: float = 30.0,
    hints: int = 0,
    kind: str = "game24",
    puzzle: str = "4 7 8 8",
) -> Result:
    """A result started ``minute`` minutes after T0."""
    return Result(
        kind=kind,
        puzzle=puzzle,
        started_at=T0 + timedelta(minutes=minute),
        seconds=seconds,
        hints=hints,
        solved=solved,
        gave_up=gave_up,
    )


class HeldLock:
    """Another process holding the file's write lock until :meth:`release`: a real second
    SQLite connection, in a child process, inside an open write transaction."""

    def __init__(self, path: Path, *, exclusive: bool = False) -> None:
        mode = "EXCLUSIVE" if exclusive else "IMMEDIATE"
        code = (
            "import sqlite3, sys\n"
            f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            f"db.execute('BEGIN {mode}')\n"
            'db.execute("INSERT INTO results (kind, puzzle, started_at, seconds, solved) '
            "VALUES ('game24', 'other', '2024-01-01T00:00:00.000000+00:00', 1, 1)\")\n"
            "print('locked', flush=True)\n"
            "sys.stdin.readline()\n"
            "db.execute('ROLLBACK')\n"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("\n")
            self.process.stdin.flush()
            self.process.wait(timeout=30)

    def __enter__(self) -> HeldLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
