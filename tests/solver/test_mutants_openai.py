"""OpenAIModel pinned exactly (issue 14: mutation testing of solver/openai_model.py).

What a caller and a person rely on, to the letter: the words of every error, how many tries
and how long the waits, the cache key of each sample, usage sums, the concurrency bound, the
reply caps at their exact limits, redaction of a key in every form, finish reasons.

Real HTTP on 127.0.0.1 only. Most tests use :class:`tests.fakeserver.FakeServer`; shapes it
cannot make (an error body without a message, a plain-text error, a gap in the choices, a
slow model list) come from :class:`RawServer` below, a few lines of asyncio that answer each
request with the next scripted :class:`Exchange`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import socket
import time
import urllib.parse
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from solver.model import Call, Message, ModelError, Sampling, Usage, rough_tokens
from solver.openai_model import (
    OPENAI_BASE_URL,
    OpenAIModel,
    Redactor,
    ReplyLimits,
    ResponseCache,
    _cause_text,
    _retry_after,
    _StreamRedactor,
)
from solver.settings import Settings
from tests.fakeserver import FakeServer

KEY = "sk-mutant-7Hq2vX9pLm4RtY8wZb3NcK6d"
MASKED = Settings(api_key=KEY).masked_key()


def call(text: str = "What is 4 * 6?", *, sample_offset: int = 0, **sampling: Any) -> Call:
    return Call("propose", (Message("user", text),), Sampling(**sampling), sample_offset=sample_offset)


def free_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- a server that says exactly what a test scripts --------------------------------------------


@dataclass
class Exchange:
    """One scripted HTTP response: a body sent whole, or ``events`` sent as a chunked
    server-sent event stream (each one a ``data:`` line). ``hang``: no answer at all."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    events: list[str] | None = None
    delay: float = 0.0
    hang: bool = False


