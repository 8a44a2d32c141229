"""What an app started by ``ponder serve`` (for a browser) is told, and how it behaves.

The server puts two variables in each app's environment (:func:`environment`): the folder
whose files the app may open (``--files DIR``; empty: none), and the server's process id. Both
are read here, without importing anything heavy: the app asks :func:`served_files` before it
shows a file dialog, and calls :func:`tie_to_server` at start so that it ends with its server.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "BROWSER_KEYS",
    "FILES_VAR",
    "SENT_AS",
    "SERVER_VAR",
    "WIDGET_STAND_INS",
    "environment",
    "kept_by_browsers",
    "served_files",
    "tie_to_server",
]

FILES_VAR = "PONDER_SERVE_FILES"
"""The one folder whose files a served app may open, or empty when opening files is off."""
SERVER_VAR = "PONDER_SERVED_BY"
"""The process id of the ``ponder serve`` that started the app."""


BROWSER_KEPT = frozenset(
    {
        # Chrome and Firefox never pass these to a page (new window, new tab, close tab,
        # switch tabs); Firefox on Linux quits on ctrl+q.
        "ctrl+n",
        "ctrl+t",
        "ctrl+w",
        "ctrl+q",
        "ctrl+tab",
        "ctrl+pageup",
        "ctrl+pagedown",
        # Full screen and the developer tools.
        "f11",
        "f12",
        "alt+f4",
    }
)
"""Keys a browser keeps for itself: in ``ponder serve`` they never reach the app."""

BROWSER_KEYS = {"ctrl+n": "f2", "ctrl+t": "f3", "ctrl+q": "f10"}
"""For each key a browser keeps that ponder binds, the key bound beside it everywhere it is
bound, which reaches the app in a terminal and in a browser alike. In a browser the footer
and the messages name this one."""


WIDGET_STAND_INS = {
    "page_left": ("alt+pageup", "Page left"),
    "page_right": ("alt+pagedown", "Page right"),
    "select_all": ("alt+a", "Select all"),
    "delete_line": ("alt+k", "Delete the line"),
}
"""For each action of a Textual widget ponder mounts that only a key a browser keeps reaches
(its scrolling containers page sideways on ctrl+pageup / ctrl+pagedown, its input boxes select
all on ctrl+shift+a, its text area deletes a line on ctrl+shift+k), the key the app binds
beside it, with what it does: the action of the widget that has focus (or of the nearest one
around it that has the action)."""

SENT_AS = {"alt+backspace": "ctrl+w"}
"""Keys a terminal sends as the bytes of another: alt+backspace goes as ESC DEL, which Textual
reads as ctrl+w, so in a browser (which closes its tab on ctrl+w) alt+backspace deletes the
word before the cursor in an input box."""

_PASSED_WITH_CTRL_SHIFT = frozenset({"left", "right", "up", "down", "home", "end"})
"""ctrl+shift with these selects text in a page: a browser passes them on."""


def kept_by_browsers(key: str) -> bool:
    """Whether a browser keeps ``key`` (Textual's name of it) for itself: the keys above,
    every super (command) combination, and ctrl+shift with anything but an arrow, home or
    end (a new private window, reopen a closed tab, quit, the developer tools...)."""
    if key.startswith("ctrl+shift+"):
        return key.removeprefix("ctrl+shift+") not in _PASSED_WITH_CTRL_SHIFT
    return key in BROWSER_KEPT or key.startswith("super+")


def environment(files: str | None) -> dict[str, str]:
    """The variables ``ponder serve`` gives each app it starts."""
    return {FILES_VAR: os.path.abspath(files) if files else "", SERVER_VAR: str(os.getpid())}


def served_files(
    web: bool = False, env: Mapping[str, str] = os.environ
) -> tuple[bool, Path | None]:
    """Whether this app may open files, and the folder it is confined to (None: anywhere).
    In the browser only ``--files DIR`` allows it, and only under that folder: whoever has
    the page must not read this machine's other files. An app in a browser that ``ponder
    serve`` did not start (``web``, and no word from a server) opens none."""
    if FILES_VAR not in env:
        return not web, None
    folder = env[FILES_VAR]
    return (True, Path(os.path.realpath(folder))) if folder else (False, None)


def tie_to_server(env: Mapping[str, str] = os.environ) -> bool:
    """In a served app, ask to be sent SIGTERM (the app quits cleanly on it) when the server
    dies, even by SIGKILL: nothing else would end an app whose browser and server are gone.
    False when this app is not served or its server has gone already (then it should not
    start); True otherwise."""
    server = env.get(SERVER_VAR)
    if not server:
        return True
    from solver.tools.lifeline import set_death_signal

    set_death_signal(signal.SIGTERM)
    # A server that died before the signal was asked for would never send it.
    return str(os.getppid()) == server
