"""Computation-heavy algebra problems, in the spirit of CARP, generated and checked with sympy.

Six kinds, each at three levels: ``linear`` equations (one unknown), linear ``system`` s (2x2
and 3x3), ``expand`` products, ``simplify`` expressions (like terms, brackets, cancelling a
rational expression), ``factor`` completely over the integers, and ``evaluate`` an expression
at given values. Problems are built from seeded random parameters as sympy objects in code,
and their answers are computed with sympy (``solve``, ``linsolve``, ``expand``, ``factor``,
``subs``) and cross-checked against the parameters they were planted from.

**Typed answers are never given to sympy as text.** A numeric answer is read through
:func:`puzzles.wordproblem.answers.read_answer` (the :mod:`puzzles.arith` door). A symbolic
answer is read by :func:`parse_expression`, a small recursive-descent parser over a whitelist —
numbers, the problem's variable names, ``+ - * / ^`` (also ``** × · ÷ − ² ³``), brackets and
implicit multiplication (``2x``, ``3(x + 1)``, ``(x + 1)(x - 1)``, ``xy``) — that builds sympy
objects itself; anything else (``__import__('os')``, ``exp(x)``, ``x^(1/2)``) is refused with
a reason. Length, nesting, exponents and degree are bounded, so no input can make sympy work
for long. Two expressions are equal when ``sympy.expand(a - b) == 0`` or, for rational
expressions, ``sympy.cancel(a - b) == 0`` — a complete test for expressions built only from
``+ - * /`` and whole powers. Degree and the number of terms an expression expands to are
bounded while parsing (:data:`MAX_DEGREE`, :data:`MAX_TERMS`), so no typed answer of up to
:data:`MAX_EXPRESSION_LENGTH` characters keeps sympy busy for long.
"""

from __future__ import annotations

import enum
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd

import sympy

from puzzles.wordproblem.answers import AnswerError, Verdict, read_answer
from puzzles.wordproblem.templates import TemplateError

__all__ = [
    "ALGEBRA_KINDS",
    "MAX_DEGREE",
    "MAX_EXPONENT",
    "MAX_EXPRESSION_LENGTH",
    "MAX_TERMS",
    "AlgebraError",
    "AlgebraProblem",
    "Form",
    "algebra_by_id",
    "equivalent",
    "generate_algebra",
    "make_algebra",
    "parse_expression",
    "show_expression",
]

ALGEBRA_KINDS = ("linear", "system", "expand", "simplify", "factor", "evaluate")
"""The kinds of algebra problem; each comes at the levels easy, medium and hard."""
LEVELS = ("easy", "medium", "hard")

MAX_EXPRESSION_LENGTH = 300
"""Longest typed expression, in characters."""
MAX_DEPTH = 32
"""Deepest nesting of brackets and signs."""
MAX_EXPONENT = 12
"""Largest whole exponent a typed expression may use."""
MAX_DEGREE = 12
"""Largest total degree a typed expression may reach."""
MAX_TERMS = 2000
"""Most terms a typed expression may expand to (an upper bound counted while parsing), so
that checking it stays quick: (x + 2y + 3z + 4)^6 (2x + 3y + 5z + 7)^6 is 30 characters and
would keep sympy busy for a second, and a few of them for many."""
MAX_DIGITS = 30
"""Most digits in one number of a typed expression."""
MAX_BITS = 4096
"""Largest numerator or denominator of a number a typed expression may reach, in bits."""


class AlgebraError(ValueError):
    """A typed expression that is not acceptable, with a reason a person can read."""


class Form(enum.StrEnum):
    """What an answer is."""

    NUMBER = "number"
    VALUES = "values"
    EXPRESSION = "expression"


