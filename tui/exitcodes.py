"""Exit codes: the one catalogue every ``ponder`` command returns from.

Scripts branch on these, so each code means one thing everywhere: a run that was not solved
(1) is never confused with a server that failed (3). ``ponder --help`` and docs/cli.md list them
from here. Standard library only: ``ponder --help`` imports it.
"""

from __future__ import annotations

import textwrap
from enum import IntEnum

__all__ = ["ExitCode", "exit_codes_help"]


class ExitCode(IntEnum):
    """What a ``ponder`` command's exit status means; ``meaning`` says it in words."""

    meaning: str

    def __new__(cls, value: int, meaning: str) -> ExitCode:
        member = int.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    OK = (0, "solved, or the command did what was asked")
    NOT_SOLVED = (1, "not solved, or a check found something wrong")
    USAGE = (
        2,
        "bad input or usage: a bad option, hand or file, or a server that cannot be used "
        "as configured (unreachable, unknown model, key refused)",
    )
    SERVER_FAILED = (
        3,
        "the run did not complete: the model server failed after retries (errors, "
        "timeouts, cut or broken replies) or an internal error stopped it; bench: a method "
        "completed none of its runs",
    )
    INTERRUPTED = (130, "stopped with Ctrl-C")


def exit_codes_help() -> str:
    """The catalogue as an ``--help`` epilog: one line per code."""
    lines = ["exit codes:"]
    for code in ExitCode:
        lines += textwrap.wrap(
            code.meaning, 78, initial_indent=f"  {code.value:<5}", subsequent_indent=" " * 7
        )
    return "\n".join(lines)
