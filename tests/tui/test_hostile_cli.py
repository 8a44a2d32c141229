"""``ponder`` against a hostile server: the key never shows, runs end, floods stop, unfinished
replies are reported as such, and a bad base URL is a usage error. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import RichLog, Static

from bench.fakeserver import ESCAPES, FakeServer
from puzzles.game24 import Hand
from solver.model import ScriptedModel
from solver.settings import Settings
from tests.solver.hostile import ANSWER, CANARY, ECHOING_FAULTS, leaks
from tests.tui.harness import Notice, wait_for
from tui.app import make_app
from tui.cli import main
from tui.exitcodes import ExitCode
from tui.screens.game24 import Game24Screen
from tui.widgets.solver_pane import SolverPane


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A fake server, the canary key in the environment, one retry (so failures are quick)."""
    config = Path(os.environ["PONDER_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("max_retries = 1\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    with FakeServer() as fake:
        yield fake


def solve(server: FakeServer, *options: str) -> list[str]:
    return [
        "solve",
        "24",
        "4 7 8 8",
        "--method",
        "io",
        "--base-url",
        server.url,
        "--model",
        "fake-model",
        *options,
    ]


def everything_written(root: Path) -> str:
    """Every file under ``root`` (config, data, caches, traces), as text."""
    return "\n".join(
        path.read_bytes().decode("utf-8", "replace") for path in root.rglob("*") if path.is_file()
    )


@pytest.mark.parametrize("fault", ECHOING_FAULTS)
def test_solve_never_shows_or_writes_the_key(
    server: FakeServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, fault: str
) -> None:
    server.chunk_size = 3
    trace = tmp_path / "run.trace"
    server.faults.extend([fault] * 2)
    main(solve(server, "--json", "--trace", str(trace)))
    server.faults.extend([fault] * 2)
    main(solve(server, "-v", "--trace", str(tmp_path / "plain.trace")))
    out, err = capsys.readouterr()
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {CANARY}"
    assert trace.stat().st_size > 0
    assert leaks(out + err) == []
    assert leaks(everything_written(tmp_path)) == []


def test_bench_never_shows_the_key(server: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.faults.extend(["error_event"] * 2)
    common = ["--method", "io", "--base-url", server.url, "--model", "fake-model"]
    main(["bench", "24", "--hands", "4 7 8 8", *common])
    server.faults.extend(["echo_key"] * 2)
    main(["bench", "24", "--hands", "4 7 8 8", *common, "--json"])
    out, err = capsys.readouterr()
    assert "sk-" in out  # the masked key is shown: the error is there
    assert leaks(out + err) == []


def test_a_trickling_server_is_stopped_at_the_run_deadline(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.extend(["trickle:0.2"] * 4)
    start = time.perf_counter()
    code = main(solve(server, "--timeout", "1", "--deadline", "1"))
    elapsed = time.perf_counter() - start
    out = " ".join(capsys.readouterr().out.split())
    assert elapsed < 2.5
    assert "deadline of 1 seconds" in out
    assert code == ExitCode.SERVER_FAILED


def test_the_run_deadline_can_come_from_the_settings(
    server: FakeServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_DEADLINE", "1")
    server.faults.extend(["trickle:0.2"] * 4)
    start = time.perf_counter()
    code = main(solve(server, "--timeout", "1"))
    elapsed = time.perf_counter() - start
    assert elapsed < 2.5 and code == ExitCode.SERVER_FAILED
    assert "deadline of 1 seconds" in " ".join(capsys.readouterr().out.split())


def test_a_trickling_server_is_stopped_at_the_call_deadline(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # --timeout 0.4 with one retry: the call may take 0.8 s in all, retries included.
    server.faults.extend(["trickle:0.1"] * 4)
    start = time.perf_counter()
    code = main(solve(server, "--timeout", "0.4", "--json"))
    elapsed = time.perf_counter() - start
    out, _ = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    [error] = [e for e in events if e["type"] == "ErrorRaised"]
    assert elapsed < 2.0
    assert error["kind"] == "timeout" and "deadline of 0.8 seconds" in error["message"]
    assert code == ExitCode.SERVER_FAILED


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan"])
def test_deadline_must_be_positive(
    server: FakeServer, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(solve(server, f"--deadline={value}")) == ExitCode.USAGE
    assert "--deadline" in capsys.readouterr().err
    assert server.chat_requests == []


def test_bench_stops_each_run_at_the_deadline(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.extend(["trickle:0.2"] * 8)
    common = ["--method", "io", "--base-url", server.url, "--model", "fake-model"]
    start = time.perf_counter()
    main(["bench", "24", "--hands", "4 7 8 8; 1 2 3 4", *common, "--deadline", "0.8", "--json"])
    assert time.perf_counter() - start < 3.0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["completed"] == 0


def test_a_flood_is_an_error_of_the_call(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.extend(["flood"] * 2)
    start = time.perf_counter()
    code = main(solve(server))
    out = " ".join(capsys.readouterr().out.split())  # as one line, however it wrapped
    assert time.perf_counter() - start < 3.0
    assert "error (too_large)" in out and "max_tokens was 1,000" in out
    assert code == ExitCode.SERVER_FAILED


@pytest.mark.parametrize(
    ("reason", "shown"),
    [("length", "cut off at the token limit"), ("content_filter", "content filter")],
)
def test_an_unfinished_reply_is_reported_not_answered(
    server: FakeServer, capsys: pytest.CaptureFixture[str], reason: str, shown: str
) -> None:
    server.reply = lambda request, index: ANSWER  # a right answer, but the reply was cut
    server.faults.append(reason)
    code = main(solve(server, "--method", "cot"))
    out = " ".join(capsys.readouterr().out.split())
    assert "⚠" in out and shown in out
    assert "not solved" in out and "reply cut" in out
    assert code == ExitCode.NOT_SOLVED
    server.faults.append(reason)
    main(solve(server, "--method", "cot", "--json", "--no-cache"))
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [called] = [e for e in events if e["type"] == "ModelCalled"]
    assert called["finish_reasons"] == [reason]
    assert events[-1]["solved"] is False and events[-1]["answer"] is None


def test_wrong_typed_chunks_are_retried_not_internal_errors(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.extend(["bad_chunk:content_number", "usage:nan"])
    main(solve(server, "--json"))
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert not [e for e in events if e["type"] == "ErrorRaised"]
    [called] = [e for e in events if e["type"] == "ModelCalled"]
    assert "token usage" in called["notes"][0]
    assert len(server.chat_requests) == 2


def test_escape_sequences_from_a_server_are_shown_as_text(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.faults.append("ansi")
    main(solve(server, "-v"))
    server.faults.extend(["ansi_error"] * 2)
    main(solve(server, "--no-cache"))
    out, err = capsys.readouterr()
    assert "\\x1b]0;pwned" in out and "overloaded" in out  # shown, as escapes
    raw = {c for c in out + err if c in ESCAPES and not c.isprintable()}
    assert raw == set()


@pytest.mark.parametrize("url", ["http://[bad", "localhost:11434/v1", "http://a b/v1"])
@pytest.mark.parametrize("command", ["solve", "bench"])
def test_a_malformed_base_url_is_a_usage_error_at_once(
    capsys: pytest.CaptureFixture[str], url: str, command: str
) -> None:
    where = ["4 7 8 8"] if command == "solve" else ["--hands", "4 7 8 8"]
    start = time.perf_counter()
    code = main([command, "24", *where, "--engine", "openai", "--base-url", url])
    out, err = capsys.readouterr()
    assert time.perf_counter() - start < 1.0
    assert code == ExitCode.USAGE
    assert "base URL" in err and "not usable" in err
    assert "Traceback" not in err and out == ""


async def test_the_solver_pane_shows_an_unfinished_reply(tmp_path: Path) -> None:
    app = make_app(
        Settings(),
        model=lambda: ScriptedModel([ANSWER], finish_reason="length"),
        store_path=tmp_path / "r.sqlite3",
    )
    app.method_name = "cot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        assert pane.finished is not None and not pane.finished.solved
        status = str(pane.query_one("#solver-status", Static).render())
        assert "⚠" in status and "cut off at the token limit" in status
        assert "reply cut" in status
        pane.show_details(next(iter(pane.nodes)))
        await pilot.pause(0.1)
        details = "\n".join(line.text for line in pane.query_one("#details", RichLog).lines)
        assert "reply 1 (cut off at the token limit)" in details


@pytest.mark.parametrize("fault", ["error_event", "echo_key", "echo_key_reply"])
async def test_the_solver_pane_never_shows_the_key(
    tmp_path: Path, fault: str, toasts: list[Notice]
) -> None:
    with FakeServer() as fake:
        fake.faults.extend([fault] * 2)
        settings = Settings(
            engine="openai", base_url=fake.url, model="fake-model", api_key=CANARY, max_retries=1
        )
        app = make_app(settings, store_path=tmp_path / "r.sqlite3")
        app.method_name = "io"
        async with app.run_test(size=(120, 40)) as pilot:
            screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
            await app.push_screen(screen)
            pane = screen.query_one(SolverPane)
            await pilot.press("s")
            await wait_for(pilot, lambda: pane.finished is not None)
            assert pane.finished is not None
            for node in list(pane.nodes):
                pane.show_details(node)
            await pilot.pause(0.1)
            shown = [str(pane.query_one("#solver-status", Static).render())]
            shown += [line.text for log in pane.query(RichLog) for line in log.lines]
            shown.append(app.export_screenshot())
            shown += [n.message for n in toasts]
    assert fake.chat_requests[0].headers["authorization"] == f"Bearer {CANARY}"
    assert leaks("\n".join(shown)) == []
