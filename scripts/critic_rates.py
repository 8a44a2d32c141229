"""Measure how often GPT-4's critics were wrong in Tree of Thoughts' published Game of 24 run.

The offline engine's critics (ToT's value and answer judge, IoT's guide and the answerer's own
``final`` flag, BoT's analysis) are wrong at rates read from real-model behaviour, not chosen
by hand. This script reads the bundled recording of ToT's GPT-4 run (temperature 0.7, rows
900-999 of ToT's ``24.csv``; ``solver/published/data/tot-gpt4-bfs.jsonl.gz``, imported by
``scripts/import_tot_runs.py``) and tells each reply apart by what is true:

* **value** replies (``sure`` / ``likely`` / ``impossible``, n = 3 a state): whether the numbers
  left can in fact make 24, found here by trying every way (not by the engine);
* **judge** replies on a finished answer: whether the answer is right
  (:func:`puzzles.game24.rules.check_answer`);
* **proposal** lines (``a op b = c (left: ...)``): whether ``a op b`` comes to ``c``.

A value sample whose words ToT did not log (a chain forced to 0) is left out; a sample whose
last line was no label word (ToT added 0 for it, as for ``impossible``) is counted as "none".

Usage: ``python scripts/critic_rates.py [recording]``; it prints the tables quoted in
``solver/model/offline/critics.py`` and ``docs/methods.md``.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

from puzzles.arith import ArithError, combine, parse_number
from puzzles.game24 import Hand
from puzzles.game24.rules import check_answer

DEFAULT = Path(__file__).resolve().parent.parent / "solver/published/data/tot-gpt4-bfs.jsonl.gz"
LABELS = ("sure", "likely", "impossible", "none")
_LINE = re.compile(r"^\s*(\S+)\s*([-+*/])\s*(\S+)\s*=\s*(\S+)")


@functools.cache
def reaches(numbers: tuple[Fraction, ...], target: Fraction) -> bool:
    """Whether ``numbers`` (any rationals) can make ``target``, trying every way."""
    if len(numbers) == 1:
        return numbers[0] == target
    n = len(numbers)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            rest = tuple(numbers[k] for k in range(n) if k not in (i, j))
            for op in "+-*/":
                c = combine(numbers[i], op, numbers[j])
                if c is not None and reaches(tuple(sorted((*rest, c))), target):
                    return True
    return False


def _label(text: str) -> str | None:
    """A value sample's word; None when ToT did not log it."""
    if text in LABELS[:3]:
        return text
    if "set this state's value to 0" in text:
        return None
    return "none"


def _number(text: str) -> Fraction | None:
    try:
        return parse_number(text.strip("()"))
    except (ArithError, ZeroDivisionError):
        return None


def measure(path: Path) -> dict[str, object]:
    values: dict[tuple[int, bool], Counter[str]] = {}
    judge: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}
    lines = wrong = unread = 0
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        next(fh)  # the header
        for raw in fh:
            rec = json.loads(raw)
            purpose, ctx, texts = rec["purpose"], rec["context"], rec["reply"]["texts"]
            if purpose == "value":
                nums = tuple(_number(x) for x in rec["match"]["numbers"])
                if any(x is None for x in nums):
                    continue
                can = reaches(tuple(sorted(x for x in nums if x is not None)), Fraction(24))
                tally = values.setdefault((len(nums), can), Counter())
                for text in texts:
                    word = _label(text)
                    if word is not None:
                        tally[word] += 1
            elif purpose == "judge":
                right = check_answer(Hand(tuple(ctx["hand"]), 24), ctx["answer"] or "").ok
                for text in texts:
                    judge[right][_label(text) or "none"] += 1
            elif purpose == "propose":
                for line in "\n".join(texts).splitlines():
                    m = _LINE.match(line)
                    if not m:
                        continue
                    a, b, c = _number(m[1]), _number(m[3]), _number(m[4])
                    if a is None or b is None or c is None:
                        unread += 1
                        continue
                    lines += 1
                    exact = combine(a, m[2], b)
                    if exact is None or abs(exact - c) >= Fraction(1, 100):
                        wrong += 1
    return {"values": values, "judge": judge, "lines": lines, "wrong": wrong, "unread": unread}


def _row(name: str, tally: Counter[str]) -> str:
    total = sum(tally.values())
    shares = "  ".join(f"{w} {tally[w] / total:.3f}" if total else f"{w} -" for w in LABELS)
    return f"{name:<34} n={total:<5} {shares}"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    out = measure(path)
    print(f"source: {path.name}")
    print("\nvalue replies (per sample) by numbers left and whether they can make 24:")
    values = out["values"]
    assert isinstance(values, dict)
    for (size, can), tally in sorted(values.items()):
        print(_row(f"  {size} number(s), {'reachable' if can else 'unreachable'}", tally))
    print("\nanswer judge replies (per sample) by whether the answer is right:")
    judge = out["judge"]
    assert isinstance(judge, dict)
    for right in (True, False):
        print(_row(f"  {'right' if right else 'wrong'} answers", judge[right]))
    lines, wrong = out["lines"], out["wrong"]
    assert isinstance(lines, int) and isinstance(wrong, int)
    print(
        f"\nproposal lines: {lines} read, {wrong} with a wrong result "
        f"({wrong / max(1, lines):.4f}); {out['unread']} not read as numbers"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
