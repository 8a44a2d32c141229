"""A benchmark's runs as a table for pandas and spreadsheets: one row per run (a method on one
puzzle), written as CSV (the stdlib :mod:`csv` module) or as JSON lines.

Every row has the same columns: the setup's (kind, engine as ``model``, guide model), the
method and its config as JSON text, the puzzle with its place in the set and its seed, and
the run's figures. Measures only some methods or kinds have (a crossword's letter and word
shares, the baselines' samples, a dialogue's stop, BoT's success by iteration as JSON text)
are columns only when some row has them. Files are written whole or not at all: to a temporary file
beside the target, then renamed over it; a target that is not a regular file (a directory, a
pipe, a device, a symbolic link) is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from puzzles.files import FileError, output_problem, write_whole
from solver.bench_results import Record

__all__ = [
    "ExportError",
    "check_targets",
    "export_rows",
    "write_csv",
    "write_export",
    "write_jsonl",
]

CORE = (
    "kind",
    "method",
    "config",
    "index",
    "puzzle",
    "seed",
    "model",
    "guide_model",
    "solved",
    "answer",
    "calls",
    "tokens",
    "cost",
    "wall_time",
    "rounds",
    "error",
    "error_kind",
)
OPTIONAL = (
    "letter",
    "word",
    "samples",
    "samples_solved",
    "stopped_at",
    "stopped_by",
    "solved_by_iteration",
)
"""Columns present only when some run has them (see :func:`_has`)."""


class ExportError(ValueError):
    """An export file that cannot be written; the message names it and says why."""


def _has(record: Record, column: str) -> bool:
    r = record.result
    return {
        "letter": r.letter is not None,
        "word": r.word is not None,
        "samples": r.samples > 0,
        "samples_solved": r.samples > 0,
        "stopped_at": r.stopped_at > 0,
        "stopped_by": bool(r.stopped_by),
        "solved_by_iteration": bool(r.solved_by_iteration),
    }[column]


def _ordered(records: Iterable[Record]) -> list[Record]:
    """Each method and config in the order it first appears, its runs in the set's order:
    the same rows whatever order the runs finished in (``--jobs``, resumed runs, shards)."""
    records = list(records)
    first: dict[tuple[str, str], int] = {}
    for record in records:
        first.setdefault((record.method, _json(record.config)), len(first))
    return sorted(records, key=lambda r: (first[(r.method, _json(r.config))], r.index))


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def export_rows(setup: dict[str, Any], records: Iterable[Record]) -> list[dict[str, Any]]:
    """One row per run, every row with the same columns, as JSON values (``None`` where a
    run has no value: no answer, no cost)."""
    ordered = _ordered(records)
    optional = [c for c in OPTIONAL if any(_has(r, c) for r in ordered)]
    seed = setup.get("seed")
    rows = []
    for record in ordered:
        r = record.result
        row: dict[str, Any] = {
            "kind": setup.get("kind"),
            "method": record.method,
            "config": _json(record.config),
            "index": record.index,
            "puzzle": r.hand,
            "seed": seed + record.index if isinstance(seed, int) else None,
            "model": setup.get("engine"),
            "guide_model": setup.get("guide_model"),
            "solved": r.solved,
            "answer": r.answer,
            "calls": r.calls,
            "tokens": r.tokens,
            "cost": r.cost,
            "wall_time": r.wall_time,
            "rounds": r.rounds,
            "error": r.error,
            "error_kind": r.error_kind,
        }
        for column in optional:
            value: Any = getattr(r, column)
            if column == "solved_by_iteration":
                value = _json(list(value))  # "[false,true]": solved from iteration 2 on
            row[column] = value
        rows.append(row)
    return rows


def _cell(value: Any) -> Any:
    """A CSV cell: empty for no value; booleans as pandas reads them (True / False)."""
    return "" if value is None else value


def write_csv(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> None:
    """The rows as CSV with a header line (just the core columns' header for no rows)."""
    columns = list(rows[0]) if rows else list(CORE)
    with _atomic(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.items()})


def write_jsonl(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> None:
    """The rows as JSON lines, one object a line (``pandas.read_json(path, lines=True)``)."""
    with _atomic(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_export(
    setup: dict[str, Any],
    records: Iterable[Record],
    csv_path: str | None = None,
    jsonl_path: str | None = None,
) -> None:
    """The runs to whichever of the two files is given; neither is written when either
    may not be (see :func:`check_targets`)."""
    check_targets(csv_path, jsonl_path)
    rows = export_rows(setup, records)
    if csv_path:
        write_csv(csv_path, rows)
    if jsonl_path:
        write_jsonl(jsonl_path, rows)


def check_targets(*paths: str | None) -> None:
    """:class:`ExportError` when a given path may not be written: it is a directory, a pipe,
    a device or a symbolic link (a missing file or a regular one is fine). A command checks
    before it starts its runs, not once they are done."""
    for path in paths:
        problem = output_problem(path) if path else None
        if problem is not None:
            raise ExportError(f"cannot write {path}: {problem}")


@contextlib.contextmanager
def _atomic(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """A text file that replaces ``path`` only once it is written whole, through the one
    write guard (:func:`puzzles.files.write_whole`): never over a directory, a pipe, a device
    or a link."""
    try:
        with write_whole(path, errors="backslashreplace", newline="") as handle:
            yield handle
    except FileError as exc:
        raise ExportError(f"cannot write {exc.path}: {exc.problem}") from None
