"""Traces: a run written as JSON lines (a header, then every event, calls included).

A trace never holds an API key: events carry prompts and replies only. ``read_trace``
validates every line and names the file and line of anything it cannot read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from puzzles.text import json_line
from solver.events import Event, event_from_json, event_to_json

__all__ = ["TRACE_VERSION", "TraceError", "TraceWriter", "read_trace"]

TRACE_VERSION = 1
MAX_TRACE_BYTES = 512 * 1024 * 1024


class TraceError(ValueError):
    """A trace file that cannot be read, with the file and line."""


class TraceWriter:
    """Writes events to a trace file as they come; use as a context manager."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self._file: IO[str] | None = None
        self.meta = meta or {}

    def __enter__(self) -> TraceWriter:
        try:
            self._file = self.path.open("w", encoding="utf-8")
        except OSError as exc:
            raise TraceError(f"cannot write trace {self.path}: {exc.strerror or exc}") from exc
        header = {
            "type": "trace",
            "version": TRACE_VERSION,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            **{k: v for k, v in self.meta.items() if "key" not in k.lower()},
        }
        self._file.write(json.dumps(header) + "\n")
        return self

    def write(self, event: Event) -> None:
        if self._file is None:
            raise RuntimeError("TraceWriter is not open")
        # C0 is escaped by JSON; json_line escapes DEL, C1 and bidi overrides too, so a trace
        # is safe to `cat` and still holds the text exactly.
        self._file.write(json_line(event_to_json(event)) + "\n")

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_trace(path: str | os.PathLike[str]) -> tuple[dict[str, Any], Iterator[Event]]:
    """The header of a trace and an iterator over its events."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise TraceError(f"cannot read trace {p}: {exc.strerror or exc}") from exc
    if p.is_dir():
        raise TraceError(f"{p} is a folder, not a trace file")
    if size > MAX_TRACE_BYTES:
        raise TraceError(f"{p} is too large to be a trace ({size} bytes)")
    try:
        f = p.open("rb")
        first = f.readline()
    except OSError as exc:
        raise TraceError(f"cannot read trace {p}: {exc}") from exc
    try:
        header = json.loads(first.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        f.close()
        raise TraceError(f"{p} line 1: not a ponder trace (not JSON)") from exc
    if not isinstance(header, dict) or header.get("type") != "trace":
        f.close()
        raise TraceError(f"{p} line 1: not a ponder trace (no trace header)")
    if header.get("version") != TRACE_VERSION:
        f.close()
        raise TraceError(f"{p}: trace version {header.get('version')!r} is not supported")

    def events() -> Iterator[Event]:
        with f:
            number = 1
            while True:
                number += 1
                raw = f.readline()
                if not raw:
                    return
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise TraceError(f"{p} line {number}: bad text encoding") from exc
                if not line.strip():
                    continue
                try:
                    yield event_from_json(json.loads(line))
                except (json.JSONDecodeError, ValueError) as exc:
                    raise TraceError(f"{p} line {number}: {exc}") from exc

    return header, events()
