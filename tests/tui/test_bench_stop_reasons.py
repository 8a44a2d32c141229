"""``ponder bench wordproblem --method react,deli``: where each run stopped (finish, step cap,
invalid actions, agreement, turn cap, error), tallied per method in the table and in JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.fakeserver import FakeServer
from solver.bench import BenchResult, PuzzleResult
from tui.cli import main
from tui.cli.bench import stop_tally


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def results(out: str) -> dict[str, dict[str, Any]]:
    return {r["method"]: r for r in json.loads(out)["results"]}


def test_the_table_tallies_why_react_and_deli_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "bench", "wordproblem", "--generated", "6", "--method", "react,deli", "--no-plot"
    )
    assert code in (0, 1), out
    lines = {
        line.split(" stopped by: ")[0]: line for line in out.splitlines() if "stopped by" in line
    }
    assert set(lines) == {"react", "deli"}
    assert lines["react"].endswith("(of 6 runs)") and "finish" in lines["react"]
    assert lines["deli"].endswith("(of 6 runs)") and "agreement" in lines["deli"]
    code, out, _ = run(
        capsys, "bench", "wordproblem", "--generated", "6", "--method", "react,deli", "--json"
    )
    by = {name: r["stopped_by"] for name, r in results(out).items()}
    assert sum(by["react"].values()) == 6 and set(by["react"]) <= {"finish", "cap", "invalid"}
    assert sum(by["deli"].values()) == 6 and set(by["deli"]) <= {"agree", "converged", "cap"}


def test_a_step_cap_of_one_ends_every_react_run_at_the_cap(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("bench", "wordproblem", "--generated", "3", "--method", "react", "--steps", "1")
    code, out, _ = run(capsys, *argv, "--no-plot")
    assert code == 0 and "react stopped by: step cap 3 (of 3 runs)" in out
    _, out, _ = run(capsys, *argv, "--json")
    assert results(out)["react"]["stopped_by"] == {"cap": 3}


def test_a_model_that_never_writes_an_action_ends_by_invalid_actions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def ramble(request: dict[str, Any], index: int) -> str:
        return "I think the answer is somewhere around here."

    with FakeServer(reply=ramble) as server:
        code, out, _ = run(
            capsys,
            *("bench", "wordproblem", "--generated", "2", "--method", "react", "--no-plot"),
            *("--base-url", server.url, "--model", "fake-model", "--no-cache"),
        )
    assert code in (0, 1), out
    assert "react stopped by: invalid actions 2 (of 2 runs)" in out


def test_runs_an_error_ended_count_as_error_and_deli_caps_are_turn_caps() -> None:
    def result(by: str, error: str = "") -> PuzzleResult:
        return PuzzleResult("q", False, None, 1, 1, 0.0, 0.1, 1, error, stopped_by=by)

    deli = BenchResult("deli", {"turns": 3}, [result("cap"), result("agree"), result("", "x")])
    assert stop_tally(deli) == "turn cap 1, agreement 1, error 1 (of 3 runs)"
    react = BenchResult("react", {"steps": 7}, [result("cap"), result("invalid")])
    assert stop_tally(react) == "step cap 1, invalid actions 1 (of 2 runs)"


def test_results_files_keep_the_stop_reasons(
    capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    path = str(tmp_path / "runs.jsonl")
    argv = ("bench", "wordproblem", "--generated", "3", "--method", "react", "--steps", "1")
    run(capsys, *argv, "--results", path, "--no-plot")
    _, out, _ = run(capsys, "bench", "report", path, "--no-plot")
    assert "react stopped by: step cap 3 (of 3 runs)" in out
