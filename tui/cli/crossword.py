"""Mini crosswords on the command line: ``ponder puzzles crossword`` prints, checks or
generates them.

* ``--load FILE`` prints each puzzle of a ToT mini crossword JSON, ipuz or .puz file: its
  numbered grid and clues, as a player sees them (``--solution`` adds the answers).
  ``--row N`` keeps only row N of a file (counted from 0, as every ``--row`` and ``--range``).
* ``--load FILE --check`` checks each puzzle: every entry has a clue, lengths agree with
  enumerations, answers the file states agree with the grid where they cross (and a .puz
  file's checksums hold). Flaws that do not break a puzzle (a repeated answer, a clue that
  contains its answer) are shown as warnings.
* ``--generate [--seed N] [--count K] [--blocks]`` prints new 5 x 5 minis, seeds N, N+1, ...
* ``--json`` prints one JSON object per puzzle (or per check) instead.
* ``ponder solve crossword [SEED] [--blocks] | --file FILE | --tot [--row N]``: the mini a
  method plays (a generated one by seed, or row N of a file or of ToT's bundled set, counted
  from 0).
* ``ponder bench crossword --file FILE | --tot [--range A:B[:S]] | --generated N [--first S]
  [--blocks]``: the minis a benchmark runs (``--tot --range 0:100:5`` is ToT's test set:
  ``--tot`` reads ToT's ``mini0505.json``, bundled with its MIT notice).

Exit codes: 0 ok, 1 a check failed (or no grid could be generated), 2 bad input (a message
on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from puzzles.crossword import Crossword
    from solver.domains.crossword import CrosswordDomain

from tui.cli.kinds import KindCommands, SolvePuzzle, SolverCommands
from tui.cli.usage import UsageError, json_line, say
from tui.exitcodes import ExitCode

__all__ = ["COMMANDS", "render"]

EXIT_OK, EXIT_FAILED = ExitCode.OK, ExitCode.NOT_SOLVED
MAX_COUNT = 1000


def add_puzzles_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``ponder puzzles crossword``."""
    p.add_argument("--load", metavar="FILE", help="a puzzle file to read: ToT JSON, ipuz, .puz")
    p.add_argument("--check", action="store_true", help="check the puzzles of --load FILE")
    p.add_argument(
        "--row",
        type=int,
        metavar="N",
        help="only the puzzle at row N of the file, counted from 0 (the app's first is row 0)",
    )
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
    row = args.row
    if row is not None:
        if not 0 <= row < len(crosswords):
            count = len(crosswords)
            rows = "row 0 only" if count == 1 else f"rows 0 to {count - 1}"
            raise UsageError(f"--row {row}: the file has {count} puzzle(s), {rows}")
        crosswords = [crosswords[row]]
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

    if args.row is not None:
        raise UsageError("--row picks from --load FILE; use --seed with --generate")
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


# ------------------------------------------------------------------ ponder solve crossword

GENERATED_MAX = 10_000
TOT_HELP = (
    "ToT's 156 minis (mini0505.json, bundled with its MIT notice); rows 0:100:5 are the paper's 20"
)


def _domain(puzzle: Crossword | Mini) -> CrosswordDomain:
    """The domain the solvers play, refusing what they cannot (see
    :func:`solver.kinds.crossword.refusal`)."""
    from solver.kinds import KindError
    from solver.kinds.crossword import KIND

    crossword = puzzle.crossword if isinstance(puzzle, Mini) else puzzle
    try:
        return cast("CrosswordDomain", KIND.make_domain(crossword))
    except KindError as exc:
        raise UsageError(str(exc)) from None


def _generated(seed: int, blocks: bool) -> Crossword:
    from puzzles.crossword import GenerationError, generate

    try:
        return generate(seed, blocks=blocks)
    except GenerationError as exc:
        raise UsageError(str(exc)) from None


def _file(path: str) -> list[Crossword]:
    from puzzles.crossword import PuzzleFileError, load_crosswords
    from puzzles.crossword.loaders import TOT_MINIS

    try:
        found = load_crosswords(path)
    except PuzzleFileError as exc:
        hint = ""
        if Path(path).name == TOT_MINIS.name and not Path(path).exists():
            hint = f" (ToT's {TOT_MINIS.name} is bundled: use --tot instead of --file)"
        raise UsageError(f"{exc}{hint}") from None
    if not found:
        raise UsageError(f"{path} holds no puzzle")
    return found


def _tot_name() -> str:
    from puzzles.crossword.loaders import TOT_MINIS

    return TOT_MINIS.name


def _tot_set() -> list[Crossword]:
    """ToT's bundled minis (a damaged install is said plainly, like any bad file)."""
    from puzzles.crossword import PuzzleFileError
    from puzzles.crossword.loaders import load_tot_minis

    try:
        return load_tot_minis()
    except PuzzleFileError as exc:
        raise UsageError(f"ToT's bundled minis cannot be read ({exc})") from None


def add_solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "puzzle",
        nargs="?",
        type=int,
        metavar="SEED",
        help="generate the mini of this seed (0) unless --file is given",
    )
    p.add_argument("--blocks", action="store_true", help="a generated grid with black squares")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--file", metavar="FILE", help="a puzzle file: ToT JSON, ipuz or .puz")
    src.add_argument("--tot", action="store_true", help=TOT_HELP)
    p.add_argument(
        "--row",
        type=int,
        metavar="N",
        help="the puzzle of --file or --tot to play, counted from 0 (0; the app's first is row 0)",
    )


