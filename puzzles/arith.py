"""The one door from text to numbers.

Everything in ponder that turns text into a number comes through here: the player's typed
expression, an LLM's step, a tool call. The parser is a small hand-written recursive-descent
parser over a whitelist of tokens (numbers, ``+ - * /``, ``x × ÷ ·``, parentheses, unary
minus). Values are exact :class:`fractions.Fraction`. There is no ``eval``, no ``sympify``
and no ``parse_expr`` anywhere on this path.

Numbers are read as people write them: ``1,800`` and ``$12.50``, mixed numbers (``1 1/4``),
percents (``30%`` is 30/100, ``25% of 80`` a product), implicit products (``2(40+9)``) and
the LaTeX-light of chat models (``4 \\times 6``, ``\\frac{8}{3}``, ``$...$``; see
:mod:`puzzles.latex`).

Hostile input is bounded: the text length, the nesting depth, the digits of a literal and the
size of every intermediate value are limited, so any input fails fast with :class:`ArithError`
(and never with anything else).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from puzzles.latex import Plain, plain

__all__ = [
    "MAX_BITS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "MAX_LITERAL_DIGITS",
    "MIXED_NUMBER",
    "ArithError",
    "BinOp",
    "Claim",
    "ClaimSides",
    "ClaimStatus",
    "Expr",
    "Neg",
    "Num",
    "StepReading",
    "claim_sides",
    "evaluate",
    "expression_line",
    "extract_claims",
    "format_decimal",
    "format_number",
    "format_operand",
    "leading_expression",
    "parse",
    "parse_number",
    "read_step",
    "verify_claim",
]

MAX_LENGTH = 1000
"""Longest text the parser accepts, in characters."""
MAX_DEPTH = 64
"""Deepest nesting of parentheses and unary minus."""
MAX_LITERAL_DIGITS = 40
"""Most digits in one number literal."""
MAX_BITS = 4096
"""Largest numerator or denominator of any value, in bits."""


class ArithError(ValueError):
    """Text that is not acceptable arithmetic, with a reason a person can read."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"{self.message} (at character {self.position + 1})"


# ---------------------------------------------------------------------------- tokens

_MUL = {"*", "x", "X", "×", "·", "∙", "⋅"}
_DIV = {"/", "÷", "∕"}
_MINUS = {"-", "−", "–", "—"}
_PLUS = {"+"}
_OPEN = {"(", "["}
_CLOSE = {")", "]"}
_NUMBER_RE = re.compile(r"\d+(?:\.\d*)?|\.\d+")
# "1,800" and "12,345.5": digits grouped by threes, as people write amounts.
_GROUPED_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?!,?\d)(?:\.\d+)?")
_CURRENCY = {"$", "€", "£"}
_MARKS = _CURRENCY | {"~", "≈"}
# "7 * 1 1/4": a whole number and a proper fraction written tight after it is one number
# (1 1/4 = 5/4). Not after a word, a point, a comma or a slash ("step 2 3/4", "1.5 1/2"), nor
# before a slash of its own ("1 1/2/3"; "2 1/2 / 5" divides 2 1/2); "12 150/2" (no proper
# fraction) and "2 1 / 4" (a division) are no mixed numbers.
MIXED_NUMBER = r"(?<![\w.,/])(?<![Ss]tep )\d{1,9}[ \t]+\d{1,9}/\d{1,9}(?![\w,/]|\.\d)"
"""A mixed number as people write it (``1 1/4``); one number only with a proper fraction."""
_MIXED_RE = re.compile(MIXED_NUMBER)
_MIXED_PARTS = re.compile(r"([-−]?)\s*(\d+)\s+(\d+)/(\d+)")
_OF_RE = re.compile(r"of(?![^\W\d_])", re.IGNORECASE)


def _proper_mixed(text: str) -> bool:
    """Whether ``text`` (a match of the mixed-number pattern) has a proper fraction."""
    m = _MIXED_PARTS.fullmatch(text.strip())
    return m is not None and int(m.group(3)) < int(m.group(4))


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "num", "op", "open", "close"
    text: str
    pos: int


def _percent_sign(text: str, i: int, tokens: list[_Token]) -> bool:
    """Whether the ``%`` at ``text[i]`` is a percent (``20%``, ``(1/4)%``): after a number or
    a bracket and before nothing that could be its right operand. ``7 % 2`` is a remainder,
    which ponder does not take."""
    if not tokens or tokens[-1].kind not in ("num", "close"):
        return False
    rest = text[i + 1 :].lstrip()
    return not rest or not (rest[0].isdigit() or rest[0] == "." or rest[0] in _OPEN)


def _number_token(text: str, i: int, tokens: list[_Token]) -> int:
    """Read the number at ``text[i]`` into ``tokens``; where it ends."""
    mixed = _MIXED_RE.match(text, i)
    if mixed is not None and _proper_mixed(mixed.group()):
        m: re.Match[str] | None = mixed
    else:
        m = _GROUPED_RE.match(text, i) or _NUMBER_RE.match(text, i)
    if m is None:
        raise ArithError(f"unexpected {text[i]!r}", i)
    digits = sum(c.isdigit() for c in m.group())
    if digits > MAX_LITERAL_DIGITS:
        raise ArithError(f"number has too many digits ({digits}; at most {MAX_LITERAL_DIGITS})", i)
    tokens.append(_Token("num", " ".join(m.group().replace(",", "").split()), i))
    return m.end()


def _latex_refused(text: str, i: int) -> str:
    command = re.match(r"\\[A-Za-z]*", text[i:])
    name = command.group() if command else "\\"
    if name in ("\\frac", "\\dfrac", "\\tfrac"):
        return f"a number right before {name} is ambiguous (a mixed number or a product)"
    return f"{name} is not arithmetic ponder reads; use + - * / only"


