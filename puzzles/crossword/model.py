"""Crosswords: the grid and its numbered slots, clues and answers, a player's board, and the
exact checks of a board against the solution.

Everything here is an immutable value. A :class:`Grid` is only the shape (where the blocks
are); numbering is the standard one: scanning row by row, a cell gets the next number when it
starts an across or a down run of two or more open cells. A :class:`Crossword` is a solution
grid plus one :class:`Clue` per slot; :meth:`Crossword.public_view` is what a player may see
(never a letter of the solution). A :class:`Board` is what a player has written so far.

The three measures of Tree of Thoughts' mini crossword task (letters correct over cells, words
correct over entries, game solved) come from :meth:`Crossword.check`.
"""

from __future__ import annotations

import enum
import re
import string
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BLOCK",
    "EMPTY",
    "MAX_SIZE",
    "Board",
    "Cell",
    "Clue",
    "Crossword",
    "CrosswordError",
    "Direction",
    "Entry",
    "Grid",
    "Problem",
    "PublicCrossword",
    "Slot",
    "Verdict",
    "mentions_answer",
]

BLOCK = "#"
"""A black square, in grids, solutions and boards."""
EMPTY = "."
"""An open cell with nothing written in it (in a :class:`Grid`, simply an open cell)."""
MAX_SIZE = 64
"""Most rows or columns a grid may have (the largest published crosswords are about 27)."""
LETTERS = frozenset(string.ascii_uppercase + string.digits)
"""What a solution cell may hold: one upper-case letter or digit (rebuses are not modelled)."""
_BLANKS = frozenset("._-? ")

Cell = tuple[int, int]
"""(row, column), both counted from zero."""


class CrosswordError(ValueError):
    """A crossword, grid or board that cannot be built, with the reason."""


class Direction(enum.StrEnum):
    """Across or down."""

    ACROSS = "across"
    DOWN = "down"

    @property
    def letter(self) -> str:
        """``A`` or ``D``, as in the label ``1A``."""
        return "A" if self is Direction.ACROSS else "D"

    @classmethod
    def parse(cls, text: str) -> Direction:
        """``across``/``a``/``h`` (ToT's horizontal) or ``down``/``d``/``v``."""
        key = text.strip().lower()
        if key in ("across", "a", "h", "horizontal"):
            return cls.ACROSS
        if key in ("down", "d", "v", "vertical"):
            return cls.DOWN
        raise CrosswordError(f"{text!r} is not a direction (across or down)")


@dataclass(frozen=True, slots=True)
class Slot:
    """A run of open cells that takes one answer: ``number`` and ``direction`` name it
    (``1A``), ``row``/``col`` is its first cell."""

    number: int
    direction: Direction
    row: int
    col: int
    length: int

    @property
    def label(self) -> str:
        """``1A``, ``4D``."""
        return f"{self.number}{self.direction.letter}"

    @property
    def cells(self) -> tuple[Cell, ...]:
        if self.direction is Direction.ACROSS:
            return tuple((self.row, self.col + i) for i in range(self.length))
        return tuple((self.row + i, self.col) for i in range(self.length))

    @property
    def tot_name(self) -> str:
        """Tree of Thoughts' name: ``h3`` for the across slot in row 3, ``v2`` for the down
        slot in column 2 (meaningful for grids without blocks, where each row and column
        holds exactly one slot)."""
        if self.direction is Direction.ACROSS:
            return f"h{self.row + 1}"
        return f"v{self.col + 1}"

    def __str__(self) -> str:
        return f"{self.number} {self.direction.value.capitalize()}"


