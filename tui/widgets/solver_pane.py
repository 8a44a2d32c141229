"""The solver beside the puzzle: thought tree or dialogue, verified arithmetic, experience,
status.

It is a consumer of the solver's event stream and of the method's catalogue entry, nothing
else, so live runs and replayed traces look the same and a new method needs no change here.
Events arrive in batches (:meth:`SolverPane.apply`), which the caller makes inside
``app.batch_update()``. How an answer reads is the puzzle screen's to say
(:attr:`SolverPane.answer_text`).
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Self

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region
from textual.reactive import var
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import RichLog, Static, TabbedContent, TabPane, Tree
from textual.widgets.tree import TreeNode

from puzzles.arith import ArithError, parse
from solver import events as ev
from solver.methods import METHODS, MethodSpec, find_spec
from solver.methods.react import FINISH
from solver.roles import Purpose
from solver.text import visible, visible_event
from tui.notation import written
from tui.widgets.dialogue import DialogueView, TurnCard
from tui.widgets.grows import GrowsInPlace, update_in_place
from tui.widgets.rounds_plot import RoundsPlot
from tui.widgets.tones import Tone, tone

__all__ = ["NodeInfo", "PaneLog", "SolverPane", "ThoughtTree", "restates"]

_GROUP_NAMES = {"i": "Iteration", "t": "tree", "s": "sample"}

KEPT_LINES = 4096
"""Most drawn lines the thought tree keeps (:meth:`ThoughtTree._render_line`) before it starts
again: a few screens' worth, each line kept under every row and state it was drawn for."""


def _hanging(label: Text | str, body: Text | str, style: str = "") -> RenderableType:
    """``label`` then ``body`` beside it, every line of the body (its own lines and those the
    log wraps) starting under the body's first: a transcript stays readable at 80 columns."""
    grid = Table.grid()
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(label, Text(body, style=style) if isinstance(body, str) else body)
    return grid


def _indented(body: str, style: str = "", by: int = 2) -> RenderableType:
    """``body`` with every line of it indented by ``by`` columns, wrapped lines too."""
    return Padding(Text(body, style=style), (0, 0, 0, by), expand=False)


def _label_of(method: str) -> str:
    """A method as people know it (``CoT-SC``), from the catalogue; its name if unknown."""
    try:
        return find_spec(method).label
    except ValueError:
        return method


KEYS_NOTES = {
    "tree": (
        "ctrl+f moves the keys into the solver's tree (and back to the puzzle); ctrl+z "
        "enlarges the pane (again, or esc, shrinks it). In the tree: up / down move, enter "
        "shows a thought's details, space folds or unfolds it, shift+left goes to its parent. "
        "The tabs below it ({checks}, Experience, Rounds, Details): tab to the tab bar, then "
        "left / right switch. {legend} explains the tree's marks and scores."
    ),
    "dialogue": (
        "The solver's dialogue: one card a turn, the guide's prompt above the answer it got, "
        "with the candidate answer checked exactly (✓ / ✗). ctrl+f moves the keys into the "
        "pane (and back), ctrl+z enlarges it. Click a turn for its prompts and replies in the "
        "Details tab. {legend} explains the marks."
    ),
    "transcript": (
        "The solver's transcript: each thought, the action it chose and what the tool "
        "answered (computed by ponder, never by the model), then why it stopped. ctrl+f "
        "moves the keys into the pane (and back), ctrl+z enlarges it. {legend} explains the "
        "marks."
    ),
}
"""What the keys help says about the pane, per way of drawing a run (``MethodSpec.view``)."""


@dataclass
class NodeInfo:
    """What the pane knows about one thought."""

    node_id: str
    text: str
    state: str = ""
    depth: int = 0
    score: float | None = None
    edge: float | None = None
    samples: tuple[str, ...] = ()
    status: str = ""  # "", "pruned", "leaf", "solution"
    reason: str = ""
    call_id: int | None = None
    score_call: int | None = None
    chain: bool = False
    claims: list[str] = field(default_factory=list)
    wrong: bool = False  # one of its arithmetic claims is wrong or unreadable
    parent: str | None = None
    wins: bool = False
    """On the solver's way to the answer: it reaches the goal (or was found a solution), or a
    thought after it does. Its text is a spoiler while the answer is hidden."""


Entry = RenderableType | Callable[[], RenderableType | None]
"""A line of a log that may give the answer away: drawn by a function, again when the answer
is shown or hidden (None: nothing to draw)."""


class PaneLog(GrowsInPlace, RichLog):
    """A log of the pane (checks, experience, details, a transcript). While the pane applies
    a batch of events (:meth:`hold`), the lines written are kept and written in one go when
    it ends (:meth:`release`): one render for the batch rather than one a line, which is
    about half the cost.

    What it was given is kept too, and wrapped again at a new width (the pane enlarged with
    ctrl+z and shrunk again, the terminal resized): Textual's log keeps lines as drawn, so a
    line written while the pane was wide was cut once it was narrow again."""

    _held: list[RenderableType] | None = None
    _given: deque[tuple[RenderableType, tuple[Any, ...], dict[str, Any]]] | None = None
    _drawn_width = 0

    def hold(self) -> None:
        if self._held is None:
            self._held = []

    def release(self) -> None:
        held, self._held = self._held, None
        if held:
            self._draw(held[0] if len(held) == 1 else Group(*held))

    def write(self, content: RenderableType | object, *args: Any, **kwargs: Any) -> Self:
        if self._held is not None and not args and not kwargs:
            self._held.append(content)  # type: ignore[arg-type]
            return self
        return self._draw(content, *args, **kwargs)  # type: ignore[arg-type]

    def _draw(self, content: RenderableType, *args: Any, **kwargs: Any) -> Self:
        # Before the log has a size Textual keeps what is written and writes it again once
        # it has one: kept from then, once.
        if self._size_known:
            if self._given is None:
                self._given = deque(maxlen=self.max_lines)
            self._given.append((content, args, kwargs))
        return super().write(content, *args, **kwargs)

    def clear(self) -> Self:
        if self._held:
            self._held.clear()
        if self._given:
            self._given.clear()
        return super().clear()

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if not width:
            return  # out of sight (another tab): drawn again when shown at a width
        if self._drawn_width and width != self._drawn_width and self._given:
            y = self.scroll_y
            RichLog.clear(self)
            for content, args, kwargs in self._given:
                super().write(content, *args, **kwargs)
            if not self.auto_scroll:
                self.scroll_to(y=y, animate=False, immediate=True)
        self._drawn_width = width


