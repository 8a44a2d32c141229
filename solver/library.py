"""BoT's experience library: the experience entries of earlier runs, kept in SQLite.

BoT's experience lives for one run in the paper. The library keeps every entry a run added
(the entry text exactly as the prompts carry it, with its report, error reports, advice,
verdicts and confidence, and the puzzle kind, method, model and puzzle it came from), so a
later run on a puzzle of the same kind can start with the most relevant of them: the most
similar puzzles first, as many entries as fit a token budget. The past entries become the
run's first experience, so a model (the offline engine included, which learns only from the
prompt text) can use them from its first iteration.

Plain stdlib ``sqlite3`` with the file's path passed in (the command line and the app choose
it; see :func:`tui.cli.library.default_path`). The layout is versioned with ``PRAGMA
user_version``; every write is one transaction in WAL mode. A file that cannot be used raises
:class:`LibraryError` (or :class:`CorruptLibraryError`, :class:`NewerLibraryError`) naming
the file; nothing here deletes or moves a file. A library opened ``read_only`` (its file or
folder cannot be written) reads the file through a read-only connection and never writes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from solver.domains.base import Domain
from solver.events import ExperienceAdded
from solver.methods.base import Method, Outcome, RunContext
from solver.methods.spec import MethodSpec
from solver.model.base import rough_tokens
from solver.roles import Role
from solver.sqlite_files import connect, immediate, snapshot

__all__ = [
    "DEFAULT_BUDGET",
    "FILE_NAME",
    "CorruptLibraryError",
    "Entry",
    "ExperienceLibrary",
    "LibraryError",
    "NewerLibraryError",
    "WithLibrary",
    "fit_budget",
    "learns",
    "puzzle_text",
    "similarity",
]

FILE_NAME: Final = "experience.sqlite3"
"""The library's file name inside the user data dir."""

DEFAULT_BUDGET: Final = 1500
"""Tokens of past experience a run starts with, unless told otherwise (about three entries of
a Game of 24 chain with its analysis)."""

BUSY_TIMEOUT_MS: Final = 5000
"""How long a write waits for another ponder holding the file's write lock."""

LAYOUT: Final = 1
"""The ``user_version`` of a file this code has set up."""

_CORRUPT_CODES: Final = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})

_COLUMNS: Final = (
    "id",
    "run",
    "created_at",
    "kind",
    "method",
    "model",
    "puzzle",
    "iteration",
    "entry",
    "report",
    "errors",
    "advice",
    "verdicts",
    "confidence",
    "chain_ok",
)


class LibraryError(Exception):
    """The library file cannot be used. The message names the file and says why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


class CorruptLibraryError(LibraryError):
    """The file is damaged, is not SQLite, or is an SQLite file that is not a ponder library."""


class NewerLibraryError(LibraryError):
    """The file was written by a newer ponder; it is fine and is left untouched."""


@dataclass(frozen=True)
class Entry:
    """One stored experience entry and where it came from."""

    kind: str
    """The puzzle kind (``game24``)."""
    method: str
    """The method that wrote it (``bot``)."""
    model: str
    """The model's name, as the run reported it."""
    puzzle: str
    """The puzzle it was learned on (``4 5 10 11 -> 24``)."""
    iteration: int
    """The iteration of its run that added it."""
    entry: str
    """The entry exactly as that run's prompts carried it."""
    report: str = ""
    """The analysis report."""
    errors: tuple[str, ...] = ()
    """Per step, the analysis' error report."""
    advice: tuple[str, ...] = ()
    """Per step, the revision advice."""
    verdicts: tuple[str, ...] = ()
    """Per step, recommend or reject."""
    confidence: float | None = None
    """The analysis' confidence score."""
    chain_ok: bool = False
    """Whether the entry's chain reached the target exactly (checked by ponder)."""
    run: str = ""
    """Which run it came from (entries of one run share it)."""
    created_at: str = ""
    """When it was stored (ISO 8601, UTC)."""
    id: int | None = None
    """Row id; ``None`` before it is stored."""

    @property
    def tokens(self) -> int:
        """The entry's size in a prompt, estimated (about four characters a token)."""
        return rough_tokens(self.entry)

    @classmethod
    def from_event(
        cls, event: ExperienceAdded, *, kind: str, method: str, model: str, puzzle: str
    ) -> Entry:
        """The entry an :class:`ExperienceAdded` event reports."""
        return cls(
            kind=kind,
            method=method,
            model=model,
            puzzle=puzzle,
            iteration=event.iteration,
            entry=event.entry,
            report=event.report,
            errors=event.analysis,
            advice=event.advice,
            verdicts=event.verdicts,
            confidence=event.confidence,
            chain_ok=event.chain_ok,
        )


