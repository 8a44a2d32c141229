"""Playing the Game of 24, with a reasoning method solving the same hand beside you."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Footer, Header, Input, Static

from puzzles.arith import extract_claims, format_number, verify_claim
from puzzles.game24 import Hand, StepError, check_answer
from puzzles.game24.play import Board
from solver import events as ev
from tui.screens.base import PonderScreen
from tui.widgets.solver_pane import SolverPane

if TYPE_CHECKING:
    pass

__all__ = ["Game24Screen", "NumberCard"]

MAX_BATCH = 250
"""Most solver events shown per 50 ms tick."""
OP_SIGNS = {"+": "+", "-": "−", "*": "×", "/": "÷"}


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
        self.gave_up = False
        self.recorded = False
        self.replay = replay
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
                yield Input(
                    placeholder="type an expression, e.g. (8 - 4) * (7 - 1)", id="expression"
                )
                yield Static(id="message")
            yield SolverPane(id="solver")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Game of 24"
        self.refresh_board()
        self.set_interval(1.0, self.refresh_title)
        self.set_interval(0.05, self.flush_events)
        self.set_interval(0.5, self.query_one(SolverPane).tick)
        self.refresh_title()
        self.say(
            "Pick a card with 1-4, an operator (+ - * /), then another card. "
            "Or press e and type the whole expression."
        )
        if self.replay is not None:
            self.start_replay()
        elif self.ponder.race:
            self.start_solver()

    # ---------------------------------------------------------------- the player's game

    def refresh_title(self) -> None:
        seconds = (self.ended or time.monotonic()) - self.started
        clock = f"{int(seconds // 60)}:{int(seconds % 60):02d}"
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

    def pick(self, index: int) -> None:
        if self.over or index >= len(self.board.cards):
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
        if self.over:
            return
        if self.first is None:
            self.say("Pick a card first (1-4).", "yellow")
            return
        self.op = op
        self.refresh_board()

    def action_undo(self) -> None:
        if self.over:
            return
        self.first = self.op = None
        if not self.board.undo():
            self.say("Nothing to undo.")
        self.refresh_board()

    def action_reset(self) -> None:
        if self.over:
            return
        self.first = self.op = None
        self.board.reset()
        self.refresh_board()
        self.say("Back to the four cards.")

    def action_type_expression(self) -> None:
        self.query_one("#expression", Input).focus()

    @on(Input.Submitted, "#expression")
    def expression_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.over:
            return
        verdict = check_answer(self.hand, text)
        if verdict.ok:
            self.finish(True, verdict.expression)
            return
        message = Text(f"Not yet: {verdict.reason}.", style="red")
        for claim in extract_claims(text):
            message.append(f"\n{claim.describe()}")
        self.say(message)

    def on_key(self, event: Any) -> None:
        # Escape from the expression box returns the keys to the cards.
        if event.key == "escape" and isinstance(self.focused, Input):
            self.set_focus(None)
            event.stop()

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
        seconds = self.ended - self.started
        self.refresh_title()
        if solved:
            clock = f"{int(seconds // 60)}:{int(seconds % 60):02d}"
            hints = (
                f" with {self.hints_used} hint{'s' * (self.hints_used != 1)}"
                if self.hints_used
                else " without hints"
            )
            self.say(
                Text.assemble(
                    ("★ Solved! ", "bold green"),
                    f"{_shown(answer)} = {self.hand.target}\n",
                    f"in {clock}{hints}. Press n for a new puzzle.",
                )
            )
            self.query_one("#puzzle").add_class("-won")
        self.record(solved, answer)

    def record(self, solved: bool, answer: str | None) -> None:
        if self.recorded or self.replay is not None:
            return
        self.recorded = True
        pane = self.query_one(SolverPane)
        finished = pane.finished
        self.ponder.record_result(
            puzzle=str(self.hand),
            difficulty=self.level,
            seconds=(self.ended or time.monotonic()) - self.started,
            hints=self.hints_used,
            solved=solved,
            gave_up=self.gave_up,
            answer=answer,
            solver_method=pane.method or None,
            solver_solved=finished.solved if finished else None,
            solver_seconds=finished.wall_time if finished else None,
        )

    def action_hint(self) -> None:
        from puzzles.game24.catalogue import hints

        steps = hints(self.hand)
        if self.hints_used < len(steps):
            self.hints_used += 1
        titles = ("Nudge", "First step", "A full solution")
        level = min(self.hints_used, len(steps)) - 1
        self.say(Text.assemble((f"{titles[min(level, 2)]}: ", "bold"), steps[level]))
        self.refresh_title()

    def action_give_up(self) -> None:
        from puzzles.game24.solve import solutions
        from tui.screens.dialogs import SolutionsDialog

        if not self.over:
            self.gave_up = True
            self.ended = time.monotonic()
            self.refresh_title()
            self.record(False, None)
        self.app.push_screen(SolutionsDialog(self.hand, solutions(self.hand)))

    def action_new_puzzle(self) -> None:
        self.ponder.new_game24(self.level, replace=True)

    def action_leave(self) -> None:
        if not self.over and self.board.steps and self.replay is None:
            self.record(False, None)
        self.workers.cancel_group(self, "solver")
        self.app.pop_screen()

    # ---------------------------------------------------------------- the solver

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay_speed":
            return self.replay is not None  # replay keys show only while a trace plays
        return True

    def action_replay_speed(self, factor: float) -> None:
        if self.replay is not None:
            self.replay.speed = min(64.0, max(0.125, self.replay.speed * factor))
            self._replay_notice()

    def _replay_notice(self) -> None:
        pane = self.query_one(SolverPane)
        state = "paused" if self.replay.paused else f"playing at {self.replay.speed:g}x"
        pane.notice = f"replay {state} · space pauses · [ ] change speed"
        pane.refresh_status()

    def action_toggle_solver(self) -> None:
        if self.replay is not None:
            self.replay.toggle()
            self._replay_notice()
            return
        pane = self.query_one(SolverPane)
        if pane.running:
            self.workers.cancel_group(self, "solver")
            self.flush_events(everything=True)
            pane.stopped()
        else:
            self.start_solver()

    def start_solver(self) -> None:
        app = self.ponder
        method = app.make_method()
        pane = self.query_one(SolverPane)
        pane.reset(method.name, app.model_label)
        self._pending.clear()
        self.run_solver(method)

    @work(exclusive=True, group="solver", exit_on_error=False)
    async def run_solver(self, method: Any) -> None:
        from solver.domains.game24 import Game24Domain
        from solver.methods import run_method

        app = self.ponder
        model = app.make_model(on_retry=self._retrying)
        try:
            async for event in run_method(
                method,
                Game24Domain(self.hand),
                model,
                seed=app.seed(),
                deadline=app.settings.deadline,
            ):
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

    def action_solver_options(self) -> None:
        from tui.screens.dialogs import MethodDialog

        def chosen(result: dict[str, Any] | None) -> None:
            if result:
                self.ponder.method_name = result["method"]
                self.ponder.method_options = result["options"]
                self.say(f"Solver method: {result['method']}. Press space to start it.")

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
        pane.notice = "replay finished · esc for home"
        pane.refresh_status()


def _shown(arithmetic: str) -> str:
    """Operators as people write them; a fraction such as 8/3 keeps its slash."""
    return arithmetic.replace(" * ", " × ").replace(" / ", " ÷ ")
