"""Dialogs: every key binding, all solutions of a hand, and the solver's method options."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static, Switch

from puzzles.game24 import Hand
from solver.methods import METHODS, MethodSpec, find_spec
from solver.methods.spec import OptionInfo

__all__ = ["HelpScreen", "LegendScreen", "MethodDialog", "SolutionsDialog", "legend_rows"]
from tui.notation import written
from tui.widgets.tones import Tone, tone

KEY_COLUMN = 16
"""Columns the help gives the keys (right-aligned) and the gap after them."""


class HelpScreen(ModalScreen[None]):
    """Every key binding of the screen underneath and of the app."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str]], title: str, notes: str = "") -> None:
        super().__init__(classes="dialog")
        self.rows = rows
        self.title_text = title
        self.notes = notes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="help-box"):
            yield Label(f"Keys · {self.title_text}", classes="dialog-title")
            # A description too long for its line goes on under itself, not under the keys:
            # the room is the box's (70 columns, at most 95% of the screen) less its border,
            # padding and scrollbar, and the keys' column.
            box = min(70, self.app.size.width * 95 // 100)
            room = max(20, box - 2 - 4 - 2 - KEY_COLUMN)
            text = Text()
            for key, description in self.rows:
                text.append(f"{key:>{KEY_COLUMN - 2}}  ", style="bold")
                lines = textwrap.wrap(description, room) or [""]
                text.append(("\n" + " " * KEY_COLUMN).join(lines) + "\n")
            if self.notes:
                text.append(f"\n{self.notes}\n", style="italic")
            # Long lists scroll (the box keeps its border and the line below on screen).
            with VerticalScroll(id="help-scroll", can_focus=True):
                yield Static(text, id="help-keys")
            yield Static(
                Text("Press escape to close. ctrl+p opens the command palette.", style="dim")
            )

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


LEGEND = (
    ("The tree", ""),
    ("thought", "one step the model proposed: two numbers combined, and what is left"),
    ("★", "the step reaches the target; its score is shown beside it"),
    ("✗", "its arithmetic is wrong (checked exactly), or the step is not allowed"),
    ("◆", "on the chain BoT aggregated from this iteration's trees"),
    ("struck out", "pruned: the search dropped it"),
    ("italics", "a leaf: the search grows nothing more from it"),
    (
        "(hidden)",
        "a thought on the solver's way to its answer, or stating it, hidden while you play: "
        "the status line names the key that shows it; solving or giving up shows it too",
    ),
    ("Scores", ""),
    ("node score", "[0.8]: the model's value of the numbers left (can 24 still be made?)"),
    ("edge score", "[edge 0.6]: BoT's value of the step itself, given the state before it"),
    ("s/l/i", "ToT's value labels, one letter per evaluation: sure, likely, impossible"),
    ("The search", ""),
    ("layer-wise", "a BoT tree grows every thought of a layer before the next layer"),
    ("leaf-wise", "a BoT tree grows its best leaf first"),
    ("T, top_p", "sampling temperature and nucleus p of a tree: higher, more varied thoughts"),
    (
        "iteration",
        "BoT: trees grow, their best chains are joined into one, the model "
        "analyses it, and that advice goes into the next iteration's prompts",
    ),
    ("step", "ToT: one more operation on each kept state"),
    ("The dialogue", ""),
    ("guide", "a method that talks to itself (IoT): the prompt its guide wrote for the turn"),
    (
        "■ stop",
        "the guide judged the answer good enough: its advice; only the answerer's own "
        "'final' ends the dialogue",
    ),
    ("no guide", "the answerer's own first answer, before any guidance (the paper's order)"),
    ("answer", "the reply, its stated uncertainty and its candidate answer"),
    ("changed", "the candidate answer differs from the last turn's"),
    ("The status line", ""),
    (
        "✓ ≈ ✗ ?",
        "arithmetic claims checked exactly: right, right after rounding, wrong, unreadable",
    ),
    ("words ✓ ✗", "crosswords: a word checked against its slot and crossing letters"),
    ("calls, tokens", "model calls made and tokens they used (cost from the prices set)"),
    ("thinking…", "under it, the last line of a reply still streaming in"),
    ("Rounds tab", "chain score and exact check (✓ 1, ✗ 0) of each iteration or turn"),
)
"""What the solver pane's marks and words mean, term by term."""


KIND_LEGEND: dict[str, dict[str, str | None]] = {
    "crossword": {
        "thought": "one word the model wrote in: its clue (h2. is 2 across, v3. is 3 down) "
        "and the word",
        "★": "the board it leaves is the solution",
        "✗": "the word does not fit its squares or the letters crossing them",
        "node score": "[0.8]: the model's value of the board so far (can it still be filled?)",
    },
    "wordproblem": {
        "thought": "one step of working the model proposed, and the value it found",
        "★": "the step the solver's answer came from",
        "node score": "[0.8]: the model's value of the working so far (does it lead to the "
        "answer?)",
    },
}
"""Where a kind's thoughts differ from a Game of 24's (:data:`LEGEND`): its words for them
(None: the term does not apply to the kind)."""


def legend_rows(kind: str = "game24") -> list[tuple[str, str]]:
    """The legend's terms and meanings, as the thoughts of ``kind`` show them."""
    changes = KIND_LEGEND.get(kind, {})
    rows: list[tuple[str, str]] = []
    for term, meaning in LEGEND:
        if term in changes:
            changed = changes[term]
            if changed is None:
                continue
            meaning = changed
        rows.append((term, meaning))
    return rows


class LegendScreen(ModalScreen[None]):
    """The solver pane's marks, scores and words, explained for the kind of puzzle in front
    (``kind``: a Game of 24's thoughts combine numbers, a crossword's write words)."""

    BINDINGS = [Binding("escape,l,q,question_mark", "dismiss", "Close", id="legend.close")]

    def __init__(self, kind: str = "game24") -> None:
        super().__init__(classes="dialog")
        self.rows = legend_rows(kind)

    def compose(self) -> ComposeResult:
        # A grid, so a meaning that wraps hangs under its own column, not under the term.
        text = Table.grid(padding=(0, 2))
        text.add_column(justify="right", no_wrap=True, style="bold")
        text.add_column(ratio=1)
        for term, meaning in self.rows:
            if not meaning:
                text.add_row(Text(term, style="bold underline"), "")
                continue
            text.add_row(Text(term), Text(meaning))  # plain text: "[edge 0.6]" is no markup
        with Vertical(classes="dialog-box", id="legend-box"):
            yield Label("What the solver pane shows", classes="dialog-title")
            with VerticalScroll(id="legend-scroll", can_focus=True):
                yield Static(text, id="legend")
            yield Static(Text("Press escape to close.", style="dim"))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


class SolutionsDialog(ModalScreen[bool]):
    """Every distinct solution of a hand, from the exact solver. It answers True when the
    player asks for a new hand from it (n, as the message under it offers)."""

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="solutions.close"),
        Binding("n", "new", "New hand", id="solutions.new"),
    ]

    def __init__(self, hand: Hand, solutions: list[str]) -> None:
        super().__init__(classes="dialog")
        self.hand = hand
        self.solutions = solutions

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            count = len(self.solutions)
            title = (
                f"{self.hand}: {count} solution{'s' * (count != 1)}"
                if count
                else f"{self.hand} has no solution"
            )
            yield Label(title, classes="dialog-title")
            with VerticalScroll():
                yield Static(
                    "\n".join(f"{written(s)} = {self.hand.target}" for s in self.solutions)
                    or "No way to make the target with these numbers.",
                    id="solutions",
                )
            yield Static(Text("n: a new hand · esc: close", style="dim"))
            yield Button("Close", id="close", variant="primary")

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(False)

    def action_new(self) -> None:
        self.dismiss(True)


