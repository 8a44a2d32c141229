"""Opening a person's own puzzle file from home: a path box that completes paths (→ or end
takes the completion), a folder tree to pick from, and, for a file of many puzzles, a list to
choose one from by number with a preview of each.

A kind's screen says what its files hold (``FILES``), reads one (``load_file``: every puzzle,
or a ``ValueError`` that says what is wrong), previews a puzzle in one line (``preview``) and
opens one (``from_file``). Nothing here knows a format: a bad file — missing, a folder,
unreadable, the wrong format, too large — gets the loader's message in the dialog and a
notice, and the dialog stays open for another try.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from solver.text import visible
from tui.widgets.file_tree import FileTree, PathSuggester, complete_path, within
from tui.widgets.tones import Tone, tone

__all__ = [
    "MAX_LISTED",
    "ChooseDialog",
    "FileTree",
    "OpenFileDialog",
    "PathSuggester",
    "complete_path",
    "load_puzzles",
    "within",
]

MAX_LISTED = 1000
"""Puzzles of one file listed for choosing; any other is chosen by its number."""
_PREVIEW_CHARS = 52
"""A listed puzzle's preview, at most (one line of the list in an 80-column terminal)."""


def load_puzzles(screen_class: Any, path: Path) -> list[Any]:
    """The puzzles in ``path`` as the kind's screen reads them; ``ValueError`` with a message
    for people when the file cannot be played (missing, unreadable, the wrong format, too
    large, empty)."""
    try:
        found = list(screen_class.load_file(path))
    except (ValueError, OSError, UnicodeError, RecursionError, MemoryError) as exc:
        message = str(exc) or type(exc).__name__
        name = str(path)
        raise ValueError(message if name in message else f"{name}: {message}") from None
    if not found:
        raise ValueError(f"{path} holds nothing to play")
    return found


