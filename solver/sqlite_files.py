"""What ponder's SQLite files (the results store, BoT's experience library) share: how a file
is opened, and how a block of writes is committed whole or not at all."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["connect", "immediate", "roll_back"]


def connect(path: Path | None, timeout_ms: int) -> sqlite3.Connection:
    """Open ``path`` (None: a database in memory), making its folder first: no implicit
    transactions (the callers say where each one is), a busy timeout, usable from whichever
    thread the caller's lock lets in. Raises :class:`OSError` for the folder and
    :class:`sqlite3.Error` for the file."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return sqlite3.connect(
        ":memory:" if path is None else path,
        timeout=timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )


def roll_back(db: sqlite3.Connection) -> bool:
    """Undo the open transaction, if there is one; False when even that failed (the
    connection's state is then unknown and it should not be used again)."""
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error:
        return False
    return True


@contextlib.contextmanager
def immediate(
    db: sqlite3.Connection, lost: Callable[[], None] = lambda: None
) -> Iterator[sqlite3.Connection]:
    """The block's writes in one transaction, committed when the block ends or rolled back
    when it raises. IMMEDIATE takes the write lock at once (waiting up to the busy timeout),
    so the block never fails halfway for want of it. ``lost`` is called when the roll back
    itself fails."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if not roll_back(db):
            lost()
        raise
