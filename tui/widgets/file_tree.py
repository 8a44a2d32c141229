"""The open-file dialog's path suggestions and its folder tree."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.suggester import Suggester
from textual.widgets import DirectoryTree

__all__ = ["FileTree", "PathSuggester", "complete_path", "within"]

_MAX_ENTRIES = 2000
"""Folder entries looked at for one completion (a huge folder completes nothing)."""


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


class PathSuggester(Suggester):
    """Completes a path as it is typed: the rest of the one entry that fits, or as much as
    every entry that fits shares. Hidden entries only when a dot is typed."""

    def __init__(self, root: Path | None = None) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.root = root

    async def get_suggestion(self, value: str) -> str | None:
        return complete_path(value, self.root)


class FileTree(DirectoryTree):
    """The folder tree, without hidden entries and caches, nor (with a root) links that lead
    out of the root."""

    def __init__(self, path: Path, confine: Path | None = None, **kwargs: Any) -> None:
        self.confine = confine  # (a tree's ``root`` is its top node)
        super().__init__(path, **kwargs)

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            p
            for p in paths
            if not p.name.startswith(".") and p.name != "__pycache__" and within(p, self.confine)
        ]


def within(path: Path, root: Path | None) -> bool:
    """Whether ``path``, its links followed, lies under ``root`` (always, without a root)."""
    return root is None or Path(os.path.realpath(path)).is_relative_to(root)


def complete_path(value: str, root: Path | None = None) -> str | None:
    """``value`` completed as far as the folder's entries agree, or None; with a ``root``,
    only within it (a relative path is read from it)."""
    if not value or "\n" in value or "\x00" in value:
        return None
    folder, _, start = value.rpartition(os.sep)
    base = "." if root is None else str(root)
    where = Path(
        os.path.expanduser(folder + os.sep if folder or value.startswith(os.sep) else base)
    )
    if root is not None and not where.is_absolute():
        where = root / where
    if not within(where, root):
        return None
    names: list[str] = []
    try:
        with os.scandir(where) as entries:
            for i, entry in enumerate(entries):
                if i >= _MAX_ENTRIES:
                    return None
                if entry.name.startswith(start) and (start[:1] == "." or entry.name[:1] != "."):
                    names.append(entry.name + (os.sep if _is_dir(entry) else ""))
    except OSError:
        return None
    if not names:
        return None
    shared = min(names)
    for name in names:  # what every fitting name starts with, letter by letter
        while not name.startswith(shared):
            shared = shared[:-1]
    if len(shared) <= len(start):
        return None
    return value + shared[len(start) :]
