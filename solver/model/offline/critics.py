"""How often the offline engine's critics are wrong, measured from a real model's replies.

Where the engine judges (ToT's value and answer judge, IoT's guide and the answerer's own
``final`` flag, BoT's analysis), it first works the text out with its own arithmetic (the
numbers shown, every way to combine them; the answer's numbers and what it comes to), and then
states a verdict that is wrong at the rates below, drawn from the seeded generator of the
sample. The rates are the whole of a critic's fallibility: none is chosen by hand.

Every rate comes from Tree of Thoughts' published GPT-4 run on rows 900-999 of its 24.csv
(temperature 0.7; bundled as ``solver/published/data/tot-gpt4-bfs.jsonl.gz``), measured by
``scripts/critic_rates.py``, per sample, each reply compared with what is true (whether the
numbers left can make 24; whether the answer is right). That script's output, quoted:

    value replies (per sample) by numbers left and whether they can make 24:
      1 number(s), unreachable   n=4302  sure 0.000  likely 0.011  impossible 0.513  none 0.476
      1 number(s), reachable     n=237   sure 1.000  likely 0.000  impossible 0.000  none 0.000
      2 number(s), unreachable   n=8298  sure 0.000  likely 0.254  impossible 0.733  none 0.013
      2 number(s), reachable     n=468   sure 0.987  likely 0.002  impossible 0.011  none 0.000
      3 number(s), unreachable   n=2118  sure 0.002  likely 0.828  impossible 0.153  none 0.017
      3 number(s), reachable     n=693   sure 0.391  likely 0.519  impossible 0.075  none 0.014
    answer judge replies (per sample) by whether the answer is right:
      right answers              n=348   sure 0.736  likely 0.000  impossible 0.264  none 0.000
      wrong answers              n=120   sure 0.158  likely 0.000  impossible 0.842  none 0.000

A value reply with no label word ("none") scored 0 in ToT, as ``impossible`` scores (almost)
0, so it is counted with ``impossible`` here. The run values no state of four or more numbers:
those use the three-number rates.

Neither the Iteration of Thought paper nor the Boosting of Thoughts paper reports how often
its critic is wrong (IoT only says that AIoT "often misjudges the completeness of its
responses"; BoT shows single cases, its Tables 7, 8 and 14). Their rates are therefore derived
from the ToT measurements, as each constant says.
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction

from puzzles.arith import combine

__all__ = [
    "ANALYSIS_MISSES_SLIP",
    "ANSWERER_FALSE_FINAL",
    "ANSWERER_MISSED_FINAL",
    "GUIDE_FALSE_STOP",
    "GUIDE_MISSED_STOP",
    "JUDGE_FALSE_IMPOSSIBLE",
    "JUDGE_FALSE_SURE",
    "VALUE_REACHABLE",
    "VALUE_UNREACHABLE",
    "believes",
    "can_make",
    "recommends",
    "value_label",
]

Labels = tuple[float, float, float]
"""The shares of ``sure``, ``likely`` and ``impossible`` replies."""

VALUE_REACHABLE: dict[int, Labels] = {
    1: (1.000, 0.000, 0.000),  # ToT GPT-4 log, 1 number that is 24: n=237
    2: (0.987, 0.002, 0.011),  # ToT GPT-4 log, 2 numbers that can make 24: n=468
    3: (
        0.391,
        0.519,
        0.090,
    ),  # ToT GPT-4 log, 3 numbers that can: n=693 (impossible 0.075 + none 0.014)
}
"""ToT's value critic on numbers that CAN make the target, by how many numbers are left."""

VALUE_UNREACHABLE: dict[int, Labels] = {
    1: (
        0.000,
        0.011,
        0.989,
    ),  # ToT GPT-4 log, 1 number other than 24: n=4302 (none 0.476 folded in)
    2: (0.000, 0.254, 0.746),  # ToT GPT-4 log, 2 numbers that cannot: n=8298 (none 0.013 folded in)
    3: (0.002, 0.828, 0.170),  # ToT GPT-4 log, 3 numbers that cannot: n=2118 (none 0.017 folded in)
}
"""ToT's value critic on numbers that CANNOT make the target, by how many numbers are left."""

