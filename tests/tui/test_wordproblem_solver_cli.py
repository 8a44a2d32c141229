"""``ponder solve wordproblem`` and ``ponder bench wordproblem`` through the real command
line: every way to name a problem, every bad input a clear message (exit 2), a tool method
on the Game of 24 refused, and a bench over generated, algebra and file sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.puzzles.wordproblem_files import FIXTURE, write_jsonl
from tui.cli import main


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["3", "--level", "hard", "--method", "react"],
        ["--id", "bulk_saving/691459251", "--method", "deli"],
        ["1", "--topic", "algebra", "--method", "cot"],
        ["Tom has 3 bags of 4 apples. How many apples?", "--answer", "12", "--method", "io"],
    ],
)
def test_solve_names_a_problem_every_way(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = call(capsys, "solve", "wordproblem", *argv)
    assert code in (0, 1), err
    assert "answer:" in out and not err


def test_solve_prints_tool_calls_and_observations(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = call(
        capsys, "solve", "wordproblem", "--id", "bulk_saving/691459251", "--method", "react"
    )
    assert "action calculate[" in out and "observation (tool)" in out and "stopped:" in out
    _code, out, _ = call(capsys, "solve", "wordproblem", "--method", "react", "--json")
    types = {json.loads(line)["type"] for line in out.splitlines()}
    assert {"ToolCalled", "ToolObserved", "EpisodeEnded", "RunFinished"} <= types


def test_solve_a_file_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "mine.jsonl", FIXTURE)
    code, _out, err = call(
        capsys, "solve", "wordproblem", "--file", str(path), "--row", "2", "--method", "cot"
    )
    assert code in (0, 1) and not err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["   "], "the question is empty"),
        (["How many?", "--answer", "1,5"], "ambiguous"),
        (["--row", "3"], "--row picks a problem of --file"),
        (["--id", "nosuch/1"], "is not the id"),
        (["2", "--level", "impossible"], "unknown level"),
        (["2", "--topic", "cooking"], "unknown topic"),
        (["x" * 5000, "--answer", "1"], "too long"),
        (["--tool-limit", "0", "--method", "react"], "--tool-limit"),
    ],
)
def test_bad_solve_input_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _out, err = call(capsys, "solve", "wordproblem", *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_hostile_file_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in (
        ("binary.jsonl", b"\x00\xff\xfe" * 100),
        ("list.jsonl", b"[1, 2, 3]"),
        ("deep.jsonl", b'{"question": ' + b"[" * 100_000 + b"\n"),
        ("empty.jsonl", b""),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        code, _, err = call(capsys, "solve", "wordproblem", "--file", str(path))
        assert code == 2 and "Traceback" not in err and err.strip(), name


def test_tool_methods_on_the_game_of_24_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "solve", "24", "4 7 8 8", "--method", "deli")
    assert code == 2 and "DELI does not play Game of 24; the methods that do:" in err
    assert "formalize" not in err and "deli" not in err.split("do:")[1]


def test_each_kinds_help_lists_only_the_methods_it_can_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """solve 24 --help offered DELI and ReAct, which the Game of 24 cannot run."""
    for kind, present, absent in (
        ("24", ("bot", "tot", "aiot"), ("deli", "react", "tot-dfs")),
        ("crossword", ("tot-dfs", "bot"), ("deli", "react", "tot,")),
        ("wordproblem", ("react", "deli", "bot"), ("tot-dfs", "tot,")),
    ):
        for command in ("solve", "bench"):
            with pytest.raises(SystemExit):
                main([command, kind, "--help"])
            listed = " ".join(capsys.readouterr().out.split()).split("--method")[2]
            listed = listed.split(")")[0]
            assert all(name in listed for name in present), (command, kind, listed)
            assert not any(name in listed for name in absent), (command, kind, listed)


def test_bench_generated_algebra_and_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = call(
        capsys,
        "bench",
        "wordproblem",
        "--generated",
        "4",
        "--level",
        "hard",
        "--method",
        "cot,react,deli",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["hands"] == 4 and [r["method"] for r in data["results"]] == ["cot", "react", "deli"]
    code, out, _ = call(capsys, "bench", "wordproblem", "--algebra", "3", "--method", "react")
    assert code == 0 and "Word problems" in out
    path = write_jsonl(tmp_path / "mine.jsonl", FIXTURE)
    code, out, _ = call(
        capsys,
        "bench",
        "wordproblem",
        "--file",
        str(path),
        "--range",
        "0:3",
        "--method",
        "cot-sc",
        "--samples",
        "3",
        "--json",
    )
    assert code == 0 and json.loads(out)["hands"] == 3
    code, _, err = call(capsys, "bench", "wordproblem", "--generated", "0", "--method", "cot")
    assert code == 2 and "1 to" in err


def test_a_file_answer_its_own_steps_disagree_with_is_noted_in_solve_and_bench(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        {"question": "Ann has 3 cats and 5 dogs. How many pets?", "answer": "3 + 5 = 8\n#### 7"},
        {"question": "Bo has 2 cats and 2 dogs. How many pets?", "answer": "2 + 2 = 4\n#### 4"},
    ]
    path = tmp_path / "doubt.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    _, _, err = call(capsys, "bench", "wordproblem", "--file", str(path), "--method", "io")
    assert "1 problem's answer is not what its own worked solution arrives at (line 1)" in err
    _, _, err = call(capsys, "bench", "wordproblem", "--file", str(path), "--range", "1:2")
    assert "worked solution" not in err  # the rows run hold no doubt
    _, _, err = call(capsys, "solve", "wordproblem", "--file", str(path), "--method", "io")
    assert "the file's answer is in doubt" in err and "(8)" in err
    _, _, err = call(
        capsys, "solve", "wordproblem", "--file", str(path), "--row", "1", "--method", "io"
    )
    assert "doubt" not in err


def test_deli_shows_its_retrieved_demonstrations_and_paper_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "deli.jsonl"
    question = "Tom buys 3 pens at $2 each and 4 notebooks at $5 each. How many dollars?"
    argv = ["solve", "wordproblem", question, "--answer", "26", "--method", "deli"]
    code, out, err = call(capsys, *argv, "--paper", "--trace", str(trace))
    assert code in (0, 1) and not err
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    (found,) = [e for e in events if e.get("type") == "DemonstrationsRetrieved"]
    assert len(found["ids"]) == 8 and found["retriever"].startswith("BM25")
    # Printed in the order retrieved, each with its question.
    assert "demonstrations 8 of 8 retrieved by BM25" in out
    for i, text in enumerate(found["texts"], 1):
        assert f"{i}. {found['ids'][i - 1]}" in " ".join(out.split())
        assert text.splitlines()[0].removeprefix("Question: ") in " ".join(out.split())
    (started,) = [e for e in events if e.get("type") == "RunStarted"]
    config = started["config"]
    assert (config["tool_steps"], config["tool_limit"], config["paper"]) == (15, 10.0, True)
    _, out, _ = call(capsys, *argv, "--demonstrations", "0")
    assert "demonstrations" not in out


def test_tool_limit_reaches_the_problems_own_tools() -> None:
    """``--tool-limit`` is the limit of every tool the problem offers, not only the method's."""
    from tui.cli.main import build_parser, parse_args
    from tui.cli.wordproblem import solve_puzzle

    argv = ["solve", "wordproblem", "3", "--method", "react", "--tool-limit", "0.5"]
    puzzle = solve_puzzle(parse_args(build_parser(), argv))
    limits = {getattr(t, "limit", None) for t in puzzle.domain.tools}
    assert limits == {0.5}
    default = solve_puzzle(parse_args(build_parser(), argv[:5]))
    assert {getattr(t, "limit", None) for t in default.domain.tools} == {5.0}


def test_a_question_of_ones_own_runs_without_an_answer_and_its_answer_is_shown_unjudged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Asking the solver a question of your own is the first thing to try: no --answer is
    needed; the answer is shown as not checked, the run exits 0, and its trace replays so."""
    question = "Tom buys 3 pens at $2 each. How many dollars does he spend?"
    trace = tmp_path / "own.jsonl"
    code, out, err = call(
        capsys, "solve", "wordproblem", question, "--method", "cot", "--trace", str(trace)
    )
    assert code == 0, err
    assert "no --answer was given" in err and "answered, not checked" in out
    assert "not solved" not in out and "not checked (no answer was given)" in out
    header = json.loads(trace.read_text().splitlines()[0])
    assert header["id"] == "typed" and "answer" not in header
    code, out, _ = call(capsys, "replay", str(trace), "--print")
    assert code == 0 and "answered, not checked" in out
