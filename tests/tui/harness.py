"""What the app's Pilot tests share: waiting for the app to reach a state, opening a hand, and
what the app said in notifications."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from puzzles.wordproblem import WordProblem
    from tui.screens.game24 import Game24Screen

__all__ = [
    "CrossGate",
    "FrozenClock",
    "GatedModel",
    "Notice",
    "choices",
    "eggs_problem",
    "notifications",
    "open_hand",
    "shown",
    "wait_for",
]


class CrossGate:
    """An event the test opens from its loop and a model waits on from the solver's, which
    runs on a thread of its own (``tui.solver_loop``): asyncio's Event serves one loop."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        while not self._event.is_set():
            await asyncio.sleep(0.005)


class GatedModel:
    """The offline player behind a gate the test opens: until then every call waits, so the
    solver is mid-call and cannot finish, however long anything takes."""

    def __init__(self) -> None:
        from solver.model.offline import OfflineModel

        self.name = "gated"
        self.gate = CrossGate()
        self.started = 0
        self.inner = OfflineModel(delay=0.01)

    async def generate(self, call: Any, on_token: Any = None) -> Any:
        self.started += 1
        await self.gate.wait()
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()


def eggs_problem() -> WordProblem:
    """An easy shopping word problem whose answer is 18 dollars, with its worked solution
    (imported when asked for: word problems bring sympy)."""
    from fractions import Fraction

    from puzzles.wordproblem import Solution, WordProblem

    return WordProblem(
        "Ada's hens lay 16 eggs a day. She eats 3 and bakes with 4, and sells the rest at $2 "
        "an egg. How many dollars does she make a day?",
        Fraction(18),
        Solution.parse(
            "She sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs.\nShe makes 9 * 2 = $<<9*2=18>>18 a day."
        ),
        id="eggs",
        topic="shopping",
        level="easy",
        unit="dollars",
    )


class FrozenClock:
    """Stands in for the ``time`` module where the screens read the clock (patched in, e.g.
    ``monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())``): always 0:00, for
    snapshots that show a clock."""

    def monotonic(self) -> float:
        return 1000.0

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


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


@dataclass(frozen=True)
class Notice:
    """A notification as the toast shows it."""

    message: str
    title: str
    severity: str


def notifications(monkeypatch: pytest.MonkeyPatch) -> list[Notice]:
    """Every notification shown from now on, in order, as Textual is handed it (after
    ponder's own ``notify`` has made outside text safe to show): Textual's public
    ``App.notify`` is wrapped to keep each one before its toast shows it, so none is missed
    by timing out first."""
    from textual.app import App

    said: list[Notice] = []
    show = App.notify

    def keeping(
        app: App[Any],
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        said.append(Notice(str(message), str(title), severity))
        show(app, message, title=title, severity=severity, timeout=timeout, markup=markup)

    monkeypatch.setattr(App, "notify", keeping)
    return said


def choices(select: Any) -> list[str]:
    """What a Select lists when the player opens it, as they read it, in order."""
    from textual.widgets import OptionList

    return [str(option.prompt) for option in select.query_one(OptionList).options]


def shown(select: Any) -> str:
    """What a closed Select shows: the chosen option's label."""
    from textual.widgets import Static

    return str(select.query_one("#label", Static).render())
