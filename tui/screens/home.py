"""The home screen: puzzle kinds, difficulty, solver method, model, recent results."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    DataTable,
    Header,
    Input,
    OptionList,
    Select,
    Static,
    Switch,
)
from textual.widgets.option_list import Option

from solver.methods.listing import every_listed
from tui.kinds import KINDS, PuzzleKind
from tui.screens.base import PonderScreen
from tui.widgets.footer import KeyHints
from tui.widgets.home_lists import HintInput, KindList, SeedInput
from tui.widgets.tones import Tone, tone

if TYPE_CHECKING:
    from tui.store import Result, Stats

__all__ = ["HomeScreen", "SeedInput"]

ANY_LEVEL = "any"
ANY_TOPIC = "any"
HANDICAP_CHOICES = [
    ("none", "none"),
    ("a call a second", "delay:1"),
    ("a call every 3 s", "delay:3"),
    ("a call every 10 s", "delay:10"),
    ("at most 10 calls", "calls:10"),
    ("at most 30 calls", "calls:30"),
]
"""The race handicap, so a person has a chance: the solver's model calls start one at a time,
seconds apart (for the whole run: 15 calls at "a call every 10 s" take 150 s), or it has a
budget of calls (spent, it gives up)."""


def handicap_of(delay: float, calls: int) -> str:
    """The handicap choice for the app's race settings."""
    if calls:
        return f"calls:{calls}"
    return f"delay:{delay:g}" if delay else "none"


_WIDE_HISTORY = 48
"""Columns the recent-games table needs to show every column."""
_WIDE_KINDS = 40
"""Columns the kinds list needs to show each kind's best streak beside its current one."""


