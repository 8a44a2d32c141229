"""``ponder solve crossword``: a generated mini by seed or a file's row, every word check
printed, traces that replay without the file, and bad input refused plainly (hostile files,
a 15 x 15 grid, a method whose roles crosswords lack)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from puzzles.crossword import Crossword, Grid, generate, to_tot
from tui.cli.crossword import parse_range
from tui.cli.main import main
from tui.cli.usage import UsageError


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def tot_file(tmp_path: Path, seeds: range = range(3)) -> Path:
    path = tmp_path / "minis.json"
    path.write_text(json.dumps([to_tot(generate(s)) for s in seeds]))
    return path


def test_solve_a_generated_mini_with_tot_dfs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "crossword", "5", "--method", "tot-dfs")
    assert code == 0 and "✓ solved" in out and "ACRES/TROLL/TABOO/INEPT/CEDES" in out


def test_solve_prints_each_word_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "crossword", "5", "--method", "cot", "-v")
    assert code in (0, 1)
    assert "✓ h1." in out
    if "✗" in out:
        assert "conflicts with" in out and "holds" in out


def test_solve_a_file_row_as_json_with_a_trace_that_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tot_file(tmp_path)
    trace = tmp_path / "run.jsonl"
    argv = ["solve", "crossword", "--file", str(path), "--row", "2", "--method", "io"]
    code, out, _ = run(capsys, *argv, "--json", "--trace", str(trace))
    assert code in (0, 1)
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "RunStarted" and events[0]["kind"] == "crossword"
    assert events[-1]["type"] == "RunFinished" and events[-1]["answer"]
    code, out, err = run(capsys, "replay", str(trace), "--print")
    assert code in (0, 1) and "answer:" in out, err


def test_bad_crossword_command_lines_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tot_file(tmp_path, range(1))
    hostile = tmp_path / "bad.json"
    hostile.write_bytes(b"\xff\xfe[[1, 2]]")
    for argv, message in (
        (["--file", str(path), "--row", "5"], "the file has rows 0 to 0"),
        (["--row", "1"], "--row picks a puzzle of --file"),
        (["--file", str(path), "7"], "--file reads one"),
        (["--file", str(hostile)], str(hostile.name)),
        (["--file", str(tmp_path / "missing.json")], "missing.json"),
    ):
        code, _, err = run(capsys, "solve", "crossword", *argv)
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)


def test_a_15_by_15_grid_is_refused_plainly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = ["ABCDEFGHIJKLMNO"] * 15
    grid = Grid.parse(rows)
    big = Crossword.from_clues(rows, {s.label: f"clue {s.label}" for s in grid.slots})
    path = tmp_path / "big.ipuz"
    from puzzles.crossword import to_ipuz

    path.write_text(json.dumps(to_ipuz(big)))
    code, _, err = run(capsys, "solve", "crossword", "--file", str(path), "--method", "tot-dfs")
    assert code == 2 and "mini crosswords only (at most 7 x 7); this one is 15 x 15" in err


def test_a_method_crosswords_cannot_play_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "crossword", "1", "--method", "tot")
    assert code == 2 and "ToT does not play Mini crosswords" in err and "tot-dfs" in err
    code, _, err = run(capsys, "solve", "24", "4 7 8 8", "--method", "tot-dfs")
    assert code == 2 and "ToT-DFS does not play Game of 24" in err


def test_ranges_take_a_step() -> None:
    assert parse_range("0:100:5") == slice(0, 100, 5)
    assert list(range(100))[parse_range("0:100:5")] == list(range(0, 100, 5))
    assert parse_range("3") == slice(3, 4)
    assert parse_range("10:") == slice(10, None, None)
    for bad in ("", "a:b", "1:2:0", "1:2:3:4"):
        with pytest.raises(UsageError):
            parse_range(bad)


def test_bench_prints_tots_three_measures_beside_the_paper(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "crossword", "--generated", "2", "--method", "io,tot-dfs"]
    code, out, _ = run(capsys, *argv, "--step-limit", "10", "--no-plot")
    assert code == 0
    assert "letter" in out and "word" in out and "game" in out
    assert "38.7 / 14 / 0" in out and "78 / 60 / 20" in out
    assert "of completed" not in " ".join(out.split())  # no column of that name here
    code, out, _ = run(capsys, *argv, "--step-limit", "10", "--json")
    data = json.loads(out)
    assert data["hands"] == 2
    for result in data["results"]:
        assert all(0.0 <= result[k] <= 1.0 for k in ("letter", "word", "game"))
        assert result["game"] == result["success_rate"]


def test_bench_takes_every_nth_row_of_a_file_and_resumes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tot_file(tmp_path, range(7))
    results = tmp_path / "results.jsonl"
    argv = ["bench", "crossword", "--file", str(path), "--range", "0:7:3", "--method", "cot"]
    code, out, _ = run(capsys, *argv, "--json", "--results", str(results))
    assert code == 0 and json.loads(out)["hands"] == 3
    lines = results.read_text().splitlines()
    assert any("minis.json row 6" in line for line in lines)
    code, again, _ = run(capsys, *argv, "--json", "--results", str(results))
    assert code == 0 and results.read_text().splitlines() == lines  # nothing run twice
    first, second = json.loads(out)["results"][0], json.loads(again)["results"][0]
    assert first["letter"] == second["letter"]


def test_bad_bench_command_lines_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tot_file(tmp_path, range(2))
    for argv, message in (
        (["--generated", "0"], "--generated takes 1 to"),
        (["--range", "0:5"], "--range selects rows of --file"),
        (["--file", str(path), "--range", "5:9"], "selects no rows"),
        (["--file", str(path), "--range", "0:2:0"], "the step must be at least 1"),
        (["--file", str(path), "--first", "3"], "--first and --blocks are for --generated"),
        (["--generated", "2", "--method", "tot"], "ToT does not play Mini crosswords"),
    ):
        code, _, err = run(capsys, "bench", "crossword", *argv)
        assert code == 2 and message in err, (argv, err)