def _tokenize(text: str) -> list[_Token]:
    if len(text) > MAX_LENGTH:
        raise ArithError(f"expression is too long ({len(text)} characters; at most {MAX_LENGTH})")
    tokens: list[_Token] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in _MARKS and i + 1 < n and (text[i + 1].isdigit() or text[i + 1] == "."):
            i += 1  # "$18": a currency mark on an amount; "~4.33": an approximate one
            continue
        if ch.isdigit() or ch == ".":
            i = _number_token(text, i, tokens)
            continue
        if tokens and tokens[-1].kind == "pct" and (of := _OF_RE.match(text, i)):
            tokens.append(_Token("op", "*", i))  # "25% of 80" is 25% * 80
            i = of.end()
            continue
        if ch in _MUL:
            tokens.append(_Token("op", "*", i))
        elif ch in _DIV:
            tokens.append(_Token("op", "/", i))
        elif ch in _MINUS:
            tokens.append(_Token("op", "-", i))
        elif ch in _PLUS:
            tokens.append(_Token("op", "+", i))
        elif ch in _OPEN:
            tokens.append(_Token("open", "(", i))
        elif ch in _CLOSE:
            tokens.append(_Token("close", ")", i))
        elif ch == "%" and _percent_sign(text, i, tokens):
            tokens.append(_Token("pct", "%", i))
        elif ch in "^%":
            raise ArithError(f"operator {ch!r} is not allowed; use + - * / only", i)
        elif ch == "\\":
            raise ArithError(_latex_refused(text, i), i)
        else:
            raise ArithError(f"unexpected {ch!r}", i)
        i += 1
    return tokens


# ---------------------------------------------------------------------------- tree


def _check_size(value: Fraction, pos: int | None = None) -> Fraction:
    if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise ArithError("number is too large", pos)
    return value


class Expr:
    """A parsed arithmetic expression with an exact value."""

    value: Fraction

    def leaves(self) -> Iterator[Num]:
        """The number literals in left-to-right order."""
        raise NotImplementedError

    def render(self) -> str:
        """Normalised text: ``*`` and ``/`` for the operators, minimal parentheses."""
        raise NotImplementedError

    def _prec(self) -> int:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Num(Expr):
    """A number literal."""

    value: Fraction
    text: str = ""
    pos: int = 0

    def leaves(self) -> Iterator[Num]:
        yield self

    def render(self) -> str:
        if " " in self.text:
            return f"({self.text})"  # a mixed number, 1 1/4: one operand whatever follows
        return self.text or format_number(self.value)

    def _prec(self) -> int:
        return 4


@dataclass(frozen=True, slots=True)
class Neg(Expr):
    """Unary minus."""

    operand: Expr
    value: Fraction = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", -self.operand.value)

    def leaves(self) -> Iterator[Num]:
        yield from self.operand.leaves()

    def render(self) -> str:
        inner = self.operand.render()
        return f"-{inner}" if self.operand._prec() >= 3 else f"-({inner})"

    def _prec(self) -> int:
        return 3


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """A binary operation ``left op right`` with op one of ``+ - * /``."""

    op: str
    left: Expr
    right: Expr
    pos: int = 0
    value: Fraction = field(init=False)

    def __post_init__(self) -> None:
        a, b = self.left.value, self.right.value
        if self.op == "+":
            v = a + b
        elif self.op == "-":
            v = a - b
        elif self.op == "*":
            v = a * b
        elif self.op == "/":
            if b == 0:
                raise ArithError("division by zero", self.pos)
            v = a / b
        else:  # pragma: no cover - the parser only builds these four
            raise ArithError(f"unknown operator {self.op!r}", self.pos)
        object.__setattr__(self, "value", _check_size(v, self.pos))

    def leaves(self) -> Iterator[Num]:
        yield from self.left.leaves()
        yield from self.right.leaves()

    def _prec(self) -> int:
        return 1 if self.op in "+-" else 2

    def render(self) -> str:
        p = self._prec()
        left = self.left.render()
        if self.left._prec() < p:
            left = f"({left})"
        right = self.right.render()
        # Right operands of - and / need brackets at equal precedence: a-(b-c), a/(b*c).
        if self.right._prec() < p or (self.right._prec() == p and self.op in "-/"):
            right = f"({right})"
        return f"{left} {self.op} {right}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def parse(self) -> Expr:
        if not self.tokens:
            raise ArithError("empty expression")
        node = self.expr()
        tok = self.peek()
        if tok is not None:
            if tok.kind == "close":
                raise ArithError("unmatched ')'", tok.pos)
            if tok.kind in ("num", "open"):
                raise ArithError("missing operator between terms", tok.pos)
            raise ArithError(f"unexpected {tok.text!r}", tok.pos)
        return node

    def _enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithError(f"expression is nested too deeply (at most {MAX_DEPTH} levels)", pos)

    def expr(self) -> Expr:
        node = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            node = BinOp(tok.text, node, self.term(), tok.pos)
        return node

    def term(self) -> Expr:
        node = self.unary()
        divided = False
        while (tok := self.peek()) is not None:
            if tok.kind == "op" and tok.text in "*/":
                self.take()
                node = BinOp(tok.text, node, self.unary(), tok.pos)
                divided = tok.text == "/"
            elif self._implicit_times():
                if divided:
                    # 6/2(1+2): 6/(2*3) or (6/2)*3? Writers differ; so is no reading.
                    raise ArithError(
                        "a bracket right after a division is ambiguous; write * or more brackets",
                        tok.pos,
                    )
                node = BinOp("*", node, self.primary(), tok.pos)
            else:
                break
        return node

    def _implicit_times(self) -> bool:
        """Whether the next token multiplies what came before without a ``*``, as people
        write it: a bracket after a number or a bracket (``2(40+9)``, ``(2)(3)``,
        ``2 (3 + 4)``), or a number glued to a closing bracket (``(1/4)24``)."""
        if self.i == 0 or self.i >= len(self.tokens):
            return False
        before, tok = self.tokens[self.i - 1], self.tokens[self.i]
        if tok.kind == "open":
            return before.kind in ("num", "close")
        glued = before.pos + len(before.text) == tok.pos
        return tok.kind == "num" and before.kind == "close" and glued

    def unary(self) -> Expr:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            self._enter(tok.pos)
            operand = self.unary()
            self.depth -= 1
            return Neg(operand) if tok.text == "-" else operand
        return self.primary()

    def primary(self) -> Expr:
        node = self._operand()
        while (tok := self.peek()) is not None and tok.kind == "pct":
            self.take()  # a percent is a number over 100: 30% is 30/100
            node = BinOp("/", node, Num(Fraction(100), "100", tok.pos), tok.pos)
        return node

    def _operand(self) -> Expr:
        tok = self.peek()
        if tok is None:
            raise ArithError("expression ends too early", len(self.text))
        if tok.kind == "num":
            self.take()
            return Num(parse_number(tok.text), tok.text, tok.pos)
        if tok.kind == "open":
            self.take()
            self._enter(tok.pos)
            node = self.expr()
            self.depth -= 1
            close = self.peek()
            if close is None or close.kind != "close":
                raise ArithError("missing ')'", tok.pos)
            self.take()
            return node
        if tok.kind == "close":
            raise ArithError("unexpected ')'", tok.pos)
        raise ArithError(f"expected a number before {tok.text!r}", tok.pos)


