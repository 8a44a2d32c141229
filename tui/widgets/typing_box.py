"""A game's text box, which gives the keys back to the game on escape."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input

from tui.widgets.grows import GrowsInPlace


class TypingBox(GrowsInPlace, Input):
    """A game's text box. While it has focus, escape gives the keys back to the game (a
    second escape goes home), and the footer says so rather than "esc Home". A key typed
    repaints the box without laying out the screen again
    (:class:`~tui.widgets.grows.GrowsInPlace`)."""

    BINDINGS = [Binding("escape", "leave_box", "Leave box", id="box.leave")]

    def action_leave_box(self) -> None:
        self.screen.set_focus(None)
