"""The quick paths of OpenAIModel's HTTP client, pinned to what they replace.

A streamed reply's chunks are read together (``solver.model.transport.WholeChunks``): the HTTP
parser (h11) gives a chunked body one chunk at a time; OpenAIModel has it give every chunk it
holds at once. These tests pin that nothing else changes: the parser alone and the parser
reading whole chunks give the same bytes and the same end, or the same error, for bodies
written in every way a server may write them (and some it should not), fed whole or a byte at
a time; and a server of our own that writes a reply's events, one chunk each, in a single
write gets the same answer, or the same words of error, from a model reading whole chunks as
from one reading them one by one. A request built from headers merged once still carries what
the HTTP client adds (a cookie). The connection pool's checks (is an idle connection still
open? which connections are closed, expired, free?) are made once a turn of the event loop
and a look over all connections at most every twentieth of a second, unless a request waits
for a connection: it is given an idle one, with its headers as h11 checked them before.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import socket
import zlib
from collections.abc import AsyncIterator
from typing import Any

import h11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.model import Call, Message, ModelError, Sampling
from solver.model import openai as openai_model
from solver.model import stream as stream_module
from solver.model.openai import OpenAIModel
from solver.model.stream import chunk_value, json_value
from solver.model.stream import events as read_events
from solver.model.transport import (
    TIDY_EVERY,
    CheckedHeads,
    QuickChecks,
    QuickStream,
    WholeChunks,
    body_of,
    capped_http_client,
    direct_route,
    http_library,
    tidy_seldom,
)
from solver.roles import Purpose

KEY = "sk-chunks-7Hq2vX9pLm4RtY8wZb3N"

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunks(*pieces: bytes) -> bytes:
    """``pieces`` as chunks of their own."""
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces)


def chunked(*pieces: bytes) -> bytes:
    """``pieces`` as chunks of their own, then the last chunk."""
    return chunks(*pieces) + b"0\r\n\r\n"


BODIES: dict[str, bytes] = {
    "many whole chunks": chunked(*(b"data: %d\n\n" % i for i in range(40))),
    "one chunk": chunked(b"data: 1\n\n"),
    "upper-case and padded sizes": b"A\r\n0123456789\r\n00005\r\nabcde\r\n0\r\n\r\n",
    "an extension": b"5;name=value\r\nabcde\r\n3\r\nxyz\r\n0\r\n\r\n",
    "white space after a size": b"5  \r\nabcde\r\n3\r\nxyz\r\n0\r\n\r\n",
    "trailers": chunked(b"abc", b"def")[:-2] + b"X-Trailer: yes\r\n\r\n",
    "empty": b"0\r\n\r\n",
    "a malformed footer after good chunks": b"3\r\nabc\r\n3\r\ndefXY3\r\nghi\r\n0\r\n\r\n",
    "an illegal size after good chunks": b"3\r\nabc\r\nzz\r\ndef\r\n0\r\n\r\n",
    "a size past any reason": b"3\r\nabc\r\n" + b"f" * 21 + b"\r\nabc\r\n",
    "sixteen digits of size": b"000000000000000A\r\n0123456789\r\n0\r\n\r\n",
    "seventeen digits of size": b"0000000000000000A\r\n0123456789\r\n0\r\n\r\n",
    "a size as Python writes hex": b"3\r\nabc\r\n0x3\r\ndef\r\n0\r\n\r\n",
    "a size with an underscore": b"3\r\nabc\r\n0_3\r\ndef\r\n0\r\n\r\n",
    "a signed size": b"3\r\nabc\r\n+3\r\ndef\r\n0\r\n\r\n",
    "a size with white space before it": b"3\r\nabc\r\n 3\r\ndef\r\n0\r\n\r\n",
    "no size": b"3\r\nabc\r\n\r\ndef\r\n0\r\n\r\n",
    "cut off mid-chunk": b"3\r\nabc\r\n10\r\nonly part",
    "cut off after a chunk": b"3\r\nabc\r\n",
}


def parse(body: bytes, step: int, *, whole: bool) -> tuple[bytes, list[int], str]:
    """Feed ``body`` (after a response head) to an h11 client ``step`` bytes at a time, then
    close: the body's bytes, the size of each Data event, and how it ended."""
    conn = h11.Connection(our_role=h11.CLIENT)
    conn.send(
        h11.Request(method="POST", target="/", headers=[("Host", "x"), ("Content-Length", "0")])
    )
    conn.send(h11.EndOfMessage())
    conn.receive_data(HEAD)
    assert isinstance(conn.next_event(), h11.Response)
    if whole:
        conn._reader = WholeChunks(conn._reader, h11.Data)
    data = b""
    sizes: list[int] = []
    fed = 0
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as err:
            return data, sizes, f"error: {err}"
        if event is h11.NEED_DATA:
            piece = body[fed : fed + step]
            fed += len(piece)
            conn.receive_data(piece)  # b"" once all is fed: the server closed
        elif isinstance(event, h11.Data):
            data += bytes(event.data)
            sizes.append(len(event.data))
        elif isinstance(event, h11.EndOfMessage):
            return data, sizes, f"end, trailers {list(event.headers)}"
        else:
            return data, sizes, f"event {event!r}"


