"""A crossword grid drawn as one widget: each square three columns wide and two rows high (its
number above, its letter below), a column of space between squares.

The grid only draws what it is given (:class:`GridView`); the screen owns the board, the
cursor and every rule. Colours come from component classes, so themes decide them.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from puzzles.crossword import Board, Cell, Crossword

__all__ = ["CELL_HEIGHT", "CELL_WIDTH", "CrosswordGrid", "GridView"]

CELL_WIDTH = 4
"""Columns a square takes, with the space after it."""
CELL_HEIGHT = 2
"""Rows a square takes: its number, then its letter."""


@dataclass(frozen=True, slots=True)
class GridView:
    """Everything the grid draws: the player's board and what marks its squares."""

    crossword: Crossword
    board: Board
    cursor: Cell
    word: Set[Cell] = frozenset()
    """The squares of the current clue."""
    wrong: Set[Cell] = frozenset()
    """Squares a check found wrong (until they are written again)."""
    right: Set[Cell] = frozenset()
    """Squares a check found right."""
    revealed: Set[Cell] = frozenset()
    corrected: Mapping[Cell, str] = field(default_factory=dict)
    """After a give-up: squares the player had wrong, with the letter they wrote; the board
    holds the right one, drawn as a correction, theirs struck out in the corner."""
    ghost: Board | None = None
    """The solver's latest board: drawn faintly in the squares the player left empty, and in
    the corner of a square where it holds another letter than the player's."""
    won: bool = False


class CrosswordGrid(Widget, can_focus=True):
    """The squares of a crossword; a click on a square says which (:class:`CellClicked`)."""

    COMPONENT_CLASSES = {
        "crossword-grid--cell",
        "crossword-grid--block",
        "crossword-grid--number",
        "crossword-grid--word",
        "crossword-grid--cursor",
        "crossword-grid--wrong",
        "crossword-grid--right",
        "crossword-grid--revealed",
        "crossword-grid--corrected",
        "crossword-grid--pencil",
        "crossword-grid--ghost",
        "crossword-grid--won",
    }

    DEFAULT_CSS = """
    CrosswordGrid {
        width: auto;
        height: auto;
    }
    CrosswordGrid > .crossword-grid--cell { background: $panel; color: $text; }
    CrosswordGrid > .crossword-grid--block { color: $foreground 35%; }
    CrosswordGrid > .crossword-grid--number { color: $text-muted; }
    CrosswordGrid > .crossword-grid--word { background: $accent 35%; }
    CrosswordGrid > .crossword-grid--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    CrosswordGrid > .crossword-grid--wrong { color: $text-error; text-style: bold strike; }
    CrosswordGrid > .crossword-grid--right { color: $text-success; }
    CrosswordGrid > .crossword-grid--revealed { color: $text-primary; text-style: bold underline; }
    CrosswordGrid > .crossword-grid--corrected {
        background: $error 30%; color: $text; text-style: bold;
    }
    CrosswordGrid > .crossword-grid--pencil { color: $text-muted; text-style: italic; }
    CrosswordGrid > .crossword-grid--ghost { color: $foreground 45%; text-style: italic; }
    CrosswordGrid > .crossword-grid--won { background: $success 35%; }
    CrosswordGrid:focus > .crossword-grid--cursor { text-style: bold; }
    """

    class CellClicked(Message):
        """The player clicked a square."""

        def __init__(self, cell: Cell) -> None:
            super().__init__()
            self.cell = cell

    view: var[GridView | None] = var(None, init=False)
    """What the grid draws: a new view (one that differs) is drawn at once."""

    def watch_view(self, old: GridView | None, view: GridView | None) -> None:
        # Laid out again only when the grid's shape changed.
        same_shape = (
            old is not None and view is not None and old.crossword.grid == view.crossword.grid
        )
        self.refresh(layout=not same_shape)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.view is None:
            return 0
        return self.view.crossword.grid.width * CELL_WIDTH - 1

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.view is None:
            return 0
        return self.view.crossword.grid.height * CELL_HEIGHT

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"crossword-grid--{name}", partial=True)

    def render(self) -> Text:
        view = self.view
        if view is None:
            return Text()
        grid = view.crossword.grid
        cell_style = self.get_component_rich_style("crossword-grid--cell")
        out = Text(no_wrap=True, overflow="crop")
        for r in range(grid.height):
            top = Text(no_wrap=True)
            bottom = Text(no_wrap=True)
            for c in range(grid.width):
                gap = " " if c < grid.width - 1 else ""
                cell = (r, c)
                if grid.is_block(cell):
                    shade = self._style("block")
                    top.append("▓▓▓", shade)
                    bottom.append("▓▓▓", shade)
                    top.append(gap)
                    bottom.append(gap)
                    continue
                base = cell_style
                if view.won:
                    base += self._style("won")
                elif cell == view.cursor:
                    base += self._style("cursor")
                elif cell in view.word:
                    base += self._style("word")
                number = grid.number_at(cell)
                label = f"{number}" if number is not None else ""
                letter = view.board.letter(cell)
                guess = view.ghost.letter(cell) if view.ghost is not None else ""
                mistaken = view.corrected.get(cell, "")
                if mistaken:
                    # The player's wrong letter, struck out, in the corner of the right one.
                    top.append(f"{label:<2}"[:2], base + self._style("number"))
                    top.append(mistaken.lower(), base + self._style("wrong"))
                elif letter and guess and guess != letter:
                    # Where the solver believes otherwise, its letter sits in the corner.
                    top.append(f"{label:<2}"[:2], base + self._style("number"))
                    top.append(guess.lower(), base + self._style("ghost"))
                else:
                    top.append(f"{label:<3}"[:3], base + self._style("number"))
                style = base
                if letter:
                    if mistaken:
                        style += self._style("corrected")
                    elif cell in view.wrong:
                        style += self._style("wrong")
                    elif cell in view.revealed:
                        style += self._style("revealed")
                    elif cell in view.board.pencilled:
                        style += self._style("pencil")
                    elif cell in view.right:
                        style += self._style("right")
                elif guess:
                    letter = guess.lower()
                    style += self._style("ghost")
                bottom.append(f" {letter or ' '} ", style)
                top.append(gap)
                bottom.append(gap)
            out.append_text(top)
            out.append("\n")
            out.append_text(bottom)
            if r < grid.height - 1:
                out.append("\n")
        return out

    def cell_at(self, x: int, y: int) -> Cell | None:
        """The open square under content offset (``x``, ``y``), if any."""
        view = self.view
        if view is None or x < 0 or y < 0 or x % CELL_WIDTH == CELL_WIDTH - 1:
            return None
        grid = view.crossword.grid
        cell = (y // CELL_HEIGHT, x // CELL_WIDTH)
        if cell[0] >= grid.height or cell[1] >= grid.width or grid.is_block(cell):
            return None
        return cell

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        cell = self.cell_at(offset.x, offset.y)
        if cell is not None:
            event.stop()
            self.post_message(self.CellClicked(cell))
