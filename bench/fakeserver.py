"""A real OpenAI-compatible HTTP server for tests (standard library only).

It speaks enough of the chat completions API for the openai client to talk to it over real
HTTP: ``POST /v1/chat/completions`` (JSON or SSE streaming, ``n`` choices, usage) and
``GET /v1/models``. Tests script replies with :attr:`FakeServer.reply`, inject faults one
request at a time with :attr:`FakeServer.faults`, and read back what was asked in
:attr:`FakeServer.requests`::

    with FakeServer() as server:
        server.faults.append("429")
        ...  # point a client at server.url

Faults, consumed one per chat completion request (``GET /v1/models`` consumes none):

- ``"429"`` or ``"429:<seconds>"``: rate limited, with ``Retry-After`` (default 0);
  ``"429ms:<milliseconds>"``: with ``retry-after-ms`` instead; ``"429date:<unix time>"``:
  with ``Retry-After`` as an HTTP date (whole seconds, so the test picks the instant);
- ``"500"`` or any other three-digit status: that status with an OpenAI-style error body;
- ``"slow:<seconds>"``: wait that long before answering;
- ``"cut"``: stream some chunks, then drop the connection (no finish_reason, no ``[DONE]``);
- ``"no_finish"``: a stream that ends cleanly (``[DONE]``) but never gives a finish_reason;
- ``"malformed"``: a chunk (or body) that is not JSON;
- ``"ignore_n"``: one choice whatever ``n`` asks (llama.cpp does this);
- ``"unknown_model"``: 404 with code ``model_not_found``;
- ``"no_usage"``: no usage in the reply.

Hostile faults, the misbehaviours a careless or malicious server shows:

- ``"trickle:<seconds>"``: a stream that never ends: one small delta every that many seconds,
  well inside any read timeout, and never a finish_reason;
- ``"flood"``: ignores ``max_tokens`` and streams 4 KiB content deltas until the client hangs
  up; ``"flood_line"``: one ``data:`` line that never ends (no newline);
- ``"error_event"``: two deltas, then an SSE ``{"error": {...}}`` event whose message echoes
  the request's ``Authorization`` header (see :func:`echo_secret`);
- ``"length"`` / ``"content_filter"``: the reply ends with that finish_reason (its text is
  what :attr:`FakeServer.reply` wrote: script a half-sentence to look real);
- ``"ansi"``: reply content holding :data:`ESCAPES`; ``"ansi_error"``: a 500 whose message
  holds them;
- ``"bad_chunk:<what>"``: a wrong-typed chunk mid-stream: ``choices_string`` (``choices`` is
  a string), ``content_number`` (``delta.content`` is a number), ``delta_string``,
  ``choice_number`` (a choice that is a number), ``chunk_list`` (a chunk that is a list),
  ``finish_number`` (``finish_reason`` is a number);
- ``"usage:<what>"``: the usage chunk holds ``nan``, ``infinity``, ``string``, ``negative``,
  ``huge`` (a 400-digit number), ``fraction`` (2.5) or ``list`` (usage is a list) as token
  counts;
- ``"echo_key"`` or ``"echo_key:<status>"``: an error (default 400) whose message echoes the
  ``Authorization`` header; ``"echo_key_reply"``: a reply whose text echoes it;
- ``"huge_error"``: a 500 whose body is 4 MiB.

Replies no well-behaved server sends (bombs, huge headers, redirects, HTML pages) come from
:class:`CannedServer`, which answers every request with raw bytes a test scripts, built with
:func:`http_response` and :func:`gzip_bomb`.
"""

from __future__ import annotations

import base64
import email.utils
import json
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ESCAPES",
    "CannedServer",
    "FakeServer",
    "RecordedRequest",
    "default_reply",
    "echo_secret",
    "gzip_bomb",
    "http_response",
]

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b2J"
"""Escape sequences that set the window title and clear the screen (ESC and C1 forms)."""

Reply = Callable[[dict[str, Any], int], str]
UsageRule = Callable[[dict[str, Any], list[str]], tuple[int, int]]


