"""BoT's experience library, browsed in the app: every stored entry, newest first, one kind of
puzzle at a time or all of them, narrowed by a search of the puzzles and entries as you type,
with the whole entry of the row under the cursor below; and cleared, a kind or all, once
confirmed.

The command palette opens it ("Experience library"). The file is read and cleared off the
event loop (another program may hold it locked), and a missing file is not created.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from solver.library import Entry, ExperienceLibrary, LibraryError
from solver.text import visible
from tui.widgets.tones import Tone, tone

__all__ = ["ClearLibraryDialog", "LibraryScreen"]

ALL = "all"
LIMIT = 1000
"""The most entries shown (the newest); ``ponder library list`` shows any number."""


def _read(path: Path) -> list[Entry]:
    if not path.exists():
        return []
    with ExperienceLibrary(path) as library:
        return library.entries(limit=LIMIT)


def _clear(path: Path, kind: str | None) -> int:
    if not path.exists():
        return 0
    with ExperienceLibrary(path) as library:
        return library.clear(kind)


def matches(entry: Entry, search: str) -> bool:
    """Whether the entry's puzzle or text holds ``search`` (any case; empty: every entry)."""
    needle = search.strip().casefold()
    return not needle or needle in entry.puzzle.casefold() or needle in entry.entry.casefold()


class ClearLibraryDialog(ModalScreen[bool]):
    """Asks before the library's entries (of one kind, or all) are deleted: True to delete."""

    BINDINGS = [
        Binding("escape,n", "cancel", "Keep them", id="library-clear.cancel"),
        Binding("y", "confirm", "Delete", id="library-clear.confirm"),
    ]

    def __init__(self, what: str) -> None:
        super().__init__(classes="dialog")
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="library-clear-box"):
            yield Label("Clear the experience library?", classes="dialog-title")
            yield Static(
                Text(
                    f"Delete {self.what} from the experience library? BoT cannot use them "
                    "again, and this cannot be undone. (The search does not narrow it.)"
                )
            )
            with Horizontal(classes="buttons"):
                yield Button("Delete (y)", id="library-clear-yes", variant="error")
                yield Button("Keep them (n)", id="library-clear-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#library-clear-no", Button).focus()  # enter keeps them

    @on(Button.Pressed, "#library-clear-yes")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#library-clear-no")
    def action_cancel(self) -> None:
        self.dismiss(False)