# ------------------------------------------------------------------ safe parsing

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<num>\d+(?:\.\d*)?|\.\d+)
    |(?P<name>[A-Za-z]+)
    |(?P<pow>\*\*|\^)
    |(?P<sup>[²³])
    |(?P<op>[-+*/×·÷−–])
    |(?P<open>[(\[])
    |(?P<close>[)\]])""",
    re.VERBOSE,
)
_OPS = {"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-"}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    pos: int


@dataclass(frozen=True, slots=True)
class _Node:
    """A parsed expression: its sympy value and what its written shape says."""

    expr: sympy.Expr
    degree: int  # an upper bound of the total degree
    ops: int  # binary operations written, implicit products included
    top: str  # "atom", "+", "*", "^"
    expanded: bool  # no bracketed sum is multiplied, divided or raised to a power
    terms: int  # an upper bound of the terms it expands to
    written: tuple[sympy.Expr, ...] = ()  # the factors as written, when a product

    @property
    def factors(self) -> tuple[sympy.Expr, ...]:
        """The multiplied factors as written. sympy's value cannot tell them: it turns
        ``3(2x + 3)`` into ``6x + 9``, the same as ``(6x + 9) * 1``."""
        return self.written or (self.expr,)


def _bounded(expr: sympy.Expr, pos: int) -> sympy.Expr:
    """``expr``, unless it is a number too large to work with: ``((2^12)^12)^12`` is."""
    if expr.is_Rational and max(expr.p.bit_length(), expr.q.bit_length()) > MAX_BITS:
        raise AlgebraError(f"a number is too large (at character {pos + 1})")
    return expr


def _sized(degree: int, terms: int) -> None:
    if degree > MAX_DEGREE:
        raise AlgebraError(f"the expression is too large (degree over {MAX_DEGREE})")
    if terms > MAX_TERMS:
        raise AlgebraError(
            f"the expression is too large to check (it could expand to over {MAX_TERMS} terms)"
        )


def _tokenize(text: str, variables: Sequence[str]) -> list[_Token]:
    tokens: list[_Token] = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            allowed = ", ".join(variables) if variables else "no letters"
            raise AlgebraError(
                f"unexpected {text[i]!r} at character {i + 1}: use numbers, "
                f"{'the variables ' + allowed if variables else allowed}, + - * / ^ and brackets"
            )
        kind = m.lastgroup or ""
        word = m.group()
        if kind == "name":
            if word in variables:
                tokens.append(_Token("name", word, i))
            elif all(ch in variables for ch in word):  # "xy" is x times y
                tokens.extend(_Token("name", ch, i + k) for k, ch in enumerate(word))
            else:
                known = (
                    f"the variables here are {', '.join(variables)}"
                    if variables
                    else ("no letters belong in this answer")
                )
                raise AlgebraError(f"unknown name {word!r} at character {i + 1}; {known}")
        elif kind == "num":
            if sum(ch.isdigit() for ch in word) > MAX_DIGITS:
                raise AlgebraError(f"a number has too many digits (at most {MAX_DIGITS})")
            tokens.append(_Token("num", word, i))
        elif kind == "op":
            tokens.append(_Token("op", _OPS.get(word, word), i))
        elif kind == "sup":
            tokens.append(_Token("pow", "^", i))
            tokens.append(_Token("num", "2" if word == "²" else "3", i))
        elif kind != "space":
            tokens.append(_Token(kind, word, i))
        i = m.end()
    return tokens


class _Parser:
    def __init__(self, text: str, variables: Sequence[str]) -> None:
        self.tokens = _tokenize(text, variables)
        self.symbols = {name: sympy.Symbol(name) for name in variables}
        self.i = 0
        self.depth = 0
        self.length = len(text)

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse(self) -> _Node:
        if not self.tokens:
            raise AlgebraError("empty expression")
        node = self.sum()
        extra = self.peek()
        if extra is not None:
            what = "')' without '('" if extra.kind == "close" else repr(extra.text)
            raise AlgebraError(f"unexpected {what} at character {extra.pos + 1}")
        return node

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AlgebraError(f"nested too deeply at character {pos + 1}")

    def sum(self) -> _Node:
        node = self.product()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            right = self.product()
            expr = node.expr + right.expr if tok.text == "+" else node.expr - right.expr
            expr = _bounded(expr, tok.pos)
            terms = node.terms + right.terms
            _sized(0, terms)
            node = _Node(
                expr,
                max(node.degree, right.degree),
                node.ops + right.ops + 1,
                "+",
                node.expanded and right.expanded,
                terms,
            )
        return node

    def product(self) -> _Node:
        node = self.signed()
        while (tok := self.peek()) is not None:
            if tok.kind == "op" and tok.text in "*/":
                self.take()
                right = self.signed()
                divide = tok.text == "/"
            elif tok.kind in ("name", "open"):  # implicit: 2x, 3(x + 1), (x + 1)(x - 1)
                right = self.power()
                divide = False
            else:
                break
            if divide:
                if right.expr == 0:
                    raise AlgebraError(f"division by zero at character {tok.pos + 1}")
                expr = node.expr / right.expr
            else:
                expr = node.expr * right.expr
            expr = _bounded(expr, tok.pos)
            degree, terms = node.degree + right.degree, node.terms * right.terms
            _sized(degree, terms)
            expanded = node.expanded and right.expanded and "+" not in (node.top, right.top)
            written = (*node.factors, *right.factors) if not divide else (expr,)
            node = _Node(expr, degree, node.ops + right.ops + 1, "*", expanded, terms, written)
        return node

    def signed(self) -> _Node:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            self.enter(tok.pos)
            inner = self.signed()
            self.depth -= 1
            # A sign is not an operation: "-x + 9" is as simple as "9 - x".
            expr = -inner.expr if tok.text == "-" else inner.expr
            return _Node(
                expr, inner.degree, inner.ops, inner.top, inner.expanded, inner.terms, inner.written
            )
        return self.power()

    def power(self) -> _Node:
        base = self.atom()
        tok = self.peek()
        if tok is None or tok.kind != "pow":
            return base
        self.take()
        exponent = self.exponent(tok.pos)
        if base.expr == 0 and exponent < 0:
            raise AlgebraError(f"division by zero at character {tok.pos + 1}")
        degree = base.degree * abs(exponent)
        # (t terms)^n has at most as many terms as there are monomials of degree n in t.
        terms = comb(base.terms + abs(exponent) - 1, abs(exponent)) if exponent else 1
        _sized(degree, terms)
        expanded = base.expanded and base.top != "+"
        expr = _bounded(base.expr**exponent, tok.pos)
        # A power of a factor is fine when the factor is: (x + 1)^2 is fully factored.
        written = base.factors if exponent > 0 else (expr,)
        return _Node(expr, degree, base.ops + 1, "^", expanded, terms, written)

    def exponent(self, pos: int) -> int:
        bracketed = False
        tok = self.peek()
        if tok is not None and tok.kind == "open":
            self.take()
            bracketed = True
        sign = 1
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            sign = -1 if tok.text == "-" else 1
        tok = self.peek()
        if tok is None or tok.kind != "num" or not tok.text.isdigit():
            raise AlgebraError(
                f"an exponent must be a whole number (at character {pos + 1}), e.g. x^2"
            )
        self.take()
        if bracketed:
            close = self.peek()
            if close is None or close.kind != "close":
                raise AlgebraError(
                    f"an exponent must be a whole number (at character {pos + 1}), e.g. x^2"
                )
            self.take()
        value = sign * int(tok.text)
        if abs(value) > MAX_EXPONENT:
            raise AlgebraError(f"exponent {value} is too large (at most {MAX_EXPONENT})")
        if (nxt := self.peek()) is not None and nxt.kind == "pow":
            raise AlgebraError(
                f"write a power of a power with brackets, (x^2)^3 (character {nxt.pos + 1})"
            )
        return value

    def atom(self) -> _Node:
        tok = self.peek()
        if tok is None:
            raise AlgebraError("the expression ends too early")
        if tok.kind == "num":
            self.take()
            value = Fraction(tok.text)  # digits and one point only, by the tokenizer
            number = sympy.Rational(value.numerator, value.denominator)
            return _Node(number, 0, 0, "atom", True, 1)
        if tok.kind == "name":
            self.take()
            return _Node(self.symbols[tok.text], 1, 0, "atom", True, 1)
        if tok.kind == "open":
            self.take()
            self.enter(tok.pos)
            inner = self.sum()
            self.depth -= 1
            close = self.peek()
            if close is None or close.kind != "close":
                raise AlgebraError(f"missing ')' for the '(' at character {tok.pos + 1}")
            self.take()
            return inner
        if tok.kind == "close":
            raise AlgebraError(f"unexpected ')' at character {tok.pos + 1}")
        raise AlgebraError(f"expected a number or a variable at character {tok.pos + 1}")


def _read(text: str, variables: Sequence[str]) -> _Node:
    if not isinstance(text, str):
        raise AlgebraError("an expression is text")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise AlgebraError(
            f"the expression is too long ({len(text)} characters; at most {MAX_EXPRESSION_LENGTH})"
        )
    node = _Parser(text, variables).parse()
    if node.expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise AlgebraError("the expression divides by zero")
    return node


def parse_expression(text: str, variables: Sequence[str] = ()) -> sympy.Expr:
    """Build the sympy expression a person typed, from a whitelist (see the module notes);
    :class:`AlgebraError` with a reason for anything else."""
    return _read(text, variables).expr


def equivalent(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True when two rational expressions are equal as functions."""
    diff = a - b
    if diff == 0 or sympy.expand(diff) == 0:
        return True
    return bool(sympy.cancel(sympy.together(diff)) == 0)


