"""The screen every puzzle kind is played on: the puzzle on the left, a reasoning method solving
the same puzzle on the right.

:class:`PuzzleScreen` owns the solver side for every kind: the worker that runs the method,
the buffer its events wait in and the batched flush that shows them (typing never waits on the
solver), start, stop and restart, race mode with its handicap, the method dialog, replays, the
retry notices and the result saved to the store. A kind's screen adds only its puzzle: what it
composes, how a win is written, what a result records, and its own command-palette commands.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, Self

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Header, Input, Static, TextArea

from solver import events as ev
from solver.model import Model
from solver.model.paced import PacedModel
from solver.model.remembering import RememberingModel
from solver.text import visible
from tui.kinds import KINDS, PuzzleKind
from tui.screens.base import PonderScreen
from tui.solver_loop import SolverLoop
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.footer import KeyHints
from tui.widgets.grows import update_in_place
from tui.widgets.solver_pane import SolverPane
from tui.widgets.tones import Tone, tone
from tui.widgets.typing_box import TypingBox

if TYPE_CHECKING:
    from tui.app import Replay

__all__ = [
    "FLUSH_BUDGET",
    "MAX_BATCH",
    "GiveUpDialog",
    "LeaveDialog",
    "PacedModel",
    "PauseScreen",
    "PuzzleScreen",
    "QuitDialog",
    "ScreenCommands",
    "TypingBox",
]

MAX_BATCH = 250
"""Most solver events shown per 50 ms tick."""

FLUSH_BUDGET = 0.008
"""Seconds a tick spends applying solver events (at least one is applied); the rest wait for
the next tick, so a key pressed meanwhile reaches the screen within a frame or two."""

TYPING_SECONDS = 0.6
"""A key pressed this recently means the player is typing: the solver's events are shown
every :data:`TYPING_FLUSH_SECONDS` rather than every tick, so that the frames a key waits for
are not the pane's (a tree and a log redrawn, 10-20 ms each beside a full-speed solver)."""

TYPING_FLUSH_SECONDS = 0.25

KEY_FRAME_WAIT = 0.1
"""Seconds at most that showing the solver's events waits for a key's frame (a key that
closed its screen has no frame on it to wait for)."""

BACKLOG = 2_000
"""Most events the solver gets ahead of the screen: past it, the run waits until the screen
has shown some (beside a full-speed solver while the player types; memory stays bounded)."""

BACKLOG_WAIT = 0.05
"""Seconds a run that is :data:`BACKLOG` events ahead waits before it looks again (a tick)."""


_driving: ContextVar[int] = ContextVar("_driving", default=-1)
"""On the solver's loop, the number of the run a task works for (a retry's notice is its)."""


class GiveUpDialog(ConfirmDialog):
    """Asks before the player gives up: the solution is shown and the puzzle ends unsolved."""

    def __init__(self, noun: str, shows: str) -> None:
        super().__init__(
            f"Give up this {noun}?",
            f"You will see {shows}. It counts as not solved and ends your streak.",
            "give up",
            "keep playing",
        )


class QuitDialog(ConfirmDialog):
    """Asks before ctrl+q ends the app with a puzzle in play: it is recorded as abandoned
    (ctrl+q again answers yes)."""

    def __init__(self, noun: str) -> None:
        super().__init__(
            "Quit ponder?",
            f"This {noun} is not finished: it is recorded as abandoned and ends your streak.",
            "quit",
            "keep playing",
        )


class NewDialog(ConfirmDialog):
    """Asks before a started puzzle is swapped for a new one (n; t for a word problem's next
    topic; ctrl+n for a mini): as with esc, it is recorded as abandoned."""

    def __init__(self, noun: str) -> None:
        super().__init__(
            f"A new {noun}?",
            f"This {noun} is not finished: it is recorded as abandoned and ends your streak.",
            f"new {noun}",
            "keep playing",
        )


class PauseScreen(Screen[None]):
    """The puzzle hidden while its clock stands still; any key goes back to it."""

    def __init__(self, noun: str, key: str) -> None:
        super().__init__(id="pause")
        self.noun, self.key = noun, key

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(
                ("Paused\n\n", "bold"),
                f"The {self.noun} is hidden and its clock stands still.\n",
                f"Press any key ({self.key}, esc, enter) to go on.",
            ),
            id="pause-text",
        )

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)


class LeaveDialog(ConfirmDialog):
    """Asks before a started puzzle is abandoned: leaving counts as not solved."""

    def __init__(self, noun: str = "puzzle") -> None:
        super().__init__(
            f"Leave this {noun}?",
            "It is recorded as abandoned and ends your streak.",
            "leave",
            "keep playing",
        )
        self.noun = noun


Command = tuple[str, str, Callable[[], Any]]
"""A palette entry: its title, one line of help, and what it does."""


class ScreenCommands(Provider):
    """Command-palette entries of one screen, listed by :meth:`commands`."""

    def commands(self) -> Iterator[Command]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, run in self.commands():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)


