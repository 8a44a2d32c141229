"""The offline engine: a seeded heuristic player that answers like an LLM, with no network.

It reads only the messages of each call, exactly as a model would: the hand and the target,
the numbers left, the steps so far, the answer to judge, the chain to analyse and BoT's
experience are all parsed from the prompt text (``call.context`` is never read), and so is
the role: what a prompt asks for is told by the sentence it is known by
(:mod:`solver.model.markers`, which the prompt builders write), never by ``call.purpose``. It
answers in exactly the text format the prompt asks for, so the same parsers run as for a real
model. A prompt it cannot read as a Game of 24 prompt gets a ``bad_request`` error.

It is a player, not an oracle: it never sees stored answers and never runs the exact checker
or an exhaustive solver. It looks ahead only a few random tries deep, prefers "nice" numbers
(factors of 24, whole numbers), rarely thinks of fractions, sometimes slips in arithmetic,
and misjudges states, answers and steps either way: its critics (ToT's value and answer judge,
BoT's analysis, IoT's guide and answerer) work the text out, then give a verdict that is wrong
as often as GPT-4's was in ToT's published run (:mod:`solver.model.offline.critics`). It learns only
from the experience text in a BoT prompt: a step an analysis rejected is avoided from the
same position (the same numbers on the table) and steps of chains it recommended are
preferred, so later iterations do better where the heuristic went wrong. It also picks up
habits from the worked examples a prompt shows (IO's and CoT's shots, BoT+CoT's examples):
how their solutions end (two factors of the target multiplied, a sum, a difference) and
which operations they use, read from the steps and answers as written, and leans its own
steps that way. A habit is a guess that can mislead on a hand that needs another ending; a
prompt without worked examples gets exactly the replies it got before they were read.

Replies are a pure function of (seed, prompt, sample index, sampling), so a run is
reproducible whatever order concurrent calls finish in.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from puzzles.arith import (
    ArithError,
    BinOp,
    Expr,
    Neg,
    combine,
    format_number,
    format_operand,
    parse,
    parse_number,
)
from solver.model.base import Call, ModelError
from solver.model.markers import (
    G24_ANALYSIS,
    G24_CONDENSE,
    G24_COT,
    G24_EVALUATE,
    G24_FINAL,
    G24_IO,
    G24_IOT_ANSWER,
    G24_IOT_GUIDE,
    G24_JUDGE,
    G24_PROPOSE,
    G24_SIMILAR,
    G24_STEP,
    G24_VALUE,
)
from solver.model.offline import critics, iot24
from solver.model.offline.experience import BLOCK, ENTRY, EXPERIENCE, STEP_LINE, VERDICT
from solver.model.offline.writing import expression as _expression
from solver.model.offline.writing import nice as _nice
from solver.roles import Purpose

__all__ = ["Game24Player"]

_Nums = tuple[Fraction, ...]
_Move = tuple[Fraction, str, Fraction, Fraction, _Nums]
_Step = tuple[Fraction, str, Fraction, str]  # a, op, b and the result as written
_Reply = Callable[[random.Random, float, float], str]  # (rng, temperature, top_p) -> text

_MAX_NUMBERS = 6
"""The most numbers a hand has: a prompt showing more is not one the engine plays."""


def _fmt(numbers: Sequence[Fraction]) -> str:
    return " ".join(format_number(n) for n in numbers)


@functools.lru_cache(maxsize=65536)
def moves_from(nums: _Nums) -> tuple[tuple[Fraction, str, Fraction, Fraction, _Nums], ...]:
    """Every way to combine two numbers, written larger first (as people do).

    Cached: a run asks about the same few hundred number sets again and again, and Fraction
    arithmetic is the engine's main cost (it runs on the app's event loop)."""
    out = []
    n = len(nums)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = nums[i], nums[j]
            hi, lo = (a, b) if a >= b else (b, a)
            rest = tuple(nums[k] for k in range(n) if k not in (i, j))
            out.append((hi, "+", lo, hi + lo, rest))
            out.append((hi, "*", lo, hi * lo, rest))
            out.append((hi, "-", lo, hi - lo, rest))
            if lo != 0:
                out.append((hi, "/", lo, hi / lo, rest))
            if hi != 0 and hi != lo:
                out.append((lo, "/", hi, lo / hi, rest))
    return tuple(out)


# ---------------------------------------------------------------------- reading the prompt

_TARGET = re.compile(r"\b(?:obtain|make|reach|equal)\s+(-?\d{1,9})\b")
_INPUT = re.compile(r"^Input:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_NUMBERS_ARE = re.compile(r"^The numbers are:[ \t]*(.*?)\.?[ \t]*$", re.MULTILINE)
_ANSWER = re.compile(r"^Answer:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_STEPS_HEAD = re.compile(r"^Steps:[ \t]*$", re.MULTILINE)
_NEXT_STEP = re.compile(rf"^{re.escape(G24_EVALUATE)}[ \t]*\n(.*?)[ \t]*$", re.MULTILINE)
_NUMBER = r"\(?-?[\d.]+(?:/[\d.]+)?\)?"
_BOT_FIELDS = re.compile(
    rf"Two numbers selected:\s*(?P<a>{_NUMBER})\s*,?\s+(?P<b>{_NUMBER})\s*,\s*"
    r"Operation:\s*(?P<op>[-+*/])\s*,\s*New number calculated:\s*(?P<c>[^,\s]+)",
    re.IGNORECASE,
)
_NEW_SET = re.compile(r"New set:\s*([^,]*)", re.IGNORECASE)
_EQUATION = re.compile(
    rf"^\s*(?P<a>{_NUMBER})\s*(?P<op>[-+*/])\s*(?P<b>{_NUMBER})\s*=\s*(?P<c>[^\s,]+)"
)


def _user_text(call: Call) -> str:
    return "\n".join(m.content for m in call.messages if m.role == "user")


_ROLES = (
    (Purpose.BOT_FINAL, G24_FINAL),
    (Purpose.BOT_STEP, G24_STEP),
    (Purpose.BOT_EVALUATE, G24_EVALUATE),
    (Purpose.BOT_FEEDBACK, G24_ANALYSIS),
    (Purpose.BOT_CONDENSE, G24_CONDENSE),
    (Purpose.BOT_SIMILAR, G24_SIMILAR),
    (Purpose.IOT_GUIDE, G24_IOT_GUIDE),
    (Purpose.IOT_ANSWER, G24_IOT_ANSWER),
    (Purpose.JUDGE, G24_JUDGE),
    (Purpose.VALUE, G24_VALUE),
    (Purpose.PROPOSE, G24_PROPOSE),
    (Purpose.COT, G24_COT),
    (Purpose.IO, G24_IO),
)
"""Each role and the sentence its prompt is known by (:mod:`solver.model.markers`, which the
prompt builders write), the prompts that quote others' text (BoT's experience, IoT's dialogue)
first."""


def role_of_prompt(text: str) -> Purpose | None:
    """What a Game of 24 prompt asks for, read from its words as a model would (the call's
    purpose is never read: over HTTP a model sees only the messages). The CoT prompt with
    steps already written after its ``Steps:`` is ToT's call for the answer."""
    role = next((role for role, marker in _ROLES if marker in text), None)
    if role == Purpose.COT:
        inputs = list(_INPUT.finditer(text))
        tail = text[inputs[-1].end() :] if inputs else ""
        head = _STEPS_HEAD.search(tail)
        if head is not None and tail[head.end() :].strip():
            return Purpose.ANSWER
    return role


