"""OpenAIModel pinned exactly (issue 14: mutation testing of solver/model/openai.py).

What a caller and a person rely on, to the letter: the words of every error, how many tries
and how long the waits, the cache key of each sample, usage sums, the concurrency bound, the
reply caps at their exact limits, redaction of a key in every form, finish reasons.

Real HTTP on 127.0.0.1 only. Most tests use :class:`bench.fakeserver.FakeServer`; shapes it
cannot make (an error body without a message, a plain-text error, a gap in the choices, a
slow model list) come from :class:`RawServer` below, a few lines of asyncio that answer each
request with the next scripted :class:`Exchange`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import json
import math
import socket
import sqlite3
import time
import urllib.parse
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest

from bench.fakeserver import FakeServer
from solver.model import Call, Message, ModelError, Sampling, Usage, rough_tokens
from solver.model import openai as openai_model
from solver.model.openai import (
    OPENAI_BASE_URL,
    OpenAIModel,
    Redactor,
    ReplyLimits,
    ResponseCache,
    StreamRedactor,
    base_url_problem,
    cause_text,
    gather_all,
)
from solver.model.retry import retry_after
from solver.model.transport import http_library
from solver.roles import Purpose
from solver.settings import Settings

KEY = "sk-mutant-7Hq2vX9pLm4RtY8wZb3NcK6d"
MASKED = Settings(api_key=KEY).masked_key()


def call(text: str = "What is 4 * 6?", *, sample_offset: int = 0, **sampling: Any) -> Call:
    return Call(
        Purpose.PROPOSE, (Message("user", text),), Sampling(**sampling), sample_offset=sample_offset
    )


def free_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- a server that says exactly what a test scripts --------------------------------------------


@dataclass
class Exchange:
    """One scripted HTTP response: ``body`` sent whole, or a chunked server-sent event stream
    made of ``events`` (each one a ``data:`` line) or of raw ``pieces`` (bytes written as they
    are; a number is a pause in seconds between them). ``hang``: no answer at all."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    events: list[str] | None = None
    pieces: list[bytes | float] | None = None
    delay: float = 0.0
    hang: bool = False


def chunk(index: int = 0, content: str | None = None, finish: str | None = None) -> object:
    """One stream chunk with one choice."""
    delta = {} if content is None else {"content": content}
    choice = {"index": index, "delta": delta, "finish_reason": finish}
    return {"model": "raw-model", "choices": [choice]}


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