class SolverCommands(ScreenCommands):
    """The solver's commands, on every puzzle screen."""

    def commands(self) -> Iterator[Command]:
        screen = self.screen
        if not isinstance(screen, PuzzleScreen):
            return
        yield (
            "Start, stop or resume the solver",
            "s or space: a stopped run resumes from its reply cache",
            screen.action_toggle_solver,
        )
        yield (
            "Restart the solver",
            "S: a fresh run that asks the model everything again",
            screen.action_restart_solver,
        )
        yield ("Solver method", "m: the method and its parameters", screen.action_solver_options)
        yield (f"New {screen.noun}", f"n: another {screen.kind.label} puzzle", screen.action_new)


SOLVER_BINDINGS: list[BindingType] = [
    Binding("n", "new", "New", id="puzzle.new"),
    Binding("s,space", "toggle_solver", "Solver", id="puzzle.solver"),
    Binding("S", "restart_solver", "Restart solver", show=False, id="puzzle.restart"),
    Binding("m", "solver_options", "Method", id="puzzle.method"),
    Binding("escape", "leave", "Home", id="puzzle.home"),
    # While the pane is enlarged esc shrinks it (Textual's escape-to-minimize): the footer
    # says so there, not "Home".
    Binding("escape", "shrink", "Shrink", id="puzzle.shrink"),
    Binding("right_square_bracket", "replay_speed(2)", "Faster", id="puzzle.faster"),
    Binding("left_square_bracket", "replay_speed(0.5)", "Slower", id="puzzle.slower"),
    Binding("ctrl+f", "pane_focus", "Solver pane / back", show=False, id="puzzle.pane"),
    Binding("ctrl+z", "zoom", "Enlarge the solver pane", show=False, id="puzzle.zoom"),
    Binding("v", "peek", "Show the solver's answer", show=False, id="puzzle.peek"),
]
"""The keys every puzzle screen has; they follow the kind's own keys in the footer."""