# ------------------------------------------------------------------ showing


def _coefficient(c: sympy.Rational, first: bool, bare: bool) -> str:
    """The sign and size of a term's coefficient; ``bare`` when a variable follows."""
    sign = "-" if c < 0 else "+"
    size = abs(c)
    if size == 1 and bare:
        digits = ""
    elif size.q == 1:
        digits = str(size.p)
    else:
        digits = f"({size.p}/{size.q})" if bare else f"{size.p}/{size.q}"
    if first:
        return ("-" if sign == "-" else "") + digits
    return f" {sign} {digits}"


def _monomial(powers: Sequence[int], names: Sequence[str]) -> str:
    return "".join(n if e == 1 else f"{n}^{e}" for n, e in zip(names, powers, strict=True) if e)


def show_expression(expr: sympy.Expr, variables: Sequence[str]) -> str:
    """A polynomial as people write it — ``2x^2 - 5xy + 3``, terms by degree — or a product
    of polynomials as ``3(x - 2)(x + 1)^2``. The text reads back with
    :func:`parse_expression`."""
    symbols = [sympy.Symbol(n) for n in variables]
    if not expr.is_polynomial(*symbols) or not symbols:
        # Only for showing back a typed rational expression: sympy's own spelling will do.
        return str(expr).replace("**", "^")
    if expr.is_Mul or expr.is_Pow:
        constant, factors = sympy.factor_list(expr, *symbols)
        if (factors and len(factors) + (constant != 1) > 1) or any(m > 1 for _, m in factors):
            return _constant_head(sympy.Rational(constant)) + "".join(
                _factor_text(f, m, variables) for f, m in factors
            )
    poly = sympy.Poly(sympy.expand(expr), *symbols)
    terms = sorted(poly.terms(), key=lambda t: (-sum(t[0]), [-e for e in t[0]]))
    if not terms:
        return "0"
    out = []
    for k, (powers, c) in enumerate(terms):
        mono = _monomial(powers, variables)
        out.append(_coefficient(sympy.Rational(c), k == 0, bool(mono)) + mono)
    return "".join(out)


