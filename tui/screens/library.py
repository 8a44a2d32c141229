"""BoT's experience library, browsed in the app: every stored entry, newest first, one kind of
puzzle at a time or all of them, with the whole entry of the row under the cursor below.

The command palette opens it ("Experience library"). It only reads: the file is read off the
event loop (another program may hold it locked), and a missing file is not created.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Select, Static

from solver.library import Entry, ExperienceLibrary, LibraryError
from solver.text import visible

__all__ = ["LibraryScreen"]

ALL = "all"
LIMIT = 1000
"""The most entries shown (the newest); ``ponder library list`` shows any number."""


def _read(path: Path) -> list[Entry]:
    if not path.exists():
        return []
    with ExperienceLibrary(path) as library:
        return library.entries(limit=LIMIT)


class LibraryScreen(ModalScreen[None]):
    """The experience library's entries, newest first, filtered by puzzle kind."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="library.close")]

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(classes="dialog")
        if path is None:
            from tui.cli.library import default_path

            path = default_path()
        self.path = path
        self.entries: list[Entry] = []
        """Every entry read, newest first."""
        self.shown: list[Entry] = []
        """The rows of the table, in order."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="library-box"):
            yield Label("Experience library", classes="dialog-title")
            yield Select([("all kinds", ALL)], value=ALL, allow_blank=False, id="library-kind")
            table: DataTable[str | Text] = DataTable(id="library-table", cursor_type="row")
            yield table
            yield Static("reading…", id="library-entry")
            yield Static(
                Text("Up / down pick an entry; escape closes. ponder library clear empties it.")
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
            note.update(
                Text(
                    "The library is empty. Turn on the experience library in settings (s): "
                    "each BoT run then stores what it learned here."
                )
            )
            return
        kinds = sorted({e.kind for e in self.entries})
        select = self.query_one("#library-kind", Select)
        select.set_options([("all kinds", ALL), *((kind, kind) for kind in kinds)])
        select.value = ALL
        self.show(ALL)

    def show(self, kind: str) -> None:
        """The entries of ``kind`` (or all), newest first."""
        self.shown = [e for e in self.entries if kind in (ALL, e.kind)]
        table = self.query_one("#library-table", DataTable)
        table.clear()
        for e in self.shown:
            mark = Text("✓", style="green") if e.chain_ok else Text("✗", style="red")
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
            note.update(Text(f"{len(self.entries)} entries; none of this kind."))
            return
        e = self.shown[row]
        head = f"{e.method} · {e.model} · {e.puzzle} · iteration {e.iteration}"
        if e.confidence is not None:
            head += f" · confidence {e.confidence:g}"
        note.update(Text.assemble((visible(head), "bold"), "\n", visible(e.entry)))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "library-kind" and isinstance(event.value, str):
            self.show(event.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe(event.cursor_row)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
