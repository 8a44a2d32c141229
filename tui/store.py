"""The player's record: every played puzzle, kept in SQLite in the user data dir.

Plain Python (no Textual), so the app, the command line and the tests share it. The file's
layout is versioned with ``PRAGMA user_version`` and moved forward by :data:`MIGRATIONS`, each
run inside one transaction. Every write is a single transaction in WAL mode with
``synchronous = FULL``: a crash leaves the whole row or none of it.

Nothing here fails quietly. A file that cannot be used raises :class:`StoreError` (or one of
its kinds, :class:`CorruptStoreError` and :class:`NewerStoreError`) naming the file;
:meth:`ResultStore.open_or_recover` turns those into a working store and a message for the
player, and never deletes what was there.

Nothing is lost either. :meth:`ResultStore.save` (for a worker thread) queues a result that
cannot be written yet, for instance while another program holds the file's write lock, and
writes it with the next save, :meth:`~ResultStore.flush` or :meth:`~ResultStore.close`; results
still queued at close are kept in a side file that the next open picks up. A row that cannot
be read is skipped and counted (:attr:`Stats.unreadable`), never allowed to hide the others.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Final

from puzzles.files import FileError, output_problem, write_whole
from solver.settings import data_dir
from solver.sqlite_files import can_write, connect, immediate, roll_back, snapshot

__all__ = [
    "FILE_NAME",
    "MEMORY",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "CorruptStoreError",
    "NewerStoreError",
    "Result",
    "ResultStore",
    "SaveReport",
    "Stats",
    "StoreError",
]

FILE_NAME: Final = "ponder.sqlite3"
"""The results file's name inside :func:`solver.settings.data_dir`."""

MEMORY: Final = ":memory:"
"""Pass as ``path`` for a store that lives in memory only and is lost on :meth:`close`."""

BUSY_TIMEOUT_MS: Final = 5000
"""How long :meth:`ResultStore.record` waits for another ponder (or another store object)
holding the write lock."""

SAVE_WAIT_S: Final = 1.0
"""How long :meth:`ResultStore.save` waits for that lock before it keeps the result queued."""

CLOSE_WAIT_S: Final = 0.5
"""How long :meth:`ResultStore.close` waits for it before it keeps queued results aside."""

PENDING_GLOB: Final = ".pending-*.jsonl"
"""Side files of results that waited past close: ``<file name>.pending-<id>.jsonl``."""

