"""Playing the Game of 24, with a reasoning method solving the same hand beside you.

The solver side (its worker, race mode, the method dialog, replays, results) is the
:class:`~tui.screens.puzzle.PuzzleScreen`'s; this screen is the hand: cards, steps, the typed
expression, hints and giving up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import Initialize, var
from textual.widgets import Input, Static

from puzzles.arith import ArithError, extract_claims, format_number, parse, verify_claim
from puzzles.game24 import Hand, HandError, StepError, check_answer
from puzzles.game24.play import Board
from solver.kinds import KINDS as SPECS
from tui.notation import written
from tui.screens.puzzle import (
    Command,
    LeaveDialog,
    PacedModel,
    PuzzleScreen,
    ScreenCommands,
    TypingBox,
    clock,
)
from tui.widgets.number_card import NumberCard
from tui.widgets.number_card import shown as _shown
from tui.widgets.tones import Tone, tone

if TYPE_CHECKING:
    pass

__all__ = ["Game24Commands", "Game24Screen", "LeaveDialog", "NumberCard", "PacedModel"]

OP_SIGNS = {"+": "+", "-": "−", "*": "×", "/": "÷"}
FULL_SOLUTION_HINT = 3
"""The hint that shows a whole solution: a win after it is recorded as such."""


class Game24Commands(ScreenCommands):
    """The Game of 24's own commands in the palette."""

    def commands(self) -> Iterator[Command]:
        screen = self.screen
        if not isinstance(screen, Game24Screen):
            return
        yield ("Hint", "A nudge, then a first step, then a solution", screen.action_hint)
        yield ("Give up", "Show every solution", screen.action_give_up)
        yield ("Type the answer", "e: the whole expression at once", screen.action_type_expression)
        yield ("Undo", "The last step", screen.action_undo)
        yield ("Reset", "Back to the four cards", screen.action_reset)


def _dealt(screen: Game24Screen) -> Board:
    """The board a screen starts with: its hand's cards."""
    return Board(screen.hand)