def combine(a: Fraction, op: str, b: Fraction) -> Fraction | None:
    """``a op b`` exactly for one of ``+ - * /``; None for a division by zero or another
    operator."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/" and b != 0:
        return a / b
    return None


def parse_number(text: str) -> Fraction:
    """An exact value for a literal such as ``12``, ``2.5``, ``.75``, ``3/4`` or the mixed
    number ``1 1/4``."""
    text = text.strip()
    mixed = _MIXED_PARTS.fullmatch(text)
    if mixed is not None and int(mixed.group(3)) < int(mixed.group(4)):
        sign, whole, top, bottom = mixed.groups()
        value = int(whole) + Fraction(int(top), int(bottom))
        return -value if sign else value
    if "/" in text:
        num, _, den = text.partition("/")
        d = parse_number(den)
        if d == 0:
            raise ArithError("division by zero")
        return parse_number(num) / d
    neg = text[:1] in _MINUS
    if neg:
        text = text[1:]
    if not _NUMBER_RE.fullmatch(text):
        raise ArithError(f"not a number: {text!r}")
    if sum(c.isdigit() for c in text) > MAX_LITERAL_DIGITS:
        raise ArithError(f"number has too many digits (at most {MAX_LITERAL_DIGITS})")
    whole, _, frac = text.partition(".")
    value = Fraction(int(whole or "0"))
    if frac:
        value += Fraction(int(frac), 10 ** len(frac))
    return -value if neg else value


def parse(text: str) -> Expr:
    """Parse ``text`` into an expression tree, or raise :class:`ArithError`."""
    if not isinstance(text, str):
        raise ArithError("expression must be text")
    if len(text) > MAX_LENGTH:  # before its LaTeX is made plain: the length as written
        raise ArithError(f"expression is too long ({len(text)} characters; at most {MAX_LENGTH})")
    written = plain(text)
    try:
        return _Parser(written.text).parse()
    except ArithError as exc:
        if exc.position is None or written.same:
            raise
        at = written.source(exc.position, exc.position + 1)[0]
        raise ArithError(exc.message, at) from None


def evaluate(text: str) -> Fraction:
    """The exact value of an arithmetic expression."""
    return parse(text).value


def format_number(value: Fraction | int) -> str:
    """``24``, ``-3``, ``8/3``: integers plainly, other rationals as a fraction."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def format_decimal(value: Fraction, places: int = 4) -> str:
    """A short decimal rendering for display beside an exact fraction."""
    if value.denominator == 1:
        return str(value.numerator)
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")
    return sign + text


# ---------------------------------------------------------------------------- claims


_APPROX_WORDS_TEXT = ("approx", "approximately", "about", "roughly", "around", "ca", "circa")
"""Words that make a value approximate: ``= approx. 2.71``, ``= about 2.71``."""


class ClaimStatus(enum.StrEnum):
    """How a claimed value compares with the exact value."""

    EXACT = "exact"
    APPROX = "approx"
    WRONG = "wrong"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Claim:
    """An arithmetic claim ``lhs = rhs`` and its verdict."""

    text: str
    lhs: str
    rhs: str
    status: ClaimStatus
    claimed: Fraction | None
    exact: Fraction | None
    reason: str = ""
    span: tuple[int, int] = (0, 0)
    approximate: bool = False
    """Written as approximate (``11 / 3 ≈ 3.67``, ``= approx. 2.71``): judged as a rounding."""

    @property
    def ok(self) -> bool:
        """True when the claim is exact or a fair rounding of the exact value."""
        return self.status in (ClaimStatus.EXACT, ClaimStatus.APPROX)

    @property
    def exact_text(self) -> str | None:
        """The exact value as people read it (``8/3``), or None when there is none."""
        return format_number(self.exact) if self.exact is not None else None

    @property
    def equals(self) -> str:
        """The sign between the sides as the writer meant it: ``≈`` or ``=``."""
        return "≈" if self.approximate else "="

    def describe(self) -> str:
        """One line for people: ``✓ 4 + 8 = 12``, ``≈ 8 / 3 = 2.67 (exactly 8/3)``; a claim
        that cannot be read is ``?`` with the reason (never ✗: nothing was shown wrong)."""
        said = f"{self.lhs} {self.equals} {self.rhs}"
        if self.status is ClaimStatus.EXACT:
            return f"✓ {said}"
        if self.status is ClaimStatus.APPROX and self.exact is not None:
            return f"≈ {said} (exactly {format_number(self.exact)})"
        if self.status is ClaimStatus.WRONG and self.exact is not None:
            return f"✗ {said} (actually {format_number(self.exact)})"
        return f"? {said} ({self.reason})"


# A value written to some places: an amount ($1,200.50), a decimal (2.67), a percent (33.3%).
_ROUNDED_RHS = re.compile(
    r"[-−]?\s*[$€£]?\s*(?P<whole>\d{1,3}(?:,\d{3})+|\d*)(?:\.(?P<places>\d+))?\s*(?P<pct>%)?"
)