def default_reply(request: dict[str, Any], choice_index: int) -> str:
    """A deterministic reply: the choice index and the last message, echoed."""
    messages = request.get("messages") or [{"content": ""}]
    return f"echo {choice_index}: {messages[-1].get('content', '')}"


def echo_secret(authorization: str) -> str:
    """What a leaky server says about an ``Authorization`` header: the header itself, and the
    key in it base64-encoded (alone and as ``Bearer <key>``), URL-quoted, in JSON, reversed,
    as hex in lower and upper case, and in upper and lower case."""
    key = authorization.removeprefix("Bearer ")
    b64 = base64.b64encode(key.encode()).decode()
    header_b64 = base64.b64encode(authorization.encode()).decode()
    quoted = urllib.parse.quote(key, safe="")
    hexed = key.encode().hex()
    return (
        f"bad header Authorization: {authorization} (base64 {b64}, header {header_b64}, "
        f"quoted {quoted}, json {json.dumps({'key': key})}, reversed {key[::-1]}, "
        f"hex {hexed}, HEX {hexed.upper()}, upper {key.upper()}, lower {key.lower()})"
    )


def character_usage(request: dict[str, Any], texts: list[str]) -> tuple[int, int]:
    """Token counts that tests can predict: one token per character."""
    prompt = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
    return prompt, sum(len(t) for t in texts)


@dataclass
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    json: dict[str, Any] = field(default_factory=dict)
    fault: str | None = None
    time: float = 0.0
    """When it arrived (``time.monotonic()``): tests measure the waits between requests."""