class OpenFileDialog(ModalScreen[tuple[Path, list[Any]] | None]):
    """Pick a puzzle file of one kind: type its path (completed as you type) or choose it in
    the tree. The file is read here, so a file that cannot be played is said at once and
    another can be tried; the result is the path and its puzzles."""

    AUTO_FOCUS = "#file-path"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="file.cancel")]

    def __init__(
        self, screen_class: Any, label: str, start: Path | None = None, root: Path | None = None
    ) -> None:
        super().__init__(classes="dialog")
        self.screen_class = screen_class
        self.label = label
        self.root = root
        """The folder nothing outside of may be shown or opened (None: anywhere)."""
        self.start = root or start or Path.cwd()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="file-box"):
            yield Label(f"Open a file of {self.label.lower()}", classes="dialog-title")
            yield Static(Text(f"It may hold {self.screen_class.FILES}.", style="dim"))
            yield Input(
                placeholder="a path (→ completes it), or pick a file below",
                suggester=PathSuggester(self.root),
                id="file-path",
                compact=True,
            )
            yield FileTree(self.start, self.root, id="file-tree")
            yield Static(id="file-error")
            with Horizontal(classes="buttons"):
                yield Button("Open", id="file-open", variant="primary")
                yield Button("Cancel", id="file-cancel")

    def on_resize(self) -> None:
        # The tree takes what the screen leaves: the whole dialog fits in 80x24.
        self.query_one(FileTree).styles.height = max(4, min(14, self.size.height - 18))

    def open_path(self, text: str) -> None:
        """Read the file at ``text``: a folder becomes the tree's root; a file that cannot
        be played is said here; a good one closes the dialog."""
        text = text.strip()
        if not text:
            self.error("Type a path or choose a file in the tree.")
            return
        path = Path(os.path.expanduser(text))
        if self.root is not None:
            # Checked, and then opened, with its links followed: a link changed in between
            # leads nowhere else.
            path = Path(os.path.realpath(self.root / path))
        if not within(path, self.root):
            self.error(f"In the browser only files under {self.root} can be opened.")
            return
        if path.is_dir():
            tree = self.query_one(DirectoryTree)
            tree.path = path
            tree.focus()
            self.error("")
            return
        try:
            found = load_puzzles(self.screen_class, path)
        except ValueError as exc:
            message = visible(str(exc))
            self.error(f"Cannot open it: {message}")
            self.notify(f"Cannot open that file: {message}", severity="error")
            return
        note = getattr(self.screen_class, "file_note", lambda found: None)(found)
        if note:
            self.notify(visible(note), title=path.name, severity="warning", timeout=12)
        self.dismiss((path, found))

    def error(self, message: str) -> None:
        self.query_one("#file-error", Static).update(Text(message, style=tone(self, Tone.WRONG)))

    @on(Input.Submitted, "#file-path")
    def path_submitted(self, event: Input.Submitted) -> None:
        self.open_path(event.value)

    @on(DirectoryTree.FileSelected)
    def file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.query_one("#file-path", Input).value = str(event.path)
        self.open_path(str(event.path))

    @on(DirectoryTree.DirectorySelected)
    def folder_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        event.stop()
        path = self.query_one("#file-path", Input)
        path.value = str(event.path) + os.sep
        path.cursor_position = len(path.value)

    @on(Button.Pressed, "#file-open")
    def open_pressed(self) -> None:
        self.open_path(self.query_one("#file-path", Input).value)

    @on(Button.Pressed, "#file-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ChooseDialog(ModalScreen[int | None]):
    """Choose one puzzle of a file: type its number (enter) or pick it in the list; up and
    down move the list while the number box has focus."""

    AUTO_FOCUS = "#choice-number"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]

    def __init__(self, screen_class: Any, path: Path, found: list[Any], noun: str) -> None:
        super().__init__(classes="dialog")
        self.screen_class = screen_class
        self.path = path
        self.found = found
        self.noun = noun

    def compose(self) -> ComposeResult:
        count = len(self.found)
        with Vertical(classes="dialog-box", id="choice-box"):
            yield Label(
                f"{count} {self.noun}s in {visible(self.path.name)}", classes="dialog-title"
            )
            yield Input(
                placeholder=f"a number from 1 to {count}, or pick below",
                type="integer",
                id="choice-number",
                compact=True,
            )
            yield Static(id="choice-preview")
            options = [
                Option(f"{i + 1:>4}. {self._preview(i)}", id=str(i))
                for i in range(min(count, MAX_LISTED))
            ]
            yield OptionList(*options, id="choice-list")
            if count > MAX_LISTED:
                yield Static(
                    Text(f"The first {MAX_LISTED} are listed; type any number.", style="dim")
                )

    def _preview(self, index: int, width: int = _PREVIEW_CHARS) -> str:
        try:
            text = str(self.screen_class.preview(self.found[index]))
        except (ValueError, AttributeError, IndexError) as exc:
            text = f"(cannot be shown: {exc})"
        return text if len(text) <= width else text[: width - 1].rstrip() + "…"

    def chosen(self) -> int | None:
        """The typed number as an index, or None (blank, or out of range: said)."""
        text = self.query_one("#choice-number", Input).value.strip()
        preview = self.query_one("#choice-preview", Static)
        if not text:
            preview.update("")
            return None
        count = len(self.found)
        number = int(text) if text.lstrip("-").isdigit() and len(text) < 12 else 0
        if not 1 <= number <= count:
            preview.update(
                Text(
                    f"There is no {self.noun} {text}: 1 to {count}.",
                    style=tone(self, Tone.WRONG),
                )
            )
            return None
        preview.update(Text(f"{number}. {self._preview(number - 1, 200)}", style="dim"))
        return number - 1

    @on(Input.Changed, "#choice-number")
    def number_changed(self) -> None:
        index = self.chosen()
        if index is not None and index < MAX_LISTED:
            self.query_one("#choice-list", OptionList).highlighted = index

    @on(Input.Submitted, "#choice-number")
    def number_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            index = self.chosen()
            if index is not None:
                self.dismiss(index)
            return
        listed = self.query_one("#choice-list", OptionList).highlighted
        self.dismiss(listed if listed is not None else 0)

    @on(OptionList.OptionSelected, "#choice-list")
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def on_key(self, event: events.Key) -> None:
        # The number box keeps focus; up and down still move through the list.
        if event.key in ("up", "down") and self.focused is self.query_one("#choice-number"):
            listed = self.query_one("#choice-list", OptionList)
            if event.key == "up":
                listed.action_cursor_up()
            else:
                listed.action_cursor_down()
            event.stop()

    def action_cancel(self) -> None:
        self.dismiss(None)
