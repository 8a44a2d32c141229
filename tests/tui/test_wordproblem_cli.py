"""``ponder puzzles wordproblem``: run through the real command line, whose word problem
sub-parser holds only the word problems' own flags.

(The command lives in tui/cli/wordproblem.py; these tests sit with the other word problem tests.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.puzzles.wordproblem_files import BROKEN, FIXTURE, write_jsonl
from tui.cli import main


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["puzzles", "wordproblem", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_kind_has_its_own_flags_and_no_other_kinds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Crossword flags are refused by the parser itself, naming the kind they belong to.
    code, out, err = call(capsys, "--generate", "--blocks")
    assert code == 2 and not out
    assert "unrecognized arguments: --blocks" in err and "Mini crosswords" in err
    # The aliases people type reach the same sub-parser.
    assert main(["puzzles", "GSM8K", "--generate", "--count", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["question"]


def test_check_a_good_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "mine.jsonl", FIXTURE)
    code, out, err = call(capsys, "--load", str(path), "--check")
    assert code == 0 and not err
    assert "8 of 8 problems verify" in out and "11 exact, 1 approximate, 0 wrong" in out


def test_check_lists_failures_by_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", FIXTURE[:2] + BROKEN)
    code, out, _ = call(capsys, "--load", str(path), "--check")
    assert code == 1
    assert "2 of 5 problems verify" in out
    assert "line 3: step 1: ✗ 12*3 = 35 (actually 36)" in out
    assert "line 4: the final answer 40 is not the result of the last step (39)" in out
    assert "line 5: step 1: ? 4 bags * 3 = 12 (unexpected 'b')" in out  # unreadable, not ✗


def test_check_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", FIXTURE + BROKEN)
    code, out, _ = call(capsys, "--load", str(path), "--check", "--json")
    summary = json.loads(out)
    assert code == 1
    assert (summary["problems"], summary["verified"], summary["failed"]) == (11, 8, 3)
    assert summary["steps"] == {"exact": 12, "approximate": 1, "wrong": 1, "invalid": 1}
    assert [f["line"] for f in summary["failures"]] == [9, 10, 11]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ('{"question": "q", "answer": "#### 4"}\n{oops}\n', "line 2: bad JSON"),
        ('{"question": "q", "answer": "#### lots"}\n', "line 1: the final answer 'lots'"),
        ('{"question": "q"}\n', "no 'answer' field"),
    ],
)
def test_bad_files_exit_2_with_a_message_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, out, err = call(capsys, "--load", str(path), "--check")
    assert code == 2 and not out
    assert err.startswith("ponder: ") and message in err and "Traceback" not in err


def test_load_without_check_lists_questions_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "mine.jsonl", FIXTURE)
    code, out, _ = call(capsys, "--load", str(path), "--json")
    views = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(views) == 8
    assert all("answer" not in v and "<<" not in v["question"] for v in views)
    code, out, _ = call(capsys, "--load", str(path))
    assert code == 0 and "line 1: A baker bakes 36 rolls" in out and "####" not in out


def test_generate_prints_problems_with_worked_solutions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--generate", "--seed", "1", "--count", "3")
    assert code == 0
    assert out.count("Answer: ") == 3 and "✓ " in out and "✗" not in out
    assert call(capsys, "--generate", "--seed", "1", "--count", "3")[1] == out  # seeded


def test_generated_json_loads_back_and_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = call(capsys, "--generate", "--seed", "9", "--count", "25", "--json")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 25 and all(r["answer"].splitlines()[-1][:5] == "#### " for r in records)
    path = tmp_path / "generated.jsonl"
    path.write_text(out, encoding="utf-8")
    code, out, _ = call(capsys, "--load", str(path), "--check")
    assert code == 0 and "25 of 25 problems verify" in out


def test_generate_by_topic_level_and_algebra(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(
        capsys, "--generate", "--topic", "geometry", "--level", "hard", "--count", "4", "--json"
    )
    assert code == 0
    assert {(json.loads(r)["topic"], json.loads(r)["level"]) for r in out.splitlines()} == {
        ("geometry", "hard")
    }
    code, out, _ = call(capsys, "--generate", "--topic", "factor", "--count", "2")
    assert code == 0 and "Factor completely" in out and out.count("Answer: ") == 2
    code, out, _ = call(capsys, "--generate", "--topic", "algebra", "--count", "6", "--json")
    assert code == 0 and all(json.loads(r)["kind"] == "algebra" for r in out.splitlines())


def test_pick_shows_one_problem_without_its_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--pick", "--seed", "4", "--topic", "ages")
    assert code == 0 and "1. [ages" in out and "Answer" not in out and "2." not in out
    code, out, _ = call(capsys, "--pick", "--json")
    assert code == 0 and set(json.loads(out)) == {"kind", "id", "question", "topic", "level"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--generate", "--count", "0"], "--count must be between"),
        (["--generate", "--topic", "poetry"], "unknown topic 'poetry'"),
        (["--generate", "--level", "legendary"], "unknown level 'legendary'"),
        (["--check"], "--check needs a file"),
        (["--load", "f.jsonl", "--generate"], "not both"),
        (["--load", "f.jsonl", "--topic", "ages"], "--topic and --level"),
        (["--solve", "4 7 8 8"], "Game of 24"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = call(capsys, *argv)
    assert code == 2 and not out and message in err


def test_without_a_mode_the_catalogue_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys)
    assert code == 0 and "Word problem templates" in out and "shopping" in out
    code, out, _ = call(capsys, "--json")
    catalogue = json.loads(out)
    assert code == 0 and catalogue["templates"] >= 30 and "factor" in catalogue["algebra"]
