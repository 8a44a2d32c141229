"""Game of 24: rules, the exact solver, the catalogue, hints and puzzle-file loaders."""

from __future__ import annotations

import codecs
import importlib
import itertools
import math
import os
import random
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from puzzles.arith import BinOp, Expr, Num, parse
from puzzles.game24.catalogue import (
    LEVELS,
    UNSOLVABLE,
    catalogue,
    entry,
    hardest,
    hints,
    pick,
    rate,
)
from puzzles.game24.loaders import PuzzleFileError, load_hands, parse_range
from puzzles.game24.rules import Hand, HandError, StepError, apply, check_answer
from puzzles.game24.solve import count_solutions, is_solvable, solutions, solve

F = Fraction

# ---------------------------------------------------------------------------- rules


def test_hand_parse() -> None:
    hand = Hand.parse("8 4 7 8")
    assert hand.numbers == (8, 4, 7, 8)
    assert hand.target == 24
    assert hand.key == "4 7 8 8"
    assert str(hand) == "8 4 7 8"
    assert Hand.parse("4, 7, 8, 8") == Hand((4, 7, 8, 8))
    assert Hand.parse("1 2 3 4", target=10).target == 10


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "needs numbers"),
        ("   ", "needs numbers"),
        ("1 2 x 4", "'x'"),
        ("1 2.5 3 4", "whole numbers"),
        ("0 1 2 3", "positive"),
        ("5", "2 to 6 numbers"),
        ("1 2 3 4 5 6 7", "2 to 6 numbers"),
        ("9 " * 150, "too long"),
        ("1 2 3 9999999", "too large"),
    ],
)
def test_hand_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(HandError, match=fragment):
        Hand.parse(text)


def test_apply_replaces_two_numbers_with_the_result() -> None:
    state = apply(Hand.parse("4 7 8 8").start(), F(8), "-", F(4))
    assert sorted(state.numbers) == [4, 7, 8]
    assert str(state.steps[-1]) == "8 - 4 = 4"
    assert not state.is_goal()


def test_apply_accepts_operator_spellings() -> None:
    state = apply(Hand.parse("3 8").start(), F(3), "×", F(8))
    assert state.is_goal()
    assert apply(Hand.parse("6 3").start(), F(6), "÷", F(3)).numbers == (F(2),)


@pytest.mark.parametrize(
    ("a", "op", "b", "fragment"),
    [(F(5), "+", F(4), "not among"), (F(8), "/", F(0), "not among"), (F(4), "^", F(7), "unknown")],
)
def test_apply_refuses_illegal_steps(a: Fraction, op: str, b: Fraction, fragment: str) -> None:
    with pytest.raises(StepError, match=fragment):
        apply(Hand.parse("4 7 8 8").start(), a, op, b)


def test_apply_refuses_division_by_zero() -> None:
    state = apply(Hand.parse("8 8 3").start(), F(8), "-", F(8))
    with pytest.raises(StepError, match="division by zero"):
        apply(state, F(3), "/", F(0))


def test_steps_to_a_solution_build_an_accepted_expression() -> None:
    hand = Hand.parse("4 7 8 8")
    state = hand.start()
    for a, op, b in [(8, "/", 8), (7, "-", 1), (6, "*", 4)]:
        state = apply(state, F(a), op, F(b))
    assert state.is_goal()
    expression = state.expression()
    assert expression is not None
    assert check_answer(hand, expression).ok


@pytest.mark.parametrize(
    "text",
    ["(7 - 8 / 8) * 4", "Answer: (7 - 8 / 8) * 4 = 24", "4 × (7 − 8 ÷ 8)", "**8*(7+4-8)**"],
)
def test_check_answer_accepts(text: str) -> None:
    verdict = check_answer(Hand.parse("4 7 8 8"), text)
    assert verdict.ok
    assert verdict.value == 24


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "no expression"),
        ("(7 - 8 / 8) * 4 +", "not a valid expression"),
        ("4 * 6", "does not use 7 8 8"),
        ("4 * 6 + 7 - 8 + 8 - 7", "uses 6, which is not in the hand; uses 7 twice"),
        ("4 * 4 * 7 - 8", "does not use 8; uses 4 twice"),
        ("4 * 4 * 7 - 8 - 8", "uses 4 twice"),
        ("8 + 8 + 8 - 7 + 4 - 4 + 7", "uses 8 three times"),
        ("4 + 7 + 8 + 8", "equals 27, not 24"),
        ("4 * 7 - 8 / 8", "equals 27, not 24"),
        ("8 / (8 - 8) + 4 * 7", "division by zero"),
    ],
)
def test_check_answer_rejects_with_a_reason(text: str, fragment: str) -> None:
    verdict = check_answer(Hand.parse("4 7 8 8"), text)
    assert not verdict.ok
    assert fragment in verdict.reason


