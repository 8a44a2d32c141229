"""The offline engine: one player per puzzle kind, named by the kind's spec, behind one model
that is none of them; the Game of 24's is asked last; no player keeps anything of one call
for the next."""

from __future__ import annotations

import asyncio
import copy
import itertools
import random

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.kinds import KINDS
from solver.model import Call, Message, Sampling
from solver.model.offline import PLAYERS, OfflineModel
from solver.model.offline.game24 import Game24Player
from solver.roles import Purpose, Role


def test_every_kind_names_its_player_and_the_game_of_24_s_is_asked_last() -> None:
    named = {kind.name: kind.player for kind in KINDS.values()}
    assert all(named.values()), named
    assert len(PLAYERS) == len(KINDS)
    assert [type(p).__name__ for p in PLAYERS] == [
        "CrosswordPlayer",
        "WordProblemPlayer",
        "Game24Player",
    ]
    assert [k.name for k in KINDS.values() if k.player_last] == ["game24"]


def test_the_engine_is_no_player_and_no_player_is_another_s() -> None:
    assert OfflineModel.__mro__ == (OfflineModel, object)
    for a, b in itertools.permutations(PLAYERS, 2):
        assert not isinstance(a, type(b)), (type(a), type(b))


def _calls() -> list[Call]:
    """A prompt of each kind, and Game of 24 prompts for two targets."""
    out = []
    for hand in (Hand.parse("4 7 8 8"), Hand.parse("2 3 5", target=10), Hand.parse("1 5 5 5")):
        domain = Game24Domain(hand)
        state = domain.start()
        out.append(Call(Purpose.PROPOSE, domain.prompt(Role.PROPOSE, state=state)))
        out.append(Call(Purpose.VALUE, domain.prompt(Role.VALUE, state=state)))
        out.append(Call(Purpose.COT, domain.prompt(Role.COT)))
    for kind in ("crossword", "wordproblem"):
        spec = KINDS[kind]
        assert spec.generate is not None
        out.append(Call(Purpose.COT, spec.make_domain(spec.generate(1)).prompt(Role.COT)))
    return out


def test_a_player_keeps_nothing_of_one_call_for_the_next() -> None:
    before = [copy.deepcopy(vars(p)) for p in PLAYERS]
    for call in _calls():
        player = next(p for p in PLAYERS if p.recognises(call))
        player.reply(call, random.Random(0), 3)
    assert [vars(p) for p in PLAYERS] == before


def test_calls_in_flight_together_answer_as_each_would_alone() -> None:
    calls = [
        Call(c.purpose, c.messages, Sampling(0.7, 1.0, 2, 600), sample_offset=i)
        for i, c in enumerate(_calls())
    ]

    async def together() -> list[tuple[str, ...]]:
        engine = OfflineModel(seed=4, delay=0.01)
        done = await asyncio.gather(*(engine.generate(c) for c in calls))
        return [g.texts for g in done]

    async def alone() -> list[tuple[str, ...]]:
        return [(await OfflineModel(seed=4).generate(c)).texts for c in reversed(calls)][::-1]

    assert asyncio.run(together()) == asyncio.run(alone())


def test_a_prompt_no_player_reads_is_refused_by_the_last_one_in_plain_words() -> None:
    call = Call(Purpose.COT, (Message("user", "Tell me a story."),))
    assert isinstance(PLAYERS[-1], Game24Player) and PLAYERS[-1].recognises(call)
    assert not any(p.recognises(call) for p in PLAYERS[:-1])
