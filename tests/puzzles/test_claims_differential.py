"""puzzles.arith against an evaluator written here, on thousands of generated claims.

Each claim is generated from a random expression tree and written the ways models and people
write arithmetic: integers, decimals, fractions as operands, unary minus, the four operators
(and their look-alikes), nested brackets, the step format ``a op b = c (left: ...)``, prose
around it, right sides that are exact, rounded, wrong or not arithmetic at all. The
evaluator below shares no code with puzzles/arith (it is a precedence-climbing reader over
its own tokens); the verdict and the exact value of every claim found in the text must agree
with it, and every generated claim must be found whole, once.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

import pytest

from puzzles.arith import ClaimStatus, extract_claims, format_number

# ------------------------------------------------------------------ the independent evaluator


class Unreadable(Exception):
    """Not arithmetic this evaluator accepts (the reason is the message)."""


_TOKEN = re.compile(r"\s*(?:(\d+\.\d+|\d+)|(.))")
_SYMBOLS = {"×": "*", "x": "*", "÷": "/", "−": "-"}


def _tokens(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, spaced-before) for numbers and symbols."""
    out: list[tuple[str, str, bool]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        spaced = m.start(1 if m.group(1) else 2) > pos
        if m.group(1):
            out.append(("n", m.group(1), spaced))
        else:
            ch = _SYMBOLS.get(m.group(2), m.group(2))
            if ch not in "+-*/()":
                raise Unreadable(f"symbol {m.group(2)!r}")
            out.append(("s", ch, spaced))
        pos = m.end()
    return out


def _literal(text: str) -> Fraction:
    if "." in text:
        whole, frac = text.split(".")
        return Fraction(int(whole)) + Fraction(int(frac), 10 ** len(frac))
    return Fraction(int(text))


class Reader:
    """Precedence climbing over the tokens: + - bind loosest, then * /, then unary minus."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def value(self) -> Fraction:
        v = self.binary(0)
        if self.i != len(self.toks):
            raise Unreadable("trailing text")
        return v

    def binary(self, level: int) -> Fraction:
        ops = ("+-", "*/")[level]
        left = self.binary(1) if level == 0 else self.unary()
        while self.i < len(self.toks) and self.toks[self.i] in (
            ("s", o, s) for o in ops for s in (True, False)
        ):
            op = self.toks[self.i][1]
            self.i += 1
            right = self.binary(1) if level == 0 else self.unary()
            if op == "+":
                left = left + right
            elif op == "-":
                left = left - right
            elif op == "*":
                left = left * right
            else:
                if right == 0:
                    raise Unreadable("division by zero")
                left = left / right
        return left

    def unary(self) -> Fraction:
        if self.i < len(self.toks) and self.toks[self.i][:2] == ("s", "-"):
            self.i += 1
            return -self.unary()
        if self.i >= len(self.toks):
            raise Unreadable("ends early")
        kind, text, _ = self.toks[self.i]
        self.i += 1
        if kind == "n":
            return _literal(text)
        if text == "(":
            v = self.binary(0)
            if self.i >= len(self.toks) or self.toks[self.i][1] != ")":
                raise Unreadable("missing )")
            self.i += 1
            return v
        raise Unreadable(f"unexpected {text}")


def reference_value(lhs: str, step: bool) -> Fraction:
    """The exact value of a left side. In a step line ``a op b`` written with spaces around
    ``op``, a fraction written tight (``8/3``) is one operand."""
    if step:
        toks = _tokens(lhs)
        spaced = [i for i, (k, t, s) in enumerate(toks) if k == "s" and s and t in "+-*/"]
        if len(spaced) == 1 and spaced[0] > 0:
            k = spaced[0]
            a, b = _side(toks[:k]), _side(toks[k + 1 :])
            return Reader(f"({a}) {toks[k][1]} ({b})").value()
    return Reader(lhs).value()


def _side(toks: list[tuple[str, str, bool]]) -> str:
    return " ".join(t for _, t, _ in toks)


def reference_verdict(lhs: str, rhs: str, step: bool) -> tuple[str, Fraction | None]:
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
    m = re.fullmatch(r"-?\d*\.(\d+)", rhs.replace(" ", ""))
    if m and abs(exact - claimed) < Fraction(1, 10 ** len(m.group(1))):
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


def _number(rng: random.Random) -> tuple[str, Fraction]:
    roll = rng.random()
    if roll < 0.7:
        n = rng.randint(0, 60)
        return str(n), Fraction(n)
    whole, frac = rng.randint(0, 20), rng.randint(1, 99)
    text = f"{whole}.{frac:02d}"
    return text, _literal(text)


_OPERATORS = ["+", "-", "*", "/", "×", "÷", "x", "−"]
_VALUE = {"+": "+", "-": "-", "−": "-", "*": "*", "×": "*", "x": "*", "/": "/", "÷": "/"}


def _expression(rng: random.Random, depth: int) -> tuple[str, Fraction | None]:
    if depth == 0 or rng.random() < 0.3:
        text, number = _number(rng)
        if rng.random() < 0.1:
            return f"-{text}", -number
        return text, number
    a, _ = _expression(rng, depth - 1)
    b, _ = _expression(rng, depth - 1)
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


def _right_side(rng: random.Random, value: Fraction | None) -> str:
    roll = rng.random()
    if value is None or roll < 0.45:
        return format_number(value) if value is not None and value.denominator == 1 else "7"
    if roll < 0.6 and value.denominator != 1:
        return format_number(value)  # a fraction: 8/3
    if roll < 0.75:
        places = rng.randint(1, 3)
        return f"{float(value):.{places}f}"  # rounded
    if roll < 0.9:
        offsets: list[Fraction] = [Fraction(1), Fraction(-1), Fraction(2), Fraction(1, 2)]
        return format_number(value + rng.choice(offsets))  # wrong
    return rng.choice(["sqrt(9)", "4 ^ 2", "3 % 2", "1 / 0", "2 * 3"])


_PREFIXES = ["", "So ", "Step 2: ", "1. ", "- ", "We get ", "Then, ", "**", "check: ", "\n"]
_SUFFIXES = ["", ".", " (left: 3 4)", ", then more", " which is right", "**", "\n", "; next"]


def generate(rng: random.Random) -> Generated:
    if rng.random() < 0.3:
        # The step format, with fractions as operands written tight.
        def operand() -> tuple[str, Fraction]:
            if rng.random() < 0.4:
                p, q = rng.randint(1, 30), rng.randint(2, 9)
                return f"{p}/{q}", Fraction(p, q)
            n = rng.randint(1, 30)
            return str(n), Fraction(n)

        (a, av), (b, bv) = operand(), operand()
        op = rng.choice(["+", "-", "*", "/"])
        exact = {"+": av + bv, "-": av - bv, "*": av * bv, "/": av / bv}[op]
        lhs = f"{a} {op} {b}"
        rhs = _right_side(rng, exact)
        if rhs in ("sqrt(9)", "4 ^ 2", "3 % 2", "1 / 0", "2 * 3"):
            rhs = format_number(exact)
        claim = f"{lhs} = {rhs}"
        suffix = rng.choice([" (left: 3 4)", "", "."])
        return Generated(f"{rng.choice(_PREFIXES[:4])}{claim}{suffix}", claim, lhs, rhs, True)
    while True:
        lhs, value = _expression(rng, rng.randint(1, 4))
        if not re.fullmatch(r"-?[\d.]+", lhs):
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
    rhs = _right_side(rng, value)
    claim = f"{lhs} = {rhs}"
    prefix, suffix = rng.choice(_PREFIXES), rng.choice(_SUFFIXES)
    return Generated(f"{prefix}{claim}{suffix}", claim, lhs, rhs, False)


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
        verdict, exact = reference_verdict(g.lhs, g.rhs, g.step)
        assert str(claim.status) == verdict, (g.text, claim.describe(), verdict)
        if verdict != "invalid":
            assert claim.exact == exact, (g.text, claim.exact, exact)
        checked += 1
    assert checked == 600


def test_the_reference_evaluator_itself() -> None:
    assert reference_value("8 / 8/3", step=True) == 3
    assert reference_value("8 / 8/3", step=False) == Fraction(1, 3)
    assert reference_value("2 + 3 * 4 - -1", step=False) == 15
    assert reference_verdict("8 / 3", "2.67", False) == ("approx", Fraction(8, 3))
    assert reference_verdict("1 + 1", "3", False) == ("wrong", Fraction(2))
    assert reference_verdict("4 ^ 2", "16", False)[0] == "invalid"
    assert reference_verdict("2 / 0", "1", False)[0] == "invalid"
    assert str(ClaimStatus.APPROX) == "approx"
