"""The offline engine streams each sample word by word, as a server would send its deltas,
and reports what a server reports with a reply: tokens, its name, the cost."""

from __future__ import annotations

from collections import defaultdict

from puzzles.game24 import Hand
from puzzles.wordproblem import problem_by_id
from solver.domains.game24 import Game24Domain
from solver.domains.wordproblem import WordProblemDomain
from solver.model import Call, Sampling
from solver.model.base import rough_tokens
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role


async def test_each_sample_streams_word_by_word_under_its_own_index() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    call = Call(Purpose.COT, domain.prompt(Role.COT), Sampling(0.7, 1.0, 2))
    pieces: dict[int, list[str]] = defaultdict(list)
    gen = await OfflineModel(seed=2).generate(call, lambda i, delta: pieces[i].append(delta))
    assert len(gen.texts) == 2 and all("\n" in text for text in gen.texts)
    for i, text in enumerate(gen.texts):
        assert pieces[i] == [word + " " for word in text.split(" ")]
    assert set(pieces) == {0, 1}
    # Streamed or not, the same seed gives the same samples.
    again = await OfflineModel(seed=2).generate(call)
    assert again.texts == gen.texts


async def test_every_player_streams_counts_its_tokens_and_time_names_itself_and_costs_nothing() -> (
    None
):
    domain = WordProblemDomain(problem_by_id("bulk_saving/691459251"))
    call = Call(Purpose.COT, domain.prompt(Role.COT), Sampling(0.7, 1.0, 3))
    pieces: dict[int, list[str]] = defaultdict(list)
    model = OfflineModel(seed=2, delay=0.02)
    gen = await model.generate(call, lambda i, delta: pieces[i].append(delta))
    assert {i: "".join(p).rstrip() for i, p in pieces.items()} == dict(enumerate(gen.texts))
    assert 0.02 <= gen.latency < 5  # the thinking time it waited, counted from the call
    assert gen.usage.prompt_tokens == sum(rough_tokens(m.content) for m in call.messages) > 50
    assert gen.usage.completion_tokens == sum(rough_tokens(t) for t in gen.texts) > 10
    assert (gen.model, gen.cost) == ("offline", 0.0)
