"""The dialogue of a method that reasons by talking to itself (``view == "dialogue"``, such as
Iteration of Thought): one card per turn, the guide's prompt beside the answer it got.

Like the thought tree, it is drawn from the event stream only (``TurnGuided``,
``TurnAnswered``, ``DialogueStopped``), so live runs and replays look the same. Text arrives
already made visible by the pane.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from solver import events as ev
from tui.widgets.tones import Tone, tone

__all__ = ["DialogueView", "Turn", "TurnCard", "shortened"]

REPLY_SHOWN = 240
"""Characters of a reply shown on its card; the whole reply is in the Details tab."""
GUIDANCE_SHOWN = 200

STOPPED_BY = {
    "guide": "the guide said the answer was good enough",  # only in traces from before
    "answerer": "the answerer called its answer final",
    "cap": "it reached the most turns allowed",
    "fixed": "it ran its fixed number of turns",
}
"""Who ended a dialogue (``DialogueStopped.by``), in words."""


@dataclass
class Turn:
    """One turn of the dialogue as far as it has come."""

    turn: int
    total: int = 0
    guidance: str = ""
    stop: bool = False
    phase: str = "discuss"
    guide_call: int | None = None
    answered: ev.TurnAnswered | None = None


def shortened(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word near ``limit`` with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] or flat[:limit]
    return cut + " …"


class TurnCard(Static):
    """One turn: the guide's prompt and its stop flag, then the reply, its stated uncertainty,
    its candidate answer with the exact check, whether it changed, and the prompt's size."""

    DEFAULT_CSS = """
    TurnCard { height: auto; padding: 0 1; margin-bottom: 1; }
    TurnCard.-right { border-left: outer $success; }
    TurnCard.-wrong { border-left: outer $error; }
    TurnCard:hover { background: $boost; }
    """

    class Selected(Message):
        """A turn was clicked: its prompts and replies are wanted."""

        def __init__(self, card: TurnCard) -> None:
            super().__init__()
            self.card = card

    def __init__(
        self,
        turn: Turn,
        answer_text: Callable[[str], str],
        hidden: Callable[[], str] = str,
    ) -> None:
        super().__init__(classes="turn")
        self.turn = turn
        self.answer_text = answer_text
        self.hidden = hidden
        """What stands for the answers while they are hidden from the player (no spoilers);
        empty when they show."""

    def on_mount(self) -> None:
        self.redraw()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())

    def on_click(self) -> None:
        self.post_message(self.Selected(self))

    def redraw(self) -> None:
        self.update(self.render_turn())
        answered = self.turn.answered
        self.set_class(answered is not None and answered.ok, "-right")
        self.set_class(
            answered is not None and answered.answer is not None and not answered.ok, "-wrong"
        )

    def render_turn(self) -> Text:
        t = self.turn
        text = Text()
        of = f"/{t.total}" if t.total else ""
        if t.phase == "final" and t.total and t.turn > t.total:  # a trace from before: 2N + 1
            text.append(f"Closing turn (after {t.total})", style="bold")
        else:
            text.append(f"Turn {t.turn}{of}", style="bold")
        if t.phase == "final" and t.turn <= t.total:  # GIoT's N-th answer after the guide began
            text.append(" · final answer", style="bold")
        elif t.phase == "first":  # the answerer's own answer before any guidance
            text.append(" · first answer, unguided", style="bold")
        answered = t.answered
        if answered is not None and answered.prompt_tokens:
            text.append(f" · {answered.prompt_tokens:,} prompt tokens", style="dim")
        text.append("\n")
        if t.phase == "first":
            text.append("no guide ", style=tone(self, Tone.PART, "bold"))
            text.append("the answerer answers on its own", style="dim")
        else:
            text.append("guide ", style=tone(self, Tone.PART, "bold"))
            text.append(shortened(t.guidance, GUIDANCE_SHOWN) or "…")
        if t.phase == "discuss":
            text.append("  ")
            if t.stop:
                text.append("■ stop", style=tone(self, Tone.WARNING, "bold"))
            else:
                text.append("go on", style="dim")
        text.append("\n")
        if answered is None:
            text.append("answer ", style=tone(self, Tone.SECOND, "bold"))
            text.append("thinking…", style="italic dim")
            return text
        hidden = self.hidden() if answered.answer else ""
        text.append("answer ", style=tone(self, Tone.SECOND, "bold"))
        # The reply states its candidate answer: hidden with it.
        text.append(
            hidden or shortened(answered.reply, REPLY_SHOWN), style="italic dim" if hidden else ""
        )
        text.append("\n  ")
        uncertainty = answered.uncertainty.strip() or "not stated"
        text.append("uncertainty ", style="dim")
        text.append(shortened(uncertainty, 40))
        text.append(" · ", style="dim")
        if answered.answer:
            text.append("candidate ", style="dim")
            text.append(
                hidden or self.answer_text(answered.answer), style="italic dim" if hidden else ""
            )
            if answered.ok:
                text.append(" ✓", style=tone(self, Tone.RIGHT, "bold"))
            elif hidden:  # the verdict names the answer
                text.append(" ✗", style=tone(self, Tone.WRONG, "bold"))
            else:
                text.append(f" ✗ {answered.verdict}", style=tone(self, Tone.WRONG, "bold"))
        else:
            text.append("no candidate answer", style="dim")
        text.append(" · ", style="dim")
        text.append("changed" if answered.changed else "unchanged", style="dim")
        if answered.final:
            text.append(" · said final", style="bold")
        return text