# ---------------------------------------------------------------------------- solver


def test_known_solvable_and_unsolvable_hands() -> None:
    assert is_solvable(Hand.parse("4 7 8 8"))
    assert solutions(Hand.parse("4 7 8 8"))
    assert not is_solvable(Hand.parse("1 1 1 1"))
    assert solutions(Hand.parse("1 1 1 1")) == []
    assert count_solutions(Hand.parse("1 1 1 1")) == 0


@pytest.mark.parametrize(
    ("hand", "only"),
    [
        ("1 5 5 5", "5 * (5 - 1 / 5)"),
        ("3 3 8 8", "8 / (3 - 8 / 3)"),
        ("1 3 4 6", "6 / (1 - 3 / 4)"),
        ("1 1 11 11", "11 + 11 + 1 + 1"),
    ],
)
def test_hands_with_a_single_solution(hand: str, only: str) -> None:
    assert solutions(Hand.parse(hand)) == [only]
    assert check_answer(Hand.parse(hand), only).ok


def test_card_order_does_not_matter() -> None:
    assert solutions(Hand.parse("8 4 8 7")) == solutions(Hand.parse("4 7 8 8"))


def test_solutions_are_deterministic() -> None:
    hand = Hand.parse("2 3 4 6")
    assert solutions(hand) == solutions(hand)
    assert count_solutions(hand) == len(solutions(hand))


def test_commutative_and_associative_variants_count_once() -> None:
    found = solutions(Hand.parse("1 2 3 4"))
    assert len(found) == 4  # 1*2*3*4, (1+2+3)*4, (1+3)*(2+4), 2*3*4/1
    assert sum(s.replace(" ", "") in {"1*2*3*4", "4*3*2*1"} for s in found) == 1


def test_solution_steps_replay_under_the_rules() -> None:
    for key in ["4 7 8 8", "3 3 8 8", "1 5 5 5", "2 3 4 12", "6 9 9 10", "4 4 10 10"]:
        hand = Hand.parse(key)
        for solution in solve(hand):
            state = hand.start()
            for step in solution.steps:
                state = apply(state, step.a, step.op, step.b)
            assert state.is_goal(), (key, solution.expression)
            assert solution.intermediates[-1] == 24


def test_solution_features() -> None:
    (only,) = solve(Hand.parse("3 3 8 8"))
    assert only.fractional
    assert only.intermediates == (F(8, 3), F(1, 3), F(24))
    assert only.peak == 24
    (big,) = solve(Hand.parse("4 4 10 10"))
    assert big.expression == "(10 * 10 - 4) / 4"
    assert big.peak == 100
    assert not big.fractional
    assert big.divisions == 1


def test_other_sizes_and_targets() -> None:
    assert solutions(Hand((3, 8))) == ["3 * 8"]
    assert solutions(Hand((5, 5))) == []
    ten = Hand((1, 2, 3, 4), target=10)
    assert "4 + 3 + 2 + 1" in solutions(ten)
    assert all(check_answer(ten, s).ok for s in solutions(ten))
    zero = Hand((2, 3, 5), target=0)
    assert solutions(zero) == ["3 + 2 - 5"]  # and 5 - 3 - 2, its negation, counts the same
    for numbers in [(1, 2, 3, 4, 5), (13, 13, 13, 13, 13, 13), (7, 11, 13, 17, 19, 23)]:
        hand = Hand(numbers)
        found = solutions(hand)
        assert found
        assert is_solvable(hand)
        assert all(check_answer(hand, s).ok for s in found)
    assert not is_solvable(Hand((1, 1, 1, 1, 1, 1)))


