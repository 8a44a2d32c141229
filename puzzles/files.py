"""Reading files that people bring, and writing the ones they name: one guard for each.

Puzzle files, the config file, traces and texts to verify may be missing, a folder, a pipe
or a device (``/dev/zero`` never ends, a FIFO blocks), huge, one endless line, binary, in the
wrong encoding, nested thousands deep or hold numbers thousands of digits long. Everything
ponder reads goes through this module, so each of those gets the same clear
:class:`FileError` naming the file (and the line, where there is one), never a traceback or
a hang:

* :func:`open_file` / :func:`read_file`: regular files only (opened without blocking and
  checked on the open handle, so a pipe swapped in after a check cannot hang the read),
  at most ``max_bytes``;
* :func:`decode_text`: UTF-8 (a BOM is fine; UTF-16 only where a format allows it), no NUL
  bytes, and lines of at most ``max_line`` characters;
* :func:`read_lines`: a file read line by line, each line capped before it is held whole;
* :func:`parse_json`: JSON nested at most ``max_depth`` deep, numbers of at most
  :data:`MAX_DIGITS` digits;
* :func:`check_nesting`: the depth cap for other formats (TOML).

Loaders of each kind add their own checks on top (shape, counts); the limits here are the
floor every file gets.

Every file ponder writes whole (exports, the config file, results kept aside) goes through
:func:`write_whole`: written beside the target and renamed over it, so a crash leaves the old
file or the new one. A rename replaces whatever has the name, so the target must be a regular
file or nothing: a directory, a named pipe, a device (``--csv /dev/full`` run as root would
otherwise swap the system's device for a plain file), a socket or a symbolic link is refused
before anything is written (:func:`output_problem`). The link is refused rather than followed:
``out.csv`` linked to someone else's file is not a request to overwrite that file. The config
file, which people keep in a dotfiles folder and link, is the one exception and asks for it
(``follow_links``): it is written where the link points, and that must be a regular file too.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import re
import secrets
import stat
from array import array
from collections.abc import Generator, Iterator
from itertools import accumulate
from typing import IO, Any, Literal

__all__ = [
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_FILE_BYTES",
    "FileError",
    "PuzzleFileError",
    "check_nesting",
    "decode_text",
    "file_kind",
    "nesting_depth",
    "open_file",
    "output_problem",
    "parse_json",
    "read_file",
    "read_lines",
    "read_puzzle_file",
    "too_large",
    "write_whole",
]

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Largest puzzle file read, in bytes (ToT's and GSM8K's files are far smaller)."""

MAX_DEPTH = 64
"""Deepest nesting of lists and objects read from a file (ponder's own files nest under 8)."""

MAX_DIGITS = 100
"""Most digits in one number read from a file; longer ones are refused rather than converted
(Python refuses ints over 4,300 digits, and a float overflows at 309)."""


class FileError(ValueError):
    """A file that cannot be used; the message names the file, the line or the puzzle when
    there is one, and the problem. ``missing`` is true when the file does not exist."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        problem: str,
        line: int | None = None,
        *,
        puzzle: int | None = None,
        missing: bool = False,
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
        self.missing = missing


class PuzzleFileError(FileError):
    """A puzzle file that cannot be used (see :class:`FileError`)."""


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size} bytes"


def too_large(size: int, limit: int | None = None) -> str:
    """The problem text for a file of ``size`` bytes over ``limit`` (default
    :data:`MAX_FILE_BYTES`)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    return f"is too large ({_size(size)}; at most {_size(limit)})"


def _cannot_read(exc: OSError) -> str:
    return f"cannot be read ({exc.strerror or exc})"


