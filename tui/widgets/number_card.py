"""A Game of 24 card: its number, and the expression that made it."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

__all__ = ["NumberCard", "fit", "shown"]


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` cells with an ellipsis."""
    return text if cell_len(text) <= room else text[: max(0, room - 1)] + "…"


def shown(arithmetic: str) -> str:
    """Operators as people write them; a fraction such as 8/3 keeps its slash."""
    return arithmetic.replace(" * ", " × ").replace(" / ", " ÷ ")


class NumberCard(Static):
    """One number on the table; its key, value and the expression that made it."""

    selected: reactive[bool] = reactive(False)
    value: reactive[str] = reactive("")
    """The number, as the card shows it (``8/3``); the card is drawn again when it changes."""
    expression: reactive[str] = reactive("")
    """The expression that made the number (the number itself for a dealt card)."""

    class Picked(Message):
        """The card was clicked: the game picks it as if its key was pressed."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(classes="card", id=f"card-{index}")
        self.index = index

    def show(self, value: str, expression: str) -> None:
        self.value, self.expression = value, expression
        self.display = True

    def render(self) -> Text:
        """Key, value and the expression that made it, each cut to the card's width (a
        chosen card's whole expression shows on the line under the cards)."""
        room = max(1, self.content_size.width)
        text = Text(justify="center", no_wrap=True, overflow="ellipsis")
        text.append(f"{self.index + 1}\n", style="dim")
        text.append(fit(self.value, room), style="bold")
        if self.expression and self.expression != self.value:
            text.append(f"\n{fit(shown(self.expression), room)}", style="dim")
        return text

    def watch_selected(self, selected: bool) -> None:
        self.set_class(selected, "-selected")

    def on_click(self) -> None:
        self.post_message(self.Picked(self.index))
