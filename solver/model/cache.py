"""The request cache: sample texts keyed by request identity and sample index."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

__all__ = ["ResponseCache"]


class ResponseCache:
    """Sample texts keyed by request identity and sample index; in memory, optionally on disk.

    The disk copy is an SQLite file (``PRAGMA user_version`` marks its layout). If the file
    cannot be opened the cache quietly stays in memory: a cache is never worth a failed run.
    """

    _VERSION = 1

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._memory: dict[str, str] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self._db = self._open(Path(path))

    def _open(self, path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != self._VERSION:
            # A cache holds nothing that cannot be fetched again: rebuild rather than migrate.
            db.execute("DROP TABLE IF EXISTS samples")
            db.execute("CREATE TABLE samples (key TEXT PRIMARY KEY, text TEXT NOT NULL)")
            db.execute(f"PRAGMA user_version = {self._VERSION}")
            db.commit()
        return db

    def get(self, key: str) -> str | None:
        """The cached text for ``key``, if any."""
        if key in self._memory:
            return self._memory[key]
        if self._db is not None:
            row = self._db.execute("SELECT text FROM samples WHERE key = ?", (key,)).fetchone()
            if row is not None:
                self._memory[key] = row[0]
                return str(row[0])
        return None

    def put(self, key: str, text: str) -> None:
        """Remember ``text`` for ``key``."""
        self._memory[key] = text
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error), self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO samples (key, text) VALUES (?, ?)", (key, text)
                )

    def __len__(self) -> int:
        return len(self._memory)

    def close(self) -> None:
        """Close the disk copy, if any."""
        if self._db is not None:
            self._db.close()
            self._db = None
