"""The chat request OpenAIModel sends itself: what the openai client would have sent."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from typing import Any

import pytest

from bench.fakeserver import FakeServer
from solver.model import Call, Message, ModelError, Sampling
from solver.model.openai import OpenAIModel
from solver.model.transport import chat_request, request_template
from solver.roles import Purpose
from solver.settings import Settings

KEY = "sk-test-abcdefghijkl9876"

# Counted afresh for each request, or set per request by the way it is read.
_PER_REQUEST = {
    "x-stainless-retry-count",
    "x-stainless-read-timeout",
    "x-stainless-raw-response",
    "idempotency-key",
    "content-length",
    "accept-encoding",
}


def _call() -> Call:
    return Call(Purpose.ANSWER, (Message("user", "What is 4 * 6?"),), Sampling(max_tokens=20))


@pytest.mark.parametrize("env_credentials", [True, False])
async def test_sends_the_headers_the_openai_client_would(
    monkeypatch: pytest.MonkeyPatch, env_credentials: bool
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-owner")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-owner")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Proxy-Token: proxy-secret")
    with FakeServer() as server:
        settings = Settings(env_credentials=env_credentials)
        model = OpenAIModel(
            settings, base_url=server.url, api_key=KEY, model="fake-model", cache=False
        )
        try:
            generation = await model.generate(_call())
            assert generation.texts == ("echo 0: What is 4 * 6?",)
            # The same request through the openai client's own path, for comparison.
            client = model.client()
            stream = await client.chat.completions.create(
                model="fake-model",
                messages=[{"role": "user", "content": "What is 4 * 6?"}],
                max_tokens=20,
                stream=True,
            )
            async for _ in stream:
                pass
        finally:
            await model.aclose()
    ours, theirs = server.chat_requests
    assert ours.path == theirs.path == "/v1/chat/completions"
    assert ours.headers["accept-encoding"] == "identity"  # no compressed floods
    assert ours.headers["authorization"] == f"Bearer {KEY}"
    shown = {name: value for name, value in ours.headers.items() if name not in _PER_REQUEST}
    wanted = {name: value for name, value in theirs.headers.items() if name not in _PER_REQUEST}
    assert shown == wanted
    assert ("x-proxy-token" in shown) is env_credentials
    assert ("openai-organization" in shown) is env_credentials


async def test_a_refused_request_is_the_openai_clients_error() -> None:
    """A status error keeps what the openai client reads from it: status, code, message."""
    with FakeServer() as server:
        model = OpenAIModel(base_url=server.url, api_key=KEY, model="no-such-model", cache=False)
        try:
            with pytest.raises(ModelError) as caught:
                await model.generate(_call())
        finally:
            await model.aclose()
    assert "has no model named 'no-such-model'" in str(caught.value)
    assert "does not exist" in str(caught.value)


def _sse_reply(text: str) -> bytes:
    """A whole streamed reply, sized (no Connection: close): the client may keep the
    connection for its next request."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        f"Content-Length: {len(body.encode())}\r\n\r\n"
    )
    return head.encode() + body.encode()


async def test_a_connection_the_server_closed_while_idle_is_not_used_again() -> None:
    """The server answers, then hangs up: the next call sees the kept connection is closed
    and opens another, rather than failing on the dead one and trying again."""
    accepted: list[int] = []
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        for _ in range(2):
            conn, _ = listener.accept()
            accepted.append(1)
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536)
                head, _, body = request.partition(b"\r\n\r\n")
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
                while len(body) < length:
                    body += conn.recv(65536)
                conn.sendall(_sse_reply("twenty-four"))
            # closed here, though the reply said nothing of closing

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    model = OpenAIModel(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, model="m", cache=False)
    try:
        first = await model.generate(_call())
        await asyncio.sleep(0.1)  # the server has hung up by now
        second = await model.generate(_call())
    finally:
        await model.aclose()
        listener.close()
    assert first.texts == second.texts == ("twenty-four",)
    assert len(accepted) == 2
    assert model.retries == 0  # the dead connection was never tried


def test_an_openai_client_without_the_internals_the_quick_path_reads_uses_its_own(
    fake_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should an openai release rename what the quick path reads, calls still work, through
    the client's own request path."""
    monkeypatch.setattr("solver.model.openai.CLIENT_INTERNALS", ("_a_name_no_release_has",))
    model = OpenAIModel(base_url=fake_server.url, api_key=KEY, model="fake-model", cache=False)

    async def ask() -> str:
        try:
            reply = await model.generate(
                Call(Purpose.BOT_STEP, (Message("user", "hello"),), Sampling(max_tokens=50))
            )
        finally:
            await model.aclose()
        return reply.text

    assert asyncio.run(ask())


@pytest.mark.parametrize("key", [KEY, "sk-another-key-5555abcd"])
async def test_a_chat_request_is_the_one_the_http_client_would_build(key: str) -> None:
    """The request is built from headers worked out once: it is the HTTP client's own, byte
    for byte, for each key and each length of body."""
    model = OpenAIModel(base_url="http://127.0.0.1:9/v1", api_key=key, model="m", cache=False)
    try:
        client = model.client()
        assert request_template(client).head is not None  # the quick way is the one tried
        for content in (b"{}", json.dumps({"messages": ["x" * 5000]}).encode()):
            ours = chat_request(client, content)
            theirs = client._client.build_request(
                "POST", ours.url, content=content, headers=request_template(client).headers,
                timeout=client.timeout,
            )  # fmt: skip
            assert (ours.method, ours.url, ours.content) == (theirs.method, theirs.url, content)
            assert ours.headers.raw == theirs.headers.raw
            assert ours.headers.encoding == theirs.headers.encoding
            assert ours.extensions == theirs.extensions
            assert ours.headers["authorization"] == f"Bearer {key}"
            assert ours.headers["content-length"] == str(len(content))
    finally:
        await model.aclose()
