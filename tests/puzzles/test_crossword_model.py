"""The crossword model: numbering, entries, boards, the three ToT measures, public views."""

from __future__ import annotations

import json

import pytest

from puzzles.crossword import (
    Board,
    Clue,
    Crossword,
    CrosswordError,
    Direction,
    Grid,
    mentions_answer,
)

# A real 5x5 mini: rows and columns are all words.
ROWS = ("SPOIL", "TILDE", "EXILE", "RIVER", "NEEDS")
TOT_CLUES = {
    "h1": "Make a mess of",
    "h2": "A diacritical mark",
    "h3": "Expel from a country",
    "h4": "A large natural stream",
    "h5": "Requires",
    "v1": "The rear part of a ship",
    "v2": "Mischievous fairy",
    "v3": "Evergreen tree bearing a small fruit",
    "v4": "Ticked over",
    "v5": "Looks suggestively",
}


def mini() -> Crossword:
    return Crossword.from_clues(ROWS, TOT_CLUES, title="Test mini")


def blocked() -> Crossword:
    grid = Grid.parse(["#CAT", "TOE#"])  # not valid as a puzzle, only the numbering matters
    return Crossword(("#CAT", "TOE#"), tuple(Clue(s, f"clue {s.label}") for s in grid.slots))


# --- grid and numbering ---------------------------------------------------------------------


def test_full_grid_numbering_follows_the_standard() -> None:
    grid = Grid.full(5)
    assert [s.label for s in grid.across] == ["1A", "6A", "7A", "8A", "9A"]
    assert [s.label for s in grid.down] == ["1D", "2D", "3D", "4D", "5D"]
    assert grid.number_at((0, 4)) == 5
    assert grid.number_at((1, 1)) is None
    assert grid.slot("h3") == grid.slot("7A") == grid.slot("7-Across") == grid.slot("across 7")
    assert grid.slot("v2").label == "2D"
    assert grid.slot("h3").tot_name == "h3"


def test_blocks_numbering_and_slots() -> None:
    grid = Grid.parse(["#....", ".....", ".....", ".....", "....#"])
    labels = [s.label for s in grid.slots]
    assert labels == ["1A", "5A", "6A", "7A", "8A", "1D", "2D", "3D", "4D", "5D"]
    assert grid.slot("1A").length == 4 and grid.slot("5D").length == 4
    assert grid.slot("5A") == grid.slot("5a")
    assert grid.is_symmetric()
    assert grid.blocks == 2
    assert not Grid.parse(["#....", ".....", ".....", ".....", "....."]).is_symmetric()
    with pytest.raises(KeyError):
        grid.slot("9A")
    assert grid.slot("h1").label == "1A"  # row 1 holds one across slot, so h1 names it
    with pytest.raises(KeyError):
        grid.slot("banana")


def test_tot_name_is_refused_when_ambiguous() -> None:
    grid = Grid.parse(["...#...", ".......", "...#..."])
    with pytest.raises(KeyError):
        grid.slot("h1")  # two across slots in row 1


def test_uncovered_cells_and_bad_grids() -> None:
    grid = Grid.parse(["#.#", "...", "#.#"])
    assert grid.uncovered() == ()
    lonely = Grid.parse(["..#", "##.", "..#"])
    assert (1, 2) in lonely.uncovered()
    with pytest.raises(CrosswordError):
        Grid(("...", ".."))
    with pytest.raises(CrosswordError):
        Grid(("..x",))
    with pytest.raises(CrosswordError):
        Grid(())
    with pytest.raises(CrosswordError):
        Grid.full(65)


def test_slot_cells_and_directions() -> None:
    grid = Grid.full(3)
    across = grid.slot("1A")
    down = grid.slot("1D")
    assert across.cells == ((0, 0), (0, 1), (0, 2))
    assert down.cells == ((0, 0), (1, 0), (2, 0))
    assert str(down) == "1 Down"
    assert Direction.parse("v") is Direction.DOWN and Direction.parse("Across") is Direction.ACROSS
    assert grid.slots_at((1, 1)) == (grid.slot("4A"), grid.slot("2D"))


# --- the crossword --------------------------------------------------------------------------


