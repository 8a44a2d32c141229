"""The concurrency limit adapts to the server: up while calls succeed, down when it is
overloaded, never past the configured maximum; a Retry-After holds every call back."""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from bench.fakeserver import FakeServer
from solver.model import Call, Message, Sampling
from solver.model.adaptive import AdaptiveLimit, concurrency_of
from solver.model.openai import OpenAIModel
from solver.model.remembering import RememberingModel
from solver.roles import Purpose

KEY = "sk-test-abcdefghijkl9876"


def _call(i: int) -> Call:
    return Call(Purpose.ANSWER, (Message("user", f"question {i}"),), Sampling(max_tokens=20))


# -- the limit on its own ----------------------------------------------------------------------


async def test_success_adds_about_one_call_a_round_up_to_the_maximum() -> None:
    limit = AdaptiveLimit(6, start=3)
    rounds = 0
    while limit.limit < 6:  # full rounds: the limit holds calls back, so it learns
        tickets = [await limit.acquire() for _ in range(limit.limit)]
        for ticket in tickets:
            limit.release(ticket, "ok")
        rounds += 1
    assert rounds in (3, 4)  # 1/limit a success: about one call more a round
    for _ in range(20):
        tickets = [await limit.acquire() for _ in range(limit.limit)]
        for ticket in tickets:
            limit.release(ticket, "ok")
    assert limit.exact == 6.0  # never past the configured maximum


async def test_an_idle_limit_does_not_grow() -> None:
    limit = AdaptiveLimit(16, start=4)
    for _ in range(50):  # one call at a time: nothing says the server takes more
        limit.release(await limit.acquire(), "ok")
    assert limit.limit == 4


async def test_a_burst_of_refusals_lowers_the_limit_once() -> None:
    limit = AdaptiveLimit(16)
    tickets = [await limit.acquire() for _ in range(16)]
    for ticket in tickets:  # all sent before the first refusal came back
        limit.release(ticket, "overloaded")
    assert limit.limit == 12  # 16 x 3/4, once
    assert limit.decreases == 1
    ticket = await limit.acquire()  # sent after the decrease: its refusal counts again
    limit.release(ticket, "overloaded")
    assert limit.limit == 9
    for _ in range(20):
        limit.release(await limit.acquire(), "overloaded")
    assert limit.limit == 1  # never below one call


async def test_calls_wait_their_turn_and_start_as_room_frees() -> None:
    limit = AdaptiveLimit(2)
    first, second = await limit.acquire(), await limit.acquire()
    third = asyncio.ensure_future(limit.acquire())
    await asyncio.sleep(0.01)
    assert not third.done() and limit.in_flight == 2
    limit.release(first, "other")
    await asyncio.sleep(0)
    assert third.done() and limit.in_flight == 2
    limit.release(second, "other")
    limit.release(third.result(), "other")
    assert limit.in_flight == 0


async def test_a_cancelled_waiter_gives_its_turn_away() -> None:
    limit = AdaptiveLimit(1)
    held = await limit.acquire()
    gone = asyncio.ensure_future(limit.acquire())
    after = asyncio.ensure_future(limit.acquire())
    await asyncio.sleep(0.01)
    gone.cancel()
    limit.release(held, "ok")
    await asyncio.sleep(0.01)
    assert after.done() and limit.in_flight == 1


async def test_a_pause_holds_back_every_call() -> None:
    limit = AdaptiveLimit(8)
    limit.pause(0.2)
    start = time.monotonic()
    tickets = await asyncio.gather(*(limit.acquire() for _ in range(3)))
    assert time.monotonic() - start >= 0.19
    assert len(tickets) == 3 and limit.in_flight == 3


# -- against a server ----------------------------------------------------------------------------


async def _run(server: FakeServer, concurrency: int, calls: int) -> tuple[float, OpenAIModel]:
    model = OpenAIModel(
        base_url=server.url,
        api_key=KEY,
        model="fake-model",
        cache=False,
        concurrency=concurrency,
        backoff_base=0.05,
        timeout=10.0,
    )
    limits: list[int] = []

    async def one(i: int) -> str:
        generation = await model.generate(_call(i))
        limits.append(model.concurrency().limit)
        return generation.texts[0]

    start = time.perf_counter()
    texts = await asyncio.gather(*(one(i) for i in range(calls)))
    wall = time.perf_counter() - start
    await model.aclose()
    # No call lost: every one has its own answer.
    assert texts == [f"echo 0: question {i}" for i in range(calls)]
    model.limits_seen = limits  # type: ignore[attr-defined]
    return wall, model


async def test_the_limit_settles_near_what_the_server_takes() -> None:
    """A server that refuses (429) every call past 8 in flight, and a maximum of 32: the
    limit comes down to about 8, no call is lost, and the run takes at most 1.5 times as
    long as one with the limit fixed at 8, the best fixed limit for this server."""
    capacity, calls = 8, 160
    with FakeServer(latency=0.1) as server:
        server.capacity = capacity
        ideal, _ = await _run(server, capacity, calls)
        assert server.refused == 0
        adaptive, model = await _run(server, 32, calls)
    seen: list[int] = model.limits_seen  # type: ignore[attr-defined]
    settled = statistics.median(seen[len(seen) // 2 :])
    assert capacity * 0.6 <= settled <= capacity * 1.25, seen
    assert server.refused > 0
    assert model.concurrency().decreases >= 3  # 32 -> 24 -> 18 -> 13.5 -> 10.1 -> ...
    assert model.concurrency().maximum == 32
    assert adaptive <= 1.5 * ideal, (adaptive, ideal)


async def test_retry_after_holds_back_every_call_to_the_server() -> None:
    with FakeServer() as server:
        server.faults.append("429ms:300")
        model = OpenAIModel(
            base_url=server.url, api_key=KEY, model="fake-model", cache=False, concurrency=4
        )
        try:
            first = asyncio.ensure_future(model.generate(_call(0)))
            while not server.chat_requests:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)  # the 429 is back, the pause begun
            others = await asyncio.gather(*(model.generate(_call(i)) for i in range(1, 4)))
            await first
        finally:
            await model.aclose()
    assert [g.texts[0] for g in others] == [f"echo 0: question {i}" for i in range(1, 4)]
    refused, *rest = server.chat_requests
    # The other calls were not told to wait; they waited all the same.
    assert min(r.time for r in rest) - refused.time >= 0.28


async def test_the_limit_is_found_through_wrappers() -> None:
    model = OpenAIModel(base_url="http://127.0.0.1:9/v1", api_key=KEY, model="m", concurrency=5)
    shown = concurrency_of(RememberingModel(model))
    assert shown is not None and str(shown) == "5 of 5"
    assert shown.to_json() == {"limit": 5, "maximum": 5, "decreases": 0}
    assert concurrency_of(object()) is None


@pytest.mark.parametrize("status", ["429", "503"])
async def test_an_overloaded_server_lowers_the_limit(status: str) -> None:
    with FakeServer() as server:
        server.faults.append(status)
        model = OpenAIModel(
            base_url=server.url,
            api_key=KEY,
            model="fake-model",
            cache=False,
            concurrency=8,
            backoff_base=0.001,
        )
        try:
            await model.generate(_call(0))
        finally:
            await model.aclose()
    assert model.concurrency().limit == 6
    assert model.concurrency().decreases == 1
