"""The experience library on the command line: ``--library`` on solve and bench, and
``ponder library list|clear`` (offline engine, files under tmp_path)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from solver.library import ExperienceLibrary
from tui.cli import main
from tui.cli.library import entries_text

BOT = ["--method", "bot", "--engine", "offline", "--iterations", "2", "--trees", "2"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def first_step_prompt(out: str) -> str:
    found = [e for e in events(out) if e["type"] == "ModelCalled" and e["purpose"] == "bot_step"]
    prompt: str = found[0]["prompt"]
    return prompt


def entries(out: str) -> list[str]:
    return [e["entry"] for e in events(out) if e["type"] == "ExperienceAdded"]


def solve(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    return run(capsys, "solve", "24", "4 5 10 11", *BOT, "--json", *extra)


def test_a_second_run_starts_with_the_first_runs_experience(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib.sqlite3"
    code, out, err = solve(capsys, "--library-file", str(lib))
    assert code in (0, 1)
    learned = entries(out)
    assert learned and "#####\n\n#####" in first_step_prompt(out)
    assert re.search(rf"\d+ experience entr(y|ies) stored in {re.escape(str(lib))}", err)

    code, out, _ = solve(capsys, "--library", "--library-file", str(lib))
    assert learned[0] in first_step_prompt(out)


def test_without_the_flag_nothing_is_read_or_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    default = tmp_path / "data" / "experience.sqlite3"  # conftest's PONDER_DATA_DIR
    _, out, _ = solve(capsys, "--library")
    learned = entries(out)
    assert default.exists() and learned
    # Off (by default, or with --no-library, which wins over --library-file): the first
    # prompt carries no experience and the library is left as it was.
    count = ExperienceLibrary(default).open().count()
    for extra in ([], ["--no-library"], ["--no-library", "--library-file", str(default)]):
        _, out, err = solve(capsys, *extra)
        assert "#####\n\n#####" in first_step_prompt(out)
        assert learned[0] not in first_step_prompt(out)
        assert "experience entr" not in err
    assert ExperienceLibrary(default).open().count() == count


def test_bench_stores_each_hand_and_later_hands_read_earlier_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib.sqlite3"
    hands = "4 5 10 11; 4 5 10 11; 1 1 4 6"
    argv = ["bench", "24", "--hands", hands, *BOT, "--json", "--no-plot"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and not lib.exists()  # off by default
    assert json.loads(out)["results"][0]["config"].get("library") is None

    code, out, err = run(capsys, *argv, "--library-file", str(lib))
    assert code == 0
    stored = ExperienceLibrary(lib).open().entries()
    assert {e.puzzle for e in stored} == {"4 5 10 11 -> 24", "1 1 4 6 -> 24"}
    assert f"{entries_text(len(stored))} stored" in err
    # Results with the library are kept apart from the paper's (their config says so).
    assert json.loads(out)["results"][0]["config"]["library"]["read"] is True


def test_library_is_noted_and_unused_for_methods_that_do_not_learn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib.sqlite3"
    code, _, err = run(
        capsys, "solve", "24", "1 2 3 4", "--method", "cot", "--library-file", str(lib)
    )
    assert code in (0, 1) and "applies to BoT only" in err and not lib.exists()


def test_a_damaged_library_is_kept_aside_and_a_fresh_one_started(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib.sqlite3"
    garbage = b"not a database " * 300
    lib.write_bytes(garbage)
    code, _, err = solve(capsys, "--library-file", str(lib))
    assert code in (0, 1) and "Traceback" not in err
    assert "kept as" in err and "fresh library" in err
    (aside,) = tmp_path.glob("lib.sqlite3.corrupt-*")
    assert aside.read_bytes() == garbage
    assert ExperienceLibrary(lib).open().count() >= 1


def test_a_library_of_a_newer_ponder_is_left_alone_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import sqlite3

    lib = tmp_path / "lib.sqlite3"
    db = sqlite3.connect(lib)
    db.execute("PRAGMA user_version = 42")
    db.close()
    before = lib.read_bytes()
    code, out, err = solve(capsys, "--library-file", str(lib))
    assert code in (0, 1) and entries(out)
    assert "newer version of ponder" in err and "without the experience library" in err
    assert lib.read_bytes() == before


def test_library_list_and_clear(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = tmp_path / "lib.sqlite3"
    solve(capsys, "--library-file", str(lib))
    n = ExperienceLibrary(lib).open().count()
    code, out, _ = run(capsys, "library", "list", "--library-file", str(lib), "--full")
    assert code == 0 and f"{entries_text(n)}" in out and "4 5 10 11 -> 24" in out
    assert "Reasoning chain and comments" in out
    library = ExperienceLibrary(lib).open()
    try:
        stored = library.entries(None, 100)
    finally:
        library.close()
    heads = [line for line in out.splitlines() if line.startswith("#")]
    assert len(heads) == len(stored) == n
    for e, head in zip(stored, heads, strict=True):
        ok = "reaches the target" if e.chain_ok else "does not reach the target"
        assert head.startswith(f"#{e.id} ") and f"iteration {e.iteration}: chain {ok}," in head
    code, out, _ = run(capsys, "library", "list", "--library-file", str(lib), "--kind", "crossword")
    assert code == 0 and "0 experience entries" in out
    code, out, _ = run(capsys, "library", "clear", "--library-file", str(lib))
    assert code == 0 and f"{entries_text(n)} deleted" in out
    assert ExperienceLibrary(lib).open().count() == 0


def test_library_commands_report_bad_input_plainly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = tmp_path / "lib.sqlite3"
    lib.write_bytes(b"garbage " * 100)
    code, _, err = run(capsys, "library", "list", "--library-file", str(lib))
    assert code == 2 and "damaged" in err and "Traceback" not in err
    assert lib.read_bytes() == b"garbage " * 100  # looking never moves a file
    code, _, err = run(capsys, "library", "list", "--kind", "chess")
    assert code == 2
    code, _, err = run(capsys, "library")
    assert code == 2 and "ponder library list" in err
    code, _, err = run(
        capsys, "solve", "24", "1 2 3 4", *BOT, "--library", "--library-budget", "-1"
    )
    assert code == 2 and "--library-budget" in err


def test_the_readable_output_says_what_came_from_the_library(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = str(tmp_path / "lib.sqlite3")
    argv = ("solve", "24", "4 5 10 11", *BOT, "--library-file", lib)
    _, first, _ = run(capsys, *argv)
    assert "from the library" not in first  # an empty library carries nothing
    stored = len(ExperienceLibrary(lib).open().entries())
    _, second, _ = run(capsys, *argv)
    said = "1 entry" if stored == 1 else f"{stored} entries"
    assert f"from the library {said} of earlier runs, in every prompt" in second


# --- a library ponder may not write -------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_library_that_cannot_be_written_is_opened_read_only(tmp_path: Path) -> None:
    from tui.library_file import open_library

    lib = tmp_path / "lib.sqlite3"
    ExperienceLibrary(lib).open().close()
    library, message = open_library(lib, writable=lambda _: False)
    assert library is not None and library.read_only
    assert message == (
        f"{lib}: read-only (the file or its folder cannot be written): its entries are read, "
        "but nothing new can be stored"
    )
    library.close()
    library, message = open_library(lib, writable=lambda _: True)
    assert library is not None and not library.read_only and message is None
    library.close()


def test_a_read_only_data_folder_is_listed_and_used_and_never_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.readonly import read_only, run_bound

    folder = tmp_path / "data"  # conftest's PONDER_DATA_DIR
    _, out, _ = solve(capsys, "--library")
    learned = entries(out)
    with ExperienceLibrary(folder / "experience.sqlite3") as library:
        n = library.count()
    assert learned and n >= 1
    before = _files(folder)
    with read_only(folder):
        listed = run_bound("-m", "tui.cli", "library", "list")
        cleared = run_bound("-m", "tui.cli", "library", "clear")
        solved = run_bound("-m", "tui.cli", "solve", "24", "4 5 10 11", *BOT, "--json", "--library")
    assert listed.returncode == 0, listed.stderr
    assert f"{entries_text(n)}" in listed.stdout and "4 5 10 11 -> 24" in listed.stdout
    assert listed.stderr.count("\n") == 1 and "nothing new can be stored" in listed.stderr
    assert cleared.returncode == 2 and "cannot clear it: it is read-only" in cleared.stderr
    assert solved.returncode in (0, 1), solved.stderr
    assert learned[0] in first_step_prompt(solved.stdout)  # the run started from it
    assert solved.stderr.count("read-only") == 1 and "stored in" not in solved.stderr
    assert "Traceback" not in listed.stderr + cleared.stderr + solved.stderr
    assert _files(folder) == before
