"""Models slowed for people: the race handicap that gives a person a chance against a solver
that answers in a fraction of a second (:class:`PacedModel`), and a solver whose answers come
one at a time at a pace the eye can follow, changed while it runs (:class:`OneAtATime`,
:class:`Pace`)."""

from __future__ import annotations

import asyncio

from solver.model import Call, Generation, Model, ModelError, TokenCallback


class PacedModel:
    """The race handicap that gives a person a chance against a solver that answers in a
    fraction of a second: its calls start one at a time, ``delay`` seconds apart (the first
    after ``delay`` too), however many the method asks for at once, and after ``calls`` calls
    (0: no limit) it refuses more, which ends the run ("its budget is spent")."""

    def __init__(
        self, inner: Model, delay: float, calls: int = 0, gate: asyncio.Event | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.delay = delay
        self.calls = calls
        self.made = 0
        self.gate = gate
        self._turn = asyncio.Lock()
        """Closed while the player cannot play (help or a dialog covers the race): no call
        starts until it opens again."""

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        if self.gate is not None:
            await self.gate.wait()
        if self.calls and self.made >= self.calls:
            raise ModelError(
                "budget", f"the race handicap allows {self.calls} model calls, all spent"
            )
        self.made += 1
        if self.delay > 0:
            async with self._turn:  # "a call every 3 s" for the whole run, not per call
                await asyncio.sleep(self.delay)
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Pace:
    """How many calls a second a watched solver is answered: one of :data:`STEPS`, or 0 for
    full speed. Changed while a run goes on (``[`` and ``]`` in a game); the next answer
    follows the new pace."""

    STEPS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    """The paces ``[`` and ``]`` step through, slowest first; past the last is full speed."""

    def __init__(self, per_second: float) -> None:
        if not per_second >= 0:
            raise ValueError(f"a pace is 0 (full speed) or calls a second, not {per_second!r}")
        self.per_second = per_second

    @classmethod
    def every(cls, seconds: float) -> Pace:
        """One answer every ``seconds`` (0: full speed)."""
        return cls(1 / seconds if seconds > 0 else 0.0)

    @property
    def delay(self) -> float:
        """Seconds between answers (0 at full speed)."""
        return 1 / self.per_second if self.per_second > 0 else 0.0

    @property
    def full_speed(self) -> bool:
        return self.per_second == 0

    def faster(self) -> None:
        """The next step up; past the fastest, full speed (where it stays)."""
        if not self.full_speed:
            self.per_second = next((s for s in self.STEPS if s > self.per_second), 0.0)

    def slower(self) -> None:
        """The next step down (full speed goes to the fastest step; the slowest stays)."""
        if self.full_speed:
            self.per_second = self.STEPS[-1]
        else:
            lower = [s for s in self.STEPS if s < self.per_second]
            self.per_second = lower[-1] if lower else min(self.per_second, self.STEPS[0])

    def short(self) -> str:
        """``8 calls/s``, ``1 call/2 s`` or ``full speed``: for a status line."""
        if self.full_speed:
            return "full speed"
        if self.per_second >= 1:
            return f"{self.per_second:g} calls/s"
        return f"1 call/{self.delay:g} s"

    def describe(self) -> str:
        """``8 calls a second``, ``a call every 2 s``, or ``full speed``."""
        if self.full_speed:
            return "full speed"
        if self.per_second >= 1:
            return f"{self.per_second:g} calls a second"
        return f"a call every {self.delay:g} s"


class OneAtATime:
    """A model whose answers come one at a time, first come first answered, a :class:`Pace`
    apart: a solver slowed so its tree grows a thought at a time. At full speed the calls pass
    straight through, as many at once as the method makes."""

    def __init__(self, inner: Model, pace: Pace | float) -> None:
        self.inner = inner
        self.name = inner.name
        self.pace = pace if isinstance(pace, Pace) else Pace.every(pace)
        self._turn = asyncio.Lock()

    @property
    def delay(self) -> float:
        """Seconds between answers now."""
        return self.pace.delay

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        reply = await self.inner.generate(call, on_token)
        if self.pace.full_speed:
            return reply
        async with self._turn:  # first come, first answered
            await asyncio.sleep(self.pace.delay)
        return reply

    async def aclose(self) -> None:
        await self.inner.aclose()
