"""The footer of every ponder screen: key hints that wrap onto a second row, never cut."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["KeyHints"]


class KeyHints(Footer):
    """Textual's footer, laid out as a grid with as many columns as the width allows, so
    ``esc Home`` and ``? Keys`` stay in sight at 80 columns (Textual's own footer puts every
    key on one row and cuts what does not fit)."""

    DEFAULT_CSS = """
    KeyHints {
        layout: grid;
        grid-columns: auto;
        grid-rows: 1;
        height: auto;
        max-height: 4;
    }
    """

    def compose(self) -> ComposeResult:
        every: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-grouped"):
                every.append(widget)
            yield widget
        # Fitted before the first frame, to the screen's width (the footer spans it), so a
        # new screen's footer never shows Textual's one cut row first.
        self._fit(every, self.app.size.width)

    def on_resize(self) -> None:
        self._fit([k for k in self.children if isinstance(k, FooterKey)], self.size.width)

    def _fit(self, every: list[FooterKey], width: int) -> None:
        keys = [k for k in every if not _docked(k)]
        if not keys:
            return
        palette = sum(_width(k) + 2 for k in every if _docked(k))
        room = max(20, width - palette - 1)
        widths = [_width(k) for k in keys]
        columns = len(widths)
        # The most columns whose widest cells still fit side by side.
        while columns > 1:
            needed = sum(max(widths[c::columns]) for c in range(columns))
            if needed <= room:
                break
            columns -= 1
        if self.styles.grid_size_columns != columns:
            self.styles.grid_size_columns = columns


def _docked(key: FooterKey) -> bool:
    return key.has_class("-command-palette")


def _width(key: FooterKey) -> int:
    # " key " then "description " (FooterKey's padding), as Textual draws it.
    return len(key.key_display) + len(key.description) + 3
