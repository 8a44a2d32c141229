"""The mini crossword generator: valid grids, no repeats, clean clues, same seed same grid."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from puzzles.crossword import (
    PATTERNS,
    GenerationError,
    Grid,
    fill,
    generate,
    mentions_answer,
    word_list,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(6)


def assert_good(seed: int, blocks: bool) -> None:
    puzzle = generate(seed, blocks=blocks)
    words = word_list()
    answers = [e.answer for e in puzzle.entries]
    assert len(set(answers)) == len(answers), answers
    roots = [words.get(a).base or a.lower() for a in answers]  # type: ignore[union-attr]
    assert len(set(roots)) == len(roots), answers  # not TREE and TREES
    for entry in puzzle.entries:
        word = words.get(entry.answer)
        assert word is not None
        assert 3 <= len(entry.answer) <= 5
        assert entry.clue.text and entry.clue.text[0].isupper()
        assert not mentions_answer(entry.clue.text, entry.answer, strict=True), entry
        if word.base:
            assert not mentions_answer(entry.clue.text, word.base, strict=True), entry
    assert puzzle.problems() == ()
    assert puzzle.grid.is_symmetric()
    assert puzzle.check(puzzle.solved_board()).ok


@pytest.mark.parametrize("seed", SEEDS)
def test_full_grids_are_good(seed: int) -> None:
    puzzle = generate(seed)
    assert puzzle.grid == Grid.full(5)
    assert len(puzzle.entries) == 10
    assert_good(seed, blocks=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_grids_with_blocks_are_good(seed: int) -> None:
    puzzle = generate(seed, blocks=True)
    assert puzzle.grid.blocks > 0
    assert puzzle.grid.rows in PATTERNS
    assert_good(seed, blocks=True)


def test_mostly_common_words() -> None:
    words = word_list()
    answers = [e.answer for seed in SEEDS for e in generate(seed).entries]
    common = sum(words.get(a).is_common(35) for a in answers)  # type: ignore[union-attr]
    assert common / len(answers) >= 0.9


def test_same_seed_same_puzzle_and_seeds_differ() -> None:
    assert generate(7) == generate(7)
    assert generate(7).clues == generate(7).clues
    assert generate(7).solution != generate(8).solution
    assert generate(5, blocks=True) == generate(5, blocks=True)


def test_deterministic_across_processes() -> None:
    code = "from puzzles.crossword import generate; print(generate(21).solution)"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1
    assert runs == {str(generate(21).solution) + "\n"}


def test_patterns_are_valid() -> None:
    for pattern in PATTERNS:
        grid = Grid(pattern)
        assert grid.is_symmetric()
        assert grid.uncovered() == ()
        assert all(3 <= s.length <= 5 for s in grid.slots)
        for cell in grid.cells():
            assert len(grid.slots_at(cell)) == 2  # every letter checked


def test_custom_pattern_and_fill() -> None:
    pattern = ("##...", "#....", ".....", "....#", "...##")
    puzzle = generate(2, pattern=pattern)
    assert puzzle.grid.rows == pattern
    grid = Grid.parse(["...", "...", "..."])
    found = fill(grid, seed=1, max_level=0)
    assert found is not None and set(found) == set(grid.slots)
    for slot, word in found.items():
        assert len(word.text) == slot.length


def test_unfillable_pattern_is_refused() -> None:
    with pytest.raises(GenerationError, match="3 to 5 letters"):
        generate(0, pattern=(".....", ".....", "..#..", ".....", "....."))
    with pytest.raises(GenerationError):
        generate(0, pattern=("......",) * 6)