def test_entries_answers_and_letters() -> None:
    cw = mini()
    assert cw.entry("h1").answer == "SPOIL"
    assert cw.entry("v1").answer == "STERN"
    assert cw.entry("4D").answer == "IDLED"
    assert [e.answer for e in cw.down] == ["STERN", "PIXIE", "OLIVE", "IDLED", "LEERS"]
    assert cw.letter((2, 2)) == "I"
    assert len(cw.entries) == 10
    assert cw.clues[0].label == "1A"  # kept in grid order whatever order they came in


def test_crossword_validation() -> None:
    grid = Grid.full(3)
    with pytest.raises(CrosswordError, match="no clue for"):
        Crossword(("ABC", "DEF", "GHI"), (Clue(grid.slot("1A"), "x"),))
    clues = tuple(Clue(s, "x") for s in grid.slots)
    with pytest.raises(CrosswordError, match="two clues"):
        Crossword(("ABC", "DEF", "GHI"), (*clues, clues[0]))
    with pytest.raises(CrosswordError, match="holds"):
        Crossword(("AB?", "DEF", "GHI"), clues)
    other = Grid.full(4).slot("1A")
    with pytest.raises(CrosswordError, match="no matching slot"):
        Crossword(("ABC", "DEF", "GHI"), (*clues[1:], Clue(other, "x")))


def test_from_entries_checks_lengths_and_crossings() -> None:
    grid = Grid.parse(["...", ".##", ".##"])
    ok = Crossword.from_entries(grid, {"1A": ("Feline", "cat"), "1D": ("Taxi", "cab")})
    assert ok.solution == ("CAT", "A##", "B##")
    with pytest.raises(CrosswordError, match="3 long"):
        Crossword.from_entries(grid, {"1A": ("Feline", "cats"), "1D": ("Taxi", "cab")})
    with pytest.raises(CrosswordError, match="where 1A has C"):
        Crossword.from_entries(grid, {"1A": ("Feline", "cat"), "1D": ("Taxi", "tab")})
    with pytest.raises(CrosswordError, match="no answer covers"):
        Crossword.from_entries(grid, {"1A": ("Feline", "cat")})


# --- boards and the three measures ----------------------------------------------------------


def test_empty_and_solved_boards() -> None:
    cw = mini()
    empty = cw.check(cw.empty_board())
    assert (empty.letters_correct, empty.letters_total) == (0, 25)
    assert (empty.words_correct, empty.words_total) == (0, 10)
    assert not empty.ok and len(empty.empty_cells) == 25 and empty.wrong_cells == ()
    solved = cw.check(cw.solved_board())
    assert solved.ok and solved.solved
    assert solved.letter_accuracy == 1.0 and solved.word_accuracy == 1.0
    assert "solved" in solved.reason


def test_tot_measures_on_a_partly_right_board() -> None:
    cw = mini()
    # ToT's env: letters right over 25, words right over 10, game solved.
    board = Board.from_rows(cw.grid, ["SPOIL", "TILDE", "EXILE", "RIVER", "NEEDY"])
    verdict = cw.check(board)
    assert verdict.letters_correct == 24
    assert verdict.letter_accuracy == pytest.approx(24 / 25)
    assert verdict.words_correct == 8  # h5 and v5 are wrong
    assert verdict.word_accuracy == pytest.approx(0.8)
    assert not verdict.ok
    assert verdict.wrong_cells == ((4, 4),)
    assert "24/25" in verdict.reason
    assert not cw.check_word(board, "h5") and cw.check_word(board, "1A")
    assert cw.check_letter(board, (0, 0)) and not cw.check_letter(board, (4, 4))


def test_board_from_tot_string_with_blanks() -> None:
    cw = mini()
    board = Board.from_rows(cw.grid, "SPOIL" + "_" * 20)
    assert board.filled == 5
    assert board.word(cw.grid.slot("v1")) == "S____"
    verdict = cw.check(board)
    assert verdict.letters_correct == 5 and verdict.words_correct == 1
    with pytest.raises(CrosswordError):
        Board.from_rows(cw.grid, "SPOIL")
    with pytest.raises(CrosswordError):
        Board.from_rows(cw.grid, ["SPOIL"] * 4)