@pytest.mark.parametrize("step", [1, 2, 7, 1 << 16])
@pytest.mark.parametrize("name", list(BODIES))
def test_whole_chunks_give_the_same_bytes_and_end_as_the_parser_alone(name: str, step: int) -> None:
    alone = parse(BODIES[name], step, whole=False)
    together = parse(BODIES[name], step, whole=True)
    assert together[0] == alone[0]
    assert together[2] == alone[2]


def test_chunks_that_came_together_are_one_block_read_in_one_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = BODIES["many whole chunks"]
    assert len(parse(body, 1 << 16, whole=False)[1]) == 40
    asked: list[int] = []
    reader = h11._readers.ChunkedReader.__call__

    def counted(self: Any, buffer: Any) -> Any:
        asked.append(len(buffer))
        return reader(self, buffer)

    monkeypatch.setattr(h11._readers.ChunkedReader, "__call__", counted)
    data, sizes, end = parse(body, 1 << 16, whole=True)
    assert sizes == [len(data)] and end.startswith("end")
    # The forty chunks were read here; the parser's own reader read only the last one (and
    # was asked once before the body came), not each of the forty.
    assert len(asked) < 5


def test_data_before_a_malformed_chunk_comes_before_the_error() -> None:
    data, _, end = parse(BODIES["an illegal size after good chunks"], 1 << 16, whole=True)
    assert (data, end) == (b"abc", "error: illegal chunk header: bytearray(b'zz\\r\\n')")


# -- over HTTP: a server of our own that writes each reply in one go ---------------------------


def event(content: str | None = None, finish: str | None = None, **extra: Any) -> bytes:
    delta = {} if content is None else {"content": content}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({"id": "c", "model": "m", "choices": [choice], **extra}).encode()


def sse(*payloads: bytes, end: str = "\n") -> bytes:
    return b"".join(b"data: " + p + end.encode() * 2 for p in payloads) + b"data: [DONE]\n\n"


HELLO = [event("Hel"), event("lo"), event(finish="stop")]


class OneWriteServer:
    """Answers each request on a kept-alive connection with the next of :attr:`replies`
    (the raw bytes of a body, sent chunked exactly as given, after a head) in one write;
    a reply of None hangs up at once. Counts the connections it was asked on."""

    def __init__(self) -> None:
        self.replies: list[bytes | None] = []
        self.connections = 0
        self.head = HEAD
        self.asked: list[bytes] = []  # the head of each request
        self.writers: list[asyncio.StreamWriter] = []  # of each connection, in turn
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> OneWriteServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.asked.append(head)
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
                body = self.replies.pop(0) if self.replies else chunked(sse(*HELLO))
                if body is None:
                    return
                writer.write(self.head + body)
                await writer.drain()
                if not body.endswith(b"0\r\n\r\n"):
                    return  # a body cut off, or malformed: the server hangs up
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[OneWriteServer]:
    async with OneWriteServer() as serving:
        yield serving


def the_call() -> Call:
    return Call(Purpose.ANSWER, (Message("user", "Say hello."),), Sampling(max_tokens=50))


