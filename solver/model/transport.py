"""The HTTP transport under :class:`~solver.model.openai.OpenAIModel`: the openai client's own
HTTP client, made safe against what a server sends back and quick at what it does often.

:func:`capped_http_client` follows no redirect, refuses a web page where the API should
answer, undoes one layer of gzip or deflate itself and caps what bodies read whole come to
once decompressed; its connections tell quickly whether a server closed them
(:class:`QuickChecks`) and send a request in one write (:class:`QuickStream`), and its pool
tidies itself at most every :data:`TIDY_EVERY` seconds (:func:`tidy_seldom`).
:func:`request_template` keeps what every chat completion request of a client carries, so the
model can send one without the openai client's own request path, and
:func:`read_whole_chunks` has the HTTP parser give a streamed reply's chunks together.
What goes wrong is raised as a :class:`Failure` (a web page), :class:`BodyTooLarge` or
:class:`BadCoding`; the model says what each means.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import importlib
import itertools
import logging
import math
import operator
import re
import select
import ssl
import sys
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import openai

__all__ = [
    "CLIENT_INTERNALS",
    "REQUEST_ERRORS",
    "TIDY_EVERY",
    "BadCoding",
    "BodyTooLarge",
    "Cap",
    "CheckedHeads",
    "DirectRoute",
    "Failure",
    "Inflater",
    "QuickChecks",
    "QuickStream",
    "RequestTemplate",
    "WholeChunks",
    "body_of",
    "cap_of",
    "capped_http_client",
    "chat_request",
    "content_coding",
    "direct_route",
    "http_library",
    "idle_connection",
    "parser_of",
    "plain_socket",
    "read_whole_chunks",
    "refuse_html",
    "request_template",
    "short",
    "tidy_seldom",
    "tls_context",
]

_ERROR_BODY_BYTES = 1 << 20  # an error body longer than this is not read on
_BODY_BYTES = 32 << 20  # nor any other body read whole (a model list)


class Failure(Exception):
    """One failed HTTP attempt, classified; becomes a ModelError once retries are spent."""

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
        deadline: bool = False,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.deadline = deadline  # the call's deadline ran out


def short(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters (the last three an ellipsis) if it is longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class RequestTemplate:
    """What every chat completion request of one client carries: where it goes, and the
    headers the openai client would send (its credentials, its own headers, the ones set
    in ``default_headers``), less the ones it counts afresh for each request."""

    url: Any  # the HTTP library's URL
    headers: tuple[tuple[str, str], ...]
    merged: Any  # those merged with the HTTP client's own, as it would for each request
    # (None: a release of the HTTP library that does not merge them so)
    timeout: dict[str, float | None]  # the client's timeouts, as a request carries them
    head: tuple[tuple[bytes, bytes], ...] | None = None  # those, with the Host first, as the
    # HTTP library writes them into a request with a body (None: it would write them otherwise)
    encoding: str | None = None  # the headers' encoding, as the HTTP library finds it


def body_of(stream: Any) -> Any:
    """What to read a response's body from (``stream``, the response's): the HTTP/1.1
    connection's own stream of its blocks, under the layers that only pass each block on
    (one counts time, one puts the library's errors into the client's classes, one guards
    the iteration); ``stream`` itself where it is built otherwise (a capped or compressed
    body, another release, HTTP/2). A block comes out the same; an error is the library's
    own (``httpcore``'s, not ``httpx``'s), which the model reads as it reads the client's.
    Closing the response still closes every layer."""
    inner = stream
    for _ in range(3):
        inner = getattr(inner, "_stream", None) or getattr(inner, "_httpcore_stream", None)
        if type(inner).__name__ == "HTTP11ConnectionByteStream":
            return inner if hasattr(inner, "__aiter__") else stream
    return stream


def read_whole_chunks(stream: Any) -> None:
    """Have the HTTP/1.1 parser under ``stream`` (a response's body) give all the chunks it
    holds at once, as one block, instead of one block for each.

    A server sends each event of a stream as a chunk of its own (chunked transfer coding),
    and the parser (h11) hands on one chunk at a time, each through about ten layers of the
    HTTP library's iterators and state keeping: 15 to 25 µs an event, most of a streamed
    call's CPU time. The chunks of a reply mostly arrive together, in one read from the
    socket. Left alone where the library is not built as expected."""
    state = parser_of(stream)
    reader = getattr(state, "_reader", None)
    module = sys.modules.get(type(reader).__module__)
    data = getattr(module, "Data", None)
    if (
        type(reader).__name__ == "ChunkedReader"
        and type(reader).__module__.split(".")[0] == "h11"
        and isinstance(data, type)
    ):
        state._reader = WholeChunks(reader, data)


def parser_of(stream: Any) -> Any:
    """The h11 connection under a response body's stream, through the layers the HTTP
    library wraps it in (None if it is not found)."""
    for _ in range(8):
        state = getattr(stream, "_h11_state", None)
        if state is not None:
            return state
        for name in ("_stream", "_httpcore_stream", "_connection"):
            inner = getattr(stream, name, None)
            if inner is not None:
                stream = inner
                break
        else:
            return None
    return None


_CHUNK_HEAD = re.compile(rb"([0-9A-Fa-f]{1,16})\r\n")
"""The head of a chunk in its plainest form (a size, no extensions): a subset of what h11
reads as one."""


class WholeChunks:
    """An h11 ``ChunkedReader`` that gives, for each call, the data of every whole or partial
    chunk in the parser's buffer together, as one ``Data`` event.

    The whole chunks at the start of the buffer are read here, in one pass; the rest (a
    chunk not all come yet, the last chunk and what follows it, a chunk written in any
    other way, a malformed one) by the reader itself, as before. What follows the data
    (the end of the body) or goes wrong after it (a malformed chunk) is given on the next
    call, after the data before it, as the reader would give them."""

    def __init__(self, inner: Any, data: type) -> None:
        self.inner = inner
        self.data: Any = data  # h11's Data event
        self.next: Any = None  # an event, or an exception, to give on the next call

    def __call__(self, buffer: Any) -> Any:
        if self.next is not None:
            held, self.next = self.next, None
            if isinstance(held, BaseException):
                raise held
            return held
        data = self._whole(buffer)
        while True:
            try:
                event = self.inner(buffer)
            except Exception as err:
                if not data:
                    raise
                self.next = err  # given on the next call
                break
            if event is None:
                break
            if type(event) is not self.data:
                if not data:
                    return event
                self.next = event
                break
            data.append(event.data)
        return self.data(data=b"".join(data)) if data else None

    def _whole(self, buffer: Any) -> list[Any]:
        """The data of the whole chunks, in their plainest form, at the start of ``buffer``,
        taken out of it (none unless the reader is between chunks)."""
        inner = self.inner
        held = getattr(buffer, "_data", None)
        if (
            type(held) is not bytearray
            or getattr(inner, "_bytes_in_chunk", None) != 0
            or getattr(inner, "_bytes_to_discard", None) != b""
            or getattr(inner, "_reading_trailer", None) is not False
            or not hasattr(buffer, "_next_line_search")
        ):
            return []
        found: list[Any] = []
        at = 0
        match = _CHUNK_HEAD.match
        ends_at = held.startswith
        head = match(held, at)
        while head is not None:
            start = head.end()
            end = start + int(head.group(1), 16)
            if end == start or not ends_at(b"\r\n", end):
                break  # the last chunk, or one not all here yet, or malformed: the reader's
            found.append(held[start:end])
            at = end + 2
            head = match(held, at)
        if at:
            del held[:at]
            # As the buffer does when it gives bytes out: its searches start again.
            buffer._next_line_search = 0
            buffer._multiple_lines_search = 0
        return found

    def read_eof(self) -> Any:
        return self.inner.read_eof()


CLIENT_INTERNALS = ("_client", "_make_status_error_from_response", "auth_headers")
"""What :meth:`OpenAIModel._post_stream`'s quick path reads of the openai client beyond its
public API; a release without them gets the client's own request path."""

_PER_REQUEST_HEADERS = {"x-stainless-retry-count", "x-stainless-read-timeout", "idempotency-key"}

REQUEST_ERRORS: tuple[type[Exception], ...] = (ssl.SSLError,)
"""Errors of sending a request that are not the HTTP library's own (as the openai client sorts
them): a TLS failure it does not wrap, a stream that ends before a reply begins."""
with contextlib.suppress(ImportError):
    import anyio

    REQUEST_ERRORS += (anyio.EndOfStream,)


def request_template(client: Any) -> RequestTemplate:
    """The :class:`RequestTemplate` of ``client`` (an ``openai.AsyncOpenAI``), made once."""
    template: RequestTemplate | None = getattr(client, "_ponder_template", None)
    if template is None:
        merged: dict[str, tuple[str, object]] = {}
        for name, value in {**client.auth_headers, **client.default_headers}.items():
            merged[name.lower()] = (name, value)
        headers = tuple(
            (name, value)
            for key, (name, value) in merged.items()
            if isinstance(value, str) and key not in _PER_REQUEST_HEADERS
        )
        # A compressed stream could inflate past the caps within a single read.
        headers = tuple(pair for pair in headers if pair[0].lower() != "accept-encoding")
        headers += (("Accept-Encoding", "identity"),)
        url = client.base_url.copy_with(raw_path=client.base_url.raw_path + b"chat/completions")
        http_client = client._client
        merge = getattr(http_client, "_merge_headers", None)
        timeout = http_library().Timeout(client.timeout).as_dict()
        whole = merge(headers) if merge is not None else None
        head: tuple[tuple[bytes, bytes], ...] | None = None
        encoding = None
        if whole is not None and url.host and not _AUTO_HEADERS & set(whole.keys()):
            head = ((b"Host", url.netloc), *whole.raw)
            encoding = whole.encoding
        template = RequestTemplate(url, headers, whole, timeout, head, encoding)
        client._ponder_template = template
    return template


_AUTO_HEADERS = {"host", "content-length", "transfer-encoding"}
"""Headers the HTTP library adds to a request with a body, unless they are set already."""


def chat_request(client: Any, content: bytes) -> Any:
    """The HTTP library's request that posts ``content`` (a chat completion request's JSON) to
    ``client``'s chat completions route: the request its HTTP client would build, headers
    and all, with as little of the building done afresh as it allows."""
    http = http_library()
    template = request_template(client)
    http_client = client._client
    if template.merged is None or http_client.cookies or http_client.params:
        # What the HTTP client adds of its own to a request it builds: cookies a server
        # set, query parameters.
        return http_client.build_request(
            "POST", template.url, content=content, headers=template.headers,
            timeout=client.timeout,
        )  # fmt: skip
    if template.head is None:
        # The request it would build, less its merging the same headers every time.
        return http.Request(
            "POST", template.url, content=content, headers=template.merged,
            extensions={"timeout": template.timeout},
        )  # fmt: skip
    # The same, less its working out again what the headers come to with the Host and the
    # body's length (their encoding too): they are written here as it writes them.
    headers = http.Headers(
        [*template.head, (b"Content-Length", b"%d" % len(content))], encoding=template.encoding
    )
    request = http.Request(
        "POST", template.url, headers=headers, stream=http.ByteStream(content),
        extensions={"timeout": template.timeout},
    )  # fmt: skip
    request.read()  # as the library does with a body given whole
    return request


class DirectRoute:
    """The way a client's chat requests go straight to its connection pool, under the HTTP
    client's layers (auth, redirects, hooks, the transport's conversions and error
    mapping), when those would do nothing but pass a request and its reply on.

    Each layer costs a few function calls and an object or two a request; together, with
    building the HTTP client's request and then the pool's from it, about a sixth of a
    streamed call's CPU time. A route is made once per client (:func:`direct_route`) where
    the HTTP client is built as :func:`capped_http_client` builds it and the request goes
    to a plain connection pool (no proxy, no mounts, no auth of its own); each request
    takes it while the client is open, has no cookies to send and does not log its
    requests (:meth:`open`). A reply that is not a plain event stream, or sets a cookie,
    becomes the HTTP client's own response, its hooks run on it (:meth:`response`)."""

    def __init__(self, client: Any, template: RequestTemplate, pool: Any) -> None:
        http_client = client._client
        self.pool = pool
        self.core: Any = sys.modules[type(pool).__module__.split(".")[0]]
        core = self.core
        url = template.url
        self.url = core.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        )
        assert template.head is not None
        self.head = list(template.head)
        self.timeout = template.timeout
        self.opened = type(http_client._state).OPENED
        self.closed = type(http_client._state).CLOSED
        self.logger = logging.getLogger(http_library().__name__)
        sample = core.Request(b"POST", self.url, headers=[], content=b"", extensions={})
        self.request_type: Any = type(sample)
        self.stream_type: Any = type(sample.stream)
        # A request made by setting its fields, as its constructor sets them from values
        # already in its types (the constructor checks each header's type again).
        self.fields = set(vars(sample)) == {"method", "url", "headers", "stream", "extensions"}
        self.timeouts: type[Exception] = core.TimeoutException
        self.failures: tuple[type[Exception], ...] = (
            core.NetworkError, core.ProxyError, core.UnsupportedProtocol, core.ProtocolError,
        )  # fmt: skip
        # (Where the library defines them: its classes name the package as their module.)
        defined = type(http_client._transport).handle_async_request.__module__
        self.wrap: Any = sys.modules[defined].AsyncResponseStream
        self.bound: Any = sys.modules[type(http_client).send.__module__].BoundAsyncStream

    def open(self, http_client: Any) -> bool:
        """Whether a request can take the route now (the HTTP client open to requests, as
        its first marks it, nothing to add to a request, nothing to log)."""
        state = http_client._state
        if state is not self.opened:
            if state is self.closed:
                return False  # (its own path says it is closed)
            http_client._state = self.opened
        return not http_client.cookies and not self.logger.isEnabledFor(logging.INFO)

    def request(self, content: bytes) -> Any:
        """The pool's request that posts ``content``, as the HTTP client's transport would
        make it from the HTTP client's own."""
        headers = [*self.head, (b"Content-Length", b"%d" % len(content))]
        extensions = {"timeout": self.timeout}
        if not self.fields:
            return self.request_type(
                b"POST", self.url, headers=headers, content=content, extensions=extensions
            )
        request = self.request_type.__new__(self.request_type)
        request.method = b"POST"
        request.url = self.url
        request.headers = headers
        request.stream = self.stream_type(content)
        request.extensions = extensions
        return request

    def plain(self, answer: Any) -> bool:
        """Whether the pool's ``answer`` is one the HTTP client's layers would pass on as
        it is: a success, an event stream (no web page), in no content coding, setting
        no cookie."""
        if not 200 <= answer.status < 300:
            return False
        stream = False
        for name, value in answer.headers:
            lowered = name.lower()
            if lowered == b"content-type":
                kind = value.lower()
                stream = kind.startswith(b"text/event-stream") and b"html" not in kind
            elif lowered in (b"content-encoding", b"set-cookie"):
                return False
        return stream

    async def response(self, http_client: Any, answer: Any, request: Any) -> Any:
        """The HTTP client's response to ``request`` from the pool's ``answer``, as its
        layers would give it: the cookies it sets kept, its response hooks run."""
        response = http_library().Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=self.bound(self.wrap(answer.stream), start=time.perf_counter()),
            extensions=answer.extensions,
            request=request,
        )
        response.default_encoding = http_client._default_encoding
        try:
            http_client.cookies.extract_cookies(response)
            for hook in http_client._event_hooks["response"]:
                await hook(response)
        except BaseException:
            await response.aclose()
            raise
        return response


