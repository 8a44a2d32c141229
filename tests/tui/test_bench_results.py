"""``ponder bench --results FILE``, ``--shard I/N``, ``ponder bench report FILE...`` and the
plots under the table: runs written as they finish, skipped when rerun, refused from another
setup, hostile files refused clearly, shards merged into the unsharded table."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import solver.factory
from bench.fakeserver import FakeServer
from solver.bench import BenchResult, PuzzleResult
from solver.bench_results import Record, ResultsError, ResultsFile, combine, read_results
from solver.model import Model
from solver.model.base import Call, Generation, TokenCallback
from tests.tui.processes import start
from tui.cli import main
from tui.cli.plots import MARKERS, bench_plots
from tui.exitcodes import ExitCode

HANDS = "1 2 3 4; 4 7 8 8; 1 1 4 6; 2 3 5 12; 3 3 8 8; 1 5 5 5"
SIX = 6


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    """``ponder bench 24 ... --json``: the exit code and the parsed output."""
    code, out, err = run(capsys, "bench", "24", "--hands", HANDS, "--json", *argv)
    assert "Traceback" not in err
    return code, json.loads(out) if out else None


def without_times(data: Any) -> Any:
    """Results as JSON without their wall times (the only thing that differs between two
    runs of the same seeds)."""
    return {
        **data,
        "results": [
            {k: v for k, v in r.items() if k not in ("wall_time", "mean_wall_time")}
            for r in data["results"]
        ],
    }


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The purpose of every model call the benchmarks make, in order."""
    made: list[str] = []
    real = solver.factory.make_model

    class Counting:
        def __init__(self, inner: Model) -> None:
            self.inner = inner
            self.name = inner.name

        async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
            made.append(call.purpose)
            return await self.inner.generate(call, on_token)

        async def aclose(self) -> None:
            await self.inner.aclose()

    def counting(*args: Any, **kwargs: Any) -> Model:
        return Counting(real(*args, **kwargs))

    monkeypatch.setattr(solver.factory, "make_model", counting)
    return made


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------ resuming


def test_a_rerun_makes_only_the_runs_the_file_lacks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, calls: list[str]
) -> None:
    results = tmp_path / "r.jsonl"
    # The first session runs half the set (as if stopped halfway).
    code, first = bench(capsys, "--method", "cot,tot", "--shard", "1/2", "--results", str(results))
    assert code == 0
    first_calls = len(calls)
    assert first_calls > 0 and [r["puzzles"] for r in first["results"]] == [3, 3]
    header, *records = lines(results)
    assert header["type"] == "ponder-bench-results" and header["setup"]["kind"] == "game24"
    assert sorted((r["method"], r["index"]) for r in records) == [
        (m, i) for m in ("cot", "tot") for i in (0, 2, 4)
    ]
    # The second makes only the other half, and its table covers all six hands.
    calls.clear()
    code, second = bench(capsys, "--method", "cot,tot", "--results", str(results))
    assert code == 0 and second["hands"] == SIX
    assert [r["puzzles"] for r in second["results"]] == [SIX, SIX]
    missing = len(calls)
    calls.clear()
    code, whole = bench(capsys, "--method", "cot,tot")
    assert 0 < missing < len(calls) and first_calls + missing == len(calls)
    assert without_times(second) == without_times(whole)  # the same seeds, hand by hand
    # A third makes none.
    calls.clear()
    code, third = bench(capsys, "--method", "cot,tot", "--results", str(results))
    assert calls == [] and without_times(third) == without_times(second)
    assert len(lines(results)) == 1 + 2 * SIX


def test_another_config_is_another_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, calls: list[str]
) -> None:
    results = str(tmp_path / "r.jsonl")
    bench(capsys, "--method", "cot", "--results", results)
    calls.clear()
    _, data = bench(capsys, "--method", "cot", "--temperature", "0.2", "--results", results)
    assert len(calls) == SIX and [r["puzzles"] for r in data["results"]] == [SIX, SIX]
    assert [r["config"]["temperature"] for r in data["results"]] == [0.7, 0.2]