class ThoughtTree(GrowsInPlace, Tree[str]):
    """The solver's thoughts. Enter shows a thought's details without folding it; space
    folds and unfolds. The cursor shows as soon as the tree has focus."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Details", id="tree.details"),
        Binding("space", "toggle_node", "Fold", id="tree.fold"),
    ]

    def on_mount(self) -> None:
        self.auto_expand = False  # Enter selects; folding is space's job

    def _invalidate(self) -> None:
        """A node added, relabelled, folded: the lines are built again when next drawn
        (which sets the virtual size, see :class:`~tui.widgets.grows.GrowsInPlace`), and the
        screen is not laid out again (Textual's tree asks for a layout on every change)."""
        if self.styles.auto_dimensions:
            super()._invalidate()
            return
        self._clear_line_cache()
        self._updates += 1
        self.root._reset()
        self.refresh()

    _line_style: Style | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        # The tree's style, worked out from its ancestors' backgrounds, once a frame rather
        # than once a line: most of what redrawing a line cost.
        self._line_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None

    def render_line(self, y: int) -> Strip:
        style = self._line_style
        if style is None:
            return super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        return self._render_line(y + scroll_y, scroll_x, scroll_x + self.size.width, style)

    _kept: dict[Hashable, Strip] | None = None

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """A line as Textual's tree draws it, kept while what it shows stays the same.

        Textual's tree forgets every line it drew whenever a node is added anywhere, so a
        streaming solver's batch redrew every visible line (most of a frame beside it). A line
        is kept here under all that its drawing reads: its row (in its click data), each node
        on its path with its label's version, place among its siblings, hover and selection,
        the cursor and hover rows, focus, widths, crop and styles."""
        lines = self._tree_lines
        if y >= len(lines):
            return super()._render_line(y, x1, x2, base_style)
        line = lines[y]
        key = (
            y,
            x1,
            x2,
            line.last,
            tuple((n._id, n._updates, n.is_last, n._hover, n._selected) for n in line.path),
            self.hover_line >= 0 and any(n._hover for n in line.path),
            self.hover_line == y,
            self.cursor_line == y,
            self.has_focus,
            self.size.width,
            max(self.virtual_size.width, self.size.width),  # (the width it is padded to)
            self._pseudo_class_state,
            base_style,
            self.show_guides,
            self.guide_depth,
        )
        kept = self._kept
        if kept is None or len(kept) > KEPT_LINES:
            kept = self._kept = {}
        strip = kept.get(key)
        if strip is None:
            strip = kept[key] = super()._render_line(y, x1, x2, base_style)
        return strip

    def clear(self) -> Self:
        self._kept = None  # node numbers start again
        return super().clear()

    def notify_style_update(self) -> None:
        self._kept = None
        super().notify_style_update()

    def on_focus(self) -> None:
        if self.cursor_line < 0 and self.last_line >= 0:
            self.cursor_line = 0


class SolverPane(Vertical):
    """Shows one run of a reasoning method as it happens."""

    ALLOW_MAXIMIZE = True  # ctrl+z (or the palette's Maximize) enlarges the whole pane

    DEFAULT_CSS = """
    SolverPane { height: 1fr; }
    SolverPane #solver-status { height: auto; padding: 0 1; background: $boost; }
    SolverPane Tree { height: 3fr; min-height: 5; }
    SolverPane DialogueView { display: none; }
    SolverPane.-dialogue DialogueView { display: block; }
    SolverPane.-dialogue Tree { display: none; }
    SolverPane #transcript { display: none; height: 3fr; min-height: 5; }
    SolverPane.-transcript #transcript { display: block; }
    SolverPane.-transcript Tree { display: none; }
    SolverPane TabbedContent { height: 2fr; min-height: 6; }
    SolverPane RichLog { height: 1fr; }
    """

    TICK = 0.5
    """Seconds between redraws of the run's time while it runs."""

    running: var[bool] = var(False, init=False)
    """Whether a run is under way: its clock ticks (:attr:`ticker`) only while it is."""
    elapsed: var[float] = var(0.0, init=False)
    """The run's time so far (its wall time once finished); a host may watch it."""

    def __init__(self, *, id: str | None = None, checks: str | None = None) -> None:
        super().__init__(id=id)
        self.checks = checks
        """The first tab's title (``Arithmetic``, ``Words``): what the solver's exact checks
        are of. None: the puzzle kind's, from the registry (see :meth:`checks_title`)."""
        self.method = ""
        self.spec: MethodSpec | None = None
        self.model = ""
        self.iteration = (0, 0)
        self.calls = 0
        self.cached = 0  # calls answered from the reply cache (a resumed run's), not requests
        self.earlier: tuple[int, int, float | None] = (0, 0, 0.0)
        """Calls, tokens and cost of the runs this one resumes: the counts go on from them."""
        self.tokens = 0
        self.cost: float | None = 0.0
        self.started: float | None = None
        self.elapsed = 0.0
        self.running = False
        self.finished: ev.RunFinished | None = None
        self.error = ""
        self.notice = ""
        self.pace = ""
        """How fast the engine answers, said while a run goes on (``pace 8 calls a second · [
        slower · ] faster``); empty for an engine that keeps its own time."""
        self.warnings: list[str] = []  # unfinished replies and other notes about calls
        self.streaming: dict[int, tuple[str, str]] = {}
        """Replies still streaming in: call id -> (purpose, text so far)."""
        self.model_suffix = ""  # " (replay)" while a trace plays
        self.nodes: dict[str, NodeInfo] = {}
        self.calls_by_id: dict[int, ev.ModelCalled] = {}
        self.counts = {"exact": 0, "approx": 0, "wrong": 0, "invalid": 0}
        self.words = {"fits": 0, "conflicts": 0}
        """Crossword words checked against their crossings (the crossword's claims)."""
        self.goal: str | None = None
        """The state text of a solved puzzle (a thought that leaves it reached the goal)."""
        self.answer_text: Callable[[str], str] = str
        """An answer as people read it (the puzzle screen's)."""
        self.answer_hidden = False
        """Whether the solver's answer is kept from the player (still playing): no spoilers."""
        self.transcript_events: list[ev.Event] = []
        """The events of the transcript so far (ReAct's, DELI's), to write it again."""
        self.entries: dict[str, deque[Entry]] = {
            "arith": deque(maxlen=3000),
            "experience": deque(maxlen=3000),
        }
        """What the checks and experience logs were given, to write them again when the
        answer is shown or hidden (their lines about the way to the answer are spoilers)."""
        self._stale: set[str] = set()
        """Logs to write again at the end of the batch: a thought was found on the way to
        the answer after its lines were written."""
        self._chains: dict[int, tuple[str, ...]] = {}
        """The thoughts of each iteration's aggregated chain (BoT), by iteration."""
        self.peek_key = "v"
        """The key that shows a hidden answer, as the status line names it."""
        self.config: dict[str, object] = {}
        self._tree_nodes: dict[str, TreeNode[str]] = {}
        self._groups: dict[str, TreeNode[str]] = {}
        self._group_labels: dict[str, str] = {}
        self._last_iteration: TreeNode[str] | None = None
        self.carried: tuple[str, ...] = ()
        """Experience entries of earlier runs (the library) this run started with."""
        self.ticker: Timer | None = None
        """The timer that advances :attr:`elapsed`: there only while a run is under way."""

    def watch_running(self, running: bool) -> None:
        if running and self.ticker is None:
            self.ticker = self.set_interval(self.TICK, self.tick)
        elif not running and self.ticker is not None:
            self.ticker.stop()
            self.ticker = None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._recolour)

    def _recolour(self, _theme: object) -> None:
        """A new theme (ctrl+p, Theme): the tree's marks and the status line take its tones."""
        for info in self.nodes.values():
            self._relabel(info)
        self.refresh_status()

    def compose(self) -> ComposeResult:
        yield Static(
            "solver idle · press s (or space) to start it · l: what the marks mean",
            id="solver-status",
        )
        tree = ThoughtTree("thoughts", id="thoughts")
        tree.show_root = False
        tree.guide_depth = 3
        yield tree
        yield DialogueView(id="dialogue")
        yield PaneLog(id="transcript", max_lines=3000, markup=False, wrap=True, min_width=10)
        with TabbedContent(id="solver-tabs"):
            with TabPane(self.checks_title(), id="tab-arith"):
                yield PaneLog(id="arith", max_lines=3000, markup=False, wrap=True, min_width=10)
            with TabPane("Experience", id="tab-experience"):
                yield PaneLog(
                    id="experience", max_lines=3000, markup=False, wrap=True, min_width=10
                )
            with TabPane("Rounds", id="tab-rounds"):
                yield RoundsPlot(id="rounds")
            with TabPane("Details", id="tab-details"):
                # It opens at its top: the summary first, the prompts and replies below.
                yield PaneLog(
                    id="details",
                    max_lines=3000,
                    markup=False,
                    wrap=True,
                    min_width=10,
                    auto_scroll=False,
                )

    def checks_title(self) -> str:
        """The first tab's title: given, else the kind's of the screen the pane is on."""
        if self.checks is not None:
            return self.checks
        kind = getattr(self.screen, "kind", None) if self.is_attached else None
        checks = getattr(kind, "checks", None)
        return checks if isinstance(checks, str) and checks else "Arithmetic"

    def _state_label(self) -> str:
        """What a thought's state is called in Details, as its kind's spec says (a Game of
        24's numbers left, a crossword's board); beside no kind, numbers left."""
        kind = getattr(self.screen, "kind", None) if self.is_attached else None
        spec = getattr(kind, "spec", None)
        state = getattr(spec, "state", None)
        return state if isinstance(state, str) and state else "numbers left"

    # ---------------------------------------------------------------- the method

    def _use_method(self, method: str) -> None:
        """Draw runs of ``method`` as its catalogue entry says (a tree when it has none: a
        trace of a method this version does not know)."""
        self.method = method
        try:
            self.spec = find_spec(method) if method else None
        except ValueError:
            self.spec = None
        self.set_class(self.view == "dialogue", "-dialogue")
        self.set_class(self.view == "transcript", "-transcript")
        self.query_one(RoundsPlot).round_name = self.round_name

    @property
    def label(self) -> str:
        """The method as people know it (``BoT``)."""
        if self.spec is not None:
            return self.spec.label
        return self.method.upper() or "solver"

    @property
    def view(self) -> str:
        """How runs are drawn: ``tree``, ``dialogue`` or ``transcript``."""
        return self.spec.view if self.spec is not None else "tree"

    @property
    def round_name(self) -> str:
        """What one round of the method is called (``iteration``, ``step``)."""
        return self.spec.round if self.spec is not None else "step"

    def keys_note(self, legend: str = "l") -> str:
        """How to move around the pane, for the keys help; ``legend``: the key that explains
        the marks on this screen."""
        note = KEYS_NOTES.get(self.view, "").format(checks=self.checks_title(), legend=legend)
        if self.answer_hidden:
            note += (
                f" The solver's answer stays hidden until you solve or give up: {self.peek_key} "
                "shows it."
            )
        return note

    def show_answer(self, shown: bool = True) -> None:
        """Show the solver's answer (or hide it again while the player plays)."""
        changed = self.answer_hidden == shown
        self.answer_hidden = not shown
        if self.finished is not None:  # an idle pane keeps its "press s" line
            self.refresh_status()
        if changed and self.transcript_events:
            self._rewrite_transcript()
        if changed:
            self.query_one(DialogueView).redraw()
            # The thought tree's way to the answer, and the logs' lines about it.
            for info in self.nodes.values():
                if info.wins or _states_answer(info.text):
                    self._relabel(info)
            for log_id in self.entries:
                self._rewrite(log_id)

    def _dialogue_hidden(self) -> str:
        """What stands for an IoT turn's answer while the player plays; empty when shown."""
        return self._hidden if self.answer_hidden else ""

    def focus_view(self) -> None:
        """Give the keys to what draws the run: the tree, the dialogue or the transcript."""
        target = {"dialogue": "#dialogue", "transcript": "#transcript"}.get(self.view, "#thoughts")
        widget = self.query_one(target)
        if widget.focusable:
            widget.focus()
        else:
            self.query_one("#solver-tabs").focus()

    # ---------------------------------------------------------------- lifecycle

    def reset(self, method: str = "", model: str = "", *, resuming: bool = False) -> None:
        """Forget the previous run; ``resuming`` it, its calls, tokens and cost carry on."""
        self.earlier = (self.calls, self.tokens, self.cost) if resuming else (0, 0, 0.0)
        self._use_method(visible(method))
        self.model = visible(model)
        self.iteration = (0, 0)
        self.calls = self.tokens = self.cached = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self.elapsed = 0.0
        self.running = True
        self.finished = None
        self.error = self.notice = ""
        self.warnings.clear()
        self.streaming.clear()
        self.nodes.clear()
        self.calls_by_id.clear()
        self.counts = dict.fromkeys(self.counts, 0)
        self.words = dict.fromkeys(self.words, 0)
        self.config = {}
        if self.carried:
            self._experience_tab("Experience")
        self.carried = ()
        self._tree_nodes.clear()
        self._groups.clear()
        self._group_labels.clear()
        self._last_iteration = None
        tree = self.query_one("#thoughts", Tree)
        tree.clear()
        dialogue = self.query_one(DialogueView)
        dialogue.clear()
        dialogue.answer_text = self.answer_text
        dialogue.hidden = self._dialogue_hidden
        for log_id in ("#arith", "#experience", "#details", "#transcript"):
            self.query_one(log_id, RichLog).clear()
        self.transcript_events.clear()
        for entries in self.entries.values():
            entries.clear()
        self._stale.clear()
        self._chains.clear()
        self.query_one(RoundsPlot).clear(self.round_name)
        self.refresh_status()

    def stopped(self) -> None:
        """The run was cancelled by the person."""
        if self.running:
            self.running = False
            self.notice = "stopped"
            self.refresh_status()

    # ---------------------------------------------------------------- events

    def apply(self, events: Iterable[ev.Event], deadline: float | None = None) -> int:
        """Show a batch of events; the status line and the logs are drawn once for it.

        With a ``deadline`` (a :func:`time.perf_counter` time) it stops at the first event
        applied after it, so that one batch cannot hold up a frame; the count applied (at
        least one of a batch that has any) is returned, and the rest are the caller's to
        apply later, in order."""
        logs = list(self.query(PaneLog))
        for log in logs:
            log.hold()
        applied = 0
        try:
            for event in events:
                # Events carry text from models, servers and traces: its control characters
                # are made visible here, once. (Text reaches widgets as ``Text``, never as
                # markup.)
                self.apply_one(visible_event(event))
                applied += 1
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        finally:
            for log in logs:
                log.release()
        for log_id in sorted(self._stale):
            self._rewrite(log_id)
        self._stale.clear()
        self.refresh_status()
        return applied

    def apply_one(self, event: ev.Event) -> None:
        """Show one event (what :meth:`apply` does for each of a batch)."""
        match event:
            case ev.RunStarted(method=method, model=model, config=config):
                if not self.running:
                    self.reset(method, model)
                self._use_method(method)
                self.model = model + self.model_suffix
                self.config = dict(config)
            case ev.IterationStarted(iteration=i, total=n, label=label):
                self.iteration = (i, n)
                if self.view != "tree":
                    pass
                elif self.round_name == "iteration":
                    # Each iteration grows its own trees: one group per iteration.
                    self._iteration_group(f"i{i}", label or f"Iteration {i}")
                elif i > 1:
                    # A step-wise search: what the last step kept.
                    self._kept_states(i - 1)
            case ev.TreeStarted(tree_id=tid, strategy=strategy, temperature=t, top_p=p):
                self._group(tid, f"{_group_label(tid)} · {strategy}-wise · T={t:g} top_p={p:g}")
            case ev.ThoughtAdded() as e:
                self._add_thought(e)
            case ev.ThoughtScored() as e:
                info = self.nodes.get(e.node_id)
                if info is not None:
                    info.score, info.edge, info.samples = e.score, e.edge_score, e.samples
                    info.score_call = e.call_id
                    self._relabel(info)
            case ev.ThoughtPruned(node_id=nid, reason=reason):
                self._mark(nid, "pruned", reason)
            case ev.LeafReached(node_id=nid, reason=reason):
                self._mark(nid, "leaf", reason)
            case ev.SolutionFound(node_id=nid, answer=answer):
                self._mark(nid, "solution", answer)
            case ev.ChainAggregated() as e:
                self._chain(e)
            case ev.ClaimVerified() as e:
                self._claim(e)
            case ev.WordChecked() as e:
                self._word(e)
            case ev.ExperienceCarried() as e:
                self._carried(e)
            case ev.ExperienceAdded() as e:
                self._experience(e)
            case ev.FinalAnswered() as e:
                self._final(e)
            case ev.TurnGuided() as e:
                self.query_one(DialogueView).guided(e)
            case ev.TurnAnswered() as e:
                self.query_one(DialogueView).answered(e)
                self.query_one(RoundsPlot).record(e.turn, ok=e.ok)
            case ev.DialogueStopped() as e:
                self.query_one(DialogueView).stop(e)
            case (
                ev.ToolCalled()
                | ev.ToolObserved()
                | ev.EpisodeEnded()
                | ev.DeliberationStage()
                | ev.DeliberationEnded()
                | ev.DemonstrationsRetrieved()
                | ev.FallbackDecided()
                | ev.VotesCounted()
            ):
                self._transcript(event)
            case ev.TokensStreamed(call_id=cid, purpose=purpose, text=text):
                self.streaming[cid] = (purpose, text)
            case ev.ModelCalled() as e:
                self.streaming.pop(e.call_id, None)
                self.calls_by_id[e.call_id] = e
                self.warnings += e.warnings()
            case ev.TokensUsed() as e:
                if self.error.startswith(_ERROR_TITLES["retrying"]):
                    self.error = ""  # the retry went through
                self._count(e.calls, e.prompt_tokens + e.completion_tokens, e.cost)
                self.cached = e.cached
            case ev.ParseFailed(purpose=purpose, reason=reason):
                self.notice = f"unparsed {purpose} reply: {reason}"
            case ev.ErrorRaised(kind=kind, message=message, fatal=fatal):
                self.error = f"{_ERROR_TITLES.get(kind, kind)}: {message}"
                if fatal:
                    self.running = False
            case ev.RunFinished() as e:
                self._finish(e)
            case _:
                pass

    # ---------------------------------------------------------------- tree

    def _iteration_group(self, key: str, label: str) -> TreeNode[str]:
        if self._last_iteration is not None:
            self._last_iteration.collapse()  # keep the tree light: one open iteration
        node = self._group(key, label.capitalize())
        node.expand()
        self._last_iteration = node
        return node

    def _group(self, tree_id: str, label: str | None = None) -> TreeNode[str]:
        """The tree node that holds the thoughts of ``tree_id`` (``i2.t7`` nests)."""
        found = self._groups.get(tree_id)
        if found is not None:
            if label and self._group_labels.get(tree_id) != label:
                found.set_label(Text(label))
                self._group_labels[tree_id] = label
            return found
        tree = self.query_one("#thoughts", Tree)
        parent = tree.root
        if "." in tree_id:
            parent = self._group(tree_id.rsplit(".", 1)[0])
        text = label or _group_label(tree_id)
        node = parent.add(Text(text), data=tree_id, expand=True)
        self._groups[tree_id] = node
        self._group_labels[tree_id] = text
        return node

    def _add_thought(self, e: ev.ThoughtAdded) -> None:
        info = NodeInfo(
            e.node_id, e.text, e.state, e.depth, call_id=e.call_id, parent=e.parent_id or None
        )
        self.nodes[e.node_id] = info
        parent = self._tree_nodes.get(e.parent_id or "") if e.parent_id else None
        if parent is None:
            parent = self._group(e.tree_id)
        else:
            parent.allow_expand = True
        # A thought shows no expand arrow until a child thought grows from it.
        node = parent.add(self._label(info), data=e.node_id, expand=True, allow_expand=False)
        self._tree_nodes[e.node_id] = node
        if self._reaches(info):
            self._wins(info)

    def _mark(self, node_id: str, status: str, reason: str) -> None:
        info = self.nodes.get(node_id)
        if info is None:
            return
        if info.status != "solution":
            info.status, info.reason = status, reason
        self._relabel(info)
        if status == "solution":
            self._wins(info)

    def _wins(self, info: NodeInfo) -> None:
        """``info`` reaches the answer: it and the thoughts before it are the way there."""
        at: NodeInfo | None = info
        while at is not None and not at.wins:
            at.wins = True
            self._relabel(at)
            if at.claims and self.answer_hidden:
                self._stale.add("arith")  # its checks were written before it was known
            at = self.nodes.get(at.parent or "")
        if self.answer_hidden:
            self._stale.add("experience")  # a chain or kept state on the way

    def _spoils(self, info: NodeInfo | None) -> bool:
        """Whether ``info``'s text would give the answer away now: it is on the way to the
        answer, or it states the solver's answer ("Answer: 50"), right or wrong, as the
        status line keeps it."""
        if info is None or not self.answer_hidden:
            return False
        return info.wins or _states_answer(info.text)

    def _write(self, log_id: str, entry: Entry) -> None:
        """Write ``entry`` to a log whose lines may give the answer away (kept, to write it
        again when the answer is shown or hidden)."""
        self.entries[log_id].append(entry)
        drawn = entry() if callable(entry) else entry
        if drawn is not None:
            self.query_one(f"#{log_id}", RichLog).write(drawn)

    def _rewrite(self, log_id: str) -> None:
        log = self.query_one(f"#{log_id}", PaneLog)
        log.clear()
        held = log._held is not None
        log.hold()  # one render for the whole log
        try:
            for entry in self.entries[log_id]:
                drawn = entry() if callable(entry) else entry
                if drawn is not None:
                    log.write(drawn)
        finally:
            if not held:
                log.release()

    def _relabel(self, info: NodeInfo) -> None:
        node = self._tree_nodes.get(info.node_id)
        if node is not None:
            node.set_label(self._label(info))

    def _label(self, info: NodeInfo) -> Text:
        text = Text()
        if self._spoils(info):
            # No spoilers: the way to the answer shows as the tree's shape, not its words.
            if self._reaches(info) or info.status == "solution":
                text.append("★ ", style=tone(self, Tone.RIGHT, "bold"))
            # Short: a deep thought is drawn far right in a narrow pane (the status line
            # says which key shows it).
            text.append("(hidden)", style="dim italic")
            return text
        if info.chain:
            text.append("◆ ", style=tone(self, Tone.PART, "bold"))
        # A thought that leaves only the target reached it, scored or not (stop-early may
        # cancel its scoring); one with wrong arithmetic gets ✗ instead.
        star = info.status == "solution" or (self._reaches(info) and not info.wrong)
        if star:
            text.append("★ ", style=tone(self, Tone.RIGHT, "bold"))
        if info.wrong or info.reason.startswith("invalid step"):
            text.append("✗ ", style=tone(self, Tone.WRONG, "bold"))
        style = {
            "pruned": "dim strike",
            "leaf": "italic",
            "solution": tone(self, Tone.RIGHT, "bold"),
        }.get(info.status, "")
        text.append(written(info.text), style=style)
        scores = []
        if info.score is not None:
            scores.append(f"{info.score:g}")
        if info.edge is not None:
            scores.append(f"edge {info.edge:g}")
        if info.samples and info.samples != ("duplicate",):
            scores.append("/".join(s[:1] for s in info.samples))
        if scores:
            text.append(f"  [{' · '.join(scores)}]", style="dim")
        if info.status == "pruned":
            text.append("  pruned", style=tone(self, Tone.WRONG, "dim"))
        return text

    def _reaches(self, info: NodeInfo) -> bool:
        """Whether a thought leaves only the goal (the last step makes it)."""
        return self.goal is not None and info.state.strip() == self.goal

    def _chain(self, e: ev.ChainAggregated) -> None:
        self.query_one(RoundsPlot).record(e.iteration, score=e.score)
        for nid in e.node_ids:
            info = self.nodes.get(nid)
            if info is not None:
                info.chain = True
                self._relabel(info)
        self._chains[e.iteration] = e.node_ids
        nodes = [self.nodes.get(nid) for nid in e.node_ids]

        def chain() -> Text:
            steps = " → ".join(written(step) for step in e.steps)
            if any(self._spoils(info) for info in nodes):
                steps = self._hidden
            return Text.assemble(
                (f"Iteration {e.iteration} · {e.strategy} chain", "bold"),
                (f" (score {e.score:g})\n", "dim"),
                "  " + steps,
            )

        self._write("experience", chain)

    def _kept_states(self, step: int) -> None:
        kept = [n for n in self.nodes.values() if n.depth == step and n.status != "pruned"]
        self._write("experience", Text(f"After step {step}, kept {len(kept)} states:", "bold"))
        for info in kept[:10]:
            self._write("experience", self._state_line(info))

    def _state_line(self, info: NodeInfo) -> Callable[[], Text]:
        """A kept state as the experience log lists it (hidden on the way to the answer)."""
        return lambda: Text(f"  {self._hidden if self._spoils(info) else written(info.text)}")

    def _claim(self, e: ev.ClaimVerified) -> None:
        if e.ok and restates(e.expression, e.claimed):
            return  # "9600 = 9600" (an answer line said again) computes nothing
        self.counts[e.status] = self.counts.get(e.status, 0) + 1
        colour = {
            "exact": tone(self, Tone.RIGHT),
            "approx": tone(self, Tone.WARNING),
            "invalid": tone(self, Tone.SECOND),
        }.get(e.status, tone(self, Tone.WRONG))
        line = Text.assemble((f"{e.mark} ", f"bold {colour}"), written(e.said))
        if e.note:
            line.append(f"  {e.note}", style=colour)
        info = self.nodes.get(e.node_id or "")
        self._check_line(line, Text(f"{e.mark} ", f"bold {colour}"), info)
        if info is not None:
            info.claims.append(line.plain)
            if e.status == "wrong" and not info.wrong:  # unreadable ("?") is no wrong step
                info.wrong = True
                self._relabel(info)

    def _word(self, e: ev.WordChecked) -> None:
        """A crossword word checked against its slot and crossings: ✓ fits, ✗ conflicts."""
        self.words["fits" if e.ok else "conflicts"] += 1
        line = Text.assemble(
            (f"{e.mark} ", tone(self, Tone.RIGHT if e.ok else Tone.WRONG, "bold")),
            (f"{e.clue}. {e.word}", "bold"),
        )
        # The reason says the pattern it fits, or the crossing letter it conflicts with.
        why = e.reason or f"{'fits' if e.ok else 'does not fit'} {e.pattern}".strip()
        line.append(f"  {why}", style=tone(self, Tone.RIGHT) if e.ok else tone(self, Tone.WRONG))
        info = self.nodes.get(e.node_id or "")
        mark = Text(f"{e.mark} ", tone(self, Tone.RIGHT if e.ok else Tone.WRONG, "bold"))
        self._check_line(line, mark, info)
        if info is not None:
            info.claims.append(line.plain)
            if not e.ok and not info.wrong:
                info.wrong = True
                self._relabel(info)

    def _check_line(self, line: Text, mark: Text, info: NodeInfo | None) -> None:
        """A line of the checks tab; one of a thought on the way to the answer says only its
        mark while the answer is hidden."""
        if info is None:
            self._write("arith", line)
            return
        hidden = mark + Text(self._hidden, "dim italic")
        self._write("arith", lambda: hidden if self._spoils(info) else line)

    def _carried(self, e: ev.ExperienceCarried) -> None:
        """Entries from the library, each marked, so a player tells them from this run's."""
        self.carried = e.entries
        n = len(e.entries)
        # The tab says it too: the log is out of sight behind the other tabs.
        self._experience_tab(f"Experience · {n} from library")
        where = "kept out of the prompts" if e.kept_out else "carried into this run's prompts"
        self._write(
            "experience",
            Text.assemble(
                (
                    f"From the library: {n} {'entry' if n == 1 else 'entries'} of earlier runs",
                    tone(self, Tone.PART, "bold"),
                ),
                (f" ({where})", "dim"),
            ),
        )
        for entry in e.entries:
            for i, line in enumerate(entry.splitlines()):
                self._write(
                    "experience",
                    Text.assemble(
                        ("  library │ " if i == 0 else "          │ ", tone(self, Tone.PART)),
                        line,
                    ),
                )
        # Everything after this line is the run's own (the event comes before iteration 1).
        self._write("experience", Text("This run's own experience:", style="bold"))

    def _experience_tab(self, title: str) -> None:
        self.query_one("#solver-tabs", TabbedContent).get_tab("tab-experience").label = title

    def _experience(self, e: ev.ExperienceAdded) -> None:
        self.query_one(RoundsPlot).record(e.iteration, ok=e.chain_ok)
        if e.chain_ok:
            # The iteration's chain checks exactly (a crossword's words filling the grid,
            # though no one thought holds them all): its thoughts are the way to the answer.
            for nid in self._chains.get(e.iteration, ()):
                info = self.nodes.get(nid)
                if info is not None:
                    self._wins(info)
        conf = f"{e.confidence:g}" if e.confidence is not None else "?"
        mark = (
            ("✓", tone(self, Tone.RIGHT, "bold"))
            if e.chain_ok
            else ("✗", tone(self, Tone.WRONG, "bold"))
        )

        def analysis() -> Text:
            # The verdict may name the answer ("17 is not 18"), a right chain's entry is it.
            verdict = "" if self.answer_hidden else f" {e.verdict}"
            return Text.assemble(
                (f"Analysis {e.iteration}", "bold"),
                f" · model's confidence {conf} · exact check ",
                mark,
                verdict,
            )

        self._write("experience", analysis)
        if e.repeat_of:
            # Left out, never rewritten: the prompts already carry that entry word for word.
            self._write(
                "experience",
                Text(
                    f"  the same chain and analysis as entry {e.repeat_of}: left out, the "
                    "prompts carry it once",
                    style="dim",
                ),
            )
            return
        lines: list[Text] = []
        if e.entry:
            # Exactly the text the next iteration's prompts carry (issue: what is shown is
            # what the model is told).
            lines.append(Text("  as the next prompts carry it:", style="dim"))
            lines += [Text(f"  {line}") for line in e.entry.splitlines()]
        else:
            lines.append(Text(f"  {e.report}"))
            for i, advice in enumerate(e.advice, 1):
                verdict = e.verdicts[i - 1] if i - 1 < len(e.verdicts) else ""
                if advice or verdict:
                    tag = {
                        "reject": ("reject", tone(self, Tone.WRONG)),
                        "recommend": ("keep", tone(self, Tone.RIGHT)),
                    }.get(verdict, ("", ""))
                    lines.append(Text.assemble(f"  step {i} ", (tag[0], tag[1]), f" {advice}"))
        shown = Group(*lines)
        hidden = Text(f"  {self._hidden}", "dim italic")
        # A chain that checks is the answer, its entry too.
        self._write("experience", lambda: hidden if self.answer_hidden and e.chain_ok else shown)

    def _final(self, e: ev.FinalAnswered) -> None:
        """BoT's final prompt (I^{T+1}, every entry above in it) and the answer it gave."""
        mark = (
            ("✓", tone(self, Tone.RIGHT, "bold")) if e.ok else ("✗", tone(self, Tone.WRONG, "bold"))
        )

        def final() -> Text:
            said = self.answer_text(e.answer) if e.answer else "(no answer)"
            verdict = f" {e.verdict}"
            if self.answer_hidden and e.answer:
                said, verdict = self._hidden, ""  # the verdict may name the answer
            return Text.assemble(
                ("Final prompt", "bold"),
                " (all the experience above) · answer ",
                said,
                " · exact check ",
                mark,
                verdict,
            )

        self._write("experience", final)

    def _transcript(self, event: ev.Event) -> None:
        """ReAct's and DELI's steps, one line or two each, in the order they happened; for
        ReAct combined with CoT-SC, each fallback decision and CoT-SC's vote. Kept, so that
        the transcript is written again when its answers are shown (or hidden)."""
        self.transcript_events.append(event)
        self._write_transcript(event)

    def _rewrite_transcript(self) -> None:
        log = self.query_one("#transcript", RichLog)
        log.clear()
        for event in self.transcript_events:
            self._write_transcript(event)

    @property
    def _hidden(self) -> str:
        """What stands for an answer in the transcript while the player plays."""
        return f"(hidden while you play: {self.peek_key} shows it)"

    def _write_transcript(self, event: ev.Event) -> None:
        """One event of the transcript; while the answer is hidden (no spoilers), the answers
        in it are too: ReAct's finish (its thought says the answer), DELI's stage answers
        and their working, CoT-SC's votes."""
        log = self.query_one("#transcript", RichLog)
        hidden = self.answer_hidden
        match event:
            case ev.ToolCalled(step=step, tool=tool, argument=argument, thought=thought):
                if hidden and tool == FINISH:  # the thought says why; once is enough
                    thought, argument = (self._hidden if thought else ""), "hidden"
                if thought:
                    log.write(_hanging(Text(f"Thought {step}: ", "dim"), thought, "dim"))
                action = f"{tool}[{argument}]" if tool else f"(unreadable) {argument}"
                log.write(_hanging(Text(f"Action {step}: ", "bold"), written(action)))
            case ev.ToolObserved(step=step, observation=seen, status=status):
                style = {
                    "ok": tone(self, Tone.RIGHT),
                    "timeout": tone(self, Tone.WARNING),
                }.get(status, tone(self, Tone.WRONG))
                note = "" if status == "ok" else f" ({status})"
                log.write(_hanging(Text(f"Observation {step}{note}: ", style), written(seen)))
            case ev.EpisodeEnded(by=by, reason=reason):
                if hidden and by == "finish":
                    reason = "finish[hidden]"
                log.write(Text(f"Stopped: {reason}", style="bold"))
            case ev.DeliberationStage() as e:
                check = (
                    ("✓", tone(self, Tone.RIGHT, "bold"))
                    if e.ok
                    else ("✗", tone(self, Tone.WRONG, "bold"))
                )
                moved = "changed" if e.changed else "unchanged"
                said = self.answer_text(e.answer) if e.answer else "(none)"
                verdict = f" {e.verdict}"  # the verdict names the answer ("17 is not 18")
                if hidden and e.answer:
                    said, verdict = self._hidden, ""
                log.write(
                    Text.assemble(
                        (f"Turn {e.turn}/{e.total} · {e.stage}: ", "bold"),
                        f"answer {said} ",
                        check,
                        (f"{verdict} · {moved}", "dim"),
                    )
                )
                if e.text and not (hidden and e.answer):
                    log.write(_indented(e.text[:400], "dim"))
            case ev.DeliberationEnded(reason=reason, source=source):
                log.write(Text(f"Stopped: {reason} (the {source} stage's answer)", style="bold"))
            case ev.DemonstrationsRetrieved(retriever=retriever, ids=ids, scores=scores) as e:
                log.write(
                    Text.assemble(
                        (f"Examples: {len(ids)} of {e.asked} retrieved", "bold"),
                        (f" by {retriever}", "dim"),
                    )
                )
                for name, score, text in zip(ids, scores, e.texts, strict=False):
                    question = text.splitlines()[0].removeprefix("Question: ") if text else ""
                    log.write(_hanging(Text(f"{name} · {score:g}: ", "dim"), question, "dim"))
            case ev.FallbackDecided(target=target, taken=taken, reason=reason):
                other = _label_of(target)
                if taken:
                    log.write(
                        Text.assemble(
                            (f"Fallback to {other}: ", tone(self, Tone.WARNING, "bold")),
                            (reason, tone(self, Tone.WARNING)),
                        )
                    )
                else:
                    log.write(Text.assemble((f"No fallback to {other}: ", "bold"), reason))
            case ev.VotesCounted() as e:
                votes = e.summary()
                if hidden and e.answers:
                    votes = f"{' · '.join(f'×{n}' for n in e.counts)} {self._hidden}"
                log.write(_hanging(Text(f"CoT-SC votes ({e.samples} samples): ", "bold"), votes))
            case _:
                pass

    def _count(self, calls: int, tokens: int, cost: float | None) -> None:
        """This run's totals on top of those of the runs it resumes."""
        calls0, tokens0, cost0 = self.earlier
        self.calls, self.tokens = calls0 + calls, tokens0 + tokens
        self.cost = None if cost is None or cost0 is None else cost0 + cost

    def _finish(self, e: ev.RunFinished) -> None:
        self.finished = e
        self.running = False
        self.streaming.clear()
        self._count(e.calls, e.tokens, e.cost)
        self.elapsed = e.wall_time
        if self.view == "tree" and self.round_name == "step" and self.iteration[1] > 1:
            self._kept_states(self.iteration[0])
        mark = (
            ("✓ solved", tone(self, Tone.RIGHT, "bold"))
            if e.solved
            else ("✗ not solved", tone(self, Tone.WRONG, "bold"))
        )
        # Written again when the answer is shown (or hidden).
        self._write("experience", lambda: Text.assemble(mark, "  ", self.answer_line()))

    def answer_line(self) -> Text:
        """What the solver answered, as the puzzle screen writes it, with the exact check:
        ``answer: (9 - 3) × (8 - 4) = 24 ✓``; a vote adds how many samples gave it."""
        e = self.finished
        if e is None:
            return Text()
        if self.answer_hidden and e.answer:
            return Text.assemble(
                ("answer: ", "bold"),
                (f"hidden while you play ({self.peek_key} shows it)", "dim italic"),
            )
        if not e.answer:
            return Text.assemble(
                ("answer: ", "bold"),
                ("none", tone(self, Tone.WRONG, "bold")),
                f" · {e.verdict}",
            )
        line = Text.assemble(("answer: ", "bold"), f"{self.answer_text(e.answer)} ")
        if e.solved:
            line.append("✓", style=tone(self, Tone.RIGHT, "bold"))
        else:
            line.append(f"✗ {e.verdict}", style=tone(self, Tone.WRONG, "bold"))
        if e.votes:
            samples = self.config.get("samples")
            of = f" of {samples}" if isinstance(samples, int) else ""
            line.append(f" · majority: {e.votes}{of} samples", style="dim")
        return line

    # ---------------------------------------------------------------- status and details

    def tick(self) -> None:
        """Advance the elapsed time (:attr:`ticker` calls it while a run is under way)."""
        if self.running and self.started is not None:
            self.elapsed = time.monotonic() - self.started
            self.refresh_status()

    def refresh_status(self) -> None:
        parts = [self.label, self.model or "-"]
        if self.iteration[1]:
            parts.append(f"{self.round_name} {self.iteration[0]}/{self.iteration[1]}")
        cost = "unknown" if self.cost is None else f"${self.cost:.4f}"
        parts += [
            # The requests made on this puzzle (a resumed run's on top of the stopped one's,
            # so the count never drops); calls its reply cache answered are said beside it.
            f"calls {self.calls}" + (f" (+{self.cached} from cache)" if self.cached else ""),
            f"tokens {self.tokens:,}",
            f"cost {cost}",
            f"{self.elapsed:.1f}s",
        ]
        checks = self.counts
        words = self.checks_title() == "Words" or any(self.words.values())
        if words and not any(checks.values()):  # a crossword's checks are of words
            parts.append(f"words ✓{self.words['fits']} ✗{self.words['conflicts']}")
        else:
            unread = f" ?{checks['invalid']}" if checks["invalid"] else ""  # no verdict, no ✗
            parts.append(f"✓{checks['exact']} ≈{checks['approx']} ✗{checks['wrong']}{unread}")
        line = Text(" · ".join(parts))
        if self.finished is not None:
            done = (
                ("  ✓ solved", tone(self, Tone.RIGHT, "bold"))
                if self.finished.solved
                else ("  ✗ not solved", tone(self, Tone.WRONG, "bold"))
            )
            line.append(*done)
            if self.finished.reason not in ("done",):
                line.append(f" ({self.finished.reason})", style="dim")
            line.append("\n")
            line.append_text(self.answer_line())
        elif self.running:
            line.append("  thinking…", style="italic")
            if self.streaming:
                # The reply streaming in most recently, its last line: redrawn with each
                # batch of events, so at most about 20 times a second.
                purpose, text = next(reversed(self.streaming.values()))
                tail = text.rstrip().rsplit("\n", 1)[-1][-120:]
                if tail and self.answer_hidden and _answers(purpose, tail):
                    tail = self._hidden  # no spoilers: a final answer as it streams in
                if tail:
                    line.append(f"\n{_said(purpose)}: {tail}", style="dim italic")
        elif self.notice == "stopped":
            line.append("  stopped", style=tone(self, Tone.WARNING))
        if self.running and self.pace:
            line.append(f"\n{self.pace}", style="dim italic")
        if self.notice.startswith("replay"):
            line.append(f"\n{self.notice}", style="italic")
        if self.warnings:
            more = f" (and {len(self.warnings) - 1} more)" if len(self.warnings) > 1 else ""
            line.append(f"\n⚠ {self.warnings[-1]}{more}", style=tone(self, Tone.WARNING))
        if self.error:
            line.append(f"\n{self.error}", style=tone(self, Tone.WRONG, "bold"))
        self._show_status(line)

    def _show_status(self, line: Text) -> None:
        """Put ``line`` in the status line (redrawn with every batch of events): the screen is
        laid out again only when the line takes another number of rows than it did."""
        update_in_place(self.query_one("#solver-status", Static), line)

    def show_details(self, node_id: str) -> None:
        """Put everything known about a thought into the Details tab."""
        info = self.nodes.get(node_id)
        if info is None:
            return
        log = self.query_one("#details", RichLog)
        log.clear()
        if self._spoils(info):
            log.write(
                Text(
                    "A thought on the solver's way to the answer: hidden while you play "
                    f"({self.peek_key} shows it).",
                    style="italic",
                )
            )
            self._open_details(log)
            return
        log.write(Text(info.text, style="bold"))
        if info.state:
            log.write(Text(f"{self._state_label()}: {info.state}"))
        if info.score is not None:
            edge = f", edge score {info.edge:g}" if info.edge is not None else ""
            log.write(Text(f"score {info.score:g}{edge}"))
        if info.samples:
            log.write(Text(f"evaluator said: {', '.join(info.samples)}"))
        if info.status:
            log.write(Text(f"{info.status}: {info.reason}"))
        for claim in info.claims:
            log.write(Text(claim))
        log.write(
            Text(
                "The evaluator is the language model: its scores can be wrong.", style="dim italic"
            )
        )
        for title, call_id in (("produced by", info.call_id), ("scored by", info.score_call)):
            call = self.calls_by_id.get(call_id) if call_id is not None else None
            if call is None:
                continue
            log.write(
                Text(
                    f"\n── {title} call {call.call_id} ({call.purpose}, "
                    f"T={call.temperature:g}, top_p={call.top_p:g}) ──",
                    style="bold",
                )
            )
            log.write(Text(call.prompt or "(prompt not recorded)", style="dim"))
            for i, reply in enumerate(call.replies, 1):
                what = dict(call.cut).get(i - 1)
                log.write(Text(f"── reply {i}{f' ({what})' if what else ''} ──", style="bold"))
                log.write(Text(reply))
        self._open_details(log)

    def _open_details(self, log: RichLog) -> None:
        """Show the Details tab from its top (the summary, before the long prompts)."""
        log.scroll_home(animate=False, immediate=True)
        self.query_one("#solver-tabs", TabbedContent).active = "tab-details"

    def show_turn(self, card: TurnCard) -> None:
        """Put a dialogue turn's prompts and replies into the Details tab."""
        turn = card.turn
        log = self.query_one("#details", RichLog)
        log.clear()
        log.write(Text(f"Turn {turn.turn}", style="bold"))
        who = "no guide: " if turn.phase == "first" else "guide: "
        log.write(Text.assemble((who, "bold"), turn.guidance))
        answered = turn.answered
        if answered is not None:
            log.write(Text.assemble(("answer: ", "bold"), answered.reply))
            if answered.answer:
                mark = "✓" if answered.ok else f"✗ {answered.verdict}"
                log.write(Text(f"candidate {self.answer_text(answered.answer)} {mark}"))
        calls = [
            ("guide", turn.guide_call),
            ("answer", answered.call_id if answered is not None else None),
        ]
        for title, call_id in calls:
            call = self.calls_by_id.get(call_id) if call_id is not None else None
            if call is None:
                continue
            log.write(Text(f"\n── {title} call {call.call_id} ({call.purpose}) ──", style="bold"))
            log.write(Text(call.prompt or "(prompt not recorded)", style="dim"))
            for i, reply in enumerate(call.replies, 1):
                log.write(Text(f"── reply {i} ──", style="bold"))
                log.write(Text(reply))
        self._open_details(log)

    def on_turn_card_selected(self, message: TurnCard.Selected) -> None:
        self.show_turn(message.card)

    def on_tree_node_selected(self, message: Tree.NodeSelected[str]) -> None:
        node_id = message.node.data
        if node_id and node_id in self.nodes:
            self.show_details(node_id)