def chunk(index: int = 0, content: str | None = None, finish: str | None = None) -> object:
    """One stream chunk with one choice."""
    delta = {} if content is None else {"content": content}
    return {"model": "raw-model", "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def stream(*chunks: object, done: bool = True) -> Exchange:
    """A streamed reply made of ``chunks`` (JSON-encoded unless already text)."""
    events = [c if isinstance(c, str) else json.dumps(c) for c in chunks]
    return Exchange(events=[*events, "[DONE]"] if done else events)


def reply(*texts: str, usage: object = None, reason: str = "stop") -> Exchange:
    """A plain streamed reply: one choice per text, then usage if given."""
    chunks: list[object] = []
    for i, text in enumerate(texts):
        chunks += [chunk(i, text), chunk(i, finish=reason)]
    if usage is not None:
        chunks.append({"choices": [], "usage": usage})
    return stream(*chunks)


def error(status: int, body: object, headers: dict[str, str] | None = None) -> Exchange:
    """An error response: JSON unless ``body`` is text."""
    if isinstance(body, str):
        raw, kind = body.encode(), "text/plain"
    else:
        raw, kind = json.dumps(body).encode(), "application/json"
    return Exchange(status, raw, {"Content-Type": kind, **(headers or {})})


class RawServer:
    """An HTTP/1.1 server on 127.0.0.1 in the test's own event loop. Each chat request gets
    the next of :attr:`chat` (a plain reply once they run out); ``GET /v1/models`` gets
    :attr:`models`. Every request is recorded in :attr:`requests` (method, path, JSON body)."""

    def __init__(self) -> None:
        self.chat: deque[Exchange] = deque()
        self.models = Exchange(
            200, json.dumps({"object": "list", "data": [{"id": "raw-model"}]}).encode()
        )
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [body for method, path, body in self.requests if method == "POST"]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client hung up (a deadline, a cap)
        finally:
            writer.close()
            self._tasks.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path, _ = head[0].split(" ", 2)
        headers = dict(line.lower().split(": ", 1) for line in head[1:] if ": " in line)
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        self.requests.append((method, path, json.loads(raw) if raw else {}))
        if method == "GET":
            exchange = self.models
        else:
            exchange = self.chat.popleft() if self.chat else reply("fine")
        if exchange.delay:
            await asyncio.sleep(exchange.delay)
        if exchange.hang:
            await asyncio.sleep(3600)
        lines = [f"HTTP/1.1 {exchange.status} X", "Connection: close"]
        if exchange.events is None:
            kind = {"Content-Type": "application/json"}
            lines += [f"{k}: {v}" for k, v in {**kind, **exchange.headers}.items()]
            lines.append(f"Content-Length: {len(exchange.body)}")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + exchange.body)
        else:
            lines += ["Content-Type: text/event-stream", "Transfer-Encoding: chunked"]
            lines += [f"{k}: {v}" for k, v in exchange.headers.items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
            for event in exchange.events:
                data = f"data: {event}\n\n".encode()
                writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            writer.write(b"0\r\n\r\n")
        await writer.drain()


@pytest.fixture
async def raw() -> AsyncIterator[RawServer]:
    async with RawServer() as server:
        yield server


@pytest.fixture
async def make(fake_server: FakeServer) -> AsyncIterator[Callable[..., OpenAIModel]]:
    """Models (pointed at the fake server unless told otherwise); all closed after the test."""
    made: list[OpenAIModel] = []

    def build(settings: Settings | None = None, **options: Any) -> OpenAIModel:
        options.setdefault("base_url", fake_server.url)
        options.setdefault("api_key", KEY)
        options.setdefault("model", "fake-model")
        options.setdefault("backoff_base", 0.001)
        options.setdefault("timeout", 5.0)
        options.setdefault("max_retries", 1)
        model = OpenAIModel(settings, **options)
        made.append(model)
        return model

    yield build
    for model in made:
        await model.aclose()


async def fails(model: OpenAIModel, the_call: Call | None = None) -> ModelError:
    """The error ``model`` raises for ``the_call``."""
    with pytest.raises(ModelError) as info:
        await model.generate(the_call or call())
    return info.value


# -- errors, word for word -----------------------------------------------------------------------


async def test_a_server_error_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500", "502"])
    err = await fails(make())
    assert err.kind == "server"
    assert err.retryable is True
    assert err.message == (
        f"The model server at {fake_server.url} failed (HTTP 502: fake error 502) "
        "(gave up after 2 tries)."
    )
    assert str(err) == err.message


async def test_one_try_says_no_count(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("503")
    err = await fails(make(max_retries=0))
    assert err.message == f"The model server at {fake_server.url} failed (HTTP 503: fake error 503)."


async def test_a_rate_limit_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["429", "429"])
    err = await fails(make())
    assert (err.kind, err.retryable) == ("rate_limited", True)
    assert err.message == (
        f"The model server at {fake_server.url} is rate limiting requests (fake error 429) "
        "(gave up after 2 tries)."
    )


async def test_a_broken_stream_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["no_finish", "no_finish", "no_finish"])
    err = await fails(make(max_retries=2))
    assert err.kind == "bad_response"
    assert err.message == (
        f"The model server at {fake_server.url} sent a broken reply: the reply stream ended "
        "before the answer was finished (gave up after 3 tries)."
    )


async def test_an_error_event_mid_reply_word_for_word(raw: RawServer) -> None:
    event = {"error": {"message": "overloaded", "type": "server_error"}}
    raw.chat.extend([stream(chunk(0, "Let me"), event)] * 2)
    model = OpenAIModel(base_url=raw.url, model="m", max_retries=1, backoff_base=0.001)
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert err.kind == "server"
    assert err.message == (
        f"The model server at {raw.url} failed (it reported an error mid-reply: overloaded) "
        "(gave up after 2 tries)."
    )


async def test_a_bad_request_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("400")
    err = await fails(make())
    assert (err.kind, err.retryable) == ("bad_request", False)
    assert err.message == (
        f"The server at {fake_server.url} rejected the request (HTTP 400: fake error 400)."
    )
    assert len(fake_server.chat_requests) == 1


async def test_an_unknown_model_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    err = await fails(make(model="nope"))
    assert (err.kind, err.retryable) == ("unknown_model", False)
    assert err.message == (
        f"The server at {fake_server.url} has no model named 'nope' (HTTP 404: The model "
        "`nope` does not exist or you do not have access to it.)."
    )


