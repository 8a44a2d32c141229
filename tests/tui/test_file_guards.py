"""Every file ponder reads goes through one guard: hostile config files, traces, crossword and
hand files end with a clear message and exit code 2 — never a traceback, a hang or a crash.

Cases that could hang (a FIFO, ``/dev/zero``) run ``ponder`` in a child process with a time
limit and a memory limit, so a regression fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from puzzles.crossword import generate
from puzzles.crossword.loaders import MAX_PUZZLES, to_ipuz
from solver.trace import MAX_TRACE_LINE
from tui.cli import main

HEADER = {"type": "trace", "version": 1, "method": "bot", "puzzle": "4 7 8 8", "target": 24}
SOLVE = ["solve", "24", "4 7 8 8", "--method", "io"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_child(
    *argv: str, timeout: float = 20, fsize: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``ponder ARGV`` in a child process, killed after ``timeout`` seconds, with at most
    2 GB of memory (and files of at most ``fsize`` bytes)."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails instead
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    code = "import sys; from tui.cli import main; raise SystemExit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limits,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )


def assert_clear(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert err.startswith("ponder: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


# --- the config file -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", ["nested too deeply"]),
        (b'model = "caf\xe9"\n', ["not UTF-8", "line 1"]),
        (b"concurrency = " + b"9" * 5000 + b"\n", ["more than 100 digits"]),
        (b'model = "' + b"m" * (2 * 1024 * 1024) + b'"\n', ["too large"]),
    ],
    ids=["deep", "latin-1", "5000-digits", "huge"],
)
def test_bad_config_files(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    content: bytes,
    words: list[str],
) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    monkeypatch.setenv("PONDER_CONFIG", str(path))
    code, _, err = run(capsys, *SOLVE)
    assert_clear(code, err, str(path), *words)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_config_that_is_a_pipe_or_a_device(
    monkeypatch: pytest.MonkeyPatch, fifo: Path, kind: str
) -> None:
    path = str(fifo) if kind == "fifo" else "/dev/zero"
    monkeypatch.setenv("PONDER_CONFIG", path)
    done = run_child(*SOLVE)
    assert_clear(done.returncode, done.stderr, path, "not a regular file")


# --- traces ----------------------------------------------------------------------------------


def trace_file(tmp_path: Path, *lines: str | bytes) -> Path:
    path = tmp_path / "trace.jsonl"
    with path.open("wb") as handle:
        handle.write(json.dumps(HEADER).encode() + b"\n")
        for line in lines:
            handle.write((line.encode() if isinstance(line, str) else line) + b"\n")
    return path


@pytest.mark.parametrize("mode", ["--print", "--json"])
@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            '{"type": "ThoughtScored", "t": 0.1, "node_id": "n1", "score": ' + "9" * 401 + "}",
            ["line 2", "more than 100 digits"],
        ),
        ("[" * 100_000 + "]" * 100_000, ["line 2", "nested too deeply"]),
        ('{"type": "ThoughtScored", "t": 1e400, "node_id": "n1", "score": 1}', ["line 2"]),
        ('{"type": "ThoughtScored", "t": NaN, "node_id": "n1", "score": 1}', ["line 2"]),
        (
            '{"type": "ThoughtAdded", "t": 0.1, "tree_id": "t", "node_id": "n", '
            '"parent_id": null, "text": "' + "a" * MAX_TRACE_LINE + '"}',
            ["line 2", "longer than"],
        ),
    ],
    ids=["401-digits", "deep", "overflowing-float", "nan", "long-line"],
)
def test_bad_traces(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: str, line: str, words: list[str]
) -> None:
    path = trace_file(tmp_path, line)
    code, _, err = run(capsys, "replay", mode, str(path))
    assert_clear(code, err, str(path), *words)


def test_a_deep_trace_header(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", "--print", str(path))
    assert_clear(code, err, "line 1", "not a ponder trace")


def test_a_50_mb_line_is_refused_at_once(tmp_path: Path) -> None:
    path = trace_file(tmp_path, b'{"type": "ThoughtAdded", "text": "' + b"a" * 50_000_000 + b'"}')
    done = run_child("replay", "--print", "-v", str(path), timeout=10)
    assert_clear(done.returncode, done.stderr, "line 2", "longer than")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("mode", [["--print"], []])
def test_trace_that_is_a_pipe_or_a_device(fifo: Path, kind: str, mode: list[str]) -> None:
    path = str(fifo) if kind == "fifo" else "/dev/zero"
    done = run_child("replay", *mode, path)
    assert_clear(done.returncode, done.stderr, path, "not a regular file")


# --- writing a trace -------------------------------------------------------------------------


def test_a_trace_that_cannot_be_written_stops_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *SOLVE, "--trace", "/dev/full")
    assert_clear(code, err, "cannot write trace /dev/full", "No space left", "stopped")


def test_a_trace_into_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = run_child("solve", "24", "4 7 8 8", "--method", "io", "--trace", str(fifo))
    assert_clear(done.returncode, done.stderr, "cannot write trace", "named pipe")


def test_a_disk_that_fills_mid_run_stops_it_at_that_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    done = run_child(
        "solve", "24", "4 7 8 8", "--method", "bot", "--trace", str(path), fsize=20_000
    )
    assert_clear(done.returncode, done.stderr, f"cannot write trace {path}", "stopped")
    assert 0 < path.stat().st_size <= 20_000
    assert "iteration 1" in done.stdout and "solved" not in done.stdout  # stopped early


# --- crossword files -------------------------------------------------------------------------


def test_a_5000_digit_enumeration(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = to_ipuz(generate(1))
    number, text = doc["clues"]["Across"][0]
    doc["clues"]["Across"][0] = {"number": number, "clue": text, "enumeration": "9" * 5000}
    path = tmp_path / "long.ipuz"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run(capsys, "puzzles", "crossword", "--load", str(path), "--check")
    assert_clear(code, err, str(path), "enumeration", "not word lengths")


def test_too_many_crosswords_in_one_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mini = [["a"] * 10, "ASSETSCALEPAGESERECTNESTS"]
    path = tmp_path / "many.json"
    path.write_text(json.dumps([mini] * (MAX_PUZZLES + 1)), encoding="utf-8")
    code, _, err = run(capsys, "puzzles", "crossword", "--load", str(path), "--check")
    assert_clear(code, err, str(path), f"at most {MAX_PUZZLES:,}")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_puzzle_files_that_are_a_pipe_or_a_device(fifo: Path, kind: str) -> None:
    path = str(fifo) if kind == "fifo" else "/dev/zero"
    done = run_child("puzzles", "crossword", "--load", path, "--check")
    assert_clear(done.returncode, done.stderr, path, "not a regular file")
    done = run_child("bench", "24", "--file", path)
    assert_clear(done.returncode, done.stderr, path, "not a regular file")
