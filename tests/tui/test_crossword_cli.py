"""``ponder puzzles crossword``: run through the real command line, whose crossword
sub-parser holds only the crosswords' own flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.puzzles.crossword_files import (
    PUZ_CLUES,
    PUZ_SOLUTION,
    build_puz,
    ipuz_doc,
    tot_entry,
    write,
)
from tui.cli import main


def run(argv: list[str], kind: str = "crossword") -> int:
    return main(["puzzles", kind, *argv])


def test_generate(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--generate", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Mini #4" in out and "Across" in out and "Down" in out
    assert "  = " not in out  # no answers unless asked
    assert run(["--generate", "--seed", "4", "--solution"]) == 0
    assert "  = " in capsys.readouterr().out


def test_generate_json_several(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--generate", "--seed", "1", "--count", "2", "--blocks", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["title"] for r in records] == ["Mini #1", "Mini #2"]
    assert all("solution" not in r for r in records)
    assert all("#" in "".join(r["grid"]) for r in records)


def test_any_name_of_the_kind_reaches_its_parser(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("crossword", "Crosswords", "mini"):
        assert run(["--generate"], kind=name) == 0
        assert "Mini #0" in capsys.readouterr().out


def test_load_and_print(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "minis.json", [tot_entry(), tot_entry()])
    assert run(["--load", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("Across") == 2 and "Make a mess of (5)" in out
    assert "SPOIL" not in out
    assert run(["--load", str(path), "--row", "1", "--json", "--solution"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["solution"][0] == "SPOIL"


def test_check_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "minis.json", [tot_entry(), tot_entry()])
    assert run(["--load", str(path), "--check"]) == 0
    out = capsys.readouterr().out
    assert "minis.json #1: ok" in out and "2 of 2 puzzles pass" in out
    puz = write(tmp_path, "tiny.puz", build_puz(PUZ_SOLUTION, PUZ_CLUES))
    assert run(["--load", str(puz), "--check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_check_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = ipuz_doc()
    doc["clues"]["Across"] = doc["clues"]["Across"][:2]
    doc["clues"]["Down"][1] = {"number": 2, "clue": "Painting, say", "answer": "ARK"}
    path = write(tmp_path, "tiny.ipuz", doc)
    assert run(["--load", str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "6A: the clue is empty" in out and "2D:" in out
    assert run(["--load", str(path), "--check", "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["ok"] is False and {p["label"] for p in record["problems"]} >= {"6A", "2D"}


def test_damaged_puz_checksum_is_bad_input_on_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray(build_puz(PUZ_SOLUTION, PUZ_CLUES))
    data[0] ^= 0xFF
    path = write(tmp_path, "broken.puz", bytes(data))
    assert run(["--load", str(path)]) == 0
    capsys.readouterr()
    assert run(["--load", str(path), "--check"]) == 2
    assert "checksum" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "say what to do"),
        (["--check"], "--check needs a file"),
        (["--load", "x.json", "--generate"], "not both"),
        (["--load", "MISSING"], "no such file"),
        (["--generate", "--count", "0"], "--count is 1 to"),
        (["--generate", "--row", "2"], "--row picks"),
        # Other kinds' flags are refused by the crossword parser, which names their kind.
        (["--solve", "1 2 3 4"], "--solve is for Game of 24, not Mini crosswords"),
        (["--level", "easy", "--generate"], "--level is for Game of 24 and Word problems"),
        (["--topic", "ages"], "unrecognized arguments: --topic ages"),
    ],
)
def test_bad_input(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_files_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, content in (
        ("bad.json", b"[[1,"),
        ("short.json", json.dumps([[["a"] * 10, list("ABC")]])),
        ("dir", None),
    ):
        path = tmp_path / name
        if content is None:
            path.mkdir()
        else:
            write(tmp_path, name, content)
        assert run(["--load", str(path), "--check"]) == 2
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err
    path = write(tmp_path, "one.json", [tot_entry()])
    assert run(["--load", str(path), "--row", "2"]) == 2
    assert "has 1 puzzle" in capsys.readouterr().err