async def test_a_404_without_a_word_of_models_hints_at_the_base_url(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    root = fake_server.url.removesuffix("/v1")
    err = await fails(make(base_url=root))
    assert err.kind == "unknown_model"
    assert err.message == (
        f"The server at {root} has no model named 'fake-model' (HTTP 404: no route "
        "/chat/completions). Check the base URL too: it usually ends in /v1."
    )


async def test_a_refused_key_word_for_word(make: Callable[..., OpenAIModel]) -> None:
    with FakeServer(api_key="sk-the-right-key-0000") as server:
        err = await fails(make(base_url=server.url))
        assert (err.kind, err.retryable) == ("auth", False)
        assert err.message == (
            f"The server at {server.url} refused the API key {MASKED} (HTTP 401: Incorrect "
            "API key provided.). Set OPENAI_API_KEY, or api_key in the config file."
        )
        no_key = OpenAIModel(base_url=server.url, model="fake-model")
        try:
            err = await fails(no_key)
        finally:
            await no_key.aclose()
        assert err.message == (
            f"The server at {server.url} needs an API key (HTTP 401: Incorrect API key "
            "provided.). Set OPENAI_API_KEY, or api_key in the config file."
        )


async def test_openai_without_a_key_word_for_word() -> None:
    model = OpenAIModel(model="gpt-4o-mini")
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert err.kind == "auth"
    assert err.retryable is False
    assert err.message == (
        f"The server at {OPENAI_BASE_URL} needs an API key. "
        "Set OPENAI_API_KEY, or api_key in the config file."
    )
    assert model.requests == 0


async def test_a_bad_base_url_word_for_word() -> None:
    model = OpenAIModel(base_url="http://[bad", api_key=KEY)
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert (err.kind, err.retryable) == ("bad_url", False)
    assert err.message == "The base URL 'http://[bad' is not usable: it is not a URL (Invalid IPv6 URL)."


async def test_an_unreachable_server_word_for_word(make: Callable[..., OpenAIModel]) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    err = await fails(make(base_url=url))
    assert (err.kind, err.retryable) == ("unreachable", True)
    assert err.message == (
        f"Cannot reach the model server at {url} (All connection attempts failed). "
        "Is it running? (gave up after 2 tries)"
    )
    err = await fails(make(base_url=url, max_retries=0))
    assert err.message == (
        f"Cannot reach the model server at {url} (All connection attempts failed). Is it running?"
    )


async def test_a_slow_answer_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["slow:0.5", "slow:0.5"])
    err = await fails(make(timeout=0.1, call_deadline=5.0))
    assert (err.kind, err.retryable) == ("timeout", True)
    assert err.message == (
        f"The model server at {fake_server.url} did not answer within 0.1 seconds "
        "(gave up after 2 tries)."
    )
    fake_server.faults.append("slow:0.5")
    err = await fails(make(timeout=0.1, max_retries=0, call_deadline=5.0))
    assert err.message == (
        f"The model server at {fake_server.url} did not answer within 0.1 seconds."
    )


async def test_the_calls_deadline_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("trickle:0.05")
    err = await fails(make(max_retries=0, call_deadline=0.3))
    assert (err.kind, err.retryable) == ("timeout", False)
    assert err.message == (
        f"The model server at {fake_server.url} did not finish the reply within the call's "
        "deadline of 0.3 seconds."
    )


async def test_the_calls_deadline_after_several_tries_counts_them(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500", "trickle:0.05"])
    err = await fails(make(max_retries=3, call_deadline=0.4))
    assert err.message == (
        f"The model server at {fake_server.url} did not finish the reply within the call's "
        "deadline of 0.4 seconds (2 tries)."
    )
    assert len(fake_server.chat_requests) == 2


async def test_a_retry_that_would_pass_the_deadline_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["429:0.3", "429:0.3", "429:0.3"])
    err = await fails(make(max_retries=3, call_deadline=0.5))
    assert (err.kind, err.retryable) == ("rate_limited", True)
    assert err.message == (
        f"The model server at {fake_server.url} is rate limiting requests (fake error 429) "
        "(gave up after 2 tries: another would pass the call's deadline of 0.5 seconds)."
    )
    assert len(fake_server.chat_requests) == 2


