"""What the app's Pilot tests share: waiting for the app to reach a state."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.screens.game24 import Game24Screen

__all__ = ["open_hand", "wait_for"]


async def wait_for(pilot: Any, condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Let the app run until ``condition()`` holds; fail after ``timeout`` seconds. Waiting on
    a condition rather than a fixed pause keeps a test as quick as the app and as patient as a
    loaded machine needs."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await pilot.pause(0.05)


async def open_hand(app: Any, pilot: Any, hand: str) -> Game24Screen:
    """A Game of 24 screen with ``hand`` open over the app's screen."""
    from puzzles.game24 import Hand
    from tui.screens.game24 import Game24Screen

    screen = Game24Screen(Hand.parse(hand), "easy")
    await app.push_screen(screen)
    await pilot.pause()
    return screen
