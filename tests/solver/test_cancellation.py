"""A run that ends (a verified solution, a model error) leaves no model call running."""

from __future__ import annotations

import asyncio

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.methods import solve
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Generation, TokenCallback
from solver.offline import OfflineModel


class CountingModel(OfflineModel):
    """The offline engine, slowed down, counting calls started and finished."""

    def __init__(self) -> None:
        super().__init__(seed=1, delay=0.02)
        self.started = 0
        self.finished = 0

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.started += 1
        gen = await super().generate(call, on_token)
        self.finished += 1
        return gen


async def test_stop_early_cancels_every_other_tree() -> None:
    model = CountingModel()
    fin, _ = await solve(
        BoT(BoTConfig(trees=8, stop_early=True)), Game24Domain(Hand.parse("1 2 3 4")), model, seed=1
    )
    assert fin.solved and fin.reason == "solved early"
    finished_at_end = model.finished
    await asyncio.sleep(0.3)
    assert model.finished == finished_at_end  # nothing completed after the run ended
    assert fin.calls == finished_at_end
