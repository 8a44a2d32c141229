"""ToT's published GPT-4 runs on the command line (issue 27, section 3): ``--replay`` takes a
bundled run's name (in the settings file too) and ``--file`` the name of its hands; a run the
published recording cannot answer (ToT without ``--paper``, another method, kind or hand) is
refused before it starts, with the reason, never a stack of not-recorded errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solver.factory import describe_engine, make_model, recording_path
from solver.published import BUNDLED, HANDS_FILE, hands_file
from solver.settings import Settings, config_path
from tui.cli import main

ROW_900 = "4 5 6 10"  # row 900 of ToT's 24.csv: its search keeps (4 * 5) + (10 - 6) first


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def events(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# ------------------------------------------------------------------ names


def test_replay_takes_a_bundled_runs_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "solve", "24", ROW_900, "--method", "io", "--replay", "tot-gpt4-io", "--json"
    )
    assert code in (0, 1), err  # solved or not by GPT-4's first reply, never a usage error
    found = events(out)
    assert not [e for e in found if e["type"] == "ErrorRaised"]
    assert len([e for e in found if e["type"] == "ModelCalled"]) == 1
    (started,) = [e for e in found if e["type"] == "RunStarted"]
    assert started["model"] == "gpt-4"


def test_a_file_of_the_same_name_wins_over_the_bundled_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "tot-gpt4-io"
    mine.write_text(
        '{"ponder_recording": 1, "model": "my-own-model"}\n'
        '{"purpose": "io", "reply": {"texts": ["Answer: (4 * 5) + (10 - 6) = 24"]}, '
        '"match": {"purpose": "io", "hand": [4, 5, 6, 10]}}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = run(
        capsys, "solve", "24", ROW_900, "--method", "io", "--replay", "tot-gpt4-io"
    )
    assert code == 0, err
    assert "my-own-model" in out


def test_the_settings_replay_file_takes_a_name_too(capsys: pytest.CaptureFixture[str]) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('engine = "replay"\nreplay_file = "tot-gpt4-cot"\n', encoding="utf-8")
    code, out, err = run(capsys, "solve", "24", ROW_900, "--method", "cot", "--json")
    assert code in (0, 1), err
    assert not [e for e in events(out) if e["type"] == "ErrorRaised"]
    settings = Settings(engine="replay", replay_file="tot-gpt4-cot")
    assert recording_path("tot-gpt4-cot") == str(BUNDLED["tot-gpt4-cot"].path)
    assert describe_engine(settings) == "GPT-4 (ToT's published run: tot-gpt4-cot)"
    assert make_model(settings).name == "gpt-4"


def test_file_takes_the_name_of_the_published_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert hands_file("tot-24-rows-900-999") == HANDS_FILE
    assert hands_file("my-hands.txt") == Path("my-hands.txt")
    code, out, err = run(
        capsys, "bench", "24", "--method", "io", "--replay", "tot-gpt4-io",
        "--file", "tot-24-rows-900-999", "--range", "0:3", "--json",
    )  # fmt: skip
    assert code in (0, 1), err
    report = json.loads(out)
    assert report["hands"] == 3
    assert report["engine"] == "GPT-4 (ToT's published run: tot-gpt4-io)"
    assert [r["errors"] for r in report["results"]] == [0]


def test_replay_help_lists_the_bundled_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "24", "--help"])
    out = re.sub(r"-\s+", "-", " ".join(capsys.readouterr().out.split()))  # wrapped at a -
    for name in BUNDLED:
        assert name in out
    assert "--method tot --paper" in out and "tot-24-rows-900-999" in out


# ------------------------------------------------------------------ refused before the run


@pytest.mark.parametrize("paper", [[], ["--no-paper"]])
def test_tots_published_search_replays_only_under_paper(
    capsys: pytest.CaptureFixture[str], paper: list[str]
) -> None:
    code, out, err = run(
        capsys, "solve", "24", ROW_900, "--method", "tot", "--replay", "tot-gpt4-bfs", *paper
    )
    assert code == 2 and out == ""  # no run, so no not_recorded error a call
    assert "ToT's published run (tot-gpt4-bfs) replays only in paper mode (--paper)" in err
    assert err.rstrip().endswith("add --paper") and "Traceback" not in err
    code, out, err = run(
        capsys, "bench", "24", "--method", "tot", "--replay", "tot-gpt4-bfs",
        "--file", "tot-24-rows-900-999", *paper,
    )  # fmt: skip
    assert code == 2 and "replays only in paper mode" in err


def test_with_paper_the_published_search_replays_to_its_logged_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "solve", "24", ROW_900, "--method", "tot", "--paper", "--replay", "tot-gpt4-bfs"
    )
    assert code == 0, err
    assert "(4 * 5) + (10 - 6)" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["solve", "24", ROW_900, "--method", "bot", "--replay", "tot-gpt4-bfs"],
            "tot-gpt4-bfs holds the calls of tot only, not bot's; use --method tot",
        ),
        (
            ["bench", "24", "--method", "io,cot", "--replay", "tot-gpt4-io", "--hands", ROW_900],
            "tot-gpt4-io holds the calls of io only, not cot's; use --method io",
        ),
        (
            ["solve", "24", "4 4 6 8", "--method", "io", "--replay", "tot-gpt4-io"],
            "the hand 4 4 6 8 is not one of the 100 of ToT's published run (rows 900-999 of its "
            "24.csv): GPT-4 never played it; its hands are in --file tot-24-rows-900-999",
        ),
        (
            ["bench", "24", "--method", "io", "--replay", "tot-gpt4-io",
             "--hands", f"4 4 6 8; {ROW_900}; 1 1 4 6"],
            "2 of the 3 hands (4 4 6 8, 1 1 4 6) are not among the 100 of ToT's published run",
        ),
        (
            ["bench", "24", "--method", "io", "--replay", "tot-gpt4-io", "--hardest", "5"],
            "none of the 5 hands (",
        ),
        (
            ["solve", "crossword", "--method", "io", "--replay", "tot-gpt4-io"],
            "tot-gpt4-io is ToT's published GPT-4 run on the Game of 24 only",
        ),
    ],
)  # fmt: skip
def test_a_run_the_published_recording_cannot_answer_is_refused_with_why(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert said in " ".join(err.split()) and "Traceback" not in err


def test_a_recording_of_its_own_is_not_checked_as_a_published_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the bundled runs are held to their hands and methods: a copy elsewhere, or any
    other recording, replays as it is (a call it lacks is the replay engine's error)."""
    copy = tmp_path / "copy.jsonl.gz"
    copy.write_bytes(BUNDLED["tot-gpt4-io"].path.read_bytes())
    code, out, _ = run(
        capsys, "solve", "24", "4 4 6 8", "--method", "io", "--replay", str(copy), "--json"
    )
    assert code == 2
    (error,) = [e for e in events(out) if e["type"] == "ErrorRaised"]
    assert error["kind"] == "not_recorded"