async def outcome(server: OneWriteServer, body: bytes, *, whole: bool) -> tuple[str, list[str]]:
    """What a model makes of ``body`` (the answer, or its error's words), and the tokens it
    streamed first; reading whole chunks or, as before, one at a time."""
    server.replies = [body]
    patch = pytest.MonkeyPatch()
    if not whole:
        patch.setattr(openai_model, "read_whole_chunks", lambda stream: None)
    tokens: list[str] = []
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, max_retries=0)
    try:
        generation = await model.generate(the_call(), lambda i, text: tokens.append(text))
        return generation.text, tokens
    except ModelError as err:
        return f"error: {err}", tokens
    finally:
        patch.undo()
        await model.aclose()


def at_blank_lines(data: bytes) -> list[bytes]:
    """``data`` cut after each blank line: an event a piece."""
    return [piece + b"\n\n" for piece in data.split(b"\n\n") if piece]


def every(size: int, data: bytes) -> list[bytes]:
    """``data`` cut every ``size`` bytes, wherever that falls."""
    return [data[i : i + size] for i in range(0, len(data), size)]


HEL = b"data: " + event("Hel") + b"\n\n"
NOISE = [b": keep-alive\n\n", b"data:" + event("Hel") + b"\n\n", b":\n\n", b"event: x\nid: 1\n"]

STREAMS: dict[str, tuple[bytes, str]] = {
    "an event a chunk": (chunked(*at_blank_lines(sse(*HELLO))), "Hello"),
    "lines split across chunks": (chunked(*every(11, sse(*HELLO))), "Hello"),
    "data: without a space, comments, keep-alives": (
        chunked(*NOISE, sse(event("lo"), event(finish="stop"))),
        "Hello",
    ),
    "CRLF lines": (chunked(sse(*HELLO, end="\r\n")), "Hello"),
    "chunk extensions": (chunked(sse(*HELLO)).replace(b"\r\n", b";a=b\r\n", 1), "Hello"),
    "a line that is not JSON": (chunked(sse(event("Hel"), b"{not", event(finish="stop"))), "JSON"),
    "no finish": (chunked(sse(event("Hel"), event("lo"))), "ended before"),
    "a malformed chunk mid-stream": (chunks(HEL) + b"zz\r\nxx\r\n", "cut off"),
    "cut off mid-chunk": (chunks(HEL) + b"40\r\ndata: {", "cut off"),
}


@pytest.mark.parametrize("name", list(STREAMS))
async def test_a_model_reading_whole_chunks_answers_as_before(
    server: OneWriteServer, name: str
) -> None:
    body, expected = STREAMS[name]
    before = await outcome(server, body, whole=False)
    after = await outcome(server, body, whole=True)
    assert after == before
    assert expected in after[0]
    if not after[0].startswith("error"):
        assert "".join(after[1]) == after[0]