JUDGE_FALSE_IMPOSSIBLE = 0.264
"""ToT's answer judge calls a right answer ``impossible``: ToT GPT-4 log, 92 of 348 samples."""

JUDGE_FALSE_SURE = 0.158
"""ToT's answer judge calls a wrong answer ``sure``: ToT GPT-4 log, 19 of 120 samples."""

GUIDE_FALSE_STOP = JUDGE_FALSE_SURE
"""IoT's guide waves a wrong answer through (says stop). The IoT paper reports no rate (only
that AIoT "often misjudges the completeness of its responses"): derived from ToT's answer
judge, the same question (is this answer right?) asked of GPT-4."""

GUIDE_MISSED_STOP = JUDGE_FALSE_IMPOSSIBLE
"""IoT's guide does not see that a right answer is right. No rate in the IoT paper: ToT's
answer judge on right answers, as for :data:`GUIDE_FALSE_STOP`."""

ANSWERER_FALSE_FINAL = JUDGE_FALSE_SURE
"""IoT's answerer believes its own wrong answer is right (and says final in AIoT). No rate in
the IoT paper: ToT's answer judge on wrong answers."""

ANSWERER_MISSED_FINAL = JUDGE_FALSE_IMPOSSIBLE
"""IoT's answerer doubts its own right answer. No rate in the IoT paper: ToT's answer judge on
right answers."""

ANALYSIS_MISSES_SLIP = JUDGE_FALSE_SURE
"""BoT's analysis passes a step whose written result does not hold. The BoT paper reports no
rate (Tables 7, 8 and 14 are single cases): derived from ToT's answer judge on wrong answers
(GPT-4 reading a calculation that does not hold as right). A step whose result holds is judged
by whether the numbers it leaves can still make the target, at ToT's value rates
(:func:`recommends`)."""

_SIX = ((True, "+"), (True, "*"), (True, "-"), (False, "-"), (True, "/"), (False, "/"))


@functools.lru_cache(maxsize=65536)
def _works(numbers: tuple[Fraction, ...], target: Fraction) -> bool:
    if len(numbers) == 1:
        return numbers[0] == target
    n = len(numbers)
    for i in range(n):
        for j in range(i + 1, n):
            rest = tuple(numbers[k] for k in range(n) if k not in (i, j))
            a, b = numbers[i], numbers[j]
            for x, op in _SIX:
                c = combine(a if x else b, op, b if x else a)
                if c is not None and _works(tuple(sorted((*rest, c))), target):
                    return True
    return False


def can_make(numbers: tuple[Fraction, ...], target: Fraction) -> bool:
    """The critic's own working: whether ``numbers`` (as read from the prompt) can make
    ``target``, every way to combine them tried (only the verdict built on it is fallible)."""
    return _works(tuple(sorted(numbers)), target)


def _rates(table: dict[int, Labels], size: int) -> Labels:
    return table[min(max(size, 1), 3)]


def value_label(can: bool, size: int, rng: random.Random) -> str:
    """ToT's value word for ``size`` numbers that can (``can``) make the target or not, drawn
    at the measured shares."""
    sure, likely, _ = _rates(VALUE_REACHABLE if can else VALUE_UNREACHABLE, size)
    r = rng.random()
    return "sure" if r < sure else "likely" if r < sure + likely else "impossible"


def recommends(can: bool, size: int, rng: random.Random) -> bool:
    """Whether BoT's analysis keeps a step that leaves ``size`` numbers, which can (``can``)
    make the target or not: it rejects the step when ToT's value critic would call the numbers
    ``impossible`` (``sure`` and ``likely`` both keep a state in ToT)."""
    return value_label(can, size, rng) != "impossible"


def believes(right: bool, rng: random.Random, *, false_sure: float, missed: float) -> bool:
    """A critic's verdict on an answer that is (``right``) right or not: wrong at
    ``false_sure`` on a wrong one and at ``missed`` on a right one."""
    return rng.random() >= missed if right else rng.random() < false_sure
