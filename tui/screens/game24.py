"""Playing the Game of 24, with a reasoning method solving the same hand beside you."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Header, Input, Static

from puzzles.arith import extract_claims, format_number, verify_claim
from puzzles.game24 import Hand, StepError, check_answer
from puzzles.game24.play import Board
from solver import events as ev
from solver.model import Call, Generation, Model, TokenCallback
from tui.notation import written
from tui.screens.base import PonderScreen
from tui.widgets.footer import KeyHints
from tui.widgets.solver_pane import SolverPane

if TYPE_CHECKING:
    pass

__all__ = ["Game24Screen", "LeaveDialog", "NumberCard", "PacedModel"]

MAX_BATCH = 250
"""Most solver events shown per 50 ms tick."""
OP_SIGNS = {"+": "+", "-": "−", "*": "×", "/": "÷"}
FULL_SOLUTION_HINT = 3
"""The hint that shows a whole solution: a win after it is recorded as such."""


class PacedModel:
    """A model that waits ``delay`` seconds before each call: the race handicap that gives a
    person a chance against a solver that answers in a fraction of a second."""

    def __init__(self, inner: Model, delay: float) -> None:
        self.inner = inner
        self.name = inner.name
        self.delay = delay

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        await asyncio.sleep(self.delay)
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()


class LeaveDialog(ModalScreen[bool]):
    """Asks before a started hand is abandoned: leaving counts as not solved."""

    DEFAULT_CSS = """
    LeaveDialog { align: center middle; }
    LeaveDialog > Static {
        width: 52; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Leave", id="leave.yes"),
        Binding("n,escape", "answer(False)", "Stay", id="leave.no"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(
                ("Leave this hand?\n", "bold"),
                "It is recorded as abandoned and ends your streak.\n\n",
                ("y", "bold"),
                " / enter: leave    ",
                ("n", "bold"),
                " / esc: keep playing",
            )
        )

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)


class NumberCard(Static):
    """One number on the table; its key, value and the expression that made it."""

    selected: reactive[bool] = reactive(False)

    def __init__(self, index: int) -> None:
        super().__init__(classes="card", id=f"card-{index}")
        self.index = index
        self.value = ""
        self.expression = ""

    def show(self, value: str, expression: str) -> None:
        self.value, self.expression = value, expression
        self.display = True
        self.refresh_card()

    def refresh_card(self) -> None:
        text = Text(justify="center")
        text.append(f"{self.index + 1}\n", style="dim")
        text.append(self.value, style="bold")
        if self.expression and self.expression != self.value:
            text.append(f"\n{_shown(self.expression)}", style="dim")
        self.update(text)

    def watch_selected(self, selected: bool) -> None:
        self.set_class(selected, "-selected")

    def on_click(self) -> None:
        screen = self.screen
        if isinstance(screen, Game24Screen):
            screen.pick(self.index)


