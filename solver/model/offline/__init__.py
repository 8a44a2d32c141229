"""The offline engine: embedded heuristic players, no network, one per puzzle kind.

:class:`OfflineModel` is the one model the rest of the code sees. Each call goes to the
first player that recognises its prompt (a player reads the messages only, as a model would);
a Game of 24 prompt goes to the Game of 24 player, which is also the fallback that refuses
what nobody recognises. A new puzzle kind adds a module here with a :class:`Player` and one
player named by the kind's spec (:mod:`solver.kinds`).
"""

from __future__ import annotations

import random
from typing import Protocol

from solver.model.base import Call, Generation, TokenCallback
from solver.model.offline.game24 import OfflineModel as _Game24Engine
from solver.model.offline.sampling import sample_replies

__all__ = ["PLAYERS", "OfflineModel", "Player"]


class Player(Protocol):
    """The offline answers for one puzzle kind."""

    def recognises(self, call: Call) -> bool:
        """Whether the call's messages are this kind's prompts (read from the text alone)."""
        ...

    def reply(self, call: Call, rng: random.Random, seed: int) -> str:
        """One sample's text, in the format the prompt asks for."""
        ...


def _players() -> list[Player]:
    """The players the kinds catalogue names, in its order (the Game of 24 engine answers
    what none of them recognises)."""
    from solver.kinds import KINDS

    return [player for kind in KINDS.values() if (player := kind.make_player()) is not None]


PLAYERS: list[Player] = _players()
"""The players of the other puzzle kinds, asked in order before the Game of 24 player."""


class OfflineModel(_Game24Engine):
    """The embedded engine: every puzzle kind's player behind one model."""

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        player = next((p for p in PLAYERS if p.recognises(call)), None)
        if player is None:
            return await super().generate(call, on_token)
        return await sample_replies(
            call,
            lambda rng: player.reply(call, rng, self.seed),
            seed=self.seed,
            name=self.name,
            delay=self.delay,
            on_token=on_token,
        )
