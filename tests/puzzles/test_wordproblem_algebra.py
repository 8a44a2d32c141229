"""The algebra set: generated with sympy, answers checked by sympy equality after safe parsing."""

from __future__ import annotations

import contextlib

import pytest
import sympy

from puzzles.wordproblem import (
    ALGEBRA_KINDS,
    LEVELS,
    AlgebraError,
    AlgebraProblem,
    Form,
    algebra_by_id,
    equivalent,
    generate_algebra,
    make_algebra,
    parse_expression,
    show_expression,
)
from puzzles.wordproblem.algebra import MAX_EXPRESSION_LENGTH

x, y, z = sympy.symbols("x y z")
CASES = [(kind, level) for kind in ALGEBRA_KINDS for level in LEVELS]


def _sides(prompt: str) -> list[tuple[str, str]]:
    """The equations of a linear or system prompt as (left, right) texts."""
    body = prompt.split(": ", 1)[1]
    return [tuple(part.split(" = ")) for part in body.split("; ")]  # type: ignore[misc]


@pytest.mark.parametrize(("kind", "level"), CASES)
def test_answers_agree_with_sympy_and_with_the_prompt(kind: str, level: str) -> None:
    for seed in range(15):
        p = make_algebra(kind, level, seed)
        assert p.check(p.answer_text).ok, (p.id, p.prompt, p.answer_text)
        names = p.variables
        if p.form is Form.VALUES:
            # Read the prompt back with the safe parser; the answer must satisfy it.
            values = dict(zip(sympy.symbols(names), p.answer, strict=True))
            for left, right in _sides(p.prompt):
                lhs, rhs = parse_expression(left, names), parse_expression(right, names)
                assert sympy.simplify(lhs.subs(values) - rhs.subs(values)) == 0, p.id
        elif p.form is Form.NUMBER:
            text = p.prompt.removeprefix("Evaluate ").split(" when ")[0]
            assert equivalent(parse_expression(text, names), p.given), p.id
            assert p.given is not None
            at = {sympy.Symbol(n): v for n, v in zip(names, _values(p.prompt), strict=True)}
            assert p.given.subs(at) == p.answer[0], p.id
        else:
            assert p.given is not None
            shown = p.prompt.split(": ", 1)[1]
            assert equivalent(parse_expression(shown, names), p.given), (p.id, shown)
            assert sympy.simplify(p.answer[0] - p.given) == 0, p.id
            assert p.answer[0].equals(p.given)
            assert equivalent(parse_expression(p.answer_text, names), p.answer[0])


def _values(prompt: str) -> list[sympy.Rational]:
    at = prompt.split(" when ")[1]
    return [sympy.Rational(part.split(" = ")[1]) for part in at.split(" and ")]


def test_generation_is_seeded_varied_and_reproducible_from_ids() -> None:
    batch = generate_algebra(seed=4, count=60)
    assert [p.prompt for p in batch] == [p.prompt for p in generate_algebra(seed=4, count=60)]
    assert len({p.prompt for p in batch}) >= 55
    assert {p.kind for p in batch} == set(ALGEBRA_KINDS)
    for p in batch[:10]:
        assert algebra_by_id(p.id) == p
    with pytest.raises(ValueError):
        algebra_by_id("poetry-easy/1")
    with pytest.raises(ValueError, match="unknown"):
        generate_algebra(kind="calculus")


def test_public_view_hides_the_answer() -> None:
    p = make_algebra("factor", "medium", 1)
    view = p.public_view()
    assert view["question"] == p.prompt and "answer" not in view
    assert p.answer_text not in " ".join(view.values())


# ------------------------------------------------------------------ checking typed answers


def _expression_problem(kind: str, given: sympy.Expr, answer: sympy.Expr) -> AlgebraProblem:
    return AlgebraProblem("t", kind, "medium", "", ("x", "y"), Form.EXPRESSION, (answer,), given)


def test_equal_answers_in_any_order_are_accepted() -> None:
    p = _expression_problem("expand", (x + 2) * (x + 3), x**2 + 5 * x + 6)
    for text in ("x^2 + 5x + 6", "6 + 5x + x^2", "x**2+5*x+6", "x² + 5·x + 6", "= x^2+5x+6"):
        assert p.check(text).ok, text
    verdict = p.check("x^2 + 5x + 7")
    assert not verdict.ok and verdict.readable and "not equal" in verdict.reason


