"""Where the experience library lives and how it is opened, for the app and the command line
alike: a damaged file is kept aside and a fresh one started, a file that cannot be written is
read only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.library import ExperienceLibrary

__all__ = ["default_path", "is_read_only", "open_library", "read_only_note"]


def default_path() -> Path:
    """The library's file in the user data dir (``$PONDER_DATA_DIR`` when set)."""
    from solver.library import FILE_NAME
    from solver.settings import data_dir

    return data_dir() / FILE_NAME


def read_only_note(path: Path) -> str:
    """What is said, once, of a library ponder may not write."""
    return (
        f"{path}: read-only (the file or its folder cannot be written): its entries are "
        "read, but nothing new can be stored"
    )


def is_read_only(path: Path, writable: Callable[[Path], bool] | None = None) -> bool:
    """Whether the library at ``path`` is to be opened read-only: ``writable`` (by default
    :func:`solver.sqlite_files.can_write`) says it cannot be written."""
    from solver.sqlite_files import can_write

    return not (writable or can_write)(path)


def open_library(
    path: Path, writable: Callable[[Path], bool] | None = None
) -> tuple[ExperienceLibrary | None, str | None]:
    """The library at ``path``, open, and a message for the user when it is not the file as
    it was: a damaged file is renamed ``<name>.corrupt-<time>`` (kept whole) and a fresh one
    started; a file that cannot be written is read only (see :func:`is_read_only`); a file
    that cannot be used otherwise gives ``None`` (the run goes without)."""
    from solver.library import CorruptLibraryError, ExperienceLibrary, LibraryError
    from tui.store import move_aside

    if is_read_only(path, writable):
        try:
            return ExperienceLibrary(path, read_only=True).open(), read_only_note(path)
        except LibraryError as err:
            return None, f"{err}; running without the experience library"
    try:
        return ExperienceLibrary(path).open(), None
    except CorruptLibraryError as err:
        damage = err
    except LibraryError as err:
        return None, f"{err}; running without the experience library"
    try:
        aside = move_aside(path)
    except OSError as err:
        return None, (
            f"{damage}. It could not be moved aside ({err.strerror or err}), so it was left "
            "as it is and this run goes without the experience library"
        )
    try:
        fresh = ExperienceLibrary(path).open()
    except LibraryError as err:
        return None, f"{damage}. It was kept as {aside}; a fresh library failed too: {err}"
    return fresh, f"{damage}. It was kept as {aside} and a fresh library was started"
