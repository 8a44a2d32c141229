"""``ponder bench ... --ray``: every run a Ray task on a local Ray of two CPUs, its results in
the same file and table as a bench in one process; an interrupted Ray bench resumed without
making a finished run again; a worker that dies retried and its run written once; the API key
never in Ray's logs; and without Ray, a usage error that says how to get it.

One Ray is started for the whole module (starting one takes seconds); the command line finds
it running and uses it. Its logs go to a folder of the test's own, which the key test reads.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import solver.bench_ray
import solver.bench_results
from bench.fakeserver import FakeServer
from solver.bench import PuzzleResult
from solver.bench_ray import RayBench, play, seal, unseal
from solver.bench_results import read_results
from solver.methods import Method
from tui.cli import main
from tui.exitcodes import ExitCode

HANDS = "1 2 3 4; 4 7 8 8; 1 1 4 6; 2 3 5 12; 3 3 8 8; 1 5 5 5"
TWELVE = "; ".join(f"{a} {b} 8 8" for a in range(1, 5) for b in range(1, 4))
KEY = "sk-ray-test-0123456789abcdefNEVERLOGGED"
FOLDER_VAR = "BENCH_RAY_TEST_FOLDER"


@pytest.fixture(scope="module")
def ray_logs() -> Iterator[Path]:
    """A local Ray of two CPUs for the module; the folder its logs and sessions go to."""
    ray = pytest.importorskip("ray")
    folder = Path(tempfile.mkdtemp(prefix="ray"))  # short: Ray's socket paths must fit
    os.environ[FOLDER_VAR] = str(folder)  # Ray's workers start with this environment
    ray.init(
        num_cpus=2,
        _temp_dir=str(folder),
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
        object_store_memory=80 * 1024 * 1024,
    )
    try:
        yield folder
    finally:
        ray.shutdown()
        os.environ.pop(FOLDER_VAR, None)
        shutil.rmtree(folder, ignore_errors=True)


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["bench", "24", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def runs(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """A results file's runs by method and place, without their wall times (the only thing
    two runs of the same seeds may differ in)."""
    out = {}
    for record in read_results(path).records:
        data = record.to_json()
        data.pop("wall_time")
        out[record.method, record.index] = data
    return out


def without_times(report: dict[str, Any]) -> dict[str, Any]:
    drop = ("wall_time", "mean_wall_time")
    results = [{k: v for k, v in r.items() if k not in drop} for r in report["results"]]
    return {**report, "results": results}


# These run in Ray's workers, which find them by this module's name.
def counted_play(
    bench: RayBench, method: Method, puzzle: Any, index: int, pad: bytes
) -> PuzzleResult:
    """:func:`play`, first writing the run's place to ``played.txt`` in the Ray folder, with
    the bench's pad (a new one each bench that has a key: it tells two benches apart)."""
    with (Path(os.environ[FOLDER_VAR]) / "played.txt").open("a") as log:
        log.write(f"{pad.hex() or '-'} {index}\n")
    return play(bench, method, puzzle, index, pad)


def dies_once_play(
    bench: RayBench, method: Method, puzzle: Any, index: int, pad: bytes
) -> PuzzleResult:
    """The worker of puzzle 0's first try dies outright (as a killed process does)."""
    marker = Path(os.environ[FOLDER_VAR]) / "died"
    if index == 0 and not marker.exists():
        marker.write_text("died")
        os._exit(1)
    return counted_play(bench, method, puzzle, index, pad)


def played(folder: Path) -> list[tuple[str, int]]:
    """(pad, place) of every run :func:`counted_play` began, in order."""
    path = folder / "played.txt"
    if not path.exists():
        return []
    return [(pad, int(i)) for pad, i in (line.split() for line in path.read_text().splitlines())]


# ------------------------------------------------------------------ the same results


