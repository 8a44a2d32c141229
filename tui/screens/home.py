"""The home screen: puzzle kinds, difficulty, solver method, model, recent results."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Input,
    OptionList,
    Select,
    Static,
    Switch,
)
from textual.widgets.option_list import Option

from tui.screens.base import PonderScreen

if TYPE_CHECKING:
    pass

__all__ = ["HomeScreen"]

LEVEL_CHOICES = [
    ("any difficulty", "any"),
    ("easy", "easy"),
    ("medium", "medium"),
    ("hard", "hard"),
    ("expert", "expert"),
]
METHOD_CHOICES = [
    ("BoT (boosting)", "bot"),
    ("ToT (tree search)", "tot"),
    ("CoT-SC (votes)", "cot-sc"),
    ("CoT (one chain)", "cot"),
    ("IO (direct)", "io"),
]


class HomeScreen(PonderScreen):
    """Where a session starts."""

    BINDINGS = [
        Binding("enter", "play", "Play", id="home.play", priority=False),
        Binding("p", "play", "Play", id="home.play_p"),
        Binding("s", "settings", "Settings", id="home.settings"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="home"):
            with VerticalScroll(id="home-left"):
                title = Text("ponder", style="bold")
                title.append("  puzzles, with a reasoning method beside you", style="dim")
                yield Static(title, id="home-title")
                yield Static(id="model-line")
                yield OptionList(
                    Option("▶ Game of 24", id="game24"),
                    Option("  Mini crosswords (coming soon)", id="crossword", disabled=True),
                    Option("  Word problems (coming soon)", id="wordproblem", disabled=True),
                    id="kinds",
                )
                with Horizontal(classes="field"):
                    yield Static("Difficulty", classes="field-label")
                    yield Select(LEVEL_CHOICES, value="any", allow_blank=False, id="level")
                with Horizontal(classes="field"):
                    yield Static("Solver", classes="field-label")
                    yield Select(METHOD_CHOICES, value="bot", allow_blank=False, id="method")
                with Horizontal(classes="field"):
                    yield Static("Seed", classes="field-label")
                    yield Input(placeholder="random", id="seed", type="integer")
                with Horizontal(classes="field"):
                    yield Static("Race mode", classes="field-label")
                    yield Switch(value=False, id="race")
            with Vertical(id="home-right"):
                yield Static(id="stats")
                table: DataTable[str] = DataTable(id="recent", cursor_type="row")
                yield table
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "home"
        table = self.query_one("#recent", DataTable)
        table.add_columns("puzzle", "result", "time", "hints", "solver")
        self.query_one("#method", Select).value = self.ponder.method_name
        self.query_one("#race", Switch).value = self.ponder.race
        self.query_one("#kinds", OptionList).highlighted = 0
        self.refresh_home()

    def on_screen_resume(self) -> None:
        self.refresh_home()

    def refresh_home(self) -> None:
        app = self.ponder
        self.query_one("#model-line", Static).update(
            Text.assemble(("Model: ", "bold"), app.model_label, ("   (s: settings)", "dim"))
        )
        stats = app.stats()
        if stats is None or not stats.played:
            text = Text("No games yet. Pick Game of 24 and press enter.", style="dim")
        else:
            best = _clock(stats.best_seconds) if stats.best_seconds is not None else "-"
            text = Text.assemble(
                ("Your games  ", "bold"),
                f"played {stats.played} · solved {stats.solved} "
                f"({stats.solve_rate:.0%}) · streak {stats.current_streak} "
                f"(best {stats.best_streak}) · fastest {best}",
            )
        if app.store_message:
            text.append(f"\n{app.store_message}", style="yellow")
        self.query_one("#stats", Static).update(text)
        table = self.query_one("#recent", DataTable)
        table.clear()
        for r in app.recent(8):
            result = "solved" if r.solved else ("gave up" if r.gave_up else "unsolved")
            solver = ""
            if r.solver_method:
                mark = "✓" if r.solver_solved else ("✗" if r.solver_solved is False else "…")
                solver = f"{r.solver_method} {mark}"
            table.add_row(r.puzzle, result, _clock(r.seconds), str(r.hints), solver)

    @on(Select.Changed, "#method")
    def method_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.ponder.method_name = event.value

    @on(Switch.Changed, "#race")
    def race_changed(self, event: Switch.Changed) -> None:
        self.ponder.race = event.value

    @on(OptionList.OptionSelected, "#kinds")
    def kind_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == "game24":
            self.action_play()

    def action_play(self) -> None:
        level = self.query_one("#level", Select).value
        raw_seed = self.query_one("#seed", Input).value.strip()
        seed = int(raw_seed) if raw_seed.lstrip("-").isdigit() else None
        self.ponder.new_game24(None if level in ("any", Select.BLANK) else str(level), seed=seed)

    def action_settings(self) -> None:
        self.ponder.action_settings()


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
