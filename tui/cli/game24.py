"""The Game of 24 on the command line: its flags and commands.

* ``ponder puzzles 24``: the catalogue of all 1,820 hands of 1-13 (``--level``, ``--json``),
  every distinct solution of a hand (``--solve HAND``), or one hand at random (``--pick``).
* ``ponder solve 24 HAND [--target N]``: the hand a method plays.
* ``ponder bench 24 [--hardest N | --hands H | --file F [--range A:B]]``: the hands a
  benchmark runs.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, cast

from tui.cli.kinds import KindCommands, SolvePuzzle, SolverCommands
from tui.cli.usage import UsageError
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    from puzzles.game24 import Hand
    from solver.domains.game24 import Game24Domain

__all__ = ["COMMANDS"]

CATALOGUE_SIZE = 1820
HARDEST_DEFAULT = 100


def _hand(text: str, target: int = 24) -> Hand:
    from puzzles.game24 import Hand, HandError

    try:
        return Hand.parse(text, target)
    except HandError as exc:
        raise UsageError(f"bad hand {text!r}: {exc}") from exc


def _domain(hand: Hand) -> Game24Domain:
    from solver.kinds.game24 import KIND

    return cast("Game24Domain", KIND.make_domain(hand))


# ------------------------------------------------------------------ ponder puzzles 24


def add_puzzles_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--solve", metavar="HAND", help="print every distinct solution of a hand")
    p.add_argument("--level", help="easy, medium, hard, expert or unsolvable")
    p.add_argument("--pick", action="store_true", help="pick one hand at random (see --seed)")
    p.add_argument("--seed", type=int, default=None, metavar="N", help="seed for --pick (0)")
    p.add_argument("--json", action="store_true", help="JSON for machines")


def puzzles(args: argparse.Namespace) -> int:
    """``ponder puzzles 24``: the exit code."""
    from puzzles.game24.catalogue import LEVELS, catalogue, pick
    from puzzles.game24.solve import solutions

    if args.solve:
        hand = _hand(args.solve)
        found = solutions(hand)
        if args.json:
            print(json.dumps({"hand": str(hand), "solutions": found}))
        else:
            if not found:
                print(f"{hand}: no solution")
            for s in found:
                print(f"{s} = {hand.target}")
        return ExitCode.OK if found else ExitCode.NOT_SOLVED
    if args.level and args.level not in LEVELS:
        raise UsageError(f"unknown level {args.level!r}; choose from {', '.join(LEVELS)}")
    if args.pick:
        try:
            print(pick(args.level, args.seed if args.seed is not None else 0))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        return ExitCode.OK
    entries = [e for e in catalogue() if not args.level or e.level == args.level]
    if args.json:
        for e in entries:
            print(
                json.dumps(
                    {
                        "hand": e.hand.key,
                        "solvable": e.solvable,
                        "solutions": e.solutions,
                        # JSON has no infinity: an unsolvable hand has no rating.
                        "difficulty": round(e.difficulty, 3) if e.solvable else None,
                        "level": e.level,
                    }
                )
            )
        return ExitCode.OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Game of 24 catalogue · {len(entries)} hands")
    for col in ("hand", "solvable", "solutions", "difficulty", "level"):
        table.add_column(col, justify="left" if col in ("hand", "level") else "right")
    for e in entries:
        table.add_row(
            e.hand.key,
            "yes" if e.solvable else "no",
            str(e.solutions),
            f"{e.difficulty:.2f}" if e.solvable else "-",
            e.level,
        )
    Console(highlight=False).print(table)
    return ExitCode.OK


# ------------------------------------------------------------------ ponder solve 24


def add_solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="HAND", help='the hand, e.g. "4 7 8 8"')
    p.add_argument("--target", type=int, default=24, metavar="N", help="the number to make (24)")


def solve_puzzle(args: argparse.Namespace) -> SolvePuzzle:
    from puzzles.game24.solve import is_solvable
    from solver.kinds.game24 import KIND

    hand = _hand(args.puzzle, args.target)
    notes = (
        () if is_solvable(hand) else (f"{hand} has no solution: no method can make {hand.target}",)
    )
    return SolvePuzzle(_domain(hand), KIND.header_of(hand), notes)


# ------------------------------------------------------------------ ponder bench 24


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--file",
        metavar="FILE",
        help="ToT's 24.csv or a file with one hand per line; tot-24-rows-900-999: the 100 "
        "hands of ToT's published runs (see --replay)",
    )
    src.add_argument(
        "--hardest",
        type=int,
        metavar="N",
        help=f"the N hardest solvable hands of our catalogue ({HARDEST_DEFAULT})",
    )
    src.add_argument(
        "--hands", metavar="HANDS", help='hands separated by ";", e.g. "4 7 8 8; 1 1 4 6"'
    )
    p.add_argument(
        "--range", dest="rows", metavar="A:B", help="rows of --file, e.g. 900:1000 (ToT's hard set)"
    )


def bench_hands(args: argparse.Namespace) -> list[Hand]:
    if args.file:
        from puzzles.game24.loaders import PuzzleFileError, load_hands
        from solver.published import hands_file

        try:
            hands = load_hands(hands_file(args.file), args.rows)
        except (PuzzleFileError, ValueError) as exc:
            raise UsageError(str(exc)) from exc
    elif args.hands:
        hands = [_hand(h) for h in args.hands.split(";") if h.strip()]
    else:
        if args.rows:
            raise UsageError("--range selects rows of --file")
        from puzzles.game24.catalogue import hardest

        # 0 is a number asked for, not "unset": it is refused, never read as the default.
        n = HARDEST_DEFAULT if args.hardest is None else args.hardest
        if not 1 <= n <= CATALOGUE_SIZE:
            raise UsageError(f"--hardest takes 1 to {CATALOGUE_SIZE} hands, not {n}")
        hands = hardest(n)
    if not hands:
        raise UsageError("no hands to run")
    return hands


COMMANDS = KindCommands(
    add_puzzles_arguments=add_puzzles_arguments,
    puzzles=puzzles,
    puzzles_help="the catalogue of all 1,820 hands of 1-13; --solve HAND, --pick",
    solver=SolverCommands(
        add_solve_arguments=add_solve_arguments,
        solve_puzzle=solve_puzzle,
        add_bench_arguments=add_bench_arguments,
        bench_hands=bench_hands,
        domain=_domain,
    ),
)
"""The Game of 24's commands."""
