"""The ``ponder`` parser and dispatch.

Each command's module adds its own sub-parser and sets ``run`` (what to call with the parsed
arguments) and ``parser`` (whose usage a bad command line is shown with). Every bad input is
one :class:`~tui.cli.usage.UsageError`, reported here with exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui.cli import bench, library, replay, serve, solve, verify
from tui.cli.kinds import add_puzzles_parser
from tui.cli.usage import HelpFormatter, Parser, UsageError, visible
from tui.exitcodes import ExitCode, exit_codes_help

__all__ = ["build_parser", "main"]


def build_parser() -> Parser:
    """The whole command line: the commands, and one sub-parser per puzzle kind under each."""
    codes = exit_codes_help()
    common = {"epilog": codes, "formatter_class": HelpFormatter}
    parser = Parser(
        prog="ponder",
        description="A terminal puzzle arcade and reasoning tutor. Without a command, opens "
        "the app.",
        **common,  # type: ignore[arg-type]
    )
    parser.set_defaults(run=_open_app, parser=parser)
    sub = parser.add_subparsers(metavar="COMMAND", title="commands")
    solve.add_parser(sub, **common)
    bench.add_parser(sub, **common)
    add_puzzles_parser(sub, **common)
    verify.add_parser(sub, **common)
    replay.add_parser(sub, **common)
    serve.add_parser(sub, **common)
    library.add_parser(sub, **common)
    return parser


def _open_app(args: argparse.Namespace) -> int:
    from tui.app import run_app

    return run_app()


def parse_args(parser: Parser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line; a flag the command does not have is a usage error that says
    which puzzle kind has it, when another kind does."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        message = f"unrecognized arguments: {' '.join(extras)}"
        hints: dict[str, str] = getattr(args, "flag_hints", {})
        notes = [hints[flag] for flag in (e.split("=")[0] for e in extras) if flag in hints]
        if notes:
            message += f" ({'; '.join(dict.fromkeys(notes))})"
        raise UsageError(message, args.parser.format_usage())
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ponder`` with ``argv`` (the process's arguments when None); the exit code."""
    try:
        args = parse_args(build_parser(), argv)
        code: int = args.run(args)
        return code
    except UsageError as exc:
        # Messages quote files, servers and traces: their control characters are made visible.
        if exc.usage:
            print(visible(exc.usage), end="", file=sys.stderr)
        print(f"ponder: {visible(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        print("ponder: stopped", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
