"""Issue 27, section 1: every notation real writers use, read as meant by puzzles/arith.

The texts are written here in the manner of chat models and of people working a problem by
hand; none is copied from a benchmark. The rule throughout: ✗ only for a claim read whole and
wrong; what stays ambiguous is "?" with its reason.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from puzzles.arith import (
    ClaimStatus,
    claim_sides,
    evaluate,
    expression_line,
    extract_claims,
    leading_expression,
    parse,
    parse_number,
    rounding_unit,
    verify_claim,
)
from puzzles.latex import plain


def verdicts(text: str) -> list[tuple[str, str, bool]]:
    return [(c.text, str(c.status), c.approximate) for c in extract_claims(text)]


# ------------------------------------------------------------------ LaTeX-light


def test_a_chat_models_latex_is_read_as_plain_arithmetic() -> None:
    reply = (
        "We can pair them up: $10 - 4 = 6$ and then \\( 6 \\times 4 = 24 \\).\n"
        "Alternatively, \\[ \\frac{48}{2} = 24 \\] or $48 \\div 2 = 24$.\n"
        "Check: \\left( 3 + 5 \\right) \\cdot 3 = 24."
    )
    assert verdicts(reply) == [
        ("10 - 4 = 6", "exact", False),
        ("6 \\times 4 = 24", "exact", False),
        ("\\frac{48}{2} = 24", "exact", False),
        ("48 \\div 2 = 24", "exact", False),
        ("\\left( 3 + 5 \\right) \\cdot 3 = 24", "exact", False),
    ]
    wrong = extract_claims("so $\\frac{8}{3} \\times 9 = 27$")
    assert [(c.status, c.exact, c.lhs) for c in wrong] == [
        (ClaimStatus.WRONG, Fraction(24), "(8/3) × 9")
    ]


def test_a_fraction_of_expressions_keeps_its_parts_whole() -> None:
    assert evaluate("\\frac{10 + 2}{4 - 1}") == 4
    assert evaluate("\\dfrac{\\frac{1}{2}}{3}") == Fraction(1, 6)
    assert evaluate("\\tfrac{3}{4} \\times 8") == 6


def test_latex_that_is_no_plain_arithmetic_is_unreadable_never_wrong() -> None:
    (mixed,) = extract_claims("so $2\\frac{1}{2} = 2.5$")
    assert mixed.status is ClaimStatus.INVALID and "ambiguous" in mixed.reason
    assert mixed.describe().startswith("? ")
    (root,) = extract_claims("$\\sqrt{16} + 8 = 12$")
    assert root.status is ClaimStatus.INVALID and "\\sqrt" in root.reason
    (power,) = extract_claims("$2^{3} = 8$")
    assert power.status is ClaimStatus.INVALID


def test_dollar_signs_of_amounts_are_never_taken_for_math() -> None:
    """A currency sign stands before an amount; a closing math ``$`` never does."""
    note = "The tip is $80 x 15% = $12, so he pays $80 + $12 = $92 in all."
    assert verdicts(note) == [
        ("$80 x 15% = $12", "exact", False),
        ("$80 + $12 = $92", "exact", False),
    ]
    assert plain(note).text == note
    assert plain("$$4 + 4 = 8$$").text.strip() == "4 + 4 = 8"


def test_plain_text_reports_where_each_character_came_from() -> None:
    text = "so $\\frac{8}{3} \\times 9 = 24$ ok"
    written = plain(text)
    assert written.text == "so  (8/3) × 9 = 24  ok"
    start = written.text.index("(8/3)")
    assert written.source(start, start + 5) == (text.index("\\frac"), text.index(" \\times"))
    (sides,) = claim_sides(text)
    assert text[sides.span[0] : sides.span[1]] == "\\frac{8}{3} \\times 9 = 24"


def test_bold_around_a_claim_is_emphasis_not_a_power() -> None:
    assert verdicts("**4 * 6 = 24** (left: 24)") == [("4 * 6 = 24", "exact", False)]
    assert verdicts("1. **3 * 8 = 24**") == [("3 * 8 = 24", "exact", False)]
    assert verdicts("2**3 = 8")[0][1] == "invalid"  # a power, which ponder does not take


# ------------------------------------------------------------------ approximate results


@pytest.mark.parametrize(
    ("text", "rhs"),
    [
        ("11 / 3 ≈ 3.67 (left: 3.67 8)", "3.67"),
        ("11 / 3 ~ 3.67", "3.67"),
        ("19 / 7 = approx. 2.71 (left: approx. 2.71)", "2.71"),
        ("19 / 7 = ~2.71", "2.71"),
        ("19 / 7 =~ 2.71", "2.71"),
        ("so 19 / 7 = about 2.71, close enough", "2.71"),
        ("19 / 7 = roughly 2.7", "2.7"),
        ("19 / 7 = 2.71 (approx.)", "2.71"),
        ("100 / 7 = approximately 14", "14"),
        ("350,000 * 0.0537 ≈ 18,800 dollars", "18,800"),
    ],
)
def test_an_approximate_result_is_a_fair_rounding(text: str, rhs: str) -> None:
    (claim,) = extract_claims(text)
    assert claim.approximate and claim.rhs == rhs
    assert claim.status is ClaimStatus.APPROX and claim.ok
    assert claim.describe().startswith("≈ ") and " ≈ " in claim.describe()


def test_an_approximate_result_far_off_is_wrong_and_an_exact_one_exact() -> None:
    (far,) = extract_claims("11 / 3 ≈ 3.5")
    assert far.status is ClaimStatus.WRONG and far.describe() == "✗ 11 / 3 ≈ 3.5 (actually 11/3)"
    (thousands,) = extract_claims("350,000 * 0.0537 ≈ 17,000")
    assert thousands.status is ClaimStatus.WRONG
    (same,) = extract_claims("8 / 4 ≈ 2")
    assert same.status is ClaimStatus.EXACT and same.approximate
    # Said exactly, a whole number is no rounding: 100/7 is not 14.
    assert extract_claims("100 / 7 = 14")[0].status is ClaimStatus.WRONG


def test_an_approximate_claim_on_rounded_operands_is_judged_on_them_as_roundings() -> None:
    """``1.8333`` stands for 11/6: 60/11 is 5.4545..., so ``10 / 1.8333 ≈ 5.4545`` is fair,
    though 10 / 1.8333 itself is 5.45464...; a decimal of one place is taken as written."""
    assert verdicts("10 / 1.8333 ≈ 5.4545") == [("10 / 1.8333 ≈ 5.4545", "approx", True)]
    assert verdicts("2.333 * 7.667 ~ 17.889") == [("2.333 * 7.667 ~ 17.889", "approx", True)]
    assert verdicts("12 * 2.67 ≈ 24") == [("12 * 2.67 ≈ 24", "wrong", True)]
    assert verdicts("7 * 1.5 ≈ 10.6") == [("7 * 1.5 ≈ 10.6", "wrong", True)]
    # Said exactly, the rounded operands are taken as written.
    assert verdicts("10 / 1.8333 = 5.4545") == [("10 / 1.8333 = 5.4545", "wrong", False)]
    # A divisor that may be zero gives no bounds: the plain rule stands.
    assert verdicts("1 / (0.01 - 0.01) ≈ 5")[0][1] == "invalid"


def test_an_operand_said_to_be_approximate() -> None:
    assert verdicts("9 - ~4.33 = ~4.67 (left: ~4.33 ~4.67)") == [
        ("9 - ~4.33 = ~4.67", "exact", True)
    ]
    assert verdicts("~4.33 * 9 = ~38.97") == [("~4.33 * 9 = ~38.97", "exact", True)]
    assert verdicts("13 / 6 = (approximately) 2.17 (left: 2.17 9)") == [
        ("13 / 6 = (approximately) 2.17", "approx", True)
    ]


def test_a_rounded_amount_or_percent_is_a_fair_rounding_too() -> None:
    """``$100 / 3 = $33.33`` and ``1 / 3 = 33.3%`` were marked ✗."""
    assert verdicts("Each pays $100 / 3 = $33.33.") == [("$100 / 3 = $33.33", "approx", False)]
    assert verdicts("1 / 3 = 33.3%") == [("1 / 3 = 33.3%", "approx", False)]
    assert verdicts("1 / 3 = 33%") == [("1 / 3 = 33%", "approx", False)]
    assert verdicts("1 / 3 = 35%") == [("1 / 3 = 35%", "wrong", False)]
    assert rounding_unit("$1,200.50") == Fraction(1, 100)
    assert rounding_unit("33.3%") == Fraction(1, 1000)
    assert rounding_unit("24") is None and rounding_unit("24", approximate=True) == 1
    assert rounding_unit("18,800", approximate=True) == 100
    assert rounding_unit("8/3", approximate=True) is None


def test_verify_claim_reads_the_approximate_marks_too() -> None:
    assert verify_claim("11/3 ≈ 3.67").status is ClaimStatus.APPROX
    assert verify_claim("100/7 = about 14").status is ClaimStatus.APPROX
    assert verify_claim("100/7 = 14", approximate=True).approximate


def test_a_tilde_or_approx_with_nothing_on_the_left_is_no_claim() -> None:
    assert extract_claims("~ 3.67 people came") == []
    assert extract_claims("8/3 (≈ 2.6667)") == []  # ponder's own note beside a value


# ------------------------------------------------------------------ percents, amounts, mixed


def test_of_after_a_percent_is_a_product() -> None:
    assert verdicts("She saves 25% of 80 = 20 dollars.") == [("25% of 80 = 20", "exact", False)]
    assert verdicts("15% of $40 = $6") == [("15% of $40 = $6", "exact", False)]
    assert verdicts("12/20 x 100% = 60%") == [("12/20 x 100% = 60%", "exact", False)]
    assert verdicts("30% x 4 = 1.2") == [("30% x 4 = 1.2", "exact", False)]
    with pytest.raises(Exception, match="unexpected 'o'"):
        parse("25 of 80")  # "of" only after a percent


def test_amounts_with_separators_and_currency_anywhere_in_a_side() -> None:
    assert verdicts("Interest: $350,000 * (5/100) = $17500 a year") == [
        ("$350,000 * (5/100) = $17500", "exact", False)
    ]
    assert verdicts("2 * $1,200.50 = $2,401") == [("2 * $1,200.50 = $2,401", "exact", False)]
    assert evaluate("1,200.50") == Fraction(240100, 200)


def test_a_mixed_number_is_one_number() -> None:
    assert parse_number("2 2/3") == Fraction(8, 3) and parse_number("-1 1/4") == Fraction(-5, 4)
    assert verdicts("8 / 3 = 2 2/3") == [("8 / 3 = 2 2/3", "exact", False)]
    assert verdicts("She ran 2 1/2 / 5 = 0.5 miles an hour") == [
        ("2 1/2 / 5 = 0.5", "exact", False)
    ]
    assert verdicts("7 * 1 1/4 = 9") == [("7 * 1 1/4 = 9", "wrong", False)]
    # No proper fraction, a spaced slash, a step number: no mixed number.
    assert extract_claims("12 150/2 = 75")[0].lhs == "150/2"
    assert extract_claims("2 1 / 4 = 0.25")[0].lhs == "1 / 4"
    assert extract_claims("Step 2 3/4 = 0.75")[0].lhs == "3/4"


def test_a_product_without_its_sign_and_without_any_other_operator_is_a_claim() -> None:
    assert verdicts("so 17(3) = 51 apples") == [("17(3) = 51", "exact", False)]
    assert verdicts("(1/4)24 = 6") == [("(1/4)24 = 6", "exact", False)]


# ------------------------------------------------------------------ answers without a label


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("(6 / (9 - 7)) * 8 = 24", "(6 / (9 - 7)) * 8 = 24"),
        ("(6 / (9 - 7)) * 8 = 24.", "(6 / (9 - 7)) * 8 = 24"),
        ("$(10 - 4) \\times 4 = 24$", "(10 - 4) × 4 = 24"),
        ("$342", "$342"),
        ("30 * 11 + 12 = 342 ≈ 340", "30 * 11 + 12 = 342 ≈ 340"),
        ("3 * 8 = 24 (left: 24)", None),
        ("So the answer is 24.", None),
        ("24 apples", None),
        ("4 8 = 12", None),
        ("", None),
    ],
)
def test_a_line_that_is_all_arithmetic(line: str, read: str | None) -> None:
    assert expression_line(line) == read


def test_the_leading_expression_is_made_plain() -> None:
    assert leading_expression("\\( (6 \\div (9 - 7)) \\times 8 \\) is it") == "(6 ÷ (9 - 7)) × 8"
