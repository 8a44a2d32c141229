"""The footer of every ponder screen: key hints that wrap onto more rows, never cut."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["Hint", "KeyHints"]


@dataclass(frozen=True)
class Hint:
    """One key as the footer shows it."""

    key: str
    """The key pressed when the hint is clicked (Textual's name, e.g. ``ctrl+q``)."""
    shown: str
    """The key as drawn (``^q``)."""
    description: str
    enabled: bool = True

    @property
    def width(self) -> int:
        # " key " then "description ", as Textual's own footer draws a key.
        return len(self.shown) + len(self.description) + 3


class KeyHints(Widget, can_focus=False):
    """The screen's keys, laid out in as many columns as the width allows and wrapping onto
    more rows, so ``esc Home`` and ``? Keys`` stay in sight at 80 columns (Textual's footer
    puts every key on one row and cuts what does not fit). One widget drawing text rather
    than Textual's widget per key: a footer is on every screen, and its dozen widgets were
    restyled and laid out again each time the bindings changed (a fifth of a screen's start).

    A click on a key presses it, as in Textual's footer; the command palette's key sits at the
    right of the first row."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-hints--key",
        "key-hints--description",
        "key-hints--hover",
        "key-hints--rule",
    }
    DEFAULT_CSS = """
    KeyHints {
        dock: bottom;
        height: auto;
        max-height: 4;
        background: $footer-background;
        color: $footer-foreground;
        .key-hints--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-hints--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-hints--rule {
            color: $foreground 20%;
        }
        .key-hints--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.hints: tuple[Hint, ...] = ()
        """The keys shown, in the screen's order (one per action)."""
        self.palette: Hint | None = None
        """The command palette's key, drawn at the right; None when the app has none."""
        self._hover: int | None = None
        self._cells: list[tuple[Region, Hint]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._read(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if self.is_attached and screen is self.screen:
            self._read(screen)

    def _read(self, screen: Screen[object]) -> None:
        """Take the screen's keys; redraw (and lay out again) only when what shows changed:
        the bindings are said to change on every focus change."""
        hints: list[Hint] = []
        seen: set[str] = set()
        active = screen.active_bindings
        # A screen may say what a key does now (a puzzle's, once it is over).
        describe = getattr(screen, "key_description", None)
        for _node, binding, enabled, _tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            said = describe(binding) if callable(describe) else binding.description
            hints.append(Hint(binding.key, self.app.get_key_display(binding), said, enabled))
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _node, binding, enabled, _tooltip = found
                palette = Hint(
                    binding.key, self.app.get_key_display(binding), binding.description, enabled
                )
        if (tuple(hints), palette) != (self.hints, self.palette):
            self.hints, self.palette = tuple(hints), palette
            self.refresh(layout=True)

    # ---------------------------------------------------------------- layout

    def columns(self, width: int) -> int:
        """How many columns of keys fit side by side in ``width`` cells: the most whose
        widest keys, column by column, still fit beside the palette's key."""
        widths = [hint.width for hint in self.hints]
        if not widths:
            return 1
        palette = self.palette.width + 1 if self.palette is not None else 0
        room = max(20, width - palette - 1)
        columns = len(widths)
        while columns > 1:
            if sum(max(widths[c::columns]) for c in range(columns)) <= room:
                break
            columns -= 1
        return columns

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, -(-len(self.hints) // self.columns(width)))

    def render(self) -> Text:
        width = self.size.width
        columns = self.columns(width)
        widths = [hint.width for hint in self.hints]
        column_widths = [max(widths[c::columns]) for c in range(columns)] if widths else []
        rows = max(1, -(-len(self.hints) // columns))
        self._cells = []
        lines: list[Text] = []
        for row in range(rows):
            line = Text(no_wrap=True, overflow="crop")
            x = 0
            for column, hint in enumerate(self.hints[row * columns : (row + 1) * columns]):
                cell = self._draw(hint, len(self._cells))
                self._cells.append((Region(x, row, hint.width, 1), hint))
                cell.pad_right(column_widths[column] - hint.width)
                line.append_text(cell)
                x += column_widths[column]
            lines.append(line)
        if self.palette is not None:
            drawn = self._draw(self.palette, len(self._cells), edge=True)
            at = width - self.palette.width
            if at > lines[0].cell_len:
                self._cells.append((Region(at, 0, self.palette.width, 1), self.palette))
                lines[0].pad_right(at - lines[0].cell_len)
                lines[0].append_text(drawn)
        return Text("\n", no_wrap=True).join(lines)

    def _draw(self, hint: Hint, index: int, edge: bool = False) -> Text:
        key = self.get_component_rich_style("key-hints--key")
        description = self.get_component_rich_style("key-hints--description")
        if index == self._hover:
            hover = self.get_component_rich_style("key-hints--hover")
            key, description = key + hover, description + hover
        if not hint.enabled:
            dim = Style(dim=True)
            key, description = key + dim, description + dim
        if edge:  # the palette's key, set apart by a thin rule as in Textual's footer
            rule = self.get_component_rich_style("key-hints--rule")
            return Text.assemble(
                ("▏", rule), (hint.shown, key), (f" {hint.description} ", description)
            )
        return Text.assemble((f" {hint.shown} ", key), (f"{hint.description} ", description))

    def region_of(self, description: str) -> Region | None:
        """Where the key described ``description`` is drawn, on the screen; None if it is not
        (drawn cut or not at all)."""
        for region, hint in self._cells:
            if hint.description == description and region.right <= self.size.width:
                return region.translate(self.region.offset)
        return None

    def text(self) -> str:
        """The footer as it reads: every key and its description."""
        return " ".join(f"{hint.shown} {hint.description}" for hint in self.hints)

    # ---------------------------------------------------------------- mouse

    def _hint_at(self, x: int, y: int) -> int | None:
        for index, (region, _hint) in enumerate(self._cells):
            if region.contains(x, y):
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._hint_at(event.x, event.y)
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        index = self._hint_at(event.x, event.y)
        if index is None:
            return
        hint = self._cells[index][1]
        if hint.enabled:
            self.app.simulate_key(hint.key)
        else:
            self.app.bell()