async def test_a_reply_read_whole_leaves_the_connection_fit_for_the_next(
    server: OneWriteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All of a reply's events came in one write: they are read as one block, and the
    parser still sees the body end, so the next call goes on the same connection."""
    blocks: list[int] = []

    async def counted(source: AsyncIterator[bytes], limits: Any) -> AsyncIterator[list[bytes]]:
        async def counting() -> AsyncIterator[bytes]:
            async for block in source:
                blocks.append(len(block))
                yield block

        async for payloads in read_events(counting(), limits):
            yield payloads

    monkeypatch.setattr(openai_model, "events", counted)
    body = chunks(*(b"data: " + event(c) + b"\n\n" for c in "Hello"))
    body += chunked(b"data: " + event(finish="stop") + b"\n\ndata: [DONE]\n\n")
    server.replies = [body, body]
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False)
    try:
        first = await model.generate(the_call())
        second = await model.generate(the_call())
    finally:
        await model.aclose()
    assert first.text == second.text == "Hello"
    assert len(blocks) == 2  # one a reply, though each came as seven chunks
    assert server.connections == 1


async def test_a_cookie_the_server_set_goes_with_the_next_request(server: OneWriteServer) -> None:
    """Requests are built from headers worked out once, but what the HTTP client adds of its
    own still goes: here a cookie a load balancer set, to keep calls on one backend."""
    server.head = HEAD.replace(b"\r\n\r\n", b"\r\nSet-Cookie: backend=b7; Path=/\r\n\r\n")
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False)
    try:
        for _ in range(2):
            assert (await model.generate(the_call())).text == "Hello"
    finally:
        await model.aclose()
    assert b"cookie:" not in server.asked[0].lower()
    assert b"\r\ncookie: backend=b7\r\n" in server.asked[1].lower()


# -- is an idle connection still open? ---------------------------------------------------------


class _Stream:
    """A network stream of the HTTP library's, as far as the quick checks use it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, info: str) -> Any:
        return self.sock if info == "socket" else None


async def test_an_idle_connection_is_polled_once_a_turn_of_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool asks every idle connection, before and after every request, whether the
    server closed it: it is answered once in each turn of the event loop (at 64 calls in
    flight that was 30 polls a request), and a close is seen at the next turn."""
    polls: list[bool] = []
    poll = QuickStream.poll_socket

    def counted(self: QuickStream) -> bool:
        polls.append(poll(self))
        return polls[-1]

    monkeypatch.setattr(QuickStream, "poll_socket", counted)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        stream = QuickStream(_Stream(ours), QuickChecks(None))
        assert [stream.get_extra_info("is_readable") for _ in range(5)] == [False] * 5
        assert polls == [False]
        theirs.close()
        assert stream.get_extra_info("is_readable") is False  # this turn's answer stands
        await asyncio.sleep(0)
        assert stream.get_extra_info("is_readable") is True
        assert stream.get_extra_info("is_readable") is True
        assert polls == [False, True]


class _Request:
    def __init__(self, queued: bool) -> None:
        self.connection = None if queued else "a connection"


class _Pool:
    """A connection pool, as far as :func:`tidy_seldom` uses it."""

    def __init__(self) -> None:
        self._requests: list[_Request] = []
        self.looks = 0

    def _assign_requests_to_connections(self) -> list[str]:
        self.looks += 1
        return ["a connection to close"]


async def test_the_pool_looks_over_its_connections_seldom_unless_a_request_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop = asyncio.get_running_loop()
    now = [loop.time()]
    monkeypatch.setattr(loop, "time", lambda: now[0])
    pool = _Pool()
    tidy_seldom(pool)
    look = pool._assign_requests_to_connections
    pool._requests = [_Request(queued=False)]
    assert look() == ["a connection to close"]
    assert [look(), look()] == [[], []]  # tidied a moment ago
    assert pool.looks == 1
    pool._requests.append(_Request(queued=True))  # one waits: it is given a connection now
    assert [look(), look()] == [["a connection to close"]] * 2
    assert pool.looks == 3
    pool._requests.pop()
    assert look() == []
    await asyncio.sleep(0)
    assert look() == []  # a new turn of the event loop is not reason enough
    now[0] += TIDY_EVERY
    assert look() == ["a connection to close"]  # time has passed: tidied again
    assert pool.looks == 4
    pool._requests = [object()]  # type: ignore[list-item] # a release with other requests
    assert [look(), look()] == [["a connection to close"]] * 2  # looks each time, as before


async def test_calls_in_flight_together_all_get_their_answers(server: OneWriteServer) -> None:
    """64 calls at once: each waits for a connection of its own and gets its answer; the
    connections are kept for the next 64."""
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, concurrency=64)
    try:
        for _ in range(2):
            replies = await asyncio.gather(*(model.generate(the_call()) for _ in range(64)))
            assert {reply.text for reply in replies} == {"Hello"}
    finally:
        await model.aclose()
    assert server.connections == 64


async def test_a_request_that_waits_is_given_an_idle_connection_and_checked_headers(
    server: OneWriteServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the connections are open, a request is given an idle one without the pool
    looking over all of them (64 of them, each asked if closed, expired, idle, free), and
    its headers as h11 checked them before; the pool still looks to open the first ones,
    and h11 checks their headers."""
    pool_class = type(http_library().AsyncHTTPTransport()._pool)
    look = pool_class._assign_requests_to_connections
    waiting: list[int] = []

    def counted(self: Any) -> Any:
        waiting.append(sum(request.connection is None for request in self._requests))
        return look(self)

    monkeypatch.setattr(pool_class, "_assign_requests_to_connections", counted)
    checks: list[int] = []  # headers h11 checked afresh
    normalize = h11._headers.normalize_and_validate

    def checking(headers: Any, _parsed: bool = False) -> Any:
        if headers and not _parsed and not isinstance(headers, h11._headers.Headers):
            checks.append(len(headers))
        return normalize(headers, _parsed=_parsed)

    monkeypatch.setattr(h11._events, "normalize_and_validate", checking)
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, concurrency=16)
    try:
        first = await asyncio.gather(*(model.generate(the_call()) for _ in range(16)))
        opened = sum(waiting)
        for _ in range(3):
            more = await asyncio.gather(*(model.generate(the_call()) for _ in range(16)))
            assert {reply.text for reply in more} == {"Hello"}
    finally:
        await model.aclose()
    assert {reply.text for reply in first} == {"Hello"}
    assert opened == 16  # each of the first calls waited, and the pool opened a connection
    assert sum(waiting) == opened  # the later 48 were each given an idle one at once
    assert server.connections == 16
    assert len(server.asked) == 64 and len(set(server.asked)) == 1  # the same head each time
    # h11 checked the headers of the first 16 (and once more, to learn them), not of the rest.
    assert len(checks) == 17