FIELDS_NOTE = "Tab to a field for its meaning, bounds and paper value."


class MethodDialog(ModalScreen[dict[str, Any] | None]):
    """Choose the solver's method and the options the app offers for it.

    Everything here comes from the method catalogue: the methods in its order, each one's
    description, and only the chosen method's options marked for the app, with their types,
    choices and bounds. Values typed for one method are kept while another is looked at.
    The result is ``{"method": name, "options": {...}}``: the options given, with the chosen
    method's replaced by the values checked here."""

    AUTO_FOCUS = "#method"

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="method.cancel")]

    def __init__(
        self, method: str, options: dict[str, Any], roles: frozenset[str] | None = None
    ) -> None:
        super().__init__(classes="dialog")
        # Only the methods the puzzle's domain has every role for (``roles``: the domain's).
        self.specs = [s for s in METHODS.values() if roles is None or s.roles <= roles]
        if not self.specs:
            self.specs = list(METHODS.values())
        names = [s.name for s in self.specs]
        try:
            self.method = find_spec(method).name
        except ValueError:
            self.method = names[0]
        if self.method not in names:
            self.method = names[0]
        self.options = dict(options)
        self._error_field: str | None = None
        """The field the error line is about, while there is one."""

    def compose(self) -> ComposeResult:
        # Compact fields, so the title, every field and the buttons fit in 80x24.
        with Vertical(classes="dialog-box", id="method-box"):
            yield Label("Solver method", classes="dialog-title")
            yield Select(
                [(f"{s.label} · {s.title}", s.name) for s in self.specs],
                value=self.method,
                allow_blank=False,
                id="method",
                compact=True,
            )
            yield Static(METHODS[self.method].description, id="method-note")
            # Every method's fields, each method's in its own group; only the chosen
            # method's group shows.
            for spec in self.specs:
                with Vertical(id=f"options-{spec.name}", classes="method-options"):
                    shown = [o for o in spec.options() if o.option.app]
                    for opt in shown:
                        with Horizontal(classes="field compact"):
                            yield Label(opt.name.replace("_", " "), classes="field-label")
                            yield self._field(spec, opt)
                    if not shown:
                        yield Static(
                            "Nothing to set here; the command line has every option.",
                            classes="no-options",
                        )
            yield Static(id="option-help")
            yield Static(id="method-error")
            with Horizontal(classes="buttons"):
                yield Button("Use", id="use", variant="primary")
                yield Button("Cancel", id="cancel")

    def _field(self, spec: MethodSpec, opt: OptionInfo) -> Widget:
        """The input for one option, by its type: a switch, a list of choices, a box."""
        value = self.options.get(opt.name, opt.default)
        field_id = _field_id(spec, opt)
        widget: Widget
        if opt.type is bool:
            widget = Switch(value=bool(value), id=field_id)
        elif opt.option.choices:
            choices = [(c.replace("_", "-"), c) for c in opt.option.choices]
            start = value if value in opt.option.choices else opt.default
            widget = Select(choices, value=start, allow_blank=False, id=field_id, compact=True)
        else:
            kind = {int: "integer", float: "number"}.get(opt.type, "text")
            widget = Input(str(value), id=field_id, type=kind, compact=True)  # type: ignore[arg-type]
        widget.tooltip = _help(opt)
        return widget

    def on_mount(self) -> None:
        self._show(self.method)

    def _show(self, method: str) -> None:
        self.method = method
        for spec in self.specs:
            self.query_one(f"#options-{spec.name}").display = spec.name == method
        self.query_one("#method-note", Static).update(METHODS[method].description)
        self._say_error("")
        self.query_one("#option-help", Static).update(self._fields_note())

    def _say_error(self, message: str, field: str | None = None) -> None:
        """Say what is wrong with ``field`` (an empty message clears it)."""
        self._error_field = field if message else None
        self.query_one("#method-error", Static).update(Text(message, style=tone(self, Tone.WRONG)))

    def _fields_note(self) -> str:
        """The note under the fields: how to learn about them, where there are any."""
        return FIELDS_NOTE if any(o.option.app for o in METHODS[self.method].options()) else ""

    @on(Input.Changed)
    @on(Switch.Changed)
    @on(Select.Changed)
    def _field_changed(self, event: Input.Changed | Switch.Changed | Select.Changed) -> None:
        """An error said about a field goes once that field holds a value that passes."""
        if event.control.id != self._error_field:
            return
        spec = METHODS[self.method]
        for opt in spec.options():
            if event.control.id == _field_id(spec, opt):
                raw = event.value.strip() if isinstance(event.value, str) else event.value
                try:
                    opt.check(raw)
                except ValueError:
                    return
                self._say_error("")
                return

    @on(Select.Changed, "#method")
    def _method_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in {s.name for s in self.specs}:
            self._show(event.value)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused option's help and bounds, on the line under the fields."""
        spec = METHODS[self.method]
        for opt in spec.options():
            if event.widget.id == _field_id(spec, opt):
                self.query_one("#option-help", Static).update(_help(opt))
                return
        self.query_one("#option-help", Static).update(self._fields_note())

    @on(Button.Pressed, "#use")
    @on(Input.Submitted)
    def use(self) -> None:
        """Use the method with its fields (the Use button, or enter in a field)."""
        spec = METHODS[self.method]
        checked: dict[str, Any] = {}
        for opt in spec.options():
            if not opt.option.app:
                continue
            widget = self.query_one(f"#{_field_id(spec, opt)}")
            raw: Any
            if isinstance(widget, Switch | Select):
                raw = widget.value
            else:
                assert isinstance(widget, Input)
                raw = widget.value.strip()
            try:
                checked[opt.name] = opt.check(raw)
            except ValueError as exc:
                self._say_error(str(exc), widget.id)
                widget.focus()
                return
        self.dismiss({"method": spec.name, "options": {**self.options, **checked}})

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def _field_id(spec: MethodSpec, opt: OptionInfo) -> str:
    """``bot-trees``: one id per method and option (methods share option names)."""
    return f"{spec.name}-{opt.name.replace('_', '-')}"


def _help(opt: OptionInfo) -> str:
    """``thought trees per iteration (1 to 10000; paper: 15)``."""
    low, high = opt.option.low, opt.option.high
    bounds = f"{low:g} to {high:g}; " if low is not None and high is not None else ""
    return f"{opt.help} ({bounds}paper: {opt.default})"