# An independent check of "distinct": with each card replaced by a random rational, two
# expressions are the same solution exactly when they agree as functions of the cards, so
# count the different values that all expression trees reaching the target take. Cards of
# equal value are interchangeable, so take the smallest value over swapping them.

_Tree = int | tuple[str, "_Tree", "_Tree"]


def _value(tree: _Tree, cards: dict[int, Fraction]) -> Fraction:
    if isinstance(tree, int):
        return cards[tree]
    op, left, right = tree
    a, b = _value(left, cards), _value(right, cards)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


def _trees(items: list[tuple[_Tree, Fraction]]) -> Iterator[tuple[_Tree, Fraction]]:
    if len(items) == 1:
        yield items[0]
        return
    for i, j in itertools.permutations(range(len(items)), 2):
        rest = [items[k] for k in range(len(items)) if k not in (i, j)]
        (ta, a), (tb, b) = items[i], items[j]
        for op, value in [("+", a + b), ("-", a - b), ("*", a * b), ("/", a / b if b else None)]:
            if value is not None:
                yield from _trees([*rest, ((op, ta, tb), value)])


def _fingerprint(tree: _Tree, cards: tuple[int, ...], symbols: list[Fraction]) -> Fraction:
    groups: dict[int, list[int]] = {}
    for position, card in enumerate(cards):
        groups.setdefault(card, []).append(position)
    values = []
    for arrangement in itertools.product(*(itertools.permutations(g) for g in groups.values())):
        assignment = {
            source: symbols[target]
            for group, targets in zip(groups.values(), arrangement, strict=True)
            for source, target in zip(group, targets, strict=True)
        }
        values.append(_value(tree, assignment))
    return min(values)


def _as_tree(expr: Expr, cards: tuple[int, ...], used: set[int]) -> _Tree:
    if isinstance(expr, Num):
        position = next(i for i, c in enumerate(cards) if c == expr.value and i not in used)
        used.add(position)
        return position
    assert isinstance(expr, BinOp), "solutions never need a unary minus"
    return (expr.op, _as_tree(expr.left, cards, used), _as_tree(expr.right, cards, used))


@pytest.mark.parametrize(
    "key", ["4 7 8 8", "1 1 4 6", "3 3 8 8", "1 2 3 4", "6 6 6 6", "2 3 4 12", "1 2 7 7", "3 8"]
)
def test_distinct_solutions_match_brute_force(key: str) -> None:
    hand = Hand.parse(key)
    cards = hand.numbers
    rng = random.Random(2024)
    symbols = [F(rng.randrange(10**9, 10**10), rng.randrange(10**9, 10**10)) for _ in cards]
    brute = {
        _fingerprint(tree, cards, symbols)
        for tree, value in _trees([(i, F(c)) for i, c in enumerate(cards)])
        if value == hand.target
    }
    found = solutions(hand)
    prints = [_fingerprint(_as_tree(parse(s), cards, set()), cards, symbols) for s in found]
    assert len(set(prints)) == len(prints), "two solutions are the same solution"
    assert set(prints) == brute
    assert count_solutions(hand) == len(brute)


# ---------------------------------------------------------------------------- catalogue


def test_catalogue_covers_every_hand_once() -> None:
    entries = catalogue()
    assert len(entries) == 1820
    assert len({e.hand.key for e in entries}) == 1820
    for e in entries:
        assert len(e.hand.numbers) == 4
        assert all(1 <= n <= 13 for n in e.hand.numbers)
        assert e.hand.target == 24
    assert catalogue() == entries  # built once


def test_catalogue_solvable_count_is_the_known_figure() -> None:
    assert sum(e.solvable for e in catalogue()) == 1362


def test_every_catalogued_solution_checks_out() -> None:
    for e in catalogue():
        found = solutions(e.hand)
        assert len(found) == e.solutions
        assert is_solvable(e.hand) == e.solvable == bool(found)
        for expression in found:
            assert check_answer(e.hand, expression).ok, (e.hand.key, expression)