# ---------------------------------------------------------------- relevance


_TOKEN = re.compile(r"\d+(?:[./]\d+)?|[^\W\d_]+")


def _tokens(puzzle: str) -> Counter[str]:
    return Counter(_TOKEN.findall(puzzle.lower()))


def similarity(a: str, b: str) -> float:
    """How alike two puzzles are, from 0 to 1: the numbers and words they share, counted
    with repeats, over all of theirs (a multiset Jaccard index). For the Game of 24 that is
    the shared numbers and target (``4 5 10 11 -> 24`` and ``4 5 10 12 -> 24``: 4/6); for
    word problems and crosswords, the shared words."""
    x, y = _tokens(a), _tokens(b)
    union = sum((x | y).values())
    return sum((x & y).values()) / union if union else 0.0


def fit_budget(entries: Sequence[Entry], budget: int) -> list[Entry]:
    """The entries, in the order given, that fit ``budget`` tokens together; one that would
    pass it is left out and smaller ones after it may still go in."""
    out: list[Entry] = []
    used = 0
    for entry in entries:
        if used + entry.tokens <= budget:
            out.append(entry)
            used += entry.tokens
    return out


def learns(spec: MethodSpec) -> bool:
    """Whether a method learns from experience entries: its ``analyze`` role writes them
    (BoT), so its runs can start from the library's and add to it."""
    return Role.ANALYZE in spec.roles


def puzzle_text(domain: Domain[Any, Any]) -> str:
    """The puzzle as the library keeps it: the domain's title, and its target where it has
    one (``4 5 10 11 -> 24``), so hands with another target count as less alike."""
    target = getattr(getattr(domain, "hand", None), "target", None)
    return domain.title if target is None else f"{domain.title} -> {target}"


# ---------------------------------------------------------------- the file