def direct_route(client: Any) -> DirectRoute | None:
    """The :class:`DirectRoute` of ``client`` (an ``openai.AsyncOpenAI``), made once; None
    where its HTTP client is built otherwise, or a release of the library lacks what the
    route uses."""
    with contextlib.suppress(AttributeError):
        made: DirectRoute | None = client._ponder_route
        return made
    route = None
    if not all(hasattr(client, name) for name in CLIENT_INTERNALS):
        return None
    template = request_template(client)
    http_client = client._client
    transport = getattr(http_client, "_transport", None)
    pool = getattr(transport, "_pool", None)
    hooks = getattr(http_client, "_event_hooks", None)
    cap = getattr(http_client, "_ponder_cap", None)
    http = http_library()
    if (
        template.head is not None
        and cap is not None
        and hooks == {"request": [], "response": [cap]}
        and type(transport) is getattr(http, "AsyncHTTPTransport", None)
        and type(pool).__name__ == "AsyncConnectionPool"
        and not getattr(http_client, "_mounts", True)
        and getattr(http_client, "_auth", True) is None
        and not http_client.params
        and template.url.scheme in ("http", "https")
        and not template.url.userinfo
    ):
        with contextlib.suppress(AttributeError, KeyError, TypeError):
            route = DirectRoute(client, template, pool)
    client._ponder_route = route
    return route