async def test_an_idle_connection_the_server_closed_is_not_given_out(
    server: OneWriteServer,
) -> None:
    """A connection the server hung up while it was idle is seen closed and not handed to
    the next request: the pool opens another."""
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, max_retries=0)
    try:
        for _ in range(3):
            assert (await model.generate(the_call())).text == "Hello"
            hanging_up = server.writers[-1]  # the connection is idle now
            hanging_up.close()
            await hanging_up.wait_closed()
    finally:
        await model.aclose()
    assert server.connections == 3


class _ClosingPool:
    """A connection pool, as far as :func:`tidy_seldom` touches its closing."""

    def __init__(self) -> None:
        self._requests: list[_Request] = []
        self.closed: list[list[str]] = []

    def _assign_requests_to_connections(self) -> list[str]:
        return []

    async def _close_connections(self, closing: list[str]) -> None:
        self.closed.append(closing)


async def test_a_look_that_closes_nothing_does_not_go_to_the_pool_to_close_it() -> None:
    """The pool closes what each look found to close inside a shield from cancellation; most
    looks find nothing, and then nothing is set up."""
    pool = _ClosingPool()
    tidy_seldom(pool)
    await pool._close_connections([])
    await pool._close_connections(["a connection"])
    assert pool.closed == [["a connection"]]


# -- writing and reading a connection without the library's layers ---------------------------


class _Counted:
    """The HTTP library's network stream, counting the reads and writes that reach it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._stream = inner._stream  # where the quick paths find the socket stream
        self.reads = 0
        self.writes = 0

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.reads += 1
        return bytes(await self.inner.read(max_bytes, timeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.writes += 1
        await self.inner.write(buffer, timeout)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def connected(handle: Any) -> tuple[QuickStream, _Counted, asyncio.Server]:
    """A quick stream over a real connection of the HTTP library's to a server that runs
    ``handle``."""
    pool = type(http_library().AsyncHTTPTransport()._pool)
    core = importlib.import_module(pool.__module__.split(".")[0])
    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    backend = core.AnyIOBackend()
    counted = _Counted(await backend.connect_tcp("127.0.0.1", port))
    return QuickStream(counted, QuickChecks(backend)), counted, listening


async def test_a_plain_connection_is_written_and_read_without_the_library_layers() -> None:
    """On plain TCP a request goes out in one write straight to the transport, and a read
    takes what comes straight from it: the library's own read and write (a timeout scope
    and a turn of the event loop each) are not called, and the bytes are the same."""
    got: list[bytes] = []

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await reader.readexactly(11))
        writer.write(b"0123456789" * 3)
        await writer.drain()
        writer.close()

    stream, counted, listening = await connected(echo)
    async with listening:
        await stream.write(b"hello", 5.0)
        await stream.write(b" world", 5.0)
        data = await stream.read(10, 5.0)  # no more than asked for; the rest is kept
        while len(data) < 30:
            data += await stream.read(10, 5.0)
        assert data == b"0123456789" * 3
        assert await stream.read(10, 5.0) == b""  # the server hung up: the end, as before
        await stream.aclose()
    assert got == [b"hello world"]
    assert counted.writes == 0
    assert counted.reads == 1  # only the end, which the library's read reports


async def test_a_read_with_nothing_coming_times_out_as_the_library_says() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(100):  # answers nothing, until the client hangs up
            pass
        writer.close()

    stream, counted, listening = await connected(silent)
    async with listening:
        await stream.write(b"hello", 5.0)
        with pytest.raises(Exception) as caught:
            await stream.read(10, 0.05)
        await stream.aclose()
    core = type(caught.value).__module__.split(".")[0]
    assert type(caught.value).__name__ == "ReadTimeout" and core.startswith("httpcore")
    assert counted.reads == 0  # timed out here, as the library's read would


async def test_a_request_the_transport_cannot_take_at_once_waits_within_the_write_timeout() -> None:
    """A request larger than the socket takes waits to be sent, as the library's write
    would, and a server that never reads it makes the write time out."""
    held: list[asyncio.StreamWriter] = []
    done = asyncio.Event()

    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # never reads
        await done.wait()

    stream, counted, listening = await connected(deaf)
    async with listening:
        await stream.write(b"x" * (64 << 20), 0.2)
        with pytest.raises(Exception) as caught:
            await stream.read(10, 5.0)
        await stream.aclose()
        done.set()
        for writer in held:
            writer.close()
    assert type(caught.value).__name__ == "WriteTimeout"
    assert counted.writes == 0


# -- headers checked once ----------------------------------------------------------------------


class _Sent:
    """A request of the HTTP library's, as far as :class:`CheckedHeads` uses it."""

    def __init__(self, headers: list[tuple[bytes, bytes]]) -> None:
        self.headers: Any = headers