def test_a_ray_bench_gives_the_local_one_run_for_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, ray_logs: Path
) -> None:
    common = ["--hands", HANDS, "--method", "cot,bot", "--iterations", "2", "--trees", "2",
              "--seed", "7", "--json"]  # fmt: skip
    code, local_out, _ = bench(capsys, *common, "--results", str(tmp_path / "local.jsonl"))
    assert code == ExitCode.OK
    code, ray_out, err = bench(capsys, *common, "--ray", "--results", str(tmp_path / "ray.jsonl"))
    assert code == ExitCode.OK and err == ""
    local, on_ray = runs(tmp_path / "local.jsonl"), runs(tmp_path / "ray.jsonl")
    assert len(on_ray) == 12 and on_ray == local
    assert without_times(json.loads(ray_out)) == without_times(json.loads(local_out))
    # The file is the local bench's: a rerun on Ray reads it and reports the same table.
    code, report, _ = bench(capsys, *common, "--ray", "--results", str(tmp_path / "ray.jsonl"))
    assert code == ExitCode.OK and without_times(json.loads(report)) == without_times(
        json.loads(local_out)
    )


def test_a_ray_bench_without_a_file_gives_the_local_table(
    capsys: pytest.CaptureFixture[str], ray_logs: Path
) -> None:
    common = ["--hands", HANDS, "--method", "bot", "--iterations", "2", "--trees", "2",
              "--shard", "2/3", "--json"]  # fmt: skip
    _, local, _ = bench(capsys, *common)
    code, on_ray, _ = bench(capsys, *common, "--ray")
    assert code == ExitCode.OK
    assert without_times(json.loads(on_ray)) == without_times(json.loads(local))
    assert json.loads(on_ray)["results"][0]["puzzles"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["crossword", "--generated", "2", "--method", "cot"],  # each a Mini: a row's puzzle
        ["wordproblem", "--generated", "2", "--method", "cot,react"],  # with its tool limit
    ],
)
def test_other_kinds_play_on_ray_as_on_the_command_line(
    capsys: pytest.CaptureFixture[str], ray_logs: Path, argv: list[str]
) -> None:
    local = main(["bench", *argv, "--json"])
    out, _ = capsys.readouterr()
    assert local == ExitCode.OK or local == ExitCode.NOT_SOLVED
    code = main(["bench", *argv, "--json", "--ray"])
    on_ray, err = capsys.readouterr()
    assert code == local and "Traceback" not in err
    assert without_times(json.loads(on_ray)) == without_times(json.loads(out))


# ------------------------------------------------------------------ interrupted, resumed


def test_an_interrupted_ray_bench_resumes_without_making_a_finished_run_again(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ray_logs: Path,
) -> None:
    results = tmp_path / "r.jsonl"
    monkeypatch.setattr(solver.bench_ray, "play", counted_play)
    real_write = solver.bench_results.ResultsFile.write
    written: list[int] = []

    def write_then_ctrl_c(self: solver.bench_results.ResultsFile, record: Any) -> None:
        real_write(self, record)
        written.append(record.index)
        if len(written) == 3:
            raise KeyboardInterrupt  # Ctrl-C, as the driver takes the third result

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer(latency=0.2) as server:  # two runs at a time, 0.2 s each
        argv = ["--hands", TWELVE, "--method", "cot", "--json", "--ray", "--results",
                str(results), "--engine", "openai", "--model", "fake-model", "--no-cache",
                "--base-url", server.url]  # fmt: skip
        monkeypatch.setattr(solver.bench_results.ResultsFile, "write", write_then_ctrl_c)
        code, out, err = bench(capsys, *argv)
        assert code == ExitCode.INTERRUPTED and "stopped" in err and out == ""
        kept = sorted(i for _, i in runs(results))
        # Kept: every run that came back before the driver stopped, and no other.
        assert kept == sorted(written) and 3 <= len(kept) < 12
        first = {pad for pad, _ in played(ray_logs)}
        monkeypatch.setattr(solver.bench_results.ResultsFile, "write", real_write)
        code, out, _ = bench(capsys, *argv)
    assert code == ExitCode.OK and json.loads(out)["results"][0]["puzzles"] == 12
    again = sorted(i for pad, i in played(ray_logs) if pad not in first)
    assert again == sorted(set(range(12)) - set(kept))  # each missing run, once
    assert sorted(i for _, i in runs(results)) == list(range(12))
    assert read_results(results).duplicates == 0