async def test_a_flood_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("flood")
    err = await fails(make(), call(max_tokens=10))
    assert (err.kind, err.retryable) == ("too_large", False)
    # 2 * 10 + 64 deltas of 4 KiB: the characters run out first (16 a token).
    assert err.message == (
        f"The model server at {fake_server.url} sent too much: the reply passed 1,344 "
        "characters and was not read further (max_tokens was 10: the server ignores it)."
    )
    fake_server.faults.append("flood")
    err = await fails(make())
    assert err.message == (
        f"The model server at {fake_server.url} sent too much: the reply passed 524,288 "
        "characters and was not read further (no reply needs that much)."
    )


# -- checking the connection ---------------------------------------------------------------------


async def test_a_listed_model_is_available_without_a_request(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make()
    assert await model.check_connection() == (
        f"Connected to {fake_server.url}: model 'fake-model' is available."
    )
    assert fake_server.chat_requests == []
    assert model.requests == 1  # the list of models


async def test_an_ollama_tag_counts_as_listed(make: Callable[..., OpenAIModel]) -> None:
    with FakeServer(models={"llama3:latest"}) as server:
        model = make(base_url=server.url, model="llama3")
        summary = await model.check_connection()
        assert summary == f"Connected to {server.url}: model 'llama3' is available."
        assert server.chat_requests == []


async def test_an_unlisted_model_is_asked_for_one_token(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.models = None  # lists fake-model, answers any name
    model = make(Settings(seed=7), model="other")
    assert await model.check_connection() == (
        f"Connected to {fake_server.url}: model 'other' answered (1 models listed)."
    )
    [probe] = fake_server.chat_requests
    assert probe.json["messages"] == [{"role": "user", "content": "Reply with OK."}]
    assert (probe.json["temperature"], probe.json["max_tokens"]) == (0, 1)
    assert probe.json["seed"] == 7  # asked as the first sample of a call is
    assert "n" not in probe.json
    assert model.requests == 2


async def test_a_server_without_a_list_of_models_is_asked(raw: RawServer) -> None:
    raw.models = error(404, {"error": {"message": "no route /v1/models"}})
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        summary = await model.check_connection()
    finally:
        await model.aclose()
    assert summary == f"Connected to {raw.url}: model 'm' answered."
    assert len(raw.chat_requests) == 1


async def test_a_list_of_models_that_never_comes_meets_the_deadline(raw: RawServer) -> None:
    raw.models = Exchange(hang=True)
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, timeout=5.0, call_deadline=0.3)
    start = time.perf_counter()
    try:
        with pytest.raises(ModelError) as info:
            await model.check_connection()
    finally:
        await model.aclose()
    assert time.perf_counter() - start < 2.0
    assert (info.value.kind, info.value.retryable) == ("timeout", False)
    assert info.value.message == (
        f"The model server at {raw.url} did not finish the reply within the call's deadline "
        "of 0.3 seconds."
    )
    assert raw.chat_requests == []


async def test_a_list_of_models_too_large_to_read(raw: RawServer) -> None:
    padding = b"x" * ((32 << 20) + 1)  # one byte past the cap on bodies read whole
    raw.models = Exchange(200, b'{"object": "list", "data": [{"id": "' + padding + b'"}]}')
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        with pytest.raises(ModelError) as info:
            await model.check_connection()
    finally:
        await model.aclose()
    assert (info.value.kind, info.value.retryable) == ("too_large", False)
    assert info.value.message == (
        f"The model server at {raw.url} sent too much: its list of models is too large to read."
    )


async def test_a_refused_list_of_models_is_the_error(raw: RawServer) -> None:
    raw.models = error(401, {"error": {"message": "bad key"}})
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        with pytest.raises(ModelError) as info:
            await model.check_connection()
    finally:
        await model.aclose()
    assert info.value.kind == "auth"
    assert info.value.message == (
        f"The server at {raw.url} refused the API key {MASKED} (HTTP 401: bad key). "
        "Set OPENAI_API_KEY, or api_key in the config file."
    )
    assert raw.chat_requests == []


# -- secrets -------------------------------------------------------------------------------------


def test_pieces_of_a_key_are_hidden_and_the_text_around_them_kept() -> None:
    redactor = Redactor([KEY])
    # Two cut pieces of the key with other text of the key's own letters between them.
    text = KEY[:20] + "7zz" + KEY[26:34]
    assert redactor.scrub(text) == "[redacted]7zz[redacted]"
    assert redactor.scrub("sak" + KEY[3:15] + "mutant") == "sak[redacted]mutant"
    assert redactor.scrub(KEY[:12] + "Hq2") == "[redacted]Hq2"
    assert redactor.scrub("no secret here") == "no secret here"
    assert redactor.scrub("") == ""


def test_a_key_is_shown_as_its_shown_form_and_its_encodings_hidden() -> None:
    redactor = Redactor([KEY], {KEY: MASKED})
    assert redactor.scrub(f"Bearer {KEY}.") == f"Bearer {MASKED}."
    encoded = base64.b64encode(f"Bearer {KEY}".encode()).decode()
    # Left readable: "Bearer sk" and the key's last two characters (encoded at the ends).
    assert redactor.scrub(f"b64 {encoded} end") == "b64 QmVhcmVyIHNr[redacted]NmQ= end"
    password = 'pw/canary+9f8e"7d6c'
    redactor = Redactor([password])
    quoted = urllib.parse.quote(password, safe="")
    assert redactor.scrub(f"q={quoted}&") == "q=[redacted]&"
    assert redactor.scrub(json.dumps({"pw": password})) == '{"pw": "[redacted]"}'
    assert redactor.scrub(f"as is: {password}!") == "as is: [redacted]!"


def test_short_secrets_and_no_secrets_hide_nothing() -> None:
    assert bool(Redactor([KEY])) is True
    assert bool(Redactor(["ollama", ""])) is False
    nothing = Redactor([])
    assert nothing.scrub("sk-anything-at-all") == "sk-anything-at-all"
    assert nothing.holdback("sk-") == 0


def test_holdback_keeps_exactly_what_could_start_a_key() -> None:
    redactor = Redactor([KEY])
    assert redactor.holdback("the key is sk-") == 3
    assert redactor.holdback("the key is s") == 1
    assert redactor.holdback("the key is ") == 0  # a space is in no form of the key
    assert redactor.holdback("") == 0


def test_a_stream_redactor_hides_a_key_split_across_deltas() -> None:
    stream = _StreamRedactor(Redactor([KEY]))
    shown = [stream.feed("key: " + KEY[:10]), stream.feed(KEY[10:]), stream.feed(" done")]
    assert "".join(shown) + stream.flush() == "key: [redacted] done"
    assert stream.flush() == ""


async def test_a_key_in_a_streamed_reply_never_reaches_the_token_callback(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("echo_key_reply")
    fake_server.chunk_size = 3
    by_sample: dict[int, str] = {}

    def on_token(index: int, delta: str) -> None:
        by_sample[index] = by_sample.get(index, "") + delta

    generation = await make().generate(call(n=2), on_token)
    for index, text in enumerate(generation.texts):
        assert by_sample[index] == text  # what streamed is what came back, scrubbed alike
        assert KEY[4:16] not in text and KEY not in text
        assert MASKED in text
    assert KEY[4:16] not in "".join(by_sample.values())


async def test_a_key_in_a_server_model_name_is_hidden(raw: RawServer) -> None:
    named = {"model": f"leak-{KEY}-" + "m" * 200, "choices": [{"index": 0, "delta": {}}]}
    raw.chat.append(stream(named, chunk(0, "ok", "stop")))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    # The name is cut to 100 characters, then the key hidden.
    assert generation.model == f"leak-{MASKED}-" + "m" * 57 + "..."


# -- how long a retry waits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "wait"),
    [
        ("429:0.03", 0.03),  # Retry-After in seconds
        ("429ms:40", 0.04),  # retry-after-ms
        ("429:-3", 0.0),  # never a negative wait
        ("429date:1000000000", 0.0),  # a date long past: at once
        ("429:45", 0.05),  # capped at retry_after_cap
    ],
)
async def test_retry_after_sets_the_wait_exactly(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str, wait: float
) -> None:
    fake_server.faults.append(fault)
    waits: list[tuple[str, int, float]] = []
    model = make(retry_after_cap=0.05, on_retry=lambda *told: waits.append(told))
    generation = await model.generate(call())
    assert generation.requests == 2
    assert waits == [("rate_limited", 1, pytest.approx(wait))]
    gap = fake_server.chat_requests[1].time - fake_server.chat_requests[0].time
    assert gap >= wait - 0.005


@pytest.mark.parametrize("fault", ["429:soon", "429ms:soon", "429:inf", "429:nan", "429ms:inf"])
async def test_a_retry_after_that_is_no_number_falls_back_to_backoff(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str
) -> None:
    fake_server.faults.append(fault)
    waits: list[float] = []
    model = make(backoff_base=0.01, on_retry=lambda kind, attempt, wait: waits.append(wait))
    generation = await model.generate(call())
    assert generation.text == "echo 0: What is 4 * 6?"
    [wait] = waits
    assert 0.005 <= wait <= 0.01  # the first backoff: base, halved at most by jitter


def test_retry_after_headers_read_directly() -> None:
    assert _retry_after({}) is None
    assert _retry_after({"retry-after": ""}) is None
    assert _retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert _retry_after({"retry-after-ms": "x", "retry-after": "9"}) == 9.0
    assert _retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    future = _retry_after({"retry-after": time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                                                        time.gmtime(time.time() + 30))})
    assert future is not None and 28 <= future <= 30
    assert _retry_after({"retry-after": "soon"}) is None


