"""The ponder app: one factory serves the command line, the tests and snapshot apps."""

from __future__ import annotations

import gc
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from puzzles.text import visible
from solver import factory as model_factory
from solver.factory import describe_engine
from solver.methods.listing import LISTED, every_listed
from solver.model import Model
from solver.model.base import freeze_once
from solver.model.paced import OneAtATime, Pace
from solver.settings import Settings
from tui.kinds import KINDS, PuzzleKind, UnknownKind, find_kind
from tui.screens.home import HomeScreen
from tui.served import BROWSER_KEYS, WIDGET_STAND_INS

if TYPE_CHECKING:
    from solver.published import Bundled
    from tui.store import SaveReport

__all__ = [
    "OFFLINE_THINK_SECONDS",
    "PUBLISHED_SECONDS_PER_CALL",
    "OneAtATime",
    "PonderApp",
    "Replay",
    "make_app",
    "run_app",
]

OFFLINE_THINK_SECONDS = 0.02
"""Pause of the offline engine per call in the app (benchmarks and the CLI run it flat out)."""
WATCH_PACE = 8.0
"""Calls a second the offline engine is answered at in ``ponder`` (one at a time, so the tree
grows a thought at a time: ToT's search of a hand takes about 10 s); ``solver_pace`` in the
settings changes it, ``[`` and ``]`` in a game. The command line and benchmarks run at full
speed, as does an app made by :func:`make_app` with no pace set (the tests')."""
PUBLISHED_SECONDS_PER_CALL = 0.25
"""Pause after each call of a published run replayed in the app (its log has no timing: it
would be over at once). About 20 s for ToT's search of a hand (86 calls, the median); the
settings' replay speed divides it (2: twice as fast)."""


class Replay:
    """A saved trace being played back: events, speed, pause and whether it has ended.

    Events are paced by the wall time of the original run. A run shorter than
    :attr:`SHORTEST_SECONDS` starts slowed down so it can be watched (an offline run is over
    in half a second); ``[`` and ``]`` change the speed, ``R`` plays it again."""

    SHORTEST_SECONDS = 8.0
    SLOWEST = 1 / 32
    FASTEST = 64.0

    def __init__(self, header: dict[str, Any], events: list[Any]) -> None:
        self.header = header
        self.events = events
        self.method = str(header.get("method", ""))
        self.model = str(header.get("model", "?"))
        self.speed = self.default_speed()
        self.paused = False
        self.finished = False

    @property
    def kind(self) -> str:
        """The puzzle kind the trace was run on: its header's, else its run's
        (``RunStarted.kind``). Traces from before kinds were recorded are Game of 24 runs."""
        kind = self.header.get("kind")
        if not isinstance(kind, str) or not kind:
            from solver import events as ev  # a replay has its events: imported by now

            started = (e for e in self.events if isinstance(e, ev.RunStarted))
            kind = next((e.kind for e in started if e.kind), "game24")
        return kind

    def default_speed(self) -> float:
        """1x, or a power of two below it that makes a short run last about
        :attr:`SHORTEST_SECONDS`."""
        duration = max((float(getattr(e, "t", 0.0)) for e in self.events), default=0.0)
        speed = 1.0
        while duration > 0 and duration / speed < self.SHORTEST_SECONDS and speed > self.SLOWEST:
            speed /= 2
        return speed

    def toggle(self) -> None:
        if not self.finished:
            self.paused = not self.paused

    def change_speed(self, factor: float) -> None:
        self.speed = min(self.FASTEST, max(self.SLOWEST, self.speed * factor))

    def restart(self) -> None:
        """Play it again from the first event."""
        self.paused = self.finished = False

    def notice(self) -> str:
        """The replay's line in the solver pane."""
        if self.finished:
            return "replay over · R plays it again · esc for home"
        state = "paused" if self.paused else f"playing at {self.speed:g}x"
        return f"replay {state} · space pauses · [ slower · ] faster · R restarts"


FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation between full ones while the app runs (Python's
default is 10)."""


@cache
def _binds(cls: type[DOMNode], action: str) -> bool:
    """Whether ``cls`` (or a class it is made from) binds a key to ``action``."""
    return any(
        binding.action == action
        for base in cls.__mro__
        for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", []))
    )


class PonderApp(App[None]):
    """A terminal puzzle arcade where reasoning methods solve the same puzzle beside you."""

    CSS_PATH = "app.tcss"
    TITLE = "ponder"
    ALLOW_IN_MAXIMIZED_VIEW = "KeyHints"
    """The footer stays in sight under a maximized pane."""
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = [
        Binding("question_mark,f1", "help", "Keys", id="app.help"),
        Binding("l", "legend", "Legend", show=False, id="app.legend"),
        Binding("R", "replay_restart", "Restart replay", id="app.replay_restart"),
        Binding("ctrl+s", "settings", "Settings", show=False, id="app.settings"),
        # A priority key, as Textual's own: it reaches past help and dialogs too. f10 is
        # ctrl+q in a browser, which keeps ctrl+q (BROWSER_KEYS).
        Binding("ctrl+q,f10", "quit", "Quit", id="app.quit", priority=True),
        # Textual's widgets do these on keys a browser keeps (ctrl+pageup...): in a browser,
        # these keys do them (only where the widget with focus can).
        *(
            Binding(key, f"focused({action!r})", description, show=False, id=f"app.{action}")
            for action, (key, description) in WIDGET_STAND_INS.items()
        ),
    ]

    def __init__(
        self,
        settings: Settings,
        *,
        model_factory: Callable[..., Model] | None = None,
        store: Any = None,
        store_message: str | None = None,
        replay: Replay | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.api_key = settings.api_key
        self.key_url = settings.base_url
        """The API key, and the base URL it was set for: it goes to that server only."""
        self._model_factory = model_factory
        self.store = store
        self.store_message = store_message
        self.replay = replay
        self._warmed = False
        self.pace: Pace | None = None
        """How fast the engine of the latest run answers (None: at its own speed)."""
        self._offline_pace: Pace | None = None
        self._published_pace: Pace | None = None
        self.kind_name = next(iter(KINDS))
        """The kind in front of the player: home's highlighted one, or the puzzle's."""
        self.methods_chosen: dict[str, str] = {}
        """Each kind's method, once chosen (see :meth:`method_for`)."""
        self._last_method: str | None = None
        self.method_options: dict[str, Any] = {}
        self.published_pace = PUBLISHED_SECONDS_PER_CALL
        """Seconds between the answers of a published run (see :class:`OneAtATime`)."""
        self._method_for_published(None)
        self.race = False
        self.race_delay = 0.0
        """The race handicap: seconds between the starts of the solver's model calls (one at
        a time, for the whole run)."""
        self.race_calls = 0
        """The other race handicap: the most model calls the solver may make (0: no limit)."""
        self._seed = seed
        self._rng = random.Random(seed)
        self.quitting = False
        """ctrl+q was answered: the app is about to close."""
        self._unsaved: str | None = None  # the store_message that says results are waiting
        self._save_retry: Timer | None = None
        self.last_key_at = float("-inf")
        """When the last key came (``time.perf_counter``): a screen showing a streaming solver
        draws it less often while the player types."""
        self.key_unseen = False
        """A key has come whose frame is not drawn yet: nothing else is drawn before it."""

    # ---------------------------------------------------------------- screens

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key_at = time.perf_counter()
            if not self.key_unseen:
                self.key_unseen = True
                self.call_after_refresh(self._key_seen)
        await super().on_event(event)

    def _key_seen(self) -> None:
        self.key_unseen = False

    def on_mount(self) -> None:
        # Objects made at start-up live for the whole session: keep them out of the garbage
        # collector's full passes, which otherwise stall frames during big runs. Those passes
        # come a tenth as often too (each stalled a frame for 30-100 ms beside a streaming
        # solver, about once a second): the young generations still free cycles at once.
        freeze_once("start")
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        # Whatever a kind prepares before its first puzzle (the Game of 24 rates all 1,820
        # hands; word problems import sympy) is done while the person reads the home
        # screen, not when they press play, and not before home's first frame.
        if self.store is not None and self.store.pending:  # kept aside by an earlier session
            self.save_results()
        if getattr(self.store, "read_only", False) and self.store_message:
            # A record in a read-only folder is shown as it is; said once, as the app opens,
            # that nothing new can be saved to it.
            self.notify(self.store_message, severity="warning", timeout=10)
        self.push_screen(self._sized(HomeScreen()))
        if self.replay is not None:
            self.open_replay(self.replay)

    def _sized(self, screen: Screen[Any]) -> Screen[Any]:
        """``screen`` with the classes of the window's size (``-wide``, ``-tall``, ...) before it
        is mounted, as its first resize would give them: styled once, not again on that
        resize (a start-up's whole screen restyled, about a tenth of its first frame)."""
        width, height = self.size
        names = screen._get_breakpoint_classes(width, self.HORIZONTAL_BREAKPOINTS)
        names |= screen._get_breakpoint_classes(height, self.VERTICAL_BREAKPOINTS)
        screen.add_class(*names, update=False)
        return screen

    def warm_up(self) -> None:
        """Import each kind's screen and run its warm-up in worker threads, so that a game
        opens at once; called by home once its first frame is up, so that the threads do not
        slow that frame down."""
        if self._warmed:
            return
        self._warmed = True
        jobs: list[Callable[[], None]] = [
            partial(_warm_up, kind) for kind in KINDS.values() if kind.playable
        ]
        jobs.append(self.load_catalogue)
        left = [len(jobs)]
        lock = threading.Lock()

        def warm(job: Callable[[], None]) -> None:
            try:
                job()
            finally:
                with lock:
                    left[0] -= 1
                    if not left[0]:
                        # What the screens imported (sympy: hundreds of thousands of
                        # objects) lives as long as the app: out of the full passes too.
                        freeze_once("warm-up")

        for job in jobs:
            self.run_worker(partial(warm, job), thread=True, group="warm-up", exit_on_error=False)

    def load_catalogue(self) -> None:
        """Load the method catalogue (every method module; on a worker thread). Home's first
        frame listed the methods from the light table; a method the table does not name (one
        added in a module of its own) is offered from now on."""
        import solver.methods

        solver.methods.METHODS  # noqa: B018 - loaded when first asked for
        if every_listed() != LISTED:
            self.call_from_thread(self._catalogue_loaded)

    def _catalogue_loaded(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                screen.show_methods()

    def _theme_changed(self, theme: Any) -> None:
        """Keep the theme chosen (ctrl+p, Theme) for the next start, in the config file."""
        if theme.name == self.settings.theme:
            return
        from solver.settings import SettingsError, save_settings

        self.settings = self.settings.replace(theme=theme.name)
        try:
            save_settings({"theme": theme.name})
        except SettingsError as exc:
            self.notify(f"The theme is not kept for next time: {exc}", severity="warning")

    def open_puzzle(
        self,
        kind: str,
        level: str | None = None,
        *,
        seed: int | None = None,
        replace: bool = False,
    ) -> None:
        """Open a new puzzle of ``kind`` and ``level`` (any when None), by ``seed`` if given;
        ``replace`` swaps it for the puzzle on screen (``n``) rather than going on top."""
        entry = KINDS.get(kind) or find_kind(kind)
        screen_class: Any = entry.screen_class()
        chosen_seed = self._rng.randrange(1 << 30) if seed is None else seed
        if self.published_run() is not None and hasattr(screen_class, "deal_published"):
            # GPT-4's published run holds 100 hands: new ones are dealt from those.
            screen = screen_class.deal_published(level, chosen_seed)
        else:
            screen = screen_class.deal(level, chosen_seed)
        if replace:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def open_replay(self, replay: Replay) -> None:
        """Play ``replay`` on its kind's screen; a trace of a kind the app cannot show is
        refused with a notice, over the home screen."""
        try:
            screen = find_kind(replay.kind).screen_class().from_replay(replay)
        except (UnknownKind, ValueError) as exc:
            self.notify(f"This trace cannot be replayed here: {exc}", severity="error")
            return
        self.push_screen(screen)

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        if not isinstance(self.screen, SettingsScreen):
            self.push_screen(SettingsScreen(self.settings))

    def action_help(self) -> None:
        from tui.screens.dialogs import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        keys: dict[str, list[str]] = {}
        descriptions: dict[str, str] = {}
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not active.enabled:
                continue
            # One row per action ("u / ⌫  Undo"), not one per key; every key, the
            # terminal's and the browser's ("^n / f2").
            shown = keys.setdefault(binding.action, [])
            display = binding.key_display or App.get_key_display(self, binding)
            if display not in shown:
                shown.append(display)
            # A screen may say what a key does now (a puzzle's, once it is over).
            describe = getattr(self.screen, "key_description", None)
            said = describe(binding) if callable(describe) else binding.description
            descriptions.setdefault(binding.action, said or binding.action)
        rows = [(" / ".join(k), descriptions[a]) for a, k in keys.items()]
        # ponder's own keys first; the generic ones (scrolling, widget keys) after them.
        ours = {a for a in keys if a in self._ponder_actions()}
        rows = [r for a, r in zip(keys, rows, strict=True) if a in ours] + [
            r for a, r in zip(keys, rows, strict=True) if a not in ours
        ]
        from tui.screens.puzzle import PuzzleScreen
        from tui.widgets.solver_pane import SolverPane

        if isinstance(self.screen, PuzzleScreen):
            rows = self.screen.help_rows(rows)
        panes = self.screen.query(SolverPane)
        legend = self.key_name(getattr(self.screen, "LEGEND_KEY", "l"))
        notes = panes.first().keys_note(legend) if panes else ""
        self.push_screen(HelpScreen(rows, self.screen.sub_title or "ponder", notes))

    def key_name(self, key: str) -> str:
        """``key`` as messages name it here: in a browser, a key the browser keeps for itself
        is named by the key bound beside it (``ctrl+n``: ``f2``)."""
        return BROWSER_KEYS.get(key, key) if self.is_web else key

    def get_key_display(self, binding: Binding) -> str:
        # In a browser the footer shows the key that reaches the app: f2, not ^n.
        if self.is_web and binding.key in BROWSER_KEYS and not binding.key_display:
            return App.get_key_display(self, replace(binding, key=BROWSER_KEYS[binding.key]))
        return App.get_key_display(self, binding)

    def action_help_quit(self) -> None:
        # Textual's answer to ctrl+c names the first quit key; in a browser that is f10.
        self.notify(
            f"Press {self.key_name('ctrl+q')} to quit the app.", title="Do you want to quit?"
        )

    def _ponder_actions(self) -> set[str]:
        """The actions bound by ponder's own screens and the app (not Textual's widgets)."""
        actions: set[str] = set()
        for cls in (*type(self).__mro__, *type(self.screen).__mro__):
            if cls.__module__.startswith("tui."):
                for binding in cls.__dict__.get("BINDINGS", []):
                    if isinstance(binding, Binding):
                        actions.add(binding.action)
        return actions

    def _focused_with(self, action: str) -> DOMNode | None:
        """The widget with focus, or the nearest one around it, that binds ``action`` (as
        Textual's scrolling containers bind page_left: every widget has the method)."""
        node: DOMNode | None = self.focused
        while node is not None and not _binds(type(node), action):
            node = node.parent
        return node if isinstance(node, Widget) else None

    async def action_focused(self, action: str) -> None:
        """Run ``action`` of the widget with focus (a stand-in key's: WIDGET_STAND_INS)."""
        node = self._focused_with(action)
        if node is not None:
            await self.run_action(action, node)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focused":
            return bool(parameters) and self._focused_with(str(parameters[0])) is not None
        if action == "replay_restart":
            return self.replay is not None and hasattr(self.screen, "start_replay")
        if action == "settings":
            # Not on the settings screen itself: the help lists no key that does nothing.
            return type(self.screen).__name__ != "SettingsScreen"
        if action == "legend":
            # Only beside a solver; by the pane's type name, so that home, which has none,
            # does not import it.
            return bool(self.screen.query("SolverPane"))
        return True

    async def action_quit(self) -> None:
        """Quit, asking first when a puzzle is in play: it is then recorded as abandoned (saved
        as the app closes, never lost from the stats)."""
        from tui.screens.puzzle import PuzzleScreen, QuitDialog

        if isinstance(self.screen, QuitDialog):
            self.screen.dismiss(True)  # asked already: ctrl+q again means yes
            return
        playing = [s for s in self.screen_stack if isinstance(s, PuzzleScreen) and s.in_play]
        if not playing:
            self.exit()
            return
        screen = playing[-1]

        def answered(yes: bool | None) -> None:
            if yes:
                self.quitting = True  # results are queued for the close, not a worker
                screen.abandon()
                self.exit()

        self.push_screen(QuitDialog(screen.noun), answered)

    def action_replay_restart(self) -> None:
        screen: Any = self.screen
        if self.replay is not None and hasattr(screen, "start_replay"):
            self.replay.restart()
            screen.start_replay()  # exclusive: the playing one is cancelled

    def action_legend(self) -> None:
        from tui.screens.dialogs import LegendScreen

        if not isinstance(self.screen, LegendScreen):
            self.push_screen(LegendScreen(getattr(self.screen, "KIND", "") or "game24"))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own "Keys" opens its side panel; ponder's opens the full list, so the
        # palette lists "Keys" once.
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command
        for kind in KINDS.values():
            if kind.playable:
                yield SystemCommand(
                    f"Play {kind.label}",
                    "A new puzzle, any difficulty",
                    partial(self.open_puzzle, kind.name),
                )
        yield SystemCommand(
            "Settings", "Engine, server, model, prices, concurrency", self.action_settings
        )
        yield SystemCommand("Keys", "Every key binding", self.action_help)
        from tui.screens.library import LibraryScreen

        yield SystemCommand(
            "Experience library",
            "What BoT runs stored, newest first, by puzzle kind",
            lambda: self.push_screen(LibraryScreen()),
        )
        # Each screen adds its own commands (its COMMANDS providers): the solver's and the
        # puzzle's on a puzzle screen.

    # ---------------------------------------------------------------- solver wiring

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a notification as plain text: ponder's notifications quote outside text
        (a store's error, a server's message), so its control characters are shown as
        escapes and square brackets are never read as markup, whatever ``markup`` says."""
        super().notify(
            visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    @property
    def model_label(self) -> str:
        # The model's name and URL come from settings and the environment: shown as text.
        return visible(describe_engine(self.settings))

    def seed(self) -> int | None:
        return self._seed if self._seed is not None else self.settings.seed

    def make_model(
        self, on_retry: Callable[[str, int, float], None] | None = None, *, paced: bool = True
    ) -> Model:
        """The model for a run, from the one factory (a test's own factory if it gave one),
        answering at :meth:`engine_pace` unless ``paced`` is False (a race has its handicap).

        The model is used on the screen's solver loop (:mod:`tui.solver_loop`), a thread that
        steps aside while the app works; a short think per call keeps the tree watchable and
        ``on_retry`` is called there. A published run, which has no timing,
        answers a call every :attr:`published_pace` seconds (divided by the replay speed)."""
        if self._model_factory is not None:
            return self._model_factory()
        model = model_factory.make_model(
            self.settings,
            seed=self.seed(),
            offline_delay=OFFLINE_THINK_SECONDS,
            on_retry=on_retry,
        )
        self.pace = self.engine_pace() if paced else None
        return model if self.pace is None else OneAtATime(model, self.pace)

    def engine_pace(self) -> Pace | None:
        """The pace of the engine's answers: the same for every run of the session, so a
        change with ``[`` or ``]`` holds for the next run too; None for a model that keeps its
        own time (a server, a recording replayed)."""
        if self.published_run() is not None:
            if self._published_pace is None:
                speed = self.settings.replay_speed
                seconds = self.published_pace / speed if speed else self.published_pace
                self._published_pace = Pace.every(seconds)
            return self._published_pace
        if self.settings.engine != "offline":
            return None
        if self._offline_pace is None:
            self._offline_pace = Pace(self.settings.solver_pace or 0.0)
        return self._offline_pace

    def published_run(self) -> Bundled | None:
        """The published run the replay engine answers from (``GPT-4 (ToT's published
        run)``, :mod:`solver.published`), or None for any other engine or recording."""
        if self.settings.engine != "replay":
            return None
        from solver.published import which

        return which(self.settings.replay_file)

    def solver_problem(self, kind: str, puzzle: object) -> str | None:
        """Why the solver cannot run on ``puzzle`` of ``kind`` with the engine chosen, in a
        sentence with what to do (None: it can). Only a published run refuses: it holds one
        kind, one method's calls and 100 hands; said before a run, not as an error a call."""
        run = self.published_run()
        if run is None:
            return None
        from puzzles.game24 import Hand
        from solver.published import problem

        # The sentences are the app's own: short, to fit under a hand at 80 x 24.
        if problem(run, kind=kind) is not None:
            label = KINDS[kind].label if kind in KINDS else kind
            return (
                "GPT-4's published run is Game of 24 only: choose another engine in the "
                f"settings (s on home) to run a solver on {label}."
            )
        if problem(run, method=self.method_name) is not None:
            known = {entry.name: entry.label for entry in every_listed()}
            labels = " or ".join(known[m] for m in run.methods if m in known)
            return f"GPT-4's published run holds {labels}'s calls only: press m for {labels}."
        if problem(run, hand=puzzle if isinstance(puzzle, Hand) else None) is not None:
            return (
                "GPT-4's published run never played this hand (it holds rows 900-999 of "
                "ToT's 24.csv): no search to watch. n deals one of its hands."
            )
        return None

    def _method_for_published(self, before: Bundled | None) -> None:
        """A published run chosen (at start or in the settings): the solver becomes the
        method it holds (ToT, whose run it is), unless the one chosen is among them."""
        run = self.published_run()
        # The published runs are the Game of 24's.
        if run is not None and run != before and self.method_for("game24") not in run.methods:
            self.methods_chosen["game24"] = run.methods[0]

    @property
    def method_name(self) -> str:
        """The method of the kind in front of the player (:attr:`kind_name`)."""
        return self.method_for(self.kind_name)

    @method_name.setter
    def method_name(self, name: str) -> None:
        if name in _offered(self.kind_name):
            self.methods_chosen[self.kind_name] = name
        self._last_method = name

    def method_for(self, kind: str) -> str:
        """``kind``'s method: the one chosen for it; else the last one chosen anywhere, if
        this kind can run it; else the first of the catalogue it can run."""
        offered = _offered(kind)
        for name in (self.methods_chosen.get(kind), self._last_method):
            if name is not None and name in offered:
                return name
        return offered[0] if offered else every_listed()[0].name

    def make_method(self) -> Any:
        """The chosen method with the options set for it, on the app's settings (``in_app``,
        e.g. a verified answer ends the run). Options of other methods are left out."""
        from solver.methods import find_spec

        spec = find_spec(self.method_name)
        names = {o.name for o in spec.options()}
        chosen = {k: v for k, v in self.method_options.items() if k in names}
        run = self.published_run()
        if run is not None and run.paper and "paper" in names:
            chosen["paper"] = True  # ToT's published run replays only as the paper ran it
        method = spec.make(**{**spec.in_app, **chosen})
        from solver.library import WithLibrary, learns

        if not self.settings.experience_library or not learns(spec):
            return method
        # The experience library setting: BoT starts from earlier runs' entries, adds its own.
        library = getattr(self, "_experience_library", None)
        if library is None:
            from tui.library_file import default_path, open_library

            library, message = open_library(default_path())
            if message:
                self.notify(message, severity="warning")
            if library is None:
                return method
            self._experience_library = library
        return WithLibrary(method, library, notes=lambda m: self.notify(m, severity="warning"))

    # ---------------------------------------------------------------- results

    STORE_RETRY_SECONDS = 15.0
    """How soon results that could not be saved are tried again."""

    def record_result(self, *, kind: str, **fields: Any) -> None:
        """Save a played puzzle of ``kind`` without holding up the screen (see
        :meth:`save_results`)."""
        if self.store is None:
            return
        from tui.store import Result

        started = datetime.now(UTC) - timedelta(seconds=float(fields.get("seconds", 0)))
        self.save_results(Result(kind=kind, started_at=started, **fields))

    def save_results(self, result: Any = None) -> None:
        """Write ``result`` and any results still waiting, on a worker thread: a results file
        locked by another program never stalls the screen. What cannot be written yet stays
        queued in the store and is tried again (:data:`STORE_RETRY_SECONDS`), then at exit."""
        store = self.store
        if store is None:
            return
        if self.quitting and result is not None:
            # The app is closing: the close writes it (a worker could be cut off).
            store.defer(result)
            return
        self.run_worker(
            partial(store.save, result) if result is not None else store.flush,
            thread=True,
            group="store",
            exit_on_error=False,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report = event.worker.result
        if event.worker.group == "store" and event.state == WorkerState.SUCCESS and report:
            self._results_saved(report)

    def _results_saved(self, report: SaveReport) -> None:
        if report.error is not None:
            waiting = f"{report.waiting} result{'s' * (report.waiting != 1)}"
            message = f"{waiting} not saved yet ({report.error}); ponder will try again."
            if self._unsaved is None:
                self.notify(message, severity="warning")
            self.store_message = self._unsaved = message
            if self._save_retry is None:
                self._save_retry = self.set_timer(self.STORE_RETRY_SECONDS, self._retry_save)
            return
        if report.saved and self._unsaved is not None and not report.waiting:
            if self.store_message == self._unsaved:
                self.store_message = None
            self._unsaved = None
            self.notify("Every waiting result is saved now.")
        if report.saved and isinstance(self.screen, HomeScreen):
            # Home came back before the worker wrote the puzzle just left: show it now.
            self.screen.refresh_home()

    def _retry_save(self) -> None:
        self._save_retry = None
        self.save_results()

    def close_store(self) -> str | None:
        """Close the results store as the app ends: results still waiting get one more try,
        then are kept aside in a file that the next start saves. Returns what to tell the
        person, if anything."""
        if self.store is None:
            return None
        from tui.store import StoreError

        try:
            kept = self.store.close()
        except StoreError as exc:
            return str(exc)
        if kept is None:
            return None
        return f"results that could not be saved yet are kept in {kept}; the next start saves them"

    def recent(self, limit: int) -> list[Any]:
        if self.store is None:
            return []
        from tui.store import StoreError

        try:
            return list(self.store.recent(limit))
        except StoreError as exc:
            self.store_message = str(exc)
            return []

    def stats(self) -> Any:
        if self.store is None:
            return None
        from tui.store import StoreError

        try:
            stats = self.store.stats()
        except StoreError as exc:
            self.store_message = str(exc)
            return None
        if stats.unreadable and self.store_message is None:
            rows = f"{stats.unreadable} result{'s' * (stats.unreadable != 1)}"
            self.store_message = f"{rows} in {self.store.name} could not be read and are left out."
        return stats

    def apply_settings(self, settings: Settings) -> None:
        before = self.published_run()
        self.settings = settings
        self._method_for_published(before)


def _offered(kind: str) -> list[str]:
    """The names of the methods ``kind`` can run (none for a kind nobody registered)."""
    try:
        return [entry.name for entry in find_kind(kind).listed()]
    except UnknownKind:
        return []


def _warm_up(kind: PuzzleKind) -> None:
    """A kind's screen imported and its warm-up run (in a worker thread)."""
    kind.screen_class().warm_up()


def make_app(
    settings: Settings | None = None,
    *,
    model: Callable[..., Model] | None = None,
    store_path: Path | None = None,
    replay: Replay | None = None,
    seed: int | None = None,
    use_store: bool = True,
) -> PonderApp:
    """The app, wired to settings, a model factory (tests) and the results store."""
    if settings is None:
        from solver.settings import load_settings

        settings = load_settings()
    store = None
    message = None
    if use_store:
        from tui.store import ResultStore

        store, message = ResultStore.open_or_recover(store_path)
    return PonderApp(
        settings, model_factory=model, store=store, store_message=message, replay=replay, seed=seed
    )


def run_app(replay: Replay | None = None) -> int:
    """Start the app in this terminal; returns the exit code."""
    from solver.settings import SettingsError, load_settings
    from tui.exitcodes import ExitCode
    from tui.served import tie_to_server

    if not tie_to_server():
        return ExitCode.INTERRUPTED  # served, and its server is gone: no one to play
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"ponder: {visible(str(exc))}")
        return ExitCode.USAGE
    if settings.solver_pace is None:
        settings = settings.replace(solver_pace=WATCH_PACE)
    app = make_app(settings, replay=replay)
    app.run()
    message = app.close_store()
    if message:
        print(f"ponder: {visible(message)}", file=sys.stderr)
    return ExitCode.OK