def head(key: bytes, length: bytes, *extra: tuple[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    return [
        (b"Host", b"127.0.0.1:8000"),
        (b"Authorization", b"Bearer " + key),
        *extra,
        (b"Content-Length", length),
        (b"X-Stainless-Lang", b"python"),
    ]


def written(headers: Any) -> bytes:
    """What h11 writes for a request with ``headers``."""
    conn = h11.Connection(our_role=h11.CLIENT)
    return conn.send(h11.Request(method=b"POST", target=b"/v1/chat/completions", headers=headers))


def test_a_request_is_given_its_headers_checked_and_written_as_before() -> None:
    heads = CheckedHeads()
    for key, length in [(b"sk-one", b"120"), (b"sk-one", b"98765"), (b"sk-two", b"120")]:
        request = _Sent(head(key, length))
        before = written(request.headers)
        heads.check(request)
        assert type(request.headers) is not list  # h11's own form: not checked again
        assert written(request.headers) == before  # a new key, a new length: each its own
        assert request.headers.raw_items() == head(key, length)
    assert len(heads.known) == 2  # one set of headers for each key, whatever the length


def test_headers_h11_would_refuse_are_left_for_it_to_refuse() -> None:
    heads = CheckedHeads()
    for headers in [
        head(b"sk-one\r\nX-Evil: 1", b"12"),  # a value that would start another header
        head(b"sk-one", b"12", (b"Bad Name", b"x")),
        head(b"sk-one", b"12")[1:],  # no Host
        head(b"sk-one", b"1,2"),  # a length that is not plain digits
        head(b"sk-one", b"12", (b"content-length", b"12")),  # two lengths
    ]:
        request = _Sent(list(headers))
        heads.check(request)
        assert request.headers == headers  # as it was: h11 checks it when it is sent
    with pytest.raises(h11.LocalProtocolError):
        written(head(b"sk-one\r\nX-Evil: 1", b"12"))


async def test_what_a_server_sends_on_an_idle_connection_keeps_it_from_being_used_again(
    server: OneWriteServer,
) -> None:
    """Reading stays on between reads, so what a server sends while a connection is idle
    is read off the socket: it still counts, as it did in the socket, and the next
    request goes on a new connection rather than reading it as its reply."""
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, max_retries=0)
    try:
        for _ in range(3):
            assert (await model.generate(the_call())).text == "Hello"
            stray = server.writers[-1]  # on the connection the client holds idle
            stray.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray")
            await stray.drain()
            for _ in range(3):
                await asyncio.sleep(0)  # turns of the event loop: the client reads it
    finally:
        await model.aclose()
    assert server.connections == 3


async def test_reading_pauses_while_what_was_read_is_not_taken() -> None:
    """A server that sends faster than its reply is taken is read only a few blocks ahead."""

    async def flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"x" * (16 << 20))
        await writer.drain()
        writer.close()

    stream, _, listening = await connected(flood)
    async with listening:
        got = len(await stream.read(10, 5.0))
        for _ in range(50):
            await asyncio.sleep(0)  # turns of the event loop: it reads what it may meanwhile
        assert stream.plain is not None
        held = stream.plain._protocol.read_queue
        assert len(held) <= QuickStream.HELD + 1
        while True:
            block = await stream.read(1 << 16, 5.0)
            if not block:
                break
            got += len(block)
        await stream.aclose()
    assert got == 16 << 20


