"""The offline engine: embedded heuristic players, no network, one per puzzle kind.

:class:`OfflineModel` is the one model the rest of the code sees. Each call goes to the
first player that recognises its prompt (a player reads the messages only, as a model would);
a Game of 24 prompt goes to the Game of 24 player, which is also the fallback that refuses
what nobody recognises. A new puzzle kind adds a module here with a :class:`Player` and one
line in :data:`PLAYERS`.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from typing import Protocol

from solver.model.base import Call, Generation, TokenCallback, Usage, rough_tokens
from solver.model.offline.crossword import CrosswordPlayer
from solver.model.offline.game24 import OfflineModel as _Game24Engine
from solver.model.offline.wordproblem import WordProblemPlayer

__all__ = ["PLAYERS", "OfflineModel", "Player"]


class Player(Protocol):
    """The offline answers for one puzzle kind."""

    def recognises(self, call: Call) -> bool:
        """Whether the call's messages are this kind's prompts (read from the text alone)."""
        ...

    def reply(self, call: Call, rng: random.Random, seed: int) -> str:
        """One sample's text, in the format the prompt asks for."""
        ...


PLAYERS: list[Player] = [CrosswordPlayer(), WordProblemPlayer()]
"""The players of the other puzzle kinds, asked in order before the Game of 24 player."""


class OfflineModel(_Game24Engine):
    """The embedded engine: every puzzle kind's player behind one model."""

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        player = next((p for p in PLAYERS if p.recognises(call)), None)
        if player is None:
            return await super().generate(call, on_token)
        start = time.perf_counter()
        await asyncio.sleep(self.delay)  # the app stays responsive while the engine thinks
        digest = hashlib.blake2b(call.prompt.encode(), digest_size=8).hexdigest()
        texts = []
        for i in range(call.sampling.n):
            # A pure function of (seed, prompt, sample index, sampling): reproducible whatever
            # order concurrent calls finish in.
            rng = random.Random(
                f"{self.seed}|{digest}|{call.sample_offset + i}|{call.sampling.temperature}"
                f"|{call.sampling.top_p}"
            )
            text = player.reply(call, rng, self.seed)
            texts.append(text)
            if on_token is not None:
                for piece in text.split(" "):
                    on_token(i, piece + " ")
        prompt_tokens = sum(rough_tokens(m.content) for m in call.messages)
        usage = Usage(prompt_tokens, sum(rough_tokens(t) for t in texts))
        return Generation(
            tuple(texts), usage, time.perf_counter() - start, model=self.name, cost=0.0
        )