def rounding_unit(rhs_text: str, approximate: bool = False) -> Fraction | None:
    """One unit of the last place ``rhs_text`` is written to, when it is a rounded value:
    ``2.67`` gives 1/100, ``33.3%`` 1/1000, ``33%`` 1/100; a whole number only when written
    as approximate, to its last non-zero digit (``≈ 18,800`` gives 100, ``≈ 4`` gives 1).
    None for anything else (a fraction, an expression, a whole number said exactly)."""
    m = _ROUNDED_RHS.fullmatch(rhs_text.strip())
    if m is None or not (m["whole"] or m["places"]):
        return None
    scale = Fraction(1, 100) if m["pct"] else Fraction(1)
    if m["places"]:
        return scale / Fraction(10) ** len(m["places"])
    if m["pct"]:
        return scale
    if not approximate:
        return None
    digits = m["whole"].replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    return Fraction(10) ** zeros


def _compare(
    lhs: Expr, rhs_text: str, rhs_value: Fraction, approximate: bool = False
) -> ClaimStatus:
    if lhs.value == rhs_value:
        return ClaimStatus.EXACT
    # A value shown to some place is a fair report of the exact value if it is within one
    # unit of that place: covers both rounding (2.67) and truncation (2.66).
    unit = rounding_unit(rhs_text, approximate)
    if unit is not None and abs(lhs.value - rhs_value) < unit:
        return ClaimStatus.APPROX
    if approximate and _within_rounding(lhs, rhs_value, unit or Fraction(0)):
        return ClaimStatus.APPROX
    return ClaimStatus.WRONG


_Interval = tuple[Fraction, Fraction]


def _within_rounding(lhs: Expr, claimed: Fraction, unit: Fraction) -> bool:
    """An approximate claim whose operands are rounded too (``10 / 1.8333 ≈ 5.4545``, where
    1.8333 stands for 11/6): fair if the claimed value is within ``unit`` of what the left
    side gives when each decimal of two places or more in it (a rounded value; ``1.5`` is
    taken as written) is anywhere within one unit of its last place."""
    span = _interval(lhs)
    return span is not None and span[0] - unit < claimed < span[1] + unit


def _interval(node: Expr) -> _Interval | None:
    """Bounds of ``node`` when each decimal literal of two places or more may be off by one
    unit of its last place (interval arithmetic); None when a divisor's bounds include 0."""
    if isinstance(node, Num):
        places = node.text.partition(".")[2]
        rounded = places.isdigit() and len(places) >= 2
        slack = Fraction(1, 10 ** len(places)) if rounded else Fraction(0)
        return node.value - slack, node.value + slack
    if isinstance(node, Neg):
        inner = _interval(node.operand)
        return None if inner is None else (-inner[1], -inner[0])
    if isinstance(node, BinOp):
        a, b = _interval(node.left), _interval(node.right)
        if a is None or b is None or (node.op == "/" and b[0] <= 0 <= b[1]):
            return None
        ends = [combine(x, node.op, y) for x in a for y in b]
        values = [v for v in ends if v is not None]
        return (min(values), max(values)) if values else None
    return None


_CLAIM_SIGN = re.compile(r"=~|~=|[=≈≃]")


@lru_cache(maxsize=4096)
def verify_claim(text: str, *, approximate: bool = False) -> Claim:
    """Verify a claim written ``lhs = rhs`` (or ``lhs ≈ rhs``, ``lhs = approx. rhs``: then
    judged as approximate, as it is with ``approximate``); both sides are arithmetic.

    The verdict is a function of the text alone, and a solver checks the same claims again
    and again (every BoT tree proposes its first steps from the same numbers): each text is
    parsed once, and the same (immutable) claim given back after."""
    if len(text) > MAX_LENGTH:
        raise ArithError(f"claim is too long ({len(text)} characters; at most {MAX_LENGTH})")
    sign = _CLAIM_SIGN.search(text)
    if sign is None:
        raise ArithError("a claim needs '='")
    lhs, rhs = text[: sign.start()].strip(), text[sign.end() :].strip()
    marks = _APPROX_MARK.match(rhs)
    approximate = approximate or sign.group() != "=" or marks is not None
    rhs = rhs[marks.end() :] if marks else rhs
    return _judge(text.strip(), lhs, rhs, (0, len(text)), approximate=approximate)


_LONGEST_FIRST = "|".join(sorted(_APPROX_WORDS_TEXT, key=len, reverse=True))
_APPROX_MARK = re.compile(rf"(?:[~≈]\s*|(?:{_LONGEST_FIRST})\b\.?\s*)+", re.IGNORECASE)
"""The marks of an approximate value at the start of a right side: ``approx. 2.71``."""


def _judge(
    text: str, lhs: str, rhs: str, span: tuple[int, int], *, approximate: bool = False
) -> Claim:
    invalid = ClaimStatus.INVALID
    function = _function_named(lhs) or _function_named(rhs)
    if function is not None:
        why = f"{function}(…) is a function: only + - × ÷, powers and brackets are checked"
        return Claim(text, lhs, rhs, invalid, None, None, why, span, approximate)
    try:
        left = parse(lhs)
    except ArithError as exc:
        return Claim(text, lhs, rhs, invalid, None, None, exc.message, span, approximate)
    try:
        right_expr = parse(rhs)
    except ArithError as exc:
        return Claim(text, lhs, rhs, invalid, None, left.value, exc.message, span, approximate)
    status = _compare(left, rhs, right_expr.value, approximate)
    return Claim(text, lhs, rhs, status, right_expr.value, left.value, "", span, approximate)


# ---------------------------------------------------------------------------- step lines


def format_operand(value: Fraction | int) -> str:
    """A number as an operand in text ponder writes: ``8``, ``(8/3)``, ``(-2)``; bracketed
    whenever it is not a plain whole number, so ``8 / (8/3)`` can never be read otherwise."""
    text = format_number(value)
    return text if text.isdigit() else f"({text})"


@dataclass(frozen=True, slots=True)
class StepReading:
    """One way to read the left side of a step line as ``a op b``."""

    a: Fraction
    op: str
    b: Fraction
    a_text: str
    b_text: str
    spaced: bool = False  # the spacing says so: tight fractions, a spaced operator

    @property
    def text(self) -> str:
        """The reading with its operands bracketed: ``8 / (8/3)``."""
        return f"{_bracket(self.a_text)} {self.op} {_bracket(self.b_text)}"


