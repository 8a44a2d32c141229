"""BoT's experience library on the command line: the ``--library`` flags of ``ponder solve``
and ``ponder bench``, and ``ponder library`` to list or clear what is stored.

The library itself is :mod:`solver.library`; here is where its file lives (the user data dir,
as the results store's), and what a file that cannot be used does to a run: a damaged file is
kept under a new name and a fresh library started (as :mod:`tui.store` does with results); a
file from a newer ponder, a locked or unwritable one leaves the run without the library. Each
case is one line on stderr, never a traceback, and no file is deleted.

A library ponder may not write (the file or its folder is read-only) is still read: runs start
from its entries and ``ponder library list`` lists them, with one note that nothing new can be
stored; ``ponder library clear`` is refused.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.cli.usage import UsageError, visible
from tui.exitcodes import ExitCode
from tui.library_file import default_path, is_read_only, open_library, read_only_note

if TYPE_CHECKING:
    import argparse

    from solver.library import ExperienceLibrary
    from solver.methods import Method
    from tui.cli.kinds import _SubParsers
    from tui.cli.options import Chosen

__all__ = ["add_library_options", "add_parser", "with_library"]


def note(message: str) -> None:
    print(f"ponder: {visible(message)}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ solve and bench


def add_library_options(p: argparse.ArgumentParser, *, command: str) -> None:
    """``--library/--no-library``, ``--library-file`` and ``--library-budget`` (off by
    default: a run is then the paper's, its prompts start with no experience)."""
    from argparse import BooleanOptionalAction

    from solver.library import DEFAULT_BUDGET

    g = p.add_argument_group("experience library (BoT)")
    extra = (
        "; run with --jobs 1 for each hand to see every earlier hand's entries"
        if command == "bench"
        else ""
    )
    g.add_argument(
        "--library",
        action=BooleanOptionalAction,
        default=None,
        help="start BoT with the most relevant experience entries of earlier runs (same "
        "kind, most similar puzzles first) and store this run's entries for later ones; "
        f"off unless given (or --library-file is){extra}",
    )
    g.add_argument(
        "--library-file",
        metavar="FILE",
        help="the library's SQLite file (implies --library; default: experience.sqlite3 in "
        "the user data dir)",
    )
    g.add_argument(
        "--library-budget",
        type=int,
        metavar="TOKENS",
        default=DEFAULT_BUDGET,
        help=f"most tokens of past experience a run starts with, about 4 characters a token "
        f"({DEFAULT_BUDGET})",
    )


def library_wanted(args: argparse.Namespace) -> bool:
    """Whether the command line asks for the library."""
    flag = getattr(args, "library", None)
    return bool(flag) or (flag is None and bool(getattr(args, "library_file", None)))


def with_library(args: argparse.Namespace, chosen: list[Chosen]) -> list[Method]:
    """The chosen methods, BoT run with the library when the command line asks for it; a
    note on stderr when it asks for it and no chosen method learns from experience."""
    from solver.library import WithLibrary, learns

    methods: list[Method] = [method for _, method in chosen]
    if not library_wanted(args):
        return methods
    if args.library_budget < 0:
        raise UsageError("--library-budget must be at least 0")
    if not any(learns(spec) for spec, _ in chosen):
        note("--library applies to BoT only; it is not used")
        return methods
    path = Path(args.library_file).expanduser() if args.library_file else default_path()
    library, message = open_library(path)
    if message:
        note(message)
    if library is None:
        return methods
    return [
        WithLibrary(method, library, budget=args.library_budget, notes=note)
        if learns(spec)
        else method
        for spec, method in chosen
    ]


def close_library(methods: list[Method]) -> None:
    """Close the library the methods used, once; a line on stderr saying what was stored."""
    from solver.library import WithLibrary

    for method in methods:
        if isinstance(method, WithLibrary):
            if not method.library.read_only:  # else said when it was opened
                note(f"{entries_text(method.stored)} stored in {method.library.name}")
            method.library.close()


# ------------------------------------------------------------------ ponder library


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder library list|clear``."""
    p = sub.add_parser(
        "library",
        help="list or clear BoT's experience library",
        description="BoT's experience library: the experience entries runs stored with "
        "--library, which later runs start from.",
        **common,
    )
    p.set_defaults(run=_need_action, parser=p)
    actions = p.add_subparsers(metavar="ACTION", title="actions")
    ls = actions.add_parser(
        "list",
        help="the stored entries, newest first",
        description="List stored entries.",
        **common,
    )
    _common(ls)
    ls.add_argument("--limit", type=int, default=20, metavar="N", help="entries shown (20)")
    ls.add_argument("--full", action="store_true", help="print each entry's whole text")
    ls.set_defaults(run=run_list, parser=ls)
    clear = actions.add_parser(
        "clear",
        help="delete the stored entries",
        description="Delete the stored entries (of one kind with --kind).",
        **common,
    )
    _common(clear)
    clear.set_defaults(run=run_clear, parser=clear)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--library-file", metavar="FILE", help="the library's file (the default one)")
    p.add_argument("--kind", metavar="KIND", help="only this puzzle kind (24, crossword, ...)")


def _need_action(args: argparse.Namespace) -> int:
    raise UsageError("say what to do: ponder library list, or ponder library clear")


def _kind_name(text: str | None) -> str | None:
    if text is None:
        return None
    from tui.kinds import UnknownKind, find_kind

    try:
        return find_kind(text).name
    except UnknownKind as exc:
        raise UsageError(str(exc)) from None


def _open(args: argparse.Namespace, *, listing: bool) -> ExperienceLibrary:
    """The library for ``list`` and ``clear``, as it is: a file that cannot be used is a
    usage error (never moved aside by a command that only looks). A read-only one is read,
    and listing says once that nothing new can be stored there."""
    from solver.library import ExperienceLibrary, LibraryError

    path = Path(args.library_file).expanduser() if args.library_file else default_path()
    read_only = is_read_only(path)
    try:
        library = ExperienceLibrary(path, read_only=read_only).open()
    except LibraryError as err:
        raise UsageError(str(err)) from None
    if read_only and listing:
        note(read_only_note(path))
    return library


def run_list(args: argparse.Namespace) -> int:
    """``ponder library list``."""
    from solver.library import LibraryError

    kind = _kind_name(args.kind)
    if args.limit < 0:
        raise UsageError("--limit must be at least 0")
    library = _open(args, listing=True)
    try:
        total = library.count(kind)
        found = library.entries(kind, args.limit)
    except LibraryError as err:
        raise UsageError(str(err)) from None
    finally:
        library.close()
    print(visible(f"{library.name}: {entries_text(total)}"))
    for e in found:
        ok = "reaches the target" if e.chain_ok else "does not reach the target"
        conf = "-" if e.confidence is None else f"{e.confidence:g}"
        head = (
            f"#{e.id} {e.created_at[:19]}  {e.kind}  {e.puzzle}  {e.method} on {e.model}, "
            f"iteration {e.iteration}: chain {ok}, confidence {conf}, {e.tokens} tokens"
        )
        print(visible(head))
        if args.full:
            print(visible(e.entry))
            print()
    return ExitCode.OK


def run_clear(args: argparse.Namespace) -> int:
    """``ponder library clear``."""
    from solver.library import LibraryError

    kind = _kind_name(args.kind)
    library = _open(args, listing=False)
    try:
        gone = library.clear(kind)
    except LibraryError as err:
        raise UsageError(str(err)) from None
    finally:
        library.close()
    print(visible(f"{library.name}: {entries_text(gone)} deleted"))
    return ExitCode.OK


def entries_text(n: int) -> str:
    """``1 experience entry``, ``3 experience entries``."""
    return f"{n} experience {'entry' if n == 1 else 'entries'}"