def test_the_form_asked_for_is_required() -> None:
    expand = _expression_problem("expand", 2 * (x + 3) * (x - 1), 2 * x**2 + 4 * x - 6)
    verdict = expand.check("2(x + 3)(x - 1)")
    assert not verdict.ok and "not expanded" in verdict.reason
    assert not expand.check("(2x + 6)(x - 1)").ok

    factor = _expression_problem("factor", 2 * x**2 + 8 * x + 6, 2 * (x + 1) * (x + 3))
    assert factor.check("2(x + 1)(x + 3)").ok
    assert factor.check("(x + 3) * 2 * (x + 1)").ok
    assert "not factored" in factor.check("2x^2 + 8x + 6").reason
    assert "common factor" in factor.check("(2x + 2)(x + 3)").reason
    assert "not fully factored" in factor.check("(2x^2 + 8x + 6) * 1").reason
    linear = _expression_problem("factor", 6 * x + 9, sympy.factor(6 * x + 9))
    assert linear.check("3(2x + 3)").ok
    assert "common factor" in linear.check("(6x + 9) * 1").reason
    square = _expression_problem("factor", 2 * x**3 - 2 * x, 2 * x * (x - 1) * (x + 1))
    assert square.check("2x(x - 1)(x + 1)").ok
    assert square.check("-2x(1 - x)(x + 1)").ok
    assert "further" in square.check("2x(x^2 - 1)").reason
    power = _expression_problem("factor", x**2 + 2 * x + 1, (x + 1) ** 2)
    assert power.check("(x + 1)^2").ok and power.check("(x+1)(x+1)").ok

    simplify = _expression_problem("simplify", (x**2 - 9) / (x - 3), x + 3)
    assert simplify.check("3 + x").ok
    assert "not fully simplified" in simplify.check("(x^2 - 9)/(x - 3)").reason
    like = _expression_problem("simplify", 3 * x + 2 * y - x + 4 * y, 2 * x + 6 * y)
    assert like.check("2x + 6y").ok
    assert "not fully simplified" in like.check("3x + 2y - x + 4y").reason


def test_values_answers_read_several_ways() -> None:
    p = AlgebraProblem("t", "system", "medium", "", ("x", "y"), Form.VALUES, (2, -3))
    for text in (
        "x = 2, y = -3",
        "(2, -3)",
        "y=-3; x=2",
        "2, -3",
        "x = 2 and y = -3",
        "x=4/2, y=-3",
    ):
        assert p.check(text).ok, text
    partial = p.check("x = 2, y = 3")
    assert not partial.ok and partial.reason == "x is right; y is not"
    for text, why in [
        ("x = 2", "give a value for y"),
        ("2", "give 2 values"),
        ("x = 2, 3", "name every value"),
        ("x = 2, w = 3", "unknown variable"),
        ("x = 2, x = 3", "two values for x"),
        ("x = y, y = 1", "unknown name 'y'"),
        ("", "no answer"),
    ]:
        verdict = p.check(text)
        assert not verdict.ok and not verdict.readable and why in verdict.reason, (text, verdict)


def test_number_answers_go_through_the_arith_door() -> None:
    p = AlgebraProblem("t", "evaluate", "hard", "", ("x",), Form.NUMBER, (sympy.Rational(27, 4),))
    assert p.check("27/4").ok and p.check("6.75").ok and p.check("The answer is 6 3/4.").ok
    assert not p.check("6.7").ok
    assert not p.check("__import__('os')").readable


# ------------------------------------------------------------------ safe parsing

HOSTILE = [
    ("__import__('os')", "unexpected '_'"),
    ("__import__('os').system('ls')", "unexpected '_'"),
    ("os.system('ls')", "unknown name 'os'"),
    ("exp(x)", "unknown name 'exp'"),
    ("lambda: 1", "unknown name 'lambda'"),
    ("x.__class__", "unexpected '.'"),
    ("Symbol('x')", "unknown name 'Symbol'"),
    ("x; import os", "unexpected ';'"),
    ("x^(1/2)", "whole number"),
    ("x^x", "whole number"),
    ("x^99", "too large"),
    ("x^2^3", "brackets"),
    ("(((2^12)^12)^12)^12", "too large"),
    ("((x^12)^12)", "too large"),
    ("1/0", "division by zero"),
    ("x/(x - x)", "division by zero"),
    ("0^-1", "division by zero"),
    ("(" * 40 + "x" + ")" * 40, "nested too deeply"),
    ("x" + "+x" * 200, "too long"),
    ("9" * 40, "too many digits"),
    ("(x + 1", "missing ')'"),
    ("x + 1)", "')' without '('"),
    ("x +", "ends too early"),
    ("* x", "expected a number or a variable"),
    ("", "empty expression"),
]


