"""Home's seed box, its box for a puzzle of one's own, and its list of puzzle kinds."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.widgets import (
    Input,
    OptionList,
)


class SeedInput(Input):
    """The Seed box. It takes only what a whole number is written with, so the screen's
    keys (``p`` to play) still work while it has focus."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and (character.isdigit() or character == "-")

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not self.check_consume_key(event.key, event.character):
            # Not part of a number: the screen's key (p plays), as its footer says.
            event.prevent_default()
            event.stop()
            active = self.screen.active_bindings.get(event.key)
            if active is not None and active.enabled:
                await self.app.run_action(active.binding.action, active.node)


class HintInput(Input):
    """A box whose placeholder fits its width: the whole hint where it fits, else the
    shortest of its ", or " alternatives that does (``1 2 3 4 5 -> 10`` of ``4 7 8 8, or
    1 2 3 4 5 -> 10`` at 80 columns); the whole hint is its tooltip."""

    hint = ""

    def show_hint(self, hint: str) -> None:
        self.hint = hint
        self.tooltip = hint or None
        self.fit_hint()

    def on_resize(self) -> None:
        self.fit_hint()

    def fit_hint(self) -> None:
        room = self.content_size.width - 1  # the cursor's cell after it
        if room <= 0:  # not laid out yet: the next resize fits it
            self.placeholder = self.hint
            return
        choices = [self.hint, *reversed(self.hint.split(", or "))]
        self.placeholder = next((c for c in choices if len(c) <= room), min(choices, key=len))


class KindList(OptionList):
    """The puzzle kinds. Enter plays the highlighted kind, as the screen's enter does; the
    list has focus from the start so the arrows pick a kind."""

    BINDINGS = [Binding("enter", "play", "Play")]

    async def action_play(self) -> None:
        await self.run_action("screen.play")
