"""What a colour means in the app, and the running theme's colour for it.

Screens and widgets never name a colour: they ask for a *tone* — right, wrong, warning, a part's
name, a second voice — and get the colour the app's theme gives that meaning (``ctrl+p``,
Theme). The colours come from the theme's text variables (``$text-success``, ``$text-error``,
...), the ones Textual itself uses for coloured text, so a light theme gets darker tones. CSS
(``app.tcss``, ``DEFAULT_CSS``) uses the same ``$variables`` directly.

A line drawn after a theme change takes the new colours; a line already written to a log keeps
the colour it was written in.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from textual.app import App
from textual.dom import DOMNode
from textual.types import NoActiveAppError


class Tone(StrEnum):
    """A colour's meaning; the value is the theme variable that colours it."""

    RIGHT = "text-success"
    """Right, solved, a check that holds, kept."""
    WRONG = "text-error"
    """Wrong, not solved, rejected, an error."""
    WARNING = "text-warning"
    """A notice: stopped, gave up, a fallback, an approximate result, a problem to read."""
    PART = "text-primary"
    """The name of a part of a run: the guide, the library, a thought's marker."""
    SECOND = "text-secondary"
    """A second voice beside the parts: the answerer, a claim that cannot be judged."""


# The named colours these tones replaced: what a tone is when no theme can be read.
_FALLBACK = {
    Tone.RIGHT: "green",
    Tone.WRONG: "red",
    Tone.WARNING: "yellow",
    Tone.PART: "cyan",
    Tone.SECOND: "magenta",
}


def _app_of(owner: DOMNode | None) -> App[Any] | None:
    if owner is None or isinstance(owner, App):
        return owner
    try:
        return owner.app
    except NoActiveAppError:  # a widget drawn before (or without) an app
        return None


def colour(owner: DOMNode | None, meaning: Tone) -> str:
    """The colour (``#RRGGBB``) that the theme of ``owner``'s app (or ``owner``, an app) gives
    ``meaning``; the old named colour when no app or theme is at hand."""
    app = _app_of(owner)
    if app is not None:
        variables = app.theme_variables or app.get_css_variables()
        value = variables.get(meaning.value, "")
        if value.startswith("#"):
            return value
    return _FALLBACK[meaning]


def tone(owner: DOMNode | None, meaning: Tone, extra: str = "") -> str:
    """A Rich style string: ``extra`` (``"bold"``, ``"dim"``) in the colour the running
    theme gives ``meaning``. ``owner`` is the widget or screen that draws it, or the app."""
    return f"{extra} {colour(owner, meaning)}".strip()
