"""Exit codes and results say what happened: one catalogue, a server that failed is not "not
solved", a bench of failed runs is not 0 %, a trace's verdict is checked again, an unknown cost
is not $0, and a number asked for is never silently replaced."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from bench import llm_replies
from bench.fakeserver import FakeServer
from tui.cli import main
from tui.exitcodes import ExitCode, exit_codes_help

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    """Output with the terminal's line wrapping undone."""
    return " ".join(text.split())


@pytest.fixture
def no_retries() -> None:
    """Failures are final at once, so the tests do not wait for backoff."""
    config = Path(os.environ["PONDER_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("max_retries = 0\n")


def wrong_answers(request: dict[str, Any], index: int) -> str:
    """A model that always answers, always wrongly: an honest "not solved"."""
    return "Answer: (4 + 7) + (8 + 8) = 24"


def server_args(server: FakeServer) -> list[str]:
    return ["--base-url", server.url, "--model", "fake-model", "--no-cache"]


# ------------------------------------------------------------------ the catalogue


def test_codes_are_distinct_and_described() -> None:
    values = [int(code) for code in ExitCode]
    assert values == sorted(set(values)) == [0, 1, 2, 3, 130]
    assert ExitCode.SERVER_FAILED not in (ExitCode.NOT_SOLVED, ExitCode.USAGE)
    assert all(code.meaning for code in ExitCode)


def test_help_and_docs_list_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["solve", "--help"], ["bench", "--help"], ["replay", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert exit_codes_help() in out
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in ExitCode:
        assert f"| {code.value} | {code.meaning.replace('bench:', '`bench`:')} |" in page


def test_no_command_keeps_its_own_exit_numbers() -> None:
    """Every command returns codes from tui.exitcodes: no second list of numbers."""
    own = re.compile(r"^\s*(?:return\s+(?:0|2|3|130)\s*$|EXIT_\w+(?:,\s*EXIT_\w+)*\s*=\s*\d)")
    offenders = []
    paths = [ROOT / "tui" / "app.py", *(ROOT / "tui" / "cli").glob("*.py")]
    assert len(paths) > 5  # the command line's modules were found
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if own.match(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders


# ------------------------------------------------------------------ solve


@pytest.mark.parametrize("fault", ["500", "cut", "malformed", "slow:3"])
def test_a_server_that_fails_exits_3_with_cost_unknown(
    capsys: pytest.CaptureFixture[str], no_retries: None, fault: str
) -> None:
    with FakeServer(reply=llm_replies.reply) as server:
        server.faults.extend([fault] * 20)
        code, out, _ = run(
            capsys, "solve", "24", "4 7 8 8", "--method", "io", "--timeout", "1",
            *server_args(server),
        )  # fmt: skip
    assert code == ExitCode.SERVER_FAILED and int(code) == 3
    assert "✗ not solved" in out and "cost unknown" in out and "$0.0000" not in out
    assert "calls 1 ·" in out  # the failed call was made: it is counted, never "calls 0"


def test_failed_run_json_has_null_cost(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(reply=llm_replies.reply) as server:
        server.faults.extend(["500"] * 20)
        code, out, _ = run(
            capsys, "solve", "24", "4 7 8 8", "--method", "tot", "--json", *server_args(server)
        )
    last = json.loads(out.splitlines()[-1])
    assert code == 3
    assert last["type"] == "RunFinished" and last["reason"] == "error"
    assert last["cost"] is None


def test_an_honest_wrong_answer_still_exits_1(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(reply=wrong_answers) as server:
        code, out, _ = run(capsys, "solve", "24", "4 7 8 8", "--method", "io", *server_args(server))
    assert code == ExitCode.NOT_SOLVED and "error" not in out


def test_a_server_that_cannot_be_used_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(models={"other-model"}) as server:
        code, out, _ = run(capsys, "solve", "24", "4 7 8 8", "--method", "io", *server_args(server))
    assert code == ExitCode.USAGE and "unknown_model" in out


# ------------------------------------------------------------------ bench


def test_a_bench_where_every_run_failed_says_so_and_exits_3(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(reply=llm_replies.reply) as server:
        server.faults.extend(["500"] * 50)
        code, out, _ = run(
            capsys, "bench", "24", "--method", "io", "--hands", "4 7 8 8; 1 2 3 4",
            *server_args(server),
        )  # fmt: skip
    assert code == ExitCode.SERVER_FAILED
    header = next(line for line in out.splitlines() if line.startswith("method"))
    assert "errors" in header and "completed" in out
    row = next(line for line in out.splitlines() if line.startswith("io "))
    cells = row.split()
    # success over all runs, solved, success over completed runs (none), errors, ..., cost
    assert cells[1:5] == ["0.0%", "0/2", "-", "2"] and "unknown" in cells
    assert "io: 2 of 2 runs failed" in out


def test_bench_json_carries_the_same_counts(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(reply=llm_replies.reply) as server:
        server.faults.extend(["500"] * 50)
        code, out, _ = run(
            capsys, "bench", "24", "--method", "io", "--hands", "4 7 8 8; 1 2 3 4", "--json",
            *server_args(server),
        )  # fmt: skip
    (result,) = json.loads(out)["results"]
    assert code == 3
    assert result["errors"] == 2 and result["completed"] == 0
    assert result["success_rate"] == 0.0 and result["completed_success_rate"] is None
    assert result["cost"] is None


def test_a_bench_with_some_failed_runs_counts_success_both_ways(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(reply=llm_replies.reply) as server:
        server.faults.append("500")  # the first hand's only call fails; the second completes
        code, out, _ = run(
            capsys, "bench", "24", "--method", "io", "--hands", "2 3 4 8; 2 3 4 8", "--json",
            *server_args(server),
        )  # fmt: skip
    (result,) = json.loads(out)["results"]
    assert code == ExitCode.OK
    assert result["errors"] == 1 and result["completed"] == 1
    assert result["success_rate"] == result["solved"] / 2
    assert result["completed_success_rate"] == result["solved"] / 1
    assert result["cost"] is None  # a failed call may have been billed


def test_a_bench_that_cannot_reach_its_model_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], no_retries: None
) -> None:
    with FakeServer(models={"other-model"}) as server:
        code, _, _ = run(
            capsys, "bench", "24", "--method", "io", "--hands", "4 7 8 8", *server_args(server)
        )
    assert code == ExitCode.USAGE


@pytest.mark.parametrize(("value", "shown"), [("0", "not 0"), ("-3", "not -3"), ("1821", "1821")])
def test_hardest_takes_only_a_real_count(
    capsys: pytest.CaptureFixture[str], value: str, shown: str
) -> None:
    code, out, err = run(capsys, "bench", "24", "--method", "io", f"--hardest={value}")
    assert code == ExitCode.USAGE and not out
    assert "--hardest takes 1 to 1820" in err and shown in err


# ------------------------------------------------------------------ replay


def _forge(trace: Path, forged: Path, **finish: Any) -> None:
    lines = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data.get("type") == "RunFinished":
            data.update(finish)
        lines.append(json.dumps(data))
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def unsolved_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    trace = tmp_path / "run.jsonl"
    code, _, _ = run(capsys, "solve", "24", "1 1 1 1", "--method", "io", "--trace", str(trace))
    assert code == ExitCode.NOT_SOLVED
    return trace


def test_replay_checks_a_forged_solved_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unsolved_trace: Path
) -> None:
    forged = tmp_path / "forged.jsonl"
    _forge(
        unsolved_trace,
        forged,
        answer="(1 + 1) * (1 + 1) = 24",
        solved=True,
        verdict="uses 1 1 1 1 once each and equals 24",
    )
    code, out, _ = run(capsys, "replay", str(forged), "--print")
    assert code == ExitCode.NOT_SOLVED
    assert "the trace says solved; checked again exactly, the answer is not" in flat(out)
    assert "✓ solved" not in out and "✗ not solved" in out
    assert "equals 4, not 24" in out

    code, out, _ = run(capsys, "replay", str(forged), "--json")
    events = [json.loads(line) for line in out.splitlines()]
    note, finish = events[-2], events[-1]
    assert code == ExitCode.NOT_SOLVED
    assert note["type"] == "ErrorRaised" and note["kind"] == "trace" and not note["fatal"]
    assert finish["type"] == "RunFinished" and finish["solved"] is False
    assert finish["verdict"] == "equals 4, not 24"


def test_replay_trusts_the_check_not_the_trace_either_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace, forged = tmp_path / "run.jsonl", tmp_path / "modest.jsonl"
    code, _, _ = run(
        capsys, "solve", "24", "1 2 3 4", "--method", "cot", "--seed", "1", "--trace", str(trace)
    )
    assert code == ExitCode.OK
    _forge(trace, forged, solved=False, verdict="no")
    code, out, _ = run(capsys, "replay", str(forged), "--print")
    assert code == ExitCode.OK
    assert "the trace says not solved; checked again exactly, the answer is right" in flat(out)
    code, out, _ = run(capsys, "replay", str(trace), "--print")
    assert code == ExitCode.OK and "error (trace)" not in out


def test_replay_checks_solution_events_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unsolved_trace: Path
) -> None:
    lines = unsolved_trace.read_text(encoding="utf-8").splitlines()
    forged_event = {"type": "SolutionFound", "t": 0.0, "node_id": "n9", "answer": "24"}
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([*lines[:-1], json.dumps(forged_event), lines[-1]]) + "\n")
    code, out, _ = run(capsys, "replay", str(forged), "--print")
    assert code == ExitCode.NOT_SOLVED
    assert "★ solution" not in out
    assert "the trace marks n9 as a solution; checked again exactly, '24' is not" in flat(out)


def test_replay_of_a_trace_without_a_hand_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unsolved_trace: Path
) -> None:
    lines = unsolved_trace.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["puzzle"] = "not a hand"
    bad = tmp_path / "nohand.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, _, err = run(capsys, "replay", str(bad), "--print")
    assert code == ExitCode.USAGE and "holds no Game of 24 puzzle" in err and "Traceback" not in err


def test_replay_checks_arithmetic_claims_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unsolved_trace: Path
) -> None:
    lines = unsolved_trace.read_text(encoding="utf-8").splitlines()
    forged_claim = {
        "type": "ClaimVerified",
        "t": 0.0,
        "node_id": None,
        "expression": "7 * 8",
        "claimed": "54",
        "exact": "54",
        "status": "exact",
        "ok": True,
        "reason": "",
    }
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([*lines[:-1], json.dumps(forged_claim), lines[-1]]) + "\n")
    code, out, _ = run(capsys, "replay", str(forged), "--json")
    assert code == ExitCode.NOT_SOLVED
    events = [json.loads(line) for line in out.splitlines()]
    (claim,) = [e for e in events if e["type"] == "ClaimVerified" and e["expression"] == "7 * 8"]
    assert (claim["status"], claim["exact"], claim["ok"]) == ("wrong", "56", False)
    notes = [e["message"] for e in events if e["type"] == "ErrorRaised"]
    assert any("7 * 8 = 54 as exact; checked again exactly, it is wrong" in n for n in notes)
    # An honest trace replays without a note.
    code, out, _ = run(capsys, "replay", str(unsolved_trace), "--json")
    assert code == ExitCode.NOT_SOLVED and '"ErrorRaised"' not in out
