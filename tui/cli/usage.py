"""What every command shares: the one usage error, the parser that raises it, and printing
outside text safely.

Standard library and ``puzzles.text`` only: ``ponder --help`` imports this.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from puzzles.text import json_line, visible

__all__ = ["HelpFormatter", "Parser", "UsageError", "json_line", "say", "visible"]


class UsageError(Exception):
    """Bad input from the person at the keyboard: printed plainly, exit code 2.

    ``usage`` is the usage line of the command that was misused, printed above the message
    when the parser itself refused the command line.
    """

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class HelpFormatter(argparse.HelpFormatter):
    """Wraps one-line descriptions to the terminal as usual, but keeps text written over
    several lines (the exit codes) as it is written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError`, so every bad command line
    is reported in one place (:func:`tui.cli.main.main`) with one exit code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.format_usage())


def say(text: str) -> None:
    """Print text that holds outside text (a puzzle file's clues, titles, problems): its
    control characters are shown as visible escapes, never sent to the terminal."""
    print(visible(text))