def read_number(text: str) -> Fraction | None:
    """A number as written in a prompt (``8``, ``-2``, ``8/3``, ``(8/3)``, ``2.67``)."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    try:
        return parse_number(text)
    except (ArithError, ZeroDivisionError):
        return None


def _numbers(text: str) -> _Nums | None:
    """The numbers of a set as written in a prompt (``4 7 8 8``, ``8/3 3``); None when the
    text is not such a set, or more numbers than any hand has."""
    parts = text.split()
    if not 1 <= len(parts) <= _MAX_NUMBERS:
        return None
    out = []
    for part in parts:
        value = read_number(part)
        if value is None:
            return None
        out.append(value)
    return tuple(out)


def _target(text: str) -> Fraction | None:
    m = _TARGET.search(text)
    return Fraction(int(m.group(1))) if m else None


def _read_step(text: str) -> _Step | None:
    """A step as written in a prompt: BoT's fields (``Two numbers selected: 8 4, Operation:
    -, New number calculated: 4, ...``) or an equation (``8 - 4 = 4 (left: 4 7 8)``)."""
    m = _BOT_FIELDS.search(text) or _EQUATION.match(text)
    if not m:
        return None
    a, b = read_number(m["a"]), read_number(m["b"])
    if a is None or b is None:
        return None
    return a, m["op"], b, m["c"].strip("()")


def _play(nums: _Nums, step: _Step) -> tuple[_Nums, bool] | None:
    """The numbers after ``step`` (removing its two numbers, adding the exact result) and
    whether the result it wrote holds; None when its numbers are not on the table."""
    a, op, b, written = step
    rest = list(nums)
    for value in (a, b):
        if value not in rest:
            return None
        rest.remove(value)
    c = combine(a, op, b)
    if c is None:
        return None
    claimed = read_number(written)
    right = claimed is not None and (
        claimed == c or ("." in written and abs(claimed - c) < Fraction(1, 100))
    )
    return (*rest, c), right


def _not_24(what: str) -> ModelError:
    return ModelError(
        "bad_request",
        f"the offline engine only plays the Game of 24 so far, and cannot read this as a "
        f"Game of 24 {what} prompt",
    )


@dataclass(frozen=True)
class _Lesson:
    """One experience entry as read from a BoT prompt: the chain's steps and the verdict the
    analysis gave each (``recommend``, ``reject`` or ``""``)."""

    steps: tuple[_Step | None, ...]
    verdicts: tuple[str, ...]

    @property
    def endorsed(self) -> bool:
        return bool(self.verdicts) and all(v == "recommend" for v in self.verdicts)


def _entries(text: str) -> tuple[str, list[str]]:
    """BoT's experience text cut at its entry headings (``1. Reasoning chain and comments``,
    ``2. Reasoning chains of this iteration, ...``): what comes first, and the entries."""
    heads = [m.start() for m in ENTRY.finditer(text)]
    if not heads:
        return text, []
    chunks = [text[s:e] for s, e in zip(heads, [*heads[1:], len(text)], strict=True)]
    return text[: heads[0]], chunks


def _read_lessons(
    text: str, hand: _Nums | None = None, target: Fraction | None = None
) -> list[_Lesson]:
    """The chains of BoT's experience text, each with the verdicts its analysis gave (the
    ``Step i: ... Recommendation or Reject: ...`` lines after its ``---`` block). A chain
    shown with no analysis at all (BoT(No)'s entries) that, replayed from ``hand``, ends at
    ``target`` is read as one to reuse, as a reader copies a worked solution."""
    head, chunks = _entries(text)
    if not chunks and head.strip():
        chunks = [head]
    lessons = []
    for chunk in chunks:
        blocks = list(BLOCK.finditer(chunk))
        for n, block in enumerate(blocks):
            steps = tuple(_read_step(m.group(2)) for m in STEP_LINE.finditer(block.group(1)))
            if not steps:
                continue
            verdicts = [""] * len(steps)
            stop = blocks[n + 1].start() if n + 1 < len(blocks) else len(chunk)
            for m in VERDICT.finditer(chunk, block.end(), stop):
                idx = int(m.group(1)) - 1
                word = m.group(2).lower()
                if 0 <= idx < len(steps):
                    if word.startswith("reject"):
                        verdicts[idx] = "reject"
                    elif word.startswith("recommend"):
                        verdicts[idx] = "recommend"
            if not any(verdicts) and hand is not None and target is not None:
                lines = [m.group(2) for m in STEP_LINE.finditer(block.group(1))]
                if _replay(hand, lines) == (target,):
                    verdicts = ["recommend"] * len(steps)
            lessons.append(_Lesson(steps, tuple(verdicts)))
    return lessons


_AVOID = re.compile(
    rf"do not use (?P<a>{_NUMBER})\s*(?P<op>[-+*/])\s*(?P<b>{_NUMBER})\s*=\s*(?P<c>[^\s;,]+)"
    r" from (?P<nums>[-\d/. ]+?)\s*[;.,]",
    re.IGNORECASE,
)


def _read_avoid(text: str) -> list[tuple[_Step, _Nums]]:
    """The steps the experience's advice says not to take, with the numbers they were
    taken from (``do not use 8 / 8 = 1 from 4 7 8 8;``), wherever the advice stands."""
    out = []
    for m in _AVOID.finditer(text):
        a, b, nums = read_number(m["a"]), read_number(m["b"]), _numbers(m["nums"])
        if a is not None and b is not None and nums is not None:
            out.append(((a, m["op"], b, m["c"]), nums))
    return out


_FIELD_NAMES = re.compile(r"error report:|advice:|recommendation or reject:|[\s.,;:-]", re.I)
"""An analysis line's field names and punctuation: a line of nothing else teaches nothing."""

_CONDENSE_KEEP = 40
"""The most advice lines a condensed experience keeps (the newest)."""


def _condense(experience: str, hand: _Nums, target: Fraction) -> str:
    """Cumulative experience, as the engine rewrites it: the chains judged correct in full
    (each once), then the advice and error lines of rejected steps, each once, without the
    reports, the step numbers, lines with nothing in their fields and the chains that taught
    nothing."""
    head, chunks = _entries(experience)
    kept: list[str] = []
    seen_chains: set[str] = set()
    rest = [head]
    for chunk in chunks:
        lessons = _read_lessons(chunk, hand, target)
        block = BLOCK.search(chunk)
        if len(lessons) == 1 and lessons[0].endorsed and block is not None:
            steps = block.group(1).strip()
            if steps not in seen_chains:
                seen_chains.add(steps)
                kept.append(steps)
            continue
        rest.append(chunk)
    advice: list[str] = []
    for line in "\n".join(rest).splitlines():
        if "reject" not in line.lower() or "advice" not in line.lower():
            continue
        line = re.sub(r"^\s*(?:-\s*)?(?:Step\s+\d+\s*:\s*)?", "", line).strip()
        if not _FIELD_NAMES.sub("", line):  # "Advice: . Recommendation or Reject: -"
            continue
        if line not in advice:
            advice.append(line)
    advice = advice[-_CONDENSE_KEEP:]
    out = ["Advice and error reports so far:" if advice else "No advice so far."]
    out.extend(f"- {line}" for line in advice)
    for i, steps in enumerate(kept, 1):
        count = len([m for m in STEP_LINE.finditer(steps)])
        out += [f"{i}. Reasoning chain and comments (correct in full)", "---", steps, "---"]
        out.extend(
            f"Step {k}: Advice: keep this step. Recommendation or Reject: Recommend."
            for k in range(1, count + 1)
        )
    return "\n".join(out)


_STEP_A = re.compile(r"^Step A:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_STEP_B = re.compile(r"^Step B:[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_TOKEN = re.compile(r"\d+(?:/\d+)?|[-+*/=]|[A-Za-z]+")


def _similar(a: str, b: str, rng: random.Random, temp: float) -> str:
    """How alike two steps are, as the engine judges it: the same numbers combined by the
    same operation are the same step; otherwise the share of numbers and operators the two
    steps have in common (of words and numbers, when they are not steps), by eye (a few
    points off either way)."""
    sa, sb = _read_step(a), _read_step(b)
    if sa is not None and sb is not None and sa[1] == sb[1]:
        same = (sa[0], sa[2]) == (sb[0], sb[2]) or (
            sa[1] in "+*" and (sa[0], sa[2]) == (sb[2], sb[0])
        )
        if same:
            return "Both steps combine the same numbers with the same operation.\nSimilarity: 100%"
    if sa is not None and sb is not None:  # two steps: what they do, not what is left
        a, b = (
            " ".join(format_number(x) if isinstance(x, Fraction) else x for x in st)
            for st in (sa, sb)
        )
    ta, tb = Counter(_TOKEN.findall(a.lower())), Counter(_TOKEN.findall(b.lower()))
    if not ta or not tb:
        return "Similarity: 0%"
    share = sum((ta & tb).values()) / max(sum(ta.values()), sum(tb.values()))
    percent = round(min(99.0, max(0.0, 100 * share + rng.gauss(0, 3 + 5 * temp))))
    return f"The steps share some of their numbers and words.\nSimilarity: {percent}%"


def _replay(hand: _Nums, lines: Sequence[str]) -> _Nums:
    """The numbers left after the steps written on ``lines``, played from ``hand``. A line
    that cannot be played is read for its ``New set:``, else passed over."""
    cur = hand
    for line in lines:
        step = _read_step(line)
        played = _play(cur, step) if step is not None else None
        if played is not None:
            cur = played[0]
            continue
        shown = _NEW_SET.search(line)
        after = _numbers(shown.group(1)) if shown else None
        if after is not None:
            cur = after
    return cur


# ---------------------------------------------------------------------- worked examples

_EXAMPLE_HEAD = re.compile(r"^Example\s+\d+\s*,\s*numbers\s+(.*?)\s*:[ \t]*$", re.MULTILINE)
_WRITTEN_ANSWER = re.compile(r"^(?P<expr>.*)=\s*(?P<c>-?[\d./]+)\s*$")

_ENDINGS = ("factors", "sum", "difference")
"""How a worked solution ends, as a reader sorts it: two whole factors of the target
multiplied (``6 * 4 = 24``), a sum (``15 + 9``), a difference (``30 - 6``); any other ending
(``24 * 1``, a division) teaches no habit of this kind."""

_ENDING_PULL = 2.0
"""How strongly the share of examples ending one way pulls the engine's own steps towards
making that ending's kind of number: a step fitting endings shown in every example weighs
``1 + _ENDING_PULL`` times as much."""

_OP_PULL = 1.6
"""How strongly the examples' operations pull: a step weighs ``1 + _OP_PULL * (share - 1/4)``
times as much, its operation's share of the examples' steps against an even quarter each."""


def ending_of(step: _Step, target: Fraction) -> str:
    """The kind of ending a worked solution's last step is (one of ``_ENDINGS`` or "")."""
    a, op, b, _ = step
    if op == "*" and target != 0 and all(_factor(x, target) for x in (a, b)):
        return "factors"
    return {"+": "sum", "-": "difference"}.get(op, "")


def _factor(x: Fraction, target: Fraction) -> bool:
    """``x`` is a whole factor of ``target`` other than 1 and the target itself."""
    if x.denominator != 1 or x == 0 or abs(x) in (1, abs(target)):
        return False
    return (target / x).denominator == 1


def _fits(ending: str, c: Fraction, target: Fraction) -> bool:
    """Whether making ``c`` on the way prepares an ending of this kind: a factor of the
    target for ``factors``, a whole part of it for ``sum``, a whole number above it for
    ``difference``."""
    if c.denominator != 1:
        return False
    if ending == "factors":
        return target != 0 and _factor(c, target)
    if ending == "sum":
        return 0 < c < target
    return c > target and ending == "difference"


def _ops_of(expr: Expr) -> list[str]:
    """The operations of an expression, outermost last (``3 * 4 * (16 / 8)``: ``*``, ``/``,
    ``*``)."""
    if isinstance(expr, BinOp):
        return [*_ops_of(expr.left), *_ops_of(expr.right), expr.op]
    if isinstance(expr, Neg):
        return _ops_of(expr.operand)
    return []


@dataclass(frozen=True)
class Habits:
    """What the engine takes from a prompt's worked examples: the share of them that end
    each way (``_ENDINGS``) and each operation's share of their steps."""

    endings: tuple[tuple[str, float], ...]
    ops: tuple[tuple[str, float], ...]

    def weight(self, move: _Move, target: Fraction) -> float:
        """How much more (or less) the habits make the engine like ``move``. A last step is
        left to the target itself: habits are about how to get there."""
        _, op, _, c, rest = move
        if not rest:
            return 1.0
        w = 1.0 + _ENDING_PULL * sum(s for e, s in self.endings if _fits(e, c, target))
        share = dict(self.ops).get(op, 0.0)
        return w * (1.0 + _OP_PULL * (share - 0.25))


def _example_steps(text: str) -> list[list[_Step]]:
    """The steps of BoT+CoT's worked examples (``Example 1, numbers 2 3 14 16:`` and the
    ``Step i, ...`` lines under it), as written."""
    out = []
    for head in _EXAMPLE_HEAD.finditer(text):
        steps = []
        for line in text[head.end() :].splitlines()[1:]:
            step = _read_step(line) if line.lstrip().lower().startswith("step") else None
            if step is None:
                break
            steps.append(step)
        if steps:
            out.append(steps)
    return out


def _shot_steps(text: str) -> list[list[_Step]]:
    """The worked examples of an IO or CoT prompt: each ``Input:`` but the last (the hand to
    play), with the steps written under it, or else the last operation of its ``Answer:``
    (``Answer: 6 * (20 - 15 - 1) = 24``: 6 * 4 = 24, the other operations before it)."""
    inputs = list(_INPUT.finditer(text))
    out = []
    for here, after in itertools.pairwise(inputs):
        shot = text[here.end() : after.start()]
        steps = [s for line in shot.splitlines() if (s := _read_step(line)) is not None]
        answer = _ANSWER.search(shot)
        if not steps and answer is not None:
            steps = _answer_steps(answer.group(1))
        if steps:
            out.append(steps)
    return out


def _answer_steps(answer: str) -> list[_Step]:
    """An answer read as steps: its inner operations (only their kind is kept), then its
    outermost one with the result written after ``=``."""
    m = _WRITTEN_ANSWER.match(answer.strip())
    if not m:
        return []
    try:
        expr = parse(m["expr"].strip())
    except (ArithError, ZeroDivisionError):
        return []
    if not isinstance(expr, BinOp):
        return []
    zero = Fraction(0)
    inner: list[_Step] = [(zero, op, zero, "") for op in _ops_of(expr)[:-1]]
    return [*inner, (expr.left.value, expr.op, expr.right.value, m["c"])]


def read_habits(text: str, target: Fraction) -> Habits | None:
    """The habits a prompt's worked examples teach; None when it shows no worked solution
    (an example whose last step, as written, does not make the target is not one)."""
    solved = [
        steps
        for steps in [*_example_steps(text), *_shot_steps(text)]
        if read_number(steps[-1][3]) == target
    ]
    if not solved:
        return None
    endings = Counter(ending_of(steps[-1], target) for steps in solved)
    ops = Counter(step[1] for steps in solved for step in steps)
    total = sum(ops.values())
    return Habits(
        tuple((e, endings[e] / len(solved)) for e in _ENDINGS if endings[e]),
        tuple((op, ops[op] / total) for op in "+-*/"),
    )


@dataclass(frozen=True)
class _BotPrompt:
    """What a BoT prompt shows: the hand, the target, the scored chain so far (its step
    texts) and, for a step prompt, the experience text."""

    hand: _Nums
    target: Fraction
    chain: tuple[str, ...]
    experience: str = ""


def _read_bot(text: str, what: str) -> _BotPrompt:
    hand_m, target = _NUMBERS_ARE.search(text), _target(text)
    hand = _numbers(hand_m.group(1)) if hand_m else None
    if hand is None or target is None:
        raise _not_24(what)
    experience = ""
    rest = text
    exp = EXPERIENCE.search(text)
    if exp is not None:
        experience, rest = exp.group(1), text[exp.end() :]
    block = BLOCK.search(rest)
    if block is None:
        raise _not_24(what)
    chain = tuple(line.strip() for line in block.group(1).splitlines() if line.strip())
    return _BotPrompt(hand, target, chain, experience)


def _read_cot(text: str, what: str) -> tuple[_Nums, Fraction, list[str]]:
    """The hand, the target and the steps written after ``Steps:`` (IO, CoT, ToT's answer)."""
    inputs = list(_INPUT.finditer(text))
    target = _target(text)
    hand = _numbers(inputs[-1].group(1)) if inputs else None
    if hand is None or target is None:
        raise _not_24(what)
    tail = text[inputs[-1].end() :]
    head = _STEPS_HEAD.search(tail)
    lines = tail[head.end() :].splitlines() if head else []
    return hand, target, [line for line in lines if line.strip()]


class Game24Player:
    """The offline answers for the Game of 24 (see the module notes). The engine asks it last:
    it answers what no other kind's player recognises, and refuses, saying why, what it cannot
    read as a Game of 24 prompt. It keeps no state between calls: each reply is played by a
    fresh :class:`Play` aimed at the target its prompt names."""

    def __init__(self, *, lookahead: int = 10, slip: float = 0.02) -> None:
        self.lookahead = lookahead
        self.slip = slip

    def recognises(self, call: Call) -> bool:
        return True  # the last player asked: what it cannot read, it refuses

    def reply(self, call: Call, rng: random.Random, seed: int) -> str:
        temperature, top_p = call.sampling.temperature, call.sampling.top_p
        text = _user_text(call)
        role = role_of_prompt(text)  # from the prompt's words: the call's purpose is not read
        play = Play(seed, self.lookahead, self.slip)
        if role in (Purpose.IOT_GUIDE, Purpose.IOT_ANSWER):
            return iot24.iot_reply(play, role, call.messages, rng, temperature)
        return play.reader(role, text)(rng, temperature, top_p)


class Play:
    """One reply's play: the player's settings and the target (with the numbers that feel
    "nice" for it) its prompt names, read before the reply is written."""

    def __init__(self, seed: int = 0, lookahead: int = 10, slip: float = 0.02) -> None:
        self.seed = seed
        self.lookahead = lookahead
        self.slip = slip
        self.target = Fraction(24)
        self.nice = _nice(self.target)

    def reader(self, role: Purpose | None, text: str) -> _Reply:
        """Read the prompt for the role ``role`` (as :func:`role_of_prompt` reads it from the text):
        a function from (rng, temperature, top_p) to one sample's reply. :class:`ModelError`
        when the prompt is not one the engine can read."""
        readers = {
            Purpose.IO: self._read_attempt,
            Purpose.COT: self._read_attempt,
            Purpose.ANSWER: self._read_answer,
            Purpose.PROPOSE: self._read_propose,
            Purpose.VALUE: self._read_value,
            Purpose.JUDGE: self._read_judge,
            Purpose.BOT_STEP: self._read_bot_step,
            Purpose.BOT_EVALUATE: self._read_bot_evaluate,
            Purpose.BOT_FEEDBACK: self._read_bot_feedback,
            Purpose.BOT_FINAL: self._read_bot_final,
            Purpose.BOT_CONDENSE: self._read_bot_condense,
            Purpose.BOT_SIMILAR: self._read_bot_similar,
        }
        read = readers.get(role) if role is not None else None
        if role is None or read is None:
            raise ModelError(
                "bad_request",
                "the offline engine only plays the Game of 24 so far, and cannot read this "
                "as any Game of 24 prompt it knows (no sentence says what it asks for)",
            )
        return read(role, text)

    def _aim(self, target: Fraction) -> None:
        # The target and the numbers that feel "nice" for it, read from the prompt.
        self.target = target
        self.nice = _nice(target)

    def _read_attempt(self, role: str, text: str) -> _Reply:
        hand, target, _ = _read_cot(text, role)
        self._aim(target)
        steps = role == Purpose.COT
        habits = read_habits(text, target)
        return lambda rng, temp, top_p: self._attempt(hand, rng, temp, steps, habits)

    def _read_answer(self, role: str, text: str) -> _Reply:
        hand, target, lines = _read_cot(text, role)
        self._aim(target)
        reply = self._final_answer(hand, lines)
        return lambda rng, temp, top_p: reply

    def _read_propose(self, role: str, text: str) -> _Reply:
        inputs = list(_INPUT.finditer(text))
        nums = _numbers(inputs[-1].group(1)) if inputs else None
        # The target is read from the prompt ("reach 10"), as for every other role: a
        # proposal prompt that does not say it is not one the engine would guess at.
        target = _target(text)
        if nums is None or target is None or G24_PROPOSE not in text:
            raise _not_24(role)
        self._aim(target)
        return lambda rng, temp, top_p: self.propose(nums, rng, temp)

    def _read_value(self, role: str, text: str) -> _Reply:
        lines = [line for line in text.splitlines() if line.strip()]
        target = _target(text)
        nums = _numbers(lines[-1]) if lines else None
        if nums is None or target is None:
            raise _not_24(role)
        self._aim(target)
        return lambda rng, temp, top_p: self._value(nums, rng, temp)

    def _read_judge(self, role: str, text: str) -> _Reply:
        inputs, answers = list(_INPUT.finditer(text)), _ANSWER.findall(text)
        target = _target(text)
        hand = _numbers(inputs[-1].group(1)) if inputs else None
        if hand is None or target is None or not answers:
            raise _not_24(role)
        self._aim(target)
        answer = answers[-1]
        return lambda rng, temp, top_p: self._judge(hand, answer, rng)

    def _read_bot_step(self, role: str, text: str) -> _Reply:
        bot = _read_bot(text, role)
        self._aim(bot.target)
        lessons = _read_lessons(bot.experience, bot.hand, bot.target)
        avoid = _read_avoid(bot.experience)
        # BoT+CoT's worked examples stand before the experience (never read as experience).
        exp = EXPERIENCE.search(text)
        habits = read_habits(text[: exp.start()] if exp else text, bot.target)
        return lambda rng, temp, top_p: self._bot_step(
            bot, lessons, avoid, rng, temp, top_p, habits
        )

    def _read_bot_evaluate(self, role: str, text: str) -> _Reply:
        bot = _read_bot(text, role)
        m = _NEXT_STEP.search(text)
        if m is None:
            raise _not_24(role)
        self._aim(bot.target)
        after = _replay(bot.hand, [*bot.chain, m.group(1)])
        return lambda rng, temp, top_p: f"Evaluation score: {self._confidence(after, rng, 0.2)}"

    def _read_bot_feedback(self, role: str, text: str) -> _Reply:
        bot = _read_bot(text, role)
        self._aim(bot.target)
        chain = tuple(m.group(2) for m in STEP_LINE.finditer("\n".join(bot.chain)))
        return lambda rng, temp, top_p: self._feedback(bot.hand, chain, rng)

    def _read_bot_final(self, role: str, text: str) -> _Reply:
        """BoT's final prompt (I^{T+1}): the hand, the target and the experience, read as a
        step prompt's, with no chain so far."""
        hand_m, target = _NUMBERS_ARE.search(text), _target(text)
        hand = _numbers(hand_m.group(1)) if hand_m else None
        if hand is None or target is None or G24_FINAL not in text:
            raise _not_24(role)
        self._aim(target)
        exp = EXPERIENCE.search(text)
        bot = _BotPrompt(hand, target, (), exp.group(1) if exp else "")
        lessons = _read_lessons(bot.experience, hand, target)
        avoid = _read_avoid(bot.experience)
        habits = read_habits(text[: exp.start()] if exp else text, target)
        return lambda rng, temp, top_p: self._bot_final(
            bot, lessons, avoid, rng, temp, top_p, habits
        )

    def _read_bot_condense(self, role: str, text: str) -> _Reply:
        hand_m, target = _NUMBERS_ARE.search(text), _target(text)
        hand = _numbers(hand_m.group(1)) if hand_m else None
        exp = EXPERIENCE.search(text)
        if hand is None or target is None or exp is None:
            raise _not_24(role)
        reply = _condense(exp.group(1), hand, target)
        return lambda rng, temp, top_p: reply

    def _read_bot_similar(self, role: str, text: str) -> _Reply:
        a, b = _STEP_A.search(text), _STEP_B.search(text)
        if a is None or b is None:
            raise _not_24(role)
        first, second = a.group(1), b.group(1)
        return lambda rng, temp, top_p: _similar(first, second, rng, temp)

    # ------------------------------------------------------------------ judgement

    def tries(self, nums: _Nums, rng: random.Random, budget: int) -> list[Fraction] | None:
        """A few random mental tries at finishing from ``nums``; the path if one hits 24."""
        if len(nums) == 1:
            return [nums[0]] if nums[0] == self.target else None
        if len(nums) == 2:  # two numbers: anyone checks all six results
            for a, _, b, c, _ in moves_from(nums):
                if c == self.target:
                    return [a, b]
            return None
        for _ in range(budget):
            # Random steps down to two numbers, then the six results are checked, as a person
            # would: "5 * 4 = 20, and 20 + 4 = 24".
            cur = nums
            while len(cur) > 2:
                moves = [m for m in moves_from(cur) if m[3].denominator == 1 or rng.random() < 0.15]
                if not moves:
                    break
                move = rng.choice(moves)
                cur = (*move[4], move[3])
            if len(cur) == 2 and self.tries(cur, rng, 0) is not None:
                return list(cur)
        return None

    def promise(self, nums: _Nums, rng: random.Random) -> float:
        """How good a state looks, 0..1, from a few tries and a feel for the numbers."""
        if len(nums) == 1:
            return 1.0 if nums[0] == self.target else 0.0
        if self.tries(nums, rng, self.lookahead) is not None:
            return 0.95
        if len(nums) == 2:
            return 0.05
        score = 0.45
        if any(n in self.nice for n in nums):
            score += 0.1
        if any(n.denominator != 1 for n in nums):
            score -= 0.2
        big = max(nums)
        if big > 60 or sum(nums) * max(nums) < self.target:
            score -= 0.3
        return max(0.0, min(1.0, score))

    def _confidence(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        p = self.promise(nums, rng) + rng.gauss(0, 0.1 + 0.1 * temp)
        scale = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
        return format(min(scale, key=lambda s: abs(s - p)), "g")

    # ------------------------------------------------------------------ choosing steps

    def step_weight(
        self,
        move: tuple[Fraction, str, Fraction, Fraction, _Nums],
        rng: random.Random,
        habits: Habits | None = None,
    ) -> float:
        _, op, _, c, rest = move
        after = (*rest, c)
        w = 1.0
        if c.denominator != 1:
            w *= 0.08  # fractions rarely come to mind
        if c in self.nice:
            w *= 2.0
        if c == 0 or c > 100:
            w *= 0.2
        if op == "/" and c.denominator == 1:
            w *= 1.3
        if self.tries(after, rng, 3) is not None:
            w *= 4.0
        if habits is not None:  # what the prompt's worked examples taught (no draw of rng)
            w *= habits.weight(move, self.target)
        return w

    def pick(self, moves: list[Any], weights: list[float], rng: random.Random, temp: float) -> Any:
        sharp = 1.0 / max(temp, 0.05)
        try:
            ws = [w**sharp for w in weights]
            total = sum(ws)
        except OverflowError:
            total = math.inf
        if not math.isfinite(total):
            # Weights too large to raise to the power (an experience that recommends the
            # same step many times over, as BoT(No)'s chains do): the same choice, rescaled.
            top = max(weights)
            ws = [(w / top) ** sharp if math.isfinite(top) else float(w == top) for w in weights]
            total = sum(ws)
        if total <= 0 or not math.isfinite(total):
            return rng.choice(moves)
        r = rng.random() * total
        for m, w in zip(moves, ws, strict=True):
            r -= w
            if r <= 0:
                return m
        return moves[-1]

    def _write(self, c: Fraction, rng: random.Random, temp: float) -> str:
        """The result as the engine writes it: usually exact, sometimes rounded or slipped."""
        if rng.random() < self.slip * (0.5 + temp):
            return format_number(c + rng.choice((-2, -1, 1, 2)))
        if c.denominator != 1 and rng.random() < 0.5:
            return f"{float(c):.2f}"
        return format_number(c)

    def walk(
        self, nums: _Nums, rng: random.Random, temp: float, habits: Habits | None = None
    ) -> tuple[list[Any], bool]:
        """One attempt at a whole solution: a path of moves and whether it reaches 24."""
        cur, path = nums, []
        while len(cur) > 1:
            moves = list(moves_from(cur))
            weights = [self.step_weight(m, rng, habits) for m in moves]
            move = self.pick(moves, weights, rng, temp)
            cur = (*move[4], move[3])
            path.append(move)
        return path, len(cur) == 1 and cur[0] == self.target

    def _attempt(
        self,
        nums: _Nums,
        rng: random.Random,
        temp: float,
        steps: bool,
        habits: Habits | None = None,
    ) -> str:
        # Like a language model, the engine has a habitual answer for a hand (the same for
        # every sample): many samples repeat it, right or wrong, so votes can agree on a
        # wrong answer. The other samples try twice on their own.
        habit_rng = random.Random(f"{self.seed}|habit|{_fmt(sorted(nums))}")
        habit, _ = self.walk(nums, habit_rng, 0.3, habits)
        path, ok = habit, False
        if rng.random() >= 0.55:
            for _try in range(2):
                path, ok = self.walk(nums, rng, temp, habits)
                if ok:
                    break
            if not ok and rng.random() < 0.5:
                path = habit
        lines, cur = [], nums
        for a, op, b, c, rest in path:
            cur = (*rest, c)
            lines.append(
                f"{format_operand(a)} {op} {format_operand(b)} = "
                f"{self._write(c, rng, temp)} (left: {_fmt(cur)})"
            )
        expr = _expression(nums, path)
        body = "\n".join(lines) + "\n" if steps else ""
        return f"{body}Answer: {expr} = {self.target}"

    def propose(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        moves = list(moves_from(nums))
        weights = [self.step_weight(m, rng) * rng.uniform(0.5, 1.5) for m in moves]
        order = sorted(range(len(moves)), key=lambda i: -weights[i])
        count = min(len(moves), rng.randint(5, 8))
        lines = []
        for i in order[:count]:
            a, op, b, c, rest = moves[i]
            lines.append(
                f"{format_operand(a)} {op} {format_operand(b)} = "
                f"{self._write(c, rng, temp)} (left: {_fmt((*rest, c))})"
            )
        return "\n".join(lines)

    def _value(self, nums: _Nums, rng: random.Random, temp: float) -> str:
        """ToT's value word for the numbers left: the engine works them out, then says
        ``sure``, ``likely`` or ``impossible`` as often as GPT-4 said each of numbers that
        could (or could not) make the target (:mod:`critics`; the temperature is not used:
        the rates were measured at ToT's 0.7)."""
        shown = _fmt(nums)
        label = critics.value_label(critics.can_make(nums, self.target), len(nums), rng)
        why = {
            "sure": f"I can reach {self.target} from here",
            "likely": "not found yet, but the numbers are in range",
            "impossible": f"the numbers look hard to combine into {self.target}",
        }[label]
        return f"{shown}: {why}\n{label}"

    def _final_answer(self, hand: _Nums, lines: Sequence[str]) -> str:
        """ToT's last call: the expression the steps written after ``Steps:`` build."""
        path, cur = [], hand
        for line in lines:
            step = _read_step(line)
            if step is None:
                continue
            path.append(step[:3])  # the expression needs only the numbers and operation
            played = _play(cur, step)
            if played is not None:
                cur = played[0]
        return f"Answer: {_expression(hand, path)} = {_fmt(cur)}"

    def _judge(self, hand: _Nums, answer: str, rng: random.Random) -> str:
        # Read as a person would (which numbers the expression uses and what it comes to),
        # then misjudged either way as often as GPT-4's judge was (critics.JUDGE_*).
        right = _reads_right(answer.split("=")[0], hand, self.target)
        ok = critics.believes(
            right,
            rng,
            false_sure=critics.JUDGE_FALSE_SURE,
            missed=critics.JUDGE_FALSE_IMPOSSIBLE,
        )
        return "Judge: sure" if ok else "Judge: impossible"

    # ------------------------------------------------------------------ BoT

    def _bot_step(
        self,
        bot: _BotPrompt,
        lessons: Sequence[_Lesson],
        avoid: Sequence[tuple[_Step, _Nums]],
        rng: random.Random,
        temp: float,
        top_p: float,
        habits: Habits | None = None,
    ) -> str:
        nums = _replay(bot.hand, bot.chain)
        moves = list(moves_from(nums))
        if not moves:  # one number left (a hand and a step each leave one at least)
            done = nums[0] == self.target
            return (
                f"Step {len(bot.chain) + 1}: only {_fmt(nums)} is left, so there is "
                f"nothing to combine. Evaluation score: {1.0 if done else 0.1}"
            )
        weights = [self.step_weight(m, rng, habits) for m in moves]
        # Read the experience: avoid what was rejected from this same position, prefer steps
        # of chains that were recommended.
        here = sorted(nums)
        rejected: set[int] = set()
        for lesson in lessons:
            # A chain the analysis recommended step by step is one to reuse, not just nudge.
            boost = 40.0 if lesson.endorsed else 3.0
            for step, verdict, position in _positions(bot.hand, lesson):
                if sorted(position) != here or not verdict:
                    continue
                for k, m in enumerate(moves):
                    if _same_step(step, m):
                        weights[k] *= 0.02 if verdict == "reject" else boost
                        if verdict == "reject":
                            rejected.add(k)
        # Advice read on its own (a condensed experience keeps it without its chain): a step
        # it says not to take from these numbers, unless a chain's verdict already said so.
        for step, position in avoid:
            if sorted(position) != here:
                continue
            for k, m in enumerate(moves):
                if k not in rejected and _same_step(step, m):
                    weights[k] *= 0.02
                    rejected.add(k)
        if top_p < 1.0:  # nucleus: keep the heaviest moves that make up top_p of the weight
            order = sorted(range(len(moves)), key=lambda i: -weights[i])
            total, kept, acc = sum(weights), [], 0.0
            for i in order:
                kept.append(i)
                acc += weights[i]
                if acc >= top_p * total:
                    break
            moves = [moves[i] for i in kept]
            weights = [weights[i] for i in kept]
        a, op, b, c, rest = self.pick(moves, weights, rng, temp)
        after = (*rest, c)
        return (
            f"Step {len(bot.chain) + 1}, Current set: {_fmt(nums)}, Two numbers selected: "
            f"{format_number(a)} {format_number(b)}, Operation: {op}, New number calculated: "
            f"{self._write(c, rng, temp)}, Remaining numbers: {_fmt(rest) or 'none'}, "
            f"New set: {_fmt(after)}, Evaluation score: {self._confidence(after, rng, temp)}"
        )

    def _bot_final(
        self,
        bot: _BotPrompt,
        lessons: Sequence[_Lesson],
        avoid: Sequence[tuple[_Step, _Nums]],
        rng: random.Random,
        temp: float,
        top_p: float,
        habits: Habits | None,
    ) -> str:
        """The whole chain, step by step as a step prompt would be answered from the same
        experience (each step written after the ones before), then the answer it spells."""
        chain: list[str] = []
        for _ in range(len(bot.hand) - 1):
            here = _BotPrompt(bot.hand, bot.target, tuple(chain), bot.experience)
            line = self._bot_step(here, lessons, avoid, rng, temp, top_p, habits)
            if _read_step(line) is None:
                break
            chain.append(line.split(", Evaluation score")[0])
        return "\n".join([*chain, self._final_answer(bot.hand, chain)])

    def _feedback(self, hand: _Nums, chain: Sequence[str], rng: random.Random) -> str:
        # Re-play the chain with the engine's own arithmetic (each step's numbers must be on
        # the table and its result must hold), then judge each step as GPT-4 judged states
        # (critics): a step whose result does not hold passes at ANALYSIS_MISSES_SLIP; one that
        # holds is rejected when ToT's value critic would call the numbers it leaves
        # impossible, at the measured rates for numbers that can or cannot make the target.
        states: list[_Nums | None] = []
        valid: list[bool] = []
        shown: list[str] = []
        cur = hand
        for line in chain:
            step = _read_step(line)
            played = _play(cur, step) if step is not None else None
            if step is None or played is None:
                states.append(None)
                valid.append(False)
                shown.append(f"step {len(shown) + 1}")
                continue
            a, op, b, written = step
            cur = played[0]
            states.append(cur)
            valid.append(played[1])
            shown.append(f"{format_operand(a)} {op} {format_operand(b)} = {written}")
        kept: list[bool] = []
        for st, holds in zip(states, valid, strict=True):
            if st is None:  # a step that cannot be played from the numbers on the table
                kept.append(False)
            elif not holds:
                kept.append(rng.random() < critics.ANALYSIS_MISSES_SLIP)
            else:
                kept.append(critics.recommends(critics.can_make(st, self.target), len(st), rng))
        # The first step the analysis rejects. None: it keeps every step (a chain that stops
        # early, or one it misjudges).
        first_bad = next((i for i, ok in enumerate(kept) if not ok), None)
        reached = first_bad is None and len(cur) == 1 and cur[0] == self.target
        lines = []
        if reached:
            lines.append(
                f"Analysis Report: The chain uses every number once and reaches {self.target}, so "
                "it solves the task."
            )
            for i, _ in enumerate(chain, 1):
                lines.append(
                    f"Step {i}: correct. Advice: keep this step. Recommendation or "
                    "Reject: Recommend."
                )
            lines.append("Confidence score: 1.0")
            return "\n".join(lines)
        bad = len(chain) if first_bad is None else first_bad
        if not chain:
            report = "The chain has no steps, so it does not solve the task."
        elif first_bad is None and len(cur) == 1:  # every step passed, the end is wrong
            report = (
                f"The chain ends with {_fmt(cur)} instead of {self.target}, so it does not "
                "solve the task, though no step looks wrong."
            )
        elif first_bad is None:
            report = (
                f"The chain stops at {_fmt(cur)} before it uses every number, so it does not "
                f"solve the task yet; every step so far can still lead to {self.target}."
            )
        elif cur == (self.target,):  # the right end, through a step the analysis rejects
            report = (
                f"The chain ends with {self.target}, but step {bad + 1} "
                f"{'looks wrong' if valid[bad] else 'does not hold'}, so it does not solve the "
                f"task; the mistake starts at step {bad + 1}."
            )
        else:
            report = (
                f"The chain ends with {_fmt(cur)} instead of {self.target}, so it does not "
                f"solve the task; the mistake starts at step {bad + 1}."
            )
        lines.append(f"Analysis Report: {report}")
        for i in range(len(chain)):
            prev = states[i - 1] if i > 0 else None
            before = _fmt(prev if prev else hand)
            if i < bad:
                lines.append(
                    f"Step {i + 1}: looks reasonable. Advice: it may be kept. "
                    "Recommendation or Reject: Recommend."
                )
            elif i == bad:
                what = shown[i]
                lines.append(
                    f"Step {i + 1}: {what} leaves numbers that cannot make {self.target}. "
                    f"Advice: do not use {what} from {before}; combine a different "
                    "pair. Recommendation or Reject: Reject."
                )
            else:
                lines.append(
                    f"Step {i + 1}: follows a wrong step. Advice: revise the earlier "
                    "step first. Recommendation or Reject: Reject."
                )
        lines.append(f"Confidence score: {rng.choice((0.3, 0.5))}")
        return "\n".join(lines)


def _reads_right(expression: str, hand: _Nums, target: Fraction) -> bool:
    """Whether ``expression`` uses exactly the numbers of ``hand`` and comes to ``target``,
    by reading it (``puzzles.arith.parse``) and counting its numbers."""
    try:
        expr = parse(expression.strip())
        value = expr.value
        used = Counter(leaf.value for leaf in expr.leaves())
    except (ArithError, ZeroDivisionError):
        return False
    return used == Counter(hand) and value == target


def _positions(hand: _Nums, lesson: _Lesson) -> list[tuple[_Step, str, _Nums]]:
    """Each step of an experience chain with its verdict and the numbers it was taken from,
    played from the hand; the reading stops at a step that cannot be played or is wrong."""
    out = []
    cur = hand
    for step, verdict in zip(lesson.steps, lesson.verdicts, strict=True):
        if step is None:
            break
        out.append((step, verdict, cur))
        played = _play(cur, step)
        if played is None or not played[1]:
            break
        cur = played[0]
    return out


def _same_step(step: _Step, move: _Move) -> bool:
    a, op, b, _ = step
    ma, mop, mb = move[0], move[1], move[2]
    if op != mop:
        return False
    return (a, b) == (ma, mb) or (op in "+*" and (a, b) == (mb, ma))
