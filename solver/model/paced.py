"""A model that waits before each call and may refuse more than a budget: the race handicap that
gives a person a chance against a solver that answers in a fraction of a second."""

from __future__ import annotations

import asyncio

from solver.model import Call, Generation, Model, ModelError, TokenCallback


class PacedModel:
    """The race handicap that gives a person a chance against a solver that answers in a
    fraction of a second: it waits ``delay`` seconds before each call, and after ``calls``
    calls (0: no limit) refuses more, which ends the run ("its budget is spent")."""

    def __init__(
        self, inner: Model, delay: float, calls: int = 0, gate: asyncio.Event | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.delay = delay
        self.calls = calls
        self.made = 0
        self.gate = gate
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
        await asyncio.sleep(self.delay)
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()
