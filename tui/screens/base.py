"""What every ponder screen shares."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app import PonderApp

__all__ = ["PonderScreen"]


class PonderScreen(Screen[None]):
    """A screen of the ponder app, with typed access to it."""

    @property
    def ponder(self) -> PonderApp:
        # Cast, not imported: the screens sit below the app that hosts them.
        return cast("PonderApp", self.app)

    def key(self, name: str) -> str:
        """A key as this screen's messages name it: in a browser, the key that stands in for
        one the browser keeps (``ctrl+n``: ``f2``; see :data:`tui.served.BROWSER_KEYS`)."""
        return self.ponder.key_name(name)
