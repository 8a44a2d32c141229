"""Scrolling views that grow, and text that changes, without laying out the screen again.

Textual lays out the whole screen, and repaints every widget on it, whenever a scrolling
view's virtual size changes: a tree given a node, a log given a line, a text box given a
character. With a solver streaming beside the puzzle that was a full layout on every batch of
events and on every key, the largest share of a frame. A view whose size the stylesheet sets
(``fr``, cells, ``%``) does not need one: it repaints itself and its scrollbars instead.
Nor does a line of text (``height: auto``) given new words that take as many rows: Textual's
``Static.update`` lays the screen out every time, and a clock redrawn once a second made
a full layout a second under the solver's stream.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.visual import VisualType
from textual.widgets import Static

__all__ = ["GrowsInPlace", "update_in_place"]


def update_in_place(widget: Static, content: VisualType) -> None:
    """Put ``content`` in ``widget`` and repaint it; the screen is laid out again only when
    the widget then takes another size (a line that wraps onto one more row, a title sized to
    its text that grows)."""
    before = widget.content_size
    widget.update(content, layout=False)
    if not widget.is_mounted or not before:
        widget.refresh(layout=True)
        return
    styles = widget.styles
    viewport = widget.app.size
    width = before.width
    if styles.width is not None and styles.width.is_auto:
        width = widget.get_content_width(before, viewport)
    height = before.height
    if styles.height is not None and styles.height.is_auto:
        height = widget.get_content_height(before, viewport, width)
    if (width, height) != (before.width, before.height):
        widget.refresh(layout=True)


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
