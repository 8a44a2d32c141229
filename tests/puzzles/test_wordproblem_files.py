"""Word problems, their worked solutions, and loading them from files good and bad."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from puzzles.arith import ClaimStatus
from puzzles.wordproblem import (
    PuzzleFileError,
    Solution,
    Step,
    WordProblem,
    dump_gsm8k,
    load_collection,
    load_gsm8k,
    load_problems,
    parse_gsm8k_answer,
)
from puzzles.wordproblem.loaders import MAX_FILE_BYTES
from tests.puzzles.wordproblem_files import BROKEN, FIXTURE, write_jsonl

# ------------------------------------------------------------------ the model


def test_a_step_separates_claims_from_prose() -> None:
    step = Step("She sells 16-3-4 = <<16-3-4=9>>9 eggs and earns $<<9*2=18>>18.")
    assert step.claims == ("16-3-4=9", "9*2=18")
    assert step.prose == "She sells 16-3-4 = 9 eggs and earns $18."
    assert [c.status for c in step.checks()] == [ClaimStatus.EXACT, ClaimStatus.EXACT]


def test_unreadable_annotations_are_invalid_claims_not_errors() -> None:
    checks = Step("x <<4 bags=4>> y <<no equals>> z").checks()
    assert [c.status for c in checks] == [ClaimStatus.INVALID, ClaimStatus.INVALID]
    assert "'='" in checks[1].reason
    assert Step("<<" + "1+" * 600 + "1=601>>").checks()[0].status is ClaimStatus.INVALID


def test_verify_reports_wrong_steps_and_an_unsupported_final_answer() -> None:
    solution = Solution.parse("He has 20+19 = <<20+19=38>>38.\nThen 38*1 = <<38*1=38>>38.")
    report = WordProblem("q", Fraction(40), solution).verify()
    assert not report.ok and not report.final_ok
    failures = report.failures()
    assert failures[0] == "step 1: ✗ 20+19 = 38 (actually 39)"
    assert "not the result of the last step" in failures[1]


def test_a_final_answer_stated_in_the_last_line_is_supported() -> None:
    solution = Solution.parse("12+8 = <<12+8=20>>20\nSo she has 20 stickers.")
    assert WordProblem("q", Fraction(20), solution).verify().ok
    no_claims = Solution.parse("She counts them all.")
    report = WordProblem("q", Fraction(20), no_claims).verify()
    assert not report.ok and "neither computed nor stated" in report.final_reason


def test_a_problem_without_a_solution_has_nothing_to_fail() -> None:
    report = WordProblem("q", Fraction(3)).verify()
    assert report.ok and not report.has_solution


def test_public_view_never_shows_the_answer_or_the_solution() -> None:
    solution = Solution.parse("7*6 = <<7*6=42>>42 seats.")
    problem = WordProblem("How many seats?", Fraction(42), solution, id="p1", topic="t")
    view = problem.public_view()
    assert view["question"] == "How many seats?" and view["kind"] == "wordproblem"
    assert not any("42" in value for value in view.values())
    assert problem.check("42 seats").ok and not problem.check("41").ok


def test_parse_gsm8k_answer_splits_solution_and_final() -> None:
    solution, final = parse_gsm8k_answer("a <<1+1=2>>2\nb\n#### 1,600 ")
    assert final == "1,600" and len(solution.steps) == 2
    with pytest.raises(ValueError, match="####"):
        parse_gsm8k_answer("no final line")


# ------------------------------------------------------------------ GSM8K files


def test_the_gsm8k_fixture_loads_and_every_problem_verifies(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mine.jsonl", FIXTURE, blank_after=2)
    problems = load_gsm8k(path)
    assert len(problems) == 8
    assert [p.line for p in problems][:4] == [1, 2, 3, 5]  # the blank line 4 is skipped
    assert problems[2].answer == 3750 and problems[1].answer == Fraction(45, 4)
    reports = [p.verify() for p in problems]
    assert all(r.ok for r in reports), [r.failures() for r in reports if not r.ok]
    assert sum(r.approximate for r in reports) == 1  # 10/3 = 3.33
    assert sum(r.exact for r in reports) == 11
    assert problems[0].id == "mine.jsonl:1" and problems[0].source == "gsm8k"


def test_broken_solutions_load_but_fail_verification(tmp_path: Path) -> None:
    problems = load_gsm8k(write_jsonl(tmp_path / "broken.jsonl", BROKEN))
    failures = [p.verify().failures() for p in problems]
    assert "actually 36" in failures[0][0]
    assert "not the result of the last step (39)" in failures[1][0]
    # A step that cannot be read fails verification as unreadable ("?"), never as wrong (✗).
    assert failures[2][0] == "step 1: ? 4 bags * 3 = 12 (unexpected 'b')"


def test_dumped_problems_load_back_the_same(tmp_path: Path) -> None:
    problems = load_gsm8k(write_jsonl(tmp_path / "a.jsonl", FIXTURE))
    path = tmp_path / "b.jsonl"
    path.write_text(dump_gsm8k(problems), encoding="utf-8")
    again = load_gsm8k(path)
    assert [(p.question, p.answer) for p in again] == [(p.question, p.answer) for p in problems]
    assert [p.solution for p in again] == [p.solution for p in problems]


BAD_LINES = [
    ('{"question": "q", "answer": "#### 1"}\n{"question": "q" "answer"}', 2, "bad JSON"),
    ("[1, 2]", 1, "JSON object"),
    ('{"answer": "#### 4"}', 1, "no 'question' field"),
    ('{"question": "How many?"}', 1, "no 'answer' field"),
    ('{"question": 7, "answer": "#### 4"}', 1, "should be text, not a number"),
    ('{"question": "  ", "answer": "#### 4"}', 1, "'question' is empty"),
    ('{"question": "q", "answer": "2+2 = 4"}', 1, "'#### N' line"),
    ('{"question": "q", "answer": "#### many"}', 1, "'many' is not a number"),
    ('{"question": "q", "answer": "#### 1,5"}', 1, "ambiguous"),
    ('{"question": "q", "answer": "#### 3 or 4"}', 1, "not a number"),
    ('{"question": ' + "1" * 5000 + ', "answer": "#### 4"}', 1, "bad JSON"),
    ("[" * 100_000, 1, "nested too deeply"),
    ('{"question": "' + "a" * 10_001 + '", "answer": "#### 4"}', 1, "too long"),
]


@pytest.mark.parametrize(("text", "line", "problem"), BAD_LINES)
def test_bad_gsm8k_lines_name_the_file_the_line_and_the_problem(
    tmp_path: Path, text: str, line: int, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PuzzleFileError) as caught:
        load_gsm8k(path)
    assert caught.value.line == line
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"{path}, line {line}: ")


def test_missing_directory_binary_and_empty_files(tmp_path: Path) -> None:
    cases = {
        tmp_path / "absent.jsonl": "no such file",
        tmp_path: "is a directory",
    }
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"question": "\x00"}')
    cases[binary] = "binary"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    cases[empty] = "no problems"
    for path, problem in cases.items():
        with pytest.raises(PuzzleFileError, match=problem):
            load_gsm8k(path)


def test_wrong_encoding_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"question": "q", "answer": "#### 1"}\n{"question": "caf\xe9"}\n')
    with pytest.raises(PuzzleFileError, match="not UTF-8") as caught:
        load_gsm8k(path)
    assert caught.value.line == 2
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes('{"question": "q"}'.encode("utf-16"))
    with pytest.raises(PuzzleFileError, match="UTF-16"):
        load_problems(utf16)


def test_huge_files_are_refused_without_reading_them(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(PuzzleFileError, match="too large"):
        load_gsm8k(path)


def test_a_utf8_bom_and_crlf_line_ends_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "windows.jsonl"
    text = "\r\n".join(json.dumps(r) for r in FIXTURE[:2])
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert [p.answer for p in load_problems(path)] == [15, Fraction(45, 4)]


# ------------------------------------------------------------------ collections

COLLECTION = """\
# My problems
Q: A baker makes 24 muffins and sells 3/4 of them.
   How many muffins are left?
