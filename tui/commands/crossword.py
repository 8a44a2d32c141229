"""``ponder puzzles crossword``: print, check or generate mini crosswords.

* ``--load FILE`` prints each puzzle of a ToT mini crossword JSON, ipuz or .puz file: its
  numbered grid and clues, as a player sees them (``--solution`` adds the answers).
  ``--puzzle N`` keeps only the N-th puzzle of a file (counted from 1).
* ``--load FILE --check`` checks each puzzle: every entry has a clue, lengths agree with
  enumerations, answers the file states agree with the grid where they cross (and a .puz
  file's checksums hold). Flaws that do not break a puzzle (a repeated answer, a clue that
  contains its answer) are shown as warnings.
* ``--generate [--seed N] [--count K] [--blocks]`` prints new 5 x 5 minis, seeds N, N+1, ...
* ``--json`` prints one JSON object per puzzle (or per check) instead.

Exit codes: 0 ok, 1 a check failed (or no grid could be generated), 2 bad input (a message
on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from puzzles.crossword import Crossword

from tui.commands import CommandError, add_missing, json_line, run_command, say
from tui.commands import option as _option
from tui.exitcodes import ExitCode

__all__ = ["add_arguments", "run"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = ExitCode.OK, ExitCode.NOT_SOLVED, ExitCode.USAGE
MAX_COUNT = 1000


_UsageError = CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to the ``ponder puzzles`` parser, skipping any option
    another puzzle kind has already added (they share one parser)."""

    def add(flag: str, **options: Any) -> None:
        add_missing(parser, flag, **options)

    add("--load", metavar="FILE", help="a puzzle file to read (crosswords: ToT JSON, ipuz, .puz)")
    add("--check", action="store_true", help="check the puzzles of --load FILE")
    add("--generate", action="store_true", help="generate new puzzles (see --seed, --count)")
    add("--count", type=int, metavar="K", help="how many to generate (1)")
    add("--seed", type=int, default=None, help="seed for --generate (0)")
    add("--json", action="store_true", help="one JSON object per line")
    add("--solution", action="store_true", help="crosswords: show the answers too")
    add("--blocks", action="store_true", help="crosswords: --generate grids with black squares")
    add("--puzzle", type=int, metavar="N", help="crosswords: only the N-th puzzle of the file")


def run(args: argparse.Namespace) -> int:
    """Run ``ponder puzzles crossword`` with parsed ``args``; the exit code."""
    return run_command(_run, args)


def _run(args: argparse.Namespace) -> int:
    for other in ("solve", "level", "pick", "topic"):
        if _option(args, other):
            raise _UsageError(f"--{other} is not a crossword option; see --load and --generate")
    load, check, make = _option(args, "load"), _option(args, "check"), _option(args, "generate")
    if load and make:
        raise _UsageError("use either --load FILE or --generate, not both")
    if check and not load:
        raise _UsageError("--check needs a file: --load FILE --check")
    if load:
        return _load(args, load, check)
    if make or _option(args, "seed") is not None:
        return _generate(args)
    raise _UsageError("say what to do: --load FILE [--check] or --generate [--seed N]")


def _load(args: argparse.Namespace, path: str, check: bool) -> int:
    from puzzles.crossword import PuzzleFileError, load_crosswords

    if _option(args, "count") is not None or _option(args, "blocks"):
        raise _UsageError("--count and --blocks are for --generate, not --load")
    try:
        crosswords = load_crosswords(path, verify_checksums=bool(check))
    except PuzzleFileError as exc:
        raise _UsageError(str(exc)) from None
    number = _option(args, "puzzle")
    if number is not None:
        if not 1 <= number <= len(crosswords):
            raise _UsageError(f"--puzzle {number}: the file has {len(crosswords)} puzzle(s)")
        crosswords = [crosswords[number - 1]]
    if check:
        return _check(args, crosswords)
    _print_all(args, crosswords)
    return EXIT_OK


def _check(args: argparse.Namespace, crosswords: list[Crossword]) -> int:
    failed = 0
    for crossword in crosswords:
        problems = crossword.problems()
        ok = not any(p.serious for p in problems)
        failed += not ok
        if _option(args, "json"):
            record = {
                "source": crossword.source,
                "title": crossword.title,
                "ok": ok,
                "problems": [
                    {"label": p.label, "message": p.message, "serious": p.serious} for p in problems
                ],
            }
            print(json_line(record))
            continue
        name = crossword.source or crossword.title or "puzzle"
        say(f"{name}: {'ok' if ok else 'FAILED'}")
        for problem in problems:
            say(f"  {problem}")
    if not _option(args, "json") and len(crosswords) > 1:
        print(f"{len(crosswords) - failed} of {len(crosswords)} puzzles pass")
    return EXIT_FAILED if failed else EXIT_OK


def _generate(args: argparse.Namespace) -> int:
    from puzzles.crossword import GenerationError, generate

    if _option(args, "puzzle") is not None:
        raise _UsageError("--puzzle picks from --load FILE; use --seed with --generate")
    seed = _option(args, "seed")
    seed = 0 if seed is None else seed
    count = _option(args, "count")
    count = 1 if count is None else count
    if not 1 <= count <= MAX_COUNT:
        raise _UsageError(f"--count is 1 to {MAX_COUNT}, not {count}")
    crosswords = []
    for offset in range(count):
        try:
            crosswords.append(generate(seed + offset, blocks=bool(_option(args, "blocks"))))
        except GenerationError as exc:
            print(f"ponder: {exc}", file=sys.stderr)
            return EXIT_FAILED
    _print_all(args, crosswords)
    return EXIT_OK


def _print_all(args: argparse.Namespace, crosswords: list[Crossword]) -> None:
    solution = bool(_option(args, "solution"))
    for index, crossword in enumerate(crosswords):
        if _option(args, "json"):
            print(json_line(crossword.to_dict(solution=solution)))
            continue
        if index:
            print()
        say(render(crossword, solution=solution))


def render(crossword: Crossword, *, solution: bool = False) -> str:
    """A crossword as plain text: a header, the grid (numbers, or letters with
    ``solution``; ``##`` for blocks) and the clues."""
    grid = crossword.grid
    lines = []
    header = crossword.title or "Crossword"
    if crossword.author:
        header += f" by {crossword.author}"
    if crossword.source and crossword.source not in header:
        header += f"  [{crossword.source}]"
    lines.append(header)
    lines.append("")
    for r in range(grid.height):
        cells = []
        for c in range(grid.width):
            if grid.is_block((r, c)):
                cells.append("##")
            elif solution:
                cells.append(f" {crossword.letter((r, c))}")
            else:
                number = grid.number_at((r, c))
                cells.append(f"{number:>2}" if number else " .")
        lines.append("  " + " ".join(cells))
    for title, entries in (("Across", crossword.across), ("Down", crossword.down)):
        lines.append("")
        lines.append(title)
        for entry in entries:
            tail = f"  = {entry.answer}" if solution else ""
            size = f" ({entry.clue.enumeration or entry.slot.length})"
            lines.append(f"  {entry.slot.number:>2}. {entry.clue.text}{size}{tail}")
    return "\n".join(lines)
