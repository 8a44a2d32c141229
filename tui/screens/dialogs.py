"""Dialogs: every key binding, all solutions of a hand, and the solver's method options."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from puzzles.game24 import Hand

__all__ = ["HelpScreen", "LegendScreen", "MethodDialog", "SolutionsDialog"]


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
            text = Text()
            for key, description in self.rows:
                text.append(f"{key:>14}  ", style="bold")
                text.append(f"{description}\n")
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
    ("The status line", ""),
    ("✓ ≈ ✗", "arithmetic claims checked exactly: right, right after rounding, wrong"),
    ("calls, tokens", "model calls made and tokens they used (cost from the prices set)"),
)
"""What the solver pane's marks and words mean, term by term."""


class LegendScreen(ModalScreen[None]):
    """The solver pane's marks, scores and words, explained."""

    BINDINGS = [Binding("escape,l,q,question_mark", "dismiss", "Close", id="legend.close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        text = Text()
        for term, meaning in LEGEND:
            if not meaning:
                text.append(f"{term}\n", style="bold underline")
                continue
            text.append(f"{term:>12}  ", style="bold")
            text.append(f"{meaning}\n")
        with Vertical(classes="dialog-box", id="legend-box"):
            yield Label("What the solver pane shows", classes="dialog-title")
            with VerticalScroll(id="legend-scroll", can_focus=True):
                yield Static(text, id="legend")
            yield Static(Text("Press escape to close.", style="dim"))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


class SolutionsDialog(ModalScreen[None]):
    """Every distinct solution of a hand, from the exact solver."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="solutions.close")]

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
                    "\n".join(f"{s} = {self.hand.target}" for s in self.solutions)
                    or "No way to make the target with these numbers.",
                    id="solutions",
                )
            yield Button("Close", id="close", variant="primary")

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(None)


_METHODS = [
    ("BoT · Boosting of Thoughts", "bot"),
    ("ToT · Tree of Thoughts (BFS)", "tot"),
    ("CoT-SC · self-consistency", "cot-sc"),
    ("CoT · chain of thought", "cot"),
    ("IO · direct answer", "io"),
]

METHOD_NOTES = {
    "bot": "Grows many small trees of steps, joins the best chain, learns from its mistakes, "
    "and repeats.",
    "tot": "Keeps the best few states at each step, as rated by the model, breadth first.",
    "cot-sc": "Writes many step-by-step solutions and answers with the most common one.",
    "cot": "Writes one step-by-step solution.",
    "io": "Answers at once, from a few worked examples, with no steps.",
}
"""One line per method, shown under its name in the dialog."""

_DEFAULTS = {"breadth": 5, "trees": 15, "iterations": 10}


class MethodDialog(ModalScreen[dict[str, Any] | None]):
    """Choose the solver's method and its main parameters."""

    AUTO_FOCUS = "#method"

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="method.cancel")]

    def __init__(self, method: str, options: dict[str, Any]) -> None:
        super().__init__(classes="dialog")
        self.method = method
        self.options = dict(options)

    def compose(self) -> ComposeResult:
        o = self.options
        # Compact fields, so the title, every field and the buttons fit in 80x24.
        with Vertical(classes="dialog-box", id="method-box"):
            yield Label("Solver method", classes="dialog-title")
            yield Select(_METHODS, value=self.method, allow_blank=False, id="method", compact=True)
            yield Static(METHOD_NOTES.get(self.method, ""), id="method-note")
            for name, label in (
                ("breadth", "ToT breadth"),
                ("trees", "BoT trees"),
                ("iterations", "BoT iterations"),
            ):
                with Horizontal(classes="field compact"):
                    yield Label(label, classes="field-label")
                    yield Input(
                        str(o.get(name, _DEFAULTS[name])), id=name, type="integer", compact=True
                    )
            with Horizontal(classes="field compact"):
                yield Label("BoT aggregation", classes="field-label")
                yield Select(
                    [("best-first", "best_first"), ("greedy", "greedy")],
                    value=o.get("aggregation", "best_first"),
                    allow_blank=False,
                    id="aggregation",
                    compact=True,
                )
            with Horizontal(classes="field compact"):
                yield Label("CoT-SC samples", classes="field-label")
                yield Input(str(o.get("samples", 100)), id="samples", type="integer", compact=True)
            yield Static(id="method-error")
            with Horizontal(classes="buttons"):
                yield Button("Use", id="use", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Select.Changed, "#method")
    def _method_changed(self, event: Select.Changed) -> None:
        self.query_one("#method-note", Static).update(METHOD_NOTES.get(str(event.value), ""))

    @on(Button.Pressed, "#use")
    def use(self) -> None:
        options: dict[str, Any] = {}
        for name, low, high in (
            ("breadth", 1, 20),
            ("trees", 1, 50),
            ("iterations", 1, 50),
            ("samples", 1, 500),
        ):
            raw = self.query_one(f"#{name}", Input).value.strip()
            try:
                value = int(raw)
            except ValueError:
                value = -1
            if not low <= value <= high:
                self.query_one("#method-error", Static).update(
                    Text(f"{name} must be a whole number from {low} to {high}", style="red")
                )
                return
            options[name] = value
        options["aggregation"] = self.query_one("#aggregation", Select).value
        self.dismiss({"method": self.query_one("#method", Select).value, "options": options})

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
