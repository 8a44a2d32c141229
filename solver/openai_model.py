"""The model seam over any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio).

:class:`OpenAIModel` turns a :class:`~solver.model.Call` into a
:class:`~solver.model.Generation` with ``openai.AsyncOpenAI``. The client's own retries are
switched off (``max_retries=0``) so that this module decides what is retried, how long to wait
and what the person is told: retries with exponential backoff and jitter on rate limits
(honouring ``Retry-After``), server errors, timeouts, connection errors and dropped streams;
plain-English :class:`~solver.model.ModelError` for everything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import hashlib
import json
import math
import os
import random
import sqlite3
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai

from solver.model import (
    Call,
    Generation,
    Message,
    ModelError,
    Sampling,
    TokenCallback,
    Usage,
    rough_tokens,
)
from solver.settings import Settings

__all__ = ["OPENAI_BASE_URL", "OpenAIModel", "ResponseCache", "RetryCallback"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Where requests go when no base URL is configured."""

RetryCallback = Callable[[str, int, float], None]
"""Called before each retry with (error kind, retry number from 1, seconds it will wait)."""

# Statuses worth another try: request timeout, conflict (OpenAI's lock timeouts), rate limit.
_RETRY_STATUSES = {408, 409, 429}


class _Failure(Exception):
    """One failed HTTP attempt, classified; becomes a ModelError once retries are spent."""

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


@dataclass
class _Reply:
    """What one successful HTTP request brought back."""

    texts: list[str]  # one per choice the server sent, in choice order
    usage: Usage
    model: str


@dataclass
class _Tally:
    """Per-call count of HTTP requests (local to one generate, never shared)."""

    requests: int = 0


@dataclass
class _Slots:
    """The concurrency limit, bound to the event loop it was created in."""

    loop: asyncio.AbstractEventLoop
    semaphore: asyncio.Semaphore
    client: Any = field(default=None)  # openai.AsyncOpenAI; its connections belong to `loop`


class ResponseCache:
    """Sample texts keyed by request identity and sample index; in memory, optionally on disk.

    The disk copy is an SQLite file (``PRAGMA user_version`` marks its layout). If the file
    cannot be opened the cache quietly stays in memory: a cache is never worth a failed run.
    """

    _VERSION = 1

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._memory: dict[str, str] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self._db = self._open(Path(path))

    def _open(self, path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != self._VERSION:
            # A cache holds nothing that cannot be fetched again: rebuild rather than migrate.
            db.execute("DROP TABLE IF EXISTS samples")
            db.execute("CREATE TABLE samples (key TEXT PRIMARY KEY, text TEXT NOT NULL)")
            db.execute(f"PRAGMA user_version = {self._VERSION}")
            db.commit()
        return db

    def get(self, key: str) -> str | None:
        """The cached text for ``key``, if any."""
        if key in self._memory:
            return self._memory[key]
        if self._db is not None:
            row = self._db.execute("SELECT text FROM samples WHERE key = ?", (key,)).fetchone()
            if row is not None:
                self._memory[key] = row[0]
                return str(row[0])
        return None

    def put(self, key: str, text: str) -> None:
        """Remember ``text`` for ``key``."""
        self._memory[key] = text
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error), self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO samples (key, text) VALUES (?, ?)", (key, text)
                )

    def __len__(self) -> int:
        return len(self._memory)

    def close(self) -> None:
        """Close the disk copy, if any."""
        if self._db is not None:
            self._db.close()
            self._db = None