class Game24Screen(PonderScreen):
    """The puzzle on the left, the solver on the right."""

    # Nothing is focused at first, so number and operator keys reach the cards.
    AUTO_FOCUS = ""

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
        Binding("n", "new_puzzle", "New", id="game.new"),
        Binding("s,space", "toggle_solver", "Solver", id="game.solver"),
        Binding("m", "solver_options", "Method", id="game.method"),
        Binding("escape", "leave", "Home", id="game.home"),
        Binding("right_square_bracket", "replay_speed(2)", "Faster", id="game.faster"),
        Binding("left_square_bracket", "replay_speed(0.5)", "Slower", id="game.slower"),
    ]

    def __init__(self, hand: Hand, level: str | None = None, *, replay: Any = None) -> None:
        super().__init__()
        self.hand = hand
        self.level = level
        self.board = Board(hand)
        self.first: int | None = None
        self.op: str | None = None
        self.started = time.monotonic()
        self.ended: float | None = None
        self.hints_used = 0
        self.solution_shown = False
        self.tried = False  # a typed answer was checked
        self.gave_up = False
        self.recorded = False
        self.replay = replay
        self.paused_at: float | None = None  # while help or a dialog covers the hand
        self.paused_total = 0.0
        self.race = False  # set on mount from the app's race switch
        self.race_won: bool | None = None
        self.solver_result: ev.RunFinished | None = None
        self._method_chosen = False  # the message says "press space to start it"
        self._pending: list[ev.Event] = []

    # ---------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="game"):
            with Vertical(id="puzzle"):
                yield Static(id="puzzle-title")
                with Horizontal(id="cards"):
                    for i in range(6):
                        yield NumberCard(i)
                yield Static(id="selection")
                yield Static(id="steps")
                yield Input(placeholder="e.g. (8 - 4) × (7 - 1)", id="expression")
                yield Static(id="message")
                yield Static(id="race-status")
            yield SolverPane(id="solver")
        yield KeyHints()

    def on_mount(self) -> None:
        self.sub_title = "Game of 24"
        self.refresh_board()
        self.set_interval(1.0, self.refresh_title)
        self.set_interval(0.05, self.flush_events)
        self.set_interval(0.5, self.query_one(SolverPane).tick)
        self.set_interval(0.5, self.refresh_race)
        self.refresh_title()
        self.say(
            "Pick a card with 1-4, an operator (+ - * /), then another card. "
            "Or press e and type the whole expression."
        )
        self.race = self.ponder.race and self.replay is None
        # In a race the solver's thoughts stay hidden until the player is done; only its
        # progress shows.
        self.query_one(SolverPane).display = not self.race
        self.query_one("#race-status").display = self.race
        if self.replay is not None:
            self.start_replay()
        elif self.race:
            self.start_solver()
            self.refresh_race()

    # ---------------------------------------------------------------- the clock

    def elapsed(self) -> float:
        """The player's time on this hand: the clock stops while help or a dialog covers it."""
        now = self.ended or time.monotonic()
        covered = self.paused_total + (now - self.paused_at if self.paused_at is not None else 0)
        return max(0.0, now - self.started - covered)

    def on_screen_suspend(self) -> None:
        if self.paused_at is None and not self.over:
            self.paused_at = time.monotonic()

    def on_screen_resume(self) -> None:
        if self.paused_at is not None:
            self.paused_total += time.monotonic() - self.paused_at
            self.paused_at = None
        self.refresh_title()

    # ---------------------------------------------------------------- the player's game

    def refresh_title(self) -> None:
        clock = _clock(self.elapsed())
        level = f" · {self.level}" if self.level else ""
        hints = f" · hints {self.hints_used}" if self.hints_used else ""
        title = Text.assemble(
            (str(self.hand), "bold"),
            f" → {self.hand.target}{level} · ",
            (f"⏱ {clock}", "bold"),
            hints,
        )
        self.query_one("#puzzle-title", Static).update(title)

    def refresh_board(self) -> None:
        cards = list(self.query(NumberCard))
        for i, card in enumerate(cards):
            if i < len(self.board.cards):
                c = self.board.cards[i]
                card.show(c.label, c.expression)
                card.selected = i == self.first
            else:
                card.display = False
                card.selected = False
        pick = ""
        if self.first is not None and self.first < len(self.board.cards):
            pick = self.board.cards[self.first].label
            if self.op:
                pick += f" {OP_SIGNS[self.op]} …"
            else:
                pick += " … now an operator"
        self.query_one("#selection", Static).update(Text(pick, style="bold"))
        steps = Text()
        for i, step in enumerate(self.board.steps, 1):
            # Each step is re-checked through puzzles.arith, as every claim in ponder is.
            claim = verify_claim(step)
            steps.append(f"{i}. {_shown(step)}  ")
            steps.append("✓\n" if claim.ok else "✗\n", style="green" if claim.ok else "red")
        self.query_one("#steps", Static).update(steps)

    def say(self, message: str | Text, style: str = "") -> None:
        widget = self.query_one("#message", Static)
        widget.update(Text(message, style=style) if isinstance(message, str) else message)

    @property
    def over(self) -> bool:
        return self.ended is not None

    @property
    def in_play(self) -> bool:
        """Whether the player has begun this hand and not finished it: a card picked, a step,
        a hint, a typed answer, or the solver set going."""
        if self.over or self.replay is not None:
            return False
        pane = self.query_one(SolverPane)
        return bool(
            self.board.steps
            or self.first is not None
            or self.hints_used
            or self.tried
            or pane.running
            or pane.finished is not None
        )

    def refuse_when_over(self) -> bool:
        """Say why a move is refused on a finished hand; True when it is."""
        if not self.over:
            return False
        if self.gave_up:
            self.say(
                "You gave up on this hand (g shows its solutions). Press n for a new hand.",
                "yellow",
            )
        else:
            self.notify("This hand is over. Press n for a new hand.")
        return True

    def pick(self, index: int) -> None:
        if self.refuse_when_over() or index >= len(self.board.cards):
            return
        if self.first is None or self.op is None:
            self.first = index
            self.refresh_board()
            return
        if index == self.first:
            self.say("Pick a different card.", "yellow")
            return
        op, first = self.op, self.first
        self.first, self.op = None, None
        try:
            self.board.combine(first, op, index)
        except StepError as exc:
            self.say(f"That step does not work: {exc}.", "red")
            self.refresh_board()
            return
        self.refresh_board()
        self.say(f"{_shown(self.board.steps[-1])}  (exact)")
        if self.board.finished:
            self.finish_attempt()

    def action_pick(self, index: int) -> None:
        self.pick(index)

    def action_op(self, op: str) -> None:
        if self.refuse_when_over():
            return
        if self.first is None:
            self.say("Pick a card first (1-4).", "yellow")
            return
        self.op = op
        self.refresh_board()

    def action_undo(self) -> None:
        if self.refuse_when_over():
            return
        self.first = self.op = None
        # The undone step's check goes with it.
        self.say("Step undone." if self.board.undo() else "Nothing to undo.")
        self.refresh_board()

    def action_reset(self) -> None:
        if self.refuse_when_over():
            return
        self.first = self.op = None
        self.board.reset()
        self.refresh_board()
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
        message = Text(f"Not yet: {verdict.reason}.", style="red")
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
                "yellow",
            )

    def finish(self, solved: bool, answer: str) -> None:
        self.ended = time.monotonic()
        self.refresh_title()
        if solved:
            clock = _clock(self.elapsed())
            hints = (
                f" with {self.hints_used} hint{'s' * (self.hints_used != 1)}"
                if self.hints_used
                else " without hints"
            )
            shown = " (the solution was shown: no streak or best time)" * self.solution_shown
            text = Text.assemble(
                ("★ Solved! ", "bold green"),
                f"{_shown(answer)} = {self.hand.target}\n",
                f"in {clock}{hints}{shown}. Press n for a new puzzle.",
            )
            if self.race:
                text = self.race_result(answer)
            self.say(text)
            self.query_one("#puzzle").add_class("-won")
        self.end_race()
        self.record(solved, answer)

    def record(self, solved: bool, answer: str | None, *, abandoned: bool = False) -> None:
        if self.recorded or self.replay is not None:
            return
        self.recorded = True
        pane = self.query_one(SolverPane)
        finished = self.solver_result or pane.finished
        self.ponder.record_result(
            puzzle=str(self.hand),
            difficulty=self.level,
            seconds=self.elapsed(),
            hints=self.hints_used,
            solved=solved,
            gave_up=self.gave_up,
            answer=answer,
            solver_method=pane.method or None,
            solver_solved=finished.solved if finished else None,
            solver_seconds=finished.wall_time if finished else None,
            solution_shown=solved and self.solution_shown,
            abandoned=abandoned,
            race=self.race,
            race_won=self.race_won if self.race else None,
        )

    # ---------------------------------------------------------------- the race

    def refresh_race(self) -> None:
        """The solver's progress while it races, never its thoughts."""
        if not self.race or self.over:
            return
        pane = self.query_one(SolverPane)
        who = pane.method or self.ponder.method_name
        result = self.solver_result
        if result is None:
            line = Text.assemble(
                ("Race: ", "bold"),
                f"{who} is thinking · {pane.calls} calls · {_clock(pane.elapsed)}",
            )
        elif result.solved:
            line = Text.assemble(
                ("Race: ", "bold yellow"),
                f"{who} found an answer in {_seconds(result.wall_time)}. Keep going: "
                "you can still finish.",
            )
        else:
            line = Text.assemble(
                ("Race: ", "bold green"), f"{who} stopped without an answer. Finish it to win."
            )
        self.query_one("#race-status", Static).update(line)

    def race_result(self, answer: str) -> Text:
        """Who won the race, by how much, and both answers."""
        mine = self.elapsed()
        result = self.solver_result
        who = self.query_one(SolverPane).method or self.ponder.method_name
        yours = f"Yours: {_shown(answer)} = {self.hand.target} in {_seconds(mine)}."
        if result is not None and result.solved and result.wall_time <= mine:
            self.race_won = False
            head = (f"{who} won the race by {_seconds(mine - result.wall_time)}. ", "bold yellow")
        else:
            self.race_won = True
            if result is None:
                margin = f"{who} is still thinking."
            elif result.solved:
                margin = f"by {_seconds(result.wall_time - mine)}."
            else:
                margin = f"{who} found no answer."
            head = (f"★ You won the race! {margin} ", "bold green")
        return Text.assemble(head, "\n", yours, "\n", self.solver_answer_line())

    def solver_answer_line(self) -> str:
        result = self.solver_result
        who = self.query_one(SolverPane).method or self.ponder.method_name
        if result is None:
            return f"{who}'s answer: not yet (its run goes on beside you now)."
        if not result.solved or not result.answer:
            return f"{who}'s answer: none ({result.verdict or 'not solved'})."
        return f"{who}'s: {_shown(result.answer)} in {_seconds(result.wall_time)}."

    def end_race(self) -> None:
        """Show the solver's panes once the player is done."""
        if not self.race:
            return
        self.query_one(SolverPane).display = True
        self.query_one("#race-status").display = False

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
        self.refresh_title()

    def action_give_up(self) -> None:
        from puzzles.game24.solve import solutions
        from tui.screens.dialogs import SolutionsDialog

        if not self.over:
            self.gave_up = True
            self.ended = time.monotonic()
            self.first = self.op = None
            self.refresh_board()
            self.refresh_title()
            if self.race:
                solver = self.solver_result
                self.race_won = False if solver is not None and solver.solved else None
            self.end_race()
            self.record(False, None)
            message = Text("You gave up on this hand. Press n for a new hand.", style="yellow")
            if self.race:
                message.append(f"\n{self.solver_answer_line()}", style="")
            self.say(message)
        self.app.push_screen(SolutionsDialog(self.hand, solutions(self.hand)))

    def action_new_puzzle(self) -> None:
        self.ponder.new_game24(self.level, replace=True)

    def action_leave(self) -> None:
        if not self.in_play:
            self.leave()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.ended = time.monotonic()
                if self.race:
                    solver = self.solver_result
                    self.race_won = False if solver is not None and solver.solved else None
                self.record(False, None, abandoned=True)
                self.leave()

        self.app.push_screen(LeaveDialog(), answered)

    def leave(self) -> None:
        self.workers.cancel_group(self, "solver")
        self.app.pop_screen()

    # ---------------------------------------------------------------- the solver

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay_speed":
            return self.replay is not None  # replay keys show only while a trace plays
        return True

    def action_replay_speed(self, factor: float) -> None:
        if self.replay is not None:
            self.replay.change_speed(factor)
            self._replay_notice()

    def _replay_notice(self) -> None:
        pane = self.query_one(SolverPane)
        pane.notice = self.replay.notice()
        pane.refresh_status()

    def action_toggle_solver(self) -> None:
        if self.replay is not None:
            self.replay.toggle()
            self._replay_notice()
            return
        if self.race and not self.over:
            self.say("In a race the solver runs until you finish or give up (g).", "yellow")
            return
        pane = self.query_one(SolverPane)
        if pane.running:
            self.workers.cancel_group(self, "solver")
            self.flush_events(everything=True)
            pane.stopped()
            if pane.error.startswith("retrying"):
                pane.error = ""  # nothing is retried once stopped
                pane.refresh_status()
        else:
            self.start_solver()

    def start_solver(self) -> None:
        app = self.ponder
        method = app.make_method()
        pane = self.query_one(SolverPane)
        pane.reset(method.name, app.model_label)
        self._pending.clear()
        self.solver_result = None
        if self._method_chosen:
            self.say("")  # "press space to start it" is done with
            self._method_chosen = False
        self.run_solver(method)

    @work(exclusive=True, group="solver", exit_on_error=False)
    async def run_solver(self, method: Any) -> None:
        from solver.domains.game24 import Game24Domain
        from solver.methods import run_method

        app = self.ponder
        model: Model = app.make_model(on_retry=self._retrying)
        if self.race and app.race_delay > 0:
            model = PacedModel(model, app.race_delay)
        try:
            async for event in run_method(
                method,
                Game24Domain(self.hand),
                model,
                seed=app.seed(),
                deadline=app.settings.deadline,
            ):
                if isinstance(event, ev.RunFinished):
                    # The moment it finished, not the moment the screen shows it: a race is
                    # decided on this.
                    self.solver_result = event
                self._pending.append(event)
        finally:
            await model.aclose()

    def _retrying(self, kind: str, attempt: int, wait: float) -> None:
        what = "rate limited" if kind == "rate_limited" else kind.replace("_", " ")
        self._pending.append(ev.ErrorRaised("retrying", f"{what}; retry {attempt} in {wait:.1f}s"))

    def flush_events(self, everything: bool = False) -> None:
        """Show buffered events in one batch (the solver never waits on the screen)."""
        if not self._pending:
            return
        # At most MAX_BATCH events a tick, so one burst cannot hold up a key press; the rest
        # wait for the next tick (the solver itself never waits).
        cut = len(self._pending) if everything else MAX_BATCH
        batch, self._pending = self._pending[:cut], self._pending[cut:]
        with self.app.batch_update():
            self.query_one(SolverPane).apply(batch)
            self.refresh_race()

    def action_solver_options(self) -> None:
        from tui.screens.dialogs import MethodDialog

        if self.race and not self.over:
            self.say("The method is set for this race; change it on the next hand.", "yellow")
            return

        def chosen(result: dict[str, Any] | None) -> None:
            if result:
                self.ponder.method_name = result["method"]
                self.ponder.method_options = result["options"]
                self.say(f"Solver method: {result['method']}. Press space to start it.")
                self._method_chosen = True

        self.app.push_screen(
            MethodDialog(self.ponder.method_name, self.ponder.method_options), chosen
        )

    # ---------------------------------------------------------------- replay

    @work(exclusive=True, group="solver", exit_on_error=False)
    async def start_replay(self) -> None:
        replay = self.replay
        pane = self.query_one(SolverPane)
        pane.model_suffix = " (replay)"
        pane.reset(replay.method, replay.model)
        self._pending.clear()
        self._replay_notice()
        clock = 0.0
        for event in replay.events:
            while replay.paused:
                await asyncio.sleep(0.05)
            gap = max(0.0, event.t - clock) / replay.speed
            clock = event.t
            if gap > 0.001:
                await asyncio.sleep(min(gap, 2.0))
            self._pending.append(event)
        self.flush_events(everything=True)
        replay.finished = True
        self._replay_notice()


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _seconds(seconds: float) -> str:
    """A race margin: tenths under a minute, else minutes and seconds."""
    return f"{seconds:.1f} s" if seconds < 60 else _clock(seconds)


def _shown(arithmetic: str) -> str:
    """Operators as people write them; a fraction such as 8/3 keeps its slash."""
    return arithmetic.replace(" * ", " × ").replace(" / ", " ÷ ")