def test_backoff_doubles_with_jitter_up_to_the_cap() -> None:
    model = OpenAIModel(base_url="http://127.0.0.1:9/v1", backoff_base=1.0, backoff_cap=5.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 5.0), (10, 5.0)]:
        waits = [model._backoff(attempt, None) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling * 0.9 and min(waits) < ceiling * 0.6  # spread, not fixed
    assert model._backoff(3, 7.5) == 7.5  # a server's word beats the backoff
    assert model._backoff(0, 100.0) == 60.0  # up to retry_after_cap
    assert model._backoff(0, -1.0) == 0.0


# -- what a failure is called --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (400, {"error": {"message": "no such thing", "code": "model_not_found"}}, "unknown_model"),
        (400, {"error": {"message": "The model 'x' was not found."}}, "unknown_model"),
        (422, {"error": {"message": "Model X does not exist"}}, "unknown_model"),
        (400, "the model named x does not exist", "unknown_model"),  # a plain-text body
        (400, {"error": {"message": "prompt template not found", "param": "model"}}, "bad_request"),
        (400, {"error": {"message": "model is busy"}}, "bad_request"),
        (400, {"error": {"message": "file not found"}}, "bad_request"),
        (400, "bad things", "bad_request"),
        (400, "", "bad_request"),
        (403, {"error": {"message": "model not found"}}, "auth"),
        (408, {"error": {"message": "slow"}}, "server"),
        (409, {"error": {"message": "lock"}}, "server"),
        (500, {"error": {"message": "out of memory"}}, "server"),
    ],
)
async def test_each_status_has_its_kind(
    raw: RawServer, status: int, body: object, kind: str
) -> None:
    raw.chat.extend([error(status, body)] * 2)
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, max_retries=1, backoff_base=0)
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert err.kind == kind
    retried = kind == "server"
    assert err.retryable is retried
    assert len(raw.chat_requests) == (2 if retried else 1)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"error": {"message": "  the reason  "}}, "the reason"),
        ({"error": {"type": "overloaded", "code": 503}}, "Error code: 503"),  # no message
        ({"error": {"message": ""}}, "Error code: 503"),
        ({"error": {"message": {"text": "nested"}}}, '{"text": "nested"}'),
        ({"error": {"message": ["a", 1]}}, '["a", 1]'),
        ("plain words", "plain words"),
        ("", "Error code: 503"),
        ({"error": {"message": "x" * 300}}, "x" * 237 + "..."),
    ],
)
async def test_a_servers_error_detail_is_shown_as_sent(
    raw: RawServer, body: object, detail: str
) -> None:
    raw.chat.append(error(503, body))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, max_retries=0)
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert err.message == f"The model server at {raw.url} failed (HTTP 503: {detail})."