class LibraryScreen(ModalScreen[None]):
    """The experience library's entries, newest first, filtered by puzzle kind and search."""

    DEFAULT_CSS = """
    #library-filters { height: auto; }
    #library-filters Select { width: 24; }
    #library-search { width: 1fr; }
    #library-clear { margin-left: 1; }
    """

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="library.close"),
        Binding("q", "dismiss", "Close", show=False, id="library.close_q"),
        Binding("ctrl+l", "clear", "Clear…", id="library.clear"),
        Binding("ctrl+f", "search", "Search", id="library.search"),
    ]

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(classes="dialog")
        if path is None:
            from tui.library_file import default_path

            path = default_path()
        self.path = path
        self.entries: list[Entry] = []
        """Every entry read, newest first."""
        self.shown: list[Entry] = []
        """The rows of the table, in order."""
        self.kind = ALL
        """The kind shown (or all)."""
        self.search = ""
        """The text the rows' puzzle or entry must hold (any case)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="library-box"):
            yield Label("Experience library", classes="dialog-title")
            with Horizontal(id="library-filters"):
                yield Select([("all kinds", ALL)], value=ALL, allow_blank=False, id="library-kind")
                yield Input(placeholder="search puzzles and entries", id="library-search")
                yield Button("Clear…", id="library-clear")
            table: DataTable[str | Text] = DataTable(id="library-table", cursor_type="row")
            yield table
            yield Static("reading…", id="library-entry")
            yield Static(
                Text(
                    "Up / down pick an entry; ctrl+f searches; ctrl+l clears the kind shown "
                    "(or all); escape closes."
                )
            )

    def on_mount(self) -> None:
        table = self.query_one("#library-table", DataTable)
        table.add_columns("stored (UTC)", "kind", "puzzle", "it.", "chain", "entry")
        table.focus()
        self.load()

    @work(exclusive=True, group="library", exit_on_error=False)
    async def load(self) -> None:
        note = self.query_one("#library-entry", Static)
        try:
            self.entries = await asyncio.to_thread(_read, self.path)
        except LibraryError as err:
            note.update(Text(visible(str(err))))
            return
        if not self.entries:
            self.shown = []
            self.query_one("#library-table", DataTable).clear()
            self.query_one("#library-kind", Select).set_options([("all kinds", ALL)])
            note.update(
                Text(
                    "The library is empty. Turn on the experience library in settings (s): "
                    "each BoT run then stores what it learned here."
                )
            )
            return
        kinds = sorted({e.kind for e in self.entries})
        kind = self.kind if self.kind in kinds else ALL
        select = self.query_one("#library-kind", Select)
        with select.prevent(Select.Changed):
            select.set_options([("all kinds", ALL), *((k, k) for k in kinds)])
            select.value = kind
        self.show(kind)

    def show(self, kind: str | None = None) -> None:
        """The entries of ``kind`` (or all; the kind shown if not given) that match the
        search, newest first."""
        if kind is not None:
            self.kind = kind
        self.shown = [
            e for e in self.entries if self.kind in (ALL, e.kind) and matches(e, self.search)
        ]
        table = self.query_one("#library-table", DataTable)
        table.clear()
        for e in self.shown:
            mark = (
                Text("✓", style=tone(self, Tone.RIGHT))
                if e.chain_ok
                else Text("✗", style=tone(self, Tone.WRONG))
            )
            first = e.entry.splitlines()[0] if e.entry else e.report
            table.add_row(
                visible(e.created_at[:16].replace("T", " ")),
                visible(e.kind),
                visible(e.puzzle),
                str(e.iteration),
                mark,
                visible(first[:60]),
            )
        self._describe(0)

    def _describe(self, row: int) -> None:
        note = self.query_one("#library-entry", Static)
        if not 0 <= row < len(self.shown):
            which = "of this kind" if not self.search.strip() else "that match the search"
            note.update(Text(f"{len(self.entries)} entries; none {which}."))
            return
        e = self.shown[row]
        head = f"{e.method} · {e.model} · {e.puzzle} · iteration {e.iteration}"
        if e.confidence is not None:
            head += f" · confidence {e.confidence:g}"
        note.update(Text.assemble((visible(head), "bold"), "\n", visible(e.entry)))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "library-kind" and isinstance(event.value, str):
            self.show(event.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "library-search":
            self.search = event.value
            self.show()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe(event.cursor_row)

    def action_search(self) -> None:
        self.query_one("#library-search", Input).focus()

    @on(Button.Pressed, "#library-clear")
    def action_clear(self) -> None:
        """Ask, then delete the entries of the kind shown (or all of them)."""
        kind = None if self.kind == ALL else self.kind
        count = sum(1 for e in self.entries if kind in (None, e.kind))
        if not count:
            self.notify("Nothing to clear.", timeout=3)
            return
        what = f"all {count} entries" if kind is None else f"the {count} {kind} entries"
        if count >= LIMIT:
            what = "every entry" if kind is None else f"every {kind} entry"

        def answered(yes: bool | None) -> None:
            if yes:
                self.clear_entries(kind)

        self.app.push_screen(ClearLibraryDialog(visible(what)), answered)

    @work(exclusive=True, group="library-clear", exit_on_error=False)
    async def clear_entries(self, kind: str | None) -> None:
        """Delete the entries (of ``kind``) off the event loop, then read the library again."""
        try:
            count = await asyncio.to_thread(_clear, self.path, kind)
        except LibraryError as err:
            self.query_one("#library-entry", Static).update(Text(visible(str(err))))
            return
        self.notify(f"Cleared {count} {'entry' if count == 1 else 'entries'}.", timeout=3)
        self.load()

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
