"""ToT's depth-first search on mini crosswords (pushes, prunes with the clue that made a state
impossible, backtracks, the step limit, the deepest-state output), and every method on
crosswords end to end: on the offline engine (which reads only the prompt) and over HTTP."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any, cast

import pytest

from bench.fakeserver import FakeServer
from puzzles.crossword import generate, parse_tot
from puzzles.game24 import Hand
from solver.domains.crossword import CrosswordDomain
from solver.domains.game24 import Game24Domain
from solver.events import (
    Backtracked,
    ErrorRaised,
    Event,
    LeafReached,
    RunFinished,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
    WordChecked,
)
from solver.methods import make_method, solve
from solver.methods.tot_dfs import ToTDFS, ToTDFSConfig
from solver.model import Call, Generation, Message, ScriptedModel, TokenCallback
from solver.model.offline import OfflineModel
from solver.model.offline.crossword import CrosswordPlayer
from solver.model.openai import OpenAIModel
from solver.roles import Purpose, Role

SEED = 5  # ACRES / TROLL / TABOO / INEPT / CEDES
SMALL: dict[str, dict[str, Any]] = {
    "cot-sc": {"samples": 4, "batch": 2},
    "bot": {"iterations": 2, "trees": 2},
    "tot-dfs": {"step_limit": 30, "samples": 3},
}
METHODS = ("io", "cot", "cot-sc", "tot-dfs", "bot", "aiot", "giot")


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def user(call: Call) -> str:
    return "\n".join(m.content for m in call.messages if m.role == "user")


def scripted(call: Call) -> str:
    """Proposals by board; ACHES judged impossible for h1 (a wrong prune, as the paper saw
    GPT-4 prune 'agend')."""
    text = user(call)
    if call.purpose == "clue_value":
        return "A typo.\nimpossible" if text.rstrip().endswith(": a c h e s") else "ok\nmaybe"
    if "Current board:\n_ _ _ _ _\n_ _ _ _ _" in text:
        return "h1. aches (certain)\nh1. acres (high)\nv1. trust (low)\nh1. acre (low)"
    if "Current board:\nA C R E S\n_ _ _ _ _" in text:
        return "v2. trust (certain)\nh2. troll (high)"
    return "I see nothing more."


def run(method: Any, domain: Any, model: Any) -> tuple[RunFinished, list[Event]]:
    return asyncio.run(solve(method, domain, model, seed=0))


def test_the_search_pushes_prunes_backtracks_and_answers_with_the_deepest_state() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1))
    fin, events = run(method, domain, ScriptedModel(scripted))
    pushed = [e.text for e in of(events, ThoughtAdded)]
    assert pushed[:3] == [
        "h1. ACHES (certain, 1)",
        "h1. ACRES (high, 0.5)",
        "h2. TROLL (high, 0.5)",
    ]
    (pruned,) = of(events, ThoughtPruned)
    assert pruned.reason == "h1 judged impossible"
    assert any("h1 impossible" in s for e in of(events, ThoughtScored) for s in e.samples)
    # Wrong words are checked exactly, reported and never pushed.
    checks = of(events, WordChecked)
    assert any(c.word == "TRUST" and not c.ok and c.crossing == "h1: C" for c in checks)
    assert any(c.word == "ACRE" and not c.ok and "takes 5 letters" in c.reason for c in checks)
    assert of(events, Backtracked)
    leaves = [e.reason for e in of(events, LeafReached)]
    assert any(r.startswith("output: the deepest state (2 words") for r in leaves)
    assert fin.answer == "ACRES/TROLL/_____/_____/_____" and not fin.solved
    assert domain.measures(fin.answer) == {"letter": 0.4, "word": 0.2, "game": 0.0}


def test_the_step_limit_stops_the_search() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1, step_limit=1))
    fin, events = run(method, domain, ScriptedModel(scripted))
    assert len(of(events, ThoughtAdded)) == 1 and fin.reason == "step limit"
    assert fin.answer == "ACHES/_____/_____/_____/_____"  # the deepest, first visited


def test_without_pruning_the_impossible_state_is_searched() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1, prune=False))
    _, events = run(method, domain, ScriptedModel(scripted))
    assert not of(events, ThoughtPruned)


def test_values_are_asked_once_per_prompt() -> None:
    domain = CrosswordDomain(generate(SEED))
    model = ScriptedModel(scripted)
    run(ToTDFS(ToTDFSConfig(samples=1)), domain, model)
    prompts = [user(c) for c in model.calls if c.purpose == "clue_value"]
    assert prompts and len(prompts) == len(set(prompts))


def test_tot_dfs_on_the_game_of_24_is_a_clear_roles_error() -> None:
    fin, events = run(make_method("tot-dfs"), Game24Domain(Hand.parse("4 7 8 8")), OfflineModel())
    (error,) = of(events, ErrorRaised)
    assert error.kind == "unsupported" and fin.calls == 0
    assert "tot-dfs cannot solve game24 puzzles yet" in error.message
    assert "clue_value" in error.message


@pytest.mark.parametrize("name", METHODS)
def test_every_method_plays_crosswords_on_the_offline_engine(name: str) -> None:
    domain = CrosswordDomain(generate(SEED))
    fin, events = run(make_method(name, **SMALL.get(name, {})), domain, OfflineModel(seed=1))
    assert not of(events, ErrorRaised), of(events, ErrorRaised)
    assert fin.answer is not None and domain.parse_answer(fin.answer) == fin.answer
    measures = domain.measures(fin.answer)
    assert 0 < measures["letter"] <= 1 and fin.solved == (measures["game"] == 1.0)
    if name in ("cot", "tot-dfs", "bot"):  # the steps are checked exactly
        assert of(events, WordChecked)


def test_tot_dfs_does_well_on_generated_minis_offline() -> None:
    letters = []
    for seed in range(3):
        domain = CrosswordDomain(generate(seed))
        fin, events = run(make_method("tot-dfs"), domain, OfflineModel(seed=2))
        letters.append(domain.measures(fin.answer)["letter"])
        assert len(of(events, ThoughtAdded)) <= 100
    assert sum(letters) / len(letters) > 0.6


class ContextBlind:
    """The offline engine behind a wall: every call's ``context`` is emptied first."""

    def __init__(self, inner: OfflineModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        return await self.inner.generate(dataclasses.replace(call, context={}), on_token)

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("name", METHODS)
def test_the_offline_crossword_player_reads_only_the_prompt(name: str) -> None:
    for seed in (1, 2):
        domain = CrosswordDomain(generate(seed))
        method = make_method(name, **SMALL.get(name, {}))
        seen, _ = run(method, domain, OfflineModel(seed=3))
        blind, _ = run(method, domain, ContextBlind(OfflineModel(seed=3)))
        assert (seen.answer, seen.calls) == (blind.answer, blind.calls)


def test_the_player_never_reads_a_solution() -> None:
    # A call whose prompt is a crossword prompt but whose context holds a different
    # "solution" gets the same reply: the player answers from the messages alone.
    domain = CrosswordDomain(generate(SEED))
    call = Call(Purpose.COT, domain.prompt(Role.COT), context={"solution": "ZZZZZ/" * 5})
    player = CrosswordPlayer()
    assert player.recognises(call)
    plain = dataclasses.replace(call, context={})
    assert player.reply(call, random.Random(1), 0) == player.reply(plain, random.Random(1), 0)
    assert not player.recognises(Call(Purpose.IO, (Message("user", "Input: 4 7 8 8"),)))


def server_reply(request: dict[str, Any], index: int) -> str:
    """The fake server answers as the offline player would, from the messages alone."""
    messages = tuple(Message(m["role"], m["content"]) for m in request["messages"])
    call = Call(cast(Purpose, ""), messages)  # a server is told no purpose
    return CrosswordPlayer().reply(call, random.Random(f"{index}|{messages[-1].content}"), 0)


@pytest.mark.parametrize("name", METHODS)
def test_every_method_plays_crosswords_over_http(name: str) -> None:
    domain = CrosswordDomain(generate(SEED))
    options = dict(SMALL.get(name, {}))
    if name == "tot-dfs":
        options["step_limit"] = 6
    with FakeServer(reply=server_reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        fin, events = run(make_method(name, **options), domain, model)
        asyncio.run(model.aclose())
        assert server.chat_requests
    assert not of(events, ErrorRaised), of(events, ErrorRaised)
    assert fin.answer is not None and domain.measures(fin.answer)["letter"] > 0


def test_a_tot_file_puzzle_is_solved_from_its_clues_alone() -> None:
    crossword = generate(SEED)
    row = [[c.text for c in crossword.clues], list("".join(crossword.solution))]
    (loaded,) = parse_tot([row])
    domain = CrosswordDomain(loaded)
    fin, _ = run(make_method("tot-dfs", step_limit=40), domain, OfflineModel(seed=1))
    assert fin.answer is not None and domain.measures(fin.answer)["letter"] > 0.5
