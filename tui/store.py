"""The player's record: every played puzzle, kept in SQLite in the user data dir.

Plain Python (no Textual), so the app, the command line and the tests share it. The file's
layout is versioned with ``PRAGMA user_version`` and moved forward by :data:`MIGRATIONS`, each
run inside one transaction. Every write is a single transaction in WAL mode with
``synchronous = FULL``: a crash leaves the whole row or none of it.

Nothing here fails quietly. A file that cannot be used raises :class:`StoreError` (or one of
its kinds, :class:`CorruptStoreError` and :class:`NewerStoreError`) naming the file;
:meth:`ResultStore.open_or_recover` turns those into a working store and a message for the
player, and never deletes what was there.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Final

from solver.settings import data_dir

__all__ = [
    "FILE_NAME",
    "MEMORY",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "CorruptStoreError",
    "NewerStoreError",
    "Result",
    "ResultStore",
    "Stats",
    "StoreError",
]

FILE_NAME: Final = "ponder.sqlite3"
"""The results file's name inside :func:`solver.settings.data_dir`."""

MEMORY: Final = ":memory:"
"""Pass as ``path`` for a store that lives in memory only and is lost on :meth:`close`."""

BUSY_TIMEOUT_MS: Final = 5000
"""How long to wait for another ponder (or another store object) holding the write lock."""


# --- errors -----------------------------------------------------------------------------------


class StoreError(Exception):
    """The results file cannot be used. The message names the file and says why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        """The file concerned (``":memory:"`` for an in-memory store)."""


class CorruptStoreError(StoreError):
    """The file is damaged, is not SQLite, or is an SQLite file that is not ponder's results.

    :meth:`ResultStore.open_or_recover` moves such a file aside and starts afresh.
    """


class NewerStoreError(StoreError):
    """The file was written by a newer ponder whose layout this version does not know.

    The file is fine and is left untouched; updating ponder makes it usable again.
    """

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            path,
            f"written by a newer version of ponder (layout {found}; this version knows up to "
            f"{known}); update ponder to use it",
        )
        self.found = found
        """The file's ``user_version``."""
        self.known = known
        """The newest layout this code can read and write (:data:`SCHEMA_VERSION`)."""


# --- domain -----------------------------------------------------------------------------------