def test_levels_follow_the_score() -> None:
    by_level: dict[str, list[float]] = {}
    for e in catalogue():
        by_level.setdefault(e.level, []).append(e.difficulty)
        assert (e.level == UNSOLVABLE) == (not e.solvable)
        assert math.isinf(e.difficulty) == (not e.solvable)
    assert set(by_level) == {*LEVELS, UNSOLVABLE}
    for easier, harder in itertools.pairwise(LEVELS):
        assert max(by_level[easier]) < min(by_level[harder])
    assert all(0 <= d <= 10 for level in LEVELS for d in by_level[level])


@pytest.mark.parametrize(
    ("key", "field", "value"),
    [
        ("3 3 8 8", "needs_fractions", True),
        ("3 3 8 8", "few_solutions", True),
        ("4 7 8 8", "needs_fractions", False),
        ("1 1 11 11", "needs_product", False),
        ("4 7 8 8", "needs_product", True),
        ("4 4 10 10", "max_intermediate", 100),
        ("6 6 6 6", "max_intermediate", 24),
        ("1 1 4 6", "has_one", True),
        ("1 1 1 1", "max_intermediate", None),
    ],
)
def test_entry_features(key: str, field: str, value: object) -> None:
    assert getattr(entry(Hand.parse(key)), field) == value


def test_famous_hard_hands_rate_hard() -> None:
    for key in ["3 3 8 8", "1 5 5 5", "3 3 7 7", "4 4 7 7", "1 3 4 6"]:
        assert entry(Hand.parse(key)).level == "expert", key
    assert entry(Hand.parse("6 6 6 6")).level == "easy"
    assert entry(Hand.parse("1 1 4 6")).difficulty < entry(Hand.parse("4 7 8 8")).difficulty


def test_entry_ignores_card_order_and_rates_other_hands() -> None:
    assert entry(Hand.parse("8 8 7 4")) is entry(Hand.parse("4 7 8 8"))
    other = entry(Hand((1, 2, 3, 4), target=10))
    assert other.hand.target == 10
    assert other.solvable
    assert other == rate(Hand((1, 2, 3, 4), target=10))
    assert entry(Hand((20, 4))).solvable


def test_pick_is_deterministic_by_level_and_seed() -> None:
    for level in [*LEVELS, UNSOLVABLE, None]:
        assert pick(level, seed=7) == pick(level, seed=7)
        hands = {pick(level, seed=s) for s in range(30)}
        assert len(hands) > 1
        for hand in hands:
            e = entry(hand)
            assert e.level == level if level is not None else e.solvable


def test_pick_refuses_unknown_levels() -> None:
    with pytest.raises(ValueError, match="unknown level"):
        pick("impossible", seed=1)


def test_hardest() -> None:
    top = hardest(25)
    assert len(top) == 25
    assert top == hardest(25)
    scores = [entry(h).difficulty for h in top]
    assert scores == sorted(scores, reverse=True)
    assert all(entry(h).solvable for h in top)
    assert Hand.parse("3 3 8 8") in top
    solvable = [e.difficulty for e in catalogue() if e.solvable]
    assert min(scores) >= sorted(solvable, reverse=True)[24]
    assert hardest(0) == []
    assert len(hardest(5000)) == 1362


def test_hints_for_a_solvable_hand() -> None:
    hand = Hand.parse("4 7 8 8")
    nudge, first, full = hints(hand)
    best = solve(hand)[0]
    step = best.steps[0]
    assert str(int(step.a)) in nudge and str(int(step.b)) in nudge
    assert best.expression not in nudge
    assert first.startswith(f"Try {step}")
    assert "left:" in first
    assert full == f"{best.expression} = 24"
    assert check_answer(hand, full).ok


def test_hints_for_a_fraction_hand_bracket_fractions() -> None:
    nudge, first, full = hints(Hand.parse("3 3 8 8"))
    assert "fraction" in nudge
    assert first == "Try 8 / 3 = 8/3 (left: 3 8 8/3)."
    assert full == "8 / (3 - 8 / 3) = 24"
    assert hints(Hand.parse("1 3 4 6"))[1] == "Try 3 / 4 = 3/4 (left: 1 6 3/4)."


