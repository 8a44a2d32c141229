"""How many calls to one server may be in flight at once: a limit that adapts to the server.

The configured ``concurrency`` is a ceiling, not a target. :class:`AdaptiveLimit` starts
there and learns what the server takes: every call that succeeds while the limit is what
holds calls back adds ``1 / limit`` (one more call a round of calls: additive increase);
a refusal that says the server is overloaded (HTTP 429 or 503) or a timeout multiplies the
limit by :attr:`AdaptiveLimit.DECREASE` (multiplicative decrease), never below one call.
Refusals of calls that were sent before the last decrease take nothing more off: they
answer a limit already lowered, and a burst of them must not cut it to one.

A server's ``Retry-After`` pauses every call to it (:meth:`AdaptiveLimit.pause`): no call
starts before the pause ends, not only the one that was told.
"""

from __future__ import annotations

import asyncio
import collections
import math
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["AdaptiveLimit", "ConcurrencyShown", "Ticket", "concurrency_of"]


class Ticket(NamedTuple):
    """What a call's room in the limit was given with: the count of decreases then (a
    refusal of a call sent before the last decrease lowers it no further), and of the
    times the limit had been reached (a success teaches only a limit that held calls back)."""

    epoch: int
    fills: int  # before this call's own start


@dataclass(frozen=True)
class ConcurrencyShown:
    """The concurrency limit of a model, as shown to people: where it is now, its ceiling,
    and how often it came down."""

    limit: int
    maximum: int
    decreases: int

    def __str__(self) -> str:
        return f"{self.limit} of {self.maximum}"

    def to_json(self) -> dict[str, int]:
        return {"limit": self.limit, "maximum": self.maximum, "decreases": self.decreases}


class AdaptiveLimit:
    """Calls in flight to one server, under a limit between 1 and ``maximum`` that adapts
    (additive increase, multiplicative decrease); bound to the event loop it is used in.

    :meth:`acquire` waits for room (and for the end of a pause) and returns a ticket;
    :meth:`release` gives the room back with what became of the call.
    """

    DECREASE = 0.75
    """What the limit is multiplied by when the server is overloaded: gentler than TCP's
    half, so a limit that found the server's capacity saws between 3/4 of it and all of it."""

    def __init__(self, maximum: int, *, start: float | None = None) -> None:
        if maximum < 1:
            raise ValueError(f"the concurrency limit must be at least 1, not {maximum}")
        self.maximum = maximum
        self._limit = float(min(maximum, start if start is not None else maximum))
        self._limit = max(1.0, self._limit)
        self.in_flight = 0
        self.decreases = 0
        """How many times the limit came down."""
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._paused_until = 0.0  # loop time
        self._last_decrease = -math.inf  # loop time
        self._epoch = 0  # counts decreases; a ticket remembers the epoch it started in
        self._fills = 0  # counts the times the limit was reached (a call had to wait, or filled it)

    @property
    def limit(self) -> int:
        """Calls that may be in flight now (a whole number, at least 1)."""
        return max(1, int(self._limit))

    @property
    def exact(self) -> float:
        """The limit with its fraction (what additive increase has added so far)."""
        return self._limit

    def shown(self) -> ConcurrencyShown:
        return ConcurrencyShown(self.limit, self.maximum, self.decreases)

    # -- taking and giving back room -----------------------------------------------------------

    async def acquire(self) -> Ticket:
        """Wait until a call may start (in turn, after any pause); returns its ticket."""
        loop = asyncio.get_running_loop()
        before = self._fills
        if not self._waiters and self.in_flight < self.limit and not self._paused(loop):
            self.in_flight += 1
            if self.in_flight >= self.limit:
                self._fills += 1
            return Ticket(self._epoch, before)
        self._fills += 1
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.in_flight -= 1  # given room, then cancelled: the room goes to the next
                self._wake()
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise
        return Ticket(self._epoch, before)

    def release(self, ticket: Ticket, outcome: str) -> None:
        """Give back the room of a call that started with ``ticket``. ``outcome``: ``"ok"``
        (it succeeded), ``"overloaded"`` (429, 503 or a timeout) or ``"other"``."""
        self.in_flight -= 1
        if outcome == "ok":
            # Only if the limit held calls back while this one was out (or as it started): an
            # idle limit proves nothing of the server.
            if self._fills > ticket.fills:
                self._limit = min(float(self.maximum), self._limit + 1 / self._limit)
        elif outcome == "overloaded" and ticket.epoch == self._epoch:
            self._limit = max(1.0, self._limit * self.DECREASE)
            self._epoch += 1
            self.decreases += 1
        self._wake()

    def at_floor(self) -> bool:
        """Whether the limit is down to one call: a server that refuses even one call at a
        time is not answered by a lower limit."""
        return self._limit < 2

    def pause(self, seconds: float) -> None:
        """No call starts in the next ``seconds`` (a server's ``Retry-After``)."""
        if seconds <= 0:
            return
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        if until > self._paused_until:
            self._paused_until = until
            loop.call_at(until, self._wake)

    def _paused(self, loop: asyncio.AbstractEventLoop) -> bool:
        return loop.time() < self._paused_until

    def _wake(self) -> None:
        """Start as many waiting calls, in turn, as there is room for (none while paused)."""
        if not self._waiters or self._paused(asyncio.get_running_loop()):
            return
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)


def concurrency_of(model: object) -> ConcurrencyShown | None:
    """The concurrency limit of ``model`` (an OpenAI-compatible one, or a wrapper around
    one: a recording, a memory of calls), or None for a model without one (offline)."""
    for _ in range(8):  # wrappers nest a few deep at most
        shown = getattr(model, "concurrency", None)
        if callable(shown):
            value = shown()
            return value if isinstance(value, ConcurrencyShown) else None
        inner = getattr(model, "inner", None) or getattr(model, "model", None)
        if inner is None or isinstance(inner, str):
            return None
        model = inner
    return None
