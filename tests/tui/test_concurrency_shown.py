"""The command line shows the concurrency limit as it adapted to the server: the last line of
``ponder solve``, and each result of ``ponder bench --json``. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from bench.fakeserver import FakeServer
from tui.cli import main

KEY = "sk-test-abcdefghijkl9876"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeServer() as fake:
        yield fake


def _model(server: FakeServer) -> list[str]:
    return ["--base-url", server.url, "--model", "fake-model", "--no-cache"]


def test_solve_shows_the_limit_it_came_down_to(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.append("429")  # one refusal: 8 x 3/4 = 6
    main(["solve", "24", "4 7 8 8", "--method", "io", "--concurrency", "8", *_model(server)])
    out = capsys.readouterr().out
    assert "· concurrency 6 of 8 ·" in out.splitlines()[-1]


def test_bench_json_gives_each_methods_limit(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.extend(["503", "429"])
    bench = ["bench", "24", "--method", "io,cot", "--hardest", "2", "--json"]
    main([*bench, "--concurrency", "16", *_model(server)])
    results = json.loads(capsys.readouterr().out)["results"]
    first, second = (r["concurrency"] for r in results)
    assert first == {"limit": 9, "maximum": 16, "decreases": 2}  # 16 -> 12 -> 9
    assert second == {"limit": 16, "maximum": 16, "decreases": 0}  # a new model for cot


def test_offline_runs_show_no_limit(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "24", "--method", "io", "--hardest", "1", "--json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert "concurrency" not in result