def _constant_head(c: sympy.Rational) -> str:
    if c == 1:
        return ""
    if c == -1:
        return "-"
    return str(c.p) if c.q == 1 else f"({c.p}/{c.q})"


def _factor_text(factor: sympy.Expr, power: int, variables: Sequence[str]) -> str:
    text = show_expression(factor, variables)
    if " " in text or text.startswith("-"):
        text = f"({text})"
    return text + (f"^{power}" if power > 1 else "")


def _term_text(terms: Sequence[tuple[int, str]]) -> str:
    """Terms as written, unsimplified: ``[(3, "x"), (-1, "x"), (5, "")]`` is ``3x - x + 5``;
    a term may be a bracket: ``[(2, "(x + 1)")]`` is ``2(x + 1)``."""
    out: list[str] = []
    for c, mono in terms:
        if c:
            out.append(_coefficient(sympy.Integer(c), not out, bool(mono)) + mono)
    return "".join(out) or "0"


def _linear(coeffs: Sequence[int], names: Sequence[str], constant: int = 0) -> str:
    terms = [(c, n) for c, n in zip(coeffs, names, strict=True) if c]
    if constant:
        terms.append((constant, ""))
    return _term_text(terms)


def _number(value: sympy.Rational) -> str:
    return str(value.p) if value.q == 1 else f"{value.p}/{value.q}"


# ------------------------------------------------------------------ problems


