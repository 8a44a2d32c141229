"""Playing a mini crossword, with a reasoning method solving the same grid beside you.

The solver side (its worker, race mode, the method dialog, replays, results) is the
:class:`~tui.screens.puzzle.PuzzleScreen`'s; this screen is the grid: a cursor that types
along the current word, the clue list, checks and reveals, pencil marks, and the solver's
latest board drawn faintly over the empty squares (the ghost).

Every letter is typed, so the keys other screens give to single letters (``n``, ``s``, ``m``,
space) are typing here; the screen's own commands and the solver's are on control keys and in
the command palette.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center
from textual.reactive import Initialize, var
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from puzzles.crossword import (
    Board,
    Cell,
    Crossword,
    CrosswordError,
    Direction,
    GenerationError,
    Slot,
    Verdict,
    generate,
)
from solver import events as ev
from solver.kinds import KINDS as SPECS
from solver.text import visible
from tui.screens.puzzle import Command, PuzzleScreen, ScreenCommands, clock
from tui.widgets.crossword_grid import CrosswordGrid, GridView
from tui.widgets.solver_pane import SolverPane
from tui.widgets.tones import Tone, tone

if TYPE_CHECKING:
    pass

__all__ = ["CrosswordCommands", "CrosswordScreen", "measures_text"]

Scope = Literal["letter", "word", "puzzle"]

ARROWS: dict[str, tuple[Direction, int, int]] = {
    "left": (Direction.ACROSS, 0, -1),
    "right": (Direction.ACROSS, 0, 1),
    "up": (Direction.DOWN, -1, 0),
    "down": (Direction.DOWN, 1, 0),
}
"""An arrow's direction and the step it takes (row, column)."""

TYPED_ELSEWHERE = frozenset({"toggle_solver", "restart_solver", "solver_options", "new", "peek"})
"""The base's actions whose single-letter keys are typing here; the control keys below run
them instead (and the palette). ``peek`` is ctrl+g's: the solver's board with its answer."""

_TITLE_CHARS = 40


def measures_text(verdict: Verdict) -> Text:
    """Tree of Thoughts' three measures of a board: letters, words, game."""
    return Text.assemble(
        ("Letters ", "bold"),
        f"{verdict.letters_correct}/{verdict.letters_total} ({verdict.letter_accuracy:.0%}) · ",
        ("words ", "bold"),
        f"{verdict.words_correct}/{verdict.words_total} ({verdict.word_accuracy:.0%}) · ",
        ("game ", "bold"),
        "solved" if verdict.ok else "not solved",
    )


class CrosswordCommands(ScreenCommands):
    """The crossword's own commands in the palette."""

    def commands(self) -> Iterator[Command]:
        screen = self.screen
        if not isinstance(screen, CrosswordScreen):
            return
        yield ("Check letter", "ctrl+l: is the square under the cursor right?", screen.check_letter)
        yield (
            "Check word",
            "ctrl+k: mark the wrong letters of this clue",
            screen.check_word,
        )
        yield ("Check puzzle", "mark every wrong letter once", screen.check_puzzle)
        yield (
            "Auto-check",
            "ctrl+a: mark every wrong letter now and as you type (again: off)",
            screen.action_auto_check,
        )
        yield ("Reveal letter", "ctrl+r: the square under the cursor", screen.reveal_letter)
        yield ("Reveal word", "ctrl+u: the whole current clue", screen.reveal_word)
        yield (
            "Reveal puzzle",
            "ctrl+y: every square (solved with the solution shown: no streak)",
            screen.reveal_puzzle,
        )
        yield ("Pencil mode", "ctrl+e: letters you are not sure of", screen.action_pencil)
        yield ("Solver's board", "ctrl+g: its latest letters over yours", screen.action_ghost)
        yield ("Give up", "ctrl+x: show the solution and your measures", screen.action_give_up)
        yield ("Pause", "ctrl+d: hide the grid and stop the clock", screen.action_pause)


def _empty_board(screen: CrosswordScreen) -> Board:
    return screen.crossword.empty_board()


