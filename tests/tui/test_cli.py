"""The command line: exit codes, readable and JSON output, traces, benchmarks, bad input."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

import solver.methods
from bench import llm_replies
from bench.fakeserver import FakeServer
from solver.methods import Method, MethodSpec, make_method
from solver.methods.spec import option
from solver.roles import Role
from tui.cli import main
from tui.kinds import find_kind


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_a_readable_run_and_exits_0_when_solved(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "solve", "24", "1 2 3 4", "--method", "cot", "--seed", "1")
    assert code == 0
    assert "✓ solved" in out and "answer:" in out and "calls 1" in out


def test_solve_exits_1_when_not_solved(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "solve", "24", "1 1 1 1", "--method", "io")
    assert code == 1 and "✗ not solved" in out


def test_solve_json_ends_with_the_finish_event(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys,
        "solve",
        "24",
        "4 7 8 8",
        "--method",
        "bot",
        "--iterations",
        "2",
        "--trees",
        "3",
        "--seed",
        "1",
        "--json",
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["type"] == "RunStarted"
    last = lines[-1]
    assert last["type"] == "RunFinished"
    for key in (
        "answer",
        "solved",
        "verdict",
        "calls",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "wall_time",
    ):
        assert key in last
    assert code == (0 if last["solved"] else 1)


def test_solve_writes_a_trace_that_replays(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    trace = tmp_path / "t.jsonl"
    code, out, _ = run(capsys, "solve", "24", "1 2 3 4", "--method", "tot", "--trace", str(trace))
    assert trace.exists()
    code2, out2, _ = run(capsys, "replay", str(trace), "--print")
    assert code2 == code
    assert out2.splitlines()[-1] == out.splitlines()[-1].replace(
        out.splitlines()[-1].split("·")[-2], out2.splitlines()[-1].split("·")[-2]
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "24", "4 7 x 8"], "'x' is not a number"),
        (["solve", "24", "4 7 8 99999999999"], "too large"),
        (["solve", "24", ""], "needs numbers"),
        (["solve", "24", "4 7 8 8", "--method", "magic"], "unknown method"),
        (["solve", "chess", "4 7 8 8"], "unknown puzzle kind"),
        (["solve", "24", "4 7 8 8", "--trees", "0", "--method", "bot"], "between 1 and"),
        (["solve", "24", "4 7 8 8", "--concurrency", "0"], "at least 1"),
        (["replay", "/nonexistent/trace.jsonl"], "cannot read trace"),
        (["replay", "/nonexistent/trace.jsonl", "--print"], "cannot read trace"),
        (["bench", "24", "--hands", "1 2; 3"], "bad hand"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_unreachable_server_is_a_plain_error(capsys) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, _ = run(
        capsys,
        "solve",
        "24",
        "4 7 8 8",
        "--method",
        "io",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--model",
        "m",
        "--timeout",
        "2",
    )
    assert code == 2
    assert "error (unreachable)" in out and f"127.0.0.1:{port}" in out


@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_bounds_the_requests_in_flight(
    capsys: pytest.CaptureFixture[str], concurrency: int
) -> None:
    # CoT-SC's samples from a server that answers one per request: asked for together, no
    # more at a time than --concurrency says.
    with FakeServer(reply=llm_replies.reply, ignore_n=True, latency=0.4) as server:
        code, _, err = run(
            capsys, "solve", "24", "4 7 8 8", "--method", "cot-sc", "--samples", "5",
            "--base-url", server.url, "--model", "fake-model", "--no-cache",
            "--concurrency", str(concurrency),
        )  # fmt: skip
        assert code in (0, 1), err
        assert len(server.chat_requests) == 5 and server.max_in_flight == concurrency


def test_solve_against_a_server(capsys) -> None:  # type: ignore[no-untyped-def]
    with FakeServer(reply=llm_replies.reply) as server:
        code, out, _ = run(
            capsys,
            "solve",
            "24",
            "2 3 4 8",
            "--method",
            "tot",
            "--base-url",
            server.url,
            "--model",
            "fake-model",
            "--json",
        )
    last = json.loads(out.splitlines()[-1])
    assert last["type"] == "RunFinished" and last["calls"] >= 4
    assert code in (0, 1)


def test_bench_prints_a_table_and_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys, "bench", "24", "--method", "io,cot,tot", "--hands", "1 2 3 4; 4 7 8 8; 1 1 1 1"
    )
    assert code == 0
    for name in ("io", "cot", "tot", "success", "calls", "per puzzle"):
        assert name in out
    code, out, _ = run(
        capsys,
        "bench",
        "24",
        "--method",
        "bot",
        "--iterations",
        "2",
        "--trees",
        "2",
        "--hands",
        "1 2 3 4; 4 7 8 8",
        "--json",
    )
    data = json.loads(out)
    (result,) = data["results"]
    assert result["method"] == "bot" and result["puzzles"] == 2
    assert 0 <= result["success_rate"] <= 1 and len(result["cumulative_by_iteration"]) == 2
    # The table gives the same curves in words: cumulative, and each iteration's chain alone.
    code, out, _ = run(
        capsys, "bench", "24", "--method", "bot", "--iterations", "2", "--trees", "2",
        "--hands", "1 2 3 4; 4 7 8 8",
    )  # fmt: skip
    cumulative = " ".join(
        f"{i}:{v:.0%}" for i, v in enumerate(result["cumulative_by_iteration"], 1)
    )
    alone = " ".join(f"{i}:{v:.0%}" for i, v in enumerate(result["success_by_iteration"], 1))
    assert code == 0 and f"bot cumulative success by iteration: {cumulative}\n" in out
    assert f"bot success of each iteration's chain: {alone}\n" in out


def test_no_command_opens_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    import tui.app

    opened: list[object] = []

    def run_app(replay: object = None) -> int:
        opened.append(replay)
        return 7

    monkeypatch.setattr(tui.app, "run_app", run_app)
    assert main([]) == 7 and opened == [None]


@pytest.mark.parametrize("command", ["solve", "puzzles", "bench"])
@pytest.mark.parametrize("kind", ["24", "crossword", "wordproblem"])
def test_each_kinds_help_says_what_the_command_does_for_it(
    capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, kind, "--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    # The paragraph between the usage and the options: the kind's own description.
    description = " ".join(out.split("\n\n")[1].split())
    assert find_kind(kind).label in description and not description.startswith("options")


def test_help_starts_without_heavy_imports() -> None:
    code = (
        "import sys, tui.cli as c\n"
        "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
        # The method catalogue is read only by the solve and bench parsers that are used.
        "heavy = [m for m in ('openai', 'sympy', 'textual', 'rich', 'solver.methods')\n"
        "         if m in sys.modules]\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
    )
    assert "solve" in result.stdout and result.stdout.strip().endswith("[]")


def test_puzzles_lists_solves_and_picks(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "puzzles", "24", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 1820
    assert sum(r["solvable"] for r in rows) == 1362
    assert all((r["difficulty"] is None) == (not r["solvable"]) for r in rows)
    assert len({r["hand"] for r in rows}) == 1820 and rows[0]["hand"] == "1 1 1 1"
    code, out, _ = run(capsys, "puzzles", "24", "--solve", "4 7 8 8")
    assert code == 0 and all(line.endswith("= 24") for line in out.splitlines())
    code, out, _ = run(capsys, "puzzles", "24", "--solve", "1 1 1 1")
    assert code == 1 and "no solution" in out
    first = run(capsys, "puzzles", "24", "--pick", "--level", "hard", "--seed", "7")[1]
    assert first == run(capsys, "puzzles", "24", "--pick", "--level", "hard", "--seed", "7")[1]
    code, _, err = run(capsys, "puzzles", "24", "--level", "impossible")
    assert code == 2 and "unknown level" in err


def test_bench_loads_tot_csv_with_a_range(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "24.csv"
    rows = ["Rank,Puzzles,AMT (s),Solved rate,1-sigma Mean (s),1-sigma STD (s)"]
    rows += [f"{i},1 2 3 {i % 9 + 1},5.0,90%,4.0,1.0" for i in range(1, 21)]
    csv.write_text("\n".join(rows) + "\n")
    code, out, _ = run(
        capsys, "bench", "24", "--method", "io", "--file", str(csv), "--range", "10:15", "--json"
    )
    assert code == 0 and json.loads(out)["hands"] == 5
    code, _, err = run(capsys, "bench", "24", "--file", str(tmp_path / "none.csv"))
    assert code == 2 and "none.csv" in err


def test_options_for_another_method_are_pointed_out(capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "solve", "24", "1 2 3 4", "--method", "io", "--trees", "3")
    assert code in (0, 1) and "--trees does not apply to io" in err


def test_other_targets_and_hand_sizes(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys, "solve", "24", "1 2 3 4", "--target", "10", "--method", "tot", "--json"
    )
    last = json.loads(out.splitlines()[-1])
    assert last["type"] == "RunFinished" and code == (0 if last["solved"] else 1)
    assert "not 24" not in last["verdict"]


# ------------------------------------------------------------------ generated from the catalogues


@dataclass(frozen=True)
class FakeConfig:
    """A method nobody wrote into the command line."""

    depth: int = option(4, "tree depth", low=1, high=9)
    hunch: bool = option(False, "trust the first idea")


def fake_spec(
    roles: frozenset[str] = frozenset({"io"}),
) -> tuple[MethodSpec, list[FakeConfig]]:
    """A method that plays as IO does, for registering in the catalogue only, and the
    configs it is built with."""
    built: list[FakeConfig] = []

    def build(config: FakeConfig) -> Method:
        built.append(config)
        return make_method("io")

    spec = MethodSpec(
        name="fake",
        label="Fake",
        title="a fake method",
        description="Plays as IO does.",
        build=build,
        config=FakeConfig,
        roles=cast("frozenset[Role]", roles),  # a role may be one no domain has
        paper={"game24": "42%"},
        paper_note="the fake paper",
    )
    return spec, built


def test_a_method_in_the_catalogue_is_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, built = fake_spec()
    monkeypatch.setitem(solver.methods.METHODS, "fake", spec)
    for argv in (["solve", "24", "--help"], ["bench", "24", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = " ".join(capsys.readouterr().out.split())
        assert "--depth N Fake: tree depth (4)" in out
        assert "--hunch, --no-hunch Fake: trust the first idea" in out
        assert "fake" in out.split("--method")[2].split("(")[0]  # the choices in its help
    code, _, err = run(capsys, "solve", "24", "1 2 3 4", "--method", "fake", "--depth", "7")
    assert code in (0, 1) and not err
    assert built[-1] == FakeConfig(depth=7)
    code, _, err = run(capsys, "solve", "24", "1 2 3 4", "--method", "fake", "--depth", "10")
    assert code == 2 and "--depth must be between 1 and 9" in err
    code, _, err = run(capsys, "solve", "24", "1 2 3 4", "--method", "io", "--hunch")
    assert code in (0, 1) and "--hunch does not apply to io" in err
    code, out, _ = run(capsys, "bench", "24", "--method", "fake,io", "--hands", "1 2 3 4")
    assert code == 0 and "42%" in out and "the fake paper" in out


def test_a_method_the_kind_has_no_prompts_for_is_refused_before_any_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec, _ = fake_spec(roles=frozenset({"io", "telepathy"}))
    monkeypatch.setitem(solver.methods.METHODS, "fake", spec)
    trace = tmp_path / "t.jsonl"
    for argv in (
        ["solve", "24", "1 2 3 4", "--method", "fake", "--trace", str(trace)],
        ["bench", "24", "--method", "io,fake", "--hands", "1 2 3 4"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and not out
        assert "Fake does not play Game of 24; the methods that do: bot," in err
        assert "telepathy" not in err  # plain words: no names of prompts or roles
    assert not trace.exists()


def test_kinds_come_from_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "solve", "sudoku", "x")
    assert code == 2 and "unknown puzzle kind 'sudoku'" in err and "'24'" in err
    code, _, err = run(capsys, "bench", "Mini", "--generated", "1", "--method", "tot")
    assert code == 2 and "ToT does not play Mini crosswords" in err  # an alias, read
    code, out, _ = run(capsys, "puzzles", "Game-24", "--solve", "4 7 8 8")
    assert code == 0 and out.strip().endswith("= 24")
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    assert "Game of 24" in capsys.readouterr().out


def test_a_bad_command_line_is_one_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # The parser's own refusals exit 2 through the same path as every other usage error:
    # the command's usage, then one "ponder:" line, never a SystemExit out of main().
    for argv, message in (
        (["solve", "24", "4 7 8 8", "--bogus"], "unrecognized arguments: --bogus"),
        (["solve", "24"], "required: HAND"),
        (["solve", "24", "4 7 8 8", "--trees", "x"], "invalid int value: 'x'"),
        (["bench", "24", "--hands", "1 2 3 4", "--file", "f"], "not allowed with"),
        (["puzzles"], "required: KIND"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and not out
        assert err.startswith("usage: ponder ") and "\nponder: " in err and message in err


def test_solve_with_samples_says_how_many_were_right(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "solve", "24", "4 9 10 13", "--method", "io", "--samples", "5")
    right = re.search(r"(\d+) of 5 samples right", out)
    assert right is not None, out
    assert (code == 0) == ("✓ solved" in out)  # the first sample decides the exit code
    _, single, _ = run(capsys, "solve", "24", "4 9 10 13", "--method", "io")
    assert "samples right" not in single  # one attempt: nothing to count


@pytest.mark.parametrize(
    ("argv", "count"),
    [
        (("24", "--hands", "4 7 8 8; 1 1 4 6"), "2 hands"),
        (("wordproblem", "--generated", "2"), "2 problems"),
        (("crossword", "--generated", "2"), "2 minis"),
    ],
)
def test_the_bench_title_counts_the_kinds_own_puzzles(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], count: str
) -> None:
    code, out, _ = run(capsys, "bench", *argv, "--method", "io", "--no-plot")
    assert code == 0 and f" · {count} · " in out


def test_an_option_the_kind_cannot_take_is_a_usage_error(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "solve", "crossword", "1", "--method", "bot", "--experience",
                       "cumulative")  # fmt: skip
    assert code == 2 and "condense" in out
