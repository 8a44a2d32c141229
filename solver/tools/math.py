"""The math tools of ReAct and DELI: ``calculate`` (exact arithmetic through
:mod:`puzzles.arith`) and ``solve`` (equations solved by sympy, read by the whitelisting
parser of :mod:`puzzles.wordproblem.algebra`; never ``sympify`` on model text).

The functions in :data:`RUNNERS` run inside the tool worker (:mod:`solver.tools.worker`);
:class:`Calculate` and :class:`Solve` are what a domain hands a method: each call goes to the
worker under a time limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from puzzles.arith import ArithError, format_decimal, format_number, parse, verify_claim

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_EQUATIONS",
    "MAX_INPUT",
    "RUNNERS",
    "run_calculate",
    "run_solve",
    "show_value",
]

DEFAULT_LIMIT = 5.0
"""Seconds a tool call may run before it is stopped."""
MAX_INPUT = 1000
"""Longest tool input read, in characters."""
MAX_EQUATIONS = 6
"""Most equations (and unknowns) one ``solve`` call may have."""

_Outcome = tuple[bool, str, str | None]


def show_value(value: Fraction) -> str:
    """An exact value as a fraction and a decimal: ``12``, ``5/2 (= 2.5)``, ``8/3 (≈ 2.6667)``."""
    if value.denominator == 1:
        return str(value.numerator)
    decimal = format_decimal(value, 4)
    exact = Fraction(decimal) == value
    return f"{format_number(value)} ({'=' if exact else '≈'} {decimal})"


def run_calculate(argument: str) -> _Outcome:
    """``calculate[expression]``: the exact value, or why the expression cannot be read. An
    input written as a claim (``30 * 11 = 320``) is computed from its left side and the claim
    judged."""
    text = _clean(argument)
    if not text:
        return False, "calculate needs an expression, e.g. calculate[30 * 11]", None
    if len(text) > MAX_INPUT:
        return False, f"the expression is too long ({len(text)} characters)", None
    if "=" in text:
        lhs = text.split("=")[0].strip()
        try:
            claim = verify_claim(f"{lhs} = {text.split('=', 1)[1].strip()}")
        except ArithError:
            claim = None
        if claim is not None and claim.exact is not None:
            note = "" if claim.ok else f" (not {claim.rhs})"
            return True, show_value(claim.exact) + note, format_number(claim.exact)
        text = lhs
    if "^" in text or "**" in text:
        return False, "powers are not allowed: write the multiplication out (3 * 3 * 3)", None
    try:
        value = parse(text).value
    except ArithError as exc:
        return False, f"cannot calculate {text[:60]!r}: {exc}", None
    return True, show_value(value), format_number(value)


_NAME = re.compile(r"[A-Za-z]{1,20}")


def _split_solve(text: str) -> tuple[list[str], list[str]] | str:
    """``equations; unknowns`` as (equations, unknowns), or what is wrong with it."""
    head, sep, tail = text.rpartition(";")
    names = [n for n in re.split(r"[\s,]+", tail.strip()) if n]
    if not sep or not names or not all(_NAME.fullmatch(n) for n in names):
        return (
            "solve takes equations and then the unknowns after ';', e.g. "
            "solve[x + y = 10, x - y = 2; x, y]"
        )
    equations = [e.strip() for e in re.split(r"[;,\n]", head) if e.strip()]
    if not equations:
        return "solve needs at least one equation before ';'"
    if len(equations) > MAX_EQUATIONS or len(names) > MAX_EQUATIONS:
        return f"solve takes at most {MAX_EQUATIONS} equations and {MAX_EQUATIONS} unknowns"
    if len(set(names)) != len(names):
        return "an unknown is named twice"
    return equations, names


def run_solve(argument: str) -> _Outcome:
    """``solve[equations; unknowns]``: every solution sympy finds, or why there is none."""
    import sympy

    from puzzles.wordproblem.algebra import AlgebraError, parse_expression

    text = _clean(argument)
    if len(text) > MAX_INPUT:
        return False, f"the input is too long ({len(text)} characters)", None
    split = _split_solve(text)
    if isinstance(split, str):
        return False, split, None
    equations, names = split
    symbols = [sympy.Symbol(n) for n in names]
    exprs = []
    for equation in equations:
        lhs, eq, rhs = equation.partition("=")
        if "=" in rhs:
            return False, f"{equation!r} has more than one '='", None
        try:
            left = parse_expression(lhs, names)
            right = parse_expression(rhs, names) if eq else sympy.Integer(0)
        except AlgebraError as exc:
            return False, f"cannot read {equation[:60]!r}: {exc}", None
        exprs.append(left - right)
    found = sympy.solve(exprs, symbols, dict=True)
    if not found and len(exprs) == 1 and len(symbols) == 1:
        # Given as a list, an equation whose roots have no closed form (x^7 + x = 3) comes
        # back empty; given alone, its roots come back as exact CRootOf values.
        found = sympy.solve(exprs[0], symbols[0], dict=True)
    if not found:
        return _none_found(exprs, symbols, names)
    found.sort(key=lambda solution: not all(v.is_real for v in solution.values()))
    lines = []
    value: str | None = None
    free = False
    for solution in found[:4]:
        parts = []
        for symbol, name in zip(symbols, names, strict=True):
            if symbol not in solution:
                parts.append(f"{name} is free")
                free = True
                continue
            free = free or bool(solution[symbol].free_symbols)
            parts.append(_show_solution(name, solution[symbol]))
        lines.append(", ".join(parts))
    if len(found) == 1 and len(names) == 1 and symbols[0] in found[0]:
        only = found[0][symbols[0]]
        if only.is_Rational:
            value = format_number(Fraction(int(only.p), int(only.q)))
    more = f" (and {len(found) - 4} more)" if len(found) > 4 else ""
    if free:
        lines[0] = "infinitely many solutions: " + lines[0]
    return True, "; or ".join(lines) + more, value


_LONGEST_EXACT = 40
"""Longest exact form shown beside a number's decimal; a longer one (nested radicals, a
``CRootOf``) is shown by its decimal alone."""


def _show_solution(name: str, expr: object) -> str:
    """``x = 5/2 (= 2.5)``, ``x = sqrt(2) (≈ 1.41421)``, or ``x ≈ 1.09633`` for a value whose
    exact form is long."""
    import sympy

    if isinstance(expr, sympy.Rational):
        return f"{name} = {show_value(Fraction(int(expr.p), int(expr.q)))}"
    if isinstance(expr, sympy.Expr) and expr.is_number:
        exact = str(expr)
        approx = sympy.N(expr, 6)
        if len(exact) > _LONGEST_EXACT or "RootOf" in exact:
            return f"{name} ≈ {approx}"
        return f"{name} = {exact} (≈ {approx})"
    return f"{name} = {expr}"


def _none_found(exprs: list[Any], symbols: list[Any], names: list[str]) -> _Outcome:
    """Why sympy found no solution: the equations say nothing (every value works), they
    contradict each other (their Groebner basis is 1), or sympy could not solve them, which
    is not the same as their having no solution."""
    import sympy

    if all(sympy.expand(e) == 0 for e in exprs):
        unknowns = ", ".join(names)
        return True, f"infinitely many solutions: every value of {unknowns} works", None
    try:
        numerators = [sympy.numer(sympy.together(e)) for e in exprs]
        contradiction = list(sympy.groebner(numerators, *symbols).exprs) == [1]
    except (sympy.PolynomialError, sympy.polys.polyerrors.PolificationFailed, ValueError):
        contradiction = False
    if contradiction:
        return False, "no solution: the equations contradict each other", None
    return (
        False,
        "sympy found no exact solution: the equations may have none, or only solutions it "
        "cannot write out; write them more simply, or compute step by step with calculate",
        None,
    )


def _clean(argument: str) -> str:
    if not isinstance(argument, str):
        return ""
    text = argument.strip().strip("`'\"").strip()
    return text


RUNNERS: dict[str, Callable[[str], _Outcome]] = {"calculate": run_calculate, "solve": run_solve}
"""The functions the worker may run, by tool name."""