@functools.cache
def http_library() -> Any:
    """The httpx the openai client is built on (``httpx``, or ``httpx2`` in newer releases)."""
    for cls in openai.DefaultAsyncHttpxClient.__mro__:
        if cls.__name__ == "AsyncClient":
            return importlib.import_module(cls.__module__.split(".")[0])
    raise RuntimeError("the openai client's HTTP library was not found")


def capped_http_client() -> Any:
    """The openai client's own HTTP client, made safe against what a server sends back.

    It follows no redirect: one would send the whole prompt to wherever a server points. It
    refuses a web page where the API should answer. It undoes content codings itself, one
    layer of gzip or deflate and no more, a bounded piece at a time (the HTTP library would
    undo up to five stacked layers, each multiplying what a few bytes unpack to), and caps
    what bodies read whole (an error, a list of models) come to once decompressed: 1 MB of
    gzip can unpack to 1 GB. A stream of events is read, and capped on its decompressed
    bytes, by :func:`solver.model.stream.events`.
    """
    http = http_library()

    class CappedBody(http.AsyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, inner: Any, unpack: Inflater | None, cap: Cap | None) -> None:
            self.inner = inner
            self.unpack = unpack
            self.cap = cap

        async def __aiter__(self) -> AsyncIterator[bytes]:
            size = 0
            async for block in self.inner:
                for piece in self.unpack.feed(block) if self.unpack else (block,):
                    size += len(piece)
                    if self.cap is not None and size > self.cap.limit:
                        raise BodyTooLarge(self.cap)
                    yield piece

        async def aclose(self) -> None:
            await self.inner.aclose()

    class Unread(http.AsyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            return
            yield b""  # an async generator that yields nothing

        async def aclose(self) -> None:
            await self.inner.aclose()

    async def cap(response: Any) -> None:
        if response.is_redirect:
            # Only where it points matters, and that is in its headers: what a redirect
            # says besides (a page, perhaps huge or compressed) is never read.
            response.stream = Unread(response.stream)
            return
        refuse_html(response)
        coding = content_coding(response.headers.get_list("content-encoding", split_commas=True))
        limit = cap_of(response, packed=coding is not None)
        if coding is not None:
            # Decoded here, so the HTTP library must not decode again.
            del response.headers["content-encoding"]
        unpack = Inflater(coding) if coding is not None else None
        if unpack is not None or limit is not None:
            # (A plain event stream is read as it comes, capped by stream.events: a layer that
            # only passed each block on would cost time on every one of them.)
            response.stream = CappedBody(response.stream, unpack, limit)

    client = openai.DefaultAsyncHttpxClient(
        event_hooks={"response": [cap]},
        follow_redirects=False,
        verify=tls_context(),
        # Only what CappedBody undoes (the HTTP library would offer brotli and zstd too, were
        # they installed).
        headers={"Accept-Encoding": "gzip, deflate"},
    )
    client._ponder_cap = cap  # type: ignore[attr-defined]  # (direct_route knows it by this)
    for transport in [client._transport, *client._mounts.values()]:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is not None and not isinstance(backend, QuickChecks):
            quick = QuickChecks(backend)
            pool._network_backend = quick  # type: ignore[union-attr]
            tidy_seldom(pool)
    return client


_CONNECTION_OF = operator.attrgetter("connection")  # of a request in the pool: None while it waits


TIDY_EVERY = 0.05
"""Seconds of the event loop between the connection pool's looks while no request waits."""


def tidy_seldom(pool: Any) -> None:
    """Have the connection pool look over its connections at most every :data:`TIDY_EVERY`
    seconds when no request waits for one, and give a request that waits an idle
    connection without looking over the others.

    The pool looks over every connection (closed? expired? idle? available?) when a request
    starts and again when each reply is closed: with 64 connections, about a tenth of a
    call's CPU time. With none waiting, a look is only tidying (dropping closed connections,
    closing expired or surplus idle ones): nothing waits on it, no connection it would
    close is handed out meanwhile (:func:`idle_connection` checks the one it gives), and
    keep-alive expiries are seconds long, so it can wait a twentieth of a second.
    A request that waits is given a connection at once, as before: the first idle one (in
    the pool's order) that no other request holds, if it is fit (:func:`idle_connection`);
    otherwise the pool looks, and opens a new connection or closes one as it sees fit.
    """
    look = getattr(pool, "_assign_requests_to_connections", None)
    if look is None or not isinstance(getattr(pool, "_requests", None), list):
        return
    looked = [-math.inf]  # when the pool last looked (the event loop's time)
    heads = CheckedHeads()

    def tidy() -> Any:
        requests = pool._requests
        try:  # does a request wait for a connection? (asked in C: there are 64 of them)
            holding = list(map(_CONNECTION_OF, requests))
        except AttributeError:
            return look()
        if None in holding:
            if holding.count(None) == 1 and holding[-1] is None:  # the one just come
                with contextlib.suppress(AttributeError):  # (a release built otherwise)
                    waiting = requests[-1]
                    connection = idle_connection(pool, waiting, set(holding))
                    if connection is not None:
                        if type(connection).__name__ == "AsyncHTTPConnection":
                            # (Not through a proxy, which writes the headers afresh.)
                            heads.check(waiting.request)
                        waiting.assign_to_connection(connection)
                        return []
            return look()
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:
            return look()
        if now < looked[0] + TIDY_EVERY:
            return []  # nothing to close
        looked[0] = now
        return look()

    pool._assign_requests_to_connections = tidy
    close = getattr(pool, "_close_connections", None)
    if close is not None:

        async def close_any(closing: list[Any]) -> None:
            # Most looks close nothing: then no shield from cancellation is set up for it.
            if closing:
                await close(closing)

        pool._close_connections = close_any


class CheckedHeads:
    """The headers of a client's requests in the form the HTTP/1.1 parser (h11) checks them
    into, checked once for each set of headers (the Content-Length aside).

    h11 checks every header of every request it sends (its name and value against what
    HTTP allows, a Host, one Content-Length) and keeps them as (name as written, name in
    lower case, value): a tenth of a millisecond a request, the same work every time, as
    a client sends the same headers but the length of its body. A request whose headers
    are known good is given them in that form, which h11 takes as they are; anything not
    known good, or not plain (two lengths, a length that is not digits), is left to h11
    to check, and to refuse, as before."""

    LIMIT = 64  # sets of headers kept; past it they are forgotten and checked afresh

    def __init__(self) -> None:
        self.known: dict[tuple[tuple[bytes, bytes], ...], tuple[list[Any], Any]] = {}

    def check(self, request: Any) -> None:
        """Give ``request`` (the HTTP library's) its headers in h11's form, if they are
        known good (and learn them, if h11 finds them so)."""
        headers = request.headers
        if type(headers) is not list:
            return
        rest: list[tuple[bytes, bytes]] = []
        length: bytes | None = None
        at = -1
        for pair in headers:
            if pair[0].lower() == b"content-length":
                if length is not None:
                    return  # two of them: h11 decides
                length, at = pair[1], len(rest)
                rest.append((pair[0], b""))
            else:
                rest.append(pair)
        if length is None or not length.isdigit() or len(length) > 20:
            return
        key = tuple(rest)
        known = self.known.get(key)
        if known is None:
            known = self._learn(rest, at)
            if known is None:
                return
            if len(self.known) >= self.LIMIT:
                self.known.clear()
            self.known[key] = known
        items, kind = known
        items = items.copy()
        items[at] = (headers[at][0], b"content-length", length)
        request.headers = kind(items)

    def _learn(self, rest: list[tuple[bytes, bytes]], at: int) -> tuple[list[Any], Any] | None:
        """The headers ``rest`` (a length of 0 at ``at``) as h11 checks them, or None if
        it refuses them (it will say why when the request is sent)."""
        import h11

        pairs = [*rest[:at], (rest[at][0], b"0"), *rest[at + 1 :]]
        try:
            checked = h11.Request(method=b"POST", target=b"/", headers=pairs).headers
            items = list(zip(checked.raw_items(), checked, strict=True))
        except (h11.LocalProtocolError, AttributeError, TypeError):
            return None
        full = [(raw, name, value) for (raw, value), (name, _) in items]
        return full, type(checked)


def idle_connection(pool: Any, request: Any, held: set[Any]) -> Any:
    """The connection the pool's look would give ``request`` (one of its queue) when an idle
    one can take it: the first in the pool's order that is idle, held by no request, open
    to the request's origin, and neither expired nor closed by the server (such a one the
    look closes: None then, as for none idle)."""
    origin = request.request.url.origin
    for connection in itertools.filterfalse(held.__contains__, pool._connections):
        if (
            connection.is_available()
            and connection.is_idle()
            and not connection.can_multiplex()
            and connection.can_handle_request(origin)
        ):
            return None if connection.has_expired() else connection
    return None


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The HTTP library's default TLS settings (its certificates, ``SSL_CERT_FILE``), made once
    a process: reading the certificates took 50 ms, more than the calls of a small run."""
    return http_library().create_ssl_context()  # type: ignore[no-any-return]


class QuickChecks:
    """The HTTP library's network backend, with connections that tell quickly whether the
    server has closed them.

    Before each request, and after each reply, the connection pool asks every idle
    connection whether it is still open, and the library finds each one's socket afresh
    every time, through several layers: with 64 calls in flight that came to about a third
    of a call's CPU time. Here each connection finds its socket once, keeps one poller for
    it, and answers again what it answered earlier in the same turn of the event loop (a
    reply that ends wakes many calls in one turn, and each asks about every idle
    connection): a server that closes one meanwhile is seen at the next turn, no later than
    had it closed just after the first look."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        # The HTTP library (httpcore) whose errors a quick read or write raises.
        self.library: Any = sys.modules.get(type(inner).__module__.split(".")[0])
        self.turn = 0  # counts the turns of the event loop in which connections were asked
        self.counting = False

    def this_turn(self) -> int | None:
        """A number that stays the same until the event loop's next turn (None outside
        a running loop)."""
        if not self.counting:
            try:
                asyncio.get_running_loop().call_soon(self._next_turn)
            except RuntimeError:
                return None
            self.counting = True
        return self.turn

    def _next_turn(self) -> None:
        self.turn += 1
        self.counting = False

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> QuickStream:
        return QuickStream(await self.inner.connect_tcp(*args, **kwargs), self)

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> QuickStream:
        return QuickStream(await self.inner.connect_unix_socket(*args, **kwargs), self)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def plain_socket(stream: Any) -> Any:
    """The socket stream of the asyncio event loop under one of the HTTP library's
    connections (``stream``), when the connection is plain TCP and built as expected; None
    otherwise (TLS, another event loop, another release)."""
    inner = getattr(stream, "_stream", None)
    if type(inner).__name__ != "SocketStream" or not type(inner).__module__.startswith("anyio."):
        return None
    protocol = getattr(inner, "_protocol", None)
    transport = getattr(inner, "_transport", None)
    if (
        isinstance(getattr(protocol, "read_queue", None), collections.deque)
        and isinstance(getattr(protocol, "read_event", None), asyncio.Event)
        and isinstance(getattr(protocol, "write_event", None), asyncio.Event)
        and hasattr(protocol, "exception")
        and hasattr(protocol, "is_at_eof")
        and isinstance(getattr(inner, "_closed", None), bool)
        and isinstance(transport, asyncio.Transport)
    ):
        return inner
    return None


class QuickStream:
    """One connection of :class:`QuickChecks`: the library's own, its socket kept, and
    what is written sent at once when the reply is first read.

    The library writes a request in three pieces (its head, its body and nothing, the end),
    each a call into the kernel that on a local server costs as much again on the other
    side; a client has nothing to read before its request is all sent, so the pieces go
    together.

    On a plain connection of the asyncio event loop (:func:`plain_socket`) it also writes
    and reads without the library's layers (a timeout scope and a turn of the event loop
    for each write and read): a request goes straight to the transport, and a read takes
    what has come; a write the socket cannot take at once, or a read with nothing come
    yet, waits here within the library's timeout and raises its errors (:meth:`_drained`,
    :meth:`_readable`); a connection closed, broken or at its end takes the library's own
    path."""

    def __init__(self, inner: Any, backend: QuickChecks) -> None:
        self.inner = inner
        self.backend = backend
        self.socket = inner.get_extra_info("socket")
        errors = ("ReadTimeout", "WriteTimeout", "WriteError")
        quick = all(hasattr(backend.library, name) for name in errors)
        self.plain = plain_socket(inner) if quick else None
        if self.plain is not None:
            self._hold_back(self.plain)
        self.unsent: list[bytes] = []
        self.write_timeout: float | None = None
        self.poller: Any = None
        self.asked: int | None = None  # the turn in which it was last asked if readable
        self.readable = False  # and what it answered

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self.unsent:
            await self._send()
        plain = self.plain
        if plain is not None and not plain._closed:
            protocol = plain._protocol
            queue = protocol.read_queue
            if not (queue or protocol.read_event.is_set() or protocol.is_at_eof):
                await self._readable(plain, timeout)
            if queue:  # as the library's read gives it
                chunk: bytes = queue.popleft()
                if len(chunk) > max_bytes:
                    chunk, rest = chunk[:max_bytes], chunk[max_bytes:]
                    queue.appendleft(rest)
                if not queue:
                    protocol.read_event.clear()
                return chunk
        return bytes(await self.inner.read(max_bytes, timeout))

    HELD = 4
    """Blocks read from the socket and not yet taken, past which reading pauses until they
    are taken (each block at most what the event loop reads at once, 256 KiB)."""

    def _hold_back(self, plain: Any) -> None:
        """Have reading pause when :attr:`HELD` blocks wait to be taken, as the server
        would otherwise send on into this process's memory however slowly they are."""
        protocol = plain._protocol
        received = protocol.data_received
        queue = protocol.read_queue
        transport = plain._transport
        held = self.HELD

        def data_received(data: bytes) -> None:
            received(data)
            if len(queue) >= held:
                transport.pause_reading()

        protocol.data_received = data_received

    async def _readable(self, plain: Any, timeout: float | None) -> None:
        """Wait, within the read timeout, until something comes (or the connection ends),
        as the library's read would.

        The library has the event loop read the socket only while it waits, turning reading
        on and off for each read (two calls into the kernel, and the event loop's own
        bookkeeping, each time); here it stays on once turned on, unless what was read is
        not being taken (:attr:`HELD`). What a server sends while the connection is idle
        is then read by the event loop, not left in the socket: :meth:`get_extra_info`
        looks at both."""
        transport = plain._transport
        if transport.is_closing():
            return
        if not transport.is_reading():
            transport.resume_reading()
        try:
            async with asyncio.timeout(timeout):
                await plain._protocol.read_event.wait()
        except TimeoutError as err:
            raise self.backend.library.ReadTimeout(err) from err

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self.unsent.append(bytes(buffer))
            self.write_timeout = timeout

    async def _send(self) -> None:
        data = b"".join(self.unsent)
        self.unsent.clear()
        plain = self.plain
        if plain is not None:
            transport = plain._transport
            protocol = plain._protocol
            if (
                protocol.write_event.is_set()
                and not plain._closed
                and protocol.exception is None
                and not transport.is_closing()
            ):
                transport.write(data)
                if not protocol.write_event.is_set():
                    # The kernel took only part: the rest is sent as the transport drains.
                    await self._drained(plain)
                return
        await self.inner.write(data, self.write_timeout)

    async def _drained(self, plain: Any) -> None:
        """Wait, within the write timeout, until the transport has sent what it holds;
        raises the HTTP library's errors, as its own write would."""
        library = self.backend.library
        try:
            async with asyncio.timeout(self.write_timeout):
                await plain._protocol.write_event.wait()
        except TimeoutError:
            raise library.WriteTimeout("the request could not be sent in time") from None
        if plain._closed or plain._protocol.exception is not None:
            raise library.WriteError("the connection broke while the request was sent")

    async def aclose(self) -> None:
        self.unsent.clear()
        await self.inner.aclose()

    async def start_tls(self, *args: Any, **kwargs: Any) -> QuickStream:
        if self.unsent:
            await self._send()  # a proxy's CONNECT, before the handshake
        return QuickStream(await self.inner.start_tls(*args, **kwargs), self.backend)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable" and self.socket is not None:
            # Readable while idle: the server closed it (or sent what it should not have).
            turn = self.backend.this_turn()
            if turn is None or turn != self.asked:
                self.asked = turn
                self.readable = self.poll_socket() or self.has_read()
            return self.readable
        return self.inner.get_extra_info(info)

    def has_read(self) -> bool:
        """Whether the event loop has read something from the connection that was not taken
        (or its end, or an error), as it does while reading stays on."""
        plain = self.plain
        if plain is None:
            return False
        protocol = plain._protocol
        return bool(
            protocol.read_queue
            or protocol.is_at_eof
            or protocol.exception is not None
            or plain._transport.is_closing()
        )

    def poll_socket(self) -> bool:
        """Whether the socket has something to read (or is closed), without waiting."""
        sock = self.socket
        try:
            if sock.fileno() < 0:
                return True
            if not hasattr(select, "poll"):  # Windows
                return bool(select.select([sock], [], [], 0)[0])
            if self.poller is None:
                self.poller = select.poll()
                self.poller.register(sock, select.POLLIN)
            return bool(self.poller.poll(0))
        except (OSError, ValueError):
            return True


_PIECE_BYTES = 64 << 10  # a compressed body is unpacked this much at a time
_CODINGS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


@dataclass(frozen=True)
class Cap:
    """How much of one body is read: ``limit`` bytes once decompressed."""

    limit: int
    status: int
    what: str  # what the body is, in words: "an error message", "a list of models"
    packed: bool  # the body came compressed


class BodyTooLarge(Exception):
    """A body read whole (an error, a list of models) passed its cap."""

    def __init__(self, cap: Cap) -> None:
        self.cap = cap
        unpacked = " once decompressed" if cap.packed else ""
        super().__init__(f"{cap.what} past {cap.limit >> 20} MiB{unpacked}")


class BadCoding(Exception):
    """A body in a content coding that is not read: several stacked, an unknown one, or
    compressed data that is broken (which may be the network's doing: worth another try)."""

    def __init__(self, detail: str, *, retryable: bool) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retryable = retryable


def content_coding(values: list[str]) -> str | None:
    """The one content coding of a body (None: none), from its ``Content-Encoding`` values.

    Several codings are refused: each layer of gzip multiplies what a few bytes unpack to,
    and no server compresses twice but to do that. So is any coding not asked for.
    """
    codings = [value.strip().lower() for value in values]
    codings = [coding for coding in codings if coding not in ("", "identity")]
    shown = short(", ".join(codings), 60)
    if len(codings) > 1:
        raise BadCoding(
            f"its reply is compressed {len(codings)} times over ({shown!r}); "
            "ponder reads one layer of gzip or deflate",
            retryable=False,
        )
    if codings and codings[0] not in _CODINGS:
        raise BadCoding(
            f"its reply is compressed as {shown!r}, which ponder did not ask for "
            "and does not read (it reads gzip and deflate)",
            retryable=False,
        )
    return codings[0] if codings else None


def cap_of(response: Any, *, packed: bool) -> Cap | None:
    """The cap on a body read whole, by its status and what was asked; None for a reply's
    event stream (read by :func:`solver.model.stream.events` under its own caps)."""
    status = response.status_code
    if status >= 300:  # whatever its type: the client reads an error whole
        return Cap(_ERROR_BODY_BYTES, status, "an error message", packed)
    if _asked_for_models(response):
        return Cap(_BODY_BYTES, status, "a list of models", packed)
    if response.headers.get("content-type", "").lower().startswith("text/event-stream"):
        return None
    return Cap(_BODY_BYTES, status, "a reply (not an event stream)", packed)


def _asked_for_models(response: Any) -> bool:
    return bool(response.request.url.path.endswith("/models"))


class Inflater:
    """Undoes one gzip or deflate coding, :data:`_PIECE_BYTES` of output at a time, so that
    however far a body unpacks, no more than a piece of it is held at once."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.engine = zlib.decompressobj(_CODINGS[coding])
        self.fed = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            piece = self.engine.decompress(data, _PIECE_BYTES)
            self.fed = True
            while piece:
                yield piece
                piece = self.engine.decompress(self.engine.unconsumed_tail, _PIECE_BYTES)
        except zlib.error as err:
            if self.coding == "deflate" and not self.fed:
                # Some servers send deflate raw, without the zlib wrapper HTTP asks for.
                self.engine = zlib.decompressobj(-zlib.MAX_WBITS)
                self.fed = True
                yield from self.feed(data)
                return
            raise BadCoding(f"its {self.coding} data is broken ({err})", retryable=True) from None


def refuse_html(response: Any) -> None:
    """Raise when a successful reply is a web page: the base URL leads to a web site (a chat
    app's own page, a proxy's login page), not to the API, and nothing in it is an answer."""
    if response.status_code >= 300:
        return  # an error page: its status says what went wrong
    if "html" in response.headers.get("content-type", "").lower():
        wanted = "list of models" if _asked_for_models(response) else "event stream"
        raise Failure(
            "bad_url",
            f"answered with an HTML page, not an OpenAI-compatible {wanted}. "
            "Is the base URL right? It usually ends in /v1.",
            retryable=False,
        )
