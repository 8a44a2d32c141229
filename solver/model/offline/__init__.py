"""The offline engine: embedded heuristic players, no network, one per puzzle kind.

:class:`OfflineModel` is the one model the rest of the code sees. Each call goes to the
first player that recognises its prompt (a player reads the messages only, as a model would).
Each kind's spec (:mod:`solver.kinds`) names its player; the players are asked in the
catalogue's order, and the one whose kind says ``player_last`` (the Game of 24's) after all
the others: it answers what none of them recognises and refuses, saying why, what it cannot
read. A player keeps nothing of one call for the next. A new puzzle kind adds a module here
with a :class:`Player` and names it in its spec.
"""

from __future__ import annotations

import random
from typing import Protocol

from solver.model.base import Call, Generation, ModelError, TokenCallback
from solver.model.offline.sampling import sample_replies

__all__ = ["PLAYERS", "OfflineModel", "Player"]


class Player(Protocol):
    """The offline answers for one puzzle kind."""

    def recognises(self, call: Call) -> bool:
        """Whether the call's messages are this kind's prompts (read from the text alone)."""
        ...

    def reply(self, call: Call, rng: random.Random, seed: int) -> str:
        """One sample's text, in the format the prompt asks for (:class:`ModelError`
        ``bad_request`` for a prompt it cannot read)."""
        ...


def _players() -> list[Player]:
    """The players the kinds catalogue names, in its order, the last-asked one last."""
    from solver.kinds import KINDS

    kinds = sorted(KINDS.values(), key=lambda kind: kind.player_last)  # a stable sort
    return [player for kind in kinds if (player := kind.make_player()) is not None]


PLAYERS: list[Player] = _players()
"""Every kind's player, in the order they are asked."""


class OfflineModel:
    """The embedded engine: every puzzle kind's player behind one model. ``seed`` makes the
    replies (each a pure function of the seed, the prompt, the sample index and the
    sampling); ``delay`` is how long it thinks before a reply."""

    def __init__(self, seed: int = 0, *, delay: float = 0.0) -> None:
        self.name = "offline"
        self.seed = seed
        self.delay = delay

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        player = next((p for p in PLAYERS if p.recognises(call)), None)
        if player is None:
            raise ModelError("bad_request", "no offline player reads this prompt")
        return await sample_replies(
            call,
            lambda rng: player.reply(call, rng, self.seed),
            seed=self.seed,
            name=self.name,
            delay=self.delay,
            on_token=on_token,
        )

    async def aclose(self) -> None:
        return None