def _check_seconds(name: str, value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number of seconds, got {value!r}")
    if not (0 <= value < math.inf):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class Result:
    """One played puzzle: what was asked, how the player did, and how the solver did.

    Mirrors a row of the ``results`` table. Build one with keywords; ``id`` is ``None`` until
    :meth:`ResultStore.record` stores it (the stored id is what it returns).
    """

    id: int | None = None
    """Row id, assigned by the store; ``None`` for a result not yet recorded."""

    kind: str
    """Which puzzle: ``"game24"``, ..."""

    puzzle: str
    """The puzzle as shown, e.g. ``"4 7 8 8"``."""

    difficulty: str | None = None
    """The puzzle's difficulty label, if it has one."""

    started_at: datetime
    """When play began: a timezone-aware datetime, stored as ISO 8601 in UTC."""

    seconds: float
    """How long the player took (to solve, give up or leave)."""

    hints: int = 0
    """How many hints the player asked for."""

    solved: bool
    """Whether the player solved it."""

    gave_up: bool = False
    """Whether the player gave up (a given-up puzzle is not solved)."""

    answer: str | None = None
    """The player's final answer, e.g. ``"(8 / (7 - 4)) * 8"``, if any."""

    solver_method: str | None = None
    """The reasoning method that played alongside (``"tot"``, ...), if one did."""

    solver_solved: bool | None = None
    """Whether that method solved it; ``None`` when none ran or it did not finish."""

    solver_seconds: float | None = None
    """How long the method took; ``None`` when none ran."""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or not self.kind.strip():
            raise ValueError(f"kind must be a non-empty string, got {self.kind!r}")
        if not isinstance(self.puzzle, str):
            raise TypeError(f"puzzle must be a string, got {self.puzzle!r}")
        if not isinstance(self.started_at, datetime) or self.started_at.utcoffset() is None:
            raise ValueError(f"started_at must be a timezone-aware datetime: {self.started_at!r}")
        _check_seconds("seconds", self.seconds)
        _check_seconds("solver_seconds", self.solver_seconds)
        if isinstance(self.hints, bool) or not isinstance(self.hints, int) or self.hints < 0:
            raise ValueError(f"hints must be a whole number >= 0, got {self.hints!r}")
        for name in ("solved", "gave_up"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.solver_solved is not None and not isinstance(self.solver_solved, bool):
            raise TypeError(f"solver_solved must be True, False or None: {self.solver_solved!r}")
        if self.solved and self.gave_up:
            raise ValueError("a puzzle cannot be both solved and given up")


@dataclass(frozen=True)
class Stats:
    """How the player has done, over all results or one kind of puzzle."""

    played: int
    """Results recorded."""

    solved: int
    """Results the player solved."""

    solve_rate: float
    """``solved / played``, from 0.0 to 1.0; 0.0 when nothing was played."""

    current_streak: int
    """Solved results in a row, ending at the most recent one (0 if that one was not solved)."""

    best_streak: int
    """The longest run of solved results in a row, ever."""

    best_seconds: float | None
    """The fastest solve; ``None`` before the first one."""

    average_seconds: float | None
    """Mean time of the solved results; ``None`` before the first one."""

    hints_used: int
    """Hints asked for, in total."""


# --- schema -----------------------------------------------------------------------------------

Migration = Callable[[sqlite3.Connection], None]
"""One step of the layout: run inside the migration's transaction, never committing itself."""


def _create_results(db: sqlite3.Connection) -> None:
    """Layout 1: the ``results`` table."""
    db.execute(
        """
        CREATE TABLE results (
            id             INTEGER PRIMARY KEY,
            kind           TEXT    NOT NULL,
            puzzle         TEXT    NOT NULL,
            difficulty     TEXT,
            started_at     TEXT    NOT NULL,
            seconds        REAL    NOT NULL CHECK (seconds >= 0),
            hints          INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),
            solved         INTEGER NOT NULL CHECK (solved IN (0, 1)),
            gave_up        INTEGER NOT NULL DEFAULT 0 CHECK (gave_up IN (0, 1)),
            answer         TEXT,
            solver_method  TEXT,
            solver_solved  INTEGER CHECK (solver_solved IN (0, 1)),
            solver_seconds REAL CHECK (solver_seconds >= 0)
        )
        """
    )
    # recent() and stats() read in started_at order, overall or for one kind.
    db.execute("CREATE INDEX results_by_start ON results (started_at, id)")
    db.execute("CREATE INDEX results_by_kind_start ON results (kind, started_at, id)")


MIGRATIONS: Sequence[Migration] = (_create_results,)
"""Layout steps in order; step ``i`` takes a file from ``user_version`` ``i`` to ``i + 1``.
Only ever append: released files depend on the earlier steps staying as they are."""

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The ``user_version`` of a file this code has migrated."""

_COLUMNS: Final = (
    "id",
    "kind",
    "puzzle",
    "difficulty",
    "started_at",
    "seconds",
    "hints",
    "solved",
    "gave_up",
    "answer",
    "solver_method",
    "solver_solved",
    "solver_seconds",
)
_SELECT: Final = f"SELECT {', '.join(_COLUMNS)} FROM results"
# Newest first; id breaks ties between results started in the same microsecond.
_NEWEST_FIRST: Final = "ORDER BY started_at DESC, id DESC"

_CORRUPT_CODES: Final = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})


def _is_corruption(err: sqlite3.Error) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _CORRUPT_CODES


def _iso_utc(moment: datetime) -> str:
    # Fixed width (always microseconds, always +00:00), so text order is time order.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


# --- the store --------------------------------------------------------------------------------


class ResultStore:
    """The played-puzzle record, in one SQLite file (default ``data_dir() / "ponder.sqlite3"``).

    The file is opened on first use (or by :meth:`open`, or entering a ``with`` block), created
    and migrated if need be. Every method may raise :class:`StoreError`; use
    :meth:`open_or_recover` at start-up to get a store that works whatever state the file is in.
    Safe to share between threads; several stores (and several ponders) may use one file.
    """

    migrations: ClassVar[Sequence[Migration]] = MIGRATIONS
    """The layout steps this store applies (a subclass may extend them, as tests do)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            self._path: Path | None = data_dir() / FILE_NAME
        elif os.fspath(path) == MEMORY:
            self._path = None
        else:
            self._path = Path(path).expanduser()
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        state = "open" if self._db is not None else "closed"
        return f"ResultStore({self.name!r}, {state})"

    @property
    def path(self) -> Path | None:
        """The file, or ``None`` for an in-memory store."""
        return self._path

    @property
    def name(self) -> str:
        """The file's path as text, or ``":memory:"``: what messages call it."""
        return MEMORY if self._path is None else str(self._path)

    @property
    def in_memory(self) -> bool:
        """Whether results vanish on :meth:`close` (nothing is written to disk)."""
        return self._path is None

    # -- lifecycle ------------------------------------------------------------------------------

    def open(self) -> ResultStore:
        """Open (creating and migrating) the file now rather than on first use; returns self.

        Raises :class:`CorruptStoreError`, :class:`NewerStoreError` or :class:`StoreError`.
        """
        self._connection()
        return self

    def close(self) -> None:
        """Close the file. Safe to call twice; a later call reopens it (an in-memory store
        starts empty again)."""
        with self._lock:
            if self._db is not None:
                db, self._db = self._db, None
                with contextlib.suppress(sqlite3.Error):
                    db.close()

    def __enter__(self) -> ResultStore:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @classmethod
    def open_or_recover(
        cls, path: str | os.PathLike[str] | None = None
    ) -> tuple[ResultStore, str | None]:
        """Open the store at ``path`` whatever state its file is in; never raises StoreError.

        Returns the open store and ``None``, or a working store and a message for the player:

        - damaged or foreign file: it is renamed ``<name>.corrupt-<UTC timestamp>`` (with any
          ``-wal``/``-shm``/``-journal`` beside it), keeping its bytes, and a fresh file starts;
        - file from a newer ponder, or a file or folder that cannot be read or written: the file
          is left untouched and the store keeps this session's results in memory only.
        """
        store = cls(path)
        try:
            return store.open(), None
        except CorruptStoreError as err:
            damage = err
        except StoreError as err:
            return cls._memory(), f"{err}. This session's results will not be saved."

        assert store.path is not None  # an in-memory store cannot be corrupt
        try:
            aside = _move_aside(store.path)
        except OSError as err:
            return cls._memory(), (
                f"{damage}. It could not be moved aside ({err.strerror or err}), so it was left "
                "as it is and this session's results will not be saved."
            )
        try:
            fresh = cls(store.path).open()
        except StoreError as err:
            return cls._memory(), (
                f"{damage}. It was kept as {aside}, but a fresh file could not be started "
                f"({err}); this session's results will not be saved."
            )
        return fresh, f"{damage}. It was kept as {aside} and a fresh record was started."

    @classmethod
    def _memory(cls) -> ResultStore:
        return cls(MEMORY).open()

    # -- reading and writing --------------------------------------------------------------------

    def record(self, result: Result) -> int:
        """Store ``result`` (its ``id`` is ignored) in one transaction; returns the new row id."""
        row = (
            result.kind,
            result.puzzle,
            result.difficulty,
            _iso_utc(result.started_at),
            float(result.seconds),
            result.hints,
            int(result.solved),
            int(result.gave_up),
            result.answer,
            result.solver_method,
            None if result.solver_solved is None else int(result.solver_solved),
            None if result.solver_seconds is None else float(result.solver_seconds),
        )
        columns = ", ".join(_COLUMNS[1:])
        marks = ", ".join("?" * len(row))
        with self._transaction("record a result") as db:
            cursor = db.execute(f"INSERT INTO results ({columns}) VALUES ({marks})", row)
            row_id = cursor.lastrowid
        assert row_id is not None
        return row_id

    def recent(self, limit: int = 10, kind: str | None = None) -> list[Result]:
        """The ``limit`` most recently started results (of ``kind``, if given), newest first."""
        if limit <= 0:
            return []
        where, args = _kind_filter(kind)
        rows = self._read(
            "read results", f"{_SELECT} {where} {_NEWEST_FIRST} LIMIT ?", (*args, limit)
        )
        return [self._result(row) for row in rows]

    def stats(self, kind: str | None = None) -> Stats:
        """Totals, streaks and times over all results, or those of ``kind``."""
        where, args = _kind_filter(kind)
        # Oldest first, so streaks run in the order the puzzles were played.
        flags = self._read(
            "read statistics",
            f"SELECT solved, seconds, hints FROM results {where} ORDER BY started_at, id",
            args,
        )
        played = solved = hints = streak = best_streak = 0
        solve_times: list[float] = []
        for was_solved, seconds, used in flags:
            played += 1
            hints += used
            if was_solved:
                solved += 1
                solve_times.append(seconds)
                streak += 1
                best_streak = max(best_streak, streak)
            else:
                streak = 0
        return Stats(
            played=played,
            solved=solved,
            solve_rate=solved / played if played else 0.0,
            current_streak=streak,
            best_streak=best_streak,
            best_seconds=min(solve_times) if solve_times else None,
            average_seconds=math.fsum(solve_times) / len(solve_times) if solve_times else None,
            hints_used=hints,
        )

    # -- internals ------------------------------------------------------------------------------

    def _error(self, action: str, err: sqlite3.Error) -> StoreError:
        detail = str(err) or type(err).__name__
        if _is_corruption(err):
            return CorruptStoreError(
                self.name, f"damaged or not a ponder results file ({detail}; on trying to {action})"
            )
        if (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF == sqlite3.SQLITE_BUSY:
            detail = f"{detail}; another program kept it locked for {BUSY_TIMEOUT_MS} ms"
        return StoreError(self.name, f"cannot {action}: {detail}")

    def _read(self, action: str, sql: str, args: Sequence[Any]) -> list[Any]:
        with self._lock:
            db = self._connection()
            try:
                return db.execute(sql, args).fetchall()
            except sqlite3.Error as err:
                raise self._error(action, err) from err

    @contextlib.contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of the block's changes are committed, or none are."""
        with self._lock:
            db = self._connection()
            try:
                # IMMEDIATE takes the write lock now (waiting up to the busy timeout), so the
                # block never fails halfway for want of it.
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    self._roll_back(db)
                    raise
            except sqlite3.Error as err:
                raise self._error(action, err) from err

    def _roll_back(self, db: sqlite3.Connection) -> None:
        """Undo the open transaction; if even that fails, drop the connection, whose state is
        then unknown, so the next call starts clean."""
        try:
            if db.in_transaction:
                db.execute("ROLLBACK")
        except sqlite3.Error:
            if self._db is db:
                self._db = None
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _result(self, row: Sequence[Any]) -> Result:
        values = dict(zip(_COLUMNS, row, strict=True))
        try:
            values["started_at"] = datetime.fromisoformat(values["started_at"])
            for name in ("solved", "gave_up", "solver_solved"):
                if values[name] is not None:
                    values[name] = bool(values[name])
            return Result(**values)
        except (TypeError, ValueError) as err:
            raise CorruptStoreError(
                self.name, f"result {values.get('id')} cannot be read: {err}"
            ) from err

    def _connection(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self._db = self._connect()
            return self._db

    def _connect(self) -> sqlite3.Connection:
        """Open, check and migrate the file; raises :class:`StoreError` and leaves nothing open."""
        if self._path is not None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(
                    self.name, f"cannot create its folder: {err.strerror or err}"
                ) from err
        try:
            # isolation_level=None: no implicit transactions; _transaction() says where they are.
            db = sqlite3.connect(
                self.name,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,  # self._lock serialises use across threads
            )
        except sqlite3.Error as err:
            raise self._error("open it", err) from err
        try:
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        action = "open it"
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # Look before changing anything, so a newer or foreign file stays untouched. One
            # read transaction: another store migrating meanwhile is seen whole or not at all.
            db.execute("BEGIN")
            try:
                self._check_layout(db)
            finally:
                self._roll_back(db)
            action = "check it"
            problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise CorruptStoreError(self.name, f"damaged: {'; '.join(problems[:3])}")
            action = "set it up"
            # WAL: readers never block the writer, and a crash mid-write is rolled back on the
            # next open. Some file systems refuse WAL; the rollback journal is atomic too.
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            action = "update its layout"
            self._migrate(db)
            self._check_schema(db)
        except sqlite3.Error as err:
            raise self._error(action, err) from err

    def _check_layout(self, db: sqlite3.Connection) -> int:
        """The file's layout version, if this code can migrate it; call inside a transaction."""
        version = _user_version(db)
        if version > len(self.migrations):
            raise NewerStoreError(self.name, version, len(self.migrations))
        if version < 0:
            raise CorruptStoreError(self.name, f"not a ponder results file (layout {version})")
        if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise CorruptStoreError(
                self.name, "an SQLite file with other tables, not a ponder results file"
            )
        if version == len(self.migrations):
            self._check_schema(db)
        return version

    def _migrate(self, db: sqlite3.Connection) -> None:
        latest = len(self.migrations)
        if _user_version(db) == latest:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            # Look again under the write lock: another store may have migrated meanwhile.
            version = self._check_layout(db)
            for step in self.migrations[version:]:
                step(db)
            # PRAGMA user_version is transactional: it commits with the steps, or not at all.
            db.execute(f"PRAGMA user_version = {latest}")
            db.execute("COMMIT")
        except BaseException:
            self._roll_back(db)
            raise

    def _check_schema(self, db: sqlite3.Connection) -> None:
        found = {row[1] for row in db.execute("PRAGMA table_info(results)")}
        missing = [name for name in _COLUMNS if name not in found]
        if missing:
            raise CorruptStoreError(
                self.name,
                f"not a ponder results file: table results lacks {', '.join(missing)}",
            )


def _user_version(db: sqlite3.Connection) -> int:
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def _kind_filter(kind: str | None) -> tuple[str, tuple[str, ...]]:
    return ("", ()) if kind is None else ("WHERE kind = ?", (kind,))


def _move_aside(path: Path) -> Path:
    """Rename ``path`` (and its SQLite side files) to ``<name>.corrupt-<UTC time>``; never
    overwrites. Returns the new path of the main file."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    path.rename(aside)
    # SQLite finds these by the main file's name + suffix; renaming them alike keeps a WAL's
    # last transactions with the file they belong to.
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(aside.with_name(aside.name + suffix))
    return aside