@dataclass(frozen=True, slots=True)
class AlgebraProblem:
    """One algebra problem: its task, its variables, and its exact answer.

    ``answer`` is a number (``Form.NUMBER``), one value per variable in order
    (``Form.VALUES``), or an expression (``Form.EXPRESSION``). ``given`` is the expression a
    person is asked to expand, simplify or factor."""

    id: str
    kind: str
    level: str
    prompt: str
    variables: tuple[str, ...]
    form: Form
    answer: tuple[sympy.Expr, ...]
    given: sympy.Expr | None = None

    @property
    def topic(self) -> str:
        """The kind, as a word problem's topic is read (``factor``)."""
        return self.kind

    def public_view(self) -> dict[str, str]:
        """Exactly what a player sees: never the answer."""
        return {
            "kind": "algebra",
            "id": self.id,
            "question": self.prompt,
            "topic": self.kind,
            "level": self.level,
            "variables": ", ".join(self.variables),
        }

    @property
    def answer_text(self) -> str:
        """The answer as people write it (``x = 2, y = -3``, ``2x^2 - 5x - 12``, ``7/4``)."""
        if self.form is Form.NUMBER:
            return _number(sympy.Rational(self.answer[0]))
        if self.form is Form.VALUES:
            return ", ".join(
                f"{n} = {_number(sympy.Rational(v))}"
                for n, v in zip(self.variables, self.answer, strict=True)
            )
        return show_expression(self.answer[0], self.variables)

    def check(self, text: str) -> Verdict:
        """Judge a typed answer: by exact value for numbers, by sympy equality (and the form
        asked for: expanded, simplified, factored) for expressions."""
        if self.form is Form.NUMBER:
            return self._check_number(text)
        if self.form is Form.VALUES:
            return self._check_values(text)
        return self._check_expression(text)

    def _check_number(self, text: str) -> Verdict:
        try:
            value = read_answer(text).value
        except AnswerError as exc:
            return Verdict(False, str(exc), readable=False)
        given = _number(sympy.Rational(value.numerator, value.denominator))
        if sympy.Rational(value.numerator, value.denominator) == self.answer[0]:
            return Verdict(True, "correct", value, given)
        return Verdict(False, f"{given} is not correct", value, given)

    def _check_values(self, text: str) -> Verdict:
        try:
            values = _read_values(text, self.variables)
        except AlgebraError as exc:
            return Verdict(False, str(exc), readable=False)
        given = ", ".join(f"{n} = {_number(values[n])}" for n in self.variables)
        wrong = [n for n, v in zip(self.variables, self.answer, strict=True) if values[n] != v]
        if not wrong:
            return Verdict(True, "correct", given=given)
        if len(wrong) == len(self.variables):
            return Verdict(False, f"{given} is not correct", given=given)
        right = [n for n in self.variables if n not in wrong]
        return Verdict(
            False,
            f"{', '.join(right)} {'is' if len(right) == 1 else 'are'} right; "
            f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not",
            given=given,
        )

    def _check_expression(self, text: str) -> Verdict:
        try:
            node = _read(_strip_lead(text), self.variables)
        except AlgebraError as exc:
            return Verdict(False, str(exc), readable=False)
        # The person's own spelling: sympy would turn 3(x - 11) into 3x - 33.
        given = " ".join(_strip_lead(text).split())[:80]
        if not equivalent(node.expr, self.answer[0]):
            return Verdict(False, "that is not equal to the right answer", given=given)
        problem = _form_problem(self, node)
        if problem:
            return Verdict(False, f"equal, but {problem}", given=given)
        return Verdict(True, "correct", given=given)


def _form_problem(problem: AlgebraProblem, node: _Node) -> str:
    """Why an equal answer is not in the form asked for, or ``""``."""
    if problem.kind == "expand" and not node.expanded:
        return "not expanded: multiply out every bracket"
    if problem.kind == "simplify":
        simplest = _read(show_expression(problem.answer[0], problem.variables), problem.variables)
        if node.ops > simplest.ops or (not node.expanded and simplest.expanded):
            return "not fully simplified"
    if problem.kind == "factor":
        return _factoring_problem(node, problem.variables)
    return ""


def _factoring_problem(node: _Node, variables: Sequence[str]) -> str:
    if node.top not in ("*", "^"):
        return "not factored: write it as a product, e.g. (x + 2)(x + 3)"
    symbols = [sympy.Symbol(n) for n in variables]
    for factor in node.factors:
        if factor.is_number:
            continue
        constant, parts = sympy.factor_list(factor, *symbols)
        if len(parts) != 1 or parts[0][1] != 1:
            return "not fully factored: a factor can be factored further"
        if abs(constant) != 1:
            return "not fully factored: take out the common factor"
    return ""


_LEAD = re.compile(
    r"^\s*(?:(?:the\s+)?(?:final\s+)?answer\s*(?:is\b\s*[:=]?|[:=])?|it\s+is|=)\s*",
    re.IGNORECASE,
)


def _strip_lead(text: str) -> str:
    return _LEAD.sub("", text.strip(), count=1).strip().rstrip(".").strip()


_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b)\s*")


def _read_values(text: str, variables: Sequence[str]) -> dict[str, sympy.Rational]:
    """``x = 2, y = -3``, ``(2, -3)``, ``2, -3`` or (one unknown) ``x = 4`` / ``4``."""
    if not isinstance(text, str) or not text.strip():
        raise AlgebraError("no answer given")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise AlgebraError(f"the answer is too long (at most {MAX_EXPRESSION_LENGTH} characters)")
    core = _strip_lead(text)
    if core[:1] in "([{" and core[-1:] in ")]}":
        core = core[1:-1]
    parts = [p for p in _SPLIT.split(core) if p.strip()]
    if not parts:
        raise AlgebraError("no answer given")
    named: dict[str, sympy.Rational] = {}
    bare: list[sympy.Rational] = []
    for part in parts:
        name, sep, value_text = part.partition("=")
        if not sep:
            name, value_text = "", part
        name = name.strip()
        if sep and name not in variables:
            raise AlgebraError(
                f"unknown variable {name[:20]!r}; the unknowns are {', '.join(variables)}"
            )
        value = parse_expression(value_text.strip(), ())
        if not value.is_Rational:
            raise AlgebraError(f"{value_text.strip()!r} is not a number")
        if name:
            if name in named:
                raise AlgebraError(f"two values for {name}")
            named[name] = sympy.Rational(value)
        else:
            bare.append(sympy.Rational(value))
    if named and bare:
        raise AlgebraError("name every value (x = 2, y = -3) or none ((2, -3))")
    if bare:
        if len(bare) != len(variables):
            raise AlgebraError(
                f"give {len(variables)} value{'s' if len(variables) > 1 else ''}, one for each "
                f"of {', '.join(variables)}, not {len(bare)}"
            )
        return dict(zip(variables, bare, strict=True))
    missing = [n for n in variables if n not in named]
    if missing:
        raise AlgebraError(f"give a value for {', '.join(missing)}")
    return named


