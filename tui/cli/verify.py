"""``ponder verify``: every arithmetic claim in any text, checked exactly.

The checker people can point at any model's output or a worked solution: each ``expression =
value`` in the text is read whole (never a shortened piece of it) through ``puzzles.arith``
and judged exact, approximate (a fair rounding, shown with the exact value), wrong (with the
right value) or invalid (with why it cannot be read).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from typing import IO, TYPE_CHECKING, Any

from puzzles.arith import (
    MAX_LENGTH,
    Claim,
    ClaimStatus,
    extract_claims,
    format_number,
)
from puzzles.files import MAX_FILE_BYTES, PuzzleFileError, read_puzzle_file, too_large
from tui.cli.usage import UsageError, json_line, say, visible
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    from tui.cli.kinds import _SubParsers

__all__ = ["add_parser", "run", "verify_text"]

_LONGEST_LINE = MAX_LENGTH * 20
"""Longest line scanned for claims, in characters; a longer line is reported, not skipped."""

_MARKS = {
    ClaimStatus.EXACT: "✓",
    ClaimStatus.APPROX: "≈",
    ClaimStatus.WRONG: "✗",
    ClaimStatus.INVALID: "?",
}
_WORDS = {
    ClaimStatus.EXACT: "exact",
    ClaimStatus.APPROX: "approximate",
    ClaimStatus.WRONG: "wrong",
    ClaimStatus.INVALID: "invalid",
}


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """Add ``verify`` to the command line (``common``: the epilog and formatter every
    command shares)."""
    p = sub.add_parser(
        "verify",
        help="check every arithmetic claim in a text (a model's reply, a worked solution)",
        description="Print every arithmetic claim (expression = value) in FILE, or in the "
        "standard input when FILE is '-' or absent, with its exact verdict: ✓ exact, ≈ a fair "
        "rounding (with the exact value), ✗ wrong (with the right value), ? invalid (why it "
        "cannot be read). Exit 0 when no claim is wrong or invalid, 1 when some is, 2 on bad "
        "input.",
        **common,
    )
    p.set_defaults(run=run, parser=p)
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="a text file, or -")
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per claim: text, verdict (exact, approx, wrong, invalid), value "
        "(the exact left side, p/q or an integer), claimed, line, reason, read_as, "
        "approximate (written with ≈, ~, approx., about, roughly)",
    )


def _read(path: str, stdin: IO[bytes]) -> str:
    if path == "-":
        if sys.stdin.isatty():
            print(
                "ponder verify: reading the text from the terminal; end it with Ctrl-D",
                file=sys.stderr,
            )
        data = stdin.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise UsageError(f"standard input {too_large(len(data))}")
        where = "standard input"
    else:
        try:
            data = read_puzzle_file(path, "text file")
        except PuzzleFileError as exc:
            raise UsageError(str(exc)) from None
        where = path
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: not UTF-8 text (byte {exc.start + 1} cannot be read)") from None


def verify_text(text: str) -> list[tuple[int, Claim]]:
    """Every claim in ``text`` with its line number (claims never span lines)."""
    found: list[tuple[int, Claim]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > _LONGEST_LINE:
            problem = f"the line is too long to check ({len(line):,} characters; at most "
            problem += f"{_LONGEST_LINE:,})"
            shown = line[:60] + "…"
            claim = Claim(shown, shown, "", ClaimStatus.INVALID, None, None, problem)
            found.append((number, claim))
            continue
        if any(sign in line for sign in "=≈~"):
            found += [(number, claim) for claim in extract_claims(line, limit=len(line))]
    return found


def _record(number: int, claim: Claim) -> dict[str, object]:
    return {
        "text": claim.text,
        "verdict": str(claim.status),
        "value": None if claim.exact is None else format_number(claim.exact),
        "claimed": None if claim.claimed is None else format_number(claim.claimed),
        "line": number,
        "reason": claim.reason or None,
        "read_as": claim.lhs,
        "approximate": claim.approximate,
    }


_SIGN = re.compile(r"=|≈|~")


def _describe(number: int, claim: Claim) -> str:
    mark = _MARKS[claim.status]
    head = f"{number:>4}  {mark} {claim.text}"
    written = _SIGN.split(claim.text, maxsplit=1)[0].strip()
    notes = []
    if claim.lhs != written and claim.status is not ClaimStatus.INVALID:
        notes.append(f"read as {claim.lhs}")
    if claim.status is ClaimStatus.APPROX and claim.exact is not None:
        notes.append(f"exactly {format_number(claim.exact)}")
    elif claim.status is ClaimStatus.WRONG and claim.exact is not None:
        notes.append(f"is {format_number(claim.exact)}")
    elif claim.status is ClaimStatus.INVALID:
        notes.append(claim.reason)
    return head + (f"   ({'; '.join(notes)})" if notes else "")


def run(args: argparse.Namespace) -> int:
    """``ponder verify``: exit 0 when every claim holds, 1 when one is wrong or invalid; bad
    input is a :class:`UsageError` (exit 2)."""
    text = _read(args.file, sys.stdin.buffer)
    found = verify_text(text)
    if args.json:
        for number, claim in found:
            print(json_line(_record(number, claim)))
    else:
        for number, claim in found:
            say(_describe(number, claim))
        counts = Counter(claim.status for _, claim in found)
        if not found:
            print("no arithmetic claims found")
        else:
            parts = [f"{counts[s]} {_WORDS[s]}" for s in ClaimStatus if counts[s]]
            plural = "s" if len(found) != 1 else ""
            print(visible(f"{len(found)} claim{plural}: " + ", ".join(parts)))
    bad = any(claim.status in (ClaimStatus.WRONG, ClaimStatus.INVALID) for _, claim in found)
    return ExitCode.NOT_SOLVED if bad else ExitCode.OK
