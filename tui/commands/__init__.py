"""``ponder puzzles KIND`` commands for the kinds beyond the Game of 24.

Every kind adds its options to the one shared ``puzzles`` parser and runs with the parsed
arguments; what they share lives here.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["CommandError", "add_missing"]


class CommandError(Exception):
    """Bad input from the person at the keyboard: printed plainly, exit code 2."""


def add_missing(parser: argparse.ArgumentParser, flag: str, **options: Any) -> None:
    """Add ``flag`` unless another puzzle kind already did (they share one parser)."""
    if flag not in parser._option_string_actions:  # argparse has no public view of these
        parser.add_argument(flag, **options)