def sse(*chunks: object) -> bytes:
    """``chunks`` as the bytes of an event stream, ``[DONE]`` included."""
    events = [c if isinstance(c, str) else json.dumps(c) for c in chunks]
    return b"".join(f"data: {event}\n\n".encode() for event in [*events, "[DONE]"])


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
    :attr:`models`. Every request is recorded in :attr:`requests` (method, path, JSON body,
    the number of the connection it came on). With ``keep_alive`` a connection serves many
    requests, and :attr:`closed` counts the connections the client has hung up."""

    def __init__(self, *, keep_alive: bool = False) -> None:
        self.keep_alive = keep_alive
        self.chat: deque[Exchange] = deque()
        self.models = Exchange(
            200, json.dumps({"object": "list", "data": [{"id": "raw-model"}]}).encode()
        )
        self.requests: list[tuple[str, str, dict[str, Any], int]] = []
        self.connections = 0
        self.closed = 0
        self._server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [body for method, _, body, _ in self.requests if method == "POST"]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.connections += 1
        number = self.connections
        try:
            while await self._serve(reader, writer, number) and self.keep_alive:
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client hung up (a deadline, a cap, the end)
        except asyncio.CancelledError:
            pass  # the server closes; ending quietly spares asyncio a logged "error"
        finally:
            self.closed += 1
            writer.close()
            self.tasks.discard(task)

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, number: int
    ) -> bool:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path, _ = head[0].split(" ", 2)
        headers = dict(line.lower().split(": ", 1) for line in head[1:] if ": " in line)
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        self.requests.append((method, path, json.loads(raw) if raw else {}, number))
        if method == "GET":
            exchange = self.models
        else:
            exchange = self.chat.popleft() if self.chat else reply("fine")
        if exchange.delay:
            await asyncio.sleep(exchange.delay)
        if exchange.hang:
            await asyncio.sleep(3600)
        lines = [f"HTTP/1.1 {exchange.status} X"]
        if not self.keep_alive:
            lines.append("Connection: close")
        if exchange.events is None and exchange.pieces is None:
            kind = {"Content-Type": "application/json"}
            sent = {**kind, **exchange.headers}
            lines += [f"{k}: {v}" for k, v in sent.items() if v]  # "" leaves a header out
            lines.append(f"Content-Length: {len(exchange.body)}")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + exchange.body)
            await writer.drain()
            return True
        lines += ["Content-Type: text/event-stream", "Transfer-Encoding: chunked"]
        lines += [f"{k}: {v}" for k, v in exchange.headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        pieces = exchange.pieces
        if pieces is None:
            assert exchange.events is not None
            pieces = [f"data: {event}\n\n".encode() for event in exchange.events]
        for piece in pieces:
            if isinstance(piece, float):
                await writer.drain()
                await asyncio.sleep(piece)
            elif piece:
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


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
    assert (
        err.message == f"The model server at {fake_server.url} failed (HTTP 503: fake error 503)."
    )


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
    assert (
        err.message
        == "The base URL 'http://[bad' is not usable: it is not a URL (Invalid IPv6 URL)."
    )


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
    await model.check_connection()
    assert model.requests == 2  # counted with every other request


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
        f"The model server at {raw.url} sent too much: the server's reply was too large to read: "
        "a list of models past 32 MiB."
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
    stream = StreamRedactor(Redactor([KEY]))
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
    expected: list[object] = [("rate_limited", 1, pytest.approx(wait))]
    assert waits == expected
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
    assert retry_after({}) is None
    assert retry_after({"retry-after": ""}) is None
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after-ms": "x", "retry-after": "9"}) == 9.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    future = retry_after(
        {"retry-after": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))}
    )
    assert future is not None and 28 <= future <= 30
    assert retry_after({"retry-after": "soon"}) is None


def test_backoff_doubles_with_jitter_up_to_the_cap() -> None:
    model = OpenAIModel(base_url="http://127.0.0.1:9/v1", backoff_base=1.0, backoff_cap=5.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 5.0), (10, 5.0)]:
        waits = [model.backoff(attempt, None) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling * 0.9 and min(waits) < ceiling * 0.6  # spread, not fixed
    assert model.backoff(3, 7.5) == 7.5  # a server's word beats the backoff
    assert model.backoff(0, 100.0) == 60.0  # up to retry_after_cap
    assert model.backoff(0, -1.0) == 0.0


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


async def test_only_a_json_call_is_asked_again_without_json_mode(raw: RawServer) -> None:
    refusal = error(400, {"error": {"message": "response_format is not supported here"}})
    raw.chat.extend([refusal] * 3)
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, max_retries=1, backoff_base=0)
    try:
        # A call that asked for no JSON mode has nothing to drop: the refusal is the error.
        err = await fails(model)
        assert (err.kind, len(raw.chat_requests)) == ("bad_request", 1)
        assert not model.json_mode_refused
        # A JSON call is asked once more without it, and the second refusal is the error.
        err = await fails(model, dataclasses.replace(call(), json=True))
        assert err.kind == "bad_request" and model.json_mode_refused
        asked = [r.get("response_format", "none") for r in raw.chat_requests[1:]]
        assert asked == [{"type": "json_object"}, "none"]
    finally:
        await model.aclose()


async def test_a_json_calls_other_refusal_is_the_error_with_json_mode_kept(
    raw: RawServer,
) -> None:
    # A 400 that says nothing of response_format is no sign the server lacks a JSON mode.
    raw.chat.append(error(400, {"error": {"message": "the prompt is too long"}}))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, max_retries=1, backoff_base=0)
    try:
        err = await fails(model, dataclasses.replace(call(), json=True))
    finally:
        await model.aclose()
    assert err.kind == "bad_request" and "the prompt is too long" in err.message
    assert len(raw.chat_requests) == 1 and not model.json_mode_refused


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

    assert cause_text(caused(RuntimeError("outer"), OSError("refused"))) == "refused"
    assert cause_text(RuntimeError("alone")) == "alone"
    assert cause_text(RuntimeError("")) == "RuntimeError"
    assert cause_text(caused(RuntimeError("outer"), Refused(""))) == "Refused"
    group = ExceptionGroup("many", [OSError("first"), OSError("second")])
    assert cause_text(caused(RuntimeError("outer"), group)) == "first"
    # An empty cause with a cause of its own: that one says it.
    deep = caused(RuntimeError("outer"), caused(Refused(""), OSError("deep down")))
    assert cause_text(deep) == "deep down"
    # A cause that says something is taken as it is, not the cause beneath it.
    middle = caused(RuntimeError("outer"), caused(Refused("middle"), OSError("deep down")))
    assert cause_text(middle) == "middle"
    long = cause_text(caused(RuntimeError("outer"), OSError("y" * 300)))
    assert long == "y" * 157 + "..."
    assert cause_text(caused(RuntimeError("outer"), OSError("z" * 160))) == "z" * 160


def test_client_errors_no_stream_of_ours_raises_are_still_sorted_in_words() -> None:
    # The raw event stream meets a broken connection as httpx's own error and never validates
    # a reply, so these two come only from the client itself; they are sorted directly.
    model = OpenAIModel(base_url="http://127.0.0.1:9/v1", api_key=KEY, model="m")
    http = http_library()  # httpx, or httpx2 in newer clients
    request = http.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    cut = model.classify(openai.APIConnectionError(request=request), responded=True)
    assert (cut.kind, cut.detail, cut.retryable) == (
        "bad_response",
        "the connection dropped mid-reply",
        True,
    )
    invalid = openai.APIResponseValidationError(
        response=http.Response(200, request=request), body=None
    )
    odd = model.classify(invalid, responded=True)
    assert (odd.kind, odd.detail, odd.retryable) == (
        "bad_response",
        "the reply did not match the API",
        True,
    )
    assert str(model.model_error(odd, attempts=2)) == (
        "The model server at http://127.0.0.1:9/v1 sent a broken reply: "
        "the reply did not match the API (gave up after 2 tries)."
    )


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


# -- what is asked -------------------------------------------------------------------------------


async def test_a_request_says_exactly_what_the_call_asks(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    the_call = Call(
        Purpose.PROPOSE,
        (Message("system", "Be terse."), Message("user", "What is 4 * 6?")),
        Sampling(temperature=0.3, top_p=0.8, max_tokens=50, stop=("END", "STOP")),
        sample_offset=3,
    )
    await make(Settings(seed=7)).generate(the_call)
    [request] = fake_server.chat_requests
    assert request.json == {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": "What is 4 * 6?"},
        ],
        "temperature": 0.3,
        "top_p": 0.8,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 50,
        "stop": ["END", "STOP"],
        "seed": 10,  # the seed plus the index of the sample asked for
    }
    assert request.headers["accept-encoding"] == "identity"  # no compressed floods
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_seeds_follow_the_sample_index_across_extra_requests(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.ignore_n = True
    await make(Settings(seed=7)).generate(call(n=2, sample_offset=3))
    assert [r.json["seed"] for r in fake_server.chat_requests] == [10, 11]
    assert [r.json.get("n") for r in fake_server.chat_requests] == [2, None]


async def test_a_local_server_without_a_key_gets_a_placeholder(
    fake_server: FakeServer,
) -> None:
    model = OpenAIModel(base_url=fake_server.url, model="fake-model")
    try:
        await model.generate(call())
    finally:
        await model.aclose()
    assert fake_server.chat_requests[0].headers["authorization"] == "Bearer no-key"


async def test_the_client_itself_never_retries(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500", "429"])
    with pytest.raises(ModelError):
        await make(max_retries=0).generate(call())
    assert len(fake_server.chat_requests) == 1


# -- samples, fan-out and what is learned about a server ----------------------------------------


async def test_single_sample_calls_teach_nothing_about_n(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    model = make(cache=False)
    await model.generate(call("a"))
    await model.generate(call("b"))
    generation = await model.generate(call("c", n=3))
    assert generation.requests == 1
    assert [r.json.get("n", 1) for r in fake_server.chat_requests] == [1, 1, 3]


async def test_one_odd_reply_at_a_time_is_forgiven(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    # Ignored, honoured, ignored, honoured: never twice in a row, so n is still asked for.
    fake_server.faults.extend(["ignore_n", "", "", "ignore_n", "", ""])
    model = make(cache=False)
    for _ in range(4):
        generation = await model.generate(call(n=2))
        assert len(generation.texts) == 2
    assert [r.json.get("n", 1) for r in fake_server.chat_requests] == [2, 1, 2, 2, 1, 2]


async def test_usage_is_summed_over_every_request_of_a_call(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.ignore_n = True
    the_call = call(n=3)
    generation = await make().generate(the_call)
    prompt = len(the_call.messages[0].content)  # the fake server counts characters
    completion = sum(len(text) for text in generation.texts)
    assert generation.requests == 3
    assert generation.usage == Usage(3 * prompt, completion)


@pytest.mark.parametrize(
    ("prices", "cost"),
    [
        ({"m": (1.0, 2.0)}, (5 * 1.0 + 7 * 2.0) / 1e6),  # our model's price comes first
        ({"raw-model": (3.0, 1.0)}, (5 * 3.0 + 7 * 1.0) / 1e6),  # else the server's model
        ({"m": (1.0, 2.0), "raw-model": (9.0, 9.0)}, (5 * 1.0 + 7 * 2.0) / 1e6),
        ({}, None),
    ],
)
async def test_the_server_names_the_model_and_the_price_follows(
    raw: RawServer, prices: dict[str, tuple[float, float]], cost: float | None
) -> None:
    raw.chat.append(reply("hi", usage={"prompt_tokens": 5, "completion_tokens": 7}))
    model = OpenAIModel(Settings(prices=prices), base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    assert generation.model == "raw-model"
    assert generation.usage == Usage(5, 7)
    assert generation.cost == (pytest.approx(cost) if cost is not None else None)
    assert generation.notes == ()


async def test_the_first_model_name_in_a_stream_is_the_one(raw: RawServer) -> None:
    first = {"model": "first", "choices": [{"index": 0, "delta": {"content": "a"}}]}
    second = {"model": "second", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    raw.chat.append(stream(first, second))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    assert (generation.text, generation.model) == ("a", "first")


async def test_notes_of_every_request_are_kept_once(raw: RawServer) -> None:
    odd = {"prompt_tokens": "many", "completion_tokens": 1}
    raw.chat.extend(
        [reply("a", usage=odd), reply("b", usage=odd), reply("c", usage={"prompt_tokens": 1})]
    )
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call(n=3))
    finally:
        await model.aclose()
    assert generation.requests == 3
    assert generation.notes == (
        'the server\'s token usage {"prompt_tokens": "many", "completion_tokens": 1} is not a '
        "count of tokens; it was ignored and estimated instead",
    )


async def test_latency_is_the_time_the_call_took(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.latency = 0.05
    start = time.perf_counter()
    generation = await make().generate(call())
    assert 0.05 <= generation.latency <= time.perf_counter() - start


async def test_an_empty_reply_is_cached_and_streamed_back_empty(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.reply = lambda request, index: ""
    model = make()
    first = await model.generate(call())
    streamed: list[tuple[int, str]] = []
    again = await model.generate(call(), lambda i, d: streamed.append((i, d)))
    assert first.text == again.text == ""
    assert again.cached is True
    assert streamed == [(0, "")]


async def test_a_gap_in_the_choices_keeps_the_leading_run_and_asks_again(raw: RawServer) -> None:
    # Choices 0 and 2 finished, 1 never came: 0 is kept, 1 and 2 are asked for on their own.
    raw.chat.extend(
        [
            stream(chunk(0, "a"), chunk(0, finish="stop"), chunk(2, "c"), chunk(2, finish="stop")),
            reply("again"),
            reply("again"),
        ]
    )
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call(n=3))
    finally:
        await model.aclose()
    assert generation.texts == ("a", "again", "again")
    assert generation.requests == 3
    assert [body.get("n", 1) for body in raw.chat_requests] == [3, 1, 1]


async def test_a_choice_left_unfinished_makes_the_reply_broken(raw: RawServer) -> None:
    raw.chat.extend(
        [stream(chunk(0, "a"), chunk(0, finish="stop"), chunk(1, "half")), reply("x", "y")]
    )
    retries: list[str] = []
    model = OpenAIModel(
        base_url=raw.url, model="m", api_key=KEY, backoff_base=0.001,
        on_retry=lambda kind, attempt, wait: retries.append(kind),
    )  # fmt: skip
    try:
        generation = await model.generate(call(n=2))
    finally:
        await model.aclose()
    assert generation.texts == ("x", "y")
    assert retries == ["bad_response"]


async def test_choices_that_are_not_asked_for_are_skipped(raw: RawServer) -> None:
    stray = {"choices": [{"index": 2, "delta": {"content": "junk"}, "finish_reason": "stop"}]}
    mixed = {
        "choices": [
            {"index": "1", "delta": {"content": "junk"}},
            {"index": -1, "delta": {"content": "junk"}},
            {"index": 0, "delta": {"content": "a"}},
        ]
    }
    raw.chat.append(
        stream(stray, mixed, chunk(1, "b"), chunk(0, finish="stop"), chunk(1, finish="stop"))
    )
    streamed: dict[int, str] = {}

    def on_token(index: int, delta: str) -> None:
        streamed[index] = streamed.get(index, "") + delta

    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call(n=2), on_token)
    finally:
        await model.aclose()
    assert generation.texts == ("a", "b")
    assert streamed == {0: "a", 1: "b"}


async def test_a_null_delta_is_no_delta(raw: RawServer) -> None:
    end = {"choices": [{"index": 0, "delta": None, "finish_reason": "stop"}]}
    raw.chat.append(stream(chunk(0, "a"), end))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    assert (generation.text, generation.finish_reasons) == ("a", ("stop",))


async def test_a_long_finish_reason_is_cut_to_forty_characters(raw: RawServer) -> None:
    raw.chat.append(stream(chunk(0, "a"), chunk(0, finish="x" * 60)))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    assert generation.finish_reasons == ("x" * 37 + "...",)


async def test_a_tail_held_back_for_the_key_is_streamed_at_the_finish(raw: RawServer) -> None:
    # "sk-m" could be the start of the key: it waits, and the finish lets it out.
    raw.chat.append(stream(chunk(0, "the answer: "), chunk(0, "sk-m"), chunk(0, finish="stop")))
    raw.chat.append(stream(chunk(0, finish="stop")))  # an empty reply streams nothing
    streamed: list[tuple[int, str]] = []
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, cache=False)
    try:
        generation = await model.generate(call(), lambda i, d: streamed.append((i, d)))
        assert generation.text == "the answer: sk-m"
        assert "".join(d for _, d in streamed) == "the answer: sk-m"
        assert {i for i, _ in streamed} == {0}
        streamed.clear()
        empty = await model.generate(call(), lambda i, d: streamed.append((i, d)))
    finally:
        await model.aclose()
    assert empty.text == ""
    assert streamed == []


@pytest.mark.parametrize(
    ("what", "detail"),
    [
        ("chunk_list", "a chunk was not a JSON object"),
        ("choices_string", "a chunk's choices were not a list"),
        ("choice_number", "a choice was not a JSON object"),
        ("delta_string", "a delta was not a JSON object"),
        ("content_number", "a delta's content was not text"),
        ("finish_number", "a finish_reason was not text"),
    ],
)
async def test_each_wrong_typed_chunk_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], what: str, detail: str
) -> None:
    fake_server.faults.extend([f"bad_chunk:{what}"] * 2)
    err = await fails(make())
    assert (err.kind, err.retryable) == ("bad_response", True)
    assert err.message == (
        f"The model server at {fake_server.url} sent a broken reply: {detail} "
        "(gave up after 2 tries)."
    )
    assert len(fake_server.chat_requests) == 2


async def test_a_choice_that_finishes_without_a_word_is_an_empty_text(raw: RawServer) -> None:
    # Choice 1 sends only its finish: it said nothing, which is a reply, not a broken stream.
    raw.chat.append(
        stream(chunk(0, "twenty-four"), chunk(1, finish="stop"), chunk(0, finish="stop"))
    )
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, max_retries=0)
    try:
        generation = await model.generate(call(n=2))
    finally:
        await model.aclose()
    assert generation.texts == ("twenty-four", "") and len(raw.chat_requests) == 1


# -- token usage ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 5, "completion_tokens": 7}, Usage(5, 7)),
        ({"prompt_tokens": 5}, Usage(5, 0)),
        ({"prompt_tokens": 5, "completion_tokens": None}, Usage(5, 0)),
        ({"prompt_tokens": 5.0, "completion_tokens": 2.0}, Usage(5, 2)),
        ({"prompt_tokens": 10**12, "completion_tokens": 0}, Usage(10**12, 0)),
        ({"prompt_tokens": 0, "completion_tokens": 0}, None),  # nothing told: estimated
        ({}, None),
    ],
)
async def test_usage_the_server_tells_is_taken_as_told(
    raw: RawServer, usage: dict[str, Any], expected: Usage | None
) -> None:
    raw.chat.append(reply("twelve chars", usage=usage))
    the_call = call("seventeen chars!!")
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(the_call)
    finally:
        await model.aclose()
    assert generation.usage == (expected or Usage(rough_tokens("seventeen chars!!"), 3))
    assert generation.notes == ()


async def test_usage_past_any_real_count_is_ignored_with_a_note(raw: RawServer) -> None:
    told = {"prompt_tokens": 10**12 + 1, "completion_tokens": 123456789012345}
    raw.chat.append(reply("twelve chars", usage=told))
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call("seventeen chars!!"))
    finally:
        await model.aclose()
    assert generation.usage == Usage(5, 3)
    shown = json.dumps(told)[:57] + "..."
    assert generation.notes == (
        f"the server's token usage {shown} is not a count of tokens; it was ignored and "
        "estimated instead",
    )


async def test_a_reply_without_usage_is_estimated_without_a_note(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("no_usage")
    generation = await make().generate(call())
    assert generation.usage == Usage(rough_tokens("What is 4 * 6?"), rough_tokens(generation.text))
    assert generation.notes == ()


async def test_usage_null_after_the_count_changes_nothing(raw: RawServer) -> None:
    counted = {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7}}
    raw.chat.append(
        stream(chunk(0, "a"), counted, {"choices": [], "usage": None}, chunk(0, finish="stop"))
    )
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        generation = await model.generate(call())
    finally:
        await model.aclose()
    assert generation.usage == Usage(5, 7)


# -- reading the event stream --------------------------------------------------------------------


async def answer(raw: RawServer, exchange: Exchange, **options: Any) -> Any:
    """What a model makes of ``exchange`` (the generation, or the ModelError it raised)."""
    raw.chat.append(exchange)
    options.setdefault("max_retries", 0)
    the_call = options.pop("the_call", call())
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, **options)
    try:
        return await model.generate(the_call)
    except ModelError as err:
        return err
    finally:
        await model.aclose()


async def test_lines_split_across_reads_are_put_back_together(raw: RawServer) -> None:
    pieces: list[bytes | float] = []
    for event in sse(chunk(0, "Hel"), chunk(0, "lo"), chunk(0, finish="stop")).split(b"\n\n"):
        if event:  # each line in three reads, the blank line after it in a fourth
            pieces += [event[:9], 0.01, event[9:], 0.01, b"\n", 0.01, b"\n"]
    generation = await answer(raw, Exchange(pieces=pieces))
    assert generation.text == "Hello"


async def test_data_without_a_space_and_lines_that_are_no_data(raw: RawServer) -> None:
    body = (
        b": a comment, then an event name\nevent: message\n"
        + b"data:" + json.dumps(chunk(0, "a")).encode() + b"\r\n\r\n"
        + b"retry: 1000\nid: 7\n"
        + sse(chunk(0, "b"), chunk(0, finish="stop"))
    )  # fmt: skip
    generation = await answer(raw, Exchange(pieces=[body]))
    assert generation.text == "ab"


async def test_what_follows_done_is_not_read_as_data(raw: RawServer) -> None:
    body = sse(chunk(0, "a"), chunk(0, finish="stop")) + b"data: not json at all\n\n"
    generation = await answer(raw, Exchange(pieces=[body, 0.01, b"data: {oops\n\n"]))
    assert generation.text == "a"


async def test_text_that_is_not_utf8_is_replaced_not_fatal(raw: RawServer) -> None:
    broken = b'data: {"choices": [{"index": 0, "delta": {"content": "caf\xff!"}}]}\n\n'
    generation = await answer(raw, Exchange(pieces=[broken + sse(chunk(0, finish="stop"))]))
    assert generation.text == "caf\ufffd!"


def padding(size: int) -> bytes:
    """``size`` bytes of comment lines, which a stream reader skips."""
    lines = []
    while size > 0:
        line = min(size, 60_000)
        lines.append(b":" + b"x" * (line - 2) + b"\n" if line >= 2 else b"\n")
        size -= line
    return b"".join(lines)


@pytest.mark.parametrize("over", [0, 1])
async def test_the_byte_cap_is_exact(raw: RawServer, over: int) -> None:
    limits = ReplyLimits.of(1, 1)
    assert limits.bytes == 66 * 1024 + (1 << 20)
    tail = sse(chunk(0, "ok"), chunk(0, finish="stop"))
    body = padding(limits.bytes - len(tail) + over)
    outcome = await answer(raw, Exchange(pieces=[body, 0.05, tail]), the_call=call(max_tokens=1))
    if not over:
        assert outcome.text == "ok"
        return
    assert (outcome.kind, outcome.retryable) == ("too_large", False)
    assert outcome.message == (
        f"The model server at {raw.url} sent too much: the reply passed 1,116,160 bytes and "
        "was not read further (max_tokens was 1: the server ignores it)."
    )


@pytest.mark.parametrize("over", [0, 1])
async def test_the_line_cap_is_exact(raw: RawServer, over: int) -> None:
    head = b'data: {"choices": [{"index": 0, "delta": {"content": "ok"}}]'
    line = head + b" " * ((1 << 20) - len(head) - 1 + over) + b"}"
    assert len(line) == (1 << 20) + over
    pieces: list[bytes | float] = [line, 0.05, b"\n\n" + sse(chunk(0, finish="stop"))]
    outcome = await answer(raw, Exchange(pieces=pieces), the_call=call(max_tokens=1))
    if not over:
        assert outcome.text == "ok"
        return
    assert (outcome.kind, outcome.retryable) == ("too_large", False)
    assert outcome.message == (
        f"The model server at {raw.url} sent too much: the reply passed 1,048,576 bytes in one "
        "line and was not read further (max_tokens was 1: the server ignores it)."
    )


@pytest.mark.parametrize("over", [0, 1])
async def test_the_token_and_character_caps_are_exact(raw: RawServer, over: int) -> None:
    # max_tokens=1: 66 deltas and 1,056 characters a choice.
    deltas = [chunk(0, "x") for _ in range(66 + over)]
    outcome = await answer(
        raw, stream(*deltas, chunk(0, finish="stop")), the_call=call(max_tokens=1), max_retries=1
    )
    assert len(raw.chat_requests) == 1  # a flood is not asked for again
    if not over:
        assert outcome.text == "x" * 66
    else:
        assert (outcome.kind, outcome.retryable) == ("too_large", False)
        assert outcome.message == (
            f"The model server at {raw.url} sent too much: the reply passed 66 tokens and was "
            "not read further (max_tokens was 1: the server ignores it)."
        )
    wide = [chunk(0, "y" * 528), chunk(0, "y" * (528 + over))]
    outcome = await answer(raw, stream(*wide, chunk(0, finish="stop")), the_call=call(max_tokens=1))
    if not over:
        assert outcome.text == "y" * 1056
    else:
        assert (outcome.kind, outcome.retryable) == ("too_large", False)
        assert "the reply passed 1,056 characters and was not read further" in outcome.message


def test_reply_limits_of_each_size() -> None:
    assert ReplyLimits.of(1000, 2) == ReplyLimits(
        tokens=2064, chars=33024, bytes=2 * 2064 * 1024 + (1 << 20), line=1 << 20, max_tokens=1000
    )
    assert ReplyLimits.of(None, 0) == ReplyLimits(
        tokens=32768, chars=524288, bytes=32768 * 1024 + (1 << 20), line=128 * 32768
    )
    assert ReplyLimits.of(10_000, 1).line == 128 * 20064  # long replies get long lines


async def test_a_server_that_ends_the_reply_properly_keeps_its_connection() -> None:
    # Bytes after [DONE] are read to the end of the response (a few), so that the connection
    # can carry the next request; an early hang-up would cost a new connection every call.
    async with RawServer(keep_alive=True) as raw:
        tail = sse(chunk(0, "a"), chunk(0, finish="stop"))
        raw.chat.append(Exchange(pieces=[padding(70_000) + tail, 0.02, b": bye\n" * 100]))
        raw.chat.append(reply("b"))
        model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY, cache=False)
        try:
            first = await model.generate(call())
            second = await model.generate(call())
        finally:
            await model.aclose()
        assert (first.text, second.text) == ("a", "b")
        assert [number for *_, number in raw.requests] == [1, 1]


async def test_closing_the_model_closes_its_connections() -> None:
    async with RawServer(keep_alive=True) as raw:
        model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
        await model.generate(call())
        assert raw.closed == 0
        await model.aclose()
        for _ in range(50):
            if raw.closed:
                break
            await asyncio.sleep(0.01)
        assert (raw.connections, raw.closed) == (1, 1)
        await model.aclose()  # twice is harmless


async def test_closing_a_model_never_used_is_harmless() -> None:
    for cache in (True, False):
        await OpenAIModel(base_url="http://127.0.0.1:9/v1", cache=cache).aclose()


# -- bodies read whole ---------------------------------------------------------------------------


@pytest.mark.parametrize("over", [0, 1])
async def test_an_error_body_may_be_one_mebibyte_exactly(raw: RawServer, over: int) -> None:
    head, end = b'{"error": {"message": "', b'"}}'
    body = head + b"x" * ((1 << 20) - len(head) - len(end) + over) + end
    err = await answer(raw, Exchange(503, body))
    assert err.kind == "server"
    too_large = "the server's reply was too large to read: an error message past 1 MiB"
    detail = "HTTP 503: " + (too_large if over else "x" * 237 + "...")
    assert err.message == f"The model server at {raw.url} failed ({detail})."


async def test_a_huge_client_error_is_a_server_failure_too(raw: RawServer) -> None:
    huge = Exchange(400, b'{"error": {"message": "' + b"x" * (2 << 20) + b'"}}')
    raw.chat.append(huge)
    err = await answer(raw, huge, max_retries=1, backoff_base=0.001)
    assert (err.kind, err.retryable) == ("server", True)
    assert err.message == (
        f"The model server at {raw.url} failed (HTTP 400: the server's reply was too large to "
        "read: an error message past 1 MiB) (gave up after 2 tries)."
    )


async def test_an_error_without_a_content_type_is_read(raw: RawServer) -> None:
    err = await answer(raw, Exchange(502, b"bad gateway", {"Content-Type": ""}))
    assert err.message == f"The model server at {raw.url} failed (HTTP 502: bad gateway)."


async def test_a_reply_that_is_no_stream_is_capped_as_a_whole_body(raw: RawServer) -> None:
    body = (b"x" * 999 + b"\n") * ((32 << 20) // 1000 + 1)  # past 32 MiB, in short lines
    err = await answer(raw, Exchange(200, body))
    assert (err.kind, err.retryable) == ("too_large", False)
    assert err.message == (
        f"The model server at {raw.url} sent too much: the server's reply was too large to read: "
        "a reply (not an event stream) past 32 MiB."
    )


async def test_a_stream_is_capped_by_its_own_limits_not_by_the_cap_on_bodies(
    raw: RawServer,
) -> None:
    body = padding((32 << 20) + (1 << 19))  # 32.5 MiB of comments: past the cap on bodies
    generation = await answer(
        raw, Exchange(pieces=[body, sse(chunk(0, "ok"), chunk(0, finish="stop"))])
    )
    assert generation.text == "ok"


async def test_a_long_list_of_models_is_read(raw: RawServer) -> None:
    names = [{"id": f"model-{i:04d}-" + "x" * 1100} for i in range(2000)] + [{"id": "m"}]
    raw.models = Exchange(200, json.dumps({"data": names}).encode())  # 2 MiB
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        summary = await model.check_connection()
    finally:
        await model.aclose()
    assert summary == f"Connected to {raw.url}: model 'm' is available."


# -- the retry loop ------------------------------------------------------------------------------


async def test_every_retry_is_counted_and_told_in_order(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500", "429:0", "cut"])
    told: list[tuple[str, int, float]] = []
    model = make(max_retries=3, on_retry=lambda *info: told.append(info))
    generation = await model.generate(call())
    assert generation.requests == 4
    assert (model.requests, model.retries) == (4, 3)
    assert [(kind, attempt) for kind, attempt, _ in told] == [
        ("server", 1),
        ("rate_limited", 2),
        ("bad_response", 3),
    ]
    assert told[1][2] == 0.0  # Retry-After: 0
    assert all(0 < wait <= 0.001 * 2**i for i, (_, _, wait) in enumerate(told) if i != 1)


async def test_a_request_kept_waiting_for_a_slot_past_the_deadline_is_never_sent(
    raw: RawServer,
) -> None:
    # One slot. Call A's first request answers one choice of two; meanwhile call B takes the
    # slot and hangs until its own deadline. When A gets the slot back its deadline is gone.
    raw.chat.extend([stream(chunk(0, "a"), chunk(0, finish="stop")), Exchange(hang=True)])
    raw.chat[0].delay = 0.1
    model = OpenAIModel(
        base_url=raw.url, model="m", api_key=KEY, concurrency=1, call_deadline=0.3,
        max_retries=3, backoff_base=0.001,
    )  # fmt: skip
    try:
        first = asyncio.ensure_future(model.generate(call("A", n=2)))
        await asyncio.sleep(0.02)
        second = asyncio.ensure_future(model.generate(call("B")))
        outcomes = await asyncio.gather(first, second, return_exceptions=True)
    finally:
        await model.aclose()
    assert all(isinstance(o, ModelError) for o in outcomes)
    a, b = outcomes
    assert isinstance(a, ModelError) and isinstance(b, ModelError)
    assert (a.kind, a.retryable) == ("timeout", False)
    assert a.message == (
        f"The model server at {raw.url} did not finish the reply within the call's deadline of "
        "0.3 seconds."
    )
    assert [body["messages"][0]["content"] for body in raw.chat_requests] == ["A", "B"]


# -- building a model ----------------------------------------------------------------------------


def test_keyword_arguments_win_over_settings() -> None:
    settings = Settings(
        base_url="http://settings/v1", api_key="sk-from-settings-0000", model="s-model",
        timeout=9.0, max_retries=9, concurrency=9, cache=True,
    )  # fmt: skip
    model = OpenAIModel(
        settings, base_url="http://given/v1/", api_key="sk-given-key-1234", model="given",
        timeout=2.0, max_retries=1, concurrency=3, cache=False,
    )  # fmt: skip
    chosen = model.settings
    assert (chosen.base_url, chosen.api_key, chosen.model) == (
        "http://given/v1/",
        "sk-given-key-1234",
        "given",
    )
    assert (chosen.timeout, chosen.max_retries, chosen.concurrency, chosen.cache) == (
        2.0,
        1,
        3,
        False,
    )
    assert (model.name, model.model, model.base_url) == ("given", "given", "http://given/v1")
    assert model.cache is None
    assert model.call_deadline == 2.0 * 2
    kept = OpenAIModel(settings)
    assert (kept.model, kept.base_url, kept.call_deadline) == (
        "s-model",
        "http://settings/v1",
        90.0,
    )
    assert kept.cache is not None
    assert (kept.requests, kept.retries, kept.cache_hits) == (0, 0, 0)


def test_the_defaults_a_person_gets() -> None:
    model = OpenAIModel()
    assert model.base_url == OPENAI_BASE_URL
    assert model.call_deadline == 60.0 * 5  # timeout 60 s, 4 retries
    assert OpenAIModel(base_url="http://h/aX/").base_url == "http://h/aX"
    # Backoff from half a second, doubling to 20 s; a server's Retry-After up to a minute.
    firsts = [model.backoff(0, None) for _ in range(100)]
    assert all(0.25 <= wait <= 0.5 for wait in firsts)
    assert all(10.0 <= model.backoff(9, None) <= 20.0 for _ in range(100))
    assert model.backoff(0, 600.0) == 60.0


@pytest.mark.parametrize("deadline", [0.0, -1.0, math.inf, math.nan])
def test_a_call_deadline_must_be_a_positive_number(deadline: float) -> None:
    with pytest.raises(ValueError) as info:
        OpenAIModel(base_url="http://127.0.0.1:9/v1", call_deadline=deadline)
    assert str(info.value) == f"call_deadline must be a positive number, not {deadline!r}"


def test_a_model_serves_one_event_loop_after_another(fake_server: FakeServer) -> None:
    # The CLI and the benchmarks may run several asyncio.run() in a row with one model.
    model = OpenAIModel(base_url=fake_server.url, model="fake-model", api_key=KEY, cache=False)
    first = asyncio.run(model.generate(call()))
    second = asyncio.run(model.generate(call()))
    asyncio.run(model.aclose())  # the client's loop is gone by now: closing still works
    assert first.text == second.text == "echo 0: What is 4 * 6?"
    assert len(fake_server.chat_requests) == 2


# -- the response cache --------------------------------------------------------------------------


async def test_a_cache_file_in_folders_not_made_yet(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], tmp_path: Path
) -> None:
    file = tmp_path / "a" / "b" / "c" / "responses.sqlite"
    first = await make(cache_file=file).generate(call())
    assert file.exists()
    again = make(cache_file=file)
    for _ in range(2):  # read from the file once, then from memory
        generation = await again.generate(call())
        assert (generation.text, generation.cached) == (first.text, True)
    assert len(fake_server.chat_requests) == 1


@pytest.mark.parametrize("where", ["parent is a file", "path is a folder", "not a database"])
def test_a_cache_file_that_cannot_be_used_leaves_the_cache_in_memory(
    tmp_path: Path, where: str
) -> None:
    if where == "parent is a file":
        (tmp_path / "file").write_text("x")
        path = tmp_path / "file" / "responses.sqlite"
    elif where == "path is a folder":
        path = tmp_path / "folder"
        path.mkdir()
    else:
        path = tmp_path / "junk.sqlite"
        path.write_bytes(b"this is not an SQLite file at all" * 100)
    cache = ResponseCache(path)
    cache.put("k", "v")
    assert cache.get("k") == "v"
    assert cache.get("other") is None
    assert len(cache) == 1
    cache.close()


def test_an_old_cache_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE samples (k TEXT, v TEXT, extra INTEGER)")
        db.execute("INSERT INTO samples VALUES ('k', 'stale', 1)")
        db.commit()
    cache = ResponseCache(path)
    assert cache.get("k") is None
    cache.put("k", "fresh")
    cache.close()
    reopened = ResponseCache(path)
    assert reopened.get("k") == "fresh"
    reopened.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1


def test_a_cache_file_broken_while_open_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    with contextlib.closing(sqlite3.connect(path)) as other:
        other.execute("DROP TABLE samples")  # another program spoils the file
        other.commit()
    cache.put("k", "v")  # the disk copy fails; memory keeps it
    assert cache.get("k") == "v"
    cache.close()
    cache.close()  # twice is harmless
    cache.put("after", "close")  # closed: memory only
    assert cache.get("after") == "close"


# -- more on secrets -----------------------------------------------------------------------------


def test_a_secret_inside_another_leaves_the_longer_one_shown_as_it_should_be() -> None:
    key, inner = "sk-outer-abcdefgh12345678", "abcdefgh12345678"
    for secrets in ([inner, key], [key, inner]):
        redactor = Redactor(secrets, {key: "sk-...5678"})
        assert redactor.scrub(f"key {key}; password {inner}.") == (
            "key sk-...5678; password [redacted]."
        )


def test_secrets_of_eight_characters_count_and_every_piece_is_hidden() -> None:
    redactor = Redactor(["pw-12345"])
    assert redactor.scrub("the pw-12345 here") == "the [redacted] here"
    assert bool(Redactor(["1234567"])) is False
    encoded = base64.b64encode(b"Bearer pw-12345").decode()  # the key from byte 7: offset 2
    hidden = base64.b64encode(b"-12345").decode()
    assert len(hidden) == Redactor.PIECE
    assert hidden in encoded and hidden not in redactor.scrub(encoded)
    assert Redactor([KEY]).scrub("tail " + KEY[-8:]) == "tail [redacted]"


# -- base URLs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://exa mple.com/v1", "it holds spaces or control characters"),
        ("http://example.com/v1\n", "it holds spaces or control characters"),
        ("localhost:11434/v1", "it must start with http:// or https://; did you mean "
         "http://localhost:11434/v1?"),
        ("ftp://example.com/v1", "it must start with http:// or https://"),
        ("http:///v1", "it names no host"),
        ("http://[bad", "it is not a URL (Invalid IPv6 URL)"),
        ("HTTPS://example.com/v1", None),
        ("http://example.com", None),
    ],
)  # fmt: skip
def test_base_url_problems_word_for_word(url: str, problem: str | None) -> None:
    assert base_url_problem(url) == problem


async def test_without_a_key_deltas_stream_straight_through_under_their_index(
    fake_server: FakeServer,
) -> None:
    model = OpenAIModel(base_url=fake_server.url, model="fake-model")
    streamed: dict[int, list[str]] = {}
    try:
        generation = await model.generate(
            call(n=2), lambda index, delta: streamed.setdefault(index, []).append(delta)
        )
    finally:
        await model.aclose()
    assert sorted(streamed) == [0, 1]
    assert ["".join(streamed[i]) for i in (0, 1)] == list(generation.texts)
    assert all(len(delta) <= 4 for deltas in streamed.values() for delta in deltas)


async def test_a_failed_sample_leaves_no_request_of_its_call_running(raw: RawServer) -> None:
    # Three samples from a server that answers one: two more requests, both sent; one is
    # refused while the other still waits. The call fails, and nothing of it is left running.
    refused = error(400, {"error": {"message": "no"}})
    refused.delay = 0.2
    raw.chat.extend([reply("a"), refused, Exchange(hang=True)])
    model = OpenAIModel(base_url=raw.url, model="m", api_key=KEY)
    try:
        with pytest.raises(ModelError) as info:
            await model.generate(call(n=3))
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        assert info.value.kind == "bad_request"
        assert len(raw.chat_requests) == 3
        assert [task for task in others if task not in raw.tasks] == []
    finally:
        await model.aclose()


async def test_a_failed_request_is_reported_only_once_its_siblings_have_wound_down() -> None:
    # The requests of one call run together; when one fails, the others are cancelled, and
    # the failure is raised only after each has finished its own clean-up (closing a stream
    # takes a few steps of the event loop), never while one is still winding down.
    wound_down: list[str] = []

    async def sibling(name: str) -> Any:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            for _ in range(5):
                await asyncio.sleep(0)
            wound_down.append(name)
            raise

    async def failing() -> Any:
        await asyncio.sleep(0)
        raise ModelError("bad_request", "no")

    with pytest.raises(ModelError, match="no"):
        await gather_all([sibling("first"), failing(), sibling("last")])
    assert wound_down == ["first", "last"]


@pytest.mark.parametrize(
    "broken",
    [OSError("connection reset by peer"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")],
)
async def test_a_stream_broken_below_the_http_layer_is_retried(
    monkeypatch: pytest.MonkeyPatch, broken: Exception
) -> None:
    # Errors of the operating system (or a decoder) that reach the reply stream unwrapped.
    http = http_library()
    attempts: list[int] = []

    class Breaking(http.AsyncByteStream):  # type: ignore[misc, name-defined]
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield sse(chunk(0, "Let me"))[:40]
            raise broken

    class Transport(http.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        async def handle_async_request(self, request: Any) -> Any:
            attempts.append(1)
            if len(attempts) == 1:
                headers = {"content-type": "text/event-stream"}
                return http.Response(200, headers=headers, stream=Breaking())
            body = sse(chunk(0, "fine"), chunk(0, finish="stop"))
            return http.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    monkeypatch.setattr(
        openai_model,
        "capped_http_client",
        lambda: openai.DefaultAsyncHttpxClient(transport=Transport()),
    )
    told: list[str] = []
    url = "http://test.invalid/v1"  # never reached: the transport above answers
    retrying = OpenAIModel(
        base_url=url, model="m", api_key=KEY, backoff_base=0.001,
        on_retry=lambda kind, attempt, wait: told.append(kind),
    )  # fmt: skip
    once = OpenAIModel(base_url=url, model="m", api_key=KEY, max_retries=0)
    try:
        generation = await retrying.generate(call())
        attempts.clear()
        err = await fails(once)
    finally:
        await retrying.aclose()
        await once.aclose()
    assert generation.text == "fine"
    assert told == ["bad_response"]
    assert (err.kind, err.retryable) == ("bad_response", True)
    assert err.message == (
        f"The model server at {url} sent a broken reply: the reply stream broke: {broken}."
    )


async def test_a_stream_cut_off_mid_reply_word_for_word(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["cut", "cut"])
    err = await fails(make())
    assert (err.kind, err.retryable) == ("bad_response", True)
    assert err.message == (
        f"The model server at {fake_server.url} sent a broken reply: the reply stream was cut "
        "off (gave up after 2 tries)."
    )