# ------------------------------------------------------------------ generation

_Maker = Callable[[random.Random, str], AlgebraProblem]
_MAKERS: dict[str, _Maker] = {}


def _maker(kind: str) -> Callable[[_Maker], _Maker]:
    def register(make: _Maker) -> _Maker:
        _MAKERS[kind] = make
        return make

    return register


def _nonzero(rng: random.Random, low: int, high: int) -> int:
    return rng.choice([n for n in range(low, high + 1) if n != 0])


def _problem(
    kind: str,
    level: str,
    prompt: str,
    variables: Sequence[str],
    form: Form,
    answer: Sequence[sympy.Expr],
    given: sympy.Expr | None = None,
) -> AlgebraProblem:
    return AlgebraProblem("", kind, level, prompt, tuple(variables), form, tuple(answer), given)


@_maker("linear")
def _linear_problem(rng: random.Random, level: str) -> AlgebraProblem:
    x = sympy.Symbol("x")
    if level == "easy":
        root = sympy.Integer(rng.randint(-12, 12))
        a, b = _nonzero(rng, -9, 9), _nonzero(rng, -30, 30)
        lhs, rhs = a * x + b, a * root + b
        text = f"{_linear([a], ['x'], b)} = {rhs}"
    elif level == "medium":
        root = sympy.Integer(rng.randint(-12, 12))
        a, c = rng.sample([n for n in range(-9, 10) if n != 0], 2)
        b = rng.randint(-20, 20)
        d = (a - c) * root + b
        lhs, rhs = a * x + b, c * x + d
        text = f"{_linear([a], ['x'], b)} = {_linear([c], ['x'], int(d))}"
    else:
        q = rng.choice((1, 2, 3, 4))
        p = rng.choice([n for n in range(-15, 16) if n and gcd(n, q) == 1])
        root = sympy.Rational(p, q)
        d = rng.randint(2, 6)
        a = d + q * _nonzero(rng, -2, 2)
        if a == 0:
            a = d + 2 * q
        b, e = _nonzero(rng, -9, 9), _nonzero(rng, -9, 9)
        c = (a - d) * root + a * b + d * e  # whole, as a - d is a multiple of q
        lhs, rhs = a * (x + b) - c, d * (x - e)
        left = _term_text([(a, f"({_linear([1], ['x'], b)})"), (-int(c), "")])
        right = _term_text([(d, f"({_linear([1], ['x'], -e)})")])
        text = f"{left} = {right}"
    solved = sympy.solve(sympy.Eq(lhs, rhs), x)
    if solved != [root]:  # the plant and sympy must agree
        raise TemplateError(f"linear {text}: planted {root}, sympy {solved}")
    return _problem("linear", level, f"Solve for x: {text}", ["x"], Form.VALUES, [root])


@_maker("system")
def _system_problem(rng: random.Random, level: str) -> AlgebraProblem:
    names = ["x", "y", "z"] if level == "hard" else ["x", "y"]
    symbols = [sympy.Symbol(n) for n in names]
    size = len(names)
    spread = 5 if level == "hard" else 9
    root = [sympy.Integer(rng.randint(-spread, spread)) for _ in names]
    while True:
        if level == "easy":
            rows = [[1, 1], [1, -1]] if rng.random() < 0.5 else [[1, 1], [rng.randint(2, 5), -1]]
        elif level == "medium":
            rows = [[_nonzero(rng, -spread, spread) for _ in names] for _ in names]
        else:
            rows = [[rng.randint(-spread, spread) for _ in names] for _ in names]
        matrix = sympy.Matrix(rows)
        if matrix.det() != 0 and all(any(r) for r in rows):
            break
    rhs = matrix * sympy.Matrix(root)
    equations = [
        sympy.Eq(sum(c * s for c, s in zip(row, symbols, strict=True)), rhs[k])
        for k, row in enumerate(rows)
    ]
    (solved,) = sympy.linsolve(equations, symbols)
    if list(solved) != root:
        raise TemplateError(f"system: planted {root}, sympy {solved}")
    lines = "; ".join(f"{_linear(row, names)} = {rhs[k]}" for k, row in enumerate(rows))
    word = "system" if size == 2 else "system of three equations"
    return _problem("system", level, f"Solve the {word}: {lines}", names, Form.VALUES, root)