def test_the_table_covers_every_run_in_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = str(tmp_path / "r.jsonl")
    assert main(["bench", "24", "--hands", HANDS, "--method", "io", "--results", results]) == 0
    code, out, _ = run(
        capsys, "bench", "24", "--hands", HANDS, "--method", "cot", "--results", results
    )
    assert code == 0 and "6 hands" in out
    assert any(line.startswith("io ") for line in out.splitlines())
    assert any(line.startswith("cot ") for line in out.splitlines())


@pytest.mark.parametrize(
    ("change", "differs"),
    [
        (["--seed", "5"], "seed"),
        (["--deadline", "30"], "deadline"),
        (["--engine", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], "engine"),
    ],
)
def test_a_file_of_another_setup_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: list[str], differs: str
) -> None:
    results = tmp_path / "r.jsonl"
    bench(capsys, "--method", "io", "--results", str(results))
    before = results.read_bytes()
    code, out, err = run(
        capsys,
        "bench",
        "24",
        "--hands",
        HANDS,
        "--method",
        "io",
        "--results",
        str(results),
        *change,
    )
    assert code == ExitCode.USAGE and out == ""
    assert "another setup" in err and differs in err and "Traceback" not in err
    assert results.read_bytes() == before


def test_a_line_cut_off_by_a_kill_is_run_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, calls: list[str]
) -> None:
    results = tmp_path / "r.jsonl"
    bench(capsys, "--method", "cot", "--results", str(results))
    text = results.read_text()
    results.write_text(text[: len(text) - 40])  # the last record, half written
    calls.clear()
    code, out, err = run(
        capsys, "bench", "24", "--hands", HANDS, "--method", "cot", "--results", str(results)
    )
    assert code == 0 and "cut off" in err and len(calls) == 1 and "6 hands" in out
    assert len(read_results(results).records) == SIX  # and the file reads cleanly again