_ERROR_TITLES = {
    "unreachable": "server unreachable",
    "unknown_model": "unknown model",
    "rate_limited": "rate limited",
    "auth": "not authorised",
    "timeout": "server timed out",
    "too_large": "reply too large",
    "bad_url": "bad base URL",
    "deadline": "deadline passed",
    "internal": "internal error",
    "retrying": "retrying",
    "budget": "out of calls",
    "unsupported": "method not available here",
    "not_recorded": "not in the recording",
    "bad_recording": "recording unusable",
}


FINAL_ANSWERS = frozenset({Purpose.IO, Purpose.COT, Purpose.ANSWER, Purpose.BOT_FINAL})
"""Calls whose reply is the method's answer: hidden as they stream while the player plays."""


def _said(purpose: str) -> str:
    """A call's purpose in a player's words (a trace's name, bot_step, means nothing to a
    player); a name this version does not know, as it is."""
    try:
        return Purpose(purpose).said
    except ValueError:
        return purpose


def _answers(purpose: str, tail: str) -> bool:
    """Whether a streaming reply's last line gives an answer away: a call that answers, or a
    line that states an answer or ReAct's finish."""
    said = tail.lower()
    return purpose in FINAL_ANSWERS or "answer" in said or "finish[" in said


def _states_answer(text: str) -> bool:
    """Whether a thought states an answer (``Answer: 50``), as a CoT sample's last does."""
    return text.lstrip(" *#-").lower().startswith("answer")


