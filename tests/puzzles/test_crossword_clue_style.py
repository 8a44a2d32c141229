"""Generated clues read like clues: no leading article or "to", short heads of long
definitions, no participle cut from its complement."""

from __future__ import annotations

from puzzles.crossword import write_clue
from puzzles.crossword.clues import MAX_CLUE_LENGTH, SHORT_CLUE_LENGTH
from puzzles.crossword.wordlist import Sense, Word


def one_sense(text: str, pos: str, definition: str) -> Word:
    return Word(text, 1, 10, (Sense(pos, definition),))


def test_a_leading_article_or_to_is_dropped() -> None:
    fence = one_sense("FENCE", "n", "a barrier that serves to enclose an area")
    assert write_clue(fence) == "Barrier that serves to enclose an area"
    force = one_sense("FORCE", "v", "to cause to do through pressure or necessity")
    assert write_clue(force) == "Cause to do through pressure or necessity"
    orbit = one_sense("ORBIT", "n", "the (usually elliptical) path described by a planet")
    assert write_clue(orbit) == "Path described by a planet"


def test_an_article_stays_when_it_is_all_but_the_clue() -> None:
    # "A cat" would leave one word, "Cat": the clue keeps its article rather than shrink.
    word = one_sense("PUMA", "n", "a cat")
    assert write_clue(word) == "A cat"


def test_long_definitions_are_cut_short_at_a_break() -> None:
    sedan = one_sense(
        "SEDAN",
        "n",
        "a car that is closed and that has front and rear seats and two or four doors",
    )
    assert write_clue(sedan) == "Car that is closed"
    apple = one_sense(
        "APPLE",
        "n",
        "fruit with red or yellow or green skin and sweet to tart crisp whitish flesh",
    )
    assert write_clue(apple) == "Fruit with red or yellow or green skin"
    for word in (sedan, apple):
        clue = write_clue(word)
        assert clue is not None and len(clue) <= SHORT_CLUE_LENGTH


def test_a_participle_keeps_its_complement() -> None:
    birds = one_sense(
        "BIRDS",
        "n",
        "warm-blooded egg-laying vertebrates characterized by feathers and forelimbs "
        "modified as wings",
    )
    clue = write_clue(birds)
    assert clue is not None and not clue.endswith("characterized"), clue
    assert len(clue) <= MAX_CLUE_LENGTH