def test_writing_erasing_and_pencil_marks() -> None:
    cw = mini()
    board = cw.empty_board().write_word(cw.grid.slot("1A"), "spoil")
    board = board.write((1, 0), "t", pencil=True)
    assert board.letter((0, 0)) == "S" and board.letter((1, 0)) == "T"
    assert board.pencilled == frozenset({(1, 0)})
    board = board.write((1, 0), "T")  # inked over
    assert board.pencilled == frozenset()
    board = board.erase((0, 0))
    assert board.letter((0, 0)) == ""
    # Blanks in a word leave cells as they are.
    board = board.write_word(cw.grid.slot("1D"), "__ERN")
    assert board.word(cw.grid.slot("1D")) == "_TERN"
    assert "_TERN"[1:] in "".join(r[0] for r in board.render().splitlines())
    with pytest.raises(CrosswordError):
        board.write((0, 0), "!")
    with pytest.raises(CrosswordError):
        board.write_word(cw.grid.slot("1A"), "TOOLONG")


def test_boards_refuse_blocks_and_foreign_grids() -> None:
    cw = blocked()
    with pytest.raises(CrosswordError, match="block"):
        cw.empty_board().write((0, 0), "A")
    with pytest.raises(CrosswordError):
        mini().check(cw.empty_board())
    with pytest.raises(IndexError):
        cw.empty_board().write((9, 9), "A")


# --- public view ----------------------------------------------------------------------------


def test_public_view_never_shows_the_solution() -> None:
    cw = mini()
    view = cw.public_view()
    text = json.dumps(view.to_dict())
    for row in ROWS:
        assert row not in text
    for entry in cw.entries:
        assert entry.answer not in text
    assert "solution" not in text and "answer" not in text
    assert not hasattr(view, "solution")
    assert view.clue("h2").text == "A diacritical mark"
    assert [c.label for c in view.across] == ["1A", "6A", "7A", "8A", "9A"]
    assert view.empty_board().filled == 0
    full = cw.to_dict()
    assert full["solution"] == list(ROWS) and full["clues"][0]["answer"] == "SPOIL"
    assert "solution" not in cw.to_dict(solution=False)


# --- problems -------------------------------------------------------------------------------


def test_problems_of_a_good_puzzle() -> None:
    assert mini().problems() == ()


def test_problems_found() -> None:
    grid = Grid.full(3)
    clues = [Clue(s, f"Clue for {s.label}") for s in grid.slots]
    clues[0] = Clue(grid.slot("1A"), "")  # empty
    clues[1] = Clue(grid.slot("4A"), "Something", enumeration="2,2")  # adds to 4, slot has 3
    clues[2] = Clue(grid.slot("5A"), "A ghi, as it were")  # gives the answer away
    cw = Crossword(
        ("ABC", "DEF", "GHI"),
        tuple(clues),
        stated=(("1D", "AXG"), ("2D", "BE")),  # 1D disagrees with 4A where they cross
    )
    found = {(p.label, p.serious): p.message for p in cw.problems()}
    assert ("1A", True) in found and "empty" in found[("1A", True)]
    assert "enumeration" in found[("4A", True)]
    assert "contains its answer" in found[("5A", False)]
    assert "4A" in found[("1D", True)]  # names the crossing that disagrees
    assert "2 letters" in found[("2D", True)]


def test_repeated_answers_are_a_warning() -> None:
    grid = Grid.full(3)
    cw = Crossword(("ABC", "BDE", "CEF"), tuple(Clue(s, "x") for s in grid.slots))
    warnings = [p for p in cw.problems() if not p.serious]
    assert len(warnings) == 3 and "ABC is the answer to 1A, 1D" in str(warnings[0])


def test_uncovered_cell_is_a_problem() -> None:
    grid = Grid.parse(["..#", "##.", "..#"])
    cw = Crossword(("AB#", "##C", "DE#"), tuple(Clue(s, "x") for s in grid.slots))
    assert any("in no entry" in p.message for p in cw.problems())


@pytest.mark.parametrize(
    ("clue", "answer", "expected"),
    [
        ("Feline pet", "CAT", False),
        ("Cats and dogs", "CAT", True),
        ("A cat's toy", "CAT", True),
        ("Running fast", "RUN", True),
        ("Runs", "RUN", True),
        ("Category", "CAT", False),
        ("Be asleep", "SLEEP", False),
    ],
)
def test_mentions_answer(clue: str, answer: str, expected: bool) -> None:
    assert mentions_answer(clue, answer) is expected


def test_mentions_answer_strict() -> None:
    assert mentions_answer("Be asleep", "SLEEP", strict=True)
    assert mentions_answer("Catwalk model", "CAT", strict=True)
    assert mentions_answer("Tree house", "TREES", strict=True)
    assert not mentions_answer("Feline pet", "CAT", strict=True)