def solve_puzzle(args: argparse.Namespace) -> SolvePuzzle:

    if args.file or args.tot:
        if args.puzzle is not None or args.blocks:
            raise UsageError("SEED and --blocks generate a puzzle; --file reads one, as --tot does")
        found = _tot_set() if args.tot else _file(args.file)
        row = 0 if args.row is None else args.row
        if not 0 <= row < len(found):
            raise UsageError(f"--row {row}: the file has rows 0 to {len(found) - 1}")
        crossword = found[row]
    else:
        if args.row is not None:
            raise UsageError("--row picks a puzzle of --file or --tot")
        seed = 0 if args.puzzle is None else args.puzzle
        if not 0 <= seed <= 2**31:
            raise UsageError(f"SEED is 0 to {2**31}, not {seed}")
        crossword = _generated(seed, bool(args.blocks))
    domain = _domain(crossword)
    from solver.kinds.crossword import KIND

    return SolvePuzzle(domain, KIND.header_of(crossword))


# ------------------------------------------------------------------ ponder bench crossword


def parse_range(text: str) -> slice:
    """``A:B``, ``A:B:S`` (every S-th row from A up to B), ``A:``, ``:B`` or one row ``N``;
    rows count from 0, so ToT's test set is ``0:100:5``."""
    parts = text.strip().split(":")
    if not text.strip() or len(parts) > 3:
        raise UsageError(f"bad range {text!r}: write START:END or START:END:STEP, e.g. 0:100:5")
    bounds: list[int | None] = []
    for part in parts:
        part = part.strip()
        if not part:
            bounds.append(None)
            continue
        if not re.fullmatch(r"-?\d{1,9}", part):
            raise UsageError(f"bad range {text!r}: {part!r} is not a whole number")
        bounds.append(int(part))
    if len(bounds) == 1:
        row = bounds[0]
        assert row is not None
        return slice(row, row + 1 if row != -1 else None)
    step = bounds[2] if len(bounds) == 3 else None
    if step is not None and step < 1:
        raise UsageError(f"bad range {text!r}: the step must be at least 1")
    return slice(bounds[0], bounds[1], step)


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--file", metavar="FILE", help="ToT's mini0505.json, an ipuz or a .puz file")
    src.add_argument("--tot", action="store_true", help=TOT_HELP)
    src.add_argument(
        "--generated", type=int, metavar="N", help="N generated minis, seeds --first onwards (20)"
    )
    p.add_argument(
        "--range",
        dest="rows",
        metavar="A:B[:S]",
        help="rows of --file or --tot, counted from 0; --tot --range 0:100:5 is ToT's test "
        "set (every 5th of the first 100)",
    )
    p.add_argument("--first", type=int, metavar="S", help="the first seed of --generated (0)")
    p.add_argument("--blocks", action="store_true", help="--generated grids with black squares")


@dataclass(frozen=True)
class Mini:
    """One crossword of a benchmark, with the short name results files key it by."""

    crossword: Crossword
    label: str

    def __str__(self) -> str:
        return self.label


def bench_hands(args: argparse.Namespace) -> list[Mini]:
    """The minis a benchmark runs (each is checked to be one the solvers play)."""
    if args.file or args.tot:
        if args.first is not None or args.blocks:
            raise UsageError("--first and --blocks are for --generated, not --file or --tot")
        found = _tot_set() if args.tot else _file(args.file)
        # The bundled set keeps its file's name, so results files of --tot and of
        # --file mini0505.json key their runs alike.
        name = _tot_name() if args.tot else Path(args.file).name
        rows = list(range(len(found)))
        picked = rows[parse_range(args.rows)] if args.rows else rows
        if not picked:
            raise UsageError(f"the range {args.rows!r} selects no rows (the file has {len(found)})")
        chosen = [Mini(found[i], f"{name} row {i}") for i in picked]
    else:
        if args.rows:
            raise UsageError("--range selects rows of --file or --tot")
        n = 20 if args.generated is None else args.generated
        if not 1 <= n <= GENERATED_MAX:
            raise UsageError(f"--generated takes 1 to {GENERATED_MAX} minis, not {n}")
        first = 0 if args.first is None else args.first
        if not 0 <= first <= 2**31:
            raise UsageError(f"--first is 0 to {2**31}, not {first}")
        kind = "blocked " if args.blocks else ""
        chosen = [
            Mini(_generated(first + i, bool(args.blocks)), f"{kind}mini seed {first + i}")
            for i in range(n)
        ]
    for mini in chosen:
        _domain(mini)
    return chosen


COMMANDS = KindCommands(
    add_puzzles_arguments=add_puzzles_arguments,
    puzzles=puzzles,
    puzzles_help="print, check (--load FILE --check) or generate (--generate) mini crosswords",
    solver=SolverCommands(
        add_solve_arguments=add_solve_arguments,
        solve_puzzle=solve_puzzle,
        add_bench_arguments=add_bench_arguments,
        bench_hands=bench_hands,
        domain=_domain,
    ),
)
"""Mini crosswords' commands."""