class PuzzleScreen(PonderScreen):
    """A puzzle on the left, the solver on the right. Subclass per puzzle kind.

    A subclass sets :attr:`KIND` (its entry in :data:`tui.kinds.KINDS`), composes its puzzle in
    :meth:`compose_puzzle`, says how a new puzzle is dealt (:meth:`deal`) and read back from a
    trace (:meth:`from_replay`), and calls :meth:`finish` when the player solves it."""

    KIND: ClassVar[str] = ""
    """The puzzle kind, as :data:`tui.kinds.KINDS` and the store know it."""
    NOUN: ClassVar[str] = "puzzle"
    """What one puzzle of the kind is called in messages (``hand``)."""
    LEVELS: ClassVar[tuple[str, ...]] = ()
    """The difficulties a new puzzle can be dealt at, easiest first."""
    COMMANDS = {SolverCommands}

    # Nothing is focused at first, so a kind's keys reach the puzzle.
    AUTO_FOCUS = ""

    CLOCK_TICK: ClassVar[float] = 1.0
    """Seconds between the title clock's redraws while it runs."""

    dealt: var[bool] = var(False, init=False)
    """Whether the puzzle is on the screen (set on mount): its clock may run from then."""
    ended: var[float | None] = var(None, init=False)
    """When the player finished (solved, gave up or left): the clock stops there."""
    paused_at: var[float | None] = var(None, init=False)
    """When help, a dialog or the pause screen covered the puzzle: the clock stands still."""
    replay_ended: var[float | None] = var(None, init=False)
    """When the trace being replayed ran out: its clock stops there."""
    ticking: var[bool] = var(False, init=False)
    """Whether the title's clock runs (computed: dealt, not over, not paused, the replay not
    ended); its timer runs only while it does."""
    hints_used: var[int] = var(0, init=False)
    """Hints (or checks and reveals) the player asked for; the title counts them."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Textual lists a base class's keys before a subclass's; a kind's own keys (what the
        # player does most) come first in the footer, the solver's after them.
        if "BINDINGS" in cls.__dict__:
            cls.BINDINGS = [*cls.__dict__["BINDINGS"], *SOLVER_BINDINGS]
        super().__init_subclass__(**kwargs)

    def __init__(self, puzzle: object, level: str | None = None, *, replay: Any = None) -> None:
        super().__init__()
        self.puzzle = puzzle
        self.level = level
        self.replay: Replay | None = replay
        self.started = time.monotonic()
        self.paused_total = 0.0
        self.clock_timer: Timer | None = None
        """The timer that redraws the title's clock: there only while :attr:`ticking`."""
        self.solution_shown = False  # a hint showed a whole solution
        self.gave_up = False
        self.recorded = False
        self.race = False  # set on mount from the app's race switch
        self.race_won: bool | None = None
        self.solver_result: ev.RunFinished | None = None
        self._model: Model | None = None
        """The solver's model, kept between runs for its reply cache (``S`` makes a new one)."""
        self._solver_loop = SolverLoop()
        """Where the solver's runs go, apart from the screen's loop (:mod:`tui.solver_loop`)."""
        self._race_gate = asyncio.Event()
        """Open while the player can play; waited on by the race's model on the solver's loop,
        so it is opened and closed there (:meth:`SolverLoop.call`)."""
        self._race_gate.set()
        self._gate_open = True
        self._gate_closed_at = 0.0
        self.solver_paused = 0.0
        """Seconds the race's solver was held while help or a dialog covered the race."""
        self._method_chosen = False  # the message says "press space to start it"
        self._pending: list[ev.Event] = []
        self._inbox: deque[tuple[int, ev.Event]] = deque()
        """Events as they come from the solver's loop, with their run's number: moved to
        :attr:`_pending` on the screen's loop, less those of a run stopped or replaced."""
        self._run_number = 0
        """The run whose events are shown; a stop or a new start moves it on."""
        self._flushed_at = 0.0
        """When a tick last showed (or could have shown) a batch (``time.perf_counter``)."""
        self._held: tuple[bool, str] | None = None
        """A race won while the solver still thinks: saved once the solver is done."""

    # ---------------------------------------------------------------- what a kind provides

    @classmethod
    def deal(cls, level: str | None, seed: int) -> PuzzleScreen:
        """A screen with a new puzzle of ``level`` (any when None), chosen by ``seed``."""
        raise NotImplementedError

    @classmethod
    def from_replay(cls, replay: Replay) -> Self:
        """A screen showing the puzzle a trace was run on, playing the trace; ``ValueError``
        when its header names no puzzle of this kind (the kind's spec reads the header)."""
        return cls(KINDS[cls.KIND].spec.puzzle_from_header(replay.header), "replay", replay=replay)

    @classmethod
    def warm_up(cls) -> None:
        """Slow preparation before the first puzzle, run on a thread at start-up."""

    def compose_puzzle(self) -> ComposeResult:
        """The puzzle's widgets, between the title and the message line."""
        yield from ()

    def start_puzzle(self) -> None:
        """Called once the screen is mounted: draw the puzzle, say how to play."""

    def make_domain(self) -> Any:
        """The solver's domain adapter for this puzzle."""
        return self.kind.spec.make_domain(self.puzzle)

    @property
    def puzzle_text(self) -> str:
        """The puzzle as the title, the history and the store show it."""
        return str(self.puzzle)

    def title_text(self) -> Text:
        """The line above the puzzle: the puzzle, its level, the clock."""
        level = f" · {self.level}" if self.level else ""
        return Text.assemble(
            (self.puzzle_text, "bold"), f"{level} · ", (f"⏱ {clock(self.elapsed())}", "bold")
        )

    def begun(self) -> bool:
        """Whether the player has made a move on the puzzle (leaving then asks first)."""
        return bool(self.hints_used)

    def answer_text(self, answer: str) -> str:
        """An answer (the player's or the solver's) as people read it, e.g. with its value."""
        return answer

    def goal_state(self) -> str | None:
        """The state text of a solved puzzle, if states show it (a thought that leaves it
        is marked as reaching the goal)."""
        return None

    def won_text(self, answer: str) -> Text:
        """The message for a win outside a race."""
        return Text.assemble(
            ("★ Solved! ", tone(self, Tone.RIGHT, "bold")),
            f"{visible(self.answer_text(answer))}\nin {clock(self.elapsed())}. "
            f"Press n for a new {self.noun}.",
        )

    def gave_up_text(self) -> str:
        """What a move on a given-up puzzle is told."""
        return f"You gave up on this {self.noun}. Press n for a new {self.noun}."

    def help_rows(self, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The rows of the keys help, as the kind wants them grouped."""
        return rows

    GIVE_UP_SHOWS: ClassVar[str] = "the solution"
    """What giving up shows, for the question asked first (``every solution``)."""
    PEEK_KEY: ClassVar[str] = "v"
    """The key that shows the solver's answer while the player is still playing."""
    LEGEND_KEY: ClassVar[str] = "l"
    """The key that explains the solver pane's marks."""
    PAUSE_KEY: ClassVar[str] = "p"
    """The key that pauses the clock (the puzzle hidden meanwhile)."""
    PLAY_ACTIONS: ClassVar[frozenset[str]] = frozenset({"give_up", "pause", "peek"})
    """Actions that only play the puzzle: once it is over (won or given up) they do nothing,
    so the footer and the help no longer offer them (:meth:`check_action`)."""

    def give_up_now(self) -> None:
        """Give up without asking (the question was answered): the kind shows its solution."""
        self.give_up()

    def puzzle_focus(self) -> Widget | None:
        """What has focus while the player plays (None: the screen, whose keys play)."""
        return None

    # ---------------------------------------------------------------- layout

    @property
    def kind(self) -> PuzzleKind:
        return KINDS[self.KIND]

    @property
    def noun(self) -> str:
        return self.NOUN

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="game"):
            with Vertical(id="puzzle"):
                yield Static(id="puzzle-title")
                yield from self.compose_puzzle()
                yield Static(id="message")
                yield Static(id="race-status")
            yield SolverPane(id="solver")
        yield KeyHints()

    def on_mount(self) -> None:
        self.sub_title = self.kind.label
        self.ponder.kind_name = self.KIND  # the method this kind keeps is the one it runs
        pane = self.query_one(SolverPane)
        pane.answer_text = self.answer_text
        pane.goal = self.goal_state()
        # No spoilers: the solver's answer waits until the player is done (or asks).
        pane.answer_hidden = self.replay is None
        pane.peek_key = self.PEEK_KEY
        self.set_interval(0.05, self.flush_events)
        # The race line shows the solver's time: it follows the pane's clock, which runs
        # only while the solver does.
        self.watch(pane, "elapsed", self.refresh_race, init=False)
        self.dealt = True  # the clock starts (watch_ticking draws the title)
        self.start_puzzle()
        # No race where the engine cannot run the solver here (a published run's own hand).
        self.race = self.ponder.race and self.replay is None and self.solver_problem() is None
        # In a race the solver's thoughts stay hidden until the player is done; only its
        # progress shows.
        pane.display = not self.race
        self.query_one("#race-status").display = self.race
        if self.replay is not None:
            self.start_replay()
        elif self.race:
            self.start_solver()
            self.refresh_race()

    def refresh_title(self) -> None:
        # Redrawn every tick of the clock: no layout of the screen unless it wraps otherwise.
        update_in_place(self.query_one("#puzzle-title", Static), self.title_text())

    def say(self, message: str | Text, style: str = "") -> None:
        widget = self.query_one("#message", Static)
        widget.update(Text(message, style=style) if isinstance(message, str) else message)

    # ---------------------------------------------------------------- the clock

    def compute_ticking(self) -> bool:
        return (
            self.dealt
            and self.ended is None
            and self.paused_at is None
            and self.replay_ended is None
        )

    def watch_ticking(self, ticking: bool) -> None:
        """The clock starts or stops: its timer with it, and the title shows where it is.
        (Textual also calls it when ``ticking`` is read: it acts only on a change.)"""
        if ticking and self.clock_timer is None:
            self.clock_timer = self.set_interval(self.CLOCK_TICK, self.refresh_title)
        elif not ticking and self.clock_timer is not None:
            self.clock_timer.stop()
            self.clock_timer = None
        self.refresh_title()

    def watch_hints_used(self) -> None:
        self.refresh_title()

    def elapsed(self) -> float:
        """The player's time on this puzzle: the clock stops while help or a dialog covers
        it."""
        now = self.ended or self.replay_ended or time.monotonic()
        covered = self.paused_total + (now - self.paused_at if self.paused_at is not None else 0)
        return max(0.0, now - self.started - covered)

    def on_screen_suspend(self) -> None:
        if self.paused_at is None and not self.over:
            self.paused_at = time.monotonic()
        if self.race and self.solver_result is None and self._gate_open:
            # Fair play: the solver waits too while the player reads help.
            self._gate_open = False
            self._solver_loop.call(self._race_gate.clear)
            self._gate_closed_at = time.monotonic()

    def on_screen_resume(self) -> None:
        self.ponder.kind_name = self.KIND
        if self.paused_at is not None:
            self.paused_total += time.monotonic() - self.paused_at
            self.paused_at = None
        if not self._gate_open:
            self.solver_paused += time.monotonic() - self._gate_closed_at
            self._gate_open = True
            self._solver_loop.call(self._race_gate.set)

    def solver_time(self, result: ev.RunFinished) -> float:
        """The solver's time in a race: its run's time without the pauses under help."""
        return max(0.0, result.wall_time - self.solver_paused)

    # ---------------------------------------------------------------- the player's side

    @property
    def over(self) -> bool:
        return self.ended is not None

    @property
    def in_play(self) -> bool:
        """Whether the player has begun this puzzle and not finished it: a move, a hint, or
        the solver set going."""
        if self.over or self.replay is not None:
            return False
        pane = self.query_one(SolverPane)
        return self.begun() or pane.running or pane.finished is not None

    def refuse_when_over(self) -> bool:
        """Say why a move is refused on a finished puzzle; True when it is."""
        if not self.over:
            return False
        if self.gave_up:
            self.say(self.gave_up_text(), tone(self, Tone.WARNING))
        else:
            self.notify(f"This {self.noun} is over. Press n for a new {self.noun}.")
        return True

    def key_description(self, binding: Binding) -> str:
        """What ``binding`` does now, as the footer and the help say it (a key may do
        something else once the puzzle is over)."""
        return binding.description

    def finish(self, solved: bool, answer: str) -> None:
        """The player is done: solved with ``answer``, or not."""
        self._drain()  # a run that ended before the player did has its result noted
        self.ended = time.monotonic()  # the clock stops (watch_ticking)
        self.refresh_bindings()  # the footer says what the keys do now
        self.leave_typing()
        self.show_answer()
        if solved:
            self.say(self.race_result(answer) if self.race else self.won_text(answer))
            self.query_one("#puzzle").add_class("-won")
        self.end_race()
        if self.race and solved and self.solver_result is None and self.solver_running:
            # The row and the message get the solver's outcome when it has one.
            self._held = (solved, answer)
            return
        self.record(solved, answer)

    def show_answer(self) -> None:
        """The player is done: the solver's answer is no spoiler any more."""
        pane = self.query_one(SolverPane)
        if pane.answer_hidden:
            pane.show_answer()

    def leave_typing(self) -> None:
        """Once the puzzle is over nothing is left to type: a box that has focus lets it
        go, so the game's keys (n for a new puzzle, esc for home) work at once."""
        if isinstance(self.focused, Input | TextArea):
            self.set_focus(None)

    @property
    def solver_running(self) -> bool:
        return self.query_one(SolverPane).running

    def release_result(self) -> None:
        """Save a result held for the solver's outcome, with whatever is known of it now."""
        if self._held is not None:
            solved, answer = self._held
            self._held = None
            self.record(solved, answer)

    def _solver_done_after_win(self) -> None:
        """The solver finished after the player won the race: its outcome goes into the
        message and the saved result."""
        if self._held is None or self.solver_result is None:
            return
        answer = self._held[1]
        self.release_result()
        self.say(self.race_result(answer, decided=True))

    def give_up(self) -> None:
        """The player gives up: the puzzle ends unsolved (nothing when it is already over)."""
        if self.over:
            return
        self.gave_up = True
        self.ended = time.monotonic()
        self.refresh_bindings()  # the footer says what the keys do now
        self.leave_typing()
        self.show_answer()
        if self.race:
            solver = self.solver_result
            self.race_won = False if solver is not None and solver.solved else None
        self.end_race()
        self.record(False, None)
        message = Text(self.gave_up_text(), style=tone(self, Tone.WARNING))
        if self.race:
            message.append(f"\n{self.solver_answer_line()}", style="")
        self.say(message)

    def action_give_up(self) -> None:
        """Ask, then give up (:meth:`give_up_now`); a finished puzzle shows it again."""
        if self.over:
            self.give_up_now()
            return

        def answered(yes: bool | None) -> None:
            if yes and not self.over:
                self.give_up_now()

        self.app.push_screen(GiveUpDialog(self.noun, self.GIVE_UP_SHOWS), answered)

    def abandon(self) -> None:
        """The player leaves a puzzle in play (esc, ctrl+q): it is saved as abandoned."""
        self.ended = time.monotonic()
        if self.race:
            solver = self.solver_result
            self.race_won = False if solver is not None and solver.solved else None
        self.record(False, None, abandoned=True)

    def record(self, solved: bool, answer: str | None, *, abandoned: bool = False) -> None:
        """Save this puzzle's result once (a replay saves nothing)."""
        if self.recorded or self.replay is not None:
            return
        self.recorded = True
        pane = self.query_one(SolverPane)
        finished = self.solver_result or pane.finished
        self.ponder.record_result(
            kind=self.KIND,
            puzzle=self.puzzle_text,
            difficulty=self.level,
            seconds=self.elapsed(),
            hints=self.hints_used,
            solved=solved,
            gave_up=self.gave_up,
            answer=answer,
            solver_method=pane.method or None,
            solver_solved=finished.solved if finished else None,
            solver_seconds=self.solver_time(finished) if finished else None,
            solution_shown=solved and self.solution_shown,
            abandoned=abandoned,
            race=self.race,
            race_won=self.race_won if self.race else None,
        )

    def action_new(self) -> None:
        self.ask_before_new(self.deal_new)

    def deal_new(self) -> None:
        """Swap this puzzle for a new one of the same kind and level."""
        self.release_result()
        self.ponder.open_puzzle(self.KIND, self.level, replace=True)

    def ask_before_new(self, deal: Callable[[], None]) -> None:
        """``deal`` another puzzle: at once when this one is not in play, else after asking
        (yes records this one as abandoned, as esc does)."""
        if not self.in_play:
            deal()
            return

        def answered(yes: bool | None) -> None:
            if yes and not self.over:
                self.abandon()
                deal()

        self.app.push_screen(NewDialog(self.noun), answered)

    async def on_unmount(self) -> None:
        self.release_result()
        model, self._model = self._model, None
        # The run is cancelled first, then its model is closed, both on the solver's loop.
        await self._solver_loop.close(model.aclose() if model is not None else None)

    def action_leave(self) -> None:
        if not self.in_play:
            self.leave()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.abandon()
                self.leave()

        self.app.push_screen(LeaveDialog(self.noun), answered)

    def leave(self) -> None:
        self.release_result()
        self.workers.cancel_group(self, "solver")
        self.app.pop_screen()

    # ---------------------------------------------------------------- the race

    @property
    def solver_label(self) -> str:
        """The method racing, as people know it (``BoT``)."""
        pane = self.query_one(SolverPane)
        if pane.method:
            return pane.label
        from solver.methods import find_spec

        try:
            return find_spec(self.ponder.method_name).label
        except ValueError:
            return self.ponder.method_name

    def refresh_race(self) -> None:
        """The solver's progress while it races, never its thoughts."""
        if not self.race or self.over:
            return
        pane = self.query_one(SolverPane)
        who = self.solver_label
        result = self.solver_result
        if result is None:
            line = Text.assemble(
                ("Race: ", "bold"),
                f"{who} is thinking · {pane.calls} calls · {clock(pane.elapsed)}",
            )
        elif result.solved:
            line = Text.assemble(
                ("Race: ", tone(self, Tone.WARNING, "bold")),
                f"{who} found an answer in {seconds(self.solver_time(result))}. Keep going: "
                "you can still finish.",
            )
        else:
            line = Text.assemble(
                ("Race: ", tone(self, Tone.RIGHT, "bold")),
                f"{who} stopped without an answer. Finish it to win.",
            )
        self.query_one("#race-status", Static).update(line)

    def race_result(self, answer: str, *, decided: bool = False) -> Text:
        """Who won the race, by how much, and both answers. ``decided``: the player won
        before the solver finished, which it has now."""
        mine = self.elapsed()
        result = self.solver_result
        who = self.solver_label
        yours = f"Yours: {visible(self.answer_text(answer))} in {seconds(mine)}."
        theirs = self.solver_time(result) if result is not None else 0.0
        if decided and result is not None:
            later = f"{who} finished {seconds(max(0.0, theirs - mine))} later."
            head = (f"★ You won the race! {later} ", tone(self, Tone.RIGHT, "bold"))
        elif result is not None and result.solved and theirs <= mine:
            self.race_won = False
            head = (
                f"{who} won the race by {seconds(mine - theirs)}. ",
                tone(self, Tone.WARNING, "bold"),
            )
        else:
            self.race_won = True
            if result is None:
                margin = f"{who} is still thinking."
            elif result.solved:
                margin = f"by {seconds(theirs - mine)}."
            else:
                margin = f"{who} {self.solver_shortfall(result)}."
            head = (f"★ You won the race! {margin} ", tone(self, Tone.RIGHT, "bold"))
        return Text.assemble(head, "\n", yours, "\n", self.solver_answer_line())

    def solver_shortfall(self, result: ev.RunFinished) -> str:
        """What a solver that did not solve the puzzle got to, after its name: ``found no
        answer`` (a crossword says how much of the grid it filled)."""
        return "found no answer"

    def solver_answer_line(self) -> str:
        result = self.solver_result
        who = self.solver_label
        if result is None:
            return f"{who}'s answer: not yet (its run goes on beside you now)."
        if not result.solved or not result.answer:
            return f"{who}'s answer: none ({visible(result.verdict) or 'not solved'})."
        shown = visible(self.answer_text(result.answer))
        return f"{who}'s: {shown} in {seconds(self.solver_time(result))}."

    def end_race(self) -> None:
        """Show the solver's panes once the player is done."""
        if not self.race:
            return
        self.query_one(SolverPane).display = True
        self.query_one("#race-status").display = False

    # ---------------------------------------------------------------- the pane, the clock

    def _pane_hidden(self) -> bool:
        """Whether the solver's pane is hidden (a race in play): said, True."""
        if self.query_one(SolverPane).display:
            return False
        self.say(
            "In a race the solver's pane stays hidden until you finish or give up.",
            tone(self, Tone.WARNING),
        )
        return True

    def action_pane_focus(self) -> None:
        """Move the keys into the solver's pane (its tree, dialogue or transcript; tab goes
        on to its tabs), or back to the puzzle."""
        pane = self.query_one(SolverPane)
        focused = self.focused
        if focused is not None and pane in focused.ancestors_with_self:
            self.set_focus(self.puzzle_focus())
            return
        if self._pane_hidden():
            return
        pane.focus_view()

    def action_zoom(self) -> None:
        """Enlarge the solver's pane to the whole screen (its keys with it); again, or esc,
        gives the puzzle its room back."""
        pane = self.query_one(SolverPane)
        if self.maximized is not None:
            self.minimize()
            return
        if self._pane_hidden():
            return
        focused = self.focused
        if focused is None or pane not in focused.ancestors_with_self:
            pane.focus_view()
        self.maximize(pane, container=False)

    def action_shrink(self) -> None:
        """Give the puzzle its room back (esc while the pane is enlarged)."""
        if self.maximized is not None:
            self.minimize()

    def watch_maximized(self, before: Widget | None, now: Widget | None) -> None:
        # Shrunk again (ctrl+z or esc): the keys go back to the puzzle.
        if before is not None and now is None:
            self.set_focus(self.puzzle_focus())
        self.refresh_bindings()  # esc: "Shrink" while enlarged, "Home" again after

    def action_peek(self) -> None:
        """Show (or hide again) the solver's answer while the puzzle is in play."""
        pane = self.query_one(SolverPane)
        pane.show_answer(pane.answer_hidden or self.over)
        if pane.answer_hidden:
            self.say(f"The solver's answer is hidden again ({self.PEEK_KEY} shows it).")
        else:
            self.say(f"The solver's answer shows in its pane ({self.PEEK_KEY} hides it).")

    def action_pause(self) -> None:
        """Stop the clock with the puzzle hidden; any key comes back."""
        if self.over or self.replay is not None:
            self.say(f"Nothing to pause: this {self.noun} is not being played.")
            return
        self.app.push_screen(PauseScreen(self.noun, self.PAUSE_KEY))

    # ---------------------------------------------------------------- the solver

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.PLAY_ACTIONS and self.over:
            return False  # nothing left to play: not offered (n deals a new one)
        if action == "leave" and self.maximized is not None:
            return False  # esc shrinks the enlarged pane (the shrink binding shows it)
        if action == "shrink":
            return self.maximized is not None
        if action == "replay_speed":
            # While a trace plays, or beside an engine the app paces (offline, a published
            # run); a server keeps its own time.
            return self.replay is not None or self.ponder.engine_pace() is not None
        return True

    def action_replay_speed(self, factor: float) -> None:
        if self.replay is not None:
            self.replay.change_speed(factor)
            self._replay_notice()
            return
        pace = self.ponder.engine_pace()
        if pace is None:
            return
        if factor > 1:
            pace.faster()
        else:
            pace.slower()
        self._pace_notice()
        if not self.query_one(SolverPane).running:
            self.say(f"The solver will answer at {pace.describe()}.")

    def _pace_notice(self) -> None:
        pace = self.ponder.engine_pace()
        pane = self.query_one(SolverPane)
        pane.pace = f"pace {pace.short()} · [ slower ] faster" if pace else ""
        pane.refresh_status()

    def _replay_notice(self) -> None:
        if self.replay is None:
            return
        pane = self.query_one(SolverPane)
        pane.notice = self.replay.notice()
        pane.refresh_status()

    def _race_holds_the_solver(self) -> bool:
        if self.race and not self.over:
            self.say(
                "In a race the solver runs until you finish or give up.",
                tone(self, Tone.WARNING),
            )
            return True
        return False

    def action_toggle_solver(self) -> None:
        """Start the solver, or stop the run under way (a stopped run starts afresh)."""
        if self.replay is not None:
            self.replay.toggle()
            if self.replay.paused:  # paused where it is: what came so far shows now
                self.flush_events(everything=True)
            self._replay_notice()
            return
        if self._race_holds_the_solver():
            return
        pane = self.query_one(SolverPane)
        if pane.running:
            self.stop_solver()
        elif self.resumable():
            if not self.start_solver():
                return
            self.notify(
                "The solver resumes: the calls it had answered come back from memory at no "
                "cost, then it carries on. S starts afresh."
            )
        else:
            self.start_solver()

    def action_restart_solver(self) -> None:
        """A fresh run from the start, whether one is under way, stopped or finished."""
        if self.replay is not None:
            self.replay.restart()
            self.started, self.paused_total, self.replay_ended = time.monotonic(), 0.0, None
            self.start_replay()  # exclusive: the playing one is cancelled
            return
        if self._race_holds_the_solver():
            return
        if self.query_one(SolverPane).running:
            self.stop_solver()
        if self.start_solver(fresh=True):
            self.notify("The solver starts again from the beginning, asking the model afresh.")

    def resumable(self) -> bool:
        """Whether the next start resumes a run: one stopped before its end, of the method
        chosen now (a method chosen since starts afresh)."""
        pane = self.query_one(SolverPane)
        return (
            pane.notice == "stopped"
            and pane.finished is None
            and pane.method == self.ponder.method_name
        )

    def stop_solver(self) -> None:
        pane = self.query_one(SolverPane)
        self.workers.cancel_group(self, "solver")
        self.flush_events(everything=True)
        self._run_number += 1  # what the stopped run still sends is not shown
        pane.stopped()
        self.release_result()  # no outcome is coming
        if pane.error.startswith("retrying"):
            pane.error = ""  # nothing is retried once stopped
            pane.refresh_status()

    def solver_problem(self) -> str | None:
        """Why the engine chosen cannot run the solver on this puzzle (a published run: of
        another kind, method or hand), with what to do; None when it can."""
        return self.ponder.solver_problem(self.KIND, self.puzzle)

    def start_solver(self, fresh: bool = False) -> bool:
        """Start a run. It keeps the model of the last run (whose reply cache gives back at
        no cost every call that run had answered: a stopped run resumes where it stopped)
        unless ``fresh`` asks for a new model that asks the server everything again. Where
        the engine cannot run it (:meth:`solver_problem`) the message says why, and False."""
        app = self.ponder
        problem = self.solver_problem()
        if problem is not None:
            self.say(problem, tone(self, Tone.WARNING))
            return False
        method = app.make_method()
        pane = self.query_one(SolverPane)
        resuming = not fresh and self.resumable()
        pane.reset(method.name, app.model_label, resuming=resuming)
        self._new_run()
        self.solver_result = None
        if self._method_chosen:
            self.say("")  # "press space to start it" is done with
            self._method_chosen = False
        self.run_solver(method, fresh)
        return True

    @work(exclusive=True, group="solver", exit_on_error=False)
    async def run_solver(self, method: Any, fresh: bool = False) -> None:
        from solver.methods import run_method

        app = self.ponder
        # A replay answers each recorded call once: every run replays from the start.
        if fresh or self._model is None or app.settings.engine == "replay":
            if self._model is not None:
                old, self._model = self._model, None  # never reused, even half-closed
                await self._solver_loop.run(old.aclose())
            # Remembered: a resumed run gets every reply the stopped one had, at no cost.
            made = app.make_model(on_retry=self._retrying, paced=not self.race)
            self._model = RememberingModel(made)
        model: Model = self._model
        pane = self.query_one(SolverPane)
        pane.pace = ""
        if not self.race and app.pace is not None:
            self._pace_notice()
        if self.race:
            self.solver_paused = 0.0
            model = PacedModel(model, app.race_delay, app.race_calls, self._race_gate)
        number, inbox = self._run_number, self._inbox
        domain, seed, deadline = self.make_domain(), app.seed(), app.settings.deadline

        async def drive() -> None:  # on the solver's loop: nothing here touches a widget
            _driving.set(number)  # the run a retry's notice belongs to (tasks inherit it)
            async for event in run_method(
                method, domain, model, seed=seed, deadline=deadline, stream=True
            ):  # stream: a thought shows as it streams in
                inbox.append((number, event))
                while len(inbox) + len(self._pending) > BACKLOG and number == self._run_number:
                    await asyncio.sleep(BACKLOG_WAIT)

        # The model stays for a resumed run; it is closed with the screen.
        await self._solver_loop.run(drive())

    def receive(self, event: ev.Event) -> None:
        """An event of the run shown now (or of a replay), shown with the next batch."""
        self._inbox.append((self._run_number, event))

    def _new_run(self) -> None:
        """Events shown from now on are a new run's: what came of the last one is dropped."""
        self._pending.clear()
        self._inbox.clear()
        self._run_number += 1

    def _drain(self) -> list[ev.Event]:
        """:attr:`_pending`, with what came in since, less what a stopped run sent."""
        inbox, number = self._inbox, self._run_number
        while inbox:
            sent_by, event = inbox.popleft()
            if sent_by == number:
                self._pending.append(event)
                if isinstance(event, ev.RunFinished) and self.replay is None:
                    # The moment it came, not the moment the screen shows it: a race is
                    # decided on this (its time is the run's own).
                    self.solver_result = event
        return self._pending

    @property
    def waiting(self) -> tuple[ev.Event, ...]:
        """The events received and not shown yet, in order."""
        return tuple(self._drain())

    def _retrying(self, kind: str, attempt: int, wait: float) -> None:
        # Called on the solver's loop, by the model of the run it drives.
        what = "rate limited" if kind == "rate_limited" else kind.replace("_", " ")
        notice = ev.ErrorRaised("retrying", f"{what}; retry {attempt} in {wait:.1f}s")
        self._inbox.append((_driving.get(), notice))

    def flush_events(self, everything: bool = False) -> None:
        """Show buffered events in one batch. A key comes first: while one waits for its frame
        nothing is shown, and while the player types events are shown less often."""
        pending = self._drain()  # (a run's result is noted as it comes, shown or not)
        if not everything:
            # (perf_counter, as the app notes keys: a test may freeze the monotonic clock)
            app, now = self.ponder, time.perf_counter()
            if app.key_unseen and now - app.last_key_at < KEY_FRAME_WAIT:
                return
            if (
                now - app.last_key_at < TYPING_SECONDS
                and now - self._flushed_at < TYPING_FLUSH_SECONDS
                and self.solver_result is None  # a run that ended sends no more
            ):
                return
            self._flushed_at = now
        if not pending:
            return
        # At most MAX_BATCH events and FLUSH_BUDGET seconds a tick, so one burst cannot hold
        # up a key press; the rest wait for the next tick (the solver waits only when it is
        # BACKLOG events ahead).
        cut = len(self._pending) if everything else MAX_BATCH
        deadline = None if everything else time.perf_counter() + FLUSH_BUDGET
        with self.app.batch_update():
            shown = self.query_one(SolverPane).apply(self._pending[:cut], deadline)
            batch = self._pending[:shown]
            del self._pending[:shown]
            self.batch_shown(batch)
            self.refresh_race()
            if self._held is not None and any(isinstance(e, ev.RunFinished) for e in batch):
                self._solver_done_after_win()

    def batch_shown(self, batch: list[ev.Event]) -> None:
        """A batch of the solver's events has just been shown in the pane (a kind may show
        more of them: the crossword's ghost board)."""

    def action_solver_options(self) -> None:
        from solver.methods import find_spec
        from tui.screens.dialogs import MethodDialog

        if self.race and not self.over:
            self.say(
                f"The method is set for this race; change it on the next {self.noun}.",
                tone(self, Tone.WARNING),
            )
            return

        def chosen(result: dict[str, Any] | None) -> None:
            if result:
                spec = find_spec(result["method"])
                self.ponder.method_name = spec.name
                self.ponder.method_options = result["options"]
                pane = self.query_one(SolverPane)
                if pane.running:
                    # The key stops the run under way first: say so, not "start it".
                    self.say(
                        f"Solver method: {spec.label} ({spec.title}), from the next run. "
                        f"The {pane.label} run goes on: press space to stop it, then space to "
                        f"start {spec.label}."
                    )
                else:
                    self.say(
                        f"Solver method: {spec.label} ({spec.title}). Press space to start it."
                    )
                self._method_chosen = True

        roles = getattr(self.make_domain(), "roles", None)
        dialog = MethodDialog(self.ponder.method_name, self.ponder.method_options, roles)
        self.app.push_screen(dialog, chosen)

    # ---------------------------------------------------------------- replay

    @work(exclusive=True, group="solver", exit_on_error=False)
    async def start_replay(self) -> None:
        replay = self.replay
        if replay is None:
            return
        pane = self.query_one(SolverPane)
        pane.model_suffix = " (replay)"
        pane.reset(replay.method, replay.model)
        self._new_run()
        self._replay_notice()
        at = 0.0
        for event in replay.events:
            gap = max(0.0, event.t - at) / replay.speed
            at = event.t
            if gap > 0.001:
                await asyncio.sleep(min(gap, 2.0))
            while replay.paused:  # (after the wait: no event lands after a pause)
                await asyncio.sleep(0.05)
            self.receive(event)
        self.flush_events(everything=True)
        replay.finished = True
        self.replay_ended = time.monotonic()
        self._replay_notice()


def clock(seconds: float) -> str:
    """``m:ss``."""
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def seconds(value: float) -> str:
    """A race margin: tenths under a minute, else minutes and seconds."""
    return f"{value:.1f} s" if value < 60 else clock(value)
