"""Game of 24 hands from files: Tree of Thoughts' ``24.csv``, or one hand per line.

Two formats are read, told apart by their first line:

* **ToT's CSV** (``data/24/24.csv`` in princeton-nlp/tree-of-thought-llm): a header such as
  ``Rank,Puzzles,AMT (s),Solved rate,1-sigma Mean (s),1-sigma STD (s)`` and rows whose
  ``Puzzles`` column holds four space-separated numbers (``1 1 4 6``). Only that column is
  read; the others may be anything.
* **Plain text**: one hand per line, numbers separated by spaces or commas (``4 7 8 8``,
  ``4, 7, 8, 8``); blank lines and ``#`` comments are skipped.

A file is read whole through the file guard (:mod:`puzzles.files`), so its size and line
lengths are capped; anything wrong with it — missing, a directory, a pipe or device, not
text, too large, a header without ``Puzzles``, a row that is not a hand — raises
:class:`PuzzleFileError` naming the file and, for a bad row, its line. Reading takes time
linear in the file (under 1 s for a million hands, under 2 s for a full
:data:`MAX_HANDS_BYTES` file); the rows of whole numbers every published set uses skip the
general number parser.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from puzzles.files import MAX_FILE_BYTES, PuzzleFileError, decode_text, read_file
from puzzles.game24.rules import DEFAULT_TARGET, Hand, HandError

__all__ = ["MAX_FILE_BYTES", "MAX_HANDS_BYTES", "PuzzleFileError", "load_hands", "parse_range"]


_PUZZLES_COLUMN = "puzzles"
_WHOLE_NUMBERS = re.compile(r"\s*[0-9]{1,7}(?:[\s,]+[0-9]{1,7})*\s*")


def parse_range(text: str) -> slice:
    """A row range written as Python writes a slice: ``900:1000``, ``900:``, ``:10``, or a
    single row ``5``. Rows count from zero, so ToT's hard set (ranks 901-1000) is
    ``900:1000``. :class:`ValueError` when the text is not such a range."""
    if not isinstance(text, str):
        raise ValueError(f"a range is text such as '900:1000', not {type(text).__name__}")
    cleaned = text.strip()
    parts = cleaned.split(":")
    if not cleaned or len(parts) > 2:
        raise ValueError(f"bad range {text!r}: write START:END, START: or :END, e.g. 900:1000")
    bounds: list[int | None] = []
    for part in parts:
        part = part.strip()
        if not part:
            bounds.append(None)
            continue
        try:
            bounds.append(int(part))
        except ValueError:
            raise ValueError(
                f"bad range {text!r}: {part!r} is not a whole number (e.g. 900:1000)"
            ) from None
    if len(bounds) == 1:
        row = bounds[0]
        assert row is not None  # a lone empty part was rejected above
        return slice(row, row + 1 if row != -1 else None)
    return slice(bounds[0], bounds[1])


MAX_HANDS_BYTES = 10 * 1024 * 1024
"""Largest hand file read, in bytes: over a million hands, read in under 2 s (ToT's 24.csv
is 60 KB)."""
MAX_LINE = 10_000
"""Longest line of a hand file, in characters (a ToT row is under 60)."""


def _read_text(path: Path) -> str:
    # Spreadsheet programs sometimes save CSV as UTF-16.
    data = read_file(path, what="puzzle file", max_bytes=MAX_HANDS_BYTES, error=PuzzleFileError)
    return decode_text(data, path, utf16=True, max_line=MAX_LINE, error=PuzzleFileError)


def _first_content_line(lines: list[str]) -> str | None:
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped
    return None


def _looks_like_header(line: str) -> bool:
    if line.strip().strip('"').strip().lower() == _PUZZLES_COLUMN:
        return True  # a CSV with the one column that matters
    return "," in line and any(ch.isalpha() for ch in line)


def _csv_rows(path: Path, lines: list[str]) -> list[tuple[int, str]]:
    """(line number, Puzzles text) for every data row of a ToT-style CSV."""
    reader = csv.reader(lines)
    rows: list[tuple[int, str]] = []
    column: int | None = None
    try:
        for record in reader:
            if not record or all(not field.strip() for field in record):
                continue
            if column is None:
                names = [name.strip().lower() for name in record]
                if _PUZZLES_COLUMN not in names:
                    found = ", ".join(repr(name.strip()) for name in record[:8])
                    raise PuzzleFileError(
                        path, f"the header has no 'Puzzles' column (found {found})", 1
                    )
                column = names.index(_PUZZLES_COLUMN)
                continue
            if len(record) <= column:
                raise PuzzleFileError(path, "the row has no 'Puzzles' value", reader.line_num)
            rows.append((reader.line_num, record[column]))
    except csv.Error as exc:
        raise PuzzleFileError(path, f"is not valid CSV ({exc})", reader.line_num) from None
    return rows


def _text_rows(lines: list[str]) -> list[tuple[int, str]]:
    rows: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        content = line.split("#", 1)[0].strip()
        if content:
            rows.append((number, content))
    return rows


def load_hands(
    path: str | os.PathLike[str],
    range: str | None = None,  # shadows the builtin to match the command line's --range
    target: int = DEFAULT_TARGET,
) -> list[Hand]:
    """The hands in a ToT CSV or plain text file, optionally only rows ``range`` (see
    :func:`parse_range`; rows are the hands in file order, counted from zero).

    :class:`PuzzleFileError` for a file that cannot be used or a row that is not a hand;
    :class:`ValueError` for a malformed ``range`` and :class:`HandError` for a bad target."""
    rows_wanted = parse_range(range) if range is not None else slice(None)
    Hand((1, 1), target)  # a bad target is the caller's mistake, not the file's: fail now
    file = Path(path)
    text = _read_text(file)
    lines = text.splitlines()
    first = _first_content_line(lines)
    if first is None:
        raise PuzzleFileError(file, "has no hands")
    rows = _csv_rows(file, lines) if _looks_like_header(first) else _text_rows(lines)
    if not rows:
        raise PuzzleFileError(file, "has no hands")
    chosen = rows[rows_wanted]
    if not chosen:
        raise PuzzleFileError(
            file, f"the range {range!r} selects no rows (the file has {len(rows)} hands)"
        )
    hands: list[Hand] = []
    seen: dict[str, Hand] = {}  # big sets repeat hands; a Hand is immutable, so share it
    for line, cell in chosen:
        hand = seen.get(cell)
        if hand is None:
            try:
                hand = _whole_numbers(cell, target) or Hand.parse(cell, target)
            except HandError as exc:
                if _plain(cell):
                    problem = f"{cell.strip()!r} is not a hand ({exc})"
                else:
                    problem = "its puzzle cell is not a hand of 2 to 6 whole numbers"
                raise PuzzleFileError(file, problem, line) from None
            seen[cell] = hand
        hands.append(hand)
    return hands


def _plain(cell: str) -> bool:
    """Whether a cell looks like a hand written badly (a few short words, ``4 7 eight 8``),
    and so may be quoted in a message. Other text is not: a file that is no puzzle file (a
    config file with a key in it) is never read out."""
    words = cell.split()
    return len(words) <= 8 and all(len(word) <= 8 for word in words)


def _whole_numbers(cell: str, target: int) -> Hand | None:
    """The hand in a cell of plain whole numbers (``1 1 4 6``), validated by :class:`Hand`;
    ``None`` for anything else, which the general parser then reads (or refuses)."""
    if len(cell) > 200 or not _WHOLE_NUMBERS.fullmatch(cell):
        return None
    return Hand(tuple(map(int, cell.replace(",", " ").split())), target)
