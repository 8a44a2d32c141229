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

__all__ = ["HelpScreen", "MethodDialog", "SolutionsDialog"]


class HelpScreen(ModalScreen[None]):
    """Every key binding of the screen underneath and of the app."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str]], title: str) -> None:
        super().__init__(classes="dialog")
        self.rows = rows
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(f"Keys · {self.title_text}", classes="dialog-title")
            text = Text()
            for key, description in self.rows:
                text.append(f"{key:>14}  ", style="bold")
                text.append(f"{description}\n")
            with VerticalScroll():
                yield Static(text, id="help-keys")
            yield Static(
                Text("Press escape to close. ctrl+p opens the command palette.", style="dim")
            )

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
        with VerticalScroll(classes="dialog-box"):
            yield Label("Solver method", classes="dialog-title")
            yield Select(_METHODS, value=self.method, allow_blank=False, id="method")
            with Horizontal(classes="field"):
                yield Label("ToT breadth", classes="field-label")
                yield Input(str(o.get("breadth", 5)), id="breadth", type="integer")
            with Horizontal(classes="field"):
                yield Label("BoT trees", classes="field-label")
                yield Input(str(o.get("trees", 15)), id="trees", type="integer")
            with Horizontal(classes="field"):
                yield Label("BoT iterations", classes="field-label")
                yield Input(str(o.get("iterations", 10)), id="iterations", type="integer")
            with Horizontal(classes="field"):
                yield Label("BoT aggregation", classes="field-label")
                yield Select(
                    [("best-first", "best_first"), ("greedy", "greedy")],
                    value=o.get("aggregation", "best_first"),
                    allow_blank=False,
                    id="aggregation",
                )
            with Horizontal(classes="field"):
                yield Label("CoT-SC samples", classes="field-label")
                yield Input(str(o.get("samples", 100)), id="samples", type="integer")
            yield Static(id="method-error")
            with Horizontal(classes="buttons"):
                yield Button("Use", id="use", variant="primary")
                yield Button("Cancel", id="cancel")

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