class DialogueView(VerticalScroll):
    """The whole dialogue: turn cards in order, then why it stopped."""

    DEFAULT_CSS = """
    DialogueView { height: 3fr; min-height: 5; }
    DialogueView .dialogue-stop { height: auto; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turns: dict[int, Turn] = {}
        self.stopped: ev.DialogueStopped | None = None
        self.answer_text: Callable[[str], str] = str
        self.hidden: Callable[[], str] = str
        """What stands for the answers while they are hidden (the pane's); empty: shown."""
        self._cards: dict[int, TurnCard] = {}

    def redraw(self) -> None:
        """Draw every turn again (its answers shown or hidden)."""
        for card in self._cards.values():
            card.redraw()

    def clear(self) -> None:
        self.turns.clear()
        self._cards.clear()
        self.stopped = None
        self.remove_children()

    def guided(self, e: ev.TurnGuided) -> None:
        turn = self.turns.get(e.turn)
        if turn is None:
            turn = self.turns[e.turn] = Turn(e.turn)
        turn.total, turn.guidance, turn.stop = e.total, e.guidance, e.stop
        turn.phase, turn.guide_call = e.phase, e.call_id
        self._show(turn)

    def answered(self, e: ev.TurnAnswered) -> None:
        turn = self.turns.get(e.turn)
        if turn is None:
            turn = self.turns[e.turn] = Turn(e.turn)
        turn.answered = e
        self._show(turn)

    def stop(self, e: ev.DialogueStopped) -> None:
        self.stopped = e
        self.mount(Static(self.stop_text(), classes="dialogue-stop"))
        self.scroll_end(animate=False)

    def stop_text(self) -> Text:
        e = self.stopped
        if e is None:
            return Text()
        # The method's own reason when it gives one; else who stopped it, in words.
        why = e.reason or STOPPED_BY.get(e.by, e.by)
        return Text.assemble((f"Stopped after turn {e.turn}", "bold"), f": {why}")

    def _show(self, turn: Turn) -> None:
        card = self._cards.get(turn.turn)
        if card is not None:
            card.redraw()
        else:
            card = self._cards[turn.turn] = TurnCard(turn, self.answer_text, self.hidden)
            self.mount(card)
        self.scroll_end(animate=False)