def _binomial(rng: random.Random, lead: bool) -> tuple[int, int]:
    a = rng.choice((1, 2, 3, 4, 5, -2, -3)) if lead else 1
    return a, _nonzero(rng, -9, 9)


@_maker("expand")
def _expand_problem(rng: random.Random, level: str) -> AlgebraProblem:
    x, y = sympy.Symbol("x"), sympy.Symbol("y")
    if level == "easy":
        (_, b), (_, d) = _binomial(rng, False), _binomial(rng, False)
        given = (x + b) * (x + d)
        text = f"({_linear([1], ['x'], b)})({_linear([1], ['x'], d)})"
        names = ["x"]
    elif level == "medium":
        (a, b), (c, d) = _binomial(rng, True), _binomial(rng, True)
        if rng.random() < 0.3:
            c, d = a, b
            given = (a * x + b) ** 2
            text = f"({_linear([a], ['x'], b)})^2"
        else:
            given = (a * x + b) * (c * x + d)
            text = f"({_linear([a], ['x'], b)})({_linear([c], ['x'], d)})"
        names = ["x"]
    else:
        choice = rng.randrange(3)
        if choice == 0:
            b, d, f = (_nonzero(rng, -6, 6) for _ in range(3))
            given = (x + b) * (x + d) * (x + f)
            text = "".join(f"({_linear([1], ['x'], k)})" for k in (b, d, f))
            names = ["x"]
        elif choice == 1:
            a, b, c, d = (_nonzero(rng, -5, 5) for _ in range(4))
            given = (a * x + b * y) * (c * x + d * y)
            text = f"({_linear([a, b], ['x', 'y'])})({_linear([c, d], ['x', 'y'])})"
            names = ["x", "y"]
        else:
            a, b = rng.choice((1, 2, 3)), _nonzero(rng, -4, 4)
            given = (a * x + b) ** 3
            text = f"({_linear([a], ['x'], b)})^3"
            names = ["x"]
    answer = sympy.expand(given)
    return _problem("expand", level, f"Expand: {text}", names, Form.EXPRESSION, [answer], given)


@_maker("simplify")
def _simplify_problem(rng: random.Random, level: str) -> AlgebraProblem:
    x, y = sympy.Symbol("x"), sympy.Symbol("y")
    if level == "easy":
        a, c = _nonzero(rng, -9, 9), _nonzero(rng, -9, 9)
        b, d = _nonzero(rng, -15, 15), _nonzero(rng, -15, 15)
        if a + c == 0:
            c += 1 if c != -1 else 2
        given = a * x + b + c * x + d
        text = _term_text([(a, "x"), (b, ""), (c, "x"), (d, "")])
        names = ["x"]
    elif level == "medium":
        k, m = rng.randint(2, 6), _nonzero(rng, -6, 6)
        b, d = _nonzero(rng, -9, 9), _nonzero(rng, -9, 9)
        e = _nonzero(rng, -5, 5)
        extra = 1 if k + m == 0 else 0  # keep an x in the answer
        given = k * (x + b) + m * (x - d) + e * y + extra * x
        text = _term_text(
            [
                (k, f"({_linear([1], ['x'], b)})"),
                (m, f"({_linear([1], ['x'], -d)})"),
                (e, "y"),
                (extra, "x"),
            ]
        )
        names = ["x", "y"]
    else:
        a, b = rng.sample([n for n in range(-9, 10) if n != 0], 2)
        if rng.random() < 0.5:
            given = (x**2 - a**2) / (x - a)
            text = f"({_term_text([(1, 'x^2'), (-(a**2), '')])})/({_linear([1], ['x'], -a)})"
        else:
            k = rng.choice((1, 2, 3))
            numerator = sympy.expand(k * (x + a) * (x + b))
            text = f"({show_expression(numerator, ['x'])})/({_linear([1], ['x'], a)})"
            given = numerator / (x + a)
        names = ["x"]
    answer = sympy.expand(sympy.cancel(given))
    return _problem("simplify", level, f"Simplify: {text}", names, Form.EXPRESSION, [answer], given)


