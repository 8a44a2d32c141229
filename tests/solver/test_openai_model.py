"""OpenAIModel through the real openai client, over real HTTP, against the fake server."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bench.fakeserver import FakeServer, character_usage
from solver.model import Call, Message, Model, ModelError, Sampling, Usage, rough_tokens
from solver.model.openai import OpenAIModel
from solver.roles import Purpose
from solver.settings import Settings

KEY = "sk-test-abcdefghijkl9876"


def call(text: str = "What is 4 * 6?", *, sample_offset: int = 0, **sampling: Any) -> Call:
    return Call(
        Purpose.PROPOSE,
        (Message("system", "You are terse."), Message("user", text)),
        Sampling(**sampling),
        sample_offset=sample_offset,
    )


def counting_reply() -> Callable[[dict[str, Any], int], str]:
    """Replies that differ on every request and choice, so samples can be told apart."""
    counter = itertools.count()
    return lambda request, index: f"sample {next(counter)} (choice {index})"


@pytest.fixture
async def make(fake_server: FakeServer) -> AsyncIterator[Callable[..., OpenAIModel]]:
    """Build models pointed at the fake server; all are closed after the test."""
    made: list[OpenAIModel] = []

    def build(settings: Settings | None = None, **options: Any) -> OpenAIModel:
        options.setdefault("base_url", fake_server.url)
        options.setdefault("api_key", KEY)
        options.setdefault("model", "fake-model")
        options.setdefault("backoff_base", 0.001)
        options.setdefault("timeout", 5.0)
        model = OpenAIModel(settings, **options)
        made.append(model)
        return model

    yield build
    for model in made:
        await model.aclose()


def free_port() -> int:
    """A port that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the basics ----------------------------------------------------------------------------------


async def test_is_a_model(make: Callable[..., OpenAIModel]) -> None:
    model = make()
    assert isinstance(model, Model)
    assert model.name == "fake-model"
    assert KEY not in repr(model)


