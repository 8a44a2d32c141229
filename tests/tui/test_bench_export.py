"""``ponder bench --resume FILE`` (the alias of ``--results``) and the runs exported for pandas
and spreadsheets: ``--csv OUT`` and ``--jsonl OUT`` on ``ponder bench`` and on ``ponder bench
report``, read back and checked against the results file."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from solver.bench import PuzzleResult
from solver.bench_export import ExportError, export_rows, write_csv
from solver.bench_results import Record
from tui.cli import main
from tui.exitcodes import ExitCode

HANDS = "1 2 3 4; 4 7 8 8; 1 1 4 6; 2 3 5 12"


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["bench", "24", "--hands", HANDS, "--json", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_resume_is_results_by_another_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    code, _, _ = bench(capsys, "--method", "cot", "--shard", "1/2", "--resume", str(path))
    assert code in (0, 1)
    header, *first = lines(path)
    assert header["type"] == "ponder-bench-results" and [r["index"] for r in first] == [0, 2]
    # The rest of the set, resumed: only the runs the file lacks are made and added.
    code, out, _ = bench(capsys, "--method", "cot", "--resume", str(path))
    _, *records = lines(path)
    assert records[:2] == first and sorted(r["index"] for r in records) == [0, 1, 2, 3]
    assert json.loads(out)["results"][0]["puzzles"] == 4
    before = path.read_bytes()
    bench(capsys, "--method", "cot", "--results", str(path))
    assert path.read_bytes() == before  # nothing left to make, under either name


def test_resume_and_results_together_are_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    code, out, err = bench(capsys, "--method", "cot", "--results", str(a), "--resume", str(b))
    assert code == 2 and code == ExitCode.USAGE
    assert "--resume" in err and "--results" in err and out == ""
    assert not a.exists() and not b.exists()


def test_both_names_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "24", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--results FILE" in out and "--resume FILE" in out
    assert "--csv OUT" in out and "--jsonl OUT" in out


def _as_csv_text(value: Any) -> str:
    return "" if value is None else str(value)


def test_report_csv_and_jsonl_hold_one_row_per_run_of_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    bench(capsys, "--method", "io,cot", "--samples", "3", "--results", str(results))
    header, *records = lines(results)
    out_csv, out_jsonl = tmp_path / "runs.csv", tmp_path / "runs.jsonl"
    argv = ["bench", "report", str(results), "--json", "--csv", str(out_csv)]
    code = main([*argv, "--jsonl", str(out_jsonl)])
    capsys.readouterr()
    assert code in (0, 1)
    with out_csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(records) == 8
    setup = header["setup"]
    for row, record in zip(rows, records, strict=True):
        assert row["kind"] == "game24" and row["model"] == setup["engine"]
        assert row["method"] == record["method"]
        assert json.loads(row["config"]) == record["config"]
        assert row["puzzle"] == record["hand"] and int(row["index"]) == record["index"]
        assert int(row["seed"]) == setup["seed"] + record["index"]
        assert row["solved"] == str(record["solved"])
        assert row["answer"] == _as_csv_text(record["answer"])
        assert int(row["calls"]) == record["calls"] and int(row["tokens"]) == record["tokens"]
        assert row["cost"] == _as_csv_text(record["cost"])
        assert float(row["wall_time"]) == pytest.approx(record["wall_time"])
        assert row["error"] == record["error"]
        # The sampling baselines' own measure is a column, as the file has it.
        assert int(row["samples"]) == record["samples"] > 0
        assert int(row["samples_solved"]) == record["samples_solved"]
    assert "letter" not in rows[0]  # no crossword here: no crossword columns
    assert {r["method"] for r in rows} == {"io", "cot"}
    assert sum(r["solved"] == "True" for r in rows) == sum(r["solved"] for r in records)
    # The JSON lines hold the same rows, with JSON's own types.
    as_json = lines(out_jsonl)
    assert [{k: _as_csv_text(v) for k, v in r.items()} for r in as_json] == rows
    assert all(isinstance(r["solved"], bool) and isinstance(r["calls"], int) for r in as_json)


def test_bench_itself_exports_its_runs_with_and_without_a_results_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "runs.csv"
    _, data, _ = bench(capsys, "--method", "cot", "--csv", str(out))
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["puzzle"] for r in rows] == ["1 2 3 4", "4 7 8 8", "1 1 4 6", "2 3 5 12"]
    result = json.loads(data)["results"][0]
    assert sum(int(r["calls"]) for r in rows) == round(result["mean_calls"] * 4)
    assert sum(r["solved"] == "True" for r in rows) == result["solved"]
    # With a results file, the export covers every run the file holds, in the set's order.
    results, again = tmp_path / "r.jsonl", tmp_path / "again.jsonl"
    bench(capsys, "--method", "cot", "--shard", "2/2", "--results", str(results))
    bench(capsys, "--method", "cot", "--results", str(results), "--jsonl", str(again))
    assert [r["index"] for r in lines(again)] == [0, 1, 2, 3]
    assert [r["calls"] for r in lines(again)] == [int(r["calls"]) for r in rows]


@pytest.mark.parametrize("where", ["missing-dir", "a-dir"])
def test_an_export_that_cannot_be_written_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    results = tmp_path / "r.jsonl"
    bench(capsys, "--method", "io", "--results", str(results))
    target = tmp_path / "nowhere" / "x.csv" if where == "missing-dir" else tmp_path
    code = main(["bench", "report", str(results), "--csv", str(target)])
    _, err = capsys.readouterr()
    assert code == ExitCode.USAGE and "Traceback" not in err
    assert f"cannot write {target}" in err
    assert not (tmp_path / "nowhere").exists()


def test_a_failed_export_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "runs.csv"
    out.write_text("old\n")
    record = Record("io", {}, 0, PuzzleResult("1 2 3 4", True, "x", 1, 5, None, 0.1, 1))
    rows = export_rows({"kind": "game24", "engine": "offline", "seed": 3}, [record])
    # A second row with a column the first lacks: the writer refuses it half-way through.
    bad: list[dict[str, Any]] = [rows[0], {"not-a-column": 1}]
    with pytest.raises(ValueError):
        write_csv(out, bad)
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv"]
    write_csv(out, rows[:1])
    with out.open(newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["seed"] == "3" and row["answer"] == "x" and row["cost"] == ""
    with pytest.raises(ExportError, match="is a directory"):
        write_csv(tmp_path, rows)


def test_the_measures_some_runs_have_are_columns_only_when_present(tmp_path: Path) -> None:
    crossword = PuzzleResult("mini 3", False, None, 9, 90, 0.5, 2.0, 5, letter=0.8, word=0.4)
    bot = PuzzleResult("mini 4", True, "x", 4, 40, None, 1.0, 2, solved_by_iteration=(False, True))
    records = [Record("bot", {"trees": 2}, 4, bot), Record("tot", {}, 3, crossword)]
    setup = {"kind": "crossword", "engine": "offline", "seed": 10}
    out = tmp_path / "runs.csv"
    write_csv(out, export_rows(setup, records))
    with out.open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        assert reader.fieldnames is not None
        assert "letter" in reader.fieldnames and "samples" not in reader.fieldnames
    bot_row, crossword_row = rows  # in the order the methods first appear
    assert json.loads(bot_row["config"]) == {"trees": 2} and bot_row["seed"] == "14"
    assert json.loads(bot_row["solved_by_iteration"]) == [False, True]
    assert bot_row["letter"] == bot_row["word"] == ""
    assert float(crossword_row["letter"]) == 0.8 and float(crossword_row["word"]) == 0.4
    assert crossword_row["answer"] == "" and float(crossword_row["cost"]) == 0.5
    assert json.loads(crossword_row["solved_by_iteration"]) == []
