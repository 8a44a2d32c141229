"""Scrolling views that grow without laying out the screen again.

Textual lays out the whole screen, and repaints every widget on it, whenever a scrolling
view's virtual size changes: a tree given a node, a log given a line, a text box given a
character. With a solver streaming beside the puzzle that was a full layout on every batch of
events and on every key, the largest share of a frame. A view whose size the stylesheet sets
(``fr``, cells, ``%``) does not need one: it repaints itself and its scrollbars instead.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive

__all__ = ["GrowsInPlace"]


class GrowsInPlace:
    """Mixed in before a :class:`~textual.scroll_view.ScrollView` (``class PaneLog(GrowsInPlace,
    RichLog)``): a change of its virtual size repaints it and updates its scrollbars, with no
    layout of the screen, unless its stylesheet sizes it by its content (``auto``), where it
    asks for a layout as Textual does. A scrollbar shown or hidden still lays it out."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        widget: Any = self
        if widget.styles.auto_dimensions:
            widget.refresh(layout=True)
        elif widget.container_size:
            widget._scroll_update(size)  # scrollbars shown or hidden, and their thumbs