A: 6
S: She sells 24 * 3 / 4 = <<24*3/4=18>>18 muffins.
S: 24 - 18 = <<24-18=6>>6 muffins
   are left.

question: Pens cost $2 each. How much do 600 pens cost?
answer: $1,200

Q: What percent of 8 is 2?
A: 25%
"""


def test_a_collection_loads_with_continuations_and_optional_steps(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text(COLLECTION, encoding="utf-8")
    first, second, third = load_collection(path)
    assert (
        first.question
        == "A baker makes 24 muffins and sells 3/4 of them. How many muffins are left?"
    )
    assert first.answer == 6 and first.line == 2 and first.source == "collection"
    assert first.solution is not None and len(first.solution.steps) == 2
    assert first.solution.steps[1].prose == "24 - 18 = 6 muffins are left."
    assert first.verify().ok
    assert second.answer == 1200 and second.solution is None and second.unit == "$"
    assert third.answer == 25  # a percent answer is its number of percent
    assert load_problems(path) == [first, second, third]


BAD_COLLECTIONS = [
    ("A: 6\n", 1, "before the first 'Q:'"),
    ("Q: How many?\n", 1, "no 'A:' answer"),
    ("Q: How many?\nA: 6\nA: 7\n", 3, "a second answer for the problem on line 1"),
    ("Q: How many?\nA: lots\n", 2, "'lots' is not a number"),
    ("Q: How many?\nA: 6\nThe end\n", 3, "starts 'Q:', 'A:' or 'S:'"),
    ("Q:\nA: 6\n", 1, "the question is empty"),
]


@pytest.mark.parametrize(("text", "line", "problem"), BAD_COLLECTIONS)
def test_bad_collections_name_the_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PuzzleFileError) as caught:
        load_collection(path)
    assert caught.value.line == line and problem in caught.value.problem


def test_load_problems_refuses_json_lists_and_empty_files(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(FIXTURE), encoding="utf-8")
    with pytest.raises(PuzzleFileError, match="JSON list"):
        load_problems(listed)
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n", encoding="utf-8")
    with pytest.raises(PuzzleFileError, match="empty"):
        load_problems(empty)
    comments = tmp_path / "comments.txt"
    comments.write_text("# nothing here\n", encoding="utf-8")
    with pytest.raises(PuzzleFileError, match="no problems"):
        load_problems(comments)


def test_puzzle_file_error_is_a_value_error() -> None:
    assert issubclass(PuzzleFileError, ValueError)


def test_any_file_either_loads_or_fails_with_puzzle_file_error(tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from(
        ['{"question": "q", "answer": "#### 4"}', '{"question":', "\n", "Q: q", "A: 4",
         "S: <<1+1=2>>", "  more", "#### 1,5", "[", "{", '"', "\x00", "\xe9", "#"]
    )  # fmt: skip

    @settings(
        max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(st.lists(pieces, max_size=12), st.booleans())
    def check(parts: list[str], latin1: bool) -> None:
        path = tmp_path / "fuzz.txt"
        text = "".join(parts)
        path.write_bytes(text.encode("latin-1" if latin1 else "utf-8"))
        try:
            problems = load_problems(path)
        except PuzzleFileError:
            return
        for problem in problems:
            problem.verify()

    check()


def test_a_wrong_claim_in_the_prose_of_a_worked_solution_is_caught() -> None:
    from puzzles.wordproblem.model import Step

    (claim,) = Step("She has 2 + 2 = 5 pens.").checks()
    assert claim.status == "wrong" and claim.exact == 4
    # A claim stated in the prose and in its annotation is checked once.
    (claim,) = Step("She has 16 - 3 - 4 = <<16-3-4=9>>9 eggs left.").checks()
    assert claim.status == "exact"
    # Times are not arithmetic.
    assert Step("From 2:30 - 1:30 = one hour.").checks() == ()
