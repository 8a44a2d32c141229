"""The offline engine's two Iteration-of-Thought roles for the Game of 24, read from the prompt.

Everything comes from the messages, as a model would read them: the numbers and the target
from the query, the turn from "This is turn i of at most T", the dialogue so far from the
transcript lines, the guide's words from "Your guide now says:" (absent when the answerer is
asked to answer on its own first: then it gives its habitual first attempt), and whether a
final answer is allowed from the closing rule. ``call.context`` is never read.

The guide re-does the solver's arithmetic the way a careful person would (which numbers the
expression uses, what it comes to), points at the mistake it sees and says stop when it
believes the answer is right; it misjudges either way at the rates of
:mod:`solver.model.offline.critics` (a wrong answer waved through: the premature stop the
paper warns about). The answerer starts from its habitual first attempt (like CoT), tries
harder each turn it is told it is wrong, and judges each attempt itself, as fallibly as those
rates say (it stops at the first attempt it believes, and says final when it believes the
answer it gives, right or wrong); in GIoT's forced turns it sometimes wanders off an answer
that was right.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from puzzles.arith import ArithError, format_number, format_operand, parse
from solver.model.markers import IOT_GUIDE_SAYS
from solver.model.offline import critics
from solver.model.offline.writing import expression as _expression
from solver.roles import Purpose

if TYPE_CHECKING:
    from solver.model.offline.game24 import Play

__all__ = ["GUIDE", "RESPOND", "iot_reply"]

GUIDE = Purpose.IOT_GUIDE
RESPOND = Purpose.IOT_ANSWER

_NUMBERS = re.compile(r"The numbers are:\s*([-\d/ ]+?)\s*\.?\s*$", re.MULTILINE)
_TARGET = re.compile(r"to make\s+(-?\d+)")
_TURN = re.compile(r"This is turn (\d+) of at most (\d+)")
_ANSWER = re.compile(r"^Solver's answer:\s*(.*)$", re.MULTILINE)
_GUIDE_SAYS = re.compile(rf"^{re.escape(IOT_GUIDE_SAYS)}\s*(.*)$", re.MULTILINE)


def _prompt_text(messages: Any) -> str:
    return "\n".join(m.content for m in messages if m.role == "user")


def _read_numbers(text: str) -> tuple[tuple[Fraction, ...], Fraction] | None:
    m = _NUMBERS.search(text)
    t = _TARGET.search(text)
    if not m:
        return None
    try:
        nums = tuple(Fraction(x) for x in m.group(1).split())
    except (ValueError, ZeroDivisionError):
        return None
    return nums, Fraction(int(t.group(1))) if t else Fraction(24)


def _judge(answer: str, nums: tuple[Fraction, ...], target: Fraction) -> str | None:
    """What is wrong with ``answer`` as a careful reader sees it; None when it looks right."""
    if not answer or answer == "(none)":
        return "You have not given an expression yet."
    try:
        expr = parse(answer)
        value = expr.value
        used = Counter(leaf.value for leaf in expr.leaves())
    except (ArithError, ZeroDivisionError):
        return f"I cannot read {answer!r} as arithmetic: write one expression with + - * /."
    want = Counter(nums)
    extra = used - want
    missing = want - used
    if extra or missing:
        parts = []
        for n in sorted(extra):
            if want[n] > 0:
                parts.append(f"you use {format_number(n)} more often than it is given")
            else:
                parts.append(f"{format_number(n)} is not one of the numbers")
        if missing:
            parts.append("you leave out " + ", ".join(format_number(n) for n in missing))
        return "Check the numbers: " + "; ".join(p.strip() for p in parts) + "."
    if value != target:
        return (
            f"Your expression comes to {format_number(value)}, not {format_number(target)}. "
            "Recompute it step by step and try another pair first."
        )
    return None


def _opening(nums: tuple[Fraction, ...], target: Fraction, rng: random.Random) -> str:
    t = int(target)
    factors = [d for d in range(2, min(abs(t), 1000)) if t and t % d == 0][:4]
    hint = rng.choice(
        (
            f"Look for two numbers that make a factor of {t} such as "
            f"{', '.join(map(str, factors)) or t}, then use the rest to make its partner.",
            "Start with the largest numbers: can one operation bring them close to the target?",
            "List a few pairs and what they give before you commit to one.",
        )
    )
    numbers = " ".join(format_number(n) for n in nums)
    return f"You have {numbers} and need {t}, each number exactly once. {hint}"


def _guide(engine: Play, text: str, rng: random.Random) -> dict[str, Any]:
    read = _read_numbers(text)
    if read is None:
        return {"guidance": "Restate the numbers and the goal, then try again.", "stop": False}
    nums, target = read
    answers = _ANSWER.findall(text)
    if not answers:
        return {"guidance": _opening(nums, target, rng), "stop": False}
    last = answers[-1].strip()
    problem = _judge(last, nums, target)
    # Read as a careful person would, then misjudged either way at the sourced rates
    # (critics.GUIDE_*): a wrong answer waved through is the premature stop the paper warns of.
    if critics.believes(
        problem is None,
        rng,
        false_sure=critics.GUIDE_FALSE_STOP,
        missed=critics.GUIDE_MISSED_STOP,
    ):
        return {
            "guidance": "Your answer uses each number once and makes the target.",
            "stop": True,
        }
    if problem is None:  # a right answer it does not see is right
        return {"guidance": "Check your answer once more, step by step.", "stop": False}
    return {"guidance": problem, "stop": False}


def _trusts(right: bool, rng: random.Random) -> bool:
    """Whether the answerer believes an answer that is (``right``) right or not: misjudged at
    the sourced rates (critics.ANSWERER_*)."""
    return critics.believes(
        right,
        rng,
        false_sure=critics.ANSWERER_FALSE_FINAL,
        missed=critics.ANSWERER_MISSED_FINAL,
    )


def _believes(
    answer: str, nums: tuple[Fraction, ...], target: Fraction, rng: random.Random
) -> bool:
    """Whether the answerer believes ``answer`` right, read as the guide reads it."""
    return _trusts(_judge(answer, nums, target) is None, rng)


def _respond(engine: Play, text: str, rng: random.Random, temp: float) -> dict[str, Any]:
    read = _read_numbers(text)
    if read is None:
        return {
            "explanation": "I cannot find the numbers.",
            "answer": "",
            "uncertainty": "which numbers to use",
            "final": False,
        }
    nums, target = read
    engine.target, engine.nice = target, _nice_for(target)
    answers = [a.strip() for a in _ANSWER.findall(text)]
    said = _GUIDE_SAYS.findall(text)
    guidance = said[-1] if said else ""
    closing = "definitive final answer now" in text
    discuss = "Do not give a final answer yet" in text
    tried = len(answers)
    if closing:
        # The closing call: the last answer the discussion settled on, unless it looks wrong.
        for a in reversed(answers):
            if a and a != "(none)" and _believes(a, nums, target, rng):
                return _reply(a, "From the discussion, this answer works.", "", True)
    right_before = bool(answers) and _believes(answers[-1], nums, target, rng)
    praised = "makes the target" in guidance
    if right_before and (praised or rng.random() < 0.7) and not (discuss and rng.random() < 0.3):
        return _reply(answers[-1], "I keep my answer.", "", not discuss)
    # Each attempt is judged by the answerer itself, as fallibly as the rates say (it does
    # not know from its arithmetic whether the attempt made the target): it stops at the
    # first it believes, and says final (AIoT) when it believes the one it gives.
    path: list[Any] = []
    ok = False
    if tried == 0:
        habit = random.Random(f"{engine.seed}|habit|{' '.join(map(str, sorted(nums)))}")
        path, hit = engine.walk(nums, habit, 0.3)
        ok = _trusts(hit, rng)
    for _ in range(1 + 2 * tried):  # told it is wrong, it tries harder each turn
        if ok:
            break
        path, hit = engine.walk(nums, rng, temp)
        ok = _trusts(hit, rng)
    lines = []
    for a, op, b, c, _rest in path:
        result = engine._write(c, rng, temp)
        lines.append(f"{format_operand(a)} {op} {format_operand(b)} = {result}")
    answer = _expression(nums, path)
    doubt = "" if ok else f"I am not sure this makes exactly {format_number(target)}."
    final = not discuss and ok
    return _reply(answer, "; ".join(lines) or "I combined the numbers.", doubt, final or closing)


def _reply(answer: str, explanation: str, doubt: str, final: bool) -> dict[str, Any]:
    return {"explanation": explanation, "answer": answer, "uncertainty": doubt, "final": final}


def _nice_for(target: Fraction) -> frozenset[Fraction]:
    from solver.model.offline.writing import nice as _nice

    return _nice(target)


def iot_reply(engine: Play, role: Purpose, messages: Any, rng: random.Random, temp: float) -> str:
    """The engine's JSON reply to an IoT call, from the prompt text alone."""
    text = _prompt_text(messages)
    if role == GUIDE:
        data = _guide(engine, text, rng)
    else:
        data = _respond(engine, text, rng, temp)
    return json.dumps(data, ensure_ascii=False)