def _bracket(operand: str) -> str:
    return f"({operand})" if ("/" in operand or operand.startswith("-")) else operand


def _operand(tokens: list[_Token], text: str) -> tuple[Fraction, str, bool] | None:
    """A single number, a signed number, or a fraction ``p/q``, optionally in brackets:
    its value, its text, and whether its slash (if any) is written tight (``8/3``)."""
    if len(tokens) >= 3 and tokens[0].kind == "open" and tokens[-1].kind == "close":
        inner = _operand(tokens[1:-1], text)
        return None if inner is None else (inner[0], inner[1], True)
    sign = 1
    if tokens and tokens[0].kind == "op" and tokens[0].text == "-":
        sign, tokens = -1, tokens[1:]
    if len(tokens) == 1 and tokens[0].kind == "num":
        value = parse_number(tokens[0].text)
        return sign * value, ("-" if sign < 0 else "") + tokens[0].text, True
    if (
        len(tokens) == 3
        and tokens[0].kind == tokens[2].kind == "num"
        and tokens[1].kind == "op"
        and tokens[1].text == "/"
    ):
        num, den = parse_number(tokens[0].text), parse_number(tokens[2].text)
        if den == 0:
            return None
        slash = tokens[1].pos
        tight = not text[slash - 1 : slash].isspace() and not text[slash + 1 : slash + 2].isspace()
        written = f"{tokens[0].text}/{tokens[2].text}"
        return sign * num / den, ("-" if sign < 0 else "") + written, tight
    return None


def read_step(lhs: str) -> list[StepReading]:
    """Every reading of ``lhs`` as one step ``a op b`` whose operands are numbers or
    fractions, the likeliest first; empty when ``lhs`` is not such a step.

    ``8 / 8/3`` has two readings, ``8 / (8/3)`` and ``(8/8) / 3``. A fraction written tight
    (``8/3``) beside an operator written with spaces is one operand, so the first reading
    comes first; where spacing tells nothing (``8/8/3``) the usual left-to-right reading does.
    Which numbers are on the table may settle it (the caller knows).
    """
    try:
        tokens = _tokenize(lhs)
    except ArithError:
        return []
    if len(tokens) > 11:
        return []
    readings: list[tuple[bool, StepReading]] = []
    for k, tok in enumerate(tokens):
        if tok.kind != "op" or k == 0:
            continue
        try:
            left, right = _operand(tokens[:k], lhs), _operand(tokens[k + 1 :], lhs)
        except ArithError:
            continue
        if left is None or right is None:
            continue
        spaced = lhs[tok.pos - 1 : tok.pos].isspace() or lhs[tok.pos + 1 : tok.pos + 2].isspace()
        by_spacing = spaced and left[2] and right[2]
        readings.append(
            (by_spacing, StepReading(left[0], tok.text, right[0], left[1], right[1], by_spacing))
        )
    if len(readings) < 2:
        return [r for _, r in readings]
    try:
        usual = evaluate(lhs)
    except ArithError:
        usual = None
    spaced_ones = [r for by_spacing, r in readings if by_spacing]
    if len(spaced_ones) == 1:
        first = spaced_ones[0]
    else:
        first = next(
            (r for _, r in readings if usual is not None and _value_of(r) == usual),
            readings[0][1],
        )
    return [first, *(r for _, r in readings if r is not first)]


def _value_of(reading: StepReading) -> Fraction | None:
    try:
        return BinOp(reading.op, Num(reading.a), Num(reading.b)).value
    except ArithError:
        return None


# ---------------------------------------------------------------------------- reading prose
#
# A claim or an answer inside prose is read whole or not at all. The scanner below cuts text
# into coarse tokens and finds where an expression starts and ends: at prose words, at
# punctuation, at an opening bracket that starts a remark ("(left: 3 8)"), between two numbers
# written side by side ("1. 4 + 8" is a list marker and a claim). Everything between those
# borders is the expression, including what the parser will refuse (``sqrt(9)``, ``^ 2``,
# ``% 5``): the verdict is then "invalid" with the parser's reason, never a verdict on a
# shorter piece of the text. Where the border itself is unclear (a variable glued to a
# number, "2x + 3"; a binary operator with no left operand in reach), there is no claim.

_SCAN_NUMBER = r"[$€£]?(?:\d{1,3}(?:,\d{3})+(?!,?\d)(?:\.\d+)?|\d+(?:\.\d*)?|\.\d+)"
_SCAN_REST = (
    r"|(?P<foreign>\*\*|[\^%√]|!(?!=)|\\[A-Za-z]+)"
    r"|(?P<approx>=~|~=|[≈≃~])"
    r"|(?P<cmp>==|<=|>=|!=|[<>≠≤≥])"
    r"|(?P<eq>=)"
    r"|(?P<op>[-+*/×÷·∙⋅−–—∕])"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<nl>[\r\n])"
    r"|(?P<space>[ \t\f\v]+)"
    r"|(?P<punct>.)"
)
_SCAN_RE = re.compile(
    rf"(?P<mixed>[$€£]?{MIXED_NUMBER})|(?P<num>{_SCAN_NUMBER}){_SCAN_REST}", re.DOTALL
)
_PLAIN_SCAN_RE = re.compile(rf"(?P<num>{_SCAN_NUMBER}){_SCAN_REST}", re.DOTALL)
"""The scanner without mixed numbers: for ``12 150/2``, which is none."""
_SIDE_WINDOW = MAX_LENGTH
"""Longest side of a claim read, in characters; a longer one makes an invalid claim."""
_MAX_SCAN = MAX_LENGTH * 20
"""Characters of a text scanned for claims."""
_TIMES_WORDS = {"x", "X"}
_BULLETS = {"-", "−", "–", "—", "*", "·", "∙"}
_DASHES = {"-", "–", "—", "−"}


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # num foreign cmp eq op open close word nl punct
    text: str
    start: int
    end: int
    spaced: bool  # whitespace right before it


