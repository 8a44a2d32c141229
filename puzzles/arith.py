"""The one door from text to numbers.

Everything in ponder that turns text into a number comes through here: the player's typed
expression, an LLM's step, a tool call. The parser is a small hand-written recursive-descent
parser over a whitelist of tokens (numbers, ``+ - * /``, ``x × ÷ ·``, parentheses, unary
minus). Values are exact :class:`fractions.Fraction`. There is no ``eval``, no ``sympify``
and no ``parse_expr`` anywhere on this path.

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

__all__ = [
    "MAX_BITS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "MAX_LITERAL_DIGITS",
    "ArithError",
    "BinOp",
    "Claim",
    "ClaimStatus",
    "Expr",
    "Neg",
    "Num",
    "evaluate",
    "extract_claims",
    "format_decimal",
    "format_number",
    "leading_expression",
    "parse",
    "parse_number",
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


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "num", "op", "open", "close"
    text: str
    pos: int


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
        if ch.isdigit() or ch == ".":
            m = _NUMBER_RE.match(text, i)
            if m is None:
                raise ArithError(f"unexpected {ch!r}", i)
            digits = sum(c.isdigit() for c in m.group())
            if digits > MAX_LITERAL_DIGITS:
                raise ArithError(
                    f"number has too many digits ({digits}; at most {MAX_LITERAL_DIGITS})", i
                )
            tokens.append(_Token("num", m.group(), i))
            i = m.end()
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
        elif ch in "^%":
            raise ArithError(f"operator {ch!r} is not allowed; use + - * / only", i)
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
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "*/":
            self.take()
            node = BinOp(tok.text, node, self.unary(), tok.pos)
        return node

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


def parse_number(text: str) -> Fraction:
    """An exact value for a literal such as ``12``, ``2.5``, ``.75`` or ``3/4``."""
    text = text.strip()
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
    return _Parser(text).parse()


def evaluate(text: str) -> Fraction:
    """The exact value of an arithmetic expression."""
    return parse(text).value


def format_number(value: Fraction) -> str:
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

    @property
    def ok(self) -> bool:
        """True when the claim is exact or a fair rounding of the exact value."""
        return self.status in (ClaimStatus.EXACT, ClaimStatus.APPROX)

    def describe(self) -> str:
        """One line for people: ``✓ 4 + 8 = 12``, ``≈ 8 / 3 = 2.67 (exactly 8/3)``."""
        if self.status is ClaimStatus.EXACT:
            return f"✓ {self.lhs} = {self.rhs}"
        if self.status is ClaimStatus.APPROX and self.exact is not None:
            return f"≈ {self.lhs} = {self.rhs} (exactly {format_number(self.exact)})"
        if self.status is ClaimStatus.WRONG and self.exact is not None:
            return f"✗ {self.lhs} = {self.rhs} (actually {format_number(self.exact)})"
        return f"✗ {self.lhs} = {self.rhs} ({self.reason})"


_DECIMAL_RHS = re.compile(r"\s*[-−]?\s*\d*\.(\d+)\s*")


def _compare(lhs_value: Fraction, rhs_text: str, rhs_value: Fraction) -> ClaimStatus:
    if lhs_value == rhs_value:
        return ClaimStatus.EXACT
    m = _DECIMAL_RHS.fullmatch(rhs_text)
    if m is not None:
        # A decimal shown to d places is a fair report of the exact value if it is within
        # one unit of the last place: covers both rounding (2.67) and truncation (2.66).
        places = len(m.group(1))
        if abs(lhs_value - rhs_value) < Fraction(1, 10**places):
            return ClaimStatus.APPROX
    return ClaimStatus.WRONG


def verify_claim(text: str) -> Claim:
    """Verify a claim written ``lhs = rhs``; both sides are arithmetic expressions."""
    if len(text) > MAX_LENGTH:
        raise ArithError(f"claim is too long ({len(text)} characters; at most {MAX_LENGTH})")
    lhs, sep, rhs = text.partition("=")
    if not sep:
        raise ArithError("a claim needs '='")
    lhs, rhs = lhs.strip(), rhs.strip()
    return _judge(text.strip(), lhs, rhs, (0, len(text)))


def _judge(text: str, lhs: str, rhs: str, span: tuple[int, int]) -> Claim:
    try:
        left = parse(lhs).value
    except ArithError as exc:
        return Claim(text, lhs, rhs, ClaimStatus.INVALID, None, None, exc.message, span)
    try:
        right_expr = parse(rhs)
    except ArithError as exc:
        return Claim(text, lhs, rhs, ClaimStatus.INVALID, None, left, exc.message, span)
    return Claim(
        text, lhs, rhs, _compare(left, rhs, right_expr.value), right_expr.value, left, "", span
    )


# Characters that may belong to an arithmetic side of a claim inside prose.
_SIDE_CHARS = set("0123456789.+-*/xX×÷·−()[] \t")
_OPERATOR_IN = re.compile(r"[-+*/x×÷·−]")
# Bounds that keep extraction linear on hostile text: a claim's side is short in practice.
_SIDE_WINDOW = 200
_MAX_TRIES = 24
_MAX_EQUALS = 400


def _longest_parsing_suffix(chunk: str, line_start: bool = False) -> str | None:
    """The longest suffix of ``chunk`` (cut at token boundaries) that parses and has an
    operator: drops list markers such as ``1.`` or stray words in front of an expression."""
    starts = [i for i, ch in enumerate(chunk) if ch.isdigit() or ch in "([-−."]
    if line_start:
        # "- " opening a line is a markdown bullet, not a minus: "- 10 - 4 = 6" claims 10 - 4.
        lead = len(chunk) - len(chunk.lstrip(" \t"))
        if chunk[lead : lead + 1] in ("-", "−") and chunk[lead + 1 : lead + 2] in (" ", "\t"):
            starts = [i for i in starts if i != lead]
    for i in starts[:_MAX_TRIES]:
        if i > 0 and (chunk[i - 1].isdigit() or (chunk[i - 1] == "." and chunk[i].isdigit())):
            continue  # not a token boundary
        candidate = chunk[i:].strip()
        if not _OPERATOR_IN.search(candidate.lstrip("-−")):
            continue
        try:
            parse(candidate)
        except ArithError as exc:
            if exc.message == "division by zero":
                return candidate
            continue
        return candidate
    return None


def _longest_parsing_prefix(chunk: str) -> str | None:
    ends = [i + 1 for i, ch in enumerate(chunk) if ch.isdigit() or ch in ")]"]
    for end in reversed(ends[-_MAX_TRIES:]):
        if end < len(chunk) and chunk[end].isdigit():
            continue
        candidate = chunk[:end].strip()
        try:
            parse(candidate)
        except ArithError:
            continue
        return candidate
    return None


def leading_expression(text: str) -> str | None:
    """The longest arithmetic expression at the start of ``text`` (prose after it ignored):
    ``"(4 + 8) * 2, so done"`` gives ``"(4 + 8) * 2"``; None when the text starts otherwise."""
    if not isinstance(text, str):
        return None
    chunk = text.lstrip()[:_SIDE_WINDOW]
    end = 0
    while end < len(chunk) and chunk[end] in _SIDE_CHARS:
        end += 1
    return _longest_parsing_prefix(chunk[:end])


def extract_claims(text: str, limit: int = 64) -> list[Claim]:
    """Every ``expression = value`` claim found in free text, verified.

    Prose around a claim is ignored: ``Step 2: 8 / 3 = 2.67 (left: 2.67 4)`` gives one claim
    ``8 / 3 = 2.67``. A claim needs an operator on its left side, so ``left: 24`` or
    ``x = 3`` are not claims. At most ``limit`` claims are returned.
    """
    claims: list[Claim] = []
    if not isinstance(text, str):
        return claims
    text = text[: MAX_LENGTH * 20]
    for seen, m in enumerate(re.finditer(r"=", text)):
        if len(claims) >= limit or seen >= _MAX_EQUALS:
            break
        eq = m.start()
        if eq + 1 < len(text) and text[eq + 1] == "=":
            continue
        if eq > 0 and text[eq - 1] in "<>!=":
            continue
        start = eq
        while start > 0 and text[start - 1] in _SIDE_CHARS and eq - start < _SIDE_WINDOW:
            start -= 1
        lhs = _longest_parsing_suffix(text[start:eq], start == 0 or text[start - 1] in "\r\n")
        if lhs is None:
            continue
        end = eq + 1
        while end < len(text) and text[end] in _SIDE_CHARS and end - eq < _SIDE_WINDOW:
            end += 1
        rhs_chunk = text[eq + 1 : end]
        # Stop the right side at the start of a parenthesised remark such as "(left: ...)".
        rhs = _longest_parsing_prefix(rhs_chunk)
        if rhs is None:
            continue
        lhs_start = text.rfind(lhs, start, eq)
        rhs_end = text.find(rhs, eq) + len(rhs)
        claims.append(_judge(text[lhs_start:rhs_end].strip(), lhs, rhs, (lhs_start, rhs_end)))
    return claims
