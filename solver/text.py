"""Outside text made safe to show, for consumers of the event stream.

:func:`visible` lives in ``puzzles.text`` (puzzle files need it too); this module adds
:func:`visible_event`, which applies it to every string an event carries, so a consumer that
shows events (the headless CLI, the app's solver pane) does it in one place.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from puzzles.text import CONTROL_CHARACTERS, json_line, visible
from solver.events import Event

__all__ = ["CONTROL_CHARACTERS", "json_line", "visible", "visible_event"]

E = TypeVar("E", bound=Event)


def _visible(value: object) -> object:
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, tuple):
        return tuple(_visible(v) for v in value)
    if isinstance(value, list):
        return [_visible(v) for v in value]
    if isinstance(value, dict):
        return {_visible(k): _visible(v) for k, v in value.items()}
    return value


def visible_event(event: E) -> E:
    """``event`` with :func:`visible` applied to each string it holds (also inside tuples
    and dicts); the same object when nothing needed it."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        shown = _visible(value)
        if shown != value:
            changes[f.name] = shown
    return dataclasses.replace(event, **changes) if changes else event
