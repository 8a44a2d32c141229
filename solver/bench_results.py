"""Results files: a benchmark written as it goes, one JSON line per finished run.

The first line is a header naming the setup every run shares (the puzzle kind, the engine
and model, the seed, the deadline, the guide model); each following line is one method on one
puzzle: the method's name and config, the puzzle's index in the set and its text, and the
:class:`~solver.bench.PuzzleResult` fields. Lines are flushed one at a time, so a run that
is interrupted keeps every run that finished, and a rerun skips them (:attr:`Record.key`).
Files written by shards of one set (or several sessions) are merged by :func:`combine`.

A results file is outside text: it is read through the file guard (:mod:`puzzles.files`),
every line is checked, and anything else is a :class:`ResultsError` naming the file and line.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from puzzles.files import FileError, file_kind, parse_json, read_lines
from puzzles.text import json_line
from solver.bench import BenchResult, PuzzleResult

__all__ = [
    "MAX_RESULTS_BYTES",
    "MAX_RESULTS_LINE",
    "RESULTS_VERSION",
    "Record",
    "Results",
    "ResultsError",
    "ResultsFile",
    "combine",
    "merge",
    "read_results",
    "setup_difference",
]

RESULTS_VERSION = 1
MAX_RESULTS_BYTES = 256 * 1024 * 1024
"""Largest results file read, in bytes (a record is under 1 KB: 100,000 runs fit)."""
MAX_RESULTS_LINE = 256 * 1024
"""Longest line, in bytes (a record's longest text is a server's error message)."""
MAX_RESULTS_DEPTH = 16
"""Deepest nesting in one line (a record nests 3 deep)."""
HEADER_TYPE = "ponder-bench-results"


class ResultsError(ValueError):
    """A results file that cannot be read, written or used here; the message says why."""


@dataclass(frozen=True)
class Record:
    """One method on one puzzle of the set."""

    method: str
    config: dict[str, Any]
    index: int
    """The puzzle's place in the set (its seed is the run's seed plus this)."""
    result: PuzzleResult

    @property
    def key(self) -> tuple[str, str, int, str]:
        """What makes two runs the same run: the method, its config, and the puzzle with
        its place in the set (which fixes its seed)."""
        return self.key_for(self.method, self.config, self.index, self.result.hand)

    @staticmethod
    def key_for(
        method: str, config: dict[str, Any], index: int, puzzle: str
    ) -> tuple[str, str, int, str]:
        """The :attr:`key` of a run, made or not."""
        return (method, _canonical(config), index, puzzle)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "result",
            "method": self.method,
            "config": self.config,
            "index": self.index,
            **self.result.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, methods: Iterable[str] | None = None) -> Record:
        """A record from a line's JSON; :class:`ValueError` saying what is wrong."""
        if not isinstance(data, dict) or data.get("type") != "result":
            raise ValueError("not a result record")
        method, config, index = data.get("method"), data.get("config"), data.get("index")
        if not isinstance(method, str) or not method:
            raise ValueError("the field 'method' is not a method's name")
        if methods is not None and method not in methods:
            raise ValueError(f"{method!r} is no method ponder knows")
        if not isinstance(config, dict):
            raise ValueError("the field 'config' is not an object")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError("the field 'index' is not a whole number of at least 0")
        return cls(method, config, index, PuzzleResult.from_json(data))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class Results:
    """What one or more results files hold: their shared setup and their records (the first
    of any run recorded twice)."""

    setup: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    duplicates: int = 0
    """Runs recorded more than once (overlapping shards); the first is kept."""
    notes: list[str] = field(default_factory=list)
    """Things to tell the user, such as a last line cut off by an interruption."""
    cut_off: bool = False
    """The last line was cut off (and left out)."""

    def keys(self) -> set[tuple[str, str, int, str]]:
        return {record.key for record in self.records}

    def add(self, record: Record) -> None:
        self.records.append(record)


def read_results(path: str | os.PathLike[str], methods: Iterable[str] | None = None) -> Results:
    """The setup and records of a results file; :class:`ResultsError` naming the file and
    line for anything that is not one. A last line without its newline is what an
    interrupted write leaves: it is dropped with a note (its run is made again)."""
    p = Path(path)
    names = None if methods is None else frozenset(methods)
    try:
        lines = read_lines(
            p, what="results file", max_bytes=MAX_RESULTS_BYTES, max_line=MAX_RESULTS_LINE
        )
    except FileError as exc:
        raise ResultsError(f"cannot read results {exc}") from None
    with contextlib.closing(lines):
        try:
            return _read(p, lines, names)
        except FileError as exc:
            raise ResultsError(str(exc)) from None


def _read(path: Path, lines: Iterator[tuple[int, str]], names: frozenset[str] | None) -> Results:
    results: Results | None = None
    seen: set[tuple[str, str, int, str]] = set()
    for number, line in lines:
        if not line.strip():
            continue
        try:
            data = parse_json(line, path, max_depth=MAX_RESULTS_DEPTH, line=number)
        except FileError:
            if not line.endswith("\n"):
                if results is None:
                    break
                results.cut_off = True
                results.notes.append(
                    f"{path}, line {number}: the last line was cut off (an interrupted "
                    "write); it is left out and its run is made again"
                )
                break
            if number == 1:
                raise ResultsError(f"{path}: not a ponder results file (no header)") from None
            raise
        if results is None:
            results = Results(_header(data, path))
            continue
        try:
            record = Record.from_json(data, names)
        except ValueError as exc:
            raise ResultsError(f"{path}, line {number}: {exc}") from None
        if record.key in seen:
            results.duplicates += 1
            continue
        seen.add(record.key)
        results.add(record)
    if results is None:
        raise ResultsError(f"{path}: not a ponder results file (it is empty)")
    return results


