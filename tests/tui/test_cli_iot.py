"""Iteration of Thought on the command line: the dialogue printed turn by turn, the paper's
mechanism in a --paper run's print and trace, a guide model of its own over real HTTP, and the
bench's stop figures beside the paper's gains."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.fakeserver import FakeServer
from tui.cli import main

RIGHT = "(7 - 8 / 8) * 4"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_each_turn_with_its_exact_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", "24", "1 5 5 5", "--method", "aiot", "--seed", "0")
    assert code in (0, 1)
    assert "first answer, unguided (1/11)" in out and "guide" in out and "answer" in out
    assert "stopped:" in out and "prompt tokens" in out
    assert ("✓" in out) or ("✗" in out)


def test_the_guide_can_be_another_model_on_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    def reply(request: dict[str, Any], index: int) -> str:
        if request["messages"][0]["content"].startswith("You are the inner guide"):
            return json.dumps({"guidance": "Use 8 / 8.", "stop": False})
        return json.dumps({"explanation": "7 - 1 = 6", "answer": RIGHT, "final": True})

    with FakeServer(reply=reply, models={"fake-model", "guide-model"}) as server:
        code, out, _ = run(
            capsys,
            *("solve", "24", "4 7 8 8", "--method", "aiot", "--base-url", server.url),
            *("--model", "fake-model", "--guide-model", "guide-model", "--no-cache"),
            *("--iot-start", "guide"),
        )
        asked = [
            (r.json["model"], r.json["messages"][0]["content"][:22]) for r in server.chat_requests
        ]
    assert code == 0, out
    assert asked == [
        ("guide-model", "You are the inner guid"),
        ("fake-model", "You solve a puzzle in "),
    ]


def scripted_server(finals: list[bool]) -> FakeServer:
    """A server whose guide always says stop and whose answerer says final as ``finals`` go."""
    answers = iter(range(10**6))

    def reply(request: dict[str, Any], index: int) -> str:
        if request["messages"][0]["content"].startswith("You are the inner guide"):
            return json.dumps({"guidance": "Your answer looks right.", "stop": True})
        final = finals[min(next(answers), len(finals) - 1)]
        return json.dumps({"explanation": "7 - 1 = 6", "answer": RIGHT, "final": final})

    return FakeServer(reply=reply)


def trace_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()][1:]


def test_a_paper_aiot_run_shows_the_first_unguided_answer_and_who_stopped_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The guide calls it final every turn; the answerer only at its third answer: that, not
    # the guide's flag, ends the dialogue.
    trace = tmp_path / "aiot.jsonl"
    with scripted_server([False, False, True]) as server:
        code, out, _ = run(
            capsys,
            *("solve", "24", "4 7 8 8", "--method", "aiot", "--paper", "--no-cache"),
            *("--base-url", server.url, "--model", "fake-model", "--trace", str(trace)),
        )
    assert code == 0, out
    assert "first answer, unguided (1/11)" in out and "no guide" in out
    assert out.count("(stop: its advice, ends nothing)") == 2
    assert "stopped: the answerer said its own answer is final (its iteration_stop)" in out
    events = trace_events(trace)
    purposes = [e["purpose"] for e in events if e["type"] == "ModelCalled"]
    assert purposes == ["iot_answer", "iot_guide", "iot_answer", "iot_guide", "iot_answer"]
    (stop,) = [e for e in events if e["type"] == "DialogueStopped"]
    assert (stop["turn"], stop["by"]) == (3, "answerer")
    assert next(e["phase"] for e in events if e["type"] == "TurnGuided") == "first"


def test_a_paper_giot_run_makes_n_answers_and_n_minus_1_guide_calls(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "giot.jsonl"
    with scripted_server([True]) as server:  # both flags ignored: N answers regardless
        code, out, _ = run(
            capsys,
            *("solve", "24", "4 7 8 8", "--method", "giot", "--paper", "--turns", "3"),
            *("--base-url", server.url, "--model", "fake-model", "--no-cache"),
            *("--trace", str(trace)),
        )
    assert code == 0, out
    assert "first answer, unguided (1/3)" in out and "turn 3, final answer (3/3)" in out
    assert "stopped: 3 answers: 2 forced turns, then the final answer" in out
    assert "calls 5 " in out
    purposes = [e["purpose"] for e in trace_events(trace) if e["type"] == "ModelCalled"]
    assert purposes == ["iot_answer", "iot_guide", "iot_answer", "iot_guide", "iot_answer"]


def test_the_start_is_an_option_and_paper_applies_to_iot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["solve", "24", "--help"])
    out = capsys.readouterr().out
    assert "--iot-start {auto,answer,guide}" in out
    flat = " ".join(out.split())
    assert "auto (answer, with --paper and without)" in flat
    _, out, err = run(
        capsys, "solve", "24", "1 5 5 5", "--method", "aiot", "--paper", "--iot-start", "guide"
    )
    assert "does not apply" not in err
    assert "turn 1 (1/10)" in out and "first answer" not in out


def test_a_guide_model_needs_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "24", "4 7 8 8", "--method", "aiot", "--guide-model", "x")
    assert code == 2 and "--guide-model names a model on a server" in err


def test_bench_reports_where_dialogues_stopped_and_the_gain_over_cot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "bench", "24", "--method", "cot,aiot,giot", "--hardest", "20")
    assert code in (0, 1)
    assert "aiot dialogues ended at turn 1:" in out
    assert "giot dialogues ended at turn 5: 100% (by fixed 20)" in out
    assert "aiot relative to cot:" in out and "(paper: +168% vs CoT)" in out
    code, out, _ = run(
        capsys, "bench", "24", "--method", "aiot", "--hardest", "5", "--json", "--iterations", "2"
    )
    (result,) = json.loads(out)["results"]
    assert sum(result["stops"].values()) == 5 and set(result["stops"]) <= {"1", "2", "3"}  # r_0 + T
