"""Reading puzzle files that people bring: one guard for every loader.

A puzzle file may be missing, a folder, a pipe, huge, binary or in the wrong encoding. Every
loader reads through :func:`read_puzzle_file`, so each of those gets the same clear
:class:`PuzzleFileError` that names the file, never a traceback or a hang.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "PuzzleFileError", "read_puzzle_file", "too_large"]

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Largest puzzle file read, in bytes (ToT's and GSM8K's files are far smaller)."""


class PuzzleFileError(ValueError):
    """A puzzle file that cannot be used; the message names the file, the line or the puzzle
    when there is one, and the problem."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        problem: str,
        line: int | None = None,
        *,
        puzzle: int | None = None,
    ) -> None:
        where = os.fspath(path)
        if line is not None:
            where += f", line {line}"
        if puzzle is not None:
            where += f", puzzle {puzzle}"
        super().__init__(f"{where}: {problem}")
        self.path = os.fspath(path)
        self.problem = problem
        self.line = line
        self.puzzle = puzzle


def too_large(size: int) -> str:
    """The problem text for a file over :data:`MAX_FILE_BYTES`."""
    mb = MAX_FILE_BYTES // (1024 * 1024)
    return f"is too large ({size / (1024 * 1024):.1f} MB; at most {mb} MB)"


def read_puzzle_file(path: str | os.PathLike[str], what: str = "puzzle file") -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE_BYTES`, or
    :class:`PuzzleFileError` (``what`` names the kind of file in the message)."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise PuzzleFileError(path, "no such file") from None
    except OSError as exc:
        raise PuzzleFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise PuzzleFileError(path, f"is a directory, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        # Devices and pipes could block or never end.
        raise PuzzleFileError(path, "is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise PuzzleFileError(path, too_large(info.st_size))
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PuzzleFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:  # it grew after stat
        raise PuzzleFileError(path, too_large(len(data)))
    return data
