"""A thought shows in the solver pane as it streams in, and the pane redraws in batches."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from puzzles.game24 import Hand
from solver.model import Call, Generation, TokenCallback, Usage
from solver.settings import Settings
from tests.tui.harness import CrossGate, wait_for
from tui.app import make_app
from tui.screens.game24 import Game24Screen
from tui.widgets.solver_pane import SolverPane

REPLY = "Answer: (7 - 8 / 8) * 4 = 24"


class Streaming:
    """Writes its reply a word every 40 ms, then holds it until released."""

    name = "streamer"

    def __init__(self) -> None:
        self.release = CrossGate()
        self.redraws = 0

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        for word in REPLY.split(" "):
            await asyncio.sleep(0.04)
            if on_token is not None:
                on_token(0, word + " ")
        await self.release.wait()
        texts = tuple(REPLY for _ in range(call.sampling.n))
        return Generation(texts, Usage(10, 10), 0.5, model=self.name, cost=0.0)

    async def aclose(self) -> None:
        return None


async def test_a_streaming_reply_shows_in_the_status_line_until_it_is_done(
    tmp_path: Path,
) -> None:
    model = Streaming()
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        app.method_name = "io"
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        # v first: the answer streaming in shows (while the player plays it is hidden).
        await pilot.press("v", "s")
        pane = screen.query_one(SolverPane)
        status = pane.query_one("#solver-status", Static)
        await wait_for(pilot, lambda: "(7 - 8 / 8)" in str(status.render()))
        seen = str(status.render())
        assert "thinking…" in seen and "answering: Answer: (7 - 8 / 8)" in seen
        model.release.set()
        await wait_for(pilot, lambda: pane.finished is not None)
        final = str(status.render())
        assert "✓ solved" in final and "answering: Answer" not in final