class Game24Screen(PuzzleScreen):
    """Four cards to make 24 with, on the left; the solver on the right."""

    KIND = "game24"
    NOUN = "hand"
    LEVELS = SPECS[KIND].levels
    COMMANDS = PuzzleScreen.COMMANDS | {Game24Commands}
    GIVE_UP_SHOWS = "every solution"
    # g stays once the hand is over: it shows the solutions then.
    PLAY_ACTIONS = frozenset(
        {"pick", "op", "undo", "reset", "type_expression", "hint", "pause", "peek"}
    )

    BINDINGS = [
        Binding("1", "pick(0)", "card 1", show=False, id="game.card1"),
        Binding("2", "pick(1)", "card 2", show=False, id="game.card2"),
        Binding("3", "pick(2)", "card 3", show=False, id="game.card3"),
        Binding("4", "pick(3)", "card 4", show=False, id="game.card4"),
        Binding("5", "pick(4)", "card 5", show=False, id="game.card5"),
        Binding("6", "pick(5)", "card 6", show=False, id="game.card6"),
        Binding("plus", "op('+')", "add", show=False, id="game.add"),
        Binding("minus", "op('-')", "subtract", show=False, id="game.subtract"),
        Binding("asterisk,x", "op('*')", "multiply", show=False, id="game.multiply"),
        Binding("slash", "op('/')", "divide", show=False, id="game.divide"),
        Binding("u,backspace", "undo", "Undo", id="game.undo"),
        Binding("r", "reset", "Reset", id="game.reset"),
        Binding("e", "type_expression", "Type", id="game.type"),
        Binding("h", "hint", "Hint", id="game.hint"),
        Binding("g", "give_up", "Give up", id="game.give_up"),
        Binding("p", "pause", "Pause", show=False, id="game.pause"),
    ]

    board: var[Board] = var(Initialize(_dealt), init=False)
    """The cards on the table and the steps that made them: a new board with each step
    (undo and reset too), and the cards and steps are drawn again."""
    first: var[int | None] = var(None, init=False)
    """The card chosen first for the next step."""
    op: var[str | None] = var(None, init=False)
    """The operator chosen for the next step."""

    def __init__(self, hand: Hand, level: str | None = None, *, replay: Any = None) -> None:
        super().__init__(hand, level, replay=replay)
        self.hand = hand
        self.tried = False  # a typed answer was checked

    @classmethod
    def deal(cls, level: str | None, seed: int) -> Game24Screen:
        from puzzles.game24.catalogue import entry, pick

        hand = pick(level, seed)
        return cls(hand, level or entry(hand).level)

    @classmethod
    def deal_published(cls, level: str | None, seed: int) -> Game24Screen:
        """A hand of ToT's published run (rows 900-999 of its ``24.csv``: the hands GPT-4
        played), of ``level`` where some are (all 100 otherwise), chosen by ``seed``."""
        import random

        from puzzles.game24.catalogue import entry
        from solver.published import hands

        played = hands()
        pool = [h for h in played if level is None or entry(h).level == level] or played
        hand = random.Random(seed).choice(pool)
        return cls(hand, entry(hand).level)

    OWN = SPECS[KIND].own
    """What a person may type on home to play their own hand (the numbers, then a target)."""

    @classmethod
    def own(cls, text: str) -> Game24Screen:
        """A hand the person typed: ``4 7 8 8`` (for 24) or ``1 2 3 4 5 -> 10`` (``->``,
        ``→``, ``=``, ``:`` or the word ``target`` before another target). ``HandError``
        says what is wrong."""
        parts = re.split(r"->|→|=|:|\btarget\b", text, maxsplit=1, flags=re.IGNORECASE)
        target = 24
        if len(parts) == 2:
            written_target = parts[1].strip()
            if not re.fullmatch(r"-?\d{1,12}", written_target):
                raise HandError(f"the target must be a whole number, not {written_target!r}")
            target = int(written_target)
        return cls(Hand.parse(parts[0], target), "own")

    @classmethod
    def warm_up(cls) -> None:
        from puzzles.game24.catalogue import catalogue

        catalogue()  # rating all 1,820 hands takes a second or two

    # ---------------------------------------------------------------- layout

    def compose_puzzle(self) -> ComposeResult:
        with Horizontal(id="cards"):
            for i in range(6):
                yield NumberCard(i)
        yield Static(id="selection")
        yield Static(id="steps")
        yield TypingBox(placeholder="e.g. (8 - 4) × (7 - 1)", id="expression")

    def start_puzzle(self) -> None:
        self.watch_board()  # the dealt cards; from here on every change of state redraws
        message = Text(
            f"Pick a card with {self.card_keys}, an operator (+ - * /), then another card. "
            "Or press e and type the whole expression."
        )
        if self.replay is None and self.ponder.published_run() is not None:
            message = Text.assemble(self._published_note(), "\n", message)
        self.say(message)
        if self.level == "own":
            self._check_solvable()

    def _published_note(self) -> Text:
        """What GPT-4's published run has of this hand: its row, or why there is nothing."""
        from solver.published import row_of

        problem = self.solver_problem()
        if problem is not None:
            return Text(problem, style=tone(self, Tone.WARNING))
        return Text(f"s: watch GPT-4's search (row {row_of(self.hand)})", style="bold")

    unsolvable: bool = False
    """An own hand with no solution: said when it opens, and ending it records nothing."""

    @work(thread=True, exclusive=True, group="solvable", exit_on_error=False)
    def _check_solvable(self) -> None:
        """Say at once when an own hand has no solution (six cards take up to a second to
        search, so the search runs off the screen's thread)."""
        from puzzles.game24.solve import is_solvable

        if not is_solvable(self.hand):
            self.app.call_from_thread(self._say_unsolvable)

    def _say_unsolvable(self) -> None:
        self.unsolvable = True
        if self.over:
            return
        self.say(
            Text(
                f"No solution: these cards cannot make {self.hand.target}. g ends the hand; "
                "it does not count against your streak.",
                style=tone(self, Tone.WARNING),
            )
        )

    def record(self, solved: bool, answer: str | None, *, abandoned: bool = False) -> None:
        if self.unsolvable:  # a hand without a solution is no game to win or lose
            self.recorded = True
            return
        super().record(solved, answer, abandoned=abandoned)

    # ---------------------------------------------------------------- what the base asks

    @property
    def puzzle_text(self) -> str:
        """``4 7 8 8``; an own target is kept: ``1 2 3 4 5 6 → 100``."""
        hand = self.hand
        return str(hand) if hand.target == 24 else f"{hand} → {hand.target}"

    def title_text(self) -> Text:
        level = f" · {self.level}" if self.level else ""
        hints = f" · hints {self.hints_used}" if self.hints_used else ""
        return Text.assemble(
            (str(self.hand), "bold"),
            f" → {self.hand.target}{level} · ",
            (f"⏱ {clock(self.elapsed())}", "bold"),
            hints,
        )

    def begun(self) -> bool:
        return bool(self.board.steps or self.first is not None or self.hints_used or self.tried)

    def answer_text(self, answer: str) -> str:
        """``(9 - 3) × (8 - 4) = 24``: the expression with its exact value (BoT's answer
        already ends ``= 24``; the value shown is always computed)."""
        expression = answer.split("=", 1)[0].strip()
        try:
            tree = parse(expression)
        except ArithError:
            return f"{written(expression)} = ?"
        # As read, spaced and with the brackets it needs (typed 12+10+9-7: 12 + 10 + 9 - 7).
        return f"{written(tree.render())} = {format_number(tree.value)}"

    def goal_state(self) -> str | None:
        return str(self.hand.target)

    def won_text(self, answer: str) -> Text:
        hints = (
            f" with {self.hints_used} hint{'s' * (self.hints_used != 1)}"
            if self.hints_used
            else " without hints"
        )
        shown = " (the solution was shown: no streak or best time)" * self.solution_shown
        return Text.assemble(
            ("★ Solved! ", tone(self, Tone.RIGHT, "bold")),
            f"{_typed(answer)} = {self.hand.target}\n",
            f"in {clock(self.elapsed())}{hints}{shown}. Press n for a new hand.",
        )

    @property
    def card_keys(self) -> str:
        """The keys of the hand's cards: ``1-4``, ``1-6`` for six."""
        return f"1-{len(self.hand.numbers)}"

    def key_description(self, binding: Binding) -> str:
        if binding.action == "give_up" and self.over:
            return "Solutions"  # g on a finished hand shows them (gave_up_text says so)
        return super().key_description(binding)

    def gave_up_text(self) -> str:
        return "You gave up on this hand (g shows its solutions). Press n for a new hand."

    def help_rows(self, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
        # One row for the cards and one for the operators, not one per key.
        singles = ("card ", "add", "subtract", "multiply", "divide")
        if self.over:  # no cards to pick any more
            return rows
        return [
            (self.card_keys, "pick a card, then an operator, then a card"),
            ("+ - * / x", "the operator between two cards: + - × ÷"),
            *(r for r in rows if not r[1].startswith(singles)),
        ]

    # ---------------------------------------------------------------- the player's game

    def watch_board(self) -> None:
        """A new board: its cards and the steps so far (and the choice, on its cards)."""
        board = self.board
        cards = list(self.query(NumberCard))
        for i, card in enumerate(cards):
            if i < len(board.cards):
                c = board.cards[i]
                card.show(c.label, c.expression)
            else:
                card.display = False
        row = self.query_one("#cards")
        row.set_class(len(board.cards) > 4, "-many")
        row.set_class(len(board.cards) <= 2, "-few")
        steps = Text()
        for i, step in enumerate(board.steps, 1):
            # Each step is re-checked through puzzles.arith, as every claim in ponder is.
            claim = verify_claim(step)
            steps.append(f"{i}. {_shown(step)}  ")
            steps.append(
                "✓\n" if claim.ok else "✗\n",
                style=tone(self, Tone.RIGHT) if claim.ok else tone(self, Tone.WRONG),
            )
        self.query_one("#steps", Static).update(steps)
        self.watch_first()

    def watch_first(self) -> None:
        """The chosen card stands out, and the line under the cards says the step so far."""
        board = self.board
        for i, card in enumerate(self.query(NumberCard)):
            card.selected = i == self.first and i < len(board.cards)
        pick = ""
        if self.first is not None and self.first < len(board.cards):
            chosen = board.cards[self.first]
            pick = chosen.label
            if chosen.expression and chosen.expression != chosen.label:
                pick = f"{_shown(chosen.expression)} = {pick}"  # whole, as the card cuts it
            if self.op:
                pick += f" {OP_SIGNS[self.op]} …"
            else:
                pick += " … now an operator"
        self.query_one("#selection", Static).update(Text(pick, style="bold"))

    def watch_op(self) -> None:
        self.watch_first()

    def on_number_card_picked(self, message: NumberCard.Picked) -> None:
        self.pick(message.index)

    def pick(self, index: int) -> None:
        if self.refuse_when_over() or index >= len(self.board.cards):
            return
        if self.first is None or self.op is None:
            self.first = index
            return
        if index == self.first:
            self.say("Pick a different card.", tone(self, Tone.WARNING))
            return
        op, first = self.op, self.first
        self.first, self.op = None, None
        try:
            self.board = self.board.combine(first, op, index)
        except StepError as exc:
            self.say(f"That step does not work: {exc}.", tone(self, Tone.WRONG))
            return
        self.say(f"{_shown(self.board.steps[-1])}  (exact)")
        if self.board.finished:
            self.finish_attempt()

    def action_pick(self, index: int) -> None:
        self.pick(index)

    def action_op(self, op: str) -> None:
        if self.refuse_when_over():
            return
        if self.first is None:
            self.say(f"Pick a card first ({self.card_keys}).", tone(self, Tone.WARNING))
            return
        self.op = op

    def action_undo(self) -> None:
        if self.refuse_when_over():
            return
        if self.first is not None:  # a half-made step goes first, and is all u undoes
            self.first = self.op = None
            self.say("Selection cleared.")
            return
        # The undone step's check goes with it.
        before = self.board.undo()
        if before is None:
            self.say("Nothing to undo.")
            return
        self.board = before
        self.say("Step undone.")

    def action_leave(self) -> None:
        """Escape first lets go of a chosen card (as people expect of escape); with none
        chosen it goes home, asking first about a started hand."""
        if self.first is not None and not self.over:
            self.first = self.op = None
            self.say("Selection cleared. Press esc again for home.")
            return
        super().action_leave()

    def action_reset(self) -> None:
        if self.refuse_when_over():
            return
        self.first = self.op = None
        self.board = self.board.reset()
        self.say("Back to the four cards.")

    def action_type_expression(self) -> None:
        if self.refuse_when_over():
            return
        # Focus now, not on the next message (Widget.focus): keys typed straight after ``e``
        # are already queued, and must reach the box, not the cards.
        self.set_focus(self.query_one("#expression", Input))

    @on(Input.Submitted, "#expression")
    def expression_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.refuse_when_over():
            return
        self.tried = True
        verdict = check_answer(self.hand, text)
        if verdict.ok:
            self.finish(True, verdict.expression)
            return
        message = Text(f"Not yet: {verdict.reason}.", style=tone(self, Tone.WRONG))
        for claim in extract_claims(text):
            message.append(f"\n{claim.describe()}")
        self.say(message)

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#expression", Input)
        # Escape from the expression box returns the keys to the cards.
        if event.key == "escape" and self.focused is box:
            self.set_focus(None)
            event.stop()
        elif event.key == "e" and self.focused is None:
            # Here, in the order keys come, rather than as a binding (bindings run when the
            # key reaches the app, after the keys typed next were already routed).
            event.stop()
            event.prevent_default()
            self.action_type_expression()
        elif event.is_printable and self.focused is box:
            # Typed after e but routed before the box took focus: the box's, not the cards'.
            event.stop()
            event.prevent_default()
            box.post_message(events.Key(event.key, event.character))

    def finish_attempt(self) -> None:
        if self.board.solved:
            self.finish(True, self.board.expression or "")
        else:
            value = format_number(self.board.cards[0].value)
            self.say(
                f"That makes {value}, not {self.hand.target}. Press u to undo or r to reset.",
                tone(self, Tone.WARNING),
            )

    def action_hint(self) -> None:
        from puzzles.game24.catalogue import hints

        if self.refuse_when_over():
            return
        steps = hints(self.hand)
        if self.hints_used < len(steps):
            self.hints_used += 1
        titles = ("Nudge", "First step", "A full solution")
        level = min(self.hints_used, len(steps)) - 1
        if len(steps) >= FULL_SOLUTION_HINT and level == FULL_SOLUTION_HINT - 1:
            self.solution_shown = True
        self.say(Text.assemble((f"{titles[min(level, 2)]}: ", "bold"), written(steps[level])))

    def leave_typing(self) -> None:
        # The hand is over: its box goes, leaving the message its room at 80x24.
        super().leave_typing()
        self.query_one("#expression", Input).display = False

    def give_up_now(self) -> None:
        from puzzles.game24.solve import solutions
        from tui.screens.dialogs import SolutionsDialog

        if not self.over:
            self.first = self.op = None
            self.give_up()

        def closed(new: bool | None) -> None:
            if new:  # n in the dialog: the new hand the message offers
                self.action_new()

        self.app.push_screen(SolutionsDialog(self.hand, solutions(self.hand)), closed)


def _typed(answer: str) -> str:
    """A typed answer as people read it: ``5*(5-1/5)`` as ``5 × (5 - 1 ÷ 5)``."""
    try:
        return written(parse(answer).render())
    except ArithError:
        return _shown(answer)