async def test_streams_deltas_for_every_choice(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    deltas: dict[int, list[str]] = {}
    generation = await make().generate(
        call(n=3), lambda index, delta: deltas.setdefault(index, []).append(delta)
    )
    assert generation.texts == tuple(f"echo {i}: What is 4 * 6?" for i in range(3))
    assert generation.requests == 1
    assert generation.cached is False
    # Several small deltas per sample, which add up to the text.
    for i, text in enumerate(generation.texts):
        assert len(deltas[i]) > 1
        assert "".join(deltas[i]) == text
    [request] = fake_server.chat_requests
    assert request.json["stream"] is True
    assert request.json["stream_options"] == {"include_usage": True}
    assert request.json["n"] == 3
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_fewer_choices_than_n_are_filled_by_extra_requests(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.ignore_n = True
    fake_server.reply = counting_reply()
    seen: dict[int, str] = {}

    def on_token(index: int, delta: str) -> None:
        seen[index] = seen.get(index, "") + delta

    generation = await make().generate(call(n=4), on_token)
    assert len(generation.texts) == 4
    assert len(set(generation.texts)) == 4
    assert generation.requests == 4
    assert seen == dict(enumerate(generation.texts))
    asked = [r.json.get("n", 1) for r in fake_server.chat_requests]
    assert asked == [4, 1, 1, 1]


async def test_a_server_that_keeps_ignoring_n_gets_fanned_out_at_once(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.ignore_n = True
    model = make(cache=False)
    for _ in range(3):
        generation = await model.generate(call(n=2))
        assert len(generation.texts) == 2
    asked = [r.json.get("n", 1) for r in fake_server.chat_requests]
    # Two disappointments, then no more asking for n.
    assert asked == [2, 1, 2, 1, 1, 1]


async def test_seed_differs_per_sample(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.ignore_n = True
    await make(Settings(seed=7)).generate(call(n=3, temperature=0.9))
    seeds = sorted(r.json["seed"] for r in fake_server.chat_requests)
    assert seeds == [7, 8, 9]


async def test_sampling_travels_with_each_call(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.latency = 0.05  # so the two calls overlap
    model = make()
    await asyncio.gather(
        model.generate(call("hot", temperature=1.3, top_p=0.5, max_tokens=7, stop=("END",))),
        model.generate(call("cold", temperature=0.0, top_p=1.0)),
    )
    by_prompt = {r.json["messages"][-1]["content"]: r.json for r in fake_server.chat_requests}
    hot, cold = by_prompt["hot"], by_prompt["cold"]
    assert (hot["temperature"], hot["top_p"], hot["max_tokens"], hot["stop"]) == (
        1.3,
        0.5,
        7,
        ["END"],
    )
    assert (cold["temperature"], cold["top_p"]) == (0.0, 1.0)
    assert "max_tokens" not in cold
    assert "stop" not in cold
    assert fake_server.max_in_flight == 2


async def test_concurrency_limit_is_respected(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.latency = 0.05
    model = make(concurrency=2)
    await asyncio.gather(*(model.generate(call(f"q{i}")) for i in range(6)))
    assert fake_server.max_in_flight == 2
    assert model.requests == 6


async def test_without_a_tight_limit_calls_run_together(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.latency = 0.1
    model = make(concurrency=8)
    await asyncio.gather(*(model.generate(call(f"q{i}")) for i in range(6)))
    assert fake_server.max_in_flight > 2


# -- usage and cost ------------------------------------------------------------------------------


async def test_usage_and_cost_come_from_the_final_chunk(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    settings = Settings(prices={"fake-model": (1.0, 2.0)})
    the_call = call(n=2)
    generation = await make(settings).generate(the_call)
    request = fake_server.chat_requests[0].json
    prompt, completion = character_usage(request, list(generation.texts))
    assert generation.usage == Usage(prompt, completion)
    assert generation.cost == pytest.approx((prompt * 1.0 + completion * 2.0) / 1e6)
    assert generation.model == "fake-model"


async def test_unknown_price_means_no_cost(make: Callable[..., OpenAIModel]) -> None:
    generation = await make(Settings(prices={})).generate(call())
    assert generation.usage.total > 0
    assert generation.cost is None


async def test_missing_usage_is_estimated(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("no_usage")
    the_call = call()
    generation = await make(Settings(prices={"fake-model": (1.0, 1.0)})).generate(the_call)
    prompt = sum(rough_tokens(m.content) for m in the_call.messages)
    assert generation.usage == Usage(prompt, rough_tokens(generation.text))
    assert generation.cost == pytest.approx(generation.usage.total / 1e6)


# -- retries -------------------------------------------------------------------------------------


# How long a retry waits (Retry-After in seconds, milliseconds and as a date, the cap), measured
# between the requests the server received: tests/solver/test_retries.py.


@pytest.mark.parametrize("fault", ["500", "503", "cut", "no_finish", "malformed"])
async def test_transient_failures_are_retried(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str
) -> None:
    retries: list[str] = []
    fake_server.faults.append(fault)
    deltas: list[str] = []
    model = make(on_retry=lambda kind, attempt, wait: retries.append(kind))
    generation = await model.generate(call(n=2), lambda i, d: deltas.append(d))
    assert generation.texts == ("echo 0: What is 4 * 6?", "echo 1: What is 4 * 6?")
    assert generation.requests == 2
    assert len(retries) == 1
    assert retries[0] == ("server" if fault[0] == "5" else "bad_response")


async def test_retries_run_out_into_a_model_error(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500"] * 5)
    model = make(max_retries=2)
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert info.value.kind == "server"
    assert fake_server.url in info.value.message
    assert "3 tries" in info.value.message
    assert len(fake_server.chat_requests) == 3


@pytest.mark.parametrize(
    ("fault", "kind"),
    [("429", "rate_limited"), ("cut", "bad_response"), ("malformed", "bad_response")],
)
async def test_each_exhausted_failure_has_its_kind(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str, kind: str
) -> None:
    fake_server.faults.extend([fault] * 2)
    with pytest.raises(ModelError) as info:
        await make(max_retries=1).generate(call())
    assert info.value.kind == kind


async def test_unknown_model_is_not_retried(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make(model="no-such-model")
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert info.value.kind == "unknown_model"
    assert "no-such-model" in info.value.message
    assert fake_server.url in info.value.message
    assert len(fake_server.chat_requests) == 1
    assert model.retries == 0


@pytest.mark.parametrize(
    ("fault", "kind"), [("401", "auth"), ("403", "auth"), ("400", "bad_request")]
)
async def test_client_errors_are_not_retried(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str, kind: str
) -> None:
    fake_server.faults.append(fault)
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert info.value.kind == kind
    assert len(fake_server.chat_requests) == 1


async def test_wrong_key_is_an_auth_error_that_never_shows_the_key(
    make: Callable[..., OpenAIModel],
) -> None:
    with FakeServer(api_key="sk-the-right-key-0000") as server:
        model = make(base_url=server.url)
        with pytest.raises(ModelError) as info:
            await model.generate(call())
    assert info.value.kind == "auth"
    assert KEY not in info.value.message
    assert "sk-...9876" in info.value.message


async def test_openai_without_a_key_fails_before_any_request(
    make: Callable[..., OpenAIModel],
) -> None:
    model = OpenAIModel(model="gpt-4o-mini")
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert info.value.kind == "auth"
    assert "OPENAI_API_KEY" in info.value.message
    await model.aclose()


async def test_unreachable_server_names_the_url(make: Callable[..., OpenAIModel]) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    retries: list[str] = []
    model = make(
        base_url=url, max_retries=1, timeout=1.0, on_retry=lambda k, a, w: retries.append(k)
    )
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert info.value.kind == "unreachable"
    assert url in info.value.message
    assert retries == ["unreachable"]


async def test_slow_reply_times_out(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("slow:1")
    with pytest.raises(ModelError) as info:
        await make(timeout=0.2, max_retries=0).generate(call())
    assert info.value.kind == "timeout"
    assert "0.2 seconds" in info.value.message


async def test_timeout_is_retried(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("slow:1")
    model = make(timeout=0.2, max_retries=1)
    generation = await model.generate(call())
    assert generation.text.startswith("echo 0")
    assert model.retries == 1


# -- the response cache --------------------------------------------------------------------------


async def test_repeated_call_is_served_from_the_cache(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.reply = counting_reply()
    model = make(Settings(prices={"fake-model": (1.0, 1.0)}))
    first = await model.generate(call(n=2))
    streamed: list[tuple[int, str]] = []
    second = await model.generate(call(n=2), lambda i, d: streamed.append((i, d)))
    assert second.texts == first.texts
    assert second.cached is True
    assert second.requests == 0
    assert second.usage == Usage()
    assert second.cost == 0.0
    assert streamed == list(enumerate(first.texts))
    assert len(fake_server.chat_requests) == 1
    assert model.cache_hits == 2


async def test_cache_never_reuses_a_sample_for_another_index(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.reply = counting_reply()
    model = make()
    zero = await model.generate(call(sample_offset=0))
    one = await model.generate(call(sample_offset=1))
    assert one.text != zero.text
    assert one.cached is False
    assert len(fake_server.chat_requests) == 2
    # Asking for samples 0..2 reuses 0 and 1 and fetches only sample 2.
    three = await model.generate(call(n=3))
    assert three.texts[:2] == (zero.text, one.text)
    assert three.cached is False
    assert three.requests == 1
    assert "n" not in fake_server.chat_requests[-1].json


async def test_cache_key_includes_sampling(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make()
    await model.generate(call(temperature=0.2))
    await model.generate(call(temperature=0.9))
    await model.generate(call(temperature=0.2, stop=("x",)))
    assert len(fake_server.chat_requests) == 3


async def test_the_cache_key_format_is_kept_so_existing_caches_still_answer(
    tmp_path: Path,
) -> None:
    # A cache file outlives the ponder that wrote it: a key made another way would miss every
    # reply already paid for. The key is the SHA-256 of this compact JSON (UTF-8, not escaped
    # to ASCII), with "json" added only for a JSON-mode call, so older keys stay valid. The
    # server does not exist: a call the cache does not answer fails.
    model = OpenAIModel(
        base_url="http://127.0.0.1:1/v1",
        model="m",
        api_key=KEY,
        cache=True,
        cache_file=tmp_path / "cache.sqlite3",
        max_retries=0,
        timeout=2.0,
    )
    assert model.cache is not None
    sampling = Sampling(temperature=0.7, top_p=0.9, max_tokens=50, stop=("\n\n",))
    plain = Call(Purpose.PROPOSE, (Message("user", "Café: 4 × 6?"),), sampling, sample_offset=2)
    identity = '["http://127.0.0.1:1/v1","m",[["user","Café: 4 × 6?"]],0.7,0.9,50,["\\n\\n"],null,2'
    try:
        for the_call, tail in ((plain, "]"), (dataclasses.replace(plain, json=True), ',"json"]')):
            key = hashlib.sha256((identity + tail).encode("utf-8")).hexdigest()
            model.cache.put(key, f"kept under {tail}")
            generation = await model.generate(the_call)
            assert generation.texts == (f"kept under {tail}",) and generation.cached
        # The same call as sample 0 has a key of its own: not cached, so the server is asked.
        with pytest.raises(ModelError):
            await model.generate(dataclasses.replace(plain, sample_offset=0))
    finally:
        await model.aclose()


async def test_cache_off_asks_every_time(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make(Settings(cache=False))
    for _ in range(3):
        generation = await model.generate(call())
        assert generation.cached is False
    assert len(fake_server.chat_requests) == 3
    assert model.cache_hits == 0


async def test_cache_file_survives_a_new_model(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], tmp_path: Path
) -> None:
    fake_server.reply = counting_reply()
    file = tmp_path / "data" / "responses.sqlite"
    first = await make(cache_file=file).generate(call())
    again = await make(cache_file=file).generate(call())
    assert again.text == first.text
    assert again.cached is True
    assert len(fake_server.chat_requests) == 1


async def test_failed_calls_are_not_cached(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make(max_retries=0)
    fake_server.faults.append("cut")
    with pytest.raises(ModelError):
        await model.generate(call())
    generation = await model.generate(call())
    assert generation.cached is False
    assert generation.text == "echo 0: What is 4 * 6?"


# -- checking the connection ---------------------------------------------------------------------


async def test_check_connection_lists_the_model(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    summary = await make().check_connection()
    assert "fake-model" in summary
    assert fake_server.url in summary
    assert fake_server.chat_requests == []  # listing sufficed: nothing spent


async def test_check_connection_reports_an_unknown_model(
    make: Callable[..., OpenAIModel],
) -> None:
    with pytest.raises(ModelError) as info:
        await make(model="nope").check_connection()
    assert info.value.kind == "unknown_model"


async def test_check_connection_reports_an_unreachable_server(
    make: Callable[..., OpenAIModel],
) -> None:
    model = make(base_url=f"http://127.0.0.1:{free_port()}/v1", timeout=1.0)
    with pytest.raises(ModelError) as info:
        await model.check_connection()
    assert info.value.kind == "unreachable"