def _header(data: Any, path: Path) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("type") != HEADER_TYPE:
        raise ResultsError(f"{path}: not a ponder results file (no header)")
    if data.get("version") != RESULTS_VERSION:
        raise ResultsError(
            f"{path}: results version {data.get('version')!r} is not supported "
            f"(this ponder reads version {RESULTS_VERSION})"
        )
    setup = data.get("setup")
    if not isinstance(setup, dict):
        raise ResultsError(f"{path}: the header holds no setup")
    return setup


def setup_difference(
    have: dict[str, Any],
    want: dict[str, Any],
    labels: tuple[str, str] = ("here", "in the file"),
) -> str:
    """What differs between two setups, for a message: ``"engine 'A' here, 'B' in the
    file"`` (empty when they match)."""
    parts = []
    for name in sorted(set(have) | set(want)):
        if _canonical(have.get(name)) != _canonical(want.get(name)):
            parts.append(f"{name} {want.get(name)!r} {labels[0]}, {have.get(name)!r} {labels[1]}")
    return "; ".join(parts)


class ResultsFile:
    """A results file open for a run: what it already holds, and :meth:`write` for each
    run that finishes (flushed at once). Use as a context manager.

    A missing or empty file is started with a header; an existing one must be a results
    file of the same ``setup``, else :class:`ResultsError` says what differs."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        setup: dict[str, Any],
        methods: Iterable[str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.setup = json.loads(json.dumps(setup))  # as it reads back
        self.methods = None if methods is None else frozenset(methods)
        self.held = Results(self.setup)
        self._keys: set[tuple[str, str, int, str]] = set()
        self._file: IO[str] | None = None

    def __enter__(self) -> ResultsFile:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            fresh = True
        except OSError as exc:
            raise ResultsError(f"cannot use results {self.path}: {exc.strerror or exc}") from None
        else:
            kind = file_kind(info.st_mode)
            if kind is not None:
                # Opening a pipe waits for its other end, perhaps forever.
                raise ResultsError(
                    f"cannot use results {self.path}: it is {kind}, not a regular file"
                )
            fresh = info.st_size == 0
        if not fresh:
            self.held = read_results(self.path, self.methods)
            self._keys = self.held.keys()
            difference = setup_difference(self.held.setup, self.setup)
            if difference:
                raise ResultsError(
                    f"{self.path} holds results of another setup ({difference}): give "
                    "another --results file, or the same settings"
                )
        try:
            self._file = self.path.open(
                "a", encoding="utf-8", errors="backslashreplace", buffering=1
            )
            if fresh:
                header = {"type": HEADER_TYPE, "version": RESULTS_VERSION, "setup": self.setup}
                self._file.write(json_line(header) + "\n")
            elif self.held.cut_off:
                # The half-written line goes: its run is made again and written whole.
                self._file.truncate(_complete_lines(self.path))
            elif not _ends_with_newline(self.path):
                self._file.write("\n")  # a last record someone wrote without its newline
        except OSError as exc:
            self.close()
            raise ResultsError(f"cannot write results {self.path}: {exc.strerror or exc}") from None
        return self

    def holds(self, key: tuple[str, str, int, str]) -> bool:
        """Whether the file already holds the run with this :attr:`Record.key`."""
        return key in self._keys

    def write(self, record: Record) -> None:
        """Add one finished run: a line, flushed at once."""
        if self._file is None:
            raise RuntimeError("ResultsFile is not open")
        try:
            self._file.write(json_line(record.to_json()) + "\n")  # line-buffered: flushed
        except OSError as exc:
            raise ResultsError(
                f"cannot write results {self.path}: {exc.strerror or exc}; the runs before "
                "this one are kept"
            ) from None
        self.held.add(record)
        self._keys.add(record.key)

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError as exc:
                raise ResultsError(
                    f"cannot write results {self.path}: {exc.strerror or exc}"
                ) from None

    def __exit__(self, *exc: object) -> None:
        self.close()


def _complete_lines(path: Path) -> int:
    """The size of ``path`` up to the end of its last complete line."""
    with path.open("rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - 65536)
            handle.seek(start)
            block = handle.read(end - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
        return 0


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def merge(files: Sequence[Results], paths: Sequence[str]) -> Results:
    """Several files' results as one; :class:`ResultsError` when their setups differ."""
    first = files[0]
    out = Results(first.setup, notes=[n for f in files for n in f.notes])
    seen: set[tuple[str, str, int, str]] = set()
    for results, path in zip(files, paths, strict=True):
        difference = setup_difference(results.setup, first.setup, (f"in {paths[0]}", f"in {path}"))
        if difference:
            raise ResultsError(
                f"{path} and {paths[0]} hold results of different setups ({difference})"
            )
        out.duplicates += results.duplicates
        for record in results.records:
            if record.key in seen:
                out.duplicates += 1
                continue
            seen.add(record.key)
            out.add(record)
    return out


def combine(records: Iterable[Record]) -> list[BenchResult]:
    """One :class:`BenchResult` per method and config, in the order they first appear, its
    runs in the order of the set. Its wall time is the sum of its runs' (runs made at once
    overlap, so this is the time one at a time would have taken)."""
    groups: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        groups.setdefault((record.method, _canonical(record.config)), []).append(record)
    out = []
    for group in groups.values():
        group.sort(key=lambda r: r.index)
        result = BenchResult(group[0].method, group[0].config, [r.result for r in group])
        result.wall_time = sum(p.wall_time for p in result.puzzles)
        out.append(result)
    return out
