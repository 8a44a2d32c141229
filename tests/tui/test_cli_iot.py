"""Iteration of Thought on the command line: the dialogue printed turn by turn, a guide model
of its own over real HTTP, and the bench's stop figures beside the paper's gains."""

from __future__ import annotations

import json
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
    assert "turn 1 (1/10)" in out and "guide" in out and "answer" in out
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
        )
        asked = [
            (r.json["model"], r.json["messages"][0]["content"][:22]) for r in server.chat_requests
        ]
    assert code == 0, out
    assert asked == [
        ("guide-model", "You are the inner guid"),
        ("fake-model", "You solve a puzzle in "),
    ]


def test_a_guide_model_needs_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "24", "4 7 8 8", "--method", "aiot", "--guide-model", "x")
    assert code == 2 and "--guide-model names a model on a server" in err


def test_bench_reports_where_dialogues_stopped_and_the_gain_over_cot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "bench", "24", "--method", "cot,aiot,giot", "--hardest", "20")
    assert code in (0, 1)
    assert "aiot dialogues ended at turn 1:" in out
    assert "giot dialogues ended at turn 6: 100% (by fixed 20)" in out
    assert "aiot relative to cot:" in out and "(paper: +168% vs CoT)" in out
    code, out, _ = run(
        capsys, "bench", "24", "--method", "aiot", "--hardest", "5", "--json", "--iterations", "2"
    )
    (result,) = json.loads(out)["results"]
    assert sum(result["stops"].values()) == 5 and set(result["stops"]) <= {"1", "2"}