_LABEL = re.compile(r"^\s*(\d{1,4})\s*[-\s.]?\s*(a|d|across|down)\s*$", re.IGNORECASE)
_LABEL_FIRST = re.compile(r"^\s*(a|d|across|down)\s*[-\s.]?\s*(\d{1,4})\s*$", re.IGNORECASE)
_TOT_NAME = re.compile(r"^\s*([hv])(\d{1,2})\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Grid:
    """The shape of a crossword: ``rows`` of ``.`` (open) and ``#`` (block)."""

    rows: tuple[str, ...]
    _slots: tuple[Slot, ...] = field(init=False, repr=False, compare=False)
    _numbers: Mapping[Cell, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rows = self.rows
        if not isinstance(rows, tuple) or not all(isinstance(r, str) for r in rows):
            raise CrosswordError("a grid is a tuple of row strings")
        if not 1 <= len(rows) <= MAX_SIZE:
            raise CrosswordError(f"a grid has 1 to {MAX_SIZE} rows, not {len(rows)}")
        width = len(rows[0])
        if not 1 <= width <= MAX_SIZE:
            raise CrosswordError(f"a grid has 1 to {MAX_SIZE} columns, not {width}")
        for number, row in enumerate(rows, start=1):
            if len(row) != width:
                raise CrosswordError(
                    f"row {number} has {len(row)} cells but row 1 has {width}: "
                    "a grid is a rectangle"
                )
            bad = set(row) - {EMPTY, BLOCK}
            if bad:
                raise CrosswordError(f"row {number} holds {sorted(bad)[0]!r}; use '.' and '#'")
        slots, numbers = _number(rows)
        object.__setattr__(self, "_slots", slots)
        object.__setattr__(self, "_numbers", numbers)

    @classmethod
    def full(cls, height: int = 5, width: int | None = None) -> Grid:
        """A grid without blocks (ToT's minis are 5 x 5 full grids)."""
        return cls(tuple(EMPTY * (width or height) for _ in range(height)))

    @classmethod
    def parse(cls, rows: Iterable[str] | str) -> Grid:
        """A grid from rows (or one text with a row per line, or rows split by ``/``):
        ``#`` is a block and any other character an open cell, so a solution's rows give
        its grid."""
        if isinstance(rows, str):
            rows = rows.split("/") if "/" in rows else rows.split()
        return cls(tuple("".join(BLOCK if ch == BLOCK else EMPTY for ch in r) for r in rows))

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    def is_block(self, cell: Cell) -> bool:
        """True for a black square; :class:`IndexError` off the grid."""
        row, col = cell
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise IndexError(f"cell {cell} is off the {self.height} x {self.width} grid")
        return self.rows[row][col] == BLOCK

    def cells(self) -> Iterator[Cell]:
        """The open cells, row by row."""
        for r, row in enumerate(self.rows):
            for c, ch in enumerate(row):
                if ch != BLOCK:
                    yield (r, c)

    @property
    def blocks(self) -> int:
        return sum(row.count(BLOCK) for row in self.rows)

    @property
    def slots(self) -> tuple[Slot, ...]:
        """Every slot: the across ones by number, then the down ones by number."""
        return self._slots

    @property
    def across(self) -> tuple[Slot, ...]:
        return tuple(s for s in self._slots if s.direction is Direction.ACROSS)

    @property
    def down(self) -> tuple[Slot, ...]:
        return tuple(s for s in self._slots if s.direction is Direction.DOWN)

    def number_at(self, cell: Cell) -> int | None:
        """The number printed in a cell, if any."""
        return self._numbers.get(cell)

    def slots_at(self, cell: Cell) -> tuple[Slot, ...]:
        """The slots through a cell (none, one or two)."""
        return tuple(s for s in self._slots if cell in s.cells)

    def slot(self, label: str) -> Slot:
        """The slot named ``1A``, ``1-Across``, ``across 1`` or, in a grid whose rows and
        columns hold one slot each, ToT's ``h1``/``v1``; :class:`KeyError` when none is."""
        match = _LABEL.match(label) or _LABEL_FIRST.match(label)
        if match:
            groups = match.groups()
            number_text, direction_text = groups if groups[0].isdigit() else groups[::-1]
            direction = Direction.parse(direction_text)
            for s in self._slots:
                if s.number == int(number_text) and s.direction is direction:
                    return s
            raise KeyError(f"the grid has no {number_text} {direction.value}")
        tot = _TOT_NAME.match(label)
        if tot:
            wanted = [s for s in self._slots if s.tot_name == tot.group(0).strip().lower()]
            if len(wanted) == 1:
                return wanted[0]
            raise KeyError(f"{label!r} names no single slot in this grid")
        raise KeyError(f"{label!r} is not a slot label such as 1A or 4D")

    def is_symmetric(self) -> bool:
        """True when the blocks look the same after a half turn (the usual rule)."""
        return self.rows == tuple(row[::-1] for row in reversed(self.rows))

    def uncovered(self) -> tuple[Cell, ...]:
        """Open cells that belong to no slot (they could never be clued)."""
        covered = {cell for s in self._slots for cell in s.cells}
        return tuple(c for c in self.cells() if c not in covered)


def _number(rows: tuple[str, ...]) -> tuple[tuple[Slot, ...], dict[Cell, int]]:
    height, width = len(rows), len(rows[0])

    def open_(r: int, c: int) -> bool:
        return 0 <= r < height and 0 <= c < width and rows[r][c] != BLOCK

    across: list[Slot] = []
    down: list[Slot] = []
    numbers: dict[Cell, int] = {}
    number = 0
    for r in range(height):
        for c in range(width):
            if not open_(r, c):
                continue
            starts_across = not open_(r, c - 1) and open_(r, c + 1)
            starts_down = not open_(r - 1, c) and open_(r + 1, c)
            if not (starts_across or starts_down):
                continue
            number += 1
            numbers[(r, c)] = number
            if starts_across:
                length = 1
                while open_(r, c + length):
                    length += 1
                across.append(Slot(number, Direction.ACROSS, r, c, length))
            if starts_down:
                length = 1
                while open_(r + length, c):
                    length += 1
                down.append(Slot(number, Direction.DOWN, r, c, length))
    return (*across, *down), numbers


@dataclass(frozen=True, slots=True)
class Clue:
    """The clue for one slot. ``enumeration`` is the length hint some sources print after
    a clue (``5`` or ``2,3``), kept as written; empty when there is none."""

    slot: Slot
    text: str
    enumeration: str = ""

    @property
    def label(self) -> str:
        return self.slot.label

    def __str__(self) -> str:
        tail = f" ({self.enumeration})" if self.enumeration else ""
        return f"{self.slot.number}. {self.text}{tail}"


@dataclass(frozen=True, slots=True)
class Entry:
    """A clue with its answer."""

    clue: Clue
    answer: str

    @property
    def slot(self) -> Slot:
        return self.clue.slot

    @property
    def label(self) -> str:
        return self.clue.slot.label


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a crossword. ``serious`` problems make it unfit to play
    (``ponder puzzles crossword --check`` fails on them); the others are flaws worth knowing
    (a repeated answer, a clue that gives its answer away)."""

    message: str
    label: str = ""
    serious: bool = True

    def __str__(self) -> str:
        where = f"{self.label}: " if self.label else ""
        kind = "" if self.serious else "warning: "
        return f"{kind}{where}{self.message}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The exact check of a board: ToT's three measures and where the board is wrong.

    ``letters_correct / letters_total`` is the letter accuracy (cells holding the right
    letter, over all open cells), ``words_correct / words_total`` the word accuracy (slots
    whose every letter is right, over all slots), and ``ok`` whether the game is solved
    (every letter right)."""

    ok: bool
    reason: str
    letters_correct: int
    letters_total: int
    words_correct: int
    words_total: int
    wrong_cells: tuple[Cell, ...] = ()
    empty_cells: tuple[Cell, ...] = ()

    @property
    def solved(self) -> bool:
        return self.ok

    @property
    def letter_accuracy(self) -> float:
        return self.letters_correct / self.letters_total if self.letters_total else 0.0

    @property
    def word_accuracy(self) -> float:
        return self.words_correct / self.words_total if self.words_total else 0.0


@dataclass(frozen=True, slots=True)
class Board:
    """What a player has written: ``letters`` rows hold a letter, ``.`` (empty) or ``#``
    (block) per cell; ``pencilled`` cells hold tentative letters (pencil marks)."""

    grid: Grid
    letters: tuple[str, ...]
    pencilled: frozenset[Cell] = frozenset()

    def __post_init__(self) -> None:
        if len(self.letters) != self.grid.height:
            raise CrosswordError(
                f"the board has {len(self.letters)} rows but the grid {self.grid.height}"
            )
        for r, (row, shape) in enumerate(zip(self.letters, self.grid.rows, strict=True)):
            if len(row) != len(shape):
                raise CrosswordError(f"board row {r + 1} has {len(row)} cells, not {len(shape)}")
            for c, (ch, kind) in enumerate(zip(row, shape, strict=True)):
                if (ch == BLOCK) != (kind == BLOCK):
                    raise CrosswordError(f"cell {r + 1},{c + 1}: blocks differ from the grid")
                if ch not in LETTERS and ch not in (EMPTY, BLOCK):
                    raise CrosswordError(f"cell {r + 1},{c + 1} holds {ch!r}")
        for cell in self.pencilled:
            if self.letter(cell) == "":
                raise CrosswordError(f"cell {cell} is pencilled but empty")

    @classmethod
    def empty(cls, grid: Grid) -> Board:
        return cls(grid, grid.rows)

    @classmethod
    def from_rows(cls, grid: Grid, rows: Sequence[str] | str) -> Board:
        """A board from rows of letters; ``.``, ``_``, ``-``, ``?`` and spaces are empty
        cells (ToT writes ``_``), ``#`` blocks; letters may be lower case. One string with
        the rows run together works too (ToT's 25 letters)."""
        if isinstance(rows, str):
            flat = rows.strip()
            if len(flat) != grid.height * grid.width:
                raise CrosswordError(
                    f"{len(flat)} characters do not fill a {grid.height} x {grid.width} grid"
                )
            rows = [flat[i : i + grid.width] for i in range(0, len(flat), grid.width)]
        if len(rows) != grid.height:
            raise CrosswordError(f"{len(rows)} rows for a grid of {grid.height}")
        out = []
        for r, (row, shape) in enumerate(zip(rows, grid.rows, strict=True), start=1):
            if len(row) != len(shape):
                raise CrosswordError(f"row {r} has {len(row)} cells, not {len(shape)}")
            chars = []
            for ch, kind in zip(row, shape, strict=True):
                if kind == BLOCK:
                    chars.append(BLOCK)
                elif ch in _BLANKS or ch == BLOCK:
                    chars.append(EMPTY)
                else:
                    chars.append(ch.upper())
            out.append("".join(chars))
        return cls(grid, tuple(out))

    def letter(self, cell: Cell) -> str:
        """The letter in a cell, ``""`` when empty or a block."""
        if self.grid.is_block(cell):
            return ""
        ch = self.letters[cell[0]][cell[1]]
        return "" if ch == EMPTY else ch

    def write(self, cell: Cell, letter: str, *, pencil: bool = False) -> Board:
        """The board with ``letter`` in ``cell`` (``""`` erases); :class:`CrosswordError` for
        a block or something that is not a letter."""
        if self.grid.is_block(cell):
            raise CrosswordError(f"cell {cell} is a block")
        letter = letter.strip().upper()
        if letter and letter not in LETTERS:
            raise CrosswordError(f"{letter!r} is not a letter")
        r, c = cell
        row = self.letters[r]
        new_row = row[:c] + (letter or EMPTY) + row[c + 1 :]
        letters = (*self.letters[:r], new_row, *self.letters[r + 1 :])
        pencilled = self.pencilled - {cell}
        if pencil and letter:
            pencilled = pencilled | {cell}
        return Board(self.grid, letters, frozenset(pencilled))

    def erase(self, cell: Cell) -> Board:
        return self.write(cell, "")

    def write_word(self, slot: Slot, word: str, *, pencil: bool = False) -> Board:
        """The board with ``word`` along ``slot``; blanks (``_``, ``.``, ``?``) leave a cell
        as it is. :class:`CrosswordError` when the length is wrong."""
        word = word.strip()
        if len(word) != slot.length:
            raise CrosswordError(
                f"{slot.label} takes {slot.length} letters; {word!r} has {len(word)}"
            )
        board = self
        for cell, ch in zip(slot.cells, word, strict=True):
            if ch not in _BLANKS:
                board = board.write(cell, ch, pencil=pencil)
        return board

    def word(self, slot: Slot) -> str:
        """What is written along a slot, ``_`` for each empty cell (ToT's rendering)."""
        return "".join(self.letter(cell) or "_" for cell in slot.cells)

    @property
    def filled(self) -> int:
        return sum(1 for cell in self.grid.cells() if self.letter(cell))

    @property
    def is_full(self) -> bool:
        return all(self.letter(cell) for cell in self.grid.cells())

    def render(self) -> str:
        """The board as text, a row per line, ``_`` for empty cells and ``#`` for blocks."""
        return "\n".join(row.replace(EMPTY, "_") for row in self.letters)


@dataclass(frozen=True, slots=True)
class PublicCrossword:
    """Exactly what a player sees: the grid, its numbers and the clues, never an answer."""

    grid: Grid
    clues: tuple[Clue, ...]
    title: str = ""
    author: str = ""
    copyright: str = ""
    notes: str = ""

    @property
    def across(self) -> tuple[Clue, ...]:
        return tuple(c for c in self.clues if c.slot.direction is Direction.ACROSS)

    @property
    def down(self) -> tuple[Clue, ...]:
        return tuple(c for c in self.clues if c.slot.direction is Direction.DOWN)

    def clue(self, label: str) -> Clue:
        slot = self.grid.slot(label)
        return next(c for c in self.clues if c.slot == slot)

    def empty_board(self) -> Board:
        return Board.empty(self.grid)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description without the solution."""
        return {
            "title": self.title,
            "author": self.author,
            "copyright": self.copyright,
            "notes": self.notes,
            "width": self.grid.width,
            "height": self.grid.height,
            "grid": list(self.grid.rows),
            "clues": [_clue_dict(c) for c in self.clues],
        }


def _clue_dict(clue: Clue) -> dict[str, Any]:
    out: dict[str, Any] = {
        "label": clue.label,
        "number": clue.slot.number,
        "direction": clue.slot.direction.value,
        "row": clue.slot.row,
        "col": clue.slot.col,
        "length": clue.slot.length,
        "clue": clue.text,
    }
    if clue.enumeration:
        out["enumeration"] = clue.enumeration
    return out


_WORD = re.compile(r"[a-z0-9]+")
_SUFFIXES = ("ings", "ing", "ers", "est", "ies", "ied", "ed", "er", "es", "ly", "s", "y", "e")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def mentions_answer(text: str, answer: str, *, strict: bool = False) -> bool:
    """Whether a clue gives its answer away: a word of the clue is the answer, shares its
    stem (``runs``, ``running`` for ``RUN``) or is the answer plus a short ending (``cats``).
    ``strict`` (what the generator asks) also refuses any word that starts with the answer's
    stem (``catwalk`` for ``CAT``), holds an answer of four or more letters (``asleep`` for
    ``SLEEP``) or begins the answer (``tree`` for ``TREETOP``)."""
    answer = answer.lower()
    if not answer:
        return False
    stem = _stem(answer)
    for word in _WORD.findall(text.lower()):
        if word == answer or _stem(word) == stem:
            return True
        if word.startswith(answer) and len(word) - len(answer) <= 4:
            return True
        if strict:
            if len(stem) >= 3 and word.startswith(stem):
                return True
            if len(answer) >= 4 and answer in word:  # "asleep" for SLEEP
                return True
            word_stem = _stem(word)
            if len(word_stem) >= 3 and answer.startswith(word_stem):
                return True
    return False


@dataclass(frozen=True)
class Crossword:
    """A crossword with its solution: ``solution`` rows of letters and ``#`` blocks, one clue
    per slot of the grid they shape, and what is known of where it came from.

    ``stated`` holds answers a source gives separately from the grid (ipuz clues may carry
    one); :meth:`problems` reports any that disagree with the grid."""

    solution: tuple[str, ...]
    clues: tuple[Clue, ...]
    title: str = ""
    author: str = ""
    copyright: str = ""
    notes: str = ""
    source: str = ""
    stated: tuple[tuple[str, str], ...] = ()
    grid: Grid = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.solution, tuple) or not self.solution:
            raise CrosswordError("a crossword needs solution rows")
        for r, row in enumerate(self.solution, start=1):
            if not isinstance(row, str):
                raise CrosswordError(f"solution row {r} is not text")
            for c, ch in enumerate(row, start=1):
                if ch != BLOCK and ch not in LETTERS:
                    raise CrosswordError(
                        f"solution cell {r},{c} holds {ch!r}; cells hold one letter A-Z or "
                        "a digit, blocks '#'"
                    )
        grid = Grid.parse(self.solution)
        object.__setattr__(self, "grid", grid)
        by_slot: dict[Slot, Clue] = {}
        for clue in self.clues:
            if clue.slot not in grid.slots:
                raise CrosswordError(f"clue {clue.label} has no matching slot in the grid")
            if clue.slot in by_slot:
                raise CrosswordError(f"two clues for {clue.label}")
            by_slot[clue.slot] = clue
        missing = [s.label for s in grid.slots if s not in by_slot]
        if missing:
            raise CrosswordError(f"no clue for {', '.join(missing[:6])}")
        object.__setattr__(self, "clues", tuple(by_slot[s] for s in grid.slots))

    @classmethod
    def from_clues(
        cls,
        solution: Iterable[str] | str,
        clues: Mapping[str, str],
        **meta: Any,
    ) -> Crossword:
        """A crossword from solution rows (``#`` for blocks; lower case is fine) and clue
        texts by label (``{"1A": "...", "1D": "..."}`` or ToT's ``h1``..``v5``)."""
        rows = _solution_rows(solution)
        grid = Grid.parse(rows)
        built = []
        for label, text in clues.items():
            try:
                slot = grid.slot(label)
            except KeyError as exc:
                raise CrosswordError(str(exc.args[0])) from None
            built.append(Clue(slot, text))
        return cls(rows, tuple(built), **meta)

    @classmethod
    def from_entries(
        cls,
        grid: Grid,
        entries: Mapping[str, tuple[str, str]],
        **meta: Any,
    ) -> Crossword:
        """A crossword from a grid and ``{label: (clue, answer)}``; :class:`CrosswordError`
        when an answer does not fit its slot or two answers disagree where they cross."""
        letters: dict[Cell, tuple[str, str]] = {}
        built = []
        for label, (text, answer) in entries.items():
            try:
                slot = grid.slot(label)
            except KeyError as exc:
                raise CrosswordError(str(exc.args[0])) from None
            answer = answer.strip().upper()
            if len(answer) != slot.length:
                raise CrosswordError(
                    f"{slot.label} is {slot.length} long but its answer {answer!r} has "
                    f"{len(answer)} letters"
                )
            for cell, ch in zip(slot.cells, answer, strict=True):
                seen = letters.get(cell)
                if seen is not None and seen[0] != ch:
                    raise CrosswordError(
                        f"{slot.label} puts {ch} at row {cell[0] + 1}, column {cell[1] + 1} "
                        f"where {seen[1]} has {seen[0]}"
                    )
                letters[cell] = (ch, slot.label)
            built.append(Clue(slot, text))
        rows = []
        for r, row in enumerate(grid.rows):
            chars = []
            for c, kind in enumerate(row):
                if kind == BLOCK:
                    chars.append(BLOCK)
                elif (r, c) in letters:
                    chars.append(letters[(r, c)][0])
                else:
                    raise CrosswordError(f"no answer covers row {r + 1}, column {c + 1}")
            rows.append("".join(chars))
        return cls(tuple(rows), tuple(built), **meta)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(Entry(c, self.answer(c.slot)) for c in self.clues)

    @property
    def across(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.slot.direction is Direction.ACROSS)

    @property
    def down(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.slot.direction is Direction.DOWN)

    def entry(self, label: str) -> Entry:
        """The entry named ``1A`` (or ToT's ``h1``); :class:`KeyError` when none is."""
        slot = self.grid.slot(label)
        return next(e for e in self.entries if e.slot == slot)

    def answer(self, slot: Slot) -> str:
        return "".join(self.solution[r][c] for r, c in slot.cells)

    def letter(self, cell: Cell) -> str:
        """The solution's letter in a cell (``#`` for a block)."""
        return self.solution[cell[0]][cell[1]]

    def public_view(self) -> PublicCrossword:
        """What a player sees: grid, numbers and clues, no letter of the solution."""
        return PublicCrossword(
            self.grid, self.clues, self.title, self.author, self.copyright, self.notes
        )

    def empty_board(self) -> Board:
        return Board.empty(self.grid)

    def solved_board(self) -> Board:
        return Board(self.grid, self.solution)

    def check_letter(self, board: Board, cell: Cell) -> bool:
        """Whether the cell holds the solution's letter (an empty cell does not)."""
        self._same_grid(board)
        return board.letter(cell) == self.letter(cell)

    def check_word(self, board: Board, slot: Slot | str) -> bool:
        """Whether every letter along the slot is the solution's."""
        self._same_grid(board)
        if isinstance(slot, str):
            slot = self.grid.slot(slot)
        return all(board.letter(cell) == self.letter(cell) for cell in slot.cells)

    def check(self, board: Board) -> Verdict:
        """The exact check of a whole board: ToT's letter, word and game measures, the wrong
        cells and the empty ones."""
        self._same_grid(board)
        wrong: list[Cell] = []
        empty: list[Cell] = []
        correct = 0
        total = 0
        for cell in self.grid.cells():
            total += 1
            written = board.letter(cell)
            if not written:
                empty.append(cell)
            elif written == self.letter(cell):
                correct += 1
            else:
                wrong.append(cell)
        words = sum(1 for s in self.grid.slots if self.check_word(board, s))
        solved = correct == total
        if solved:
            reason = "solved: every letter is right"
        else:
            parts = []
            if wrong:
                parts.append(f"{len(wrong)} wrong")
            if empty:
                parts.append(f"{len(empty)} empty")
            reason = f"not solved: {correct}/{total} letters right ({', '.join(parts)})"
        return Verdict(
            solved, reason, correct, total, words, len(self.grid.slots), tuple(wrong), tuple(empty)
        )

    def _same_grid(self, board: Board) -> None:
        if board.grid.rows != self.grid.rows:
            raise CrosswordError("the board belongs to a different grid")

    def problems(self) -> tuple[Problem, ...]:
        """What is wrong with this crossword as a puzzle (see :class:`Problem`)."""
        found: list[Problem] = []
        for cell in self.grid.uncovered():
            found.append(
                Problem(f"the cell at row {cell[0] + 1}, column {cell[1] + 1} is in no entry")
            )
        for entry in self.entries:
            clue, answer = entry.clue, entry.answer
            if not clue.text.strip():
                found.append(Problem("the clue is empty", clue.label))
            elif mentions_answer(clue.text, answer):
                found.append(Problem("the clue contains its answer", clue.label, serious=False))
            counts = [int(n) for n in re.findall(r"\d+", clue.enumeration)]
            if counts and sum(counts) != clue.slot.length:
                found.append(
                    Problem(
                        f"the enumeration ({clue.enumeration}) adds up to {sum(counts)} but "
                        f"the slot has {clue.slot.length} cells",
                        clue.label,
                    )
                )
        answers = {e.label: e.answer for e in self.entries}
        for label, stated in self.stated:
            try:
                slot = self.grid.slot(label)
            except KeyError:
                found.append(Problem(f"an answer is given for {label}, which is not a slot"))
                continue
            letters = "".join(ch for ch in stated.upper() if ch.isalnum())
            if len(letters) != slot.length:
                found.append(
                    Problem(
                        f"its answer {stated!r} has {len(letters)} letters but the slot has "
                        f"{slot.length}",
                        slot.label,
                    )
                )
            elif letters != answers[slot.label]:
                crossings = [
                    f"{other.label} at row {cell[0] + 1}, column {cell[1] + 1}"
                    for cell, ch in zip(slot.cells, letters, strict=True)
                    if ch != self.letter(cell)
                    for other in self.grid.slots_at(cell)
                    if other != slot
                ]
                where = f"; it disagrees with {', '.join(crossings)}" if crossings else ""
                found.append(
                    Problem(
                        f"its answer {letters} does not match the grid's "
                        f"{answers[slot.label]}{where}",
                        slot.label,
                    )
                )
        repeated = Counter(answers.values())
        for answer, count in sorted(repeated.items()):
            if count > 1:
                labels = [label for label, a in answers.items() if a == answer]
                found.append(
                    Problem(f"{answer} is the answer to {', '.join(labels)}", serious=False)
                )
        return tuple(found)

    def to_dict(self, *, solution: bool = True) -> dict[str, Any]:
        """A JSON-ready description; with ``solution=False`` it is the public view's."""
        out = self.public_view().to_dict()
        out["source"] = self.source
        if solution:
            out["solution"] = list(self.solution)
            for clue_out, entry in zip(out["clues"], self.entries, strict=True):
                clue_out["answer"] = entry.answer
        return out


def _solution_rows(solution: Iterable[str] | str) -> tuple[str, ...]:
    if isinstance(solution, str):
        solution = solution.split("/") if "/" in solution else solution.split()
    return tuple(row.strip().upper() for row in solution)