class OpenAIModel:
    """A :class:`~solver.model.Model` backed by an OpenAI-compatible chat completions API.

    Settings come from ``settings`` (default: ``Settings()``); explicit keyword arguments win.
    Sampling travels with each call. All calls of one instance share a limit of
    ``concurrency`` requests in flight, a response cache (unless ``cache`` is off) and the
    counters ``requests``, ``retries`` and ``cache_hits``.

    ``backoff_base`` seconds doubles per retry (with jitter) up to ``backoff_cap``;
    a server's ``Retry-After`` is honoured up to ``retry_after_cap``. ``on_retry`` is told
    about each retry, so a screen can say "rate limited, retrying in 2s"; after a retry the
    tokens of that call stream again from the start. ``cache_file`` adds an on-disk copy of
    the cache (an SQLite file).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        concurrency: int | None = None,
        cache: bool | None = None,
        cache_file: str | os.PathLike[str] | None = None,
        backoff_base: float = 0.5,
        backoff_cap: float = 20.0,
        retry_after_cap: float = 60.0,
        on_retry: RetryCallback | None = None,
    ) -> None:
        overrides = {
            "base_url": base_url,
            "api_key": api_key,
            "model": model,
            "timeout": timeout,
            "max_retries": max_retries,
            "concurrency": concurrency,
            "cache": cache,
        }
        base = settings if settings is not None else Settings()
        self.settings = base.replace(**{k: v for k, v in overrides.items() if v is not None})
        self.name = self.settings.model
        self.model = self.settings.model
        self.base_url = (self.settings.base_url or OPENAI_BASE_URL).rstrip("/")
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self.on_retry = on_retry
        self.cache: ResponseCache | None = (
            ResponseCache(cache_file) if self.settings.cache else None
        )
        self.requests = 0
        """HTTP requests made, retries included."""
        self.retries = 0
        """Requests that were retries of a failed one."""
        self.cache_hits = 0
        """Samples answered from the cache."""
        # Learned when a server answers n > 1 with a single choice (llama.cpp): later calls
        # fan out at once instead of asking for n and waiting to be disappointed.
        self._server_ignores_n = False
        self._n_ignored = 0
        self._slots: _Slots | None = None
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"OpenAIModel(model={self.model!r}, base_url={self.base_url!r})"

    # -- the Model protocol ------------------------------------------------------------------

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        """Answer ``call`` with exactly ``call.sampling.n`` texts, streaming to ``on_token``.

        Raises :class:`~solver.model.ModelError` when the server cannot answer.
        """
        start = time.perf_counter()
        n = call.sampling.n
        texts: list[str | None] = [None] * n
        keys = [self._cache_key(call, call.sample_offset + i) for i in range(n)]
        if self.cache is not None:
            for i, key in enumerate(keys):
                texts[i] = self.cache.get(key)
                if texts[i] is not None:
                    self.cache_hits += 1
                    if on_token is not None:
                        on_token(i, texts[i] or "")
        missing = [i for i, text in enumerate(texts) if text is None]

        tally = _Tally()
        replies: list[tuple[list[int], _Reply]] = []
        if missing:
            if self._server_ignores_n and len(missing) > 1:
                groups = [[i] for i in missing]
            else:
                first = await self._request(call, missing, on_token, tally)
                replies.append((missing, first))
                got = len(first.texts)
                if len(missing) > 1:
                    # Twice in a row, so one odd reply does not multiply prompt costs for good.
                    self._n_ignored = self._n_ignored + 1 if got == 1 else 0
                    self._server_ignores_n = self._n_ignored >= 2
                groups = [[i] for i in missing[got:]]
            if groups:
                more = await _gather_all(
                    [self._request(call, group, on_token, tally) for group in groups]
                )
                replies += zip(groups, more, strict=True)

        usage = Usage()
        server_model = ""
        for positions, reply in replies:
            usage += reply.usage
            server_model = server_model or reply.model
            for position, text in zip(positions, reply.texts, strict=False):
                texts[position] = text
                if self.cache is not None:
                    self.cache.put(keys[position], text)

        cost = self.settings.cost(self.model, usage)
        if cost is None and server_model:
            cost = self.settings.cost(server_model, usage)
        return Generation(
            tuple(text or "" for text in texts),
            usage,
            time.perf_counter() - start,
            cached=not missing,
            model=server_model or self.model,
            cost=cost,
            requests=tally.requests,
        )

    async def aclose(self) -> None:
        """Close the HTTP connections and the cache file."""
        slots, self._slots = self._slots, None
        if slots is not None and slots.client is not None:
            with contextlib.suppress(RuntimeError):  # its loop may be gone already
                await slots.client.close()
        if self.cache is not None:
            self.cache.close()

    async def check_connection(self) -> str:
        """Check that the server answers and knows the model; return a one-line summary.

        Lists the server's models; when the model is not listed (or the server cannot list),
        a one-token request decides. Raises :class:`~solver.model.ModelError` on failure.
        """
        names: list[str] = []
        try:
            client = self._client()
            async with self._slot():
                self.requests += 1
                page = await client.models.list()
            names = [m.id for m in page.data]
        except openai.NotFoundError:
            pass  # some servers have no /models; the probe below still tells
        except (openai.APIError, ValueError) as err:
            failure = self._classify(err, responded=False)
            raise self._model_error(failure, attempts=1) from None
        if self.model in names or f"{self.model}:latest" in names:
            return f"Connected to {self.base_url}: model {self.model!r} is available."
        probe = Call(
            "check", (Message("user", "Reply with OK."),), Sampling(temperature=0, max_tokens=1)
        )
        await self._request(probe, [0], None, _Tally())
        listed = f" ({len(names)} models listed)" if names else ""
        return f"Connected to {self.base_url}: model {self.model!r} answered{listed}."

    # -- one request, with retries -----------------------------------------------------------

    async def _request(
        self,
        call: Call,
        positions: Sequence[int],
        on_token: TokenCallback | None,
        tally: _Tally,
    ) -> _Reply:
        """Fetch samples for ``positions`` in one request (retrying); may return fewer."""
        client = self._client()
        attempt = 0
        while True:
            try:
                async with self._slot():
                    self.requests += 1
                    tally.requests += 1
                    return await self._stream(client, call, positions, on_token)
            except _Failure as failure:
                if not failure.retryable or attempt >= self.settings.max_retries:
                    raise self._model_error(failure, attempts=attempt + 1) from None
                wait = self._backoff(attempt, failure.retry_after)
                attempt += 1
                self.retries += 1
                if self.on_retry is not None:
                    self.on_retry(failure.kind, attempt, wait)
                # Outside the slot: a waiting retry must not hold up other calls.
                await asyncio.sleep(wait)

    async def _stream(
        self,
        client: Any,
        call: Call,
        positions: Sequence[int],
        on_token: TokenCallback | None,
    ) -> _Reply:
        """One streamed request; raises :class:`_Failure` for anything short of a full reply."""
        sampling = call.sampling
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in call.messages],
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if len(positions) > 1:  # some servers reject n outright; n=1 is their default anyway
            params["n"] = len(positions)
        if sampling.max_tokens is not None:
            params["max_tokens"] = sampling.max_tokens
        if sampling.stop:
            params["stop"] = list(sampling.stop)
        if self.settings.seed is not None:
            # Offset by sample index, or the extra requests that fill in for a server that
            # ignores n would all draw the same sample.
            params["seed"] = self.settings.seed + call.sample_offset + positions[0]

        parts: dict[int, list[str]] = {}
        finished: set[int] = set()
        usage: Any = None
        server_model = ""
        responded = False
        done = False
        try:
            # The raw event stream, read with json.loads: the client's typed chunk objects cost
            # about 0.3 ms each, which a BoT run (tens of thousands of chunks) cannot afford.
            async with client.chat.completions.with_streaming_response.create(**params) as response:
                responded = True
                async for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]" or done:
                        # Read on to the end of the body, so the connection can be reused.
                        done = True
                        continue
                    chunk = json.loads(data)
                    if not isinstance(chunk, dict):
                        raise json.JSONDecodeError("not an object", data, 0)
                    if chunk.get("error"):
                        raise _Failure(
                            "server",
                            f"the server reported an error mid-reply: {chunk['error']}",
                            retryable=True,
                        )
                    server_model = server_model or str(chunk.get("model") or "")
                    if chunk.get("usage"):
                        usage = chunk["usage"]
                    for choice in chunk.get("choices") or ():
                        index = choice.get("index")
                        if not isinstance(index, int) or not 0 <= index < len(positions):
                            continue
                        delta = (choice.get("delta") or {}).get("content")
                        parts.setdefault(index, [])
                        if delta:
                            parts[index].append(delta)
                            if on_token is not None:
                                on_token(positions[index], delta)
                        if choice.get("finish_reason"):
                            finished.add(index)
        except (openai.APIError, json.JSONDecodeError) as err:
            raise self._classify(err, responded) from None
        except (OSError, AttributeError, TypeError) as err:
            raise _Failure(
                "bad_response", f"the reply stream broke: {err}", retryable=True
            ) from None
        except Exception as err:
            # The HTTP layer's own errors (a connection dropped mid-stream) are not openai's.
            if type(err).__module__.split(".")[0].startswith(("httpx", "httpcore")):
                raise _Failure(
                    "bad_response", "the reply stream was cut off", retryable=True
                ) from None
            raise

        unfinished = sorted(set(parts) - finished)
        if unfinished or not finished:
            raise _Failure(
                "bad_response",
                "the reply stream ended before the answer was finished",
                retryable=True,
            )
        count = max(finished) + 1
        if set(range(count)) - finished:  # a gap in the choices: keep only the leading run
            count = min(set(range(count)) - finished)
        texts = ["".join(parts[i]) for i in range(count)]

        if isinstance(usage, dict) and (
            usage.get("prompt_tokens") or usage.get("completion_tokens")
        ):
            used = Usage(
                int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
            )
        else:
            # Servers such as llama.cpp send no usage; an estimate beats counting nothing.
            prompt = sum(rough_tokens(m.content) for m in call.messages)
            used = Usage(prompt, sum(rough_tokens(t) for t in texts))
        return _Reply(texts, used, server_model)

    # -- errors ------------------------------------------------------------------------------

    def _classify(self, err: Exception, responded: bool) -> _Failure:
        """Sort an exception from the client into a kind, and whether to try again."""
        if isinstance(err, json.JSONDecodeError):
            return _Failure(
                "bad_response", "the server sent a reply that is not JSON", retryable=True
            )
        if isinstance(err, openai.APITimeoutError):
            if type(err.__cause__).__name__ == "ConnectTimeout":
                return _Failure("unreachable", "connecting timed out", retryable=True)
            return _Failure("timeout", "no answer in time", retryable=True)
        if isinstance(err, openai.APIConnectionError):
            if responded:  # the connection broke mid-reply
                return _Failure("bad_response", "the connection dropped mid-reply", retryable=True)
            return _Failure("unreachable", _cause_text(err), retryable=True)
        if isinstance(err, openai.APIStatusError):
            status = err.status_code
            detail = self._server_detail(err)
            if status == 429:
                wait = _retry_after(err.response.headers)
                return _Failure(
                    "rate_limited", detail, retryable=True, retry_after=wait, status=status
                )
            if status in (401, 403):
                return _Failure("auth", detail, retryable=False, status=status)
            if status == 404 or _names_missing_model(err):
                return _Failure("unknown_model", detail, retryable=False, status=status)
            if status >= 500 or status in _RETRY_STATUSES:
                return _Failure("server", detail, retryable=True, status=status)
            return _Failure("bad_request", detail, retryable=False, status=status)
        if isinstance(err, openai.APIResponseValidationError):
            return _Failure("bad_response", "the reply did not match the API", retryable=True)
        # An error event inside the stream (openai.APIError without a status).
        return _Failure("server", self._scrub(str(err)), retryable=True)

    def _server_detail(self, err: openai.APIStatusError) -> str:
        body = err.body
        message = body.get("message") if isinstance(body, Mapping) else body
        text = str(message or err.message or "").strip()
        if len(text) > 240:
            text = text[:237] + "..."
        return self._scrub(text)

    def _scrub(self, text: str) -> str:
        """Never pass the API key on, even when a server echoes it."""
        key = self.settings.api_key
        return text.replace(key, self.settings.masked_key()) if key else text

    def _model_error(self, failure: _Failure, attempts: int) -> ModelError:
        """The plain-English error a person sees once ``failure`` is final."""
        url = self.base_url
        tries = f" (gave up after {attempts} tries)" if attempts > 1 else ""
        status = f"HTTP {failure.status}: " if failure.status else ""
        detail = failure.detail
        kind = failure.kind
        if kind == "unreachable":
            text = f"Cannot reach the model server at {url} ({detail}). Is it running?{tries}"
        elif kind == "timeout":
            text = (
                f"The model server at {url} did not answer within "
                f"{self.settings.timeout:g} seconds{tries}."
            )
        elif kind == "rate_limited":
            text = f"The model server at {url} is rate limiting requests ({detail}){tries}."
        elif kind == "server":
            text = f"The model server at {url} failed ({status}{detail}){tries}."
        elif kind == "bad_response":
            text = f"The model server at {url} sent a broken reply: {detail}{tries}."
        elif kind == "unknown_model":
            text = f"The server at {url} has no model named {self.model!r} ({status}{detail})."
            if "model" not in detail.lower():
                text += " Check the base URL too: it usually ends in /v1."
        elif kind == "auth":
            if self.settings.api_key:
                text = (
                    f"The server at {url} refused the API key {self.settings.masked_key()} "
                    f"({status}{detail})."
                )
            else:
                text = f"The server at {url} needs an API key ({status}{detail})."
            text += " Set OPENAI_API_KEY, or api_key in the config file."
        else:
            text = f"The server at {url} rejected the request ({status}{detail})."
        return ModelError(kind, text, retryable=failure.retryable)

    # -- plumbing ----------------------------------------------------------------------------

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_cap)
        ceiling = min(self.backoff_cap, self.backoff_base * 2**attempt)
        # Jitter spreads out the retries of calls that failed together.
        return ceiling * self._random.uniform(0.5, 1.0)

    def _bound(self) -> _Slots:
        """The semaphore and client for the running loop, made on first use in that loop."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots.loop is not loop:
            self._slots = _Slots(loop, asyncio.Semaphore(self.settings.concurrency))
        return self._slots

    def _slot(self) -> asyncio.Semaphore:
        return self._bound().semaphore

    def _client(self) -> Any:
        slots = self._bound()
        if slots.client is None:
            key = self.settings.api_key
            if not key and self.base_url == OPENAI_BASE_URL:
                raise ModelError(
                    "auth",
                    f"The server at {self.base_url} needs an API key. "
                    "Set OPENAI_API_KEY, or api_key in the config file.",
                )
            slots.client = openai.AsyncOpenAI(
                # Local servers (Ollama, llama.cpp) want no key, but the client insists on one.
                api_key=key or "no-key",
                base_url=self.base_url,
                timeout=self.settings.timeout,
                max_retries=0,  # our retry loop is in charge
            )
        return slots.client

    def _cache_key(self, call: Call, sample_index: int) -> str:
        sampling = call.sampling
        identity = [
            self.base_url,
            self.model,
            [[m.role, m.content] for m in call.messages],
            sampling.temperature,
            sampling.top_p,
            sampling.max_tokens,
            list(sampling.stop),
            self.settings.seed,
            sample_index,
        ]
        text = json.dumps(identity, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


async def _gather_all(jobs: Sequence[Coroutine[Any, Any, _Reply]]) -> list[_Reply]:
    """Run ``jobs`` together; if one fails, cancel the rest rather than let them run on."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _cause_text(err: Exception) -> str:
    cause = err.__cause__
    text = str(cause or err).strip() or type(cause or err).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _names_missing_model(err: openai.APIStatusError) -> bool:
    """Whether a 4xx error says the model does not exist (servers differ in status and code)."""
    if err.code == "model_not_found":
        return True
    body = err.body
    message = str(body.get("message", "") if isinstance(body, Mapping) else body or "").lower()
    return "model" in message and ("not found" in message or "does not exist" in message)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a server asks us to wait (``retry-after-ms`` or ``retry-after``), if it says."""
    millis = headers.get("retry-after-ms")
    if millis:
        with contextlib.suppress(ValueError):
            value = float(millis) / 1000
            if math.isfinite(value):
                return value
    text = headers.get("retry-after")
    if not text:
        return None
    try:
        value = float(text)
        return value if math.isfinite(value) else None
    except ValueError:
        pass
    with contextlib.suppress(TypeError, ValueError):
        when = email.utils.parsedate_to_datetime(text)
        return max(0.0, when.timestamp() - time.time())
    return None