class HomeScreen(PonderScreen):
    """Where a session starts."""

    AUTO_FOCUS = ""
    """Nothing focused by Textual: :meth:`on_mount` focuses the kinds list without scrolling
    the title away, and no container is focused and restyled on the way (a frame's worth of
    work at start)."""

    BINDINGS = [
        Binding("enter", "play", "Play", id="home.play", priority=False),
        Binding("p", "play", "Play", id="home.play_p"),
        Binding("o", "open_file", "Open file", id="home.open_file"),
        Binding("s", "settings", "Settings", id="home.settings"),
    ]

    _kind_list: KindList | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="home"):
            with VerticalScroll(id="home-left"):
                title = Text("ponder", style="bold")
                title.append("  puzzles, with a reasoning method beside you", style="dim")
                yield Static(title, id="home-title")
                yield Static(id="model-line")
                self._kind_list = KindList(*_kind_options(), id="kinds")
                yield self._kind_list
                with Horizontal(classes="field"):
                    yield Static("Difficulty", classes="field-label")
                    yield Select(
                        _level_choices(self.kind), value=ANY_LEVEL, allow_blank=False, id="level"
                    )
                with Horizontal(classes="field", id="topic-field"):
                    yield Static("Topic", classes="field-label")
                    yield Select(
                        _topic_choices(self.kind), value=ANY_TOPIC, allow_blank=False, id="topic"
                    )
                with Horizontal(classes="field"):
                    yield Static("Solver", classes="field-label")
                    yield Select(
                        _method_choices(self.kind),
                        value=self.ponder.method_for(self.kind.name),
                        allow_blank=False,
                        id="method",
                    )
                with Horizontal(classes="field"):
                    yield Static("Seed", classes="field-label")
                    yield SeedInput(placeholder="random", id="seed", type="integer")
                with Horizontal(classes="field", id="own-field"):
                    yield Static("Your own", classes="field-label")
                    yield HintInput(placeholder="", id="own")
                with Horizontal(classes="field", id="file-field"):
                    yield Static("Your file", classes="field-label")
                    yield Button("Open a file… (o)", id="open-file")
                with Horizontal(classes="field"):
                    yield Static("Race mode", classes="field-label")
                    yield Switch(value=False, id="race")
                with Horizontal(classes="field"):
                    yield Static("Race handicap", classes="field-label")
                    yield Select(HANDICAP_CHOICES, value="none", allow_blank=False, id="handicap")
            with Vertical(id="home-right"):
                yield Static(id="stats")
                table: DataTable[str] = DataTable(id="recent", cursor_type="row")
                yield table
        yield KeyHints()

    @property
    def kind(self) -> PuzzleKind:
        """The kind play opens: the highlighted one if it can be played, else the first that
        can."""
        # Held from compose, not queried: asked for a score of times as home starts.
        kinds = self._kind_list
        if kinds is not None and kinds.is_attached:
            at = kinds.highlighted
            listed = list(KINDS.values())
            if at is not None and at < len(listed) and listed[at].playable:
                return listed[at]
        return next(k for k in KINDS.values() if k.playable)

    def on_mount(self) -> None:
        self.sub_title = "home"
        self.query_one("#race", Switch).value = self.ponder.race
        chosen = handicap_of(self.ponder.race_delay, self.ponder.race_calls)
        if chosen in {value for _, value in HANDICAP_CHOICES}:
            self.query_one("#handicap", Select).value = chosen
        kinds = self.query_one("#kinds", OptionList)
        kinds.highlighted = list(KINDS.values()).index(self.kind)
        # Arrows pick a kind from the start (without scrolling the title away).
        self.set_focus(kinds, scroll_visible=False)
        self._show_own()
        self.refresh_home()
        self.call_after_refresh(self.ponder.warm_up)

    _resumed = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            # Shown for the first time: styled as it mounted a moment ago, with the classes
            # of the window's size (PonderApp._sized). Textual would style every widget
            # again, about a seventh of the first frame.
            self._resumed = True
            event.refresh_styles = False
        # The method may have been changed in a game (m): show the one the next game runs.
        self.show_methods()
        if isinstance(self.focused, Input):
            # Back from a game begun in a box (your own, the seed): home's keys work again.
            self.set_focus(self.query_one("#kinds"), scroll_visible=False)
        self.refresh_home()

    def refresh_home(self) -> None:
        app = self.ponder
        # The key's note goes onto a row of its own, whole, when a long model name needs it
        # (80 columns leave home's left side 36).
        line = Text.assemble(("Model: ", "bold"), app.model_label, (" (s:\u00a0settings)", "dim"))
        if app.published_run() is not None:
            # The engine answers the 100 hands GPT-4 played: the kind that deals them says so.
            for kind in KINDS.values():
                if kind.playable and hasattr(kind.screen_class(), "deal_published"):
                    line.append(
                        f"\n{kind.label} deals GPT-4's 100 hands.",
                        style=tone(self, Tone.WARNING),
                    )
        self.query_one("#model-line", Static).update(line)
        self._show_streaks()
        stats = app.stats()
        if stats is None or not stats.played:
            text = Text(f"No games yet. Pick {self.kind.label} and press enter.", style="dim")
        else:
            best = _clock(stats.best_seconds) if stats.best_seconds is not None else "-"
            text = Text.assemble(
                ("Your games  ", "bold"),
                f"played {stats.played} · solved {stats.solved} "
                f"({stats.solve_rate:.0%}) · streak {stats.current_streak} "
                f"(best {stats.best_streak}) · fastest {best}",
            )
            if stats.abandoned:
                text.append(f" · left unfinished {stats.abandoned}", style="dim")
            if stats.races:
                text.append(f"\nRaces won against the solver: {stats.races_won} of {stats.races}")
        if app.store_message:
            text.append(f"\n{app.store_message}", style=tone(self, Tone.WARNING))
        self.query_one("#stats", Static).update(text)
        self._fill_history(app.recent(8))
        self._show_times(app.recent(30) if self.size.height >= 30 else [])

    def _show_times(self, games: list[Result]) -> None:
        """The plot of solve times, made (and plotext imported) once there are two games to
        compare, so that a first start does not pay for it."""
        plots = self.query("#times")
        if not plots and len(games) < 2:
            return
        from tui.widgets.times_plot import TimesPlot

        if plots:
            plots.only_one(TimesPlot).show(games)
        else:
            plot = TimesPlot(id="times")
            plot.show(games)
            self.query_one("#home-right").mount(plot)

    def _fill_history(self, results: list[Result]) -> None:
        """The recent games, every column shown: narrow windows (80 columns) drop the hints
        column, and a puzzle too long for what is left is cut with an ellipsis; where even
        that leaves too little, the results are said in fewer letters."""
        table = self.query_one("#recent", DataTable)
        width = table.size.width
        wide = width == 0 or width >= _WIDE_HISTORY
        names = ("puzzle", "result", "time", *(("hints",) if wide else ()), "solver")
        for short in (False, True):
            rows = []
            for r in results:
                solver = ""
                if r.solver_method:
                    mark = "✓" if r.solver_solved else ("✗" if r.solver_solved is False else "…")
                    solver = f"{r.solver_method} {mark}"
                hints = (str(r.hints),) if wide else ()
                rows.append((r.puzzle, _outcome(r, short), _clock(r.seconds), *hints, solver))
            # Each column takes its widest cell and two columns of padding; the puzzle, the
            # rest, at least 6 ("4 7 …"), else the results are said in fewer letters.
            others = (
                sum(
                    max(len(name), *(cell_len(row[i]) for row in rows)) + 2
                    for i, name in enumerate(names[1:], 1)
                )
                if rows
                else 0
            )
            if not width or width - others - 2 >= 6:
                break
        room = max(6, width - others - 2) if width else 40
        table.clear(columns=True)
        table.add_columns(*names)
        for puzzle, *rest in rows:
            shown = puzzle if cell_len(puzzle) <= room else puzzle[: room - 1].rstrip() + "…"
            table.add_row(shown, *rest)

    def kind_stats(self, kind: str) -> Stats | None:
        """The player's figures on one kind, or None (no store, or it cannot be read: the
        stats line says why)."""
        store = self.ponder.store
        if store is None:
            return None
        from tui.store import StoreError

        try:
            stats: Stats = store.stats(kind)
        except StoreError as exc:
            self.ponder.store_message = str(exc)
            return None
        return stats

    def _show_streaks(self) -> None:
        """Each kind's current streak (and best) beside it in the list."""
        kinds = self.query_one("#kinds", OptionList)
        wide = kinds.size.width == 0 or kinds.size.width >= _WIDE_KINDS
        for at, kind in enumerate(KINDS.values()):
            if kind.playable:
                kinds.replace_option_prompt_at_index(
                    at, _kind_prompt(kind, self.kind_stats(kind.name), wide, self.app)
                )

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_home)

    @on(Select.Changed, "#method")
    def method_changed(self, event: Select.Changed) -> None:
        # The list showing a kind's method is no choice: only a change of it is one.
        if isinstance(event.value, str) and event.value != self.ponder.method_for(self.kind.name):
            self.ponder.kind_name = self.kind.name
            self.ponder.method_name = event.value

    @on(Select.Changed, "#handicap")
    def handicap_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            kind, _, amount = event.value.partition(":")
            self.ponder.race_delay = float(amount) if kind == "delay" else 0.0
            self.ponder.race_calls = int(amount) if kind == "calls" else 0

    @on(Input.Submitted, "#seed")
    def seed_submitted(self) -> None:
        self.action_play()

    @on(Input.Submitted, "#own")
    def own_submitted(self, event: Input.Submitted) -> None:
        """Play the puzzle typed in (the kind's screen reads it; a mistake is said here)."""
        screen_class = self.kind.screen_class()
        try:
            screen = screen_class.own(event.value)
        except ValueError as exc:
            self.notify(f"Not a puzzle to play: {exc}", severity="warning")
            return
        self.ponder.push_screen(screen)

    def _show_own(self) -> None:
        """The fields a kind has, as its spec says (its screen is not imported): 'your own'
        for kinds that take a typed puzzle, a topic for kinds with topics, a file for kinds
        whose puzzles come in files."""
        spec = self.kind.spec
        playable = self.kind.playable
        self.query_one("#own-field").display = playable and bool(spec.own)
        if playable and spec.own:
            self.query_one("#own", HintInput).show_hint(spec.own)
        self.query_one("#file-field").display = playable and bool(spec.files)
        topics = _topic_choices(self.kind)
        self.query_one("#topic-field").display = len(topics) > 1
        topic = self.query_one("#topic", Select)
        kept = topic.value if topic.value in {v for _, v in topics} else ANY_TOPIC
        topic.set_options(topics)
        topic.value = kept

    @property
    def topic(self) -> str | None:
        """The topic chosen for the kind (None: any, or a kind without topics)."""
        if not self.query_one("#topic-field").display:
            return None
        value = self.query_one("#topic", Select).value
        return value if isinstance(value, str) and value != ANY_TOPIC else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_file":
            # Offered for the kinds whose puzzles come in files (by the kind's spec):
            # the footer and the help do not name a key that could only say there are none.
            kind = self.kind
            return kind.playable and bool(kind.spec.files)
        return True

    @on(Button.Pressed, "#open-file")
    def action_open_file(self) -> None:
        """Open a file of puzzles of the highlighted kind (a file of many: choose one)."""
        from tui.screens.open_file import OpenFileDialog
        from tui.served import served_files

        allowed, root = served_files(self.app.is_web)
        if not allowed:
            self.notify(
                "In the browser no file of this machine can be opened: start ponder serve "
                "with --files DIR to allow the files of one folder.",
                severity="warning",
            )
            return
        kind = self.kind
        screen_class = kind.screen_class()
        if not hasattr(screen_class, "load_file"):
            readers = [k.label for k in KINDS.values() if hasattr(k.screen_class(), "load_file")]
            self.notify(
                f"No files for {kind.label}: highlight {' or '.join(readers)} first.",
                severity="warning",
            )
            return

        def opened(result: tuple[Path, list[Any]] | None) -> None:
            if result is not None:
                self.play_from_file(kind, *result)

        self.ponder.push_screen(OpenFileDialog(screen_class, kind.label, root=root), opened)

    def play_from_file(self, kind: PuzzleKind, path: Path, found: list[Any]) -> None:
        """Play the one puzzle of a file, or let the player choose one of many."""
        from tui.screens.open_file import ChooseDialog

        screen_class = kind.screen_class()
        if len(found) == 1:
            self.ponder.push_screen(screen_class.from_file(found, 0))
            return

        def chosen(index: int | None) -> None:
            if index is not None:
                self.ponder.push_screen(screen_class.from_file(found, index))

        noun = getattr(screen_class, "NOUN", "puzzle")
        self.ponder.push_screen(ChooseDialog(screen_class, path, found, noun), chosen)

    @on(Switch.Changed, "#race")
    def race_changed(self, event: Switch.Changed) -> None:
        self.ponder.race = event.value

    @on(OptionList.OptionHighlighted, "#kinds")
    def kind_highlighted(self) -> None:
        # Each kind has its own difficulties.
        level = self.query_one("#level", Select)
        choices = _level_choices(self.kind)
        kept = level.value if level.value in {v for _, v in choices} else ANY_LEVEL
        level.set_options(choices)
        level.value = kept
        self.show_methods()
        self._show_own()
        self.refresh_bindings()  # o opens files of the kinds that have them

    def show_methods(self) -> None:
        """The Solver list: the methods the highlighted kind can run, showing the one chosen
        for it (each kind keeps its own)."""
        kind = self.kind
        self.ponder.kind_name = kind.name
        method = self.query_one("#method", Select)
        choices = _method_choices(kind)
        chosen = self.ponder.method_for(kind.name)
        with self.prevent(Select.Changed):
            method.set_options(choices)
            if chosen in {value for _, value in choices}:
                method.value = chosen

    @on(OptionList.OptionSelected, "#kinds")
    def kind_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id in KINDS and KINDS[event.option.id].playable:
            self.action_play()

    def action_play(self) -> None:
        level = self.query_one("#level", Select).value
        raw_seed = self.query_one("#seed", Input).value.strip()
        seed = int(raw_seed) if raw_seed.lstrip("-").isdigit() else None
        chosen = None if level in (ANY_LEVEL, Select.BLANK) else str(level)
        topic = self.topic
        if topic is None:
            self.ponder.open_puzzle(self.kind.name, chosen, seed=seed)
            return
        try:
            screen = self.kind.screen_class().deal(
                chosen, random.randrange(1 << 30) if seed is None else seed, topic
            )
        except ValueError as exc:
            self.notify(f"No such problem: {exc}", severity="warning")
            return
        self.ponder.push_screen(screen)

    def action_settings(self) -> None:
        self.ponder.action_settings()


