"""The chat request OpenAIModel sends itself: what the openai client would have sent."""

from __future__ import annotations

import pytest

from bench.fakeserver import FakeServer
from solver.model import Call, Message, ModelError, Sampling
from solver.model.openai import OpenAIModel
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
    return Call("answer", (Message("user", "What is 4 * 6?"),), Sampling(max_tokens=20))


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
            client = model._client()
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