@_maker("factor")
def _factor_problem(rng: random.Random, level: str) -> AlgebraProblem:
    x = sympy.Symbol("x")
    if level == "easy":
        k = rng.randint(2, 9)
        while True:
            a, b = _nonzero(rng, -9, 9), _nonzero(rng, -12, 12)
            if gcd(a, b) == 1:
                break
        given = sympy.expand(k * (a * x + b))
    elif level == "medium":
        a, b = _nonzero(rng, -9, 9), _nonzero(rng, -9, 9)
        given = sympy.expand((x + a) * (x + b))
    else:
        if rng.random() < 0.5:
            k, a = rng.randint(2, 5), rng.randint(1, 9)
            given = sympy.expand(k * (x - a) * (x + a))
        else:
            while True:
                a, c = rng.randint(2, 5), rng.randint(1, 4)
                b, d = _nonzero(rng, -7, 7), _nonzero(rng, -7, 7)
                if gcd(a, b) == 1 and gcd(c, d) == 1:
                    break
            given = sympy.expand((a * x + b) * (c * x + d))
    answer = sympy.factor(given)
    text = show_expression(given, ["x"])
    return _problem(
        "factor", level, f"Factor completely: {text}", ["x"], Form.EXPRESSION, [answer], given
    )


@_maker("evaluate")
def _evaluate_problem(rng: random.Random, level: str) -> AlgebraProblem:
    x, y = sympy.Symbol("x"), sympy.Symbol("y")
    if level == "easy":
        a, b, c = _nonzero(rng, -6, 6), _nonzero(rng, -9, 9), rng.randint(-12, 12)
        expr = a * x**2 + b * x + c
        values = {x: sympy.Integer(_nonzero(rng, -5, 5))}
        names = ["x"]
    elif level == "medium":
        a, b, c = _nonzero(rng, -5, 5), _nonzero(rng, -6, 6), _nonzero(rng, -5, 5)
        expr = a * x**2 + b * x * y + c * y**3
        values = {x: sympy.Integer(_nonzero(rng, -4, 4)), y: sympy.Integer(_nonzero(rng, -3, 3))}
        names = ["x", "y"]
    else:
        a, b, c = _nonzero(rng, -8, 8), _nonzero(rng, -6, 6), _nonzero(rng, -9, 9)
        expr = a * x**2 - b * x * y + c * y
        values = {
            x: sympy.Rational(_nonzero(rng, -5, 5), rng.choice((2, 3, 4))),
            y: sympy.Rational(_nonzero(rng, -5, 5), rng.choice((2, 3))),
        }
        names = ["x", "y"]
    answer = expr.subs(values)
    at = " and ".join(f"{s} = {_number(v)}" for s, v in values.items())
    prompt = f"Evaluate {show_expression(expr, names)} when {at}"
    return _problem("evaluate", level, prompt, names, Form.NUMBER, [answer], expr)


def make_algebra(kind: str, level: str, seed: int) -> AlgebraProblem:
    """The ``kind`` problem at ``level`` that ``seed`` gives; its id is
    ``<kind>-<level>/<seed>``. :class:`ValueError` for an unknown kind or level."""
    if kind not in _MAKERS:
        raise ValueError(f"unknown algebra kind {kind!r}; choose from {', '.join(ALGEBRA_KINDS)}")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    problem = _MAKERS[kind](random.Random(f"algebra:{kind}:{level}:{seed}"), level)
    return AlgebraProblem(
        f"{kind}-{level}/{seed}",
        problem.kind,
        problem.level,
        problem.prompt,
        problem.variables,
        problem.form,
        problem.answer,
        problem.given,
    )


def algebra_by_id(problem_id: str) -> AlgebraProblem:
    """Make again the problem with id ``<kind>-<level>/<seed>``."""
    head, _, seed = problem_id.partition("/")
    kind, _, level = head.partition("-")
    try:
        return make_algebra(kind, level, int(seed))
    except ValueError:
        raise ValueError(f"{problem_id!r} is not an algebra problem's id") from None


def generate_algebra(
    seed: int = 0, count: int = 10, kind: str | None = None, level: str | None = None
) -> list[AlgebraProblem]:
    """``count`` algebra problems drawn from ``seed``, of one kind and level if given."""
    if kind is not None and kind not in ALGEBRA_KINDS:
        raise ValueError(f"unknown algebra kind {kind!r}; choose from {', '.join(ALGEBRA_KINDS)}")
    if level is not None and level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    if count < 0:
        raise ValueError("count must not be negative")
    rng = random.Random(f"algebra:{seed}")
    kinds = [kind] if kind else list(ALGEBRA_KINDS)
    levels = [level] if level else list(LEVELS)
    return [
        make_algebra(rng.choice(kinds), rng.choice(levels), rng.randrange(10**9))
        for _ in range(count)
    ]
