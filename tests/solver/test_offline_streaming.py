"""The offline engine streams each sample word by word, as a server would send its deltas."""

from __future__ import annotations

from collections import defaultdict

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.model import Call, Sampling
from solver.model.offline import OfflineModel


async def test_each_sample_streams_word_by_word_under_its_own_index() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    call = Call("cot", domain.prompt("cot"), Sampling(0.7, 1.0, 2))
    pieces: dict[int, list[str]] = defaultdict(list)
    gen = await OfflineModel(seed=2).generate(call, lambda i, delta: pieces[i].append(delta))
    assert len(gen.texts) == 2 and all("\n" in text for text in gen.texts)
    for i, text in enumerate(gen.texts):
        assert pieces[i] == [word + " " for word in text.split(" ")]
    assert set(pieces) == {0, 1}
    # Streamed or not, the same seed gives the same samples.
    again = await OfflineModel(seed=2).generate(call)
    assert again.texts == gen.texts