def _group_label(tree_id: str) -> str:
    last = tree_id.rsplit(".", 1)[-1]
    if last in METHODS:  # one search tree for the whole run, named after its method
        return METHODS[last].title
    prefix, number = last[:1], last[1:]
    if prefix in _GROUP_NAMES and number.isdigit():
        return f"{_GROUP_NAMES[prefix]} {number}"
    return last


_BARE_NUMBER = re.compile(r"[-+−]?[$€£¥₹]?\s*(?:\d[\d,]*(?:\.\d*)?|\.\d+)\s*%?")
"""A number as written, with its sign, currency, thousands separators or percent sign."""


def _number(text: str) -> Fraction | None:
    """The value of ``text`` when it is a bare number, else None."""
    text = text.strip().rstrip(".").strip()
    if not _BARE_NUMBER.fullmatch(text):
        return None
    plain = text.replace(",", "").replace("%", "").replace("−", "-").replace(" ", "")
    plain = re.sub(r"[$€£¥₹]", "", plain)
    try:
        value = parse(plain).value
    except (ArithError, ValueError, ZeroDivisionError):
        return None
    return value if isinstance(value, Fraction) else Fraction(value)


def restates(expression: str, claimed: str) -> bool:
    """Whether a claim only says a value again: its left side the same text as its right
    (``x = 2 = x = 2``), or a bare number equal to it (``9600 = 9600``, ``$9,600 = 9600``).
    Such a line computes nothing, so it is not listed or counted as checked arithmetic;
    ``9600 / 2 = 4800`` and ``9600 = 9601`` still are."""
    if " ".join(expression.split()) == " ".join(claimed.split()):
        return True
    left = _number(expression)
    return left is not None and left == _number(claimed)