def test_ctrl_c_keeps_every_finished_run_and_the_rerun_makes_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real process, a real SIGINT, against a server that takes a while to answer."""
    results = tmp_path / "r.jsonl"
    hands = "; ".join(f"{a} {b} 8 8" for a in range(1, 5) for b in range(1, 6))  # 20 hands
    model = ["--engine", "openai", "--model", "fake-model", "--no-cache", "--method", "cot"]
    with FakeServer(latency=0.3) as server:
        argv = ["bench", "24", "--hands", hands, *model, "--base-url", server.url]
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        process = start(*argv, "--results", str(results), env=env)
        try:
            end = time.monotonic() + 60
            while time.monotonic() < end and (
                not results.exists() or results.read_text().count("\n") < 4
            ):
                time.sleep(0.05)
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=30) == ExitCode.INTERRUPTED
        finally:
            process.kill()
            process.wait()
        kept = len(read_results(results).records)
        assert 3 <= kept < 20
        server.latency = 0.0
        server.reset()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, out, _ = run(capsys, *argv, "--results", str(results), "--json")
        assert code == 0 and json.loads(out)["results"][0]["puzzles"] == 20
        assert len(server.chat_requests) == 20 - kept


# ------------------------------------------------------------------ shards and report


def test_shards_merge_into_the_unsharded_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = []
    for i in (1, 2, 3):
        path = str(tmp_path / f"shard{i}.jsonl")
        code, data = bench(capsys, "--method", "cot,bot", "--iterations", "2", "--trees", "2",
                           "--shard", f"{i}/3", "--results", path)  # fmt: skip
        assert code == 0 and [r["puzzles"] for r in data["results"]] == [2, 2]
        files.append(path)
    code, whole = bench(capsys, "--method", "cot,bot", "--iterations", "2", "--trees", "2")
    code, out, err = run(capsys, "bench", "report", *files, "--json")
    assert code == 0 and err == ""
    assert without_times(json.loads(out)) == without_times(whole)
    # A shard given twice is counted once, and said so.
    code, out, err = run(capsys, "bench", "report", *files, files[0], "--json")
    assert without_times(json.loads(out)) == without_times(whole) and "counted once" in err
    code, out, _ = run(capsys, "bench", "report", *files)
    assert code == 0 and "6 hands" in out and "bot" in out


def test_report_refuses_files_of_different_setups(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    bench(capsys, "--method", "io", "--results", a)
    bench(capsys, "--method", "io", "--results", b, "--seed", "3")
    code, _, err = run(capsys, "bench", "report", a, b)
    assert code == ExitCode.USAGE and "different setups" in err and "seed" in err


@pytest.mark.parametrize("shard", ["3/2", "0/2", "1/0", "2", "a/b", "1/2/3", "-1/2"])
def test_a_bad_shard_is_a_usage_error(capsys: pytest.CaptureFixture[str], shard: str) -> None:
    code, out, err = run(capsys, "bench", "24", "--hands", HANDS, f"--shard={shard}")
    assert code == ExitCode.USAGE and "--shard" in err and "Traceback" not in err and out == ""


def test_a_shard_runs_every_nth_hand(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    bench(capsys, "--method", "io", "--shard", "2/4", "--results", str(path))
    assert [(r["index"], r["hand"]) for r in lines(path)[1:]] == [(1, "4 7 8 8"), (5, "1 5 5 5")]


# ------------------------------------------------------------------ hostile files

HEADER = json.dumps(
    {
        "type": "ponder-bench-results",
        "version": 1,
        "setup": {
            "kind": "game24",
            "engine": "offline engine",
            "guide_model": None,
            "seed": 0,
            "deadline": None,
        },
    }
)
GOOD = {
    "type": "result",
    "method": "io",
    "config": {"temperature": 0.7, "max_tokens": 1000},
    "index": 0,
    "hand": "1 2 3 4",
    "solved": True,
    "answer": "1 * 2 * 3 * 4",
    "calls": 1,
    "tokens": 80,
    "cost": 0.0,
    "wall_time": 0.01,
    "rounds": 1,
}


def _with(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


def _file(*records: str) -> bytes:
    """A results file: the header, then ``records``, one a line."""
    return "\n".join([HEADER, *records, ""]).encode()


DEEP = json.loads("[" * 40 + "]" * 40)
HOSTILE: dict[str, tuple[bytes | None, str]] = {
    # case: (the file's bytes, or None for a directory; what the message says)
    "garbage": (_file("not json at all", _with()), "line 2"),
    "no header": (_with().encode() + b"\n", "not a ponder results file"),
    "other file": (b"id,hand\n1,1 2 3 4\n", "not a ponder results file"),
    "version": (_file().replace(b'"version": 1', b'"version": 9'), "version 9"),
    "huge line": (_file(_with(answer="9" * 400_000)), "longer than"),
    "calls text": (_file(_with(calls="1")), "'calls'"),
    "calls bool": (_file(_with(calls=True)), "'calls'"),
    "negative": (_file(_with(tokens=-5)), "'tokens'"),
    "solved": (_file(_with(solved="yes")), "'solved'"),
    "missing": (_file(json.dumps({"type": "result", "method": "io"}), _with()), "line 2"),
    "list": (_file("[1, 2]", _with()), "not a result"),
    "iterations": (_file(_with(solved_by_iteration=[1, 0])), "'solved_by_iteration'"),
    "unknown method": (_file(_with(method="[red]evil\x1b[2J")), "no method ponder knows"),
    "deep": (_file(_with(config=DEEP)), "nested too deeply"),
    "long number": (_file(_with().replace('"tokens": 80', '"tokens": ' + "9" * 500)), "digits"),
    "nan": (_file(_with().replace("0.01", "NaN")), "NaN"),
    "binary": (b"\x00\x01\xff" * 100, "line 1"),
    "latin-1": (HEADER.encode() + b"\n\xe9\xe9\n", "UTF-8"),
    "directory": (None, "directory"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("command", ["results", "report"])
def test_a_hostile_results_file_is_a_clear_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, command: str
) -> None:
    path = tmp_path / "r.jsonl"
    content, message = HOSTILE[case]
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    if command == "report":
        argv = ["bench", "report", str(path)]
    else:
        argv = ["bench", "24", "--hands", HANDS, "--method", "io", "--results", str(path)]
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.USAGE and out == ""
    assert message in err and "Traceback" not in err
    assert "\x1b" not in err  # a file's text is shown, never obeyed


def test_a_pipe_or_device_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "bench", "report", "/dev/zero")
    assert code == ExitCode.USAGE and "not a regular file" in err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "bench", "24", "--hands", HANDS, "--results", str(fifo))
    assert code == ExitCode.USAGE and "not a regular file" in err


def test_an_unwritable_results_file_is_a_clear_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "bench", "24", "--hands", HANDS, "--results", str(tmp_path / "no" / "r.jsonl")
    )
    assert code == ExitCode.USAGE and "cannot write results" in err and "Traceback" not in err


def test_records_read_back_as_written(tmp_path: Path) -> None:
    result = PuzzleResult(
        "4 7 8 8", True, "(8-4)*(7-8+8)", 12, 900, None, 1.5, 3,
        solved_by_iteration=(False, True), stopped_at=2, stopped_by="guide",
    )  # fmt: skip
    setup = {"kind": "game24", "engine": "offline engine"}
    with ResultsFile(tmp_path / "r.jsonl", setup) as file:
        file.write(Record("bot", {"trees": (1, 2)}, 7, result))
        assert file.holds(Record.key_for("bot", {"trees": [1, 2]}, 7, "4 7 8 8"))
    (record,) = read_results(tmp_path / "r.jsonl").records
    assert record.result == result and record.index == 7 and record.config == {"trees": [1, 2]}
    (combined,) = combine([record])
    assert isinstance(combined, BenchResult) and combined.cumulative_by_iteration() == [0.0, 1.0]
    with pytest.raises(ResultsError, match="another setup"):
        ResultsFile(tmp_path / "r.jsonl", {**setup, "engine": "x"}).__enter__()


# ------------------------------------------------------------------ plots


def _bot(curve: list[tuple[bool, ...]], calls: int) -> BenchResult:
    puzzles = [
        PuzzleResult("1 2 3 4", any(c), None, calls, 10, None, 0.1, len(c), solved_by_iteration=c)
        for c in curve
    ]
    return BenchResult("bot", {}, puzzles)


def _flat(name: str, solved: int, n: int, calls: int) -> BenchResult:
    return BenchResult(
        name,
        {},
        [PuzzleResult("1 2 3 4", i < solved, None, calls, 10, None, 0.1, 1) for i in range(n)],
    )


@pytest.mark.parametrize("width", [40, 80, 120, 300])
def test_plots_fit_the_terminal(width: int) -> None:
    results = [
        _flat("io", 1, 4, 1),
        _flat("cot", 2, 4, 1),
        _bot([(False, True), (True, True), (False, False), (False, False)], 300),
    ]
    text = bench_plots(results, width=width, color=False)
    assert "solved by iteration" in text and "success against calls" in text
    assert max(len(line) for line in text.splitlines()) <= min(max(width, 40), 100)
    assert "\x1b" not in text
    assert "bot 50% at 300.0 calls" in text and "cot 50% at 1.0 calls" in text
    # Calls from 1 to 300 are spread on a log scale, said under the axis, and the range
    # holds every point: each method's marker is drawn in the plot, not only in its legend.
    second = text[text.index("success against calls") :]
    assert "mean calls per hand (log scale)" in [line.strip() for line in second.splitlines()]
    box = second[second.index("┌") : second.index("└")]
    assert all(marker in box for marker in MARKERS[:3])
    # Only methods with rounds get a curve; without one there is only the second plot.
    only_flat = bench_plots(results[:2], width=width, color=False)
    assert "by iteration" not in only_flat and "success against calls" in only_flat


def test_plots_are_coloured_only_for_a_terminal() -> None:
    results = [_bot([(False, True)], 30), _flat("io", 1, 1, 1)]
    assert "\x1b[" in bench_plots(results, width=80, color=True)
    assert bench_plots([], width=80, color=False) == ""


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLUMNS", "80")
    yield


@pytest.mark.usefixtures("columns")
@pytest.mark.parametrize(
    ("flags", "plotted"),
    [([], False), (["--plot"], True), (["--no-plot"], False), (["--plot", "--json"], False)],
)
def test_plots_under_the_table(
    capsys: pytest.CaptureFixture[str], flags: list[str], plotted: bool
) -> None:
    argv = ["bench", "24", "--hands", HANDS, "--method", "io,bot", "--iterations", "2"]
    code, out, _ = run(capsys, *argv, "--trees", "2", *flags)
    assert code == 0 and ("success against calls" in out) == plotted
    if "--json" in flags:
        json.loads(out)  # unchanged: JSON only
    if plotted:
        assert "solved by iteration" in out
        assert max(len(line) for line in out.splitlines()) <= 80


def test_plot_and_no_plot_together_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "24", "--hands", HANDS, "--plot", "--no-plot")
    assert code == ExitCode.USAGE and "not allowed with" in err