MAX_PENDING_BYTES: Final = 16 * 1024 * 1024
"""A side file larger than this is not ponder's: it is left alone."""


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

    solution_shown: bool = False
    """Whether the player won only after a hint showed a full solution: such a win counts as
    solved but not toward the streak, the fastest or the average time."""

    abandoned: bool = False
    """Whether the player left a started puzzle unfinished (it breaks the streak)."""

    race: bool = False
    """Whether the player raced the solver on this puzzle."""

    race_won: bool | None = None
    """In a race, whether the player beat the solver; ``None`` outside a race or when neither
    finished."""

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
        for name in ("solved", "gave_up", "solution_shown", "abandoned", "race"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.solver_solved is not None and not isinstance(self.solver_solved, bool):
            raise TypeError(f"solver_solved must be True, False or None: {self.solver_solved!r}")
        if self.race_won is not None and not isinstance(self.race_won, bool):
            raise TypeError(f"race_won must be True, False or None: {self.race_won!r}")
        if self.solved and self.gave_up:
            raise ValueError("a puzzle cannot be both solved and given up")
        if self.abandoned and (self.solved or self.gave_up):
            raise ValueError("an abandoned puzzle is neither solved nor given up")
        if self.solution_shown and not self.solved:
            raise ValueError("solution_shown describes a solved puzzle")
        if self.race_won is not None and not self.race:
            raise ValueError("race_won needs race")

    @property
    def own_solve(self) -> bool:
        """Solved without being shown a full solution: what streaks and best times count."""
        return self.solved and not self.solution_shown


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
    """Results solved on the player's own in a row, ending at the most recent one (0 if that
    one was not). A win after a hint showed the full solution, a given-up or an abandoned
    puzzle ends a streak."""

    best_streak: int
    """The longest such run, ever."""

    best_seconds: float | None
    """The fastest solve on the player's own (no full solution shown); ``None`` before one."""

    average_seconds: float | None
    """Mean time of those solves; ``None`` before the first one."""

    hints_used: int
    """Hints asked for, in total."""

    abandoned: int = 0
    """Puzzles left unfinished (esc or ctrl+q in play): played, not solved, no streak."""

    races: int = 0
    """Puzzles raced against the solver."""

    races_won: int = 0
    """Races the player won."""

    unreadable: int = 0
    """Rows that could not be read (damaged or written by something else): skipped, never
    counted in the figures above."""


@dataclass(frozen=True)
class SaveReport:
    """What :meth:`ResultStore.save` or :meth:`ResultStore.flush` did."""

    saved: int
    """Results written to the file by this call."""

    waiting: int
    """Results still queued: kept, and tried again by the next save, flush or close."""

    error: StoreError | None = None
    """Why results are waiting; ``None`` when none are."""


@dataclass(frozen=True, eq=False)
class _Queued:
    """A result waiting to be written; ``source`` is the side file it was read back from."""

    result: Result
    source: Path | None = None


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


def _add_outcomes(db: sqlite3.Connection) -> None:
    """Layout 2: a win with the solution shown, an abandoned puzzle, and races."""
    for column in (
        "solution_shown INTEGER NOT NULL DEFAULT 0 CHECK (solution_shown IN (0, 1))",
        "abandoned INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1))",
        "race INTEGER NOT NULL DEFAULT 0 CHECK (race IN (0, 1))",
        "race_won INTEGER CHECK (race_won IN (0, 1))",
    ):
        db.execute(f"ALTER TABLE results ADD COLUMN {column}")


MIGRATIONS: Sequence[Migration] = (_create_results, _add_outcomes)
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
    "solution_shown",
    "abandoned",
    "race",
    "race_won",
)
_BOOL_COLUMNS: Final = (
    "solved",
    "gave_up",
    "solver_solved",
    "solution_shown",
    "abandoned",
    "race",
    "race_won",
)
_LAYOUT_1_COLUMNS: Final = _COLUMNS[:13]
"""What a side file written before layout 2 holds."""
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

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False
    ) -> None:
        if path is None:
            self._path: Path | None = data_dir() / FILE_NAME
        elif os.fspath(path) == MEMORY:
            self._path = None
        else:
            self._path = Path(path).expanduser()
        # A read-only store reads its file once, into memory, and never writes it: it is an
        # in-memory store that starts with the file's results.
        self._source: Path | None = None
        if read_only and self._path is not None:
            self._source, self._path = self._path, None
        self._db: sqlite3.Connection | None = None  # reads (and the layout), under _lock
        self._lock = threading.RLock()
        # Writes use a connection of their own, so a write waiting for another program's lock
        # never holds up a read (WAL readers do not wait for writers). In memory there is no
        # other program, and a second connection would be a second, empty database.
        self._writer: sqlite3.Connection | None = None
        self._write_lock = self._lock if self._path is None else threading.RLock()
        self._queue: list[_Queued] = []
        self._queue_lock = threading.Lock()
        self._sources_read: set[Path] = set()

    def __repr__(self) -> str:
        state = "open" if self._db is not None else "closed"
        return f"ResultStore({self.name!r}, {state})"

    @property
    def path(self) -> Path | None:
        """The file (the one read, for a read-only store), or ``None`` for an in-memory store."""
        return self._path or self._source

    @property
    def name(self) -> str:
        """The file's path as text, or ``":memory:"``: what messages call it."""
        path = self.path
        return MEMORY if path is None else str(path)

    @property
    def in_memory(self) -> bool:
        """Whether results vanish on :meth:`close` (nothing is written to disk)."""
        return self._path is None

    @property
    def read_only(self) -> bool:
        """Whether the store only reads its file: it shows the file's results, and keeps
        this session's in memory."""
        return self._source is not None

    # -- lifecycle ------------------------------------------------------------------------------

    def open(self) -> ResultStore:
        """Open (creating and migrating) the file now rather than on first use; returns self.

        Raises :class:`CorruptStoreError`, :class:`NewerStoreError` or :class:`StoreError`.
        """
        self._connection()
        return self

    def close(self) -> Path | None:
        """Close the file, after one more try (of at most :data:`CLOSE_WAIT_S`) at writing the
        queued results. Any still queued are kept in a side file, ``<name>.pending-<id>.jsonl``,
        which the next open of the file reads back; returns that file, if one was written.

        Safe to call twice; a later call reopens the file (an in-memory store starts empty).
        """
        kept: Path | None = None
        try:
            if self.pending and self._path is not None and self.flush(CLOSE_WAIT_S).waiting:
                kept = self._keep_aside()
        finally:
            with self._write_lock, self._lock:
                for db in (self._writer, self._db):
                    if db is not None:
                        with contextlib.suppress(sqlite3.Error):
                            db.close()
                self._writer = self._db = None
                # Results read back from side files are still in those files.
                with self._queue_lock:
                    self._queue = [q for q in self._queue if q.source is None]
                self._sources_read.clear()
        return kept

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
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        writable: Callable[[Path], bool] | None = None,
    ) -> tuple[ResultStore, str | None]:
        """Open the store at ``path`` whatever state its file is in; never raises StoreError.

        Returns the open store and ``None``, or a working store and a message for the player:

        - a file ponder may not write (it, or its folder, is read-only; ``writable``, by
          default :func:`solver.sqlite_files.can_write`, decides): it is read as it is and
          never written; this session's results are kept in memory only;
        - damaged or foreign file: it is renamed ``<name>.corrupt-<UTC timestamp>`` (with any
          ``-wal``/``-shm``/``-journal`` beside it), keeping its bytes, and a fresh file starts;
        - file from a newer ponder, or a file or folder that cannot be read or written: the file
          is left untouched and the store keeps this session's results in memory only.
        """
        store = cls(path)
        file = store.path
        if file is not None and file.is_file() and not (writable or can_write)(file):
            return cls._open_read_only(file)
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

    @classmethod
    def _open_read_only(cls, path: Path) -> tuple[ResultStore, str]:
        """The file's results, read without writing it, and the message that says so."""
        try:
            store = cls(path, read_only=True).open()
        except StoreError as err:
            return cls._memory(), f"{err}. This session's results will not be saved."
        return store, (
            f"{path}: read-only (the file or its folder cannot be written): its results are "
            "shown, but nothing new can be saved; this session's results are kept until you quit."
        )

    # -- reading and writing --------------------------------------------------------------------

    def record(self, result: Result) -> int:
        """Store ``result`` (its ``id`` is ignored) in one transaction; returns the new row id.

        Waits up to :data:`BUSY_TIMEOUT_MS` for a lock held elsewhere, then raises
        :class:`StoreError`. An app saves with :meth:`save` from a worker thread instead.
        """
        with self._transaction("record a result") as db:
            row_id = _insert(db, result)
        return row_id

    def save(self, result: Result) -> SaveReport:
        """Queue ``result``, then write everything queued, oldest first, in one transaction.

        For a worker thread: it waits up to :data:`SAVE_WAIT_S` for a lock held elsewhere.
        Never raises :class:`StoreError` and never drops a result: one that cannot be written
        now stays queued (:attr:`pending`) for the next save, :meth:`flush` or :meth:`close`,
        and the report says why.
        """
        with self._queue_lock:
            self._queue.append(_Queued(result))
        return self.flush()

    def defer(self, result: Result) -> None:
        """Queue ``result`` without writing it: the next :meth:`save`, :meth:`flush` or
        :meth:`close` does (an app closing saves its last result this way)."""
        with self._queue_lock:
            self._queue.append(_Queued(result))

    def flush(self, wait: float = SAVE_WAIT_S) -> SaveReport:
        """Write the queued results (waiting up to ``wait`` seconds for the write lock)."""
        with self._write_lock:
            try:
                self._connection()  # reads back side files left by an earlier close
            except StoreError as err:
                return SaveReport(0, len(self.pending), err)
            with self._queue_lock:
                batch = list(self._queue)
            if not batch:
                return SaveReport(0, 0)
            try:
                saved = self._write_queued(batch, wait)
            except StoreError as err:
                return SaveReport(0, len(batch), err)
            with self._queue_lock:
                self._queue = [q for q in self._queue if q not in batch]
                return SaveReport(saved, len(self._queue))

    @property
    def pending(self) -> tuple[Result, ...]:
        """Results queued by :meth:`save` and not yet written, oldest first."""
        with self._queue_lock:
            return tuple(q.result for q in self._queue)

    def recent(self, limit: int = 10, kind: str | None = None) -> list[Result]:
        """The ``limit`` most recently started results (of ``kind``, if given), newest first.

        Rows that cannot be read are skipped (see :attr:`Stats.unreadable`)."""
        if limit <= 0:
            return []
        where, args = _kind_filter(kind)
        rows = self._rows("read results", f"{_SELECT} {where} {_NEWEST_FIRST}", args, limit)
        return [row for row in rows if row is not None]

    def stats(self, kind: str | None = None) -> Stats:
        """Totals, streaks and times over all results, or those of ``kind``; rows that cannot
        be read are left out and counted in :attr:`Stats.unreadable`."""
        where, args = _kind_filter(kind)
        played = solved = hints = streak = best_streak = unreadable = races = races_won = 0
        abandoned = 0
        solve_times: list[float] = []
        # Oldest first, so streaks run in the order the puzzles were played.
        sql = f"{_SELECT} {where} ORDER BY started_at, id"
        for row in self._rows("read statistics", sql, args):
            if row is None:
                unreadable += 1
                continue
            played += 1
            hints += row.hints
            races += row.race
            abandoned += row.abandoned
            races_won += row.race_won is True
            solved += row.solved
            if row.own_solve:
                solve_times.append(row.seconds)
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
            abandoned=abandoned,
            races=races,
            races_won=races_won,
            unreadable=unreadable,
        )

    # -- internals ------------------------------------------------------------------------------

    def _error(self, action: str, err: sqlite3.Error, wait: float | None = None) -> StoreError:
        detail = str(err) or type(err).__name__
        if _is_corruption(err):
            return CorruptStoreError(
                self.name, f"damaged or not a ponder results file ({detail}; on trying to {action})"
            )
        if (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF == sqlite3.SQLITE_BUSY:
            waited = BUSY_TIMEOUT_MS if wait is None else round(wait * 1000)
            detail = f"{detail}; another program kept it locked for {waited} ms"
        return StoreError(self.name, f"cannot {action}: {detail}")

    def _rows(
        self, action: str, sql: str, args: Sequence[Any], limit: int | None = None
    ) -> list[Result | None]:
        """The results a query selects (all of :data:`_COLUMNS`), up to ``limit`` readable
        ones; ``None`` for each row that cannot be read."""
        with self._lock:
            db = self._connection()
            # Text comes back as bytes and is decoded row by row: one row of bad UTF-8 would
            # otherwise fail the whole query.
            db.text_factory = bytes
            try:
                out: list[Result | None] = []
                readable = 0
                # Closed when done, so a read stopped early holds no snapshot of the file open.
                with contextlib.closing(db.execute(sql, args)) as cursor:
                    for row in cursor:
                        out.append(_result(row))
                        readable += out[-1] is not None
                        if readable == limit:
                            break
                return out
            except sqlite3.Error as err:
                raise self._error(action, err) from err
            finally:
                db.text_factory = str

    @contextlib.contextmanager
    def _transaction(self, action: str, wait: float | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of the block's changes are committed, or none are.
        ``wait``: seconds to wait for a lock held elsewhere (default :data:`BUSY_TIMEOUT_MS`)."""
        with self._write_lock:
            db = self._write_connection()
            try:
                if wait is not None:
                    db.execute(f"PRAGMA busy_timeout = {max(0, round(wait * 1000))}")
                # IMMEDIATE takes the write lock now (waiting up to the busy timeout), so the
                # block never fails halfway for want of it.
                try:
                    db.execute("BEGIN IMMEDIATE")
                finally:
                    if wait is not None:
                        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    self._roll_back(db)
                    raise
            except sqlite3.Error as err:
                raise self._error(action, err, wait) from err

    def _roll_back(self, db: sqlite3.Connection) -> None:
        """Undo the open transaction; if even that fails, drop the connection, whose state is
        then unknown, so the next call starts clean."""
        if not roll_back(db):
            self._drop(db)

    def _drop(self, db: sqlite3.Connection) -> None:
        if self._db is db:
            self._db = None
        if self._writer is db:
            self._writer = None
        with contextlib.suppress(sqlite3.Error):
            db.close()

    def _write_queued(self, batch: Sequence[_Queued], wait: float) -> int:
        """Insert ``batch`` in one transaction; returns how many rows were written.

        Results read back from a side file are written only while that file is still there,
        and the file goes in the same transaction: two ponders opening the file together never
        save them twice. Raises :class:`StoreError`."""
        sources = {q.source for q in batch if q.source is not None}
        moved: list[tuple[Path, Path]] = []
        written = 0
        try:
            with self._transaction(f"save {len(batch)} result(s)", wait) as db:
                live = {source for source in sources if source.exists()}
                for queued in batch:
                    if queued.source is None or queued.source in live:
                        _insert(db, queued.result)
                        written += 1
                for source in live:  # under the write lock; put back below if COMMIT fails
                    done = source.with_name(source.name + ".saved")
                    _check_rename_target(done)
                    os.replace(source, done)
                    moved.append((source, done))
        except BaseException as err:
            for source, done in moved:
                with contextlib.suppress(OSError):
                    os.replace(done, source)
            if isinstance(err, OSError):
                raise StoreError(self.name, f"cannot save results: {err}") from err
            raise
        for _, done in moved:
            with contextlib.suppress(OSError):
                done.unlink()
        return written

    def _keep_aside(self) -> Path:
        """Write the results this session queued to a new side file (atomically: a temporary
        file renamed into place); the next open of the store reads them back."""
        assert self._path is not None
        with self._queue_lock:
            own = [q.result for q in self._queue if q.source is None]
        side = self._path.with_name(f"{self._path.name}.pending-{uuid.uuid4().hex}.jsonl")
        try:
            with write_whole(side) as handle:
                for result in own:
                    handle.write(json.dumps(_to_json(result)) + "\n")
        except FileError as err:
            raise StoreError(
                self.name, f"{len(own)} result(s) could not be saved or kept aside: {err}"
            ) from err
        with self._queue_lock:
            self._queue = [q for q in self._queue if q.source is not None]
        return side

    def _read_back(self) -> None:
        """Queue the results of side files left by an earlier close. A side file that cannot
        be read whole is left as it is."""
        if self._path is None:
            return
        try:
            sides = sorted(self._path.parent.glob(self._path.name + PENDING_GLOB))
        except OSError:
            return
        for side in sides:
            if side in self._sources_read:
                continue
            try:
                if not side.is_file() or side.stat().st_size > MAX_PENDING_BYTES:
                    continue
                with open(side, encoding="utf-8") as handle:
                    results = [_from_json(json.loads(line)) for line in handle if line.strip()]
            except (OSError, ValueError, TypeError, KeyError, RecursionError):
                continue
            self._sources_read.add(side)
            with self._queue_lock:
                self._queue.extend(_Queued(result, side) for result in results)

    def _connection(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self._db = self._connect()
                self._read_back()
            return self._db

    def _write_connection(self) -> sqlite3.Connection:
        """The connection writes use: its own for a file, the only one in memory."""
        with self._write_lock:
            db = self._connection()  # opens, checks and migrates the file first
            if self._path is None:
                return db
            if self._writer is None:
                try:
                    writer = connect(self._path, BUSY_TIMEOUT_MS)  # under self._write_lock
                except OSError as err:  # its folder went away since the file was opened
                    raise StoreError(self.name, f"cannot open it for writing: {err}") from err
                except sqlite3.Error as err:
                    raise self._error("open it for writing", err) from err
                try:
                    writer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                    writer.execute("PRAGMA synchronous = FULL")
                except sqlite3.Error as err:
                    writer.close()
                    raise self._error("open it for writing", err) from err
                self._writer = writer
            return self._writer

    def _connect(self) -> sqlite3.Connection:
        """Open, check and migrate the file; raises :class:`StoreError` and leaves nothing open."""
        try:
            # No implicit transactions: _transaction() says where they are. self._lock
            # serialises use across threads. A read-only store works on a copy of its file.
            if self._source is not None:
                db = snapshot(self._source, BUSY_TIMEOUT_MS)
            else:
                db = connect(self._path, BUSY_TIMEOUT_MS)
        except OSError as err:
            raise StoreError(self.name, f"cannot create its folder: {err.strerror or err}") from err
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
        with immediate(db, lambda: self._drop(db)):
            # Look again under the write lock: another store may have migrated meanwhile.
            version = self._check_layout(db)
            for step in self.migrations[version:]:
                step(db)
            # PRAGMA user_version is transactional: it commits with the steps, or not at all.
            db.execute(f"PRAGMA user_version = {latest}")

    def _check_schema(self, db: sqlite3.Connection) -> None:
        found = {row[1] for row in db.execute("PRAGMA table_info(results)")}
        missing = [name for name in _COLUMNS if name not in found]
        if missing:
            raise CorruptStoreError(
                self.name,
                f"not a ponder results file: table results lacks {', '.join(missing)}",
            )


def _row(result: Result) -> tuple[Any, ...]:
    """``result`` as the values of :data:`_COLUMNS` after ``id``."""
    return (
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
        int(result.solution_shown),
        int(result.abandoned),
        int(result.race),
        None if result.race_won is None else int(result.race_won),
    )


_INSERT: Final = (
    f"INSERT INTO results ({', '.join(_COLUMNS[1:])}) "
    f"VALUES ({', '.join('?' * (len(_COLUMNS) - 1))})"
)


def _insert(db: sqlite3.Connection, result: Result) -> int:
    row_id = db.execute(_INSERT, _row(result)).lastrowid
    assert row_id is not None
    return row_id


_TEXT_COLUMNS: Final = frozenset(
    {"kind", "puzzle", "difficulty", "started_at", "answer", "solver_method"}
)


def _result(row: Sequence[Any]) -> Result | None:
    """The result a row of :data:`_COLUMNS` holds (text as bytes), or ``None`` when the row
    cannot be read: bad UTF-8, a time that is not one, values of the wrong type or range."""
    values = dict(zip(_COLUMNS, row, strict=True))
    try:
        for name in _TEXT_COLUMNS:
            if isinstance(values[name], bytes):
                values[name] = values[name].decode("utf-8")
        values["started_at"] = datetime.fromisoformat(values["started_at"])
        for name in _BOOL_COLUMNS:
            if values[name] is not None:
                if values[name] not in (0, 1):
                    return None
                values[name] = bool(values[name])
        return Result(**values)
    except (TypeError, ValueError):  # UnicodeDecodeError is a ValueError
        return None


def _to_json(result: Result) -> dict[str, Any]:
    """``result`` for a side file."""
    values = dict(zip(_COLUMNS[1:], _row(result), strict=True))
    for name in _BOOL_COLUMNS:
        if values[name] is not None:
            values[name] = bool(values[name])
    return values


def _from_json(data: Any) -> Result:
    """A result from a side file; ``ValueError``, ``TypeError`` or ``KeyError`` if it is not
    one."""
    # A side file kept by a ponder of layout 1 lacks the later columns: they take defaults.
    if not isinstance(data, dict) or not set(_LAYOUT_1_COLUMNS[1:]) <= set(data) <= set(
        _COLUMNS[1:]
    ):
        raise ValueError("not a result")
    return Result(**{**data, "started_at": datetime.fromisoformat(data["started_at"])})


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
    # lexists: a link there, even one pointing nowhere, is something a rename would replace.
    while any(os.path.lexists(f"{aside}{suffix}") for suffix in ("", *_SIDE_FILES)):
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    path.rename(aside)
    # SQLite finds these by the main file's name + suffix; renaming them alike keeps a WAL's
    # last transactions with the file they belong to.
    for suffix in _SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(aside.with_name(aside.name + suffix))
    return aside


_SIDE_FILES: Final = ("-wal", "-shm", "-journal")


def _check_rename_target(path: Path) -> None:
    """:class:`OSError` when a rename to ``path`` would replace something other than a
    regular file (see :func:`puzzles.files.output_problem`)."""
    problem = output_problem(path)
    if problem is not None:
        raise OSError(f"{path}: {problem}")


move_aside = _move_aside
"""Keep a damaged file of ponder's (this one, the experience library) under a new name."""
