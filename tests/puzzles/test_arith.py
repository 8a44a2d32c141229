"""Behaviour of puzzles.arith, the one door from text to numbers."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.arith import (
    MAX_BITS,
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_LITERAL_DIGITS,
    ArithError,
    BinOp,
    ClaimStatus,
    Neg,
    Num,
    claim_sides,
    evaluate,
    extract_claims,
    format_decimal,
    format_number,
    leading_expression,
    parse,
    parse_number,
    verify_claim,
)

# ---------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("7", Fraction(7)),
        ("007", Fraction(7)),
        ("2.5", Fraction(5, 2)),
        (".75", Fraction(3, 4)),
        ("3.", Fraction(3)),
        ("0.1", Fraction(1, 10)),
        ("3/4", Fraction(3, 4)),
        ("-2", Fraction(-2)),
        ("−2.5", Fraction(-5, 2)),
        (" 12 ", Fraction(12)),
    ],
)
def test_parse_number_reads_literals_exactly(text: str, value: Fraction) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "1e5", "1/0", "--2", "2,5"])
def test_parse_number_rejects_non_numbers(text: str) -> None:
    with pytest.raises(ArithError):
        parse_number(text)


def test_decimals_are_exact_not_binary_floats() -> None:
    assert evaluate("0.1 + 0.2") == Fraction(3, 10)
    assert evaluate("0.1 + 0.2") != 0.30000000000000004


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(24), "24"),
        (Fraction(-3), "-3"),
        (Fraction(8, 3), "8/3"),
        (Fraction(-1, 2), "-1/2"),
    ],
)
def test_format_number(value: Fraction, text: str) -> None:
    assert format_number(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(8, 3), "2.6667"),
        (Fraction(1, 2), "0.5"),
        (Fraction(-1, 3), "-0.3333"),
        (Fraction(24), "24"),
        (Fraction(1, 3 * 10**6), "0"),
    ],
)
def test_format_decimal(value: Fraction, text: str) -> None:
    assert format_decimal(value) == text


def test_format_decimal_places() -> None:
    assert format_decimal(Fraction(8, 3), places=2) == "2.67"


# ---------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2 + 3", 5),
        ("2 - 3", -1),
        ("2 * 3", 6),
        ("2 x 3", 6),
        ("2 X 3", 6),
        ("2 × 3", 6),
        ("2 · 3", 6),
        ("6 / 4", Fraction(3, 2)),
        ("6 ÷ 4", Fraction(3, 2)),
        ("6 − 4", 2),
        ("[1 + 2] * 3", 9),
        ("2x3", 6),
    ],
)
def test_operators_and_their_spellings(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2 + 3 * 4", 14),
        ("2 * 3 + 4", 10),
        ("(2 + 3) * 4", 20),
        ("8 - 4 - 2", 2),
        ("8 / 4 / 2", 1),
        ("8 / (4 / 2)", 4),
        ("2 * 3 / 4", Fraction(3, 2)),
        ("-2 * 3", -6),
        ("2 * -3", -6),
        ("-(2 + 3)", -5),
        ("2 - -3", 5),
        ("--3", 3),
        ("+3", 3),
        ("-2 - 3", -5),
        ("((((7))))", 7),
        ("8 / (3 - 8 / 3)", 24),
        ("5 * (5 - 1 / 5)", 24),
    ],
)
def test_precedence_associativity_and_unary_minus(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2(40+9)", 98),
        ("27(1/3)", 9),
        ("(1/4)24", 6),
        ("3(47)+12", 153),
        ("2 (3 + 4)", 14),
        ("(2)(3)", 6),
        ("(2) (3)", 6),
        ("-2(3)", -6),
        ("2 * 3(4)", 24),
        ("(6/2)(1+2)", 9),
        ("1 + 2(3)", 7),
    ],
)
def test_implicit_multiplication_as_people_write_it(text: str, value: int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("20%", Fraction(1, 5)),
        ("100% - 20%", Fraction(4, 5)),
        ("$80 x 30%", 24),
        ("12/20 x 100%", Fraction(3, 5)),
        ("(1/4)%", Fraction(1, 400)),
        ("50 %", Fraction(1, 2)),
        ("20% * 5", 1),
    ],
)
def test_a_percent_is_a_number_over_100(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value


@pytest.mark.parametrize("text", ["7 % 2", "7 %2", "7 % (2)", "% 5", "20 % .5"])
def test_a_remainder_is_still_refused(text: str) -> None:
    with pytest.raises(ArithError, match="not allowed"):
        parse(text)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty expression"),
        ("   ", "empty expression"),
        ("(1 + 2", "missing ')'"),
        ("1 + 2)", "unmatched ')'"),
        ("1 2", "missing operator"),
        ("(1) 2", "missing operator"),  # a number after a bracket, with a space between
        ("6/2(1+2)", "ambiguous"),  # 6/(2*3) or (6/2)*3: writers differ
        ("1/2 (3)", "ambiguous"),
        ("1 +", "ends too early"),
        ("* 2", "expected a number"),
        ("2 ^ 3", "not allowed"),
        ("7 % 2", "not allowed"),
        ("1 / 0", "division by zero"),
        ("1 / (2 - 2)", "division by zero"),
        ("2 ** 3", "expected a number"),
        ("abs(2)", "unexpected 'a'"),
        ("__import__('os')", "unexpected '_'"),
        ("1 = 1", "unexpected '='"),
        ("()", "unexpected ')'"),
    ],
)
def test_bad_expressions_say_why(text: str, fragment: str) -> None:
    with pytest.raises(ArithError) as info:
        parse(text)
    assert fragment in str(info.value)


def test_errors_point_at_the_character() -> None:
    with pytest.raises(ArithError) as info:
        parse("1 + $")
    assert info.value.position == 4
    assert str(info.value).endswith("(at character 5)")


def test_parse_rejects_non_text() -> None:
    with pytest.raises(ArithError):
        parse(24)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- trees


def test_leaves_are_the_literals_in_order() -> None:
    tree = parse("(4 + 8) * (8 - 7)")
    assert [leaf.value for leaf in tree.leaves()] == [4, 8, 8, 7]
    assert [leaf.pos for leaf in tree.leaves()] == [1, 5, 11, 15]


def test_tree_shape() -> None:
    tree = parse("1 - 2 * 3")
    assert isinstance(tree, BinOp)
    assert tree.op == "-"
    assert isinstance(tree.right, BinOp) and tree.right.op == "*"
    assert isinstance(parse("-3"), Neg)
    assert isinstance(parse("3"), Num)


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("(1 + 2) + 3", "1 + 2 + 3"),
        ("1 + (2 + 3)", "1 + 2 + 3"),
        ("2 * (3 * 4)", "2 * 3 * 4"),
        ("1 - (2 - 3)", "1 - (2 - 3)"),
        ("1 - (2 + 3)", "1 - (2 + 3)"),
        ("(1 * 2) * 3", "1 * 2 * 3"),
        ("8 / (4 / 2)", "8 / (4 / 2)"),
        ("8 / (4 * 2)", "8 / (4 * 2)"),
        ("(2 + 3) * 4", "(2 + 3) * 4"),
        ("2 + (3 * 4)", "2 + 3 * 4"),
        ("2 x 3 ÷ 4", "2 * 3 / 4"),
        ("-(1 + 2)", "-(1 + 2)"),
        ("-(-3)", "--3"),
        ("-(2 * 3)", "-(2 * 3)"),
        ("2.50 + 1", "2.50 + 1"),
        ("8/(3-8/3)", "8 / (3 - 8 / 3)"),
    ],
)
def test_render_uses_minimal_parentheses(text: str, rendered: str) -> None:
    tree = parse(text)
    assert tree.render() == rendered
    assert parse(rendered).value == tree.value


def test_binop_refuses_values_that_are_too_large() -> None:
    big = Num(Fraction(2) ** (MAX_BITS - 10))
    with pytest.raises(ArithError, match="too large"):
        BinOp("*", big, big)


# ---------------------------------------------------------------------------- claims


def test_exact_claim() -> None:
    claim = verify_claim("4 + 8 = 12")
    assert claim.status is ClaimStatus.EXACT
    assert claim.ok
    assert (claim.lhs, claim.rhs) == ("4 + 8", "12")
    assert claim.exact == claim.claimed == 12
    assert claim.describe() == "✓ 4 + 8 = 12"


def test_decimal_equal_to_the_fraction_is_exact() -> None:
    assert verify_claim("10 / 4 = 2.5").status is ClaimStatus.EXACT
    assert verify_claim("2 * 3 = 6.0").status is ClaimStatus.EXACT


@pytest.mark.parametrize("rhs", ["2.67", "2.66", "2.7", "2.667", "2.6667"])
def test_rounded_decimal_is_approx_with_the_exact_value(rhs: str) -> None:
    claim = verify_claim(f"8/3 = {rhs}")
    assert claim.status is ClaimStatus.APPROX
    assert claim.ok
    assert claim.exact == Fraction(8, 3)
    assert claim.claimed == parse_number(rhs)
    assert claim.describe() == f"≈ 8/3 = {rhs} (exactly 8/3)"


@pytest.mark.parametrize("text", ["8/3 = 2.5", "8/3 = 3", "8/3 = 2.68", "8/3 = 2.665"])
def test_decimal_off_by_more_than_its_last_place_is_wrong(text: str) -> None:
    assert verify_claim(text).status is ClaimStatus.WRONG


def test_wrong_claim_carries_the_correct_value() -> None:
    claim = verify_claim("4 + 8 = 13")
    assert claim.status is ClaimStatus.WRONG
    assert not claim.ok
    assert claim.exact == 12
    assert claim.claimed == 13
    assert claim.describe() == "✗ 4 + 8 = 13 (actually 12)"


def test_division_by_zero_is_an_invalid_claim() -> None:
    claim = verify_claim("1 / 0 = 3")
    assert claim.status is ClaimStatus.INVALID
    assert claim.exact is None
    assert "division by zero" in claim.reason
    assert claim.describe() == "? 1 / 0 = 3 (division by zero)"  # unreadable: never ✗


def test_unparsable_right_side_is_invalid() -> None:
    claim = verify_claim("4 + 8 = twelve")
    assert claim.status is ClaimStatus.INVALID
    assert claim.exact == 12


def test_a_claim_needs_an_equals_sign() -> None:
    with pytest.raises(ArithError, match="needs '='"):
        verify_claim("4 + 8")


def test_claim_text_is_bounded() -> None:
    with pytest.raises(ArithError, match="too long"):
        verify_claim("1 + " * MAX_LENGTH + "1 = 2")


# ---------------------------------------------------------------------------- extraction


def _claims(text: str) -> list[tuple[str, str, ClaimStatus]]:
    return [(c.lhs, c.rhs, c.status) for c in extract_claims(text)]


def test_extraction_ignores_the_remark_after_a_step() -> None:
    claims = extract_claims("Step 2: 8 / 3 = 2.67 (left: 2.67 4)")
    assert len(claims) == 1
    claim = claims[0]
    assert (claim.lhs, claim.rhs, claim.status) == ("8 / 3", "2.67", ClaimStatus.APPROX)
    assert claim.exact == Fraction(8, 3)
    assert claim.text == "8 / 3 = 2.67"


def test_extraction_span_points_into_the_text() -> None:
    text = "Step 2: 8 / 3 = 2.67 (left: 2.67 4)"
    (claim,) = extract_claims(text)
    start, end = claim.span
    assert text[start:end] == "8 / 3 = 2.67"


def test_extraction_from_a_numbered_list() -> None:
    text = "1. 4 + 8 = 12 (left: 8 12)\n2. 12 * 2 = 24 (left: 24)\n3. 24 / 1 = 25"
    assert _claims(text) == [
        ("4 + 8", "12", ClaimStatus.EXACT),
        ("12 * 2", "24", ClaimStatus.EXACT),
        ("24 / 1", "25", ClaimStatus.WRONG),
    ]


def test_extraction_from_markdown() -> None:
    text = "**Step 1:** `4 * 6 = 24`\n- 10 - 4 = 6 (left: 6 8)\n* 13 - 1 = 12"
    assert _claims(text) == [
        ("4 * 6", "24", ClaimStatus.EXACT),
        ("10 - 4", "6", ClaimStatus.EXACT),
        ("13 - 1", "12", ClaimStatus.EXACT),
    ]


def test_a_minus_sign_inside_a_line_stays_a_minus_sign() -> None:
    assert _claims("so -3 + 5 = 2") == [("-3 + 5", "2", ClaimStatus.EXACT)]
    assert _claims("−3 + 5 = 2") == [("−3 + 5", "2", ClaimStatus.EXACT)]


def test_several_claims_on_one_line() -> None:
    assert _claims("so 4+8=12 and 12*2=24, then 24/0=1.") == [
        ("4+8", "12", ClaimStatus.EXACT),
        ("12*2", "24", ClaimStatus.EXACT),
        ("24/0", "1", ClaimStatus.INVALID),
    ]


def test_parenthesised_left_side() -> None:
    assert _claims("(4 + 8) * (8 - 7) = 12") == [("(4 + 8) * (8 - 7)", "12", ClaimStatus.EXACT)]


def test_final_step_with_remark() -> None:
    assert _claims("8 * 3 = 24 (left: 24)") == [("8 * 3", "24", ClaimStatus.EXACT)]


@pytest.mark.parametrize(
    "text",
    ["left: 24", "x = 3", "a == b", "3 >= 2", "1 != 2", "the answer = yes", "", "=", "= = ="],
)
def test_things_that_are_not_claims(text: str) -> None:
    assert extract_claims(text) == []


def test_extraction_limit() -> None:
    text = " ".join(f"{i} + 1 = {i + 1}." for i in range(100))
    assert len(extract_claims(text)) == 64
    assert len(extract_claims(text, limit=3)) == 3


def test_extraction_of_non_text_is_empty() -> None:
    assert extract_claims(None) == []  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- limits


def _fails_fast(text: str, fragment: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ArithError) as info:
        parse(text)
    assert fragment in str(info.value)
    assert time.perf_counter() - start < 0.5


def test_too_long() -> None:
    _fails_fast("1+" * (MAX_LENGTH // 2) + "1", "too long")
    _fails_fast(" " * (MAX_LENGTH + 1), "too long")


def test_longest_allowed_expression_parses() -> None:
    text = "1+" * ((MAX_LENGTH - 1) // 2) + "1"
    assert len(text) <= MAX_LENGTH
    assert evaluate(text) == (MAX_LENGTH - 1) // 2 + 1


def test_too_deep() -> None:
    _fails_fast("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested too deeply")
    _fails_fast("-" * (MAX_DEPTH + 1) + "1", "nested too deeply")
    _fails_fast("(" * 400 + "1", "nested too deeply")


def test_deepest_allowed_nesting_parses() -> None:
    assert evaluate("(" * MAX_DEPTH + "7" + ")" * MAX_DEPTH) == 7
    assert evaluate("-" * MAX_DEPTH + "7") == 7


def test_too_many_digits() -> None:
    _fails_fast("1" * (MAX_LITERAL_DIGITS + 1), "too many digits")
    _fails_fast("0." + "3" * MAX_LITERAL_DIGITS, "too many digits")
    assert evaluate("9" * MAX_LITERAL_DIGITS) == 10**MAX_LITERAL_DIGITS - 1


def test_huge_powers_by_repeated_multiplication_fail_fast() -> None:
    factor = "9" * MAX_LITERAL_DIGITS
    _fails_fast("*".join([factor] * 100), "too long")
    # The most a legal text can hold still evaluates exactly, and quickly.
    count = MAX_LENGTH // (MAX_LITERAL_DIGITS + 1)
    start = time.perf_counter()
    assert evaluate("*".join([factor] * count)) == (10**MAX_LITERAL_DIGITS - 1) ** count
    assert time.perf_counter() - start < 0.5


# ---------------------------------------------------------------------------- properties

_PROSE = st.text(alphabet="0123456789+-*/x×÷−.()[]=: \n\tabcLleft#`*", max_size=400)


@settings(deadline=200, max_examples=300)
@given(st.text(max_size=2000))
def test_parse_raises_only_arith_errors(text: str) -> None:
    try:
        tree = parse(text)
    except ArithError:
        return
    assert isinstance(tree.value, Fraction)


@settings(deadline=200, max_examples=300)
@given(st.one_of(st.text(max_size=2000), _PROSE))
def test_extract_claims_never_raises(text: str) -> None:
    for claim in extract_claims(text):
        start, end = claim.span
        assert text[start:end].strip() == claim.text
        if claim.status is not ClaimStatus.INVALID:
            assert claim.exact == evaluate(claim.lhs)
            assert claim.claimed == evaluate(claim.rhs)


@settings(deadline=200, max_examples=300)
@given(_PROSE)
def test_verify_claim_raises_only_arith_errors(text: str) -> None:
    try:
        claim = verify_claim(text)
    except ArithError:
        return
    assert claim.ok == (claim.status in (ClaimStatus.EXACT, ClaimStatus.APPROX))


_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "x": "*", "×": "*", "÷": "/"}


def _combine(op: str, a: Fraction | None, b: Fraction | None) -> Fraction | None:
    if a is None or b is None:
        return None
    op = _OPS[op]
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return None if b == 0 else a / b


# A generated expression: its text (fully parenthesised) and its value computed here, with
# None standing for "divides by zero somewhere".
_Generated = tuple[str, Fraction | None]

_leaf = st.one_of(
    st.integers(min_value=0, max_value=10_000).map(lambda n: (str(n), Fraction(n))),
    st.tuples(st.integers(0, 999), st.integers(0, 999)).map(
        lambda p: (f"{p[0]}.{p[1]:03d}", Fraction(p[0]) + Fraction(p[1], 1000))
    ),
)


def _extend(children: st.SearchStrategy[_Generated]) -> st.SearchStrategy[_Generated]:
    binary = st.tuples(children, st.sampled_from(sorted(_OPS)), children).map(
        lambda t: (f"({t[0][0]} {t[1]} {t[2][0]})", _combine(t[1], t[0][1], t[2][1]))
    )
    negated = children.map(lambda c: (f"-({c[0]})", None if c[1] is None else -c[1]))
    return st.one_of(binary, negated)


_expressions = st.recursive(_leaf, _extend, max_leaves=24)


@settings(max_examples=300)
@given(_expressions)
def test_evaluation_matches_fraction_arithmetic(generated: _Generated) -> None:
    text, value = generated
    if value is None:
        with pytest.raises(ArithError, match="division by zero"):
            parse(text)
    else:
        assert evaluate(text) == value


@settings(max_examples=300)
@given(_expressions)
def test_render_round_trips(generated: _Generated) -> None:
    text, value = generated
    if value is None:
        return
    rendered = parse(text).render()
    again = parse(rendered)
    assert again.value == value
    assert again.render() == rendered
    assert [leaf.value for leaf in again.leaves()] == [leaf.value for leaf in parse(text).leaves()]


def test_leading_expression_stops_where_prose_starts() -> None:
    from puzzles.arith import leading_expression

    assert leading_expression("(4 + 8) * 2, so that is 24") == "(4 + 8) * 2"
    assert leading_expression("  8 / (3 - 8/3) then") == "8 / (3 - 8/3)"
    assert leading_expression("no numbers") is None
    assert leading_expression("12. Output") == "12"


# ---------------------------------------------------------------------------- whole sides


def _found(text: str) -> list[tuple[str, str]]:
    return [(c.text, str(c.status)) for c in extract_claims(text)]


def test_a_claim_is_the_whole_expression_left_of_equals() -> None:
    # Seen in 23 of 120 IO/CoT runs: "6 + 6 = 24 (is 12)" beside a solved answer.
    assert _found("Answer: 6 + 6 + 6 + 6 = 24") == [("6 + 6 + 6 + 6 = 24", "exact")]
    assert _found("so 3 * 4 + 10 / 5 = 14.") == [("3 * 4 + 10 / 5 = 14", "exact")]
    assert _found("1. (4 + 8) * 2 = 24") == [("(4 + 8) * 2 = 24", "exact")]
    assert _found("**4 + 8 = 12** and *12 * 2 = 24*") == [
        ("4 + 8 = 12", "exact"),
        ("12 * 2 = 24", "exact"),
    ]


def test_a_side_that_cannot_be_read_whole_is_invalid_never_shortened() -> None:
    for text, reason in [
        ("(7 - 8 / 8) * 4 - sqrt(9) = 21", "sqrt(…) is a function"),
        ("(7 - 8 / 8) * 4 ^ 2 = 24", "'^' is not allowed"),
        ("(7 - 8 / 8) * 4 % 5 = 24", "'%' is not allowed"),
        ("(7 - 8 / 8) * 4 / 0 = 24", "division by zero"),
        ("6 * 4 = 24 - sqrt(0)", "sqrt(…) is a function"),
    ]:
        (claim,) = extract_claims(text)
        assert claim.status is ClaimStatus.INVALID and reason in claim.reason, text
        assert claim.text == text


def test_text_that_is_not_plain_arithmetic_makes_no_claim() -> None:
    assert _found("2x + 3 = 7") == []  # algebra: the left side is not all there
    assert _found("y - 3 + 1 = 5") == []
    assert _found("left: 24") == [] and _found("x = 3") == []
    assert _found("4 <= 5 and 3 != 4") == []


def test_step_lines_read_fractions_as_operands_and_say_so() -> None:
    (claim,) = extract_claims("8 / 8/3 = 3 (left: 3 3)")
    assert claim.status is ClaimStatus.EXACT and claim.lhs == "8 / (8/3)"
    (claim,) = extract_claims("11 / 11/2 = 2")
    assert claim.status is ClaimStatus.EXACT and claim.lhs == "11 / (11/2)"
    # Without spacing to go by, the usual left-to-right reading stands.
    (claim,) = extract_claims("8/8/3 = 1/3")
    assert claim.status is ClaimStatus.EXACT and claim.lhs == "8/8/3"


def test_read_step_lists_every_reading_likeliest_first() -> None:
    from puzzles.arith import read_step

    assert [r.text for r in read_step("8 / 8/3")] == ["8 / (8/3)", "(8/8) / 3"]
    assert [r.text for r in read_step("8/8/3")] == ["(8/8) / 3", "8 / (8/3)"]
    assert [r.text for r in read_step("4 - -2")] == ["4 - (-2)"]
    assert read_step("6 + 6 + 6") == [] and read_step("(4 + 4) * 3") == []


def test_format_operand_brackets_what_could_be_misread() -> None:
    from puzzles.arith import format_operand

    assert format_operand(Fraction(8)) == "8"
    assert format_operand(Fraction(8, 3)) == "(8/3)"
    assert format_operand(Fraction(-2)) == "(-2)"
    assert format_operand(Fraction(0)) == "0"
    assert format_operand(Fraction(-8, 3)) == "(-8/3)"
    assert format_operand(12) == "12"


def test_amounts_with_thousands_separators_and_currency() -> None:
    assert evaluate("$1,200 + $300") == 1500
    assert _found("$1,200 + $300 = $1,500") == [("$1,200 + $300 = $1,500", "exact")]
    with pytest.raises(ArithError):
        parse("1,2")


def test_leading_expression_is_never_shortened() -> None:
    from puzzles.arith import leading_expression

    assert leading_expression("(7 - 8 / 8) * 4 - sqrt(9)") == "(7 - 8 / 8) * 4 - sqrt(9)"
    assert leading_expression("(7 - 8 / 8) * 4 ^ 2") == "(7 - 8 / 8) * 4 ^ 2"
    assert leading_expression("6 * 4 (all four used)") == "6 * 4"
    assert leading_expression("1 x 2 x 3 x 4") == "1 x 2 x 3 x 4"


# ------------------------------------------------------------------ the scanning limit


@pytest.mark.parametrize("room", range(7, 13))
def test_a_claim_that_runs_into_the_scanning_limit_is_not_read(room: int) -> None:
    # 20,000 characters are scanned. "8 / 8 = 12" cut to "8 / 8 = 1" would be a true claim
    # the text never makes; cut anywhere in it (or right after it, where "+ 3" may follow),
    # it is no claim at all.
    limit = MAX_LENGTH * 20
    text = "x" * (limit - room) + " 8 / 8 = 12 + 3 and more"
    assert extract_claims(text) == []
    assert claim_sides(text) == []


def test_a_claim_that_ends_before_the_scanning_limit_is_read() -> None:
    limit = MAX_LENGTH * 20
    text = "x" * (limit - 20) + " 8 / 8 = 12 and more text"
    assert [(c.text, c.ok) for c in extract_claims(text)] == [("8 / 8 = 12", False)]


def test_a_text_said_to_be_cut_has_no_claim_at_its_end() -> None:
    assert extract_claims("so 8 / 8 = 1", cut=True) == []
    assert extract_claims("so 8 / 8 = 1 ", cut=True) == []  # "+ 1" may follow
    assert [c.text for c in extract_claims("so 8 / 8 = 1 (left: 1 4", cut=True)] == ["8 / 8 = 1"]
    assert [c.text for c in extract_claims("so 8 / 8 = 1")] == ["8 / 8 = 1"]


def test_a_leading_expression_that_runs_into_the_scanning_limit_is_none() -> None:
    limit = MAX_LENGTH * 20
    assert leading_expression("1 + " * (limit // 4) + "23") is None
