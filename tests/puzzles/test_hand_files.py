"""Hand files read fast and the same as before: the whole-number shortcut reads every row
exactly as the general parser does, and refuses what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from puzzles.game24 import Hand, HandError
from puzzles.game24.loaders import MAX_LINE, PuzzleFileError, load_hands

cells = st.lists(st.integers(min_value=0, max_value=2_000_000), min_size=1, max_size=8).flatmap(
    lambda numbers: st.sampled_from([" ", ",", ", ", "\t", " ,  "]).map(
        lambda sep: sep.join(str(n) for n in numbers)
    )
)


def parsed(cell: str) -> Hand | str:
    try:
        return Hand.parse(cell)
    except HandError:
        return "error"


@given(cell=cells)
def test_a_file_row_reads_as_hand_parse_reads_it(cell: str) -> None:
    with_file = _load_one(cell)
    assert with_file == parsed(cell)


def _load_one(cell: str) -> Hand | str:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hands.txt"
        path.write_text(f"{cell}\n", encoding="utf-8")
        try:
            return load_hands(path)[0]
        except PuzzleFileError as exc:
            assert exc.line == 1 and "is not a hand" in str(exc)
            return "error"


@pytest.mark.parametrize("cell", ["04 7 8 8", "4 7 8 8 ", "\u0664 7 8 8", "4;7;8;8", "4 7 8 8.0"])
def test_unusual_rows_still_read_as_before(tmp_path: Path, cell: str) -> None:
    path = tmp_path / "hands.txt"
    path.write_text(cell + "\n", encoding="utf-8")
    expected = parsed(cell)
    if expected == "error":
        with pytest.raises(PuzzleFileError):
            load_hands(path)
    else:
        assert load_hands(path) == [expected]


def test_repeated_rows_and_a_line_too_long(tmp_path: Path) -> None:
    path = tmp_path / "hands.csv"
    path.write_text("Rank,Puzzles\n" + "1,4 7 8 8\n" * 1000 + "2,1 2 3 4\n", encoding="utf-8")
    hands = load_hands(path)
    assert len(hands) == 1001 and hands[0] == Hand((4, 7, 8, 8)) and hands[-1] == Hand((1, 2, 3, 4))
    path.write_text("4 7 8 8\n" + "1 " * MAX_LINE + "\n", encoding="utf-8")
    with pytest.raises(PuzzleFileError, match="line 2: has a line of"):
        load_hands(path)


def test_a_file_that_is_no_hand_file_is_not_read_out(tmp_path: Path) -> None:
    path = tmp_path / "k.toml"
    path.write_text('api_key = "sk-proj-SECRET0123456789abcdef"\n', encoding="utf-8")
    with pytest.raises(PuzzleFileError) as caught:
        load_hands(path)
    said = str(caught.value)
    assert caught.value.line == 1 and "is not a hand" in said
    assert "SECRET" not in said and "api_key" not in said
