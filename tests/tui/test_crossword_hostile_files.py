"""Hostile crossword files through the command line: ``ponder solve crossword --file``,
``ponder bench crossword --file`` and ``ponder puzzles crossword --load --check`` each end
with one clear message and exit code 2, never a traceback; a 15 x 15 grid or a 50-letter
word is refused because the solvers play minis only."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.crossword_readers import grid_clues, ipuz_doc, numbered_clues, puz_bytes
from puzzles.crossword import generate, to_ipuz, to_tot
from tui.cli import main

MINI = generate(3)
CLUES = numbered_clues(MINI)
GOOD_PUZ = puz_bytes(MINI.solution, CLUES)
LETTERS = "".join(MINI.solution).encode()
WORD50 = ["ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWX"]
BIG = [
    "".join("#" if (r % 4, c % 4) == (3, 3) else "ABCDE"[(r + c) % 5] for c in range(15))
    for r in range(15)
]


def wrong_width() -> bytes:
    data = bytearray(GOOD_PUZ)
    data[0x2C] = 6  # the header says 6 wide; the grids hold 5 x 5
    return bytes(data)


def latin1_ipuz() -> bytes:
    return (
        json.dumps({**to_ipuz(MINI), "title": "Caf\xe9"})
        .encode()
        .replace(b"Caf\\u00e9", b"Caf\xe9")
    )


# (file name, its bytes, a fragment of the message)
HOSTILE: list[tuple[str, Callable[[], bytes], str]] = [
    ("shape.puz", wrong_width, "the header's 6 x 5 does not fit the grids"),
    ("short.puz", lambda: GOOD_PUZ[: len(GOOD_PUZ) // 2], "is cut short"),
    ("huge.puz", lambda: GOOD_PUZ + b"\0" * (9 * 1024 * 1024), "is too large (9.0 MB"),
    ("junk.puz", lambda: bytes(range(256)) * 8, "not an Across Lite .puz file"),
    ("locked.puz", lambda: puz_bytes(MINI.solution, CLUES, scrambled=(4, LETTERS)), "scrambled"),
    ("empty.puz", lambda: puz_bytes(["###", "###"], []), "has no words"),
    ("long.puz", lambda: puz_bytes(WORD50, ["Alphabet"]), "mini crosswords only"),
    ("clue.puz", lambda: puz_bytes(MINI.solution, ["x" * 1_000_000, *CLUES[1:]]), "1,000,000"),
    ("big.puz", lambda: puz_bytes(BIG, grid_clues(BIG, str)), "this one is 15 x 15"),
    (
        "shape.ipuz",
        lambda: json.dumps({**to_ipuz(MINI), "solution": [["A"] * 4] * 5}).encode(),
        "row 1 has 4 cells; width is 5",
    ),
    ("utf16.ipuz", lambda: json.dumps(to_ipuz(MINI)).encode("utf-16"), "UTF-16"),
    ("latin1.ipuz", latin1_ipuz, "is not UTF-8 text"),
    ("empty.ipuz", lambda: json.dumps(ipuz_doc(["A"], [])).encode(), "has no words"),
    (
        "long.ipuz",
        lambda: json.dumps(ipuz_doc(WORD50, ["Alphabet"])).encode(),
        "this one is 1 x 50",
    ),
    (
        "clue.ipuz",
        lambda: json.dumps(ipuz_doc(MINI.solution, ["y" * 1_000_000, *CLUES[1:]])).encode(),
        "is 1,000,000 characters long",
    ),
    ("big.ipuz", lambda: json.dumps(ipuz_doc(BIG, grid_clues(BIG, str))).encode(), "15 x 15"),
    (
        "clue.json",
        lambda: json.dumps([["z" * 1_000_000, *to_tot(MINI)[0][1:]], to_tot(MINI)[1]]).encode(),
        "clue h1 is 1,000,000 characters long",
    ),
]
IDS = [name for name, _, _ in HOSTILE]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    name, data, message = request.param
    path = tmp_path / name
    path.write_bytes(data())
    return path, message


def assert_refused(code: int, out: str, err: str, message: str) -> None:
    assert code == 2, (code, out[-300:], err[-300:])
    assert message in err, err[-300:]
    assert "Traceback" not in err and len(err) < 1_000, err[-300:]
    assert err.startswith("ponder: ")


@pytest.mark.parametrize("hostile", HOSTILE, ids=IDS, indirect=True)
def test_solve_refuses_each_hostile_file(
    capsys: pytest.CaptureFixture[str], hostile: tuple[Path, str]
) -> None:
    path, message = hostile
    code, out, err = run(capsys, "solve", "crossword", "--file", str(path), "--method", "io")
    assert_refused(code, out, err, message)


@pytest.mark.parametrize("hostile", HOSTILE, ids=IDS, indirect=True)
def test_bench_refuses_each_hostile_file(
    capsys: pytest.CaptureFixture[str], hostile: tuple[Path, str]
) -> None:
    path, message = hostile
    code, out, err = run(
        capsys, "bench", "crossword", "--file", str(path), "--method", "io", "--no-plot"
    )
    assert_refused(code, out, err, message)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [h for h in HOSTILE if h[0] in ("empty.puz", "empty.ipuz", "clue.puz", "clue.ipuz")],
)
def test_check_fails_a_grid_with_no_words_or_a_huge_clue(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    data: Callable[[], bytes],
    message: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(data())
    code, out, err = run(capsys, "puzzles", "crossword", "--load", str(path), "--check")
    assert_refused(code, out, err, message)


def test_a_version_2_puz_file_in_windows_1252_reads_its_accents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # UTF-8 is what 2.0 promises; a writer that kept Windows-1252 is read as that, not as "?".
    path = tmp_path / "v2.puz"
    path.write_bytes(
        puz_bytes(
            MINI.solution, ["Caf\xe9 order", *CLUES[1:]], version=b"2.0\x00", encoding="cp1252"
        )
    )
    code, out, _ = run(capsys, "puzzles", "crossword", "--load", str(path))
    assert code == 0 and "Café order" in out and "\ufffd" not in out


def test_the_well_formed_files_of_the_same_builders_play(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, data in (("good.puz", GOOD_PUZ), ("good.ipuz", json.dumps(to_ipuz(MINI)).encode())):
        path = tmp_path / name
        path.write_bytes(data)
        code, _, err = run(capsys, "solve", "crossword", "--file", str(path), "--method", "io")
        assert code in (0, 1) and not err.strip(), err