async def test_a_body_is_read_from_the_connections_own_stream_with_the_same_blocks(
    server: OneWriteServer,
) -> None:
    """The model reads a reply's body from the HTTP/1.1 connection's stream, under the layers
    that only pass each block on: the blocks are the same as through the response's stream;
    a body the client caps (here a web page's error) is read through the cap."""
    body = chunked(sse(*HELLO))
    server.replies = [body, body]
    client = capped_http_client()
    url = server.url + "/chat/completions"
    try:
        got: list[bytes] = []
        for inner in (False, True):
            response = await client.send(
                client.build_request("POST", url, content=b"{}"), stream=True
            )
            stream = body_of(response.stream) if inner else response.stream
            assert (stream is not response.stream) is inner
            got.append(b"".join([block async for block in stream]))
            await response.aclose()
        assert got[0] == got[1] == sse(*HELLO)
        server.head = HEAD.replace(b"200 OK", b"500 Oops")
        server.replies = [body]
        response = await client.send(client.build_request("POST", url, content=b"{}"), stream=True)
        assert body_of(response.stream) is response.stream  # capped: read through the cap
        await response.aclose()
    finally:
        await client.aclose()
    assert server.connections == 1


# -- straight to the connection pool -----------------------------------------------------------


async def test_a_plain_reply_goes_straight_to_the_pool_and_a_logged_one_through_the_client(
    server: OneWriteServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A chat request skips the HTTP client's layers (DirectRoute): its send is not called,
    and the answers are the same. With the HTTP library's log on, a request goes through
    the HTTP client, which logs it as before (and never the key)."""
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False)
    sent: list[Any] = []
    try:
        http_client = model.client()._client
        send = http_client.send

        async def counted(request: Any, **kwargs: Any) -> Any:
            sent.append(request)
            return await send(request, **kwargs)

        http_client.send = counted
        for _ in range(2):
            assert (await model.generate(the_call())).text == "Hello"
        assert sent == []
        caplog.set_level(logging.INFO, logger=http_library().__name__)
        assert (await model.generate(the_call())).text == "Hello"
    finally:
        await model.aclose()
    assert len(sent) == 1
    assert "HTTP Request: POST" in caplog.text and "/v1/chat/completions" in caplog.text
    assert KEY not in caplog.text
    assert len(server.asked) == 3
    assert server.asked[0] == server.asked[1] == server.asked[2]  # the same request each way


async def test_a_compressed_event_stream_is_undone_on_the_route_as_before(
    server: OneWriteServer,
) -> None:
    """A server that compresses its event stream though asked not to: the reply is not
    plain, so it goes through the HTTP client's hooks, which undo the gzip."""
    packer = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    packed = packer.compress(sse(*HELLO)) + packer.flush()
    server.head = HEAD.replace(b"\r\n\r\n", b"\r\nContent-Encoding: gzip\r\n\r\n")
    server.replies = [chunked(packed), chunked(packed)]
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False, max_retries=0)
    try:
        for _ in range(2):
            assert (await model.generate(the_call())).text == "Hello"
    finally:
        await model.aclose()


