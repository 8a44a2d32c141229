"""Calls to the offline engine as a method makes them, for the tests of its players: one reply
to a prompt, BoT's analysis, ToT's value, IoT's answerer, a word problem typed in; a model
that keeps every call and a context that fails a test when the engine looks inside."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any, cast

from puzzles.game24 import Hand
from puzzles.game24.rules import State
from puzzles.wordproblem import WordProblem
from solver.domains.base import Reply
from solver.domains.game24 import Game24Domain, parse_reply
from solver.domains.wordproblem import WordProblemDomain
from solver.model import Call, Generation, Message, Sampling, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role
from tests.solver.game24_replies import answer


def reply(
    purpose: str,
    prompt: tuple[Message, ...],
    seed: int,
    temperature: float = 0.7,
    top_p: float = 1.0,
) -> str:
    # The player never reads the purpose (tests name it freely, tot_propose).
    call = Call(
        cast(Purpose, purpose), prompt, Sampling(temperature, top_p, 1, 600), {}, sample_offset=seed
    )
    return asyncio.run(OfflineModel(seed=seed).generate(call)).text


def domain_of(question: str) -> WordProblemDomain:
    return WordProblemDomain(WordProblem(question, Fraction(0), id="typed"))


def analysis(hand: str, chain: list[str], seed: int = 1) -> list[str]:
    prompt = Game24Domain(Hand.parse(hand)).prompt(Role.ANALYZE, chain=chain)
    return reply("bot_feedback", prompt, seed).splitlines()


def value(numbers: str, seed: int, temp: float = 0.7) -> str:
    state = State(tuple(Fraction(n) for n in numbers.split()))
    return reply(
        "value", Game24Domain(Hand.parse("4 7 8 8")).prompt(Role.VALUE, state=state), seed, temp
    )


def chain_entry(steps: list[str], verdicts: list[str]) -> str:
    lines = ["1. Reasoning chain and comments", "---"]
    lines += [f"Step {i}: {step}" for i, step in enumerate(steps, 1)]
    lines += ["---", "Analysis Report: it does not make 24."]
    lines += [
        f"Step {i}: Error report: -. Advice: -. Recommendation or Reject: {verdict}"
        for i, verdict in enumerate(verdicts, 1)
    ]
    return "\n".join(lines)


HAND = Hand.parse("4 7 8 8")


def text_of(
    purpose: str, prompt: tuple[Message, ...], offset: int, seed: int = 0, temp: float = 0.7
) -> str:
    call = Call(Purpose(purpose), prompt, Sampling(temp, 1.0, 1, 600), {}, sample_offset=offset)
    return asyncio.run(OfflineModel(seed=seed).generate(call)).text


def respond(
    answers: list[str | None],
    guidance: str,
    mode: str,
    offset: int,
    hand: Hand = HAND,
    seed: int = 0,
) -> Reply:
    """The answerer's reply after ``answers`` (one per turn) and the guide's ``guidance``."""
    domain = Game24Domain(hand)
    turns = tuple(domain.turn("Go on.", parse_reply(answer(a))) for a in answers)
    prompt = domain.prompt(Role.RESPOND, turns=turns, guidance=guidance, mode=mode)
    return parse_reply(text_of("iot_answer", prompt, offset, seed))


class Untouchable(Mapping[str, Any]):
    """A context that fails the test when anyone looks inside."""

    def __getitem__(self, key: str) -> Any:
        raise AssertionError(f"the engine read context[{key!r}]")

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the engine iterated over the context")

    def __len__(self) -> int:
        raise AssertionError("the engine measured the context")


class Recorder:
    """The plain engine, keeping every call and its texts."""

    def __init__(self, inner: OfflineModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[Call, tuple[str, ...]]] = []

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        gen = await self.inner.generate(call, on_token)
        self.calls.append((call, gen.texts))
        return gen

    async def aclose(self) -> None:
        return None
