"""Game of 24 domain adapter: prompts for every role, tolerant parsers, exact step checking.

Prompts are our own wording of what the papers describe (ToT's propose / value / answer
prompts; BoT's step format, evaluation, and feedback). Parsers accept real model output:
prose around the answer, markdown, numbered lists, several steps at once and wrong numbers.
Nothing here raises on model text: what cannot be parsed comes back as a reason.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from puzzles.arith import (
    MIXED_NUMBER,
    ArithError,
    Claim,
    ClaimStatus,
    StepReading,
    claim_sides,
    combine,
    extract_claims,
    format_number,
    format_operand,
    leading_expression,
    parse,
    parse_number,
    read_step,
    verify_claim,
)
from puzzles.game24 import (
    Hand,
    State,
    Step,
    StepError,
    Verdict,
    apply,
    check_answer,
    format_numbers,
)
from puzzles.latex import plain
from solver.domains.base import Guidance, Reply, RolesMissing, Tool
from solver.domains.dialogue import Turn
from solver.domains.game24_prompts import PROMPTS
from solver.domains.reading import (
    BULLET,
    LIST_NUMBER,
    clip_text,
    read_json_object,
    reads_the_same,
    truthy,
    unlabelled_answer,
    whole_lines,
)
from solver.kinds import roles
from solver.model import Message
from solver.roles import Role

__all__ = [
    "BOT_SCORES",
    "ROLES",
    "Feedback",
    "Game24Domain",
    "ParsedStep",
    "parse_condensed",
    "parse_feedback",
    "parse_guidance",
    "parse_reply",
    "parse_score",
    "parse_similarity",
    "parse_steps",
    "parse_value",
    "similarity",
]

VALUE_WEIGHTS = {"sure": 20.0, "likely": 1.0, "impossible": 0.001}
"""ToT's value mapping (sure / likely / impossible), summed over samples."""
_VALUE_WEIGHTS = MappingProxyType(VALUE_WEIGHTS)
BOT_SCORES = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
"""The score scale BoT asks the model to use."""


# ---------------------------------------------------------------------- parsing

