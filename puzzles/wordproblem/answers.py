"""Reading and checking the answers people type to word problems.

A word problem's answer is one exact number. People write it many ways, and all of these read
as eighteen: ``18``, ``$18``, ``18.00``, ``18 dollars``, ``18 cm``, ``The answer is 18.``,
``x = 18``, ``#### 18``. Fractions (``3/4``, ``1 1/2``), decimals (``0.75``), signs (``-2``)
and thousands separators (``1,800``, ``$12,345.60``) are read too. The rules:

* **One number.** Text with two numbers (``18 or 19``) or a calculation (``3*6``) is refused
  with a reason; the answer is a number, not the working.
* **Units and currency are dropped.** Words after the number (``apples``, ``km/h``,
  ``square feet``, ``cm^2``) and a currency sign before or after it are ignored.
* **Commas.** A comma is a thousands separator only between groups of exactly three digits
  (``1,800``, ``12,345.6``). Anything else (``1,5``, ``1,50``) is ambiguous — a decimal comma
  or a typo — and is refused with a reason rather than guessed. A point is always a decimal
  point, so ``1.800`` is 1.8.
* **Percent.** ``75%`` (or ``75 percent``) is read as the number 75 carrying a percent sign.
  By default (:attr:`PercentPolicy.EITHER`) it matches an expected answer of 75 — GSM8K records
  the answer to "what percent ...?" as the percentage number — or of 0.75 (3/4), where the
  stored answer is a fraction or rate. The two readings differ a hundredfold, so accepting
  both cannot turn a wrong answer into a right one by accident. A plain ``0.75`` does not
  match 75: a hint says the answer is asked in percent. :class:`PercentPolicy` narrows this.
* **Exact.** ``0.33`` is not ``1/3``; the verdict says the value is close but not exact.

Reading goes through :func:`puzzles.arith.parse_number`, the one door from text to numbers.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from fractions import Fraction

from puzzles.arith import ArithError, format_number, parse, parse_number

__all__ = [
    "MAX_ANSWER_LENGTH",
    "Answer",
    "AnswerError",
    "PercentPolicy",
    "Verdict",
    "check_answer",
    "read_answer",
    "show_number",
]

MAX_ANSWER_LENGTH = 200
"""Longest typed answer read, in characters."""


def show_number(value: Fraction) -> str:
    """A number as a solution writes it: ``12``, ``12.5`` (a terminating decimal of at most
    four places) or ``8/3``; every form reads back exactly through :mod:`puzzles.arith`."""
    if value.denominator == 1:
        return str(value.numerator)
    scaled = value * 10_000
    if scaled.denominator == 1:
        sign = "-" if value < 0 else ""
        whole, frac = divmod(abs(scaled.numerator), 10_000)
        return f"{sign}{whole}.{frac:04d}".rstrip("0")
    return format_number(value)


class AnswerError(ValueError):
    """Text that cannot be read as one answer, with a reason a person can read."""


class PercentPolicy(enum.StrEnum):
    """What ``75%`` may match."""

    NUMBER = "number"
    """``75%`` means 75 (the GSM8K convention for "what percent ...?")."""
    FRACTION = "fraction"
    """``75%`` means 0.75."""
    EITHER = "either"
    """Either reading may match (the default)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A typed answer as read: its number, whether a percent sign followed it, and its unit."""

    value: Fraction
    percent: bool = False
    unit: str = ""

    def readings(self, policy: PercentPolicy = PercentPolicy.EITHER) -> tuple[Fraction, ...]:
        """The values this answer may stand for under ``policy``."""
        if not self.percent or policy is PercentPolicy.NUMBER:
            return (self.value,)
        if policy is PercentPolicy.FRACTION:
            return (self.value / 100,)
        return (self.value, self.value / 100)

    def __str__(self) -> str:
        return show_number(self.value) + ("%" if self.percent else "")


@dataclass(frozen=True, slots=True)
class Verdict:
    """The exact judgement of a typed answer, with a reason a person can read.

    ``readable`` is false when the text could not be read as an answer at all, so a game can
    ask again instead of counting a miss. A reason may say how an answer is off (a fraction
    where a percentage was asked, a rounded value) but never states the expected answer."""

    ok: bool
    reason: str
    value: Fraction | None = None
    given: str = ""
    readable: bool = True


# ------------------------------------------------------------------ reading

_LEAD = re.compile(
    r"""^(?:(?:so|thus|therefore|hence)\b\s*,?\s*)?
    (?:
        (?:the\s+)?(?:final\s+)?answer\s*(?:is\b\s*[:=]?|[:=])?
      | (?:it|that)\s*(?:\bis\b|['’]s)
      | [#]{2,}
      | a\s*:
      | [a-z]\s*=
      | =
    )\s*""",
    re.IGNORECASE | re.VERBOSE,
)
_WRAPPERS = "*_`\"'“”‘’ \t"
_EXPONENT = re.compile(r"(?<=[^\W\d_])\s*\^\s*([23])(?!\d)")
_NUMBER = r"\d+\s+\d+\s*/\s*\d+|\d+\s*/\s*\d+|[\d,]*\d(?:\.\d*)?|\.\d+"
_CURRENCY = "$€£¥₹"
_SIGNS = "-−–+"
_SHAPE = re.compile(
    rf"""(?P<sign>[{_SIGNS}]?)\s*
    (?P<cur>[{_CURRENCY}]?)\s*
    (?P<sign2>[{_SIGNS}]?)\s*
    (?P<num>{_NUMBER})\s*
    (?P<pct>%|percent\b|per\s*cent\b)?\s*
    (?P<cur2>[{_CURRENCY}]?)\s*
    (?P<unit>[^\W\d](?:[^\W\d]|[\s/.'’²³-]){{0,39}})?""",
    re.IGNORECASE | re.VERBOSE,
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d*)?")
_ANY_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:\s*/\s*\d+)?|\.\d+")


def _strip(text: str) -> str:
    core = text.strip().strip(_WRAPPERS)
    # A lead-in ("The answer is", "x =") may itself be wrapped: "The answer is **18**."
    core = _LEAD.sub("", core, count=1).strip().strip(_WRAPPERS)
    # Sentence ends: "18.", "18 dollars!" ("18.5" keeps its point: digits follow it).
    while core[-1:] in (".", "!", "?", ";", ","):
        core = core[:-1].rstrip().strip(_WRAPPERS)
    return _EXPONENT.sub(lambda m: "²" if m.group(1) == "2" else "³", core)


def _decimal(text: str) -> Fraction:
    if "," in text:
        if not _THOUSANDS.fullmatch(text):
            raise AnswerError(_comma_reason(text))
        text = text.replace(",", "")
    return parse_number(text)


def _comma_reason(text: str) -> str:
    whole, _, rest = text.partition(",")
    if text.count(",") == 1 and "." not in text and rest.isdigit():
        return (
            f"{text!r} is ambiguous: the comma could be a decimal comma ({whole}.{rest}) or a "
            f"thousands separator ({whole}{rest}); write {whole}.{rest} or {whole}{rest}"
        )
    return (
        f"{text!r} is ambiguous: commas separate thousands only between groups of three "
        "digits (1,800); use a point for decimals (1.5)"
    )


def _fraction(num: str, den: str) -> Fraction:
    d = parse_number(den)
    if d == 0:
        raise AnswerError("division by zero")
    return parse_number(num) / d


def _value(num: str) -> Fraction:
    compact = re.sub(r"\s*/\s*", "/", num.strip())
    parts = compact.split()
    if len(parts) == 2:  # a mixed number: 1 1/2
        top, _, bottom = parts[1].partition("/")
        return parse_number(parts[0]) + _fraction(top, bottom)
    if "/" in compact:
        top, _, bottom = compact.partition("/")
        return _fraction(top, bottom)
    return _decimal(compact)


def _diagnose(original: str, core: str) -> AnswerError:
    numbers = _ANY_NUMBER.findall(core)
    if not numbers:
        return AnswerError("no number found; write the answer in digits, e.g. 18")
    if len(numbers) > 1:
        try:
            tree = parse(core)
        except ArithError:
            shown = ", ".join(n.strip() for n in numbers[:4])
            return AnswerError(f"found more than one number ({shown}); give a single answer")
        return AnswerError(
            f"{core!r} is a calculation ({tree.render()}); give its result as a single number"
        )
    return AnswerError(f"could not read {original.strip()[:60]!r} as a number")


def read_answer(text: str) -> Answer:
    """Read one typed answer (see the module notes); :class:`AnswerError` with a reason when
    the text is not one number."""
    if not isinstance(text, str):
        raise AnswerError("an answer is text")
    if len(text) > MAX_ANSWER_LENGTH:
        raise AnswerError(
            f"the answer is too long ({len(text)} characters; at most {MAX_ANSWER_LENGTH})"
        )
    if not text.strip():
        raise AnswerError("no answer given")
    core = _strip(text)
    if not core:
        raise AnswerError("no number found; write the answer in digits, e.g. 18")
    m = _SHAPE.fullmatch(core)
    if m is None:
        raise _diagnose(text, core)
    if m["sign"] and m["sign2"]:
        raise AnswerError(f"could not read {text.strip()!r}: two signs")
    if m["cur"] and m["cur2"]:
        raise AnswerError(f"could not read {text.strip()!r}: two currency signs")
    try:
        value = _value(m["num"])
    except ArithError as exc:
        raise AnswerError(f"could not read {m['num']!r}: {exc}") from None
    if (m["sign"] or m["sign2"]) in ("-", "−", "–"):
        value = -value
    unit = (m["unit"] or "").strip()
    return Answer(value, bool(m["pct"]), unit or m["cur"] or m["cur2"] or "")


# ------------------------------------------------------------------ checking


def _is_terminating(value: Fraction) -> bool:
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def check_answer(
    text: str, expected: Fraction | int, *, percent: PercentPolicy = PercentPolicy.EITHER
) -> Verdict:
    """Judge a typed answer against the exact expected value (see the module notes)."""
    expected = Fraction(expected)
    try:
        answer = read_answer(text)
    except AnswerError as exc:
        return Verdict(False, str(exc), readable=False)
    given = str(answer)
    readings = answer.readings(percent)
    for reading in readings:
        if reading == expected:
            note = "" if given == text.strip() else f" (read as {given})"
            return Verdict(True, f"correct{note}", reading, given)
    value = readings[0]
    if answer.percent and percent is PercentPolicy.NUMBER and answer.value / 100 == expected:
        reason = "not as asked: give the answer as a plain number, not a percentage"
    elif answer.percent and percent is PercentPolicy.FRACTION and answer.value == expected:
        reason = "not as asked: the answer is a number of percent; leave out the % sign"
    elif not answer.percent and value * 100 == expected and expected != 0:
        reason = f"not as asked: {given} is a fraction; this answer is asked in percent"
    elif not _is_terminating(expected) and abs(value - expected) <= abs(expected) / 100:
        reason = f"close, but {given} is rounded; give the exact value (a fraction such as 2/3)"
    else:
        reason = f"{given} is not correct"
    return Verdict(False, reason, value, given)
