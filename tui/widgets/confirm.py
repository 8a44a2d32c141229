"""A question with two answers, asked over the screen: y or enter for the first, n or escape
for the second."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["ConfirmDialog"]


class ConfirmDialog(ModalScreen[bool]):
    """``title`` and what it means, then the keys: True for y / enter, False for n / esc."""

    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; }
    ConfirmDialog > Static {
        width: 52; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    """
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, body: str, yes: str, no: str) -> None:
        super().__init__()
        self.title_text, self.body, self.yes, self.no = title, body, yes, no

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(
                (f"{self.title_text}\n", "bold"),
                f"{self.body}\n\n",
                ("y", "bold"),
                f" / enter: {self.yes}    ",
                ("n", "bold"),
                f" / esc: {self.no}",
            )
        )

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
