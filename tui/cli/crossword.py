"""Mini crosswords on the command line: ``ponder puzzles crossword`` prints, checks or
generates them.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from puzzles.crossword import Crossword

from tui.cli.kinds import KindCommands
from tui.cli.usage import UsageError, json_line, say
from tui.exitcodes import ExitCode

__all__ = ["COMMANDS", "render"]

EXIT_OK, EXIT_FAILED = ExitCode.OK, ExitCode.NOT_SOLVED
MAX_COUNT = 1000


def add_puzzles_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``ponder puzzles crossword``."""
    p.add_argument("--load", metavar="FILE", help="a puzzle file to read: ToT JSON, ipuz, .puz")
    p.add_argument("--check", action="store_true", help="check the puzzles of --load FILE")
    p.add_argument("--puzzle", type=int, metavar="N", help="only the N-th puzzle of the file")
    p.add_argument(
        "--generate", action="store_true", help="generate new puzzles (see --seed, --count)"
    )
    p.add_argument("--count", type=int, metavar="K", help="how many to generate (1)")
    p.add_argument("--seed", type=int, default=None, metavar="N", help="seed for --generate (0)")
    p.add_argument("--blocks", action="store_true", help="--generate grids with black squares")
    p.add_argument("--solution", action="store_true", help="show the answers too")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def puzzles(args: argparse.Namespace) -> int:
    """``ponder puzzles crossword``: the exit code."""
    load, check, make = args.load, args.check, args.generate
    if load and make:
        raise UsageError("use either --load FILE or --generate, not both")
    if check and not load:
        raise UsageError("--check needs a file: --load FILE --check")
    if load:
        return _load(args, load, check)
    if make or args.seed is not None:
        return _generate(args)
    raise UsageError("say what to do: --load FILE [--check] or --generate [--seed N]")


def _load(args: argparse.Namespace, path: str, check: bool) -> int:
    from puzzles.crossword import PuzzleFileError, load_crosswords

    if args.count is not None or args.blocks:
        raise UsageError("--count and --blocks are for --generate, not --load")
    try:
        crosswords = load_crosswords(path, verify_checksums=bool(check))
    except PuzzleFileError as exc:
        raise UsageError(str(exc)) from None
    number = args.puzzle
    if number is not None:
        if not 1 <= number <= len(crosswords):
            raise UsageError(f"--puzzle {number}: the file has {len(crosswords)} puzzle(s)")
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
        if args.json:
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
    if not args.json and len(crosswords) > 1:
        print(f"{len(crosswords) - failed} of {len(crosswords)} puzzles pass")
    return EXIT_FAILED if failed else EXIT_OK


def _generate(args: argparse.Namespace) -> int:
    from puzzles.crossword import GenerationError, generate

    if args.puzzle is not None:
        raise UsageError("--puzzle picks from --load FILE; use --seed with --generate")
    seed = args.seed
    seed = 0 if seed is None else seed
    count = args.count
    count = 1 if count is None else count
    if not 1 <= count <= MAX_COUNT:
        raise UsageError(f"--count is 1 to {MAX_COUNT}, not {count}")
    crosswords = []
    for offset in range(count):
        try:
            crosswords.append(generate(seed + offset, blocks=bool(args.blocks)))
        except GenerationError as exc:
            print(f"ponder: {exc}", file=sys.stderr)
            return EXIT_FAILED
    _print_all(args, crosswords)
    return EXIT_OK


def _print_all(args: argparse.Namespace, crosswords: list[Crossword]) -> None:
    solution = bool(args.solution)
    for index, crossword in enumerate(crosswords):
        if args.json:
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


COMMANDS = KindCommands(
    add_puzzles_arguments=add_puzzles_arguments,
    puzzles=puzzles,
    puzzles_help="print, check (--load FILE --check) or generate (--generate) mini crosswords",
)
"""Mini crosswords' commands (the solvers do not play them yet)."""