def test_a_worker_that_dies_is_retried_and_its_run_written_once(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ray_logs: Path,
) -> None:
    results = tmp_path / "r.jsonl"
    (ray_logs / "played.txt").unlink(missing_ok=True)
    monkeypatch.setattr(solver.bench_ray, "play", dies_once_play)
    argv = ["--hands", HANDS, "--method", "cot", "--json", "--ray", "--results", str(results)]
    code, _, _ = bench(capsys, *argv)
    assert code == ExitCode.OK and (ray_logs / "died").exists()
    # Puzzle 0's first try died before it was counted; its retry played it.
    assert sorted(i for _, i in played(ray_logs)) == list(range(6))
    lines = [json.loads(line) for line in results.read_text().splitlines()[1:]]
    assert sorted(line["index"] for line in lines) == list(range(6))


def dies_on_0_play(
    bench: RayBench, method: Method, puzzle: Any, index: int, pad: bytes
) -> PuzzleResult:
    """The worker of puzzle 0 dies, every try."""
    if index == 0:
        os._exit(1)
    return play(bench, method, puzzle, index, pad)


def test_a_run_whose_worker_dies_every_try_is_named_and_made_by_the_rerun(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ray_logs: Path,
) -> None:
    results = tmp_path / "r.jsonl"
    monkeypatch.setattr(solver.bench_ray, "RETRIES", 0)  # one death is all its tries
    monkeypatch.setattr(solver.bench_ray, "play", dies_on_0_play)
    argv = ["--hands", HANDS, "--method", "cot", "--json", "--ray", "--results", str(results)]
    code, _, err = bench(capsys, *argv)
    assert code == ExitCode.SERVER_FAILED
    assert "cot on puzzle 0 was lost on Ray" in err and "1 run was lost" in err
    assert sorted(i for _, i in runs(results)) == [1, 2, 3, 4, 5]
    monkeypatch.setattr(solver.bench_ray, "play", play)
    code, out, _ = bench(capsys, *argv)
    assert code == ExitCode.OK and json.loads(out)["results"][0]["puzzles"] == 6


# ------------------------------------------------------------------ the key


def test_the_key_reaches_the_tasks_and_never_rays_logs(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ray_logs: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeServer(api_key=KEY) as server:  # a call without the key gets 401
        code, out, err = bench(capsys, "--hands", HANDS, "--method", "cot", "--json",
                               "--engine", "openai", "--model", "fake-model", "--no-cache",
                               "--base-url", server.url, "--ray")  # fmt: skip
        assert code == ExitCode.OK, err
        assert len(server.chat_requests) == 6
        assert json.loads(out)["results"][0]["errors"] == 0
    leaks = [path for path in ray_logs.rglob("*") if path.is_file() and _holds(path, KEY)]
    assert leaks == []
    # It did travel through the runtime environment, sealed (which Ray logs).
    assert any(_holds(path, solver.bench_ray.SEALED_VAR) for path in ray_logs.rglob("*.log"))


def _holds(path: Path, text: str) -> bool:
    try:
        return text.encode() in path.read_bytes()
    except OSError:  # a socket, or a file Ray removed meanwhile
        return False


def test_sealed_secrets_open_only_with_their_pad() -> None:
    secret = {"api_key": KEY, "base_url": "http://me:pw@host/v1"}
    sealed, pad = seal(secret)
    assert KEY not in sealed and KEY.encode() not in pad
    assert KEY.encode().hex() not in sealed
    assert unseal(sealed, pad) == secret
    with pytest.raises(ValueError):
        unseal(sealed, pad[:-1])


# ------------------------------------------------------------------ refused


def test_without_ray_installed_ray_says_how_to_get_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as when not installed
    code, out, err = bench(capsys, "--hands", HANDS, "--method", "cot", "--ray")
    assert code == ExitCode.USAGE and out == ""
    assert "pip install 'ponder[ray]'" in err and "pip install -e '.[ray]'" in err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--jobs", "4"], "--jobs"),
        (["--method", "bot", "--library"], "--library"),
        (["--record", "calls.jsonl"], "--record"),
    ],
)
def test_what_one_machine_must_do_alone_is_refused_with_ray(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    named: str,
) -> None:
    pytest.importorskip("ray")
    monkeypatch.chdir(tmp_path)
    code, out, err = bench(capsys, "--hands", HANDS, "--method", "cot", *flags, "--ray")
    assert code == ExitCode.USAGE and out == ""
    assert named in err and "--ray" in err