@pytest.mark.parametrize(("text", "why"), HOSTILE)
def test_hostile_or_malformed_input_is_refused_with_a_clear_reason(text: str, why: str) -> None:
    with pytest.raises(AlgebraError, match=None) as caught:
        parse_expression(text, ("x",))
    assert why in str(caught.value)
    verdict = _expression_problem("expand", x, x).check(text)
    assert not verdict.ok and not verdict.readable


def test_the_parser_builds_what_people_mean() -> None:
    v = ("x", "y")
    assert parse_expression("2x", v) == 2 * x
    assert parse_expression("xy", v) == x * y
    assert parse_expression("3(x + 1)", v) == 3 * x + 3
    assert parse_expression("(x + 1)(x - 1)", v) == (x + 1) * (x - 1)
    assert parse_expression("-x^2", v) == -(x**2)
    assert parse_expression("2x^2y", v) == 2 * x**2 * y
    assert parse_expression("x**2 ÷ 2", v) == x**2 / 2
    assert parse_expression("1.5x", v) == sympy.Rational(3, 2) * x
    assert parse_expression("x^-1", v) == 1 / x
    assert parse_expression("[x − 1]×2", v) == 2 * x - 2
    assert parse_expression("7/2") == sympy.Rational(7, 2)
    with pytest.raises(AlgebraError, match="no letters"):
        parse_expression("x")
    assert len("x" * MAX_EXPRESSION_LENGTH) == MAX_EXPRESSION_LENGTH


def test_show_expression_reads_back() -> None:
    names = ("x", "y")
    for expr in (
        2 * x**2 - 5 * x * y + 3,
        -x + 9,
        3 * (x - 2) * (x + 1) ** 2,
        -(x - 3) * (x + 2),
        sympy.Rational(1, 2) * x,
        x**2,
        sympy.Integer(0),
    ):
        text = show_expression(expr, names)
        assert equivalent(parse_expression(text, names), expr), (expr, text)
    assert show_expression(2 * x**2 - 5 * x + 3, ("x",)) == "2x^2 - 5x + 3"
    assert show_expression(3 * (x - 2) * (x + 1), ("x",)) == "3(x - 2)(x + 1)"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("(x+y+z+1)^12(x+y+z+2)^12", "degree over 12"),
        ("(x+2y+3z+4)^6 * (2x+3y+5z+7)^6", "over 2000 terms"),
        ("(x+y+z+1)^6/(x+y+z+2)^6", "over 2000 terms"),
        ("+".join(["(x+2y+3z+4)^3(2x+3y+5z+7)^3"] * 10)[:299], "over 2000 terms"),
    ],
)
def test_expressions_that_would_keep_sympy_busy_are_refused(text: str, why: str) -> None:
    # Each of these took sympy from 20 seconds to over a minute to expand before the bounds.
    with pytest.raises(AlgebraError, match=why):
        parse_expression(text, ("x", "y", "z"))


def test_the_largest_accepted_expressions_still_check_quickly() -> None:
    import time

    p = AlgebraProblem("t", "expand", "hard", "", ("x", "y", "z"), Form.EXPRESSION, (x + y,), x)
    start = time.perf_counter()
    verdict = p.check("(x+2y+3z+4)^5(2x+3y+5z+7)^4")  # 1,960 terms: just under the bound
    assert not verdict.ok and verdict.readable
    assert time.perf_counter() - start < 20  # about half a second; generous for slow CI


def test_any_text_either_parses_or_fails_with_algebra_error() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    alphabet = st.sampled_from(list("0123456789.xyz+-*/^()[] ²_'aeoip,;="))
    p = AlgebraProblem("t", "factor", "medium", "", ("x", "y"), Form.EXPRESSION, (x + 1,), x + 1)
    values = AlgebraProblem("t", "system", "medium", "", ("x", "y"), Form.VALUES, (1, 2))

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.text(alphabet, max_size=30), st.text(max_size=30)))
    def check(text: str) -> None:
        with contextlib.suppress(AlgebraError):
            parse_expression(text, ("x", "y"))
        p.check(text)  # never raises: a verdict either way
        values.check(text)

    check()
