"""An exact Game of 24 solver: every distinct way to reach the target.

Values are exact :class:`~fractions.Fraction`; nothing is ever rounded.

**Search.** A hand is split into two sub-hands in every way. The smaller side's values are
enumerated outright; for each of them and each operation the value the larger side must make
is computed (``24 = a * b`` needs ``b = 24 / a``) and looked up, or solved for recursively
when the larger side has four or more numbers. Every sub-result is memoised on the sorted
multiset of its numbers (and target), so the 1,820 hands of 1-13 share their work, and
expressions are only ever built for values that lead to the target.

**Distinct solutions.** Two expressions count as the same solution when they differ only by
commutativity, associativity, or where a minus sign sits. Each expression is kept in a
flattened form: a *sum* is a multiset of signed terms (``a - b`` is ``a + (-b)``), a
*product* a multiset of factors and inverted factors (``a / b`` is ``a * b⁻¹``), so
``(1 + 2) + 3`` and ``3 + (2 + 1)``, ``4 * 6`` and ``6 * 4``, ``8 - (3 - 5)`` and
``8 + 5 - 3``, ``a / (b / c)`` and ``a * c / b`` all coincide. On top of that a sum may be
written either way round when its sign is absorbed elsewhere, so ``(5 - 1) * (8 - 2)`` and
``(1 - 5) * (2 - 8)`` coincide too. Nothing else is folded: ``x * 1`` and ``x / 1``, or
``x + 1 - 1`` and ``x * 1 * 1``, stay different solutions. Each card is used once, so two
expressions that agree for *every* choice of card values are exactly the ones folded here;
the tests check that against brute force. With a target of 0 an expression and its negation
also count once.

**Rendering.** Each solution is written with minimal parentheses in a fixed order: in a sum
the added terms come before the subtracted ones, each group from large to small; in a product
the factors come before the divisors, plain numbers from small to large before compound
factors. Of several equivalent writings the one with the fewest negative values is shown. The
steps of a solution follow its text from left to right, so ``6 * (11 + 5) / 4`` passes
through 96: we keep that order because people tend to multiply before they divide, and large
intermediate values are part of what makes a hand hard.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

from puzzles.arith import format_number
from puzzles.game24.rules import Hand, Step

__all__ = [
    "Solution",
    "count_solutions",
    "is_solvable",
    "solutions",
    "solve",
]

_Numbers = tuple[Fraction, ...]


@dataclass(frozen=True, slots=True)
class Solution:
    """One distinct solution: its expression and the steps that evaluate it left to right."""

    expression: str
    steps: tuple[Step, ...]

    @property
    def intermediates(self) -> tuple[Fraction, ...]:
        """The result of every step, the last one being the target."""
        return tuple(step.result for step in self.steps)

    @property
    def fractional(self) -> bool:
        """True when some step produces a value that is not a whole number."""
        return any(v.denominator != 1 for v in self.intermediates)

    @property
    def negative(self) -> bool:
        """True when some step produces a value below zero."""
        return any(v < 0 for v in self.intermediates)

    @property
    def peak(self) -> Fraction:
        """The largest magnitude any step reaches (at least the target's)."""
        return max((abs(v) for v in self.intermediates), default=Fraction(0))

    @property
    def divisions(self) -> int:
        """How many steps divide."""
        return sum(step.op == "/" for step in self.steps)

    def plainness(self) -> tuple[bool, bool, Fraction, int, int, str]:
        """A sort key: whole numbers, no negatives, small values, few divisions, short."""
        return (
            self.fractional,
            self.negative,
            self.peak,
            self.divisions,
            len(self.expression),
            self.expression,
        )


# ---------------------------------------------------------------------------- forms


@dataclass(frozen=True, slots=True, eq=False)
class _Form:
    """An expression in flattened form.

    ``kind`` is ``"n"`` (a card), ``"+"`` (a sum) or ``"*"`` (a product). ``terms`` holds
    ``(flag, member)`` pairs: for a sum the flag means "subtracted", for a product "divided";
    members are never of the same kind as their parent. ``norm`` and ``sign`` say which
    solution this is up to commutativity, associativity and sign: ``value == sign * value of
    norm``. ``untidy`` counts the negative values inside, to choose among equivalent writings.
    """

    value: Fraction
    kind: str
    terms: tuple[tuple[bool, _Form], ...]
    sign: int
    norm: str
    text: str
    untidy: int

    @property
    def key(self) -> str:
        """Identity up to commutativity and associativity, with the sign."""
        return self.norm if self.sign > 0 else "-" + self.norm


def _leaf(value: Fraction) -> _Form:
    text = format_number(value)
    return _Form(value, "n", (), 1, text, text, 0)


def _members(form: _Form, kind: str) -> tuple[tuple[bool, _Form], ...]:
    return form.terms if form.kind == kind else ((False, form),)


def _flip(terms: Iterable[tuple[bool, _Form]]) -> tuple[tuple[bool, _Form], ...]:
    return tuple((not flag, member) for flag, member in terms)


def _sum_order(term: tuple[bool, _Form]) -> tuple[bool, Fraction, str]:
    flag, member = term
    return (flag, -abs(member.value), member.text)


def _product_order(term: tuple[bool, _Form]) -> tuple[bool, bool, Fraction, str]:
    flag, member = term
    leaf = member.kind == "n"
    return (flag, not leaf, member.value if leaf else Fraction(0), member.text)


def _sum(value: Fraction, terms: tuple[tuple[bool, _Form], ...]) -> _Form:
    terms = tuple(sorted(terms, key=_sum_order))
    # A sum built from real operations always has an added term, and it sorts first.
    parts = [terms[0][1].text]
    for flag, member in terms[1:]:
        parts.append(("- " if flag else "+ ") + member.text)
    signed = sorted(
        ("-" if flag != (member.sign < 0) else "+") + member.norm for flag, member in terms
    )
    flipped = sorted(("+" if s[0] == "-" else "-") + s[1:] for s in signed)
    plus = sum(s[0] == "+" for s in signed)
    minus = len(signed) - plus
    # Of the two ways round, keep the one with more added terms (then the smaller text), so
    # that a - b and b - a share a norm and differ only by sign.
    if minus > plus or (minus == plus and flipped < signed):
        sign, chosen = -1, flipped
    else:
        sign, chosen = 1, signed
    untidy = sum(member.untidy for _, member in terms) + (value < 0)
    return _Form(value, "+", terms, sign, "S(" + ",".join(chosen) + ")", " ".join(parts), untidy)


def _product(value: Fraction, terms: tuple[tuple[bool, _Form], ...]) -> _Form:
    terms = tuple(sorted(terms, key=_product_order))
    parts = []
    sign = 1
    for i, (flag, member) in enumerate(terms):
        text = f"({member.text})" if member.kind == "+" else member.text
        parts.append(text if i == 0 else ("/ " if flag else "* ") + text)
        sign *= member.sign
    norm = "P(" + ",".join(sorted(("/" if f else "*") + m.norm for f, m in terms)) + ")"
    untidy = sum(member.untidy for _, member in terms) + (value < 0)
    return _Form(value, "*", terms, sign, norm, " ".join(parts), untidy)


def _combine(a: _Form, op: str, b: _Form) -> _Form | None:
    """``a op b`` in flattened form, or None for a division by zero."""
    if op == "+":
        return _sum(a.value + b.value, _members(a, "+") + _members(b, "+"))
    if op == "-":
        return _sum(a.value - b.value, _members(a, "+") + _flip(_members(b, "+")))
    if op == "*":
        return _product(a.value * b.value, _members(a, "*") + _members(b, "*"))
    if b.value == 0:
        return None
    return _product(a.value / b.value, _members(a, "*") + _flip(_members(b, "*")))


def _tidier(new: _Form, old: _Form) -> bool:
    return (new.untidy, len(new.text), new.text) < (old.untidy, len(old.text), old.text)


def _keep(table: dict[str, _Form], form: _Form | None, key: str | None = None) -> None:
    if form is None:
        return
    key = form.key if key is None else key
    old = table.get(key)
    if old is None or _tidier(form, old):
        table[key] = form


# ---------------------------------------------------------------------------- search


@lru_cache(maxsize=4096)
def _splits(numbers: _Numbers) -> tuple[tuple[_Numbers, _Numbers], ...]:
    """Every way to split a sorted multiset into two non-empty parts, each way once, the
    smaller part first (of equal sizes, the smaller tuple)."""
    n = len(numbers)
    seen: set[_Numbers] = set()
    out = []
    for size in range(1, n // 2 + 1):
        for chosen in combinations(range(n), size):
            small = tuple(numbers[i] for i in chosen)
            large = tuple(numbers[i] for i in range(n) if i not in chosen)
            if small in seen or (size * 2 == n and small > large):
                continue
            seen.add(small)
            out.append((small, large))
    return tuple(out)


def _outcomes(a: Fraction, b: Fraction) -> tuple[Fraction, ...]:
    out = [a + b, a - b, b - a, a * b]
    if b:
        out.append(a / b)
    if a:
        out.append(b / a)
    return tuple(out)


@lru_cache(maxsize=16384)
def _values(numbers: _Numbers) -> frozenset[Fraction]:
    """Every value the numbers can make, each used once."""
    if len(numbers) == 1:
        return frozenset(numbers)
    found: set[Fraction] = set()
    for small, large in _splits(numbers):
        right = _values(large)
        for a in _values(small):
            for b in right:
                found.update(_outcomes(a, b))
    return frozenset(found)


# (op, a_first, b): the other operand b with ``a op b == target`` (a_first) or
# ``b op a == target``; b is None when any b will do (a == target == 0).
_Partner = tuple[str, bool, Fraction | None]


def _partners(a: Fraction, target: Fraction) -> list[_Partner]:
    out: list[_Partner] = [
        ("+", True, target - a),
        ("-", True, a - target),
        ("-", False, target + a),
    ]
    if a:
        out.append(("*", True, target / a))
        out.append(("/", False, target * a))
        if target:
            out.append(("/", True, a / target))
    elif not target:
        out.append(("*", True, None))
        out.append(("/", True, None))
    return out


@lru_cache(maxsize=1 << 16)
def _reaches(numbers: _Numbers, target: Fraction) -> bool:
    """Whether the (positive) numbers can make ``target``; stops at the first way found."""
    if len(numbers) <= 3:
        return target in _values(numbers)
    for small, large in _splits(numbers):
        for a in _values(small):
            for _, _, b in _partners(a, target):
                # b is None only when a == target == 0, and then a product with anything, or
                # a quotient by the (positive) sum of the other side, gives the target.
                if b is None or _reaches(large, b):
                    return True
    return False


@lru_cache(maxsize=1 << 16)
def _solve(numbers: _Numbers, target: Fraction) -> tuple[_Form, ...]:
    """Every distinct expression over ``numbers`` (each once) equal to ``target``."""
    if len(numbers) == 1:
        return (_leaf(numbers[0]),) if numbers[0] == target else ()
    if len(numbers) <= 3 and target not in _values(numbers):
        return ()
    table: dict[str, _Form] = {}
    for small, large in _splits(numbers):
        known = _values(large) if len(large) <= 3 else None
        for a in _values(small):
            for op, a_first, b in _partners(a, target):
                if b is None:
                    wanted = [v for v in _values(large) if op == "*" or v]
                elif known is None or b in known:
                    wanted = [b]
                else:
                    continue
                for value in wanted:
                    rights = _solve(large, value)
                    if not rights:
                        continue
                    for left in _solve(small, a):
                        for right in rights:
                            pair = (left, op, right) if a_first else (right, op, left)
                            _keep(table, _combine(*pair))
    return tuple(table.values())


def _steps(form: _Form) -> list[Step]:
    """The steps that evaluate a form: each compound member first, then left to right."""
    steps: list[Step] = []
    acc: Fraction | None = None
    for flag, member in form.terms:
        steps.extend(_steps(member))
        if acc is None:
            acc = member.value
            continue
        if form.kind == "+":
            op = "-" if flag else "+"
            result = acc - member.value if flag else acc + member.value
        else:
            op = "/" if flag else "*"
            result = acc / member.value if flag else acc * member.value
        steps.append(Step(acc, op, member.value, result))
        acc = result
    return steps


def _numbers(hand: Hand) -> _Numbers:
    return tuple(sorted(Fraction(n) for n in hand.numbers))


# ---------------------------------------------------------------------------- public


def solve(hand: Hand) -> list[Solution]:
    """Every distinct solution of ``hand``, plainest first (see :meth:`Solution.plainness`)."""
    table: dict[str, _Form] = {}
    for form in _solve(_numbers(hand), Fraction(hand.target)):
        # The value is fixed, so the norm alone names the solution; for a target of 0 this
        # also folds an expression with its negation.
        _keep(table, form, form.norm)
    found = [Solution(form.text, tuple(_steps(form))) for form in table.values()]
    return sorted(found, key=Solution.plainness)


def solutions(hand: Hand) -> list[str]:
    """Every distinct solution expression of ``hand``, plainest first, e.g. for ``3 3 8 8``:
    ``["8 / (3 - 8 / 3)"]``."""
    return [s.expression for s in solve(hand)]


def count_solutions(hand: Hand) -> int:
    """How many distinct solutions ``hand`` has."""
    return len(_solve_keys(hand))


def _solve_keys(hand: Hand) -> set[str]:
    return {form.norm for form in _solve(_numbers(hand), Fraction(hand.target))}


def is_solvable(hand: Hand) -> bool:
    """Whether ``hand`` has a solution at all; stops at the first one found."""
    return _reaches(_numbers(hand), Fraction(hand.target))
