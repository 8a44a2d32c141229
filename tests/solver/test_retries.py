"""Retries wait for real: the fake server timestamps every request it receives, and the gap
between a rate-limited request and its retry is at least the wait the server asked for, however
it asked (``Retry-After`` in seconds or as an HTTP date, ``retry-after-ms``)."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bench.fakeserver import FakeServer, RecordedRequest
from solver.model import Call, Message, Sampling
from solver.model.openai import OpenAIModel
from solver.roles import Purpose

Retry = tuple[str, int, float]


@pytest.fixture
async def make(fake_server: FakeServer) -> AsyncIterator[Callable[..., OpenAIModel]]:
    """Models pointed at the fake server, with a backoff of its own far shorter than any wait
    a test asks for: a wait that is not the server's shows as a gap that is too short."""
    made: list[OpenAIModel] = []

    def build(**options: Any) -> OpenAIModel:
        options.setdefault("base_url", fake_server.url)
        options.setdefault("api_key", "sk-test-abcdefghijkl9876")
        options.setdefault("model", "fake-model")
        options.setdefault("backoff_base", 0.001)
        options.setdefault("timeout", 5.0)
        model = OpenAIModel(**options)
        made.append(model)
        return model

    yield build
    for model in made:
        await model.aclose()


async def generate_through(model: OpenAIModel) -> None:
    call = Call(Purpose.PROPOSE, (Message("user", "What is 4 * 6?"),), Sampling())
    generation = await model.generate(call)
    assert generation.text == "echo 0: What is 4 * 6?"


def limited_and_retry(server: FakeServer) -> tuple[RecordedRequest, RecordedRequest]:
    first, retry = server.chat_requests
    assert first.fault is not None and first.fault.startswith("429")
    assert retry.fault is None
    return first, retry


@pytest.mark.parametrize("seconds", [0.3, 0.6])
async def test_retry_after_in_seconds_is_waited(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], seconds: float
) -> None:
    retries: list[Retry] = []
    fake_server.faults.append(f"429:{seconds}")
    await generate_through(make(on_retry=lambda *info: retries.append(info)))
    first, retry = limited_and_retry(fake_server)
    assert retry.time - first.time >= seconds
    assert retries == [("rate_limited", 1, seconds)]  # and the screen is told the truth


async def test_retry_after_ms_is_waited(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    retries: list[Retry] = []
    fake_server.faults.append("429ms:400")
    await generate_through(make(on_retry=lambda *info: retries.append(info)))
    first, retry = limited_and_retry(fake_server)
    assert retry.time - first.time >= 0.4
    expected: list[object] = [("rate_limited", 1, pytest.approx(0.4))]
    assert retries == expected


async def test_retry_after_as_an_http_date_is_waited(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    # An HTTP date has whole seconds: the first whole second at least 0.6 s away, so that the
    # wait is still well above the model's own 1 ms backoff however slowly the request goes out.
    until = math.ceil(time.time() + 0.6)
    wall_minus_monotonic = time.time() - time.monotonic()
    fake_server.faults.append(f"429date:{until}")
    await generate_through(make())
    first, retry = limited_and_retry(fake_server)
    asked = until - (first.time + wall_minus_monotonic)  # the wait, from when it was asked
    assert asked >= 0.2
    # 5 ms for the two clocks drifting apart while the test runs.
    assert retry.time - first.time >= asked - 0.005


async def test_a_long_retry_after_is_capped_and_the_cap_is_waited(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("429:30")
    await generate_through(make(retry_after_cap=0.3))
    first, retry = limited_and_retry(fake_server)
    gap = retry.time - first.time
    assert gap >= 0.3
    assert gap < 10  # not the 30 s asked for


async def test_each_retry_waits_its_own_wait(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["429:0.3", "429ms:300"])
    model = make()
    await generate_through(model)
    first, second, third = fake_server.chat_requests
    assert second.time - first.time >= 0.3
    assert third.time - second.time >= 0.3
    assert third.fault is None and model.retries == 2


async def test_retry_after_zero_means_retry_now(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    retries: list[Retry] = []
    fake_server.faults.append("429:0")
    # Our own backoff would wait 2.5 to 5 s: a retry sooner than that honoured the server's 0.
    model = make(backoff_base=5.0, on_retry=lambda *info: retries.append(info))
    await generate_through(model)
    first, retry = limited_and_retry(fake_server)
    assert retry.time - first.time < 2.5
    assert retries == [("rate_limited", 1, 0.0)] and model.retries == 1