def _create(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE entries (
            id         INTEGER PRIMARY KEY,
            run        TEXT    NOT NULL,
            created_at TEXT    NOT NULL,
            kind       TEXT    NOT NULL,
            method     TEXT    NOT NULL,
            model      TEXT    NOT NULL,
            puzzle     TEXT    NOT NULL,
            iteration  INTEGER NOT NULL,
            entry      TEXT    NOT NULL,
            report     TEXT    NOT NULL,
            errors     TEXT    NOT NULL,
            advice     TEXT    NOT NULL,
            verdicts   TEXT    NOT NULL,
            confidence REAL,
            chain_ok   INTEGER NOT NULL CHECK (chain_ok IN (0, 1))
        )
        """
    )
    db.execute("CREATE INDEX entries_by_kind ON entries (kind, id)")


MIGRATIONS: Final[Sequence[Callable[[sqlite3.Connection], None]]] = (_create,)
"""Layout steps; step ``i`` takes a file from ``user_version`` ``i`` to ``i + 1``. Append only."""


class ExperienceLibrary:
    """The experience entries of earlier runs, in one SQLite file.

    The file (and its folder) is created on first use. Every method may raise
    :class:`LibraryError`. Use as a context manager, or call :meth:`close`.

    A ``read_only`` library reads its file (into memory, through a read-only connection) and
    never writes it, nor makes it: a missing file reads as an empty library, and :meth:`add`
    and :meth:`clear` raise :class:`LibraryError`.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.read_only = read_only
        self._db: sqlite3.Connection | None = None
        # One connection, used by one thread at a time (runs read and write off the loop).
        self._lock = threading.RLock()

    @property
    def name(self) -> str:
        return str(self.path)

    def __enter__(self) -> ExperienceLibrary:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> ExperienceLibrary:
        """Open, check and set up the file now; returns self."""
        with self._lock:
            self._connection()
        return self

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None

    # -- writing

    def add(self, entries: Sequence[Entry]) -> int:
        """Store ``entries`` (one run's) in one transaction; returns how many were stored.
        Entries without a run id get one id between them."""
        if not entries:
            return 0
        run = uuid.uuid4().hex
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        rows = [
            (
                e.run or run,
                e.created_at or now,
                e.kind,
                e.method,
                e.model,
                e.puzzle,
                e.iteration,
                e.entry,
                e.report,
                json.dumps(list(e.errors)),
                json.dumps(list(e.advice)),
                json.dumps(list(e.verdicts)),
                e.confidence,
                int(e.chain_ok),
            )
            for e in entries
        ]
        sql = f"INSERT INTO entries ({', '.join(_COLUMNS[1:])}) VALUES ({', '.join('?' * 14)})"
        self._check_writable("store experience")
        with self._transaction("store experience") as db:
            db.executemany(sql, rows)
        return len(rows)

    def clear(self, kind: str | None = None) -> int:
        """Delete every entry (of ``kind``, if given); returns how many were deleted."""
        where, args = ("", ()) if kind is None else (" WHERE kind = ?", (kind,))
        self._check_writable("clear it")
        with self._transaction("clear it") as db:
            count: int = db.execute(f"DELETE FROM entries{where}", args).rowcount
        return count

    # -- reading

    def entries(self, kind: str | None = None, limit: int | None = None) -> list[Entry]:
        """Stored entries (of ``kind``, if given), newest first."""
        where, args = ("", ()) if kind is None else (" WHERE kind = ?", (kind,))
        sql = f"SELECT {', '.join(_COLUMNS)} FROM entries{where} ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {max(0, int(limit))}"
        return self._select("read it", sql, args)

    def relevant(
        self, kind: str, puzzle: str, budget: int = DEFAULT_BUDGET, *, method: str | None = None
    ) -> list[Entry]:
        """The entries to start a run on ``puzzle`` with: the same kind (and ``method``, if
        given), the most similar puzzles first, newer before older among equals, within
        ``budget`` tokens, in that order. An entry whose text (after its number) repeats one
        already chosen is left out: two runs that learned the same thing give it once."""
        found = self.entries(kind)
        if method is not None:
            found = [e for e in found if e.method == method]
        # entries() is newest first; sorted() is stable, so ties keep that order.
        ranked = sorted(found, key=lambda e: -similarity(e.puzzle, puzzle))
        seen: set[str] = set()
        distinct = []
        for e in ranked:
            body = e.entry.split("\n", 1)[-1]
            if body not in seen:
                seen.add(body)
                distinct.append(e)
        return fit_budget(distinct, max(0, budget))

    def count(self, kind: str | None = None) -> int:
        where, args = ("", ()) if kind is None else (" WHERE kind = ?", (kind,))
        with self._reading("count entries") as db:
            n: int = db.execute(f"SELECT count(*) FROM entries{where}", args).fetchone()[0]
        return n

    # -- internals

    def _select(self, action: str, sql: str, args: Sequence[Any]) -> list[Entry]:
        out = []
        with self._reading(action) as db:
            for row in db.execute(sql, args):
                entry = _entry(row)
                if entry is not None:  # a row something else wrote is skipped, not fatal
                    out.append(entry)
        return out

    def _check_writable(self, action: str) -> None:
        if self.read_only:
            raise LibraryError(
                self.name,
                f"cannot {action}: it is read-only (the file or its folder cannot be written)",
            )

    @contextlib.contextmanager
    def _reading(self, action: str) -> Any:
        with self._lock:
            db = self._connection()
            try:
                yield db
            except sqlite3.Error as err:
                raise self._error(action, err) from err

    @contextlib.contextmanager
    def _transaction(self, action: str) -> Any:
        with self._lock:
            db = self._connection()
            try:
                with immediate(db):
                    yield db
            except sqlite3.Error as err:
                raise self._error(action, err) from err

    def _error(self, action: str, err: sqlite3.Error) -> LibraryError:
        detail = str(err) or type(err).__name__
        code = (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
        if code in _CORRUPT_CODES:
            return CorruptLibraryError(
                self.name, f"damaged or not a ponder experience library ({detail})"
            )
        if code == sqlite3.SQLITE_BUSY:
            detail += f"; another program kept it locked for {BUSY_TIMEOUT_MS} ms"
        return LibraryError(self.name, f"cannot {action}: {detail}")

    def _connection(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            db = self._open_file()  # self._lock serialises its use
        except OSError as err:
            raise LibraryError(
                self.name, f"cannot create its folder: {err.strerror or err}"
            ) from err
        except sqlite3.Error as err:
            raise self._error("open it", err) from err
        try:
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def _open_file(self) -> sqlite3.Connection:
        """The file, opened to read and write; a copy of it in memory when read-only (an
        empty database, set up below as a new file would be, when there is no file)."""
        if not self.read_only:
            return connect(self.path, BUSY_TIMEOUT_MS)
        if not self.path.exists():
            return connect(None, BUSY_TIMEOUT_MS)
        return snapshot(self.path, BUSY_TIMEOUT_MS)

    def _prepare(self, db: sqlite3.Connection) -> None:
        action = "open it"
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version: int = db.execute("PRAGMA user_version").fetchone()[0]
            if version > LAYOUT:
                raise NewerLibraryError(
                    self.name,
                    f"written by a newer version of ponder (layout {version}; this version "
                    f"knows up to {LAYOUT}); update ponder to use it",
                )
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if version < 0 or (version == 0 and tables):
                raise CorruptLibraryError(self.name, "an SQLite file that is not a ponder library")
            if version == LAYOUT and "entries" not in tables:
                raise CorruptLibraryError(self.name, "not a ponder library: it has no entries")
            action = "check it"
            problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise CorruptLibraryError(self.name, f"damaged: {'; '.join(problems[:3])}")
            action = "set it up"
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")
            if version < LAYOUT:
                with immediate(db):
                    now: int = db.execute("PRAGMA user_version").fetchone()[0]
                    for step in MIGRATIONS[now:]:
                        step(db)
                    db.execute(f"PRAGMA user_version = {LAYOUT}")
        except sqlite3.Error as err:
            raise self._error(action, err) from err


def _entry(row: Sequence[Any]) -> Entry | None:
    values = dict(zip(_COLUMNS, row, strict=True))
    try:
        lists = {name: tuple(str(x) for x in json.loads(values[name])) for name in _LISTS}
        confidence = values["confidence"]
        return Entry(
            kind=str(values["kind"]),
            method=str(values["method"]),
            model=str(values["model"]),
            puzzle=str(values["puzzle"]),
            iteration=int(values["iteration"]),
            entry=str(values["entry"]),
            report=str(values["report"]),
            errors=lists["errors"],
            advice=lists["advice"],
            verdicts=lists["verdicts"],
            confidence=None if confidence is None else float(confidence),
            chain_ok=bool(values["chain_ok"]),
            run=str(values["run"]),
            created_at=str(values["created_at"]),
            id=int(values["id"]),
        )
    except (TypeError, ValueError):
        return None


_LISTS: Final = ("errors", "advice", "verdicts")


# ---------------------------------------------------------------- a run with the library


@dataclass
class WithLibrary:
    """``method`` run with the experience library: it starts with the relevant past entries
    (``read``) and stores the entries it adds (``write``) when it ends, whether it solved the
    puzzle or not. A run that was cancelled stores nothing.

    Reading or writing that fails does not stop the run: ``notes`` receives a message naming
    the file (the run goes on without past experience; its entries are not stored).
    """

    method: Method
    library: ExperienceLibrary
    budget: int = DEFAULT_BUDGET
    read: bool = True
    write: bool = True
    notes: Callable[[str], None] = field(default=lambda message: None)
    stored: int = 0
    """Entries stored so far by this method's runs."""
    given: int = 0
    """Past entries the latest run started with."""

    name: str = field(init=False)
    """The method's own name (the library changes its prompts, not what it is)."""

    def __post_init__(self) -> None:
        self.name = self.method.name

    def config_dict(self) -> dict[str, Any]:
        # Runs with the library are not the runs of the paper: results files keep them apart.
        return {
            **self.method.config_dict(),
            "library": {"read": self.read, "write": self.write, "budget": self.budget},
        }

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        puzzle = puzzle_text(domain)
        if self.read:
            try:
                # Off the event loop: a file another program has locked must not hold up an
                # app's screen while SQLite waits for it.
                past = await asyncio.to_thread(
                    self.library.relevant, domain.kind, puzzle, self.budget, method=self.name
                )
            except LibraryError as err:
                self.notes(f"{err}; this run starts without past experience")
                past = []
            ctx.past_experience = tuple(e.entry for e in past)
            self.given = len(past)
        added: list[ExperienceAdded] = []
        ctx.watchers.append(
            lambda event: added.append(event) if isinstance(event, ExperienceAdded) else None
        )
        try:
            return await self.method.run(domain, ctx)
        finally:
            # Also after a model error or an early stop (StopRun): what was learned holds.
            # A read-only library was said to be so when it was opened: nothing to try.
            if self.write and added and not self.library.read_only and not _cancelled():
                problem = await asyncio.to_thread(
                    self._store, added, domain.kind, ctx.model.name, puzzle
                )
                if problem:
                    self.notes(problem)

    def _store(
        self, added: Sequence[ExperienceAdded], kind: str, model: str, puzzle: str
    ) -> str | None:
        """Store the run's entries; a message when they could not be stored."""
        # An entry whose chain and report came back within the run is left out of its prompts
        # (the earlier one stands): stored once.
        seen: set[tuple[tuple[str, ...], str]] = set()
        entries = []
        for e in added:
            if (e.chain, e.report) in seen:
                continue
            seen.add((e.chain, e.report))
            entries.append(
                Entry.from_event(e, kind=kind, method=self.name, model=model, puzzle=puzzle)
            )
        try:
            self.stored += self.library.add(entries)
        except LibraryError as err:
            return f"{err}; this run's {len(entries)} experience entries were not stored"
        return None


def _cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