@pytest.mark.parametrize(
    ("status", "headers", "plain"),
    [
        (200, [(b"Content-Type", b"text/event-stream; charset=utf-8")], True),
        (200, [(b"content-type", b"Text/Event-Stream")], True),
        (200, [(b"Content-Type", b"text/event-stream+html")], False),  # a web page
        (200, [(b"Content-Type", b"text/html")], False),
        (200, [(b"Content-Type", b"application/json")], False),
        (200, [], False),
        (429, [(b"Content-Type", b"text/event-stream")], False),
        (302, [(b"Content-Type", b"text/event-stream")], False),
        (200, [(b"Content-Type", b"text/event-stream"), (b"Set-Cookie", b"a=b")], False),
        (200, [(b"Content-Type", b"text/event-stream"), (b"Content-Encoding", b"br")], False),
    ],
)
async def test_only_a_plain_event_stream_skips_the_clients_hooks(
    server: OneWriteServer, status: int, headers: list[tuple[bytes, bytes]], plain: bool
) -> None:
    model = OpenAIModel(base_url=server.url, api_key=KEY, model="m", cache=False)
    try:
        await model.generate(the_call())
        route = direct_route(model.client())
        assert route is not None
        assert route.plain(_Answer(status, headers)) is plain
    finally:
        await model.aclose()


class _Answer:
    def __init__(self, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        self.status = status
        self.headers = headers


def test_a_client_built_otherwise_takes_no_direct_route() -> None:
    """A client with a proxy, hooks of its own or another HTTP client: its own path."""
    import openai

    plain = openai.AsyncOpenAI(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    assert direct_route(plain) is None  # not the capped client: hooks not ours
    capped = openai.AsyncOpenAI(
        api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=capped_http_client()
    )
    assert direct_route(capped) is not None
    proxied = capped_http_client()
    proxied._mounts = {"all://": proxied._transport}
    through = openai.AsyncOpenAI(api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=proxied)
    assert direct_route(through) is None


# -- a chunk's JSON -----------------------------------------------------------------------------


def _read(read: Any, data: bytes) -> tuple[str, str]:
    """What ``read`` makes of ``data``: its value (as repr shows it: NaN equals itself
    there), or its error's type and words."""
    try:
        return "value", repr(read(data))
    except (ValueError, RecursionError) as err:
        return type(err).__name__, str(err)


def _as_before(data: bytes) -> Any:
    return json_value(data.decode("utf-8", errors="replace"))


PAYLOADS = [
    b'{"id":"c","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}',
    b'{"a":1,"b":2,"a":3}',  # a key twice: the last one, in the first one's place
    b"NaN", b"[Infinity,-Infinity]", b"1e400", b"-0", b"-0.0", b"1E5", b"12345678901234567890123",
    b'"\\ud800"', b'"\\uDEAD"', b'"\\ud83dx"', b'"\\ud83d\\ude00"', b'"\xed\xa0\x80"', b'"\xff"',
    b'"a\tb"', b'"\x00"', b'"\x7f"', b"01", b"-01", b"+1", b"nan", b"inf", b"-NaN", b"1.", b".5",
    b"[1,]", b'{"a":1,}', b"tru", b"True", b"1 2", b"[1 2]", b"{a:1}", b"0x10", b"1_000",
    b"\xef\xbb\xbf1", b"[1,\x0c2]", b'{"a":1}\x00', b"", b"[" * 300 + b"]" * 300,
    b"[" * 100_000, b'"\\x41"', b"'a'",
]  # fmt: skip


@pytest.mark.parametrize("data", PAYLOADS)
def test_a_chunk_is_read_as_pythons_json_reads_it(data: bytes) -> None:
    assert _read(chunk_value, data) == _read(_as_before, data)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(
    value=_JSON,
    ascii_only=st.booleans(),
    cut=st.integers(min_value=0, max_value=400),
    noise=st.binary(max_size=3),
)
@settings(max_examples=300, deadline=None)
def test_any_json_whole_or_broken_is_read_as_pythons_json_reads_it(
    value: Any, ascii_only: bool, cut: int, noise: bytes
) -> None:
    """A JSON text, whole or cut short, or with a few bytes of anything put into it: jiter
    reads the same values, and what it refuses Python's reader reads (or refuses) as
    before."""
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    for data in (text, text[:cut], text[:cut] + noise + text[cut:]):
        data = data.strip()
        assert _read(chunk_value, data) == _read(_as_before, data)


def test_chunks_are_read_by_the_quick_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk a server sends most (JSON Python's reader and jiter both read) is read by
    jiter: Python's reader is not asked."""

    def unasked(text: str) -> Any:
        raise AssertionError("read by Python's JSON reader")

    monkeypatch.setattr(stream_module, "json_value", unasked)
    assert chunk_value(PAYLOADS[0])["choices"][0]["delta"] == {"content": "Hel"}