class FakeServer:
    """An OpenAI-compatible server on ``127.0.0.1`` in a daemon thread; a context manager.

    ``models``: the model names it serves (others get 404); ``None`` serves any name.
    ``ignore_n``: always answer with a single choice. ``api_key``: when set, requests without
    ``Authorization: Bearer <api_key>`` get 401. ``latency``: seconds added to every request.
    ``chunk_size``: characters per streamed delta. ``json_mode=False`` plays a server with no
    JSON mode: a request with ``response_format`` gets a 400 that names it.

    ``capacity``: when set, a chat request that arrives while that many are in flight is
    refused at once with 429 (a rate limiter in front of a busy server), with
    ``retry-after-ms: capacity_retry_after_ms`` when that is set; :attr:`refused` counts them.
    """

    def __init__(
        self,
        *,
        models: set[str] | None = None,
        reply: Reply = default_reply,
        latency: float = 0.0,
        ignore_n: bool = False,
        api_key: str | None = None,
        chunk_size: int = 4,
        json_mode: bool = True,
    ) -> None:
        self.models: set[str] | None = {"fake-model"} if models is None else models
        self.reply: Reply = reply
        self.usage: UsageRule = character_usage
        self.latency = latency
        self.ignore_n = ignore_n
        self.api_key = api_key
        self.chunk_size = chunk_size
        self.json_mode = json_mode
        self.faults: deque[str] = deque()
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.capacity: int | None = None
        self.capacity_retry_after_ms: int | None = None
        self.refused = 0
        """Chat requests refused for want of capacity."""
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.closing = threading.Event()  # ends endless replies (trickle, flood) on close

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeServer:
        """Bind a free port and serve in a daemon thread."""
        self.closing.clear()
        handler = type("Handler", (_Handler,), {"fake": self})
        httpd = _Server(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False  # keep-alive threads must not hold up close()
        self._httpd = httpd
        # A short poll interval keeps shutdown (once per test) quick.
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self.closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The API root to give a client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- what tests read ---------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat completion requests received so far."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self) -> None:
        """Forget recorded requests, the concurrency peak and pending faults."""
        with self._lock:
            self.requests.clear()
            self.faults.clear()
            self.max_in_flight = 0

    # -- used by the handler -----------------------------------------------------------------

    def _record(self, request: RecordedRequest, consume_fault: bool) -> None:
        with self._lock:
            if consume_fault and self.faults:
                request.fault = self.faults.popleft()
            self.requests.append(request)

    def _enter(self, chat: bool) -> bool:
        """Count a request in; False when it is a chat request past :attr:`capacity`."""
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if chat and self.capacity is not None and self.in_flight > self.capacity:
                self.refused += 1
                return False
            return True

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    # The standard library listens with a backlog of 5: a burst of new connections (one BoT
    # iteration opens dozens) would overflow it and each extra client would wait a second
    # for its connection to be retried. Real servers listen with a deep backlog.
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (a deadline, a cap, Ctrl-C) is no error of the server's;
        # the standard library would print its traceback into the test output.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Serves one connection for :class:`FakeServer` (keep-alive, like real servers)."""

    fake: FakeServer
    protocol_version = "HTTP/1.1"
    # Stream chunks are tiny writes: without TCP_NODELAY, Nagle's algorithm and the client's
    # delayed ACKs hold each one back for tens of milliseconds, as a real server would not.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return None  # keep test output clean

    # -- plumbing ----------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _send_json(
        self, status: int, body: object, extra: dict[str, str] | None = None, raw: bytes = b""
    ) -> None:
        data = raw or json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(
        self,
        status: int,
        message: str,
        code: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
        self._send_json(status, {"error": error}, extra)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, payload: object) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        self._chunk(f"data: {text}\n\n".encode())

    def _authorised(self) -> bool:
        key = self.fake.api_key
        return key is None or self.headers.get("Authorization") == f"Bearer {key}"

    # -- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        record = RecordedRequest("GET", self.path, self._headers(), time=time.monotonic())
        self.fake._record(record, consume_fault=False)
        if not self._authorised():
            self._send_error(401, "Incorrect API key provided.", "invalid_api_key")
        elif self.path.rstrip("/") == "/v1/models":
            names = sorted(self.fake.models or {"fake-model"})
            data = [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in names]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        received = time.monotonic()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        record = RecordedRequest("POST", self.path, self._headers(), body, time=received)
        chat = self.path.rstrip("/") == "/v1/chat/completions"
        self.fake._record(record, consume_fault=chat)
        admitted = self.fake._enter(chat)
        try:
            if not chat:
                self._send_error(404, f"no route {self.path}")
            elif not admitted:
                wait = self.fake.capacity_retry_after_ms
                extra = {"retry-after-ms": str(wait)} if wait is not None else {}
                self._send_error(429, "too many requests in flight", "rate_limit_exceeded", extra)
            else:
                self._chat(body, record.fault)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout); nothing to do
        finally:
            self.fake._leave()

    def _chat(self, body: dict[str, Any], fault: str | None) -> None:
        fake = self.fake
        delay = fake.latency
        if fault and fault.startswith("slow:"):
            delay += float(fault.split(":", 1)[1])
        if delay:
            time.sleep(delay)

        model = str(body.get("model", ""))
        if not self._authorised():
            return self._send_error(401, "Incorrect API key provided.", "invalid_api_key")
        if fault == "unknown_model" or (fake.models is not None and model not in fake.models):
            return self._send_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "model_not_found",
            )
        if not fake.json_mode and "response_format" in body:
            return self._send_error(400, "response_format is not supported by this server")
        if fault and fault[:3].isdigit():
            status = int(fault[:3])
            extra = _retry_after_headers(fault) if status == 429 else {}
            return self._send_error(status, f"fake error {status}", None, extra)
        if fault and fault.split(":")[0] == "echo_key":
            status = int(fault.split(":")[1]) if ":" in fault else 400
            return self._send_error(status, echo_secret(self.headers.get("Authorization", "")))
        if fault == "ansi_error":
            return self._send_error(500, f"overloaded {ESCAPES} try later")
        if fault == "huge_error":
            return self._send_error(500, "overloaded " + "x" * (4 << 20))

        n = int(body.get("n") or 1)
        if fake.ignore_n or fault == "ignore_n":
            n = 1
        texts = [fake.reply(body, i) for i in range(n)]
        if fault == "ansi":
            texts = [f"{ESCAPES}{text}{ESCAPES}" for text in texts]
        elif fault == "echo_key_reply":
            texts = [echo_secret(self.headers.get("Authorization", "")) for _ in texts]
        prompt, completion = fake.usage(body, texts)
        usage = None
        if fault != "no_usage":
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        base = {"id": "chatcmpl-fake", "created": int(time.time()), "model": model}
        if body.get("stream"):
            self._stream(body, base, texts, usage, fault)
        elif fault == "malformed":
            self._send_json(200, None, raw=b'{"id": "chatcmpl-fake", "choices": [')
        else:
            choices = [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
                for i, text in enumerate(texts)
            ]
            reply = {**base, "object": "chat.completion", "choices": choices}
            if usage is not None:
                reply["usage"] = usage
            self._send_json(200, reply)

    def _stream(
        self,
        body: dict[str, Any],
        base: dict[str, Any],
        texts: list[str],
        usage: dict[str, int] | None,
        fault: str | None,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(index: int, delta: dict[str, str], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": index, "delta": delta, "finish_reason": finish}
            return {**base, "object": "chat.completion.chunk", "choices": [choice]}

        if fault and self._hostile_stream(base, fault):
            self.close_connection = True
            return
        size = max(1, self.fake.chunk_size)
        pieces = [[t[k : k + size] for k in range(0, len(t), size)] or [""] for t in texts]
        for i in range(len(texts)):
            self._event(chunk(i, {"role": "assistant", "content": ""}))
        sent = 0
        # Interleave the choices' deltas, as real servers do when n > 1.
        for step in range(max(len(p) for p in pieces)):
            for i, parts in enumerate(pieces):
                if step < len(parts):
                    self._event(chunk(i, {"content": parts[step]}))
                    sent += 1
                    if fault == "cut" and sent >= 2:
                        # Drop the connection without the closing zero-length chunk.
                        self.close_connection = True
                        return
                    if fault == "malformed" and sent >= 2:
                        self._event('{"id": "chatcmpl-fake", "choices": [{"index": 0, "del')
        if fault == "cut":  # replies too short to cut midway are cut before they finish
            self.close_connection = True
            return
        if fault != "no_finish":
            reason = fault if fault in ("length", "content_filter") else "stop"
            for i in range(len(texts)):
                self._event(chunk(i, {}, reason))
        options = body.get("stream_options") or {}
        if usage is not None and options.get("include_usage"):
            told: object = usage
            if fault and fault.startswith("usage:"):
                told = _BAD_USAGE[fault.split(":", 1)[1]]
            usage_chunk = {**base, "object": "chat.completion.chunk", "choices": [], "usage": told}
            # json.dumps writes NaN and Infinity as Python's json reads them (not strict JSON).
            self._event(json.dumps(usage_chunk))
        self._event("[DONE]")
        self._chunk(b"")

    def _hostile_stream(self, base: dict[str, Any], fault: str) -> bool:
        """Stream the hostile faults that never make a proper reply; False for the others."""
        fake = self.fake

        def chunk(delta: object, finish: object = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {**base, "object": "chat.completion.chunk", "choices": [choice]}

        kind, _, arg = fault.partition(":")
        if kind == "trickle":
            pause = float(arg or 1)
            while not fake.closing.wait(pause):
                self._event(chunk({"content": "."}))
        elif kind == "flood":
            piece = "x" * 4096
            while not fake.closing.is_set():
                self._event(chunk({"content": piece}))
        elif kind == "flood_line":
            self.wfile.write(b"10000000\r\ndata: ")  # a chunk that promises 256 MiB
            block = b"x" * 65536
            while not fake.closing.is_set():
                self.wfile.write(block)
        elif kind == "error_event":
            self._event(chunk({"content": "Let me "}))
            self._event(chunk({"content": "think. "}))
            message = echo_secret(self.headers.get("Authorization", ""))
            self._event({"error": {"message": message, "type": "server_error", "code": 500}})
            self._event("[DONE]")
            self._chunk(b"")
        elif kind == "bad_chunk":
            self._event(chunk({"content": "fine so far "}))
            bad: object = {
                "choices_string": {**base, "choices": "oops"},
                "content_number": chunk({"content": 42}),
                "delta_string": chunk("oops"),
                "choice_number": {**base, "choices": [7]},
                "chunk_list": [1, 2, 3],
                "finish_number": chunk({}, 3),
            }[arg]
            self._event(json.dumps(bad))
            self._event(chunk({}, "stop"))
            self._event("[DONE]")
            self._chunk(b"")
        else:
            return False
        return True


def _retry_after_headers(fault: str) -> dict[str, str]:
    """The headers a ``429`` fault sends to say how long to wait (see the module's notes)."""
    kind, _, arg = fault.partition(":")
    if kind == "429ms":
        return {"retry-after-ms": arg}
    if kind == "429date":
        return {"Retry-After": email.utils.formatdate(float(arg), usegmt=True)}
    return {"Retry-After": arg or "0"}


_BAD_USAGE: dict[str, object] = {
    "nan": {"prompt_tokens": float("nan"), "completion_tokens": 5},
    "infinity": {"prompt_tokens": 5, "completion_tokens": float("inf")},
    "string": {"prompt_tokens": "many", "completion_tokens": "5"},
    "negative": {"prompt_tokens": -5, "completion_tokens": 5},
    "huge": {"prompt_tokens": 10**400, "completion_tokens": 5},
    "fraction": {"prompt_tokens": 2.5, "completion_tokens": 5},
    "list": [1, 2],
}
"""Usage a server should never send, by the name the ``usage:`` fault gives it."""


# -- canned replies ----------------------------------------------------------------------------


def http_response(status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> bytes:
    """A whole HTTP/1.1 response as bytes, with its Content-Length (the connection closes)."""
    lines = [f"HTTP/1.1 {status} Canned", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def gzip_bomb(size: int, fill: bytes = b"\0") -> bytes:
    """A gzip stream of ``size`` bytes (a whole number of MiB) of ``fill``, in about
    ``size / 1000`` bytes, made in a fraction of a second.

    Compressing the whole would take seconds. After a full flush the compressor's output for
    one more MiB of the same byte is the same every time, so one such piece is repeated;
    the end (an empty final block, then the CRC and the length) is written by hand.
    """
    block = fill[:1] * (1 << 20)
    count = size >> 20
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    first = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    steady = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(block, crc)
    end = b"\x03\x00" + struct.pack("<II", crc, (count << 20) & 0xFFFFFFFF)
    return first + steady * (count - 1) + end


Respond = Callable[[RecordedRequest], bytes | Iterable[bytes]]


class CannedServer:
    """An HTTP server on ``127.0.0.1`` in a daemon thread that answers every request with
    ``respond(request)``: the raw bytes of a response, or pieces of them written one after
    another (a reply too big to build whole), then closes the connection. What was asked is
    in :attr:`requests`. A context manager, like :class:`FakeServer`."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests: list[RecordedRequest] = []
        self.port = 0
        """The port it listens on (kept once closed, for the messages a test checks)."""
        self._server: socketserver.ThreadingTCPServer | None = None

    def __enter__(self) -> CannedServer:
        handler = type("CannedHandler", (_CannedHandler,), {"canned": self})
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self.port = int(server.server_address[1])
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        assert self.port, "server not started"
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The API root to give a client: ``http://127.0.0.1:PORT/v1``."""
        return self.origin + "/v1"


class _CannedHandler(socketserver.StreamRequestHandler):
    canned: CannedServer

    def handle(self) -> None:
        head = [self.rfile.readline().decode("latin-1").strip()]
        while head[-1]:
            head.append(self.rfile.readline().decode("latin-1").strip())
        method, path, *_ = [*head[0].split(" "), "", ""]
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in head[1:-1])
        }
        body = self.rfile.read(int(headers.get("content-length") or 0))
        try:
            asked = json.loads(body or b"{}")
        except ValueError:
            asked = {}
        request = RecordedRequest(method, path, headers, asked, time=time.monotonic())
        self.canned.requests.append(request)
        answer = self.canned.respond(request)
        try:
            for piece in [answer] if isinstance(answer, bytes) else answer:
                self.wfile.write(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on a reply it would not read: what tests want
