"""What every ponder screen shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app import PonderApp

__all__ = ["PonderScreen"]


class PonderScreen(Screen[None]):
    """A screen of the ponder app, with typed access to it."""

    @property
    def ponder(self) -> PonderApp:
        from tui.app import PonderApp

        app = self.app
        assert isinstance(app, PonderApp)
        return app