def _matches(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """The scanner's matches in ``text``, each with its kind; a mixed number is one ``num``."""
    for m in _SCAN_RE.finditer(text):
        kind = m.lastgroup or "punct"
        if kind != "mixed":
            yield kind, m
        elif _proper_mixed(m.group().lstrip("$€£")):
            yield "num", m
        else:
            for part in _PLAIN_SCAN_RE.finditer(text, m.start(), m.end()):
                yield part.lastgroup or "punct", part


def _scan(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    spaced = False
    for kind, m in _matches(text):
        if kind == "space":
            spaced = True
            continue
        toks.append(_Tok(kind, m.group(), m.start(), m.end(), spaced))
        spaced = False
    for i, tok in enumerate(toks):
        if tok.text not in ("*", "**"):
            continue
        # Markdown emphasis, not arithmetic: "**4 + 8 = 12**", "*12*". A star is an operator
        # only with an operand on each side; "**" with one glued operand is emphasis.
        after = toks[i + 1] if i + 1 < len(toks) else None
        # Not after a list number ("1. **4 + 8 = 12**"): "1." ends no operand.
        before = i > 0 and _value_end(toks[i - 1]) and not toks[i - 1].text.endswith(".")
        glued_after = after is not None and not after.spaced and _operand_start(after)
        following = after is not None and _operand_start(after)
        opening = not before and glued_after
        # "= 24** (left: 24)": bold closed after the value, a remark after it.
        spaced_after = tok.text == "**" and after is not None and after.spaced
        closing = before and not tok.spaced and (not following or spaced_after)
        if opening or closing or (tok.text == "**" and not (before and following)):
            toks[i] = _Tok("punct", tok.text, tok.start, tok.end, tok.spaced)
    return _approximate_operands(toks)


_SIGNS = ("eq", "approx", "cmp")


def _approximate_operands(toks: list[_Tok]) -> list[_Tok]:
    """``9 - ~4.33``: a ``~`` or ``≈`` glued to a number where an operand starts says the
    number is approximate; it joins the number (a ``~`` after an operand is a sign between
    two sides: ``11 / 3 ~3.67``)."""
    out: list[_Tok] = []
    for tok in toks:
        mark = out[-1] if out else None
        joins = mark is not None and mark.kind == "approx" and mark.text in "~≈"
        if joins and tok.kind == "num" and not tok.spaced and mark is not None:
            before = out[-2] if len(out) > 1 else None
            ends = before is not None and _value_end(before) and not before.text.endswith(".")
            if before is None or not (ends or before.kind in _SIGNS):  # not after "1."
                out[-1] = _Tok("num", mark.text + tok.text, mark.start, tok.end, mark.spaced)
                continue
        out.append(tok)
    return out


def _operand_end(tok: _Tok) -> bool:
    return tok.kind in ("num", "close")


def _value_end(tok: _Tok) -> bool:
    """The end of a value: an operand's, or a percent's (``80%``). Unlike
    :func:`_operand_end`, a ``%`` counts, though it may still turn out a remainder."""
    return _operand_end(tok) or tok.text == "%"


def _operand_start(tok: _Tok) -> bool:
    return tok.kind in ("num", "open")


def _is_call(toks: list[_Tok], i: int) -> bool:
    """A word glued to an opening bracket: a function such as ``sqrt(9)``."""
    return i + 1 < len(toks) and toks[i + 1].kind == "open" and not toks[i + 1].spaced


def _is_times(toks: list[_Tok], i: int) -> bool:
    """``x`` between two operands is multiplication (``4 x 6``), and so is ``of`` after a
    percent (``25% of 80``)."""
    if not 0 < i < len(toks) - 1:
        return False
    before, after = toks[i - 1], toks[i + 1]
    if after.kind == "op" and after.text in "-−" and i + 2 < len(toks):
        after = toks[i + 2]  # "5 x -6"
    if before.text == "%" and toks[i].text.lower() == "of":
        return _operand_start(after)  # "25% of 80"
    return toks[i].text in _TIMES_WORDS and _value_end(before) and _operand_start(after)


def _expression_kind(toks: list[_Tok], i: int) -> bool:
    tok = toks[i]
    if tok.kind in ("num", "op", "foreign", "open", "close"):
        return True
    return tok.kind == "word" and (_is_call(toks, i) or _is_times(toks, i))


def _back(toks: list[_Tok], eq: int) -> tuple[int, int, bool] | None:
    """The token range ``[first, eq)`` of the whole expression left of ``toks[eq]``, and
    whether it was read whole (False: it goes on past the window)."""
    depth = 0
    first = eq
    i = eq - 1
    while i >= 0 and _expression_kind(toks, i):
        tok = toks[i]
        if first < eq:
            head = toks[first]
            if _operand_end(tok) and head.kind == "num" and head.spaced:
                break  # "1. 4 + 8", "(left: 3 8) 4 + 8": two items side by side
            if tok.kind == "num" and tok.text.endswith(".") and head.spaced:
                break  # "1. (4 + 8) * 2": a list number, then the expression
        if tok.kind == "close":
            depth += 1
        elif tok.kind == "open":
            if depth == 0:
                break  # an opening bracket of the prose around: "(4 + 8 = 12)"
            depth -= 1
        if toks[eq - 1].end - tok.start > _SIDE_WINDOW:
            return first, eq, False
        first = i
        i -= 1
    if first == eq:
        return None
    stop = toks[i] if i >= 0 else None
    head = toks[first]
    if stop is not None and stop.kind == "word" and not head.spaced:
        return None  # glued to a word: "x2 + 3", "abc4 * 5"
    time_like = i > 0 and toks[i - 1].kind == "num" and not head.spaced
    if stop is not None and stop.text == ":" and time_like and not stop.spaced:
        return None  # a time or a ratio: "2:30 - 1:30"
    if head.kind == "op":
        line_start = stop is None or stop.kind == "nl"
        follower = toks[first + 1] if first + 1 < eq else None
        if line_start and head.text in _BULLETS and follower is not None and follower.spaced:
            first += 1  # a markdown bullet: "- 10 - 4 = 6"
        elif head.text in "*/×÷·∙⋅∕":
            return None  # a binary operator whose left operand is out of reach
        elif (
            stop is not None
            and stop.kind in ("word", "num", "foreign")
            and follower is not None
            and follower.spaced
        ):
            return None  # "y - 3 + 1": a binary minus after a variable
    if first >= eq:
        return None
    return first, eq, True


def _forward(toks: list[_Tok], begin: int, end: int | None = None) -> tuple[int, int, bool]:
    """The token range ``[begin, last)`` of the whole expression from ``toks[begin]``, and
    whether it ended cleanly (not cut by the window)."""
    stop_at = len(toks) if end is None else end
    depth = 0
    i = begin
    while i < stop_at and _expression_kind(toks, i):
        tok = toks[i]
        if i > begin:
            prev = toks[i - 1]
            if tok.kind == "num" and _operand_end(prev) and tok.spaced:
                break  # "= 12 4 8": the value, then something else
            if (
                tok.kind == "open"
                and _value_end(prev)
                and i + 1 < stop_at
                and toks[i + 1].kind == "word"
                and not _is_call(toks, i + 1)
            ):
                break  # a remark: "= 12 (left: 8 12)"
        if tok.kind == "open":
            depth += 1
        elif tok.kind == "close":
            if depth == 0:
                break  # closes a bracket of the prose around
            depth -= 1
        if tok.end - toks[begin].start > _SIDE_WINDOW:
            return begin, i, False
        i += 1
    last = i
    if begin < last < len(toks):
        tail = toks[last - 1]
        if tail.kind == "op" and tail.text in _DASHES and toks[last].kind == "word":
            last -= 1  # a dash into prose: "= 24 - the answer"
    return begin, last, True


def _text_of(text: str, toks: list[_Tok], first: int, last: int) -> str:
    return text[toks[first].start : toks[last - 1].end]


def _trim_period(side: str) -> str:
    # A sentence's full stop after the last number: "= 24." is 24.
    return side[:-1] if side.endswith(".") and side[:-1][-1:].isdigit() else side


def _has_operator(toks: list[_Tok], first: int, last: int) -> bool:
    """A binary operator (or a foreign one) somewhere after the leading signs, or a product
    written without its sign (``17(16.69)``, ``(1/4)24``)."""
    i = first
    while i < last and toks[i].kind == "op" and toks[i].text in "+-−–—":
        i += 1
    return any(
        toks[j].kind in ("op", "foreign")
        or (toks[j].kind == "word" and _is_times(toks, j))
        or (j > i and _operand_end(toks[j - 1]) and toks[j].kind in ("open", "num"))
        or _is_function(toks, j)
        for j in range(i, last)
    )


FUNCTIONS = frozenset(
    {"sqrt", "cbrt", "root", "log", "ln", "lg", "exp", "sin", "cos", "tan", "abs", "floor"}
    | {"ceil", "round", "max", "min", "pow", "gcd", "lcm", "fact", "factorial"}
)
"""Names of functions people and models write in arithmetic (``sqrt(9)``): a claim that
applies one is a claim all the same, read as unreadable with that reason, never skipped."""


def _is_function(toks: list[_Tok], j: int) -> bool:
    """``toks[j]`` names a function applied to what follows it: ``sqrt(9)``, ``log (8)``."""
    return (
        toks[j].kind == "word"
        and toks[j].text.lower() in FUNCTIONS
        and j + 1 < len(toks)
        and toks[j + 1].kind == "open"
    )


_FUNCTION_CALL = re.compile(r"\b([A-Za-z]+)\s*\(")


def _function_named(text: str) -> str | None:
    """The first function of :data:`FUNCTIONS` that ``text`` applies, if any."""
    for m in _FUNCTION_CALL.finditer(text):
        if m.group(1).lower() in FUNCTIONS:
            return m.group(1)
    return None


def leading_expression(text: str) -> str | None:
    """The whole arithmetic expression at the start of ``text`` (prose after it ignored):
    ``"(4 + 8) * 2, so done"`` gives ``"(4 + 8) * 2"``; ``"(7 - 8/8) * 4 - sqrt(9)"`` gives
    all of it (the parser then says why it is not arithmetic). None when the text starts
    otherwise. LaTeX-light is made plain first (``\\frac{8}{3}`` gives ``(8/3)``)."""
    if not isinstance(text, str):
        return None
    text = text.lstrip()
    cut = len(text) > _MAX_SCAN
    written = plain(text[:_MAX_SCAN]).text.lstrip()
    toks = _scan(written)
    if not toks or not _expression_kind(toks, 0):
        return None
    first, last, clean = _forward(toks, 0)
    if last <= first or not clean or (cut and last >= len(toks)):
        return None  # an expression that runs into the scanning limit may go on after it
    return _trim_period(_text_of(written, toks, first, last)).strip() or None


def expression_line(text: str) -> str | None:
    """``text`` made plain when all of it is arithmetic: one expression, or a chain of them
    (``(6 / (9 - 7)) * 8 = 24``; a sentence's full stop allowed); None when it holds anything
    else (a word, a remark such as ``(left: 24)``, a second expression beside the first)."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return None
    written = _trim_period(plain(text).text.strip()).strip()
    toks = _scan(written)
    if not any(tok.kind == "num" for tok in toks):
        return None
    begin = 0
    while begin < len(toks):
        _, last, clean = _forward(toks, begin)
        if last <= begin or not clean:
            return None
        if last == len(toks):
            return written
        after = _after_equals(toks, last)
        if after is None:
            return None
        begin = after
    return None


def _after_equals(toks: list[_Tok], at: int) -> int | None:
    """Where the next side starts when ``toks[at]`` is ``=`` or ``≈`` (an approximate mark
    after it skipped), else None."""
    if toks[at].kind not in ("eq", "approx") or at + 1 >= len(toks):
        return None
    return _approximate_marks(toks, at + 1)[0]


_APPROX_WORDS = frozenset(_APPROX_WORDS_TEXT)


def _approximate_marks(toks: list[_Tok], at: int) -> tuple[int, bool]:
    """Skip the marks of an approximate value at ``toks[at]`` (``~``, ``≈``, ``approx.``,
    ``about``, ``roughly``): where the value starts, and whether there were any."""
    marked = False
    while at < len(toks):
        tok = toks[at]
        if tok.kind == "approx":
            at += 1
        elif tok.kind == "word" and tok.text.lower() in _APPROX_WORDS:
            glued_stop = at + 1 < len(toks) and toks[at + 1].text == "." and not toks[at + 1].spaced
            at += 2 if glued_stop else 1
        elif _bracketed_mark(toks, at):
            at += 3  # "= (approximately) 2.17"
        else:
            break
        marked = True
    return at, marked


def _bracketed_mark(toks: list[_Tok], at: int) -> bool:
    if at + 2 >= len(toks) or toks[at].kind != "open" or toks[at + 2].kind != "close":
        return False
    return toks[at + 1].text.lower() in _APPROX_WORDS


def _marked_after(toks: list[_Tok], last: int) -> bool:
    """A value followed by a word that says it is approximate: ``= 2.71 (approx.)``,
    ``= 3 roughly``, ``= 18,800 (rounded)``."""
    at = last + 1 if last < len(toks) and toks[last].kind == "open" else last
    return at < len(toks) and toks[at].text.lower() in _APPROX_WORDS | {"rounded"}


class ClaimSides(NamedTuple):
    """Where a text claims ``expression = value``, read whole, not yet judged."""

    lhs: str
    """The left side, made plain (``4 × 6`` for ``4 \\times 6``)."""
    rhs: str
    """The right side, made plain, without its approximate marks."""
    span: tuple[int, int]
    """Where the claim stands in the text as written."""
    problem: str = ""
    """Why it cannot be read whole (a side too long), or empty."""
    approximate: bool = False
    """Written as approximate: ``≈``, ``~``, ``= approx. 2.71``, ``= about 3``."""


def claim_sides(text: str, limit: int = 64, *, cut: bool = False) -> list[ClaimSides]:
    """Where ``text`` claims ``expression = value`` (or ``expression ≈ value``), each read
    whole (see :func:`extract_claims`), not yet judged. ``cut``: ``text`` is the start of a
    longer text, so a right side that runs to its end may go on after it (``= 12`` cut to
    ``= 1``) and is no claim; so is one that runs into the scanning limit."""
    found: list[ClaimSides] = []
    if not isinstance(text, str):
        return found
    cut = cut or len(text) > _MAX_SCAN
    written = plain(text[:_MAX_SCAN])
    toks = _scan(written.text)
    for eq, tok in enumerate(toks):
        if len(found) >= limit:
            break
        if tok.kind not in ("eq", "approx"):
            continue
        sides = _sides_at(written, toks, eq, cut)
        if sides is not None:
            found.append(sides)
    return found


def _sides_at(written: Plain, toks: list[_Tok], eq: int, cut: bool) -> ClaimSides | None:
    """The claim whose ``=`` (or ``≈``) is ``toks[eq]``, or None."""
    begin, approximate = _approximate_marks(toks, eq + 1)
    if begin >= len(toks):
        return None
    left = _back(toks, eq)
    if left is None or not _has_operator(toks, left[0], left[1]):
        return None
    _, last, clean = _forward(toks, begin)
    if last <= begin or (cut and last >= len(toks)):
        return None
    problem = ""
    if not (left[2] and clean):
        side = "left" if not left[2] else "right"
        problem = f"the {side} side is too long to read whole (over {_SIDE_WINDOW} characters)"
    text = written.text
    lhs_start = toks[left[0]].start
    rhs = _trim_period(_text_of(text, toks, begin, last))
    rhs_end = toks[begin].start + len(rhs)
    approximate = (
        approximate
        or toks[eq].kind == "approx"
        or _marked_after(toks, last)
        or any(tok.text[:1] in "~≈" for tok in toks[left[0] : last])
    )
    lhs = text[lhs_start : toks[eq - 1].end]
    return ClaimSides(lhs, rhs, written.source(lhs_start, rhs_end), problem, approximate)


def extract_claims(text: str, limit: int = 64, *, cut: bool = False) -> list[Claim]:
    """Every ``expression = value`` claim found in free text, verified whole.

    Prose around a claim is ignored: ``Step 2: 8 / 3 = 2.67 (left: 2.67 4)`` gives one claim
    ``8 / 3 = 2.67``. Each side is the whole expression next to ``=``: ``6 + 6 + 6 + 6 = 24``
    is one claim (never ``6 + 6 = 24``), and a side the parser refuses (``sqrt(9) + 3 = 6``)
    is an invalid claim with the reason. A claim needs an operator on its left side, so
    ``left: 24`` or ``x = 3`` are not claims. A step written ``8 / 8/3 = 3`` is read as
    ``8 / (8/3)`` (see :func:`read_step`) and reported with that reading as its left side.
    At most ``limit`` claims are returned. ``cut``: ``text`` is the start of a longer text
    (see :func:`claim_sides`); a claim that may go on past its end is not read.
    """
    claims: list[Claim] = []
    if not isinstance(text, str):
        return claims
    for lhs, rhs, span, problem, approximate in claim_sides(text, limit, cut=cut):
        written = text[span[0] : span[1]]
        if problem:
            claims.append(Claim(written, lhs, rhs, ClaimStatus.INVALID, None, None, problem, span))
            continue
        lhs = _step_reading(lhs)
        claims.append(_judge(written, lhs, rhs, span, approximate=approximate))
    return claims


def _step_reading(lhs: str) -> str:
    """``lhs`` as a step reads it where its spacing says so and the usual reading differs:
    ``8 / 8/3`` is 8 / (8/3) (not (8/8)/3), and is shown so."""
    readings = read_step(lhs)
    if not readings or not readings[0].spaced or "/" not in readings[0].text:
        return lhs
    try:
        usual: Fraction | None = evaluate(lhs)
    except ArithError:
        usual = None
    return lhs if _value_of(readings[0]) == usual else readings[0].text
