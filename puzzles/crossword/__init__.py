"""Mini crosswords: grids, clues, boards and exact checks; loaders for ToT's JSON, ipuz and
.puz; a seeded generator of 5 x 5 minis; and a clue index over a bundled word list built
from WordNet 3.0 and SCOWL (see ``data/LICENSE-*``).

The word list and the clue index load on first use, not on import.
"""

from puzzles.crossword.clues import Candidate, ClueIndex, clue_index, clue_options, write_clue
from puzzles.crossword.generator import PATTERNS, GenerationError, fill, generate
from puzzles.crossword.loaders import (
    MAX_FILE_BYTES,
    PuzzleFileError,
    detect_format,
    load_crosswords,
    load_ipuz,
    load_puz,
    load_tot,
    parse_ipuz,
    parse_puz,
    parse_tot,
    to_ipuz,
    to_tot,
    tot_puzzle,
)
from puzzles.crossword.model import (
    BLOCK,
    EMPTY,
    MAX_SIZE,
    Board,
    Cell,
    Clue,
    Crossword,
    CrosswordError,
    Direction,
    Entry,
    Grid,
    Problem,
    PublicCrossword,
    Slot,
    Verdict,
    mentions_answer,
)
from puzzles.crossword.wordlist import Sense, Word, WordList, match_pattern, word_list

__all__ = [
    "BLOCK",
    "EMPTY",
    "MAX_FILE_BYTES",
    "MAX_SIZE",
    "PATTERNS",
    "Board",
    "Candidate",
    "Cell",
    "Clue",
    "ClueIndex",
    "Crossword",
    "CrosswordError",
    "Direction",
    "Entry",
    "GenerationError",
    "Grid",
    "Problem",
    "PublicCrossword",
    "PuzzleFileError",
    "Sense",
    "Slot",
    "Verdict",
    "Word",
    "WordList",
    "clue_index",
    "clue_options",
    "detect_format",
    "fill",
    "generate",
    "load_crosswords",
    "load_ipuz",
    "load_puz",
    "load_tot",
    "match_pattern",
    "mentions_answer",
    "parse_ipuz",
    "parse_puz",
    "parse_tot",
    "to_ipuz",
    "to_tot",
    "tot_puzzle",
    "word_list",
    "write_clue",
]
