"""Crossword loaders: ToT's JSON, ipuz and .puz, and what they do with bad files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.crossword import (
    MAX_FILE_BYTES,
    Crossword,
    PuzzleFileError,
    detect_format,
    generate,
    load_crosswords,
    load_ipuz,
    load_puz,
    load_tot,
    to_ipuz,
    to_tot,
    tot_puzzle,
)
from tests.puzzles.crossword_files import (
    CLUES,
    PUZ_CLUES,
    PUZ_SOLUTION,
    ROWS,
    SECOND_ROWS,
    build_puz,
    ipuz_doc,
    tot_entry,
    write,
)

# --- ToT ------------------------------------------------------------------------------------


def test_tot_file(tmp_path: Path) -> None:
    path = write(tmp_path, "minis.json", [tot_entry(), tot_entry(SECOND_ROWS)])
    puzzles = load_tot(path)
    assert len(puzzles) == 2
    first = puzzles[0]
    assert first.solution == ROWS
    assert first.entry("h1").clue.text == "Make a mess of"
    assert first.entry("v3").answer == "OLIVE"
    assert first.source == "minis.json #1" and puzzles[1].source == "minis.json #2"
    assert puzzles[1].entry("h2").answer == "MOTOR"
    assert load_crosswords(path) == puzzles


def test_tot_single_entry_and_string_board(tmp_path: Path) -> None:
    path = write(tmp_path, "one.json", [CLUES, "".join(ROWS).lower()])
    (puzzle,) = load_tot(path)
    assert puzzle.solution == ROWS


def test_tot_round_trip() -> None:
    puzzle = tot_puzzle(CLUES, "".join(ROWS))
    assert to_tot(puzzle) == tot_entry()
    with pytest.raises(ValueError):
        to_tot(generate(0, blocks=True))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([tot_entry(), [CLUES, list("SPOILTILDEEXILERIVERNEED")]], "puzzle 2: the board has 24"),
        ([[CLUES[:9], list("".join(ROWS))]], "9 clues"),
        ([[[*CLUES[:9], 7], list("".join(ROWS))]], "clue v5 is a int"),
        ([[CLUES, [*"SPOILTILDEEXILERIVERNEED", "?"]]], "not a letter"),
        ([[CLUES, [*"SPOILTILDEEXILERIVERNEED", "AB"]]], "not one letter"),
        ([[CLUES]], "expected [clues, board]"),
        ([], "no puzzles"),
        ([["x", "y", "z"]], "expected [clues, board]"),
        ([{"clues": CLUES}], "expected [clues, board]"),
    ],
)
def test_bad_tot_files(tmp_path: Path, content: Any, message: str) -> None:
    path = write(tmp_path, "bad.json", content)
    with pytest.raises(PuzzleFileError, match=message.replace("[", r"\[")) as info:
        load_tot(path)
    assert str(path) in str(info.value)


def test_tot_loader_wants_a_list(tmp_path: Path) -> None:
    with pytest.raises(PuzzleFileError, match="not a JSON list"):
        load_tot(write(tmp_path, "obj.json", {"a": 1}))


# --- files that are not puzzle files --------------------------------------------------------


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(PuzzleFileError, match="no such file"):
        load_crosswords(tmp_path / "nope.json")
    with pytest.raises(PuzzleFileError, match="is a directory"):
        load_crosswords(tmp_path)


def test_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, never read
    with pytest.raises(PuzzleFileError, match="too large"):
        load_crosswords(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[["caf\xe9"]]'.encode("latin-1"), "not UTF-8"),
        ("[1, 2]".encode("utf-16"), "UTF-16"),
        (b"[[1, 2]", "not valid JSON"),
        (b'{"kind": [}', "not valid JSON"),
        (b"   ", "empty"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"[" + b"9" * 5000 + b"]", "more than 100 digits"),
        (b'"just text"', "JSON str"),
    ],
)
def test_bad_bytes(tmp_path: Path, content: bytes, message: str) -> None:
    path = write(tmp_path, "bad.json", content)
    with pytest.raises(PuzzleFileError, match=message):
        load_crosswords(path)


def test_utf8_bom_is_fine(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.json", b"\xef\xbb\xbf" + json.dumps([tot_entry()]).encode())
    assert len(load_crosswords(path)) == 1


# --- ipuz -----------------------------------------------------------------------------------


def test_ipuz_file(tmp_path: Path) -> None:
    puzzle = load_ipuz(write(tmp_path, "tiny.ipuz", ipuz_doc()))
    assert puzzle.solution == ("CAT#", "AREA", "#TAX")
    assert puzzle.title == "Tiny test"
    assert puzzle.entry("4A").clue.text == "Region & zone"
    assert puzzle.entry("2D").answer == "ART"
    assert puzzle.entry("2D").clue.enumeration == "3"
    assert puzzle.entry("5D").answer == "AX"
    assert puzzle.problems() == ()


def test_ipuz_jsonp_and_dict_cells(tmp_path: Path) -> None:
    doc = ipuz_doc()
    doc["puzzle"][0][0] = {"cell": 1, "style": {"shapebg": "circle"}}
    doc["solution"][0][0] = {"value": "c"}
    path = write(tmp_path, "tiny.ipuz", "ipuz(" + json.dumps(doc) + ");")
    (puzzle,) = load_crosswords(path)
    assert puzzle.solution[0] == "CAT#"


def test_ipuz_missing_clue_and_bad_answer_fail_the_check(tmp_path: Path) -> None:
    doc = ipuz_doc()
    doc["clues"]["Across"] = doc["clues"]["Across"][:2]  # no clue for 6A
    doc["clues"]["Down"][1] = {"number": 2, "clue": "Painting, say", "answer": "ARK"}
    doc["clues"]["Down"][0] = {"number": 1, "clue": "Taxi", "answer": "CAB"}
    puzzle = load_ipuz(write(tmp_path, "tiny.ipuz", doc))
    problems = {p.label: p.message for p in puzzle.problems() if p.serious}
    assert "empty" in problems["6A"]
    assert "ARK" in problems["2D"] and "6A" in problems["2D"]  # the crossing it breaks
    assert "3 letters" in problems["1D"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": ["http://ipuz.org/sudoku#1"]}, "not an ipuz crossword"),
        ({"dimensions": {"width": 4}}, "bad height"),
        ({"dimensions": {"width": 4, "height": 999}}, "bad height"),
        ({"puzzle": [[1, 2, 3, "#"]]}, "1 rows"),
        ({"solution": [["C", "A", "T"], ["A", "R", "E", "A"], [None, "T", "A", "X"]]}, "row 1"),
        (
            {"solution": [["CA", "A", "T", "#"], ["A", "R", "E", "A"], [None, "T", "A", "X"]]},
            "a rebus",
        ),
        ({"clues": {"Across": [[9, "Nothing"]]}}, "clue 9 across matches no"),
        ({"clues": {"Sideways": [[1, "x"]]}}, "not Across or Down"),
        ({"clues": {"Across": [[1, "a"], [1, "b"]]}}, "two clues"),
        ({"clues": {"Across": ["Feline"]}}, "expected \\[number, text\\]"),
        ({"clues": {"Across": [["one", "Feline"]]}}, "the number"),
        ({"clues": []}, "has no clues"),
        ({"title": 7}, "title is a int"),
    ],
)
def test_bad_ipuz(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    path = write(tmp_path, "bad.ipuz", ipuz_doc(**changes))
    with pytest.raises(PuzzleFileError, match=message):
        load_ipuz(path)


def test_ipuz_round_trip(tmp_path: Path) -> None:
    for puzzle in (generate(3), generate(4, blocks=True)):
        path = write(tmp_path, "out.ipuz", to_ipuz(puzzle))
        loaded = load_ipuz(path)
        assert loaded.solution == puzzle.solution
        assert [c.text for c in loaded.clues] == [c.text for c in puzzle.clues]


# --- .puz -----------------------------------------------------------------------------------


def test_puz_file(tmp_path: Path) -> None:
    data = build_puz(PUZ_SOLUTION, PUZ_CLUES, notes="Have fun")
    path = write(tmp_path, "tiny.puz", data)
    puzzle = load_puz(path, verify_checksums=True)
    assert puzzle.solution == ("CAT#", "AREA", "#TAX")
    assert puzzle.entry("1A").clue.text == "Feline"
    assert puzzle.entry("1D").clue.text == "Taxi"
    assert puzzle.entry("4A").clue.text == "Region"
    assert puzzle.entry("5D").clue.text == "Letter after X"
    assert puzzle.entry("6A").clue.text == "Levy"
    assert (puzzle.title, puzzle.author, puzzle.notes) == ("Title", "Author", "Have fun")
    assert detect_format(data) == "puz"
    assert load_crosswords(path) == [puzzle]


def test_puz_latin1_and_windows_quotes(tmp_path: Path) -> None:
    clues = ["Caf\xe9 order", *PUZ_CLUES[1:]]
    data = build_puz(PUZ_SOLUTION, clues, title="\u201cQuoted\u201d", encoding="cp1252")
    puzzle = load_puz(write(tmp_path, "accents.puz", data), verify_checksums=True)
    assert puzzle.entry("1A").clue.text == "Café order"
    assert puzzle.title == "\u201cQuoted\u201d"


def test_puz_utf8_version_2(tmp_path: Path) -> None:
    clues = ["Cat, in Köln", *PUZ_CLUES[1:]]
    data = build_puz(PUZ_SOLUTION, clues, encoding="utf-8", version=b"2.0\x00")
    assert load_puz(write(tmp_path, "v2.puz", data)).entry("1A").clue.text == "Cat, in Köln"


def test_puz_junk_before_header(tmp_path: Path) -> None:
    data = b"JUNK" + build_puz(PUZ_SOLUTION, PUZ_CLUES)
    assert load_puz(write(tmp_path, "junk.puz", data)).solution[1] == "AREA"


def test_puz_checksums_checked_only_on_request(tmp_path: Path) -> None:
    data = bytearray(build_puz(PUZ_SOLUTION, PUZ_CLUES))
    data[0] ^= 0xFF  # break the file checksum
    path = write(tmp_path, "broken.puz", bytes(data))
    assert load_puz(path).solution[0] == "CAT#"
    with pytest.raises(PuzzleFileError, match="file checksum"):
        load_puz(path, verify_checksums=True)
    data = bytearray(build_puz(PUZ_SOLUTION, PUZ_CLUES))
    data[-3] ^= 0x01  # change a letter of the last clue
    with pytest.raises(PuzzleFileError, match="checksum"):
        load_puz(write(tmp_path, "b2.puz", bytes(data)), verify_checksums=True)
    data = bytearray(build_puz(PUZ_SOLUTION, PUZ_CLUES))
    data[0x0E] ^= 0x01
    with pytest.raises(PuzzleFileError, match="header checksum"):
        load_puz(write(tmp_path, "b3.puz", bytes(data)), verify_checksums=True)


def test_puz_a_real_size_grid(tmp_path: Path) -> None:
    puzzle = generate(11)
    clues = [
        e.clue.text
        for e in sorted(puzzle.entries, key=lambda e: (e.slot.number, e.slot.direction.value))
    ]
    data = build_puz(list(puzzle.solution), clues)
    loaded = load_puz(write(tmp_path, "mini.puz", data), verify_checksums=True)
    assert loaded.solution == puzzle.solution
    assert [c.text for c in loaded.clues] == [c.text for c in puzzle.clues]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (build_puz(PUZ_SOLUTION, PUZ_CLUES, scrambled=4), "scrambled"),
        (build_puz(PUZ_SOLUTION, PUZ_CLUES[:-1]), "6 clues but its grid has 7"),
        (build_puz(PUZ_SOLUTION, PUZ_CLUES)[:60], "cut short inside its grids"),
        (build_puz(PUZ_SOLUTION, PUZ_CLUES)[:-30], "cut short"),
        (build_puz(PUZ_SOLUTION, PUZ_CLUES)[:40], "cut short inside its header"),
        (build_puz(["CA?.", "AREA", ".TAX"], PUZ_CLUES), "not a letter"),
        (b"\x00\x00ACROSS&DOWN\x00" + b"\x00" * 40, "0 x 0 grid"),
        (b"ACROSS&DOWN\x00" + b"\x00" * 60, "no ACROSS&DOWN header"),
    ],
)
def test_bad_puz(tmp_path: Path, data: bytes, message: str) -> None:
    path = write(tmp_path, "bad.puz", data)
    with pytest.raises(PuzzleFileError, match=message):
        load_puz(path)


def test_load_crosswords_tells_formats_apart(tmp_path: Path) -> None:
    tot = write(tmp_path, "a.data", [tot_entry()])
    ipuz = write(tmp_path, "b.data", ipuz_doc())
    puz = write(tmp_path, "c.data", build_puz(PUZ_SOLUTION, PUZ_CLUES))
    kinds = [type(load_crosswords(p)[0]) for p in (tot, ipuz, puz)]
    assert kinds == [Crossword, Crossword, Crossword]
    assert [len(load_crosswords(p)[0].grid.slots) for p in (tot, ipuz, puz)] == [10, 7, 7]


# --- hostile input never escapes as anything but PuzzleFileError ------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


def loads_or_refuses(path: Path) -> None:
    try:
        puzzles = load_crosswords(path, verify_checksums=True)
    except PuzzleFileError:
        return
    assert puzzles and all(isinstance(p, Crossword) for p in puzzles)


@settings(max_examples=150, deadline=None)
@given(doc=JSON)
def test_any_json_is_loaded_or_refused(tmp_path_factory: pytest.TempPathFactory, doc: Any) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "any.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    loads_or_refuses(path)


@settings(max_examples=150, deadline=None)
@given(
    key=st.sampled_from(["kind", "dimensions", "puzzle", "solution", "clues", "block", "title"]),
    value=JSON,
)
def test_damaged_ipuz_is_loaded_or_refused(
    tmp_path_factory: pytest.TempPathFactory, key: str, value: Any
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "bad.ipuz"
    path.write_text(json.dumps(ipuz_doc(**{key: value})), encoding="utf-8")
    loads_or_refuses(path)


@settings(max_examples=200, deadline=None)
@given(
    flips=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=4),
    cut=st.integers(0, 200),
)
def test_damaged_puz_is_loaded_or_refused(
    tmp_path_factory: pytest.TempPathFactory, flips: list[tuple[int, int]], cut: int
) -> None:
    data = bytearray(build_puz(PUZ_SOLUTION, PUZ_CLUES))
    for at, value in flips:
        if at < len(data):
            data[at] = value
    path = tmp_path_factory.mktemp("fuzz") / "bad.puz"
    path.write_bytes(bytes(data[: len(data) - cut // 4]))
    loads_or_refuses(path)