_LEFT_RE = re.compile(r"\s*\(\s*left\s*:[^)]*\)", re.IGNORECASE)
_BOT_FIELDS = re.compile(
    r"two\s+numbers\s+selected\s*[:=]?\s*(?P<a>-?[\d./]+)\s*(?:,|and|&)?\s*(?P<b>-?[\d./]+)"
    r".*?operation\s*[:=]?\s*(?P<op>[-+*/x×÷−]|plus|minus|times|divided\s+by|add|subtract"
    r"|multiply|divide)"
    r".*?new\s+number(?:\s+calculated)?\s*[:=]?\s*(?P<c>-?[\d./]+(?:\.\d+)?)",
    re.IGNORECASE | re.DOTALL,
)
_WORD_OPS = {
    "plus": "+",
    "add": "+",
    "minus": "-",
    "subtract": "-",
    "times": "*",
    "multiply": "*",
    "divided by": "/",
    "divide": "/",
    "x": "*",
    "×": "*",
    "÷": "/",
    "−": "-",
}
_MAX_LINE = 400
_SCORE_RE = re.compile(r"evaluat\w*\s+score\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)\s*(%?)", re.IGNORECASE)
_CONFIDENCE_RE = re.compile(r"confidence\s+score\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)
_LABEL_RE = re.compile(r"\b(sure|likely|impossible|maybe|unlikely|certain)\b", re.IGNORECASE)
# Markdown emphasis and code marks; a single '*' may be multiplication, so only pairs go.
_MARKDOWN = re.compile(r"\*\*|__|`+|^\s*[#>]+\s*|^\s*\*\s+", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ParsedStep:
    """A step read from model text, checked exactly against the state it was taken from."""

    text: str  # the model's line, cleaned
    a: Fraction
    op: str
    b: Fraction
    claimed: str  # what the model wrote for the result
    claim: Claim
    state: State | None  # the exact state after the step; None when the step is invalid
    problem: str = ""  # why the step is invalid (numbers not available, wrong result)

    @property
    def valid(self) -> bool:
        return self.state is not None and not self.problem


_LINE_HEAD = re.compile(rf"^\s*(?:{BULLET}|{LIST_NUMBER}|step\s*\d+\s*[:.,]?)\s*", re.IGNORECASE)


def _clean(line: str) -> str:
    line = _MARKDOWN.sub("", line)
    line = _LINE_HEAD.sub("", line)
    return line.strip()


def _number(text: str) -> Fraction | None:
    """A number as written (``8/3``, ``- 2``, the mixed number ``2 2/3``), or None."""
    try:
        return parse_number(_SIGN_SPACE.sub(r"\1", " ".join(text.split())))
    except ArithError:
        return None


_SIGN_SPACE = re.compile(r"^([-−])\s+")


def _bot_fields(line: str) -> tuple[str, str, str, str] | None:
    """BoT's fields of a step on ``line``: the two numbers, the operation and the result."""
    m = _BOT_FIELDS.search(line)
    return (m["a"], m["op"], m["b"], m["c"]) if m else None


def _check(
    state: State, raw: str, a_text: str, op: str, b_text: str, c_text: str
) -> ParsedStep | None:
    """A step from BoT's fields (``Two numbers selected: 8 8/3, Operation: /, ...``)."""
    op = _WORD_OPS.get(op.lower(), op)
    a, b = _number(a_text), _number(b_text)
    if a is None or b is None:
        return None
    reading = StepReading(a, op, b, a_text.replace(" ", ""), b_text.replace(" ", ""))
    return _checked(state, raw, reading, c_text)


def _checked(
    state: State, raw: str, reading: StepReading, c_text: str, approximate: bool = False
) -> ParsedStep:
    """Check a step exactly: the claim as read (fractions bracketed, so the reading used is
    the one shown; ``approximate`` when written so, ``11 / 3 ≈ 3.67``) and whether the
    numbers are on the table. A result that cannot be read is no wrong step: the claim is
    unreadable ("?") and the exact result goes on the table."""
    c_text = c_text.strip()
    claim = verify_claim(f"{reading.text} = {c_text}", approximate=approximate)
    problem = ""
    new_state: State | None = None
    try:
        new_state = apply(state, reading.a, reading.op, reading.b)
    except StepError as exc:
        problem = str(exc)
    if not problem and claim.status is ClaimStatus.WRONG:
        problem = claim.describe()
    return ParsedStep(raw, reading.a, reading.op, reading.b, c_text, claim, new_state, problem)


def _available(state: State, reading: StepReading) -> bool:
    left = list(state.numbers)
    for value in (reading.a, reading.b):
        if value not in left:
            return False
        left.remove(value)
    return True


def _step_claims(state: State, line: str, cut: bool = False) -> list[ParsedStep]:
    """The steps ``a op b = c`` on a line: a claim whose whole left side is two numbers
    (or fractions) and one operator. ``6 + 6 + 6 + 6 = 24`` is no step; ``8 / 8/3 = 3`` is
    read as ``8 / (8/3)`` where those numbers are on the table. ``cut``: the line is the
    start of a longer one, and a claim that may go on past its end is not read."""
    out: list[ParsedStep] = []
    for sides in claim_sides(line, cut=cut):
        readings = [] if sides.problem else read_step(sides.lhs)
        if not readings:
            continue
        reading = next((r for r in readings if _available(state, r)), readings[0])
        start, end = sides.span
        remark = _LEFT_RE.match(line, end)
        raw = line[start : remark.end() if remark else end]
        out.append(_checked(state, raw, reading, sides.rhs, sides.approximate))
    return out


def parse_steps(text: str, state: State, limit: int = 32) -> list[ParsedStep]:
    """Every step the text proposes from ``state``, in order, duplicates dropped.

    Accepts ``a op b = c (left: ...)`` lines (ToT) and BoT's field format
    (``Two numbers selected: 1 1, Operation: +, New number calculated: 2 ...``).
    """
    out: list[ParsedStep] = []
    seen: set[tuple[Fraction, str, Fraction]] = set()
    if not isinstance(text, str):
        return out
    for raw_line in whole_lines(text, 20000).splitlines():
        # A step fits in a short line; the cap keeps the scanning linear on hostile replies.
        # What the cap cuts short is not read (a result cut from 12 to 1 is no claim of 1).
        cut = len(raw_line) > _MAX_LINE
        line = _clean(raw_line[:_MAX_LINE])
        if not line:
            continue
        found: list[ParsedStep | None] = []
        fields = _bot_fields(line)
        if fields is None:
            found.extend(_step_claims(state, line, cut))
        elif not cut or reads_the_same(_bot_fields, line, fields):
            found.append(_check(state, line, *fields))
        for step in found:
            if step is None:
                continue
            key = (step.a, step.op, step.b)
            if key in seen:
                continue
            seen.add(key)
            out.append(step)
            if len(out) >= limit:
                return out
    return out


# ---------------------------------------------------------------------- paper mode

# "left: 2 8 approx. 2.333", "left: ~4.33 ~4.67": a number said to be approximate is the number.
_CLAIMED_SET_RE = re.compile(
    r"(?:new\s+set|\bleft)\s*[:=]\s*"
    r"(?P<nums>(?:(?:[~≈]|approx\.?|about)?\s*\(?-?\d+(?:[./]\d+)?\)?[\s,]*)*)(?P<word>\w*)",
    re.IGNORECASE,
)
_CLAIMED_NUMBER_RE = re.compile(r"-?\d+(?:[./]\d+)?")
_CLAIMED_MIXED_RE = re.compile(rf"{MIXED_NUMBER}|-?\d+(?:[./]\d+)?")
_MAX_CLAIMED = 12


@dataclass(frozen=True, slots=True)
class ClaimedState(State):
    """A state as the model wrote it (paper mode): the numbers of its own ``New set`` /
    ``left:`` list, and its steps with the results it claimed, whatever the exact arithmetic
    gives. Only the exact check of the final expression decides whether it solves the hand."""

    written: tuple[str, ...] = field(default=(), compare=False)
    """The numbers as the model wrote them (``3.67`` for 367/100), when it wrote each."""

    def left(self) -> str:
        if len(self.written) == len(self.numbers):
            return " ".join(self.written)
        return State.left(self)


_Claimed = tuple[tuple[Fraction, ...], tuple[str, ...]]


def _claimed_left(text: str, count: int) -> _Claimed | None:
    """The numbers the model says are left (its last ``New set:`` / ``left:``), with how it
    wrote them, or None. ``2 2/3 9`` is 2, 2/3 and 9, or 8/3 and 9: the reading with the
    ``count`` numbers a step leaves is taken, the first when neither has them."""
    found = list(_CLAIMED_SET_RE.finditer(text))
    if not found:
        return None
    m = found[-1]
    numbers = _CLAIMED_NUMBER_RE.findall(m["nums"])
    if len(numbers) != count and len(mixed := _CLAIMED_MIXED_RE.findall(m["nums"])) == count:
        numbers = mixed
    if not numbers:
        return ((), ()) if m["word"].lower() in ("none", "empty", "nothing") else None
    written = tuple(" ".join(n.split()) for n in numbers[:_MAX_CLAIMED])
    out = [_number(n) for n in written]
    if any(n is None for n in out):
        return None
    return tuple(n for n in out if n is not None), written


def claimed_state(before: State, step: ParsedStep) -> ClaimedState | None:
    """The state the model claims ``step`` leads to from ``before``: its own result and its
    list of what is left (else ``before`` less the two numbers, plus its result). None when
    its result cannot be read as a number. A rounded result (``11 / 3 ≈ 3.67``) goes on the
    table as written: the state follows the model, and only the exact check of the final
    expression decides whether it solves the hand."""
    result = step.claim.claimed if step.claim.claimed is not None else _number(step.claimed)
    if result is None:
        return None
    left = _claimed_left(step.text, len(before.numbers) - 1)
    if left is None:
        rest = list(before.numbers)
        for value in (step.a, step.b):
            if value in rest:
                rest.remove(value)
        shown = tuple(format_number(n) for n in rest)
        left = (*rest, result), (*shown, " ".join(step.claimed.split()))
    steps = (*before.steps, Step(step.a, step.op, step.b, result))
    return ClaimedState(left[0], steps, written=left[1])


def claimed_expression(hand: Hand, steps: Sequence[Step]) -> str | None:
    """The expression a chain of claimed steps spells out: each operand is the expression
    built for that number so far (a number never built or given stands as itself), and a
    step whose claimed result is wrong stands as that result alone. So the exact check of
    the expression fails whenever a claim in it was wrong or a number came from nowhere."""
    pool: list[tuple[Fraction, str, int]] = [
        (Fraction(n), format_number(Fraction(n)), 4) for n in hand.numbers
    ]

    def take(value: Fraction) -> tuple[Fraction, str, int]:
        for i, entry in enumerate(pool):
            if entry[0] == value:
                return pool.pop(i)
        return (value, format_operand(value), 4)

    last: tuple[Fraction, str, int] | None = None
    for st in steps:
        ea, eb = take(st.a), take(st.b)
        if combine(st.a, st.op, st.b) == st.result:
            prec = 1 if st.op in "+-" else 2
            left = ea[1] if ea[2] >= prec else f"({ea[1]})"
            right_needs = eb[2] < prec or (eb[2] == prec and st.op in "-/")
            right = f"({eb[1]})" if right_needs else eb[1]
            last = (st.result, f"{left} {st.op} {right}", prec)
        else:
            last = (st.result, format_operand(st.result), 4)
        pool.append(last)
    return last[1] if last else None


def claimed_line(step: ParsedStep, after: State) -> str:
    """ToT's line for a step as the model wrote it (``6 * 4 = 23 (left: 23)``)."""
    return (
        f"{format_operand(step.a)} {step.op} {format_operand(step.b)} {step.claim.equals} "
        f"{step.claimed} (left: {after.left()})"
    )


def claimed_bot_line(step_no: int, before: State, step: ParsedStep, after: State) -> str:
    """A step in BoT's format as the model wrote it (its result and new set)."""
    remaining = list(after.numbers)
    claimed = _number(step.claimed)
    if claimed is not None and claimed in remaining:
        remaining.remove(claimed)
    return (
        f"Step {step_no}, Current set: {before.left()}, Two numbers selected: "
        f"{format_number(step.a)} {format_number(step.b)}, Operation: {step.op}, "
        f"New number calculated: {step.claimed}, Remaining numbers: "
        f"{format_numbers(remaining) or 'none'}, New set: {after.left()}"
    )


def parse_value(text: str) -> str | None:
    """The sure / likely / impossible label, read from the last line that has one."""
    if not isinstance(text, str):
        return None
    for line in reversed(text.strip().splitlines()):
        labels = _LABEL_RE.findall(line)
        if labels:
            label = str(labels[-1]).lower()
            return {"maybe": "likely", "certain": "sure", "unlikely": "impossible"}.get(
                label, label
            )
    return None


def parse_score(text: str) -> float | None:
    """The number after ``Evaluation score:``, clamped to [0, 1]; None when absent."""
    if not isinstance(text, str):
        return None
    matches = _SCORE_RE.findall(text)
    if not matches:
        return None
    number, percent = matches[-1]
    try:
        value = float(number)
    except ValueError:
        return None
    if percent or value > 10.0:
        value /= 100.0  # "85%" or "85": a percentage
    elif value > 1.0:
        value /= 10.0  # some models answer on a 1-10 scale
    return min(1.0, max(0.0, value))


_SIMILARITY_RE = re.compile(r"similarity\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)\s*(%?)", re.IGNORECASE)
_CONDENSED_CAP = 8000


def parse_similarity(text: str) -> float | None:
    """The share of identical words and numbers a model judged (``Similarity: 80%``), 0..1;
    None when absent."""
    if not isinstance(text, str):
        return None
    found = _SIMILARITY_RE.findall(whole_lines(text, 20000))
    if not found:
        return None
    number, percent = found[-1]
    try:
        value = float(number)
    except ValueError:
        return None
    if percent or value > 1.0:
        value /= 100.0
    return min(1.0, max(0.0, value))


def parse_condensed(text: str) -> str | None:
    """The rewritten experience of a condensation reply (markdown fences dropped), or None
    when the reply is empty."""
    if not isinstance(text, str):
        return None
    body = re.sub(r"^\s*```\w*\s*$", "", whole_lines(text, 20000), flags=re.MULTILINE).strip()
    return body[:_CONDENSED_CAP] or None


_OWN_LABEL = re.compile(r"^\s*Step\s*\d+\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Feedback:
    """BoT's analysis of a chain: report, per-step advice and verdicts, confidence."""

    report: str
    advice: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()  # "recommend" / "reject" per step, "" when unsaid
    confidence: float | None = None
    text: str = ""
    parsed: bool = True
    analysis: tuple[str, ...] = ()  # per step: the analysis / error report before its advice

    def entry(self, index: int, chain: Sequence[str]) -> str:
        """This feedback as one experience entry for the next prompt: the chain as given
        (each step with its score) between ``---`` lines, then the analysis exactly as the
        model wrote it (its report, each step's error report, advice and verdict, and its
        confidence: BoT's "problems" and "advice"), trimmed of blank lines at its ends."""
        # A step that already opens with its "Step i:" (word problems) is not labelled twice.
        steps = "\n".join(
            f"Step {i}: {_OWN_LABEL.sub('', s, count=1)}" for i, s in enumerate(chain, 1)
        )
        lines = [f"{index}. Reasoning chain and comments", "---", steps, "---"]
        analysis = self.text.strip("\n")
        if analysis.strip():
            lines.append(analysis)
        return "\n".join(lines)


_STEP_ADVICE_RE = re.compile(
    r"(?:reasoning\s+)?step\s*(\d+)\s*[:.,]?(?P<body>.*?)(?=(?:reasoning\s+)?step\s*\d+\s*[:.,]|"
    r"confidence\s+score|$)",
    re.IGNORECASE | re.DOTALL,
)


def parse_feedback(text: str, steps: int) -> Feedback:
    """Read a feedback reply; missing parts stay empty, never an error."""
    if not isinstance(text, str) or not text.strip():
        return Feedback("(no analysis)", parsed=False, text=text or "")
    body = whole_lines(text, 20000)
    report = ""
    m = re.search(
        r"analysis(?:\s+report)?\s*[:：]\s*(.*?)(?=\n\s*\n|\n\W*(?:reasoning\s+)?step"
        r"\s*1\b|$)",
        body,
        re.IGNORECASE | re.DOTALL,
    )
    if m:
        report = " ".join(m.group(1).split())
    advice: list[str] = [""] * steps
    verdicts: list[str] = [""] * steps
    analysis: list[str] = [""] * steps
    after = body[m.end() :] if m else body
    for sm in _STEP_ADVICE_RE.finditer(after):
        idx = int(sm.group(1)) - 1 if sm.group(1).isdigit() and len(sm.group(1)) < 4 else -1
        if not 0 <= idx < steps:
            continue
        part = " ".join(sm["body"].split())
        am = re.search(
            r"advice\s*[:：]\s*(.*?)(?:\.?\s*recommend\w*(?:\s+or\s+reject)?\s*"
            r"(?:description)?\s*[:：]|$)",
            part,
            re.IGNORECASE,
        )
        advice[idx] = (am.group(1) if am else part).strip().rstrip(".") or part
        if am:  # what comes before the advice is the step's analysis (its error report)
            analysis[idx] = part[: am.start()].strip(" .:;,-")[:600]
        low = part.lower()
        rm = re.search(r"recommend\w*(?:\s+or\s+reject)?(?:\s+description)?\s*[:：]\s*(\w+)", low)
        word = rm.group(1) if rm else low
        if "reject" in word:
            verdicts[idx] = "reject"
        elif "recommend" in word:
            verdicts[idx] = "recommend"
    conf_match = _CONFIDENCE_RE.findall(body)
    confidence = None
    if conf_match:
        try:
            confidence = min(1.0, max(0.0, float(conf_match[-1])))
        except ValueError:
            confidence = None
    if not report:
        report = " ".join(body.split())[:300]
    parsed = bool(m) or confidence is not None or any(advice)
    return Feedback(
        report, tuple(advice), tuple(verdicts), confidence, text, parsed, tuple(analysis)
    )


def _step_numbers(line: str) -> list[str]:
    return re.findall(r"\d+(?:/\d+)?|[-+*/]", line.split("(left")[0]) + re.findall(
        r"\d+(?:/\d+)?", line.split("(left")[-1]
    )


def similarity(a: str, b: str) -> float:
    """Share of identical numbers and operators between two step lines (0..1).

    BoT's greedy aggregation has the model judge the percentage of identical words and
    numbers; we compute it exactly on the steps' numbers and operators, which is what that
    judgement amounts to for the Game of 24 and costs no call.
    """
    ta, tb = Counter(_step_numbers(a)), Counter(_step_numbers(b))
    if not ta or not tb:
        return 0.0
    common = sum((ta & tb).values())
    return common / max(sum(ta.values()), sum(tb.values()))


def bot_line(step_no: int, before: State, step: ParsedStep) -> str:
    """A step in BoT's own format, from the exact state."""
    assert step.state is not None
    after = step.state
    remaining = list(before.numbers)
    for v in (step.a, step.b):
        remaining.remove(v)
    return (
        f"Step {step_no}, Current set: {before.left()}, Two numbers selected: "
        f"{format_number(step.a)} {format_number(step.b)}, Operation: {step.op}, "
        f"New number calculated: {step.claimed}, Remaining numbers: "
        f"{format_numbers(remaining) or 'none'}, New set: {after.left()}"
    )


def parse_answer(text: str) -> str | None:
    """The expression of the last ``Answer:`` line; without one, the expression the last
    line holds when it holds nothing else (``(6 / (9 - 7)) * 8 = 24``); or None."""
    if not isinstance(text, str):
        return None
    found = re.findall(r"answer\s*[:：]\s*(.+)", whole_lines(text, 20000), re.IGNORECASE)
    if not found:
        line = unlabelled_answer(text)
        return None if line is None else leading_expression(line)
    line = plain(_MARKDOWN.sub("", found[-1])).text.strip()
    left = _EQUALS.split(line, maxsplit=1)[0].strip()
    # "Answer: 42. Output 42." or "(4 + 8) * 2, which is 24": keep the expression part.
    return leading_expression(left) or left or None


_EQUALS = re.compile(r"=|≈")


_STOP_RE = re.compile(r"\b(?:stop|final|iteration_stop|answer_to_query)\W{0,4}(true|yes)\b", re.I)


def _field(data: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in data:
            return data[name]
    return None


_MAX_ANSWER_FIELD = 2_000
"""Characters of an answer kept: more than an expression may have (1,000), so one cut
here is refused as too long, never judged in part."""


def _raw_text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _text_field(value: object, limit: int = 4000) -> str:
    return clip_text(" ".join(_raw_text(value).split()), limit)


def parse_guidance(text: str) -> Guidance:
    """The guide's prompt and stop flag, from JSON among prose or from plain prose."""
    data = read_json_object(text)
    if data is not None:
        raw = _field(data, "guidance", "self_thought", "prompt", "thought")
        guidance = _text_field(raw)
        stop = truthy(_field(data, "stop", "iteration_stop"))
        if guidance:
            return Guidance(guidance, stop)
        if raw is not None:  # the guide's own JSON with its guidance left empty: none given
            return Guidance("", stop, parsed=False)
    if not isinstance(text, str) or not text.strip():
        return Guidance("", False, parsed=False)
    plain = _MARKDOWN.sub("", whole_lines(text, 20000))
    return Guidance(_text_field(plain), bool(_STOP_RE.search(plain)), parsed=False)


def _answer_text(value: object) -> str | None:
    # Read whole: an expression is judged on all of it (one of over 1,000 characters is
    # refused as too long), never on a start that happens to make 24.
    text = plain(" ".join(_raw_text(value).split())[: _MAX_ANSWER_FIELD * 2]).text
    left = _EQUALS.split(text, maxsplit=1)[0].strip()[:_MAX_ANSWER_FIELD]
    return leading_expression(left) or left or None


def parse_reply(text: str) -> Reply:
    """The answerer's reasoning, answer, doubts and final flag; tolerant of prose."""
    data = read_json_object(text)
    if data is not None:
        answer = _answer_text(_field(data, "answer", "answer_expression", "response"))
        explanation = _text_field(_field(data, "explanation", "reasoning", "response"))
        if answer is not None or explanation:
            return Reply(
                explanation,
                answer,
                _text_field(_field(data, "uncertainty", "doubts", "unsure"), 600),
                truthy(_field(data, "final", "answer_to_query")),
            )
    if not isinstance(text, str) or not text.strip():
        return Reply("", None, "", False, parsed=False)
    plain = _MARKDOWN.sub("", whole_lines(text, 20000))
    return Reply(
        _text_field(plain), parse_answer(plain), "", bool(_STOP_RE.search(plain)), parsed=False
    )


# ---------------------------------------------------------------------- the adapter

ROLES = roles.GAME24
"""The roles the Game of 24 has prompts and parsers for (``examples``: the step prompt can
carry worked examples, BoT+CoT)."""


@dataclass
class Game24Domain:
    """Everything a method needs to know about one Game of 24 hand (the Domain seam)."""

    hand: Hand
    kind: str = field(default="game24", init=False)
    roles: frozenset[Role] = field(default=ROLES, init=False)

    @property
    def value_weights(self) -> Mapping[str, float]:
        return _VALUE_WEIGHTS

    @property
    def tools(self) -> tuple[Tool, ...]:
        return ()

    @property
    def title(self) -> str:
        return str(self.hand)

    # ---------------------------------------------------------------- states and answers

    def start(self) -> State:
        return self.hand.start()

    def is_goal(self, state: State) -> bool:
        return state.is_goal(self.hand.target)

    def is_final(self, state: State) -> bool:
        return len(state.numbers) <= 1

    def depth(self) -> int:
        return len(self.hand.numbers) - 1

    def check(self, answer: str | None) -> Verdict:
        if not answer:
            return Verdict(False, "no answer")
        return check_answer(self.hand, answer)

    def answer_of(self, state: State) -> str | None:
        """The expression a finished state builds (``(7 - 4) * 8 = 24``) or None. For a
        state the model claimed (paper mode), the expression its claimed steps spell out,
        with the number it claims to have reached."""
        if isinstance(state, ClaimedState):
            if len(state.numbers) != 1:
                return None
            claimed = claimed_expression(self.hand, state.steps)
            return None if claimed is None else f"{claimed} = {format_number(state.numbers[0])}"
        expr = state.expression()
        if expr is None:
            return None
        return f"{expr} = {format_number(state.numbers[0])}"

    def uses_all(self, answer: str) -> bool:
        want = Counter(Fraction(n) for n in self.hand.numbers)
        try:
            return Counter(leaf.value for leaf in parse(answer).leaves()) == want
        except ArithError:
            return False

    def answer_key(self, answer: str) -> str | None:
        try:
            return parse(answer).render()
        except ArithError:
            return None

    def context(self, state: State, **extra: object) -> dict[str, object]:
        """The public state of the puzzle, for traces and panes (never the answer)."""
        ctx: dict[str, object] = {
            "kind": self.kind,
            "hand": list(self.hand.numbers),
            "target": self.hand.target,
            "numbers": [format_number(n) for n in state.numbers],
            "steps": [str(s) for s in state.steps],
        }
        ctx.update(extra)
        return ctx

    def state_text(self, state: State) -> str:
        return state.left()

    def state_key(self, state: State) -> Hashable:
        return tuple(sorted(state.numbers))

    # ---------------------------------------------------------------- prompts

    def prompt(self, role: Role, **args: Any) -> tuple[Message, ...]:
        """The messages for ``role`` (what each role is given: :data:`PROMPTS`)."""
        build = PROMPTS.get(role)
        if build is None:
            raise RolesMissing("a method", self.kind, [role])
        return build(self.hand, args)

    # ---------------------------------------------------------------- parsers

    def parse_steps(self, text: str, state: State, limit: int = 32) -> list[ParsedStep]:
        return parse_steps(text, state, limit)

    def parse_answer(self, text: str) -> str | None:
        return parse_answer(text)

    def parse_value(self, text: str) -> str | None:
        return parse_value(text)

    def parse_score(self, text: str) -> float | None:
        return parse_score(text)

    def parse_feedback(self, text: str, steps: int) -> Feedback:
        return parse_feedback(text, steps)

    def parse_condensed(self, text: str) -> str | None:
        return parse_condensed(text)

    def parse_similarity(self, text: str) -> float | None:
        return parse_similarity(text)

    def parse_guidance(self, text: str) -> Guidance:
        return parse_guidance(text)

    def parse_reply(self, text: str) -> Reply:
        return parse_reply(text)

    def turn(self, guidance: str, reply: Reply) -> Turn:
        """One dialogue turn as the next IoT prompts show it."""
        return Turn(guidance, reply.explanation, reply.answer, reply.uncertainty, reply.final)

    def claims(self, text: str) -> list[Claim]:
        return extract_claims(text)

    # ---------------------------------------------------------------- steps and chains

    def after(self, step: ParsedStep) -> State | None:
        return step.state

    def step_key(self, step: ParsedStep) -> Hashable:
        return (step.a, step.op, step.b)

    def step_line(self, step: ParsedStep) -> str:
        """ToT's line for a step, from the exact state (``4 + 8 = 12 (left: 8 12)``)."""
        assert step.state is not None
        return (
            f"{format_operand(step.a)} {step.op} {format_operand(step.b)} = {step.claimed} "
            f"(left: {format_numbers(step.state.numbers)})"
        )

    def step_text(self, number: int, before: State, step: ParsedStep) -> str:
        return bot_line(number, before, step)

    def replay(self, states: Sequence[State]) -> tuple[State | None, str, bool]:
        """Replay a (possibly stitched) chain exactly from the start: each state's last
        step must follow from the state before."""
        state = self.start()
        for i, after in enumerate(states, 1):
            step = after.steps[-1] if after.steps else None
            if step is None:
                return None, f"step {i} is empty", False
            try:
                state = apply(state, step.a, step.op, step.b)
            except StepError as exc:
                return None, f"step {i} does not follow: {exc}", False
        if self.is_goal(state):
            return state, f"reaches {self.hand.target} exactly", True
        if len(state.numbers) == 1:
            return state, f"ends at {state.left()}, not {self.hand.target}", False
        return state, f"stops with {state.left()} left", False

    def similarity(self, a: str, b: str) -> float:
        return similarity(a, b)

    # ---------------------------------------------------------------- paper mode (Claiming)

    def claimed(self, step: ParsedStep, state: State) -> ClaimedState | None:
        """The state the model claims ``step`` leads to (its ``New set`` / ``left:``)."""
        return claimed_state(state, step)

    def claimed_line(self, step: ParsedStep, after: State) -> str:
        return claimed_line(step, after)

    def claimed_text(self, number: int, before: State, step: ParsedStep, after: State) -> str:
        return claimed_bot_line(number, before, step, after)

    def replay_claimed(self, states: Sequence[State]) -> tuple[State | None, str, bool]:
        """A (possibly stitched) chain of claimed states as the model wrote it: its steps
        in order, ending at the last state's numbers. Solved only when it claims the target
        and its expression passes the exact check."""
        if not states:
            return None, "no steps", False
        steps = tuple(s.steps[-1] for s in states if s.steps)
        final = ClaimedState(states[-1].numbers, steps)
        answer = self.answer_of(final)
        if answer is None:
            return final, f"stops with {final.left() or 'nothing'} left", False
        verdict = self.check(answer)
        if not self.is_goal(final):
            return final, f"ends at {final.left()}, not {self.hand.target}", False
        if not verdict.ok:
            return final, f"claims {self.hand.target}, but {answer}: {verdict.reason}", False
        return final, f"reaches {self.hand.target} exactly", True