def _kind_options() -> list[Option]:
    """The kinds from the registry: those the app can play first marked ▶, the rest
    greyed out as coming soon."""
    return [
        Option(f"▶ {k.label}", id=k.name)
        if k.playable
        else Option(f"  {k.label} (coming soon)", id=k.name, disabled=True)
        for k in KINDS.values()
    ]


def _kind_prompt(
    kind: PuzzleKind, stats: Stats | None, wide: bool = True, app: App[Any] | None = None
) -> Text:
    """A playable kind in the list, with its current streak (and, when there is room, its
    best) once played."""
    prompt = Text(f"▶ {kind.label}")
    if stats is not None and stats.played:
        best = f" (best {stats.best_streak})" if wide else ""
        prompt.append(
            f"  streak {stats.current_streak}{best}",
            style=tone(app, Tone.RIGHT, "bold") if stats.current_streak else "dim",
        )
    return prompt


def _topic_choices(kind: PuzzleKind) -> list[tuple[str, str]]:
    """The topics a kind's puzzles come in (word problems: shopping, ..., algebra)."""
    listed = kind.spec.topics() if kind.playable and kind.spec.topics else ()
    return [("any topic", ANY_TOPIC), *((topic, topic) for topic in listed)]


def _level_choices(kind: PuzzleKind) -> list[tuple[str, str]]:
    levels = kind.spec.levels if kind.playable else ()
    return [("any difficulty", ANY_LEVEL), *((level, level) for level in levels)]


def _method_choices(kind: PuzzleKind) -> list[tuple[str, Any]]:
    """The methods ``kind`` can run, in the catalogue's order, by their short labels (the box
    is narrow at 80 columns; the method dialog, m in a game, describes each)."""
    offered = kind.listed() or list(every_listed())  # no method imported at start
    return [(entry.label, entry.name) for entry in offered]


def _outcome(r: Result, short: bool = False) -> str:
    """A result in a word or two for the history table (``short``: in fewer letters, for a
    narrow window)."""
    if r.solved:
        text = ("shown" if short else "solution shown") if r.solution_shown else "solved"
    else:
        text = "gave up" if r.gave_up else ("left" if r.abandoned else "unsolved")
    if r.race_won is not None:
        race = "won" if r.race_won else "lost"
        text += f" · {race}" if short else f" · {race} race"
    return text


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