def _first_cell(screen: CrosswordScreen) -> Cell:
    """Where the cursor starts: the first clue's first square."""
    grid = screen.crossword.grid
    return grid.slots[0].cells[0] if grid.slots else next(grid.cells())


def _first_direction(screen: CrosswordScreen) -> Direction:
    grid = screen.crossword.grid
    return grid.slots[0].direction if grid.slots else Direction.ACROSS


class CrosswordScreen(PuzzleScreen):
    """A mini crossword on the left, the solver on the right."""

    KIND = "crossword"
    NOUN = "mini"
    PLAY_ACTIONS = PuzzleScreen.PLAY_ACTIONS | {"check", "reveal", "auto_check", "pencil"}
    LEVELS = SPECS[KIND].levels
    """A 5 x 5 grid without black squares (Tree of Thoughts' shape), or with them."""
    COMMANDS = PuzzleScreen.COMMANDS | {CrosswordCommands}
    AUTO_FOCUS = "CrosswordGrid"

    BINDINGS = [
        Binding("ctrl+k", "check('word')", "Check word", id="crossword.check_word"),
        Binding("ctrl+l", "check('letter')", "Check letter", show=False, id="crossword.check"),
        Binding("ctrl+a", "auto_check", "Auto-check", show=False, id="crossword.auto_check"),
        Binding("ctrl+r", "reveal('letter')", "Reveal", id="crossword.reveal"),
        Binding("ctrl+u", "reveal('word')", "Reveal word", show=False, id="crossword.reveal_word"),
        Binding("ctrl+y", "reveal('puzzle')", "Reveal all", show=False, id="crossword.reveal_all"),
        Binding("ctrl+e", "pencil", "Pencil", id="crossword.pencil"),
        Binding("ctrl+g", "ghost", "Ghost", id="crossword.ghost"),
        Binding("ctrl+x", "give_up", "Give up", show=False, id="crossword.give_up"),
        Binding("ctrl+d", "pause", "Pause", show=False, id="crossword.pause"),
        Binding("ctrl+s", "solver", "Solver", id="crossword.solver"),
        Binding("ctrl+o", "method", "Method", id="crossword.method"),
        # f2 and f3 stand in for ctrl+n and ctrl+t, which a browser keeps (BROWSER_KEYS).
        Binding("ctrl+n,f2", "new_mini", "New", id="crossword.new"),
        Binding("ctrl+t,f3", "app.legend", "Legend", show=False, id="crossword.legend"),
    ]

    # What the grid shows. Each is replaced, never changed in place (boards and frozensets),
    # so every change reaches a watcher and the grid is drawn again.
    board: var[Board] = var(Initialize(_empty_board), init=False)
    """The player's letters."""
    cursor: var[Cell] = var(Initialize(_first_cell), init=False)
    direction: var[Direction] = var(Initialize(_first_direction), init=False)
    """The current clue's direction: across or down through the cursor."""
    wrong: var[frozenset[Cell]] = var(frozenset(), init=False)
    """Squares a check found wrong (until they are written again)."""
    right: var[frozenset[Cell]] = var(frozenset(), init=False)
    """Squares a check found right."""
    revealed: var[frozenset[Cell]] = var(frozenset(), init=False)
    """Squares a reveal (or a give-up) wrote the solution's letter in."""
    corrected: var[Mapping[Cell, str]] = var(dict, init=False)
    """After a give-up: the squares the player had wrong, with the letter they wrote (the
    board holds the solution's there)."""
    ghost: var[Board | None] = var(None, init=False)
    """The solver's latest board."""
    show_ghost: var[bool] = var(False, init=False)
    """Whether the solver's board is drawn faintly over the player's (ctrl+g)."""
    won: var[bool] = var(False, init=False)
    """The player solved the grid (without every square revealed): it is drawn as won."""
    pencil: var[bool] = var(False, init=False)
    """New letters are pencilled (ctrl+e); the title says so."""
    auto_check: var[bool] = var(False, init=False)
    """Wrong letters are marked as they are typed (ctrl+a); the title says so."""

    def __init__(self, crossword: Crossword, level: str | None = None, *, replay: Any = None):
        super().__init__(crossword, level, replay=replay)
        self.crossword = crossword
        self.shown: set[Cell] = set()
        """Squares a reveal showed (every square of the letter, word or grid revealed, also
        those already right); once they cover the grid, the solution was shown."""
        self.collection: tuple[Sequence[Crossword], int] | None = None
        """The puzzles of the file this one came from, and its place there (ctrl+n: the
        next)."""
        self.checks = 0
        self.verdict: Verdict | None = None
        """The player's board measured when the puzzle ended."""

    # ---------------------------------------------------------------- what a kind provides

    @classmethod
    def deal(cls, level: str | None, seed: int) -> CrosswordScreen:
        blocks = level == "blocks" if level else seed % 2 == 1
        for tried in range(8):
            try:
                crossword = generate(seed + tried, blocks=blocks)
            except GenerationError:
                continue
            return cls(crossword, "blocks" if blocks else "open")
        raise GenerationError(f"no mini could be made from seed {seed}")

    @classmethod
    def warm_up(cls) -> None:
        from puzzles.crossword import word_list

        word_list()  # the bundled word list takes most of a second to load

    GIVE_UP_SHOWS = "the right letters where yours are wrong or missing"
    PEEK_KEY = "ctrl+g"
    PAUSE_KEY = "ctrl+d"
    LEGEND_KEY = "ctrl+t"

    FILES = SPECS[KIND].files
    """What a file opened from home may hold (home offers a file for kinds that say)."""

    @classmethod
    def load_file(cls, path: str | os.PathLike[str]) -> list[Crossword]:
        """Every crossword of a file; :class:`PuzzleFileError` (a ValueError) says what is
        wrong with a file that cannot be played."""
        from puzzles.crossword import PuzzleFileError, load_crosswords

        found = load_crosswords(path)
        if not found:
            raise PuzzleFileError(path, "holds no puzzle")
        for crossword in found:
            if not crossword.grid.slots:
                raise PuzzleFileError(path, "holds a grid with no words to fill")
        return found

    @classmethod
    def preview(cls, crossword: Crossword) -> str:
        """One line for the list of a file's puzzles: its size, its clues, how it starts."""
        grid = crossword.grid
        title = f"{visible(crossword.title)} · " if crossword.title else ""
        first = crossword.clues[0] if crossword.clues else None
        clue = f"{first.slot.label}: {visible(first.text)}" if first is not None else "no clues"
        return f"{grid.height}×{grid.width} · {title}{clue}"[:200]

    @classmethod
    def from_file(cls, found: Sequence[Crossword], index: int) -> CrosswordScreen:
        """The ``index``-th puzzle of a file (ctrl+n goes on to the next)."""
        screen = cls(found[index], "file")
        screen.collection = (found, index)
        return screen

    def compose_puzzle(self) -> ComposeResult:
        with Center(id="cw-centre"):
            yield CrosswordGrid(id="cw-grid")
        yield Static(id="cw-clue")
        clues = OptionList(id="cw-clues")
        clues.can_focus = False  # a click picks a clue; the keys stay with the grid
        yield clues

    def start_puzzle(self) -> None:
        clues = self.query_one("#cw-clues", OptionList)
        options: list[Option | None] = []
        for heading, group in (("Across", self.crossword.across), ("Down", self.crossword.down)):
            options.append(Option(Text(heading, style="bold"), disabled=True))
            for entry in group:
                prompt = Text.assemble(
                    (f"{entry.clue.slot.number:>2} ", "bold"), visible(entry.clue.text)
                )
                options.append(Option(prompt, id=entry.label))
        clues.add_options(options)
        self.watch_cursor()  # the grid and its first clue; from here on, watchers redraw them
        # The pane's idle line names s and l, which are letters to type here.
        self.query_one("#solver-status", Static).update(
            f"solver idle · ctrl+s starts it · {self.key('ctrl+t')}: what the marks mean"
        )
        self.say("Type to fill · space turns · ctrl+s: the solver · ? every key")

    # ---------------------------------------------------------------- what the base asks

    @property
    def puzzle_text(self) -> str:
        title = visible(self.crossword.title or "mini crossword")
        if self.collection is not None and not self.crossword.title:
            found, index = self.collection
            title = f"mini {index + 1} of {len(found)}"
        return title if len(title) <= _TITLE_CHARS else title[: _TITLE_CHARS - 1] + "…"

    def title_text(self) -> Text:
        level = f" · {self.level}" if self.level else ""
        help_used = f" · help {self.hints_used}" if self.hints_used else ""
        text = Text.assemble(
            (self.puzzle_text, "bold"),
            level,
            " · ",
            (f"⏱ {clock(self.elapsed())}", "bold"),
            help_used,
        )
        if self.pencil:
            text.append(" · ✎", style="italic")
        if self.show_ghost:
            text.append(" · ghost", style="italic")
        if self.auto_check:
            text.append(" · auto-check", style="italic")
        return text

    def begun(self) -> bool:
        return bool(self.board.filled or self.hints_used)

    def answer_text(self, answer: str) -> str:
        return answer

    def goal_state(self) -> str | None:
        return "/".join(self.crossword.solution)

    def won_text(self, answer: str) -> Text:
        if self.solution_shown:
            text = Text.assemble(
                ("Solution shown", tone(self, Tone.WARNING, "bold")),
                f" (every square revealed): no streak or best time. {self.key('ctrl+n')}: "
                f"{self.next_mini}.\n",
            )
            if self.verdict is not None:
                text.append_text(measures_text(self.verdict))
            return text
        help_used = (
            f" with help {self.hints_used} time{'s' * (self.hints_used != 1)}"
            if self.hints_used
            else " without help"
        )
        text = Text.assemble(
            ("★ Solved! ", tone(self, Tone.RIGHT, "bold")),
            f"in {clock(self.elapsed())}{help_used}. Press {self.key('ctrl+n')} for "
            f"{self.next_mini}.\n",
        )
        if self.verdict is not None:
            text.append_text(measures_text(self.verdict))
        return text

    @property
    def next_mini(self) -> str:
        """What ctrl+n opens: the file's next mini, or a new one."""
        return "the file's next mini" if self.collection is not None else "a new mini"

    def gave_up_text(self) -> str:
        return f"You gave up on this mini. Press {self.key('ctrl+n')} for a new mini."

    def refuse_when_over(self) -> bool:
        if not self.over:
            return False
        if self.gave_up:
            self.say(self.gave_up_text(), tone(self, Tone.WARNING))
        else:
            self.notify(f"This mini is over. Press {self.key('ctrl+n')} for a new mini.")
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TYPED_ELSEWHERE:
            return False
        return super().check_action(action, parameters)

    def help_rows(self, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
        # Letters, tab and shift+tab are the grid's here: the app's l (the legend is ctrl+t)
        # and Textual's focus keys are left out (ctrl+f moves the keys to the solver's pane).
        typed = {"l", "tab", "shift+tab"}
        return [
            ("a-z", "write a letter and move on"),
            ("arrows", "move (across the word: turn)"),
            ("space / tab", "turn: across or down"),
            ("⌫ / del", "erase (⌫ on an empty square: back one first)"),
            ("enter / ⇧tab", "next / previous clue"),
            *[row for row in rows if row[0] not in typed],
        ]

    def puzzle_focus(self) -> CrosswordGrid:
        return self.query_one(CrosswordGrid)

    # ---------------------------------------------------------------- the grid

    @property
    def slot(self) -> Slot | None:
        """The current clue's slot: the one through the cursor in the current direction."""
        through = self.crossword.grid.slots_at(self.cursor)
        for slot in through:
            if slot.direction is self.direction:
                return slot
        return through[0] if through else None

    def draw_grid(self) -> None:
        """The grid as the screen's state has it (the watchers below call it)."""
        slot = self.slot
        self.query_one(CrosswordGrid).view = GridView(
            self.crossword,
            self.board,
            self.cursor,
            word=frozenset(slot.cells if slot else ()),
            wrong=self.wrong,
            right=self.right,
            corrected=self.corrected,
            revealed=self.revealed,
            ghost=self.ghost if self.show_ghost else None,
            won=self.won,
        )

    def draw_clue(self) -> None:
        """The current clue under the grid, and highlighted in the list."""
        slot = self.slot
        line = Text()
        clues = self.query_one("#cw-clues", OptionList)
        if slot is not None:
            clue = next(c for c in self.crossword.clues if c.slot == slot)
            line.append(f"{slot.number} {slot.direction.value} ", style="bold")
            line.append(visible(clue.text))
            line.append(f"  ({slot.length})", style="dim")
            try:
                index = clues.get_option_index(slot.label)
            except KeyError:
                pass
            else:
                if clues.highlighted != index:
                    clues.highlighted = index
        self.query_one("#cw-clue", Static).update(line)

    def watch_cursor(self) -> None:
        self.draw_grid()
        self.draw_clue()

    watch_direction = watch_cursor  # the word under the cursor, and so its clue, changes

    def watch_board(self) -> None:
        self.draw_grid()

    # Every mark on the grid redraws it, as a letter does.
    watch_wrong = watch_right = watch_revealed = watch_corrected = watch_won = watch_board

    def watch_ghost(self) -> None:
        if self.show_ghost:
            self.draw_grid()

    def watch_show_ghost(self) -> None:
        self.draw_grid()
        self.refresh_title()

    def watch_pencil(self) -> None:
        self.refresh_title()

    watch_auto_check = watch_pencil  # both are shown in the title

    def move_to(self, cell: Cell, direction: Direction | None = None) -> None:
        self.cursor = cell
        if direction is not None and any(
            s.direction is direction for s in self.crossword.grid.slots_at(cell)
        ):
            self.direction = direction

    def step(self, dr: int, dc: int) -> Cell | None:
        """The next open square from the cursor by (``dr``, ``dc``), over blocks."""
        grid = self.crossword.grid
        r, c = self.cursor
        while True:
            r, c = r + dr, c + dc
            if not (0 <= r < grid.height and 0 <= c < grid.width):
                return None
            if not grid.is_block((r, c)):
                return (r, c)

    def arrow(self, key: str) -> None:
        direction, dr, dc = ARROWS[key]
        turns = direction is not self.direction and any(
            s.direction is direction for s in self.crossword.grid.slots_at(self.cursor)
        )
        if turns:
            # The first press across the word turns to that direction, as crossword apps do.
            self.direction = direction
            return
        cell = self.step(dr, dc)
        if cell is not None:
            self.move_to(cell, direction)

    def toggle_direction(self) -> None:
        other = Direction.DOWN if self.direction is Direction.ACROSS else Direction.ACROSS
        if any(s.direction is other for s in self.crossword.grid.slots_at(self.cursor)):
            self.direction = other

    def next_clue(self, back: bool = False) -> None:
        slots = self.crossword.grid.slots
        slot = self.slot
        if not slots or slot is None:
            return
        at = slots.index(slot)
        following = slots[(at + (-1 if back else 1)) % len(slots)]
        empty = [cell for cell in following.cells if not self.board.letter(cell)]
        self.move_to((empty or list(following.cells))[0], following.direction)

    def write(self, letter: str) -> None:
        """``letter`` at the cursor (pencilled in pencil mode), then on along the word."""
        if self.refuse_when_over():
            return
        cell = self.cursor
        if cell not in self.revealed:  # a revealed square keeps the solution's letter
            self.board = self.board.write(cell, letter, pencil=self.pencil)
            wrong = self.auto_check and not self.crossword.check_letter(self.board, cell)
            self.wrong = self.wrong | {cell} if wrong else self.wrong - {cell}
            self.right = self.right - {cell}
        slot = self.slot
        if slot is not None:
            at = slot.cells.index(cell)
            if at + 1 < len(slot.cells):
                self.cursor = slot.cells[at + 1]
            else:
                self.next_clue()
        self.after_change()

    def erase(self, back: bool) -> None:
        """Erase the square under the cursor; ``back`` (backspace) on an empty square steps
        back along the word first."""
        if self.refuse_when_over():
            return
        cell = self.cursor
        slot = self.slot
        if back and not self.board.letter(cell) and slot is not None:
            at = slot.cells.index(cell)
            if at > 0:
                cell = self.cursor = slot.cells[at - 1]
            else:
                # At a word's first square: back to the last square of the clue before, as
                # crossword apps do.
                slots = self.crossword.grid.slots
                before = slots[(slots.index(slot) - 1) % len(slots)]
                cell = self.cursor = before.cells[-1]
                self.direction = before.direction
        if cell not in self.revealed and self.board.letter(cell):
            self.board = self.board.erase(cell)
            self.wrong = self.wrong - {cell}
            self.right = self.right - {cell}
        self.after_change()

    def after_change(self) -> None:
        if self.board.is_full and not self.over:
            verdict = self.crossword.check(self.board)
            if verdict.ok:
                self.win(verdict)
            else:
                self.say(
                    "Every square is filled, but not every letter is right. "
                    "ctrl+a marks the wrong ones.",
                    tone(self, Tone.WARNING),
                )

    def win(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.finish(True, self.board_text())
        if self.solution_shown:
            self.query_one("#puzzle").remove_class("-won")  # no win to celebrate
        self.won = not self.solution_shown

    def board_text(self) -> str:
        """The player's board as the solvers write one: rows joined by ``/``, ``_`` empty."""
        return "/".join(row.replace(".", "_") for row in self.board.letters)

    def on_key(self, event: events.Key) -> None:
        grid = self.query_one(CrosswordGrid)
        if self.focused not in (None, grid):
            return  # the solver's pane has the keys (ctrl+f gives them back)
        key = event.key
        character = event.character or ""
        if len(character) == 1 and character.isascii() and character.isalnum():
            self.write(character.upper())
        elif key in ARROWS:
            self.arrow(key)
        elif key == "backspace":
            self.erase(back=True)
        elif key == "delete":
            self.erase(back=False)
        elif key in ("space", "tab"):
            self.toggle_direction()
        elif key in ("enter", "shift+tab"):
            self.next_clue(back=key == "shift+tab")
        else:
            return
        # Typing belongs to the grid, never to a binding of the same key.
        event.stop()
        event.prevent_default()

    @on(CrosswordGrid.CellClicked)
    def cell_clicked(self, event: CrosswordGrid.CellClicked) -> None:
        if event.cell == self.cursor:
            self.toggle_direction()
        else:
            self.move_to(event.cell)

    @on(OptionList.OptionSelected, "#cw-clues")
    def clue_clicked(self, event: OptionList.OptionSelected) -> None:
        label = event.option.id
        if label is None:
            return
        slot = self.crossword.grid.slot(label)
        empty = [cell for cell in slot.cells if not self.board.letter(cell)]
        self.move_to((empty or list(slot.cells))[0], slot.direction)
        self.set_focus(self.query_one(CrosswordGrid))

    # ---------------------------------------------------------------- help: checks, reveals

    def cells_of(self, scope: Scope) -> tuple[Cell, ...]:
        if scope == "letter":
            return (self.cursor,)
        if scope == "word":
            slot = self.slot
            return slot.cells if slot else ()
        return tuple(self.crossword.grid.cells())

    def action_check(self, scope: Scope) -> None:
        if self.refuse_when_over():
            return
        cells = [c for c in self.cells_of(scope) if self.board.letter(c)]
        if not cells:
            # Named: a word just filled in moves the cursor on, to the next (empty) word.
            slot = self.slot
            where = {
                "letter": "this square",
                "word": f"{slot.number} {slot.direction.value}" if slot else "this word",
                "puzzle": "the grid",
            }[scope]
            self.say(f"Nothing written in {where} to check yet.", tone(self, Tone.WARNING))
            return
        self.hints_used += 1
        wrong = [c for c in cells if not self.crossword.check_letter(self.board, c)]
        self.wrong = self.wrong | set(wrong)
        self.right = self.right | {c for c in cells if c not in wrong}
        what = {"letter": "That letter", "word": "This word", "puzzle": "The grid"}[scope]
        if wrong:
            self.say(f"{what}: {len(wrong)} wrong, marked in red.", tone(self, Tone.WRONG))
        else:
            self.say(f"{what}: every letter written so far is right.", tone(self, Tone.RIGHT))

    def action_reveal(self, scope: Scope) -> None:
        if self.refuse_when_over():
            return
        cells = [
            c
            for c in self.cells_of(scope)
            if self.board.letter(c) != self.crossword.letter(c) or c in self.board.pencilled
        ]
        if not cells:
            self.say("Those letters are already right.", tone(self, Tone.RIGHT))
            return
        self.hints_used += 1
        board = self.board
        for cell in cells:
            board = board.write(cell, self.crossword.letter(cell))
        self.board = board
        self.revealed = self.revealed | set(cells)
        self.wrong = self.wrong - set(cells)
        self.shown.update(self.cells_of(scope))
        if self.shown >= set(self.crossword.grid.cells()):
            # The whole solution was shown: filling the grid now is no win of the player's.
            self.solution_shown = True
        self.say(f"Revealed {len(cells)} letter{'s' * (len(cells) != 1)}.")
        self.after_change()

    def check_letter(self) -> None:
        self.action_check("letter")

    def check_word(self) -> None:
        self.action_check("word")

    def check_puzzle(self) -> None:
        self.action_check("puzzle")

    def reveal_letter(self) -> None:
        self.action_reveal("letter")

    def reveal_word(self) -> None:
        self.action_reveal("word")

    def reveal_puzzle(self) -> None:
        self.action_reveal("puzzle")

    def action_pencil(self) -> None:
        self.pencil = not self.pencil
        self.say(
            "Pencil on: new letters are tentative (drawn in italics)."
            if self.pencil
            else "Pencil off: new letters are written in ink."
        )

    def action_auto_check(self) -> None:
        """Mark wrong letters as they are typed (and every wrong one now), or stop."""
        if self.refuse_when_over():
            return
        self.auto_check = not self.auto_check
        if self.auto_check:
            self.hints_used += 1
            filled = [c for c in self.crossword.grid.cells() if self.board.letter(c)]
            wrong = [c for c in filled if not self.crossword.check_letter(self.board, c)]
            self.wrong = self.wrong | set(wrong)
            now = f" {len(wrong)} wrong now, marked in red." if wrong else ""
            self.say(f"Auto-check on: wrong letters are marked as you type.{now}")
        else:
            self.say("Auto-check off.")

    def action_ghost(self) -> None:
        self.show_ghost = not self.show_ghost
        # The solver's board is its answer: asking for it shows its answer line too.
        pane = self.query_one(SolverPane)
        if not self.over:
            pane.show_answer(self.show_ghost)
        # Each press says what it did: the message of the press before never stays.
        if not self.show_ghost:
            self.say("The solver's board is hidden (ctrl+g shows it).")
        elif self.ghost is None:
            self.say("The solver's board shows here once it has written something (ctrl+s).")
        else:
            self.say("The solver's board shows faintly on your empty squares (ctrl+g hides it).")

    def give_up_now(self) -> None:
        if self.over:
            return
        self.verdict = self.crossword.check(self.board)
        shown = self.crossword.solved_board()
        # Every square gets the solution's letter: where the player's was wrong it is marked
        # as corrected (their letter in the corner), where it was missing as revealed, and
        # the player's right letters in green.
        mine, board = self.board, self.board
        right, revealed, corrected = set(self.right), set(self.revealed), dict(self.corrected)
        for cell in self.crossword.grid.cells():
            letter = mine.letter(cell)
            if self.crossword.check_letter(mine, cell):
                if cell not in revealed:
                    right.add(cell)
                continue
            if letter:
                corrected[cell] = letter
            else:
                revealed.add(cell)
            board = board.write(cell, shown.letter(cell))
        self.board, self.wrong = board, frozenset()
        self.right, self.revealed, self.corrected = frozenset(right), frozenset(revealed), corrected
        self.give_up()
        verdict = self.verdict
        message = Text(self.gave_up_text() + "\nYour board: ", style=tone(self, Tone.WARNING))
        message.append_text(measures_text(verdict))
        if self.corrected:
            count = len(self.corrected)
            message.append(
                f"\n{count} wrong letter{'s' * (count != 1)} corrected in red (yours in the "
                "corner).",
                style="",
            )
        self.say(message)

    def fit_clue(self) -> None:
        """Once the mini is over the current clue is nothing more to solve: where the
        message (docked at the bottom at 80x24; a give-up's takes six lines) would cover
        part of it, the clue makes way, rather than show cut."""
        clue, message = self.query_one("#cw-clue"), self.query_one("#message")
        if self.over and clue.display and clue.region.bottom > message.region.y:
            clue.display = False

    # ---------------------------------------------------------------- the solver's keys

    def action_solver(self) -> None:
        self.action_toggle_solver()
        if self.solver_running and not self.show_ghost:
            self.say("The solver works beside you; ctrl+g shows its board over yours.")

    def action_method(self) -> None:
        self.action_solver_options()

    def action_new_mini(self) -> None:
        self.ask_before_new(self.deal_next_mini)

    def deal_next_mini(self) -> None:
        """The next mini of the file this one came from, else a new one."""
        if self.collection is None:
            self.deal_new()
            return
        found, index = self.collection
        self.release_result()
        self.app.switch_screen(self.from_file(found, (index + 1) % len(found)))

    def start_solver(self, fresh: bool = False) -> bool:
        from solver.kinds.crossword import refusal

        reason = refusal(self.crossword)
        if reason:
            self.say(
                f"{reason[0].upper()}{reason[1:]}. The grid is yours to play.",
                tone(self, Tone.WARNING),
            )
            return False
        return super().start_solver(fresh)

    def say(self, message: str | Text, style: str = "") -> None:
        # The base's "Press space to start it" is ctrl+s here.
        if isinstance(message, str):
            message = message.replace("Press space to start it", "Press ctrl+s to start it")
            message = message.replace(
                "press space to stop it, then space to start", "ctrl+s stops it, then again starts"
            )
        super().say(message, style)
        if self.over:
            # Laid out with the new message first (two refreshes: its size, then places).
            self.call_after_refresh(self.call_after_refresh, self.fit_clue)

    # ---------------------------------------------------------------- the solver's board

    def batch_shown(self, batch: list[ev.Event]) -> None:
        board = None
        for event in reversed(batch):  # the last board the batch shows
            text: str | None = None
            if isinstance(event, ev.ThoughtAdded):
                text = event.state
            elif isinstance(event, ev.SolutionFound | ev.RunFinished | ev.TurnAnswered):
                text = event.answer
            board = self.board_of(text)
            if board is not None:
                break
        if board is not None:
            self.ghost = board  # drawn by watch_ghost when it shows and has changed

    def solver_shortfall(self, result: ev.RunFinished) -> str:
        """``filled 15 of 23 letters, 12 right``: a partial grid is not "no answer"."""
        board = self.board_of(result.answer) or self.ghost
        if board is None:
            return super().solver_shortfall(result)
        cells = list(self.crossword.grid.cells())
        filled = sum(1 for cell in cells if board.letter(cell))
        right = sum(1 for cell in cells if self.crossword.check_letter(board, cell))
        return f"filled {filled} of {len(cells)} letters, {right} right"

    def board_of(self, text: str | None) -> Board | None:
        """A board the solver wrote (``AGEND/MOTOR/…``), or None when ``text`` is not one."""
        if not text or "/" not in text:
            return None
        try:
            return Board.from_rows(self.crossword.grid, text.strip().split("/"))
        except CrosswordError:
            return None