@pytest.mark.parametrize(
    ("error_event", "detail"),
    [
        ({"message": "gone away"}, "gone away"),
        ({"code": 500, "type": "server_error"}, '{"code": 500, "type": "server_error"}'),
        ("just words", "just words"),
        (["a", {"b": 1}], '["a", {"b": 1}]'),
        ({"message": 42}, '{"message": 42}'),
    ],
)
async def test_an_error_event_says_what_the_server_said(
    raw: RawServer, error_event: object, detail: str
) -> None:
    raw.chat.append(stream(chunk(0, "Let me"), {"error": error_event}))
    model = OpenAIModel(base_url=raw.url, model="m", max_retries=0)
    try:
        err = await fails(model)
    finally:
        await model.aclose()
    assert err.kind == "server"
    assert err.message == (
        f"The model server at {raw.url} failed (it reported an error mid-reply: {detail})."
    )


def test_the_cause_of_a_connection_error_in_words() -> None:
    def caused(error: BaseException, cause: BaseException) -> BaseException:
        error.__cause__ = cause
        return error

    class Refused(OSError):
        pass

    assert _cause_text(caused(RuntimeError("outer"), OSError("refused"))) == "refused"
    assert _cause_text(RuntimeError("alone")) == "alone"
    assert _cause_text(RuntimeError("")) == "RuntimeError"
    assert _cause_text(caused(RuntimeError("outer"), Refused(""))) == "Refused"
    group = ExceptionGroup("many", [OSError("first"), OSError("second")])
    assert _cause_text(caused(RuntimeError("outer"), group)) == "first"
    # An empty cause with a cause of its own: that one says it.
    deep = caused(RuntimeError("outer"), caused(Refused(""), OSError("deep down")))
    assert _cause_text(deep) == "deep down"
    # A cause that says something is taken as it is, not the cause beneath it.
    middle = caused(RuntimeError("outer"), caused(Refused("middle"), OSError("deep down")))
    assert _cause_text(middle) == "middle"
    long = _cause_text(caused(RuntimeError("outer"), OSError("y" * 300)))
    assert long == "y" * 157 + "..."
    assert _cause_text(caused(RuntimeError("outer"), OSError("z" * 160))) == "z" * 160


