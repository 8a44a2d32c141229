"""puzzles.arith against an evaluator written here, on thousands of generated claims.

Each claim is generated from a random expression tree and written the ways models and people
write arithmetic: integers, decimals, fractions as operands, unary minus, the four operators
(and their look-alikes), nested brackets, the step format ``a op b = c (left: ...)``, prose
around it, right sides that are exact, rounded, wrong or not arithmetic at all. And every
notation real writers use (issue 27): percents (``30%``, ``25% of 80``), implicit products
(``2(3 + 4)``), amounts (``$1,200.50``), mixed numbers (``2 1/4``), approximate results
(``≈``, ``~``, ``= approx.``, ``= about``), the LaTeX-light of chat models (``\\times``,
``\\div``, ``\\cdot``, ``\\frac{a}{b}``, ``$...$``, ``\\( ... \\)``), bold around a claim, and
a decimal after a list number or a bullet. The evaluator below shares no code with
puzzles/arith (it is a precedence-climbing reader over its own tokens); the verdict and the
exact value of every claim found in the text must agree with it, and every generated claim
must be found whole, once.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import pytest

from puzzles.arith import ClaimStatus, extract_claims, format_number

# ------------------------------------------------------------------ the independent evaluator


class Unreadable(Exception):
    """Not arithmetic this evaluator accepts (the reason is the message)."""


_TOKEN = re.compile(
    r"\s*(?:(\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?|\$?\d+ \d+/\d+|~?\$?\d+\.\d+|\$?\d+)"
    r"|(\\[a-z]+|[a-z]+)|(.))"
)
_SYMBOLS = {"×": "*", "x": "*", "÷": "/", "−": "-", "\\times": "*", "\\cdot": "*", "·": "*"}
_SYMBOLS |= {"\\div": "/", "\\frac": "frac", "of": "of"}


def _tokens(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, spaced-before) for numbers and symbols."""
    out: list[tuple[str, str, bool]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        spaced = m.start(group) > pos
        if group == 1:
            out.append(("n", m.group(1), spaced))
        else:
            ch = _SYMBOLS.get(m.group(group), m.group(group))
            if ch not in ("+", "-", "*", "/", "(", ")", "{", "}", "%", "frac", "of"):
                raise Unreadable(f"symbol {m.group(group)!r}")
            out.append(("s", ch, spaced))
        pos = m.end()
    return out


def _literal(text: str) -> Fraction:
    text = text.replace("$", "").replace(",", "").replace("~", "")
    if " " in text:  # a mixed number: 2 1/4
        whole, frac = text.split(" ")
        top, bottom = frac.split("/")
        return int(whole) + Fraction(int(top), int(bottom))
    if "." in text:
        whole, frac = text.split(".")
        return Fraction(int(whole)) + Fraction(int(frac), 10 ** len(frac))
    return Fraction(int(text))


class Reader:
    """Precedence climbing over the tokens: + - bind loosest, then * / (and a product written
    without its sign: ``2(3 + 4)``), then unary minus, then a percent after its number."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def value(self) -> Fraction:
        v = self.sum()
        if self.i != len(self.toks):
            raise Unreadable("trailing text")
        return v

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def sum(self) -> Fraction:
        left = self.product()
        while self.peek() in ("+", "-"):
            op = self.toks[self.i][1]
            self.i += 1
            right = self.product()
            left = left + right if op == "+" else left - right
        return left

    def product(self) -> Fraction:
        left = self.unary()
        divided = False
        while True:
            op = self.peek()
            if op in ("*", "/", "of"):
                self.i += 1
                right = self.unary()
                if op == "/" and right == 0:
                    raise Unreadable("division by zero")
                left = left / right if op == "/" else left * right
                divided = op == "/"
            elif op == "(" and self.toks[self.i - 1][1] not in ("+", "-", "*", "/", "("):
                if divided:
                    raise Unreadable("a bracket right after a division")
                left = left * self.unary()
            else:
                return left

    def unary(self) -> Fraction:
        if self.peek() == "-":
            self.i += 1
            return -self.unary()
        value = self.primary()
        while self.peek() == "%":
            self.i += 1
            after = self.peek()
            if after is not None and (after[0].isdigit() or after[0] in "$(."):
                raise Unreadable("a remainder")
            value /= 100
        return value

    def primary(self) -> Fraction:
        if self.i >= len(self.toks):
            raise Unreadable("ends early")
        kind, text, _ = self.toks[self.i]
        self.i += 1
        if kind == "n":
            return self.literal(text)
        if text == "frac":
            top = self.group("{", "}")
            bottom = self.group("{", "}")
            if bottom == 0:
                raise Unreadable("division by zero")
            return top / bottom
        if text == "(":
            self.i -= 1
            return self.group("(", ")")
        raise Unreadable(f"unexpected {text}")

    def literal(self, text: str) -> Fraction:
        return _literal(text)

    def group(self, open_: str, close: str) -> Fraction:
        if self.peek() != open_:
            raise Unreadable(f"missing {open_}")
        self.i += 1
        v = self.sum()
        if self.peek() != close:
            raise Unreadable(f"missing {close}")
        self.i += 1
        return v


class NoBounds(Exception):
    """A divisor whose bounds include zero."""


@dataclass(frozen=True)
class Bounds:
    """An interval of values, with the arithmetic the Reader does on values."""

    lo: Fraction
    hi: Fraction

    @staticmethod
    def of(other: Bounds | Fraction | int) -> Bounds:
        return other if isinstance(other, Bounds) else Bounds(Fraction(other), Fraction(other))

    def _corners(self, other: Bounds | Fraction | int, op: str) -> Bounds:
        b = Bounds.of(other)
        if op == "/" and b.lo <= 0 <= b.hi:
            raise NoBounds
        pairs = [(x, y) for x in (self.lo, self.hi) for y in (b.lo, b.hi)]
        values = [x + y if op == "+" else x * y if op == "*" else x / y for x, y in pairs]
        return Bounds(min(values), max(values))

    def __add__(self, other: Bounds | Fraction | int) -> Bounds:
        return self._corners(other, "+")

    def __sub__(self, other: Bounds | Fraction | int) -> Bounds:
        return self + -Bounds.of(other)

    def __mul__(self, other: Bounds | Fraction | int) -> Bounds:
        return self._corners(other, "*")

    def __truediv__(self, other: Bounds | Fraction | int) -> Bounds:
        return self._corners(other, "/")

    def __neg__(self) -> Bounds:
        return Bounds(-self.hi, -self.lo)

    def __eq__(self, other: object) -> bool:  # "right == 0": a divisor that is zero
        return isinstance(other, int) and self.lo == self.hi == other


class BoundsReader(Reader):
    """The Reader over intervals: a decimal of two places or more stands for any value within
    one unit of its last place (an approximate claim's operands are rounded too)."""

    def literal(self, text: str) -> Fraction:
        value = _literal(text)
        places = text.partition(".")[2]
        slack = Fraction(1, 10 ** len(places)) if len(places) >= 2 else Fraction(0)
        return cast(Fraction, Bounds(value - slack, value + slack))  # values are bounds here


def _step_text(lhs: str) -> str:
    """In a step line ``a op b`` written with spaces around ``op``, a fraction written tight
    (``8/3``) is one operand: the text bracketed so."""
    toks = _tokens(lhs)
    spaced = [i for i, (k, t, s) in enumerate(toks) if k == "s" and s and t in "+-*/"]
    if len(spaced) == 1 and spaced[0] > 0:
        k = spaced[0]
        a, b = _side(toks[:k]), _side(toks[k + 1 :])
        return f"({a}) {toks[k][1]} ({b})"
    return lhs


def reference_value(lhs: str, step: bool) -> Fraction:
    """The exact value of a left side (a step line read as :func:`_step_text` says)."""
    return Reader(_step_text(lhs) if step else lhs).value()


def reference_bounds(lhs: str, step: bool) -> Bounds | None:
    try:
        return Bounds.of(BoundsReader(_step_text(lhs) if step else lhs).value())
    except (NoBounds, Unreadable):
        return None


def _side(toks: list[tuple[str, str, bool]]) -> str:
    return " ".join(t for _, t, _ in toks)


def _unit(rhs: str, approximate: bool) -> Fraction | None:
    """One unit of the last place the right side is written to, if it is a rounded value."""
    m = re.fullmatch(r"-?\$?([\d,]*)(?:\.(\d+))?(%?)", rhs.replace(" ", ""))
    if m is None or not (m.group(1) or m.group(2)):
        return None
    per = Fraction(1, 100) if m.group(3) else Fraction(1)
    if m.group(2):
        return per / Fraction(10) ** len(m.group(2))
    if m.group(3):
        return per
    if not approximate:
        return None
    digits = m.group(1).replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0")) if int(digits) else 0
    return Fraction(10) ** zeros


def reference_verdict(
    lhs: str, rhs: str, step: bool, approximate: bool = False
) -> tuple[str, Fraction | None]:
    """(verdict, exact value of the left side) by the rules ponder documents."""
    try:
        exact = reference_value(lhs, step)
    except Unreadable:
        return "invalid", None
    try:
        claimed = Reader(rhs).value()
    except Unreadable:
        return "invalid", exact
    if claimed == exact:
        return "exact", exact
    unit = _unit(rhs, approximate)
    if unit is not None and abs(exact - claimed) < unit:
        return "approx", exact
    bounds = reference_bounds(lhs, step) if approximate else None
    slack = unit or 0
    if bounds is not None and bounds.lo - slack < claimed < bounds.hi + slack:
        return "approx", exact
    return "wrong", exact


# ------------------------------------------------------------------ the generator


@dataclass(frozen=True)
class Generated:
    text: str  # the whole text, prose included
    claim: str  # the claim as it stands in the text
    lhs: str
    rhs: str
    step: bool
    approximate: bool = False


def _number(rng: random.Random) -> tuple[str, Fraction]:
    roll = rng.random()
    if roll < 0.6:
        n = rng.randint(0, 60)
        return str(n), Fraction(n)
    if roll < 0.75:
        whole, frac = rng.randint(0, 20), rng.randint(1, 99)
        text = f"{rng.choice(['', '', '', '~'])}{whole}.{frac:02d}"  # ~4.33: said approximate
        return text, _literal(text)
    if roll < 0.82:  # an amount: $1,200.50, $12, 3,400
        n = rng.randint(1000, 999_999)
        cents = rng.choice(["", f".{rng.randint(0, 99):02d}"])
        text = f"{rng.choice(['', '$'])}{n:,}{cents}"
        return text, _literal(text)
    if roll < 0.88:  # a mixed number: 2 1/4
        bottom = rng.randint(2, 9)
        text = f"{rng.randint(1, 12)} {rng.randint(1, bottom - 1)}/{bottom}"
        return text, _literal(text)
    if roll < 0.94:  # a percent: 30%
        n = rng.randint(1, 150)
        return f"{n}%", Fraction(n, 100)
    top, bottom = rng.randint(1, 20), rng.randint(1, 9)
    return f"\\frac{{{top}}}{{{bottom}}}", Fraction(top, bottom)


_OPERATORS = ["+", "-", "*", "/", "×", "÷", "x", "−", "\\times", "\\div", "\\cdot"]


def _expression(rng: random.Random, depth: int) -> tuple[str, Fraction | None]:
    if depth == 0 or rng.random() < 0.3:
        text, number = _number(rng)
        if rng.random() < 0.1 and not text.startswith("\\"):
            return f"-{text}", -number
        return text, number
    a, _ = _expression(rng, depth - 1)
    b, _ = _expression(rng, depth - 1)
    roll = rng.random()
    if roll < 0.06 and a.isdigit():
        text = f"{a}({b})"  # a product without its sign: 2(3 + 4)
    elif roll < 0.1 and a.endswith("%") and not b.startswith("-"):
        text = f"{a} of {b}"  # 25% of 80
    else:
        op = rng.choice(_OPERATORS)
        if op == "x" and (a.endswith(")") or b.startswith("(")):
            op = "*"
        text = f"({a} {op} {b})" if rng.random() < 0.6 else f"{a} {op} {b}"
    # The value of the text as written (operator precedence applies to unbracketed parts).
    try:
        value: Fraction | None = Reader(text).value()
    except Unreadable:
        value = None
    if rng.random() < 0.1:
        text, value = f"-({text})", None if value is None else -value
    return text, value


def _rounded(rng: random.Random, value: Fraction, approximate: bool) -> str:
    """The value rounded as writers round it: to places, as a percent, or (said to be
    approximate) to a whole number."""
    roll = rng.random()
    if roll < 0.2:
        return f"{float(value * 100):.{rng.randint(0, 2)}f}%"
    if roll < 0.4 and approximate:
        return str(round(value))
    return f"{float(value):.{rng.randint(1, 3)}f}"


_NOT_ARITHMETIC = ["sqrt(9)", "4 ^ 2", "3 % 2", "1 / 0", "2 * 3", "\\sqrt{9}"]


def _right_side(rng: random.Random, value: Fraction | None, approximate: bool) -> str:
    roll = rng.random()
    if value is None or roll < 0.45:
        return format_number(value) if value is not None and value.denominator == 1 else "7"
    if roll < 0.6 and value.denominator != 1:
        return format_number(value)  # a fraction: 8/3
    if roll < 0.75 or (approximate and roll < 0.9):
        return _rounded(rng, value, approximate)
    if roll < 0.9:
        offsets: list[Fraction] = [Fraction(1), Fraction(-1), Fraction(2), Fraction(1, 2)]
        return format_number(value + rng.choice(offsets))  # wrong
    return rng.choice(_NOT_ARITHMETIC)


_PREFIXES = ["", "So ", "Step 2: ", "1. ", "- ", "We get ", "Then, ", "**", "check: ", "\n"]
_SUFFIXES = ["", ".", " (left: 3 4)", ", then more", " which is right", "**", "\n", "; next"]
_EXACTLY = [" = "] * 6 + [" ≈ ", " ~ ", " = approx. ", " = about ", " = roughly ", " =~ "]


def _sign(rng: random.Random) -> str:
    return rng.choice(_EXACTLY)


def _wrapped(rng: random.Random, claim: str) -> tuple[str, str]:
    """Math delimiters or bold around a claim, as chat models write them: (before, after)."""
    roll = rng.random()
    if roll < 0.06 and "$" not in claim:
        return "$", "$"
    if roll < 0.1:
        return "\\( ", " \\)"
    if roll < 0.14:
        return "**", "**"
    return "", ""


def _step(rng: random.Random) -> Generated:
    """The step format, with fractions as operands written tight, decimals and mixed numbers;
    after a list number or a bullet."""

    def operand() -> tuple[str, Fraction]:
        roll = rng.random()
        if roll < 0.3:
            p, q = rng.randint(1, 30), rng.randint(2, 9)
            return f"{p}/{q}", Fraction(p, q)
        if roll < 0.45:
            text = f"{rng.randint(0, 20)}.{rng.randint(1, 9)}"
            return text, _literal(text)
        if roll < 0.5:
            q = rng.randint(2, 9)
            text = f"{rng.randint(1, 9)} {rng.randint(1, q - 1)}/{q}"
            return text, _literal(text)
        n = rng.randint(1, 30)
        return str(n), Fraction(n)

    (a, av), (b, bv) = operand(), operand()
    op = rng.choice(["+", "-", "*", "/"])
    exact = {"+": av + bv, "-": av - bv, "*": av * bv, "/": av / bv}[op]
    lhs = f"{a} {op} {b}"
    sign = _sign(rng)
    approximate = sign != " = "
    rhs = _right_side(rng, exact, approximate)
    if rhs in _NOT_ARITHMETIC:
        rhs = format_number(exact)
    claim = f"{lhs}{sign}{rhs}"
    suffix = rng.choice([" (left: 3 4)", "", "."])
    text = f"{rng.choice(_PREFIXES[:5])}{claim}{suffix}"
    return Generated(text, claim, lhs, rhs, True, approximate)


def generate(rng: random.Random) -> Generated:
    if rng.random() < 0.3:
        return _step(rng)
    while True:
        lhs, value = _expression(rng, rng.randint(1, 4))
        if not re.fullmatch(r"-?~?[\d.$,%]+|-?\d+ \d+/\d+|\\frac\{\d+\}\{\d+\}", lhs):
            break
    roll = rng.random()
    if roll < 0.08:
        lhs = f"{lhs} - sqrt(9)"
    elif roll < 0.14:
        lhs = f"{lhs} ^ 2"
    elif roll < 0.18:
        lhs = f"{lhs} % 5"
    elif roll < 0.22:
        lhs = f"{lhs} / 0"
    sign = _sign(rng)
    approximate = sign != " = "
    rhs = _right_side(rng, value, approximate)
    claim = f"{lhs}{sign}{rhs}"
    approximate = approximate or "~" in lhs  # an operand said to be approximate: ~4.33
    before, after = _wrapped(rng, claim)
    prefix, suffix = rng.choice(_PREFIXES), rng.choice(_SUFFIXES)
    if before and (prefix == "**" or suffix == "**"):
        prefix, suffix = "So ", "."
    text = f"{prefix}{before}{claim}{after}{suffix}"
    return Generated(text, claim, lhs, rhs, False, approximate)


@pytest.mark.parametrize("seed", range(8))
def test_every_generated_claim_gets_the_reference_verdict(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for _ in range(600):
        g = generate(rng)
        found = extract_claims(g.text)
        assert len(found) == 1, (g.text, [c.text for c in found])
        (claim,) = found
        # Found whole: never a shortened side.
        assert claim.text == g.claim, (g.text, claim.text)
        assert claim.approximate == g.approximate, (g.text, claim.approximate)
        verdict, exact = reference_verdict(g.lhs, g.rhs, g.step, g.approximate)
        assert str(claim.status) == verdict, (g.text, claim.describe(), verdict)
        if verdict != "invalid":
            assert claim.exact == exact, (g.text, claim.exact, exact)
        checked += 1
    assert checked == 600


def test_the_generator_writes_every_notation() -> None:
    """The forms of issue 27 are all among the claims the test above checks."""
    rng = random.Random(0)
    texts = " ".join(generate(rng).text for _ in range(4800))
    for form in ("%", " of ", "$", ",", "\\times", "\\div", "\\cdot", "\\frac{", "\\( "):
        assert form in texts, form
    for form in (" ≈ ", " ~ ", "= approx. ", "= about ", "= roughly ", " =~ ", "**"):
        assert form in texts, form
    assert re.search(r"\d\(", texts) and re.search(r"\d \d/\d", texts)
    assert re.search(r"(?:^|\s)1\. \d+\.\d", texts) and re.search(r"(?:^|\s)- \d+\.\d", texts)


def test_the_reference_evaluator_itself() -> None:
    assert reference_value("8 / 8/3", step=True) == 3
    assert reference_value("8 / 8/3", step=False) == Fraction(1, 3)
    assert reference_value("2 + 3 * 4 - -1", step=False) == 15
    assert reference_value("25% of 80", step=False) == 20
    assert reference_value("2(40 + 9)", step=False) == 98
    assert reference_value("$1,200.50 \\times 2", step=False) == Fraction(2401)
    assert reference_value("7 * 1 1/4", step=False) == Fraction(35, 4)
    assert reference_value("\\frac{8}{3} \\cdot 9", step=False) == 24
    assert reference_verdict("8 / 3", "2.67", False) == ("approx", Fraction(8, 3))
    assert reference_verdict("1 / 3", "33.3%", False) == ("approx", Fraction(1, 3))
    assert reference_verdict("100 / 7", "14", False) == ("wrong", Fraction(100, 7))
    assert reference_verdict("100 / 7", "14", False, approximate=True)[0] == "approx"
    assert reference_verdict("10 / 1.8333", "5.4545", False, approximate=True)[0] == "approx"
    assert reference_verdict("10 / 1.8333", "5.4545", False)[0] == "wrong"
    assert reference_verdict("7 * 1.5", "10.6", False, approximate=True)[0] == "wrong"
    assert reference_verdict("1 + 1", "3", False) == ("wrong", Fraction(2))
    assert reference_verdict("4 ^ 2", "16", False)[0] == "invalid"
    assert reference_verdict("2 / 0", "1", False)[0] == "invalid"
    assert reference_verdict("7 % 2", "1", False)[0] == "invalid"
    assert str(ClaimStatus.APPROX) == "approx"