def test_hints_for_an_unsolvable_hand() -> None:
    (only,) = hints(Hand.parse("1 1 1 1"))
    assert "no solution" in only


# ---------------------------------------------------------------------------- loaders

_HEADER = "Rank,Puzzles,AMT (s),Solved rate,1-sigma Mean (s),1-sigma STD (s)"


def _tot_csv(path: Path, keys: list[str]) -> Path:
    rows = [f"{i},{key},5.0,99%,5.2,1.5" for i, key in enumerate(keys, start=1)]
    path.write_text("\n".join([_HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def _solvable_keys(count: int) -> list[str]:
    keys = [e.hand.key for e in catalogue() if e.solvable]
    return (keys * (count // len(keys) + 1))[:count]


def test_tot_csv_with_the_hard_range(tmp_path: Path) -> None:
    keys = _solvable_keys(1362)
    path = _tot_csv(tmp_path / "24.csv", keys)
    hands = load_hands(path, "900:1000")
    assert [h.key for h in hands] == keys[900:1000]
    assert len(load_hands(path)) == 1362
    assert [h.key for h in load_hands(path, "1300:")] == keys[1300:]
    assert [h.key for h in load_hands(path, ":10")] == keys[:10]
    assert [h.key for h in load_hands(path, "5")] == [keys[5]]


def test_tot_csv_reads_only_the_puzzles_column(tmp_path: Path) -> None:
    path = tmp_path / "moved.csv"
    path.write_text('Solved rate,Puzzles\n"99,5%",4 7 8 8\n12%,"1, 1, 4, 6"\n', encoding="utf-8")
    assert [h.key for h in load_hands(path)] == ["4 7 8 8", "1 1 4 6"]


def test_csv_with_only_the_puzzles_column(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("Puzzles\n1 1 4 6\n4 7 8 8\n", encoding="utf-8")
    assert [h.key for h in load_hands(path)] == ["1 1 4 6", "4 7 8 8"]


def test_tot_csv_with_bom_crlf_and_utf16(tmp_path: Path) -> None:
    text = (
        f"{_HEADER}\r\n1,1 1 4 6,4.4,99.20%,4.67,1.48\r\n\r\n2,1 1 11 11,4.41,99.60%,4.68,1.45\r\n"
    )
    bom = tmp_path / "bom.csv"
    bom.write_bytes(codecs.BOM_UTF8 + text.encode("utf-8"))
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes(text.encode("utf-16"))
    for path in (bom, utf16):
        assert [h.key for h in load_hands(path)] == ["1 1 4 6", "1 1 11 11"]


def test_plain_text_file(tmp_path: Path) -> None:
    path = tmp_path / "hands.txt"
    path.write_text(
        "# my hands\n4 7 8 8\n\n  1, 5, 5, 5  \n3 3 8 8   # the hard one\n2 3\n", encoding="utf-8"
    )
    hands = load_hands(path)
    assert [h.numbers for h in hands] == [(4, 7, 8, 8), (1, 5, 5, 5), (3, 3, 8, 8), (2, 3)]
    assert [h.key for h in load_hands(path, "1:3")] == ["1 5 5 5", "3 3 8 8"]
    assert all(h.target == 10 for h in load_hands(path, target=10))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("900:1000", slice(900, 1000)),
        ("900:", slice(900, None)),
        (":10", slice(None, 10)),
        (" 3 : 5 ", slice(3, 5)),
        (":", slice(None, None)),
        ("-10:", slice(-10, None)),
        ("7", slice(7, 8)),
        ("-1", slice(-1, None)),
    ],
)
def test_parse_range(text: str, wanted: slice) -> None:
    assert parse_range(text) == wanted


@pytest.mark.parametrize("text", ["", "a:b", "1:2:3", "1.5:3", "900-1000", "nine"])
def test_parse_range_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="range"):
        parse_range(text)


def test_bad_range_when_loading(tmp_path: Path) -> None:
    path = _tot_csv(tmp_path / "24.csv", ["4 7 8 8", "1 1 4 6"])
    with pytest.raises(ValueError, match="bad range"):
        load_hands(path, "x:y")
    with pytest.raises(PuzzleFileError, match="selects no rows"):
        load_hands(path, "900:1000")


def _error(path: Path, **kwargs: object) -> PuzzleFileError:
    with pytest.raises(PuzzleFileError) as info:
        load_hands(path, **kwargs)  # type: ignore[arg-type]
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)
    return info.value


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in str(_error(tmp_path / "nope.csv"))


def test_directory(tmp_path: Path) -> None:
    assert "directory" in str(_error(tmp_path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_special_file(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert "not a regular file" in str(_error(pipe))


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "photo.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert "binary" in str(_error(path))


def test_wrong_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("# café\n4 7 8 8\n".encode("latin-1"))
    assert "not UTF-8" in str(_error(path))


def test_huge_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import puzzles.game24.loaders

    monkeypatch.setattr(puzzles.game24.loaders, "MAX_HANDS_BYTES", 1000)
    path = tmp_path / "huge.txt"
    path.write_text("4 7 8 8\n" * 200, encoding="utf-8")
    assert "too large" in str(_error(path))


def test_empty_files(tmp_path: Path) -> None:
    for name, text in [("empty.txt", ""), ("blank.txt", "\n\n# nothing\n"), ("head.csv", _HEADER)]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert "has no hands" in str(_error(path))


def test_csv_without_a_puzzles_column(tmp_path: Path) -> None:
    path = tmp_path / "wrong.csv"
    path.write_text("Rank,Cards,Time\n1,4 7 8 8,5\n", encoding="utf-8")
    error = _error(path)
    assert error.line == 1
    assert "no 'Puzzles' column" in str(error)
    assert "'Cards'" in str(error)


def test_csv_row_without_a_puzzles_value(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    path.write_text(f"{_HEADER}\n1,4 7 8 8,5,99%,5,1\n2\n", encoding="utf-8")
    error = _error(path)
    assert error.line == 3
    assert "line 3" in str(error)


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (f"{_HEADER}\n1,4 7 8 8,5,99%,5,1\n2,4 7 eight 8,5,99%,5,1\n", 3, "eight"),
        (f"{_HEADER}\n1,4 7 8 0,5,99%,5,1\n", 2, "positive"),
        (f"{_HEADER}\n1,,5,99%,5,1\n", 2, "needs numbers"),
        ("4 7 8 8\n\n1 2.5 3 4\n", 3, "whole numbers"),
        ("4 7 8 8\n1 2 3 4 5 6 7 8\n", 2, "2 to 6"),
        ("hands\n4 7 8 8\n", 1, "hands"),
    ],
)
def test_bad_row_names_its_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    error = _error(path)
    assert error.line == line
    assert f"line {line}" in str(error)
    assert fragment in str(error)


def test_bad_rows_outside_the_range_are_not_read(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text("4 7 8 8\n1 1 4 6\nnot a hand\n", encoding="utf-8")
    assert len(load_hands(path, ":2")) == 2
    assert _error(path).line == 3


def test_bad_target_is_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(HandError):
        load_hands(tmp_path / "nope.txt", target=10**9)


def test_the_shipped_catalogue_table_is_what_the_exact_solver_finds() -> None:
    catalogue_module = importlib.import_module("puzzles.game24.catalogue")

    built = [catalogue_module.rate(e.hand) for e in catalogue()]
    text = catalogue_module.TABLE.read_text(encoding="ascii")
    assert text == catalogue_module.table_text(built)
    assert catalogue() == built  # every field, difficulty and level included


def test_a_damaged_catalogue_table_falls_back_to_the_solver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue_module = importlib.import_module("puzzles.game24.catalogue")

    good = catalogue()
    for damage in ["", "cards,solutions\n1 1 1 1,0\n", catalogue_module.TABLE.read_text()[:-40]]:
        table = tmp_path / "catalogue.csv"
        table.write_text(damage, encoding="ascii")
        monkeypatch.setattr(catalogue_module, "TABLE", table)
        catalogue_module.reload()
        try:
            assert catalogue() == good
        finally:
            catalogue_module.reload()
