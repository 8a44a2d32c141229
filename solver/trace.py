"""Traces: a run written as JSON lines (a header, then every event, calls included).

A trace never holds an API key: events carry prompts and replies only.

Writing: every line is flushed as it is written, so a trace that cannot be written (a full
disk, ``--trace /dev/full``) raises :class:`TraceError` at the first line that fails, and the
run that writes it stops there; the file then holds the lines before it.

Reading: ``read_trace`` reads through the file guard (:mod:`puzzles.files`): a regular file
(never a pipe or a device) of at most :data:`MAX_TRACE_BYTES`, one line at a time, each at most
:data:`MAX_TRACE_LINE` bytes, UTF-8, nested at most :data:`MAX_TRACE_DEPTH` deep, numbers of at
most 100 digits. It validates every line and names the file and line of anything it cannot read.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from puzzles.files import FileError, parse_json, read_lines
from puzzles.text import json_line
from solver.events import Event, event_from_json, event_to_json

__all__ = [
    "MAX_TRACE_BYTES",
    "MAX_TRACE_DEPTH",
    "MAX_TRACE_LINE",
    "TRACE_VERSION",
    "TraceError",
    "TraceWriter",
    "read_trace",
]

TRACE_VERSION = 1
MAX_TRACE_BYTES = 128 * 1024 * 1024
"""Largest trace read, in bytes (a default BoT run writes about 3 MB)."""
MAX_TRACE_LINE = 1024 * 1024
"""Longest line of a trace, in bytes: one event, its prompt and reply included (replies are
capped far below this; a line this long still prints in under a second)."""
MAX_TRACE_DEPTH = 32
"""Deepest nesting in one line (ponder's events nest 3 deep)."""


class TraceError(ValueError):
    """A trace file that cannot be read or written, with the file and line."""


class TraceWriter:
    """Writes events to a trace file as they come; use as a context manager.

    Every line is flushed at once: :class:`TraceError` from :meth:`write` (or on entering)
    means the trace cannot be written, and the caller stops the run."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self._file: IO[str] | None = None
        self._failed = False
        self.meta = meta or {}

    def _error(self, exc: OSError) -> TraceError:
        self._failed = True
        return TraceError(
            f"cannot write trace {self.path}: {exc.strerror or exc}; the run was stopped "
            "(the trace holds the events before this point)"
        )

    def _line(self, text: str) -> None:
        if self._file is None:
            raise RuntimeError("TraceWriter is not open")
        if self._failed:
            raise TraceError(f"trace {self.path} could not be written")
        try:
            self._file.write(text + "\n")  # line-buffered: flushed here
        except OSError as exc:
            raise self._error(exc) from None

    def __enter__(self) -> TraceWriter:
        with contextlib.suppress(OSError):
            if stat.S_ISFIFO(self.path.stat().st_mode):
                # Opening a pipe for writing waits for a reader, perhaps forever.
                raise TraceError(
                    f"cannot write trace {self.path}: it is a named pipe; give a regular file"
                )
        try:
            # Lone surrogates (from a server's "\ud800") are written as JSON escapes.
            self._file = self.path.open(
                "w", encoding="utf-8", errors="backslashreplace", buffering=1
            )
        except OSError as exc:
            raise TraceError(f"cannot write trace {self.path}: {exc.strerror or exc}") from None
        header = {
            "type": "trace",
            "version": TRACE_VERSION,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            **{k: v for k, v in self.meta.items() if "key" not in k.lower()},
        }
        try:
            self._line(json.dumps(header))
        except TraceError:
            self._close()
            raise
        return self

    def write(self, event: Event) -> None:
        """Write one event as a line; :class:`TraceError` when it cannot be written."""
        # C0 is escaped by JSON; json_line escapes DEL, C1 and bidi overrides too, so a trace
        # is safe to `cat` and still holds the text exactly.
        self._line(json_line(event_to_json(event)))

    def _close(self) -> None:
        file, self._file = self._file, None
        if file is None:
            return
        try:
            file.close()
        except OSError as exc:
            if not self._failed:
                raise self._error(exc) from None
            # Already reported at the line that failed; the unwritten rest is dropped.

    def __exit__(self, *exc: object) -> None:
        self._close()


def read_trace(path: str | os.PathLike[str]) -> tuple[dict[str, Any], Iterator[Event]]:
    """The header of a trace and an iterator over its events; :class:`TraceError` naming
    the file (and line) for anything that is not a readable ponder trace."""
    p = Path(path)
    try:
        lines = read_lines(p, what="trace file", max_bytes=MAX_TRACE_BYTES, max_line=MAX_TRACE_LINE)
        number, first = next(lines, (1, ""))
        header = _json(first, p, number) if first.strip() else None
    except FileError as exc:
        raise TraceError(f"cannot read trace {exc}") from None
    except TraceError:
        lines.close()
        raise
    if not isinstance(header, dict) or header.get("type") != "trace":
        lines.close()
        raise TraceError(f"{p}, line 1: not a ponder trace (no trace header)")
    if header.get("version") != TRACE_VERSION:
        lines.close()
        raise TraceError(f"{p}: trace version {header.get('version')!r} is not supported")
    return header, _events(lines, p)


def _json(line: str, path: Path, number: int) -> Any:
    try:
        return parse_json(line, path, max_depth=MAX_TRACE_DEPTH, line=number)
    except FileError as exc:
        if number == 1:
            raise TraceError(f"{path}, line 1: not a ponder trace ({exc.problem})") from None
        raise TraceError(str(exc)) from None


def _events(lines: Iterator[tuple[int, str]], path: Path) -> Iterator[Event]:
    try:
        for number, line in lines:
            if not line.strip():
                continue
            data = _json(line, path, number)
            try:
                yield event_from_json(data)
            except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                # OverflowError: a 400-digit number where a float belongs.
                raise TraceError(f"{path}, line {number}: {exc}") from None
    except FileError as exc:
        raise TraceError(str(exc)) from None