def open_file(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    max_bytes: int | None = None,
    error: type[FileError] = FileError,
) -> IO[bytes]:
    """A regular file of at most ``max_bytes`` (default :data:`MAX_FILE_BYTES`), open for
    reading in binary; ``error`` for anything else (``what`` names the kind of file).

    The file is opened without blocking and checked on the open handle: a pipe or a device
    (``/dev/zero``, a FIFO, a terminal) is refused before a byte is read."""
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(path, "no such file", missing=True) from None
    except IsADirectoryError:
        raise error(path, f"is a directory, not a {what}") from None
    except OSError as exc:
        raise error(path, _cannot_read(exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(path, f"is a directory, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            # Devices and pipes could block or never end.
            raise error(path, f"is not a regular file (a pipe or a device), not a {what}")
        if info.st_size > limit:
            raise error(path, too_large(info.st_size, limit))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_file(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    max_bytes: int | None = None,
    error: type[FileError] = FileError,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (see :func:`open_file`)."""
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    with open_file(path, what=what, max_bytes=limit, error=error) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(path, _cannot_read(exc)) from None
    if len(data) > limit:  # it grew after the check
        raise error(path, too_large(len(data), limit))
    return data


def read_puzzle_file(path: str | os.PathLike[str], what: str = "puzzle file") -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE_BYTES`, or
    :class:`PuzzleFileError` (``what`` names the kind of file in the message)."""
    return read_file(path, what=what, max_bytes=MAX_FILE_BYTES, error=PuzzleFileError)


def decode_text(
    data: bytes,
    path: str | os.PathLike[str],
    *,
    utf16: bool = False,
    max_line: int | None = None,
    error: type[FileError] = FileError,
) -> str:
    """``data`` as text: UTF-8 with or without a BOM (UTF-16 with a BOM too when ``utf16``),
    no NUL bytes, no line longer than ``max_line`` characters; ``error`` naming the line
    otherwise."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        if not utf16:
            raise error(path, "is UTF-16 text; save it as UTF-8")
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise error(path, f"is not UTF-16 text (bad bytes at offset {exc.start})") from None
    else:
        if b"\x00" in data:
            raise error(path, "looks like a binary file, not text")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise error(
                path, f"is not UTF-8 text (undecodable byte at offset {exc.start})", line
            ) from None
    if max_line is not None:
        _check_line_lengths(text, path, max_line, error)
    return text


def _check_line_lengths(
    text: str, path: str | os.PathLike[str], max_line: int, error: type[FileError]
) -> None:
    if len(text) <= max_line:
        return
    start = line = 0
    while True:
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        line += 1
        if stop - start > max_line:
            raise error(
                path, f"has a line of {stop - start:,} characters (at most {max_line:,})", line
            )
        if end < 0:
            return
        start = end + 1


def read_lines(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    max_bytes: int | None = None,
    max_line: int,
    error: type[FileError] = FileError,
) -> Generator[tuple[int, str], None, None]:
    """(line number, text) for each line of a regular file, read one line at a time: UTF-8,
    at most ``max_line`` bytes a line (never more is held), at most ``max_bytes`` in all.

    The file is opened and checked at once (``error`` is raised here); close the iterator
    (or let it end) to close the file."""
    handle = open_file(path, what=what, max_bytes=max_bytes, error=error)
    return _lines(handle, path, max_line, error)


def _lines(
    handle: IO[bytes], path: str | os.PathLike[str], max_line: int, error: type[FileError]
) -> Generator[tuple[int, str], None, None]:
    with handle:
        number = 0
        while True:
            number += 1
            try:
                raw = handle.readline(max_line + 2)  # room for "\r\n"
            except OSError as exc:
                raise error(path, _cannot_read(exc), number) from None
            if not raw:
                return
            if len(raw.rstrip(b"\r\n")) > max_line:
                raise error(path, f"has a line longer than {max_line:,} bytes", number)
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError:
                raise error(path, "is not UTF-8 text (bad text encoding)", number) from None


# --- nesting and numbers ----------------------------------------------------------------------

# Strings (and TOML comments) are taken out before brackets are counted. Unrolled loops keep
# the patterns linear on long strings.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_TOML_SKIP = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*'
)
_BRACKETS = b"[{]}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_STEPS = bytes.maketrans(_BRACKETS, b"\x01\x01\xff\xff")  # +1, +1, -1, -1 as signed bytes
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def nesting_depth(text: str, syntax: Literal["json", "toml"] = "json") -> int:
    """How deep lists and objects (arrays and tables) nest in ``text``, strings aside."""
    if text.count("[") + text.count("{") == 0:
        return 0
    bare = (_JSON_STRING if syntax == "json" else _TOML_SKIP).sub("", text)
    steps = bare.encode("utf-8", "surrogatepass").translate(_STEPS, _NOT_BRACKETS)
    return max(0, max(accumulate(array("b", steps)), default=0))


def check_nesting(
    text: str,
    path: str | os.PathLike[str],
    *,
    syntax: Literal["json", "toml"] = "json",
    max_depth: int = MAX_DEPTH,
    line: int | None = None,
    error: type[FileError] = FileError,
) -> None:
    """``error`` when ``text`` nests deeper than ``max_depth`` or holds a number of more than
    :data:`MAX_DIGITS` digits (strings aside)."""
    opens = text.count("[") + text.count("{")
    if opens > max_depth and nesting_depth(text, syntax) > max_depth:
        raise error(path, f"is nested too deeply (more than {max_depth} levels)", line)
    if _LONG_NUMBER.search(text):
        bare = (_JSON_STRING if syntax == "json" else _TOML_SKIP).sub("", text)
        if _LONG_NUMBER.search(bare):
            raise error(path, f"holds a number of more than {MAX_DIGITS} digits", line)


def parse_json(
    text: str,
    path: str | os.PathLike[str],
    *,
    max_depth: int = MAX_DEPTH,
    line: int | None = None,
    error: type[FileError] = FileError,
) -> Any:
    """``text`` parsed as JSON, nested at most ``max_depth`` deep and without overlong numbers,
    or ``error`` saying why not (with the line and column in ``text``)."""
    check_nesting(text, path, max_depth=max_depth, line=line, error=error)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        if line is None:
            where = f" at line {exc.lineno}, column {exc.colno}"
        else:
            where = f" at column {exc.colno}"
        raise error(path, f"is not valid JSON ({exc.msg}{where})", line) from None
    except RecursionError:  # unreachable under the depth cap; kept as the last guard
        raise error(path, "is nested too deeply", line) from None
    except ValueError as exc:
        raise error(path, f"is not usable JSON ({exc})", line) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


# --- writing ----------------------------------------------------------------------------------

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str | None:
    """What a file of ``mode`` (an ``st_mode``) is when it is not a regular file: ``"a
    directory"``, ``"a symbolic link"``, ``"a named pipe"``, ``"a device"``, ``"a socket"``
    (``"a special file"`` for anything else); ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


def _cannot_write(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _output_info(path: str | os.PathLike[str], follow_links: bool) -> os.stat_result | None:
    """The target's own details (a link's, not its target's, unless ``follow_links``), or
    None when there is nothing there yet; :class:`FileError` when it may not be replaced."""
    try:
        info = os.stat(path) if follow_links else os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FileError(path, _cannot_write(exc)) from None
    kind = file_kind(info.st_mode)
    if kind is not None:
        raise FileError(path, f"it is {kind}, not a regular file; ponder writes only regular files")
    return info


def output_problem(path: str | os.PathLike[str], *, follow_links: bool = False) -> str | None:
    """Why ``path`` may not be written by :func:`write_whole` (``"it is a named pipe, not a
    regular file; ..."``), or None when it may: it is a regular file or does not exist."""
    try:
        _output_info(path, follow_links)
    except FileError as exc:
        return exc.problem
    return None


def _create_beside(target: str, mode: int) -> tuple[int, str]:
    """A new, empty temporary file in ``target``'s folder, opened for writing. The system
    applies the umask to ``mode``, as it does to any file a program creates."""
    folder, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temp, flags, mode), temp
        except FileExistsError:  # another writer's temporary file: pick another name
            continue


@contextlib.contextmanager
def write_whole(
    path: str | os.PathLike[str],
    *,
    follow_links: bool = False,
    new_mode: int = 0o666,
    errors: str = "strict",
    newline: str | None = None,
) -> Iterator[IO[str]]:
    """A UTF-8 text file that replaces ``path`` once the block has written it whole, or not
    at all: written to a temporary file beside it, synced, then renamed over it.

    ``path`` must be a regular file or nothing (see the module's notes); that is checked before
    anything is written and again just before the rename. A file replaced keeps its
    permissions; a new one gets ``new_mode`` less the umask. :class:`FileError` names ``path``
    when it may not or cannot be written; the temporary file never stays behind."""
    target = os.path.realpath(path) if follow_links else os.fspath(path)
    before = _output_info(target, follow_links=False)
    try:
        fd, temp = _create_beside(target, new_mode)
    except OSError as exc:
        raise FileError(path, _cannot_write(exc)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if before is not None:
            os.chmod(temp, stat.S_IMODE(before.st_mode))
        # Whatever took the name meanwhile must be a regular file too.
        _output_info(target, follow_links=False)
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise FileError(path, _cannot_write(exc)) from None
        raise
