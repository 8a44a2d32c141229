"""``--record`` and ``--replay`` on ``ponder solve`` and ``ponder bench``: a run recorded against
the test server replays offline with the same trace; what cannot be replayed or recorded is a
usage error with a plain message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import llm_replies
from bench.fakeserver import FakeServer
from solver.settings import config_path
from tui.cli import main

HAND = "2 3 4 8"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def trace_lines(path: Path) -> list[dict[str, Any]]:
    """A trace's lines without the fields that say when things happened."""
    drop = {"t", "wall_time", "created"}
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in line.items() if k not in drop} for line in lines]


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, int]:
    """A ToT run against the test server, recorded and traced: (recording, trace, exit)."""
    recording, trace = tmp_path / "run.jsonl", tmp_path / "served.trace"
    with FakeServer(reply=llm_replies.reply) as server:
        code, _, err = run(
            capsys, "solve", "24", HAND, "--method", "tot", "--base-url", server.url,
            "--model", "fake-model", "--concurrency", "1",
            "--record", str(recording), "--trace", str(trace),
        )  # fmt: skip
    assert code in (0, 1), err
    return recording, trace, code


def test_a_recorded_solve_replays_offline_with_the_same_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recorded: tuple[Path, Path, int]
) -> None:
    recording, served, served_code = recorded
    replayed = tmp_path / "replayed.trace"
    code, out, _ = run(
        capsys, "solve", "24", HAND, "--method", "tot",
        "--replay", str(recording), "--trace", str(replayed),
    )  # fmt: skip
    assert code == served_code
    assert "model fake-model" in out  # the recorded model's name
    lines = trace_lines(replayed)
    assert sum(line["type"] == "ModelCalled" for line in lines) > 10
    assert lines == trace_lines(served)


def test_a_replay_missing_a_call_stops_with_the_call_named(
    capsys: pytest.CaptureFixture[str], recorded: tuple[Path, Path, int]
) -> None:
    recording = recorded[0]
    code, out, _ = run(
        capsys, "solve", "24", "2 3 4 9", "--method", "tot", "--replay", str(recording), "--json"
    )
    assert code == 2  # the recording does not fit the run: a usage error, not a server's
    errors = [e for e in map(json.loads, out.splitlines()) if e["type"] == "ErrorRaised"]
    ((error),) = errors
    assert error["kind"] == "not_recorded"
    assert "no reply for the propose call (hand: 2, 3, 4, 9;" in error["message"]
    assert "nearest recorded: line 2, propose call (hand: 2, 3, 4, 8;" in error["message"]


def test_a_recorded_bench_replays_to_the_same_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "bench.jsonl.gz"
    hands = "1 2 3 4; 4 7 8 8; 2 3 4 8"
    with FakeServer(reply=llm_replies.reply) as server:
        code, served, err = run(
            capsys, "bench", "24", "--method", "io,cot", "--hands", hands, "--json",
            "--base-url", server.url, "--model", "fake-model", "--record", str(recording),
        )  # fmt: skip
    assert code == 0, err
    code, replayed, err = run(
        capsys, "bench", "24", "--method", "io,cot", "--hands", hands, "--json",
        "--replay", str(recording),
    )  # fmt: skip
    assert code == 0, err

    def results(out: str) -> list[dict[str, Any]]:
        # The concurrency limit is the live server's (a replay has none to adapt).
        drop = {"wall_time", "mean_wall_time", "concurrency"}
        return [{k: v for k, v in r.items() if k not in drop} for r in json.loads(out)["results"]]

    assert results(replayed) == results(served)
    assert "concurrency" in json.loads(served)["results"][0]
    assert [r["errors"] for r in results(replayed)] == [0, 0]
    assert json.loads(replayed)["engine"] == f"replay of {recording} (model fake-model)"


def test_a_replay_chosen_in_the_settings_file_needs_no_flags(
    capsys: pytest.CaptureFixture[str], recorded: tuple[Path, Path, int]
) -> None:
    recording, _, served_code = recorded
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'engine = "replay"\nreplay_file = "{recording}"\n', encoding="utf-8")
    code, out, err = run(capsys, "solve", "24", HAND, "--method", "tot")
    assert code == served_code, err
    assert "model fake-model" in out


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--engine", "replay"], "--engine replay needs --replay FILE"),
        (["--replay", "{rec}", "--engine", "openai"], "leave out --engine openai"),
        (["--replay", "{rec}", "--model", "m"], "leave out --model and --base-url"),
        (["--replay-speed", "2"], "--replay-speed is for the replay engine"),
        (["--replay", "{rec}", "--replay-speed", "-1"], "--replay-speed must be 0"),
        (["--replay", "{rec}", "--replay-speed", "inf"], "--replay-speed must be 0"),
        (["--replay", "{rec}", "--replay-speed", "fast"], "invalid float value: 'fast'"),
        (["--replay", "{dir}/none.jsonl"], "cannot replay {dir}/none.jsonl: no such file"),
        (["--replay", "{bad}"], "cannot replay {bad}, line 2: is not valid JSON"),
        (["--record", "{dir}"], "cannot record to {dir}: it is a directory"),
        (["--record", "{dir}/no/such/run.jsonl"], "its folder {dir}/no/such does not exist"),
        (["--replay", "{rec}", "--record", "{rec}"], "--record names the recording being"),
    ],
)
def test_what_cannot_be_replayed_or_recorded_is_a_plain_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], said: str
) -> None:
    rec = tmp_path / "rec.jsonl"
    rec.write_text('{"ponder_recording": 1, "model": "m"}\n', encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"ponder_recording": 1}\n{"purpose": \n', encoding="utf-8")
    names = {"rec": str(rec), "bad": str(bad), "dir": str(tmp_path)}
    argv = [flag.format(**names) for flag in flags]
    code, out, err = run(capsys, "solve", "24", HAND, "--method", "io", *argv)
    assert code == 2 and out == ""
    assert said.format(**names) in err and "Traceback" not in err
    assert rec.read_text(encoding="utf-8").startswith('{"ponder_recording": 1, "model": "m"}')