@pytest.mark.parametrize(
    "body",
    [b"[1, 2]", b'{"data": 5}', b'{"error": {"message": "boom"}}', b"plain text"],
    ids=["list", "data-number", "error-with-200", "text"],
)
async def test_a_list_of_models_that_is_no_list_leaves_it_to_the_probe(
    raw: RawServer, body: bytes
) -> None:
    # These once escaped as AttributeError or TypeError instead of an answer.
    kind = "text/plain" if body == b"plain text" else "application/json"
    raw.models = Exchange(200, body, {"Content-Type": kind})
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        summary = await model.check_connection()
    finally:
        await model.aclose()
    assert summary == f"Connected to {raw.url}: model 'm' answered."
    assert len(raw.chat_requests) == 1


async def test_a_list_of_models_that_is_not_json_is_a_broken_reply(raw: RawServer) -> None:
    raw.models = Exchange(200, b"{nope")
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        with pytest.raises(ModelError) as info:
            await model.check_connection()
    finally:
        await model.aclose()
    assert (info.value.kind, info.value.retryable) == ("bad_response", True)
    assert info.value.message == (
        f"The model server at {raw.url} sent a broken reply: the server sent a reply that is "
        "not JSON."
    )


async def test_a_list_of_models_in_broken_utf8_is_a_server_failure(raw: RawServer) -> None:
    raw.models = Exchange(200, b'{"data": ["\xff"]}')
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        with pytest.raises(ModelError) as info:
            await model.check_connection()
    finally:
        await model.aclose()
    assert (info.value.kind, info.value.retryable) == ("server", True)
    assert info.value.message.startswith(f"The model server at {raw.url} failed ('utf-8' codec")


async def test_a_malformed_stream_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("malformed")
    err = await fails(make(max_retries=0))
    assert (err.kind, err.retryable) == ("bad_response", True)
    assert err.message == (
        f"The model server at {fake_server.url} sent a broken reply: the server sent a reply "
        "that is not JSON."
    )


async def test_a_connect_that_times_out_is_unreachable(make: Callable[..., OpenAIModel]) -> None:
    # A listener whose backlog is full: the kernel leaves new connections waiting.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        waiting = [socket.socket() for _ in range(3)]
        for sock in waiting:
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", port))
        try:
            url = f"http://127.0.0.1:{port}/v1"
            err = await fails(make(base_url=url, timeout=0.2, max_retries=0, call_deadline=3.0))
        finally:
            for sock in waiting:
                sock.close()
    assert (err.kind, err.retryable) == ("unreachable", True)
    assert err.message == (
        f"Cannot reach the model server at {url} (connecting timed out). Is it running?"
    )
