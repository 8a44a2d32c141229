"""What ponder's SQLite files (the results store, BoT's experience library) share: how a file
is opened, and how a block of writes is committed whole or not at all.

A file in a folder ponder may not write (a read-only mount, a shared or locked-down data
folder) is still read: :func:`can_write` says when it cannot be written, and :func:`snapshot`
reads it through a read-only connection into memory, where the callers check and bring its
layout up to date without touching the file."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["can_write", "connect", "immediate", "open_read_only", "roll_back", "snapshot"]


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


def can_write(path: Path) -> bool:
    """Whether this process may write the SQLite file ``path``: the file itself when it
    exists, and its folder, where SQLite makes its journal and WAL files (or, when the folder
    is yet to be made, the nearest folder above it that exists)."""
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    # Effective ids: what the process may do, not its real user (they differ under setuid).
    real = os.access in os.supports_effective_ids
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=real):
        return False
    return not path.exists() or os.access(path, os.W_OK, effective_ids=real)


def open_read_only(path: Path, timeout_ms: int) -> sqlite3.Connection:
    """A connection that can only read ``path`` (SQLite refuses every write on it), and that
    makes nothing beside it. Raises :class:`sqlite3.Error` when the file cannot be read."""
    uri = "file:" + urllib.parse.quote(os.fspath(path.absolute()))
    if os.path.lexists(f"{path}-wal"):
        # Its latest transactions are in the WAL file: read through it, which needs the
        # shared-memory file beside it (there, or made).
        with contextlib.suppress(sqlite3.Error):
            return _open_uri(f"{uri}?mode=ro", timeout_ms)
    # The main file alone, as immutable: SQLite would otherwise make a WAL file and a
    # shared-memory file to read it, in a folder that may be read-only.
    return _open_uri(f"{uri}?mode=ro&immutable=1", timeout_ms)


def _open_uri(uri: str, timeout_ms: int) -> sqlite3.Connection:
    db = sqlite3.connect(
        uri, uri=True, timeout=timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        db.execute("PRAGMA schema_version").fetchone()  # the first read: where opening fails
    except BaseException:
        db.close()
        raise
    return db


def snapshot(path: Path, timeout_ms: int) -> sqlite3.Connection:
    """The file ``path`` as it is now, copied into a database in memory through a read-only
    connection: the file is never written, and the copy may be checked and migrated as a
    file ponder owns would be. Raises :class:`sqlite3.Error`."""
    source = open_read_only(path, timeout_ms)
    copy = connect(None, timeout_ms)
    try:
        source.backup(copy)
    except BaseException:
        copy.close()
        raise
    finally:
        source.close()
    return copy


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
