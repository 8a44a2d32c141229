"""``ponder puzzles KIND`` commands for the kinds beyond the Game of 24.

Every kind adds its options to the one shared ``puzzles`` parser and runs with the parsed
arguments; what they share lives here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from puzzles.text import json_line, visible
from tui.exitcodes import ExitCode

__all__ = ["CommandError", "add_missing", "json_line", "option", "run_command", "say", "visible"]


class CommandError(Exception):
    """Bad input from the person at the keyboard: printed plainly, exit code 2."""


def add_missing(parser: argparse.ArgumentParser, flag: str, **options: Any) -> None:
    """Add ``flag`` unless another puzzle kind already did (they share one parser)."""
    if flag not in parser._option_string_actions:  # argparse has no public view of these
        parser.add_argument(flag, **options)


def option(args: argparse.Namespace, name: str) -> Any:
    """An option's value; absent (another kind's parser did not add it) means unset."""
    return getattr(args, name, None)


def run_command(body: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command; bad input is printed plainly and exits 2, never a traceback."""
    try:
        return body(args)
    except CommandError as exc:
        print(f"ponder: {visible(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE


def say(text: str) -> None:
    """Print text that holds outside text (a puzzle file's clues, titles, problems): its
    control characters are shown as visible escapes, never sent to the terminal."""
    print(visible(text))
