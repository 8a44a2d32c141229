"""The model seam over any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio).

:class:`OpenAIModel` turns a :class:`~solver.model.Call` into a
:class:`~solver.model.Generation` with ``openai.AsyncOpenAI``. The client's own retries are
switched off (``max_retries=0``) so that this module decides what is retried, how long to wait
and what the person is told: retries with exponential backoff and jitter on rate limits
(honouring ``Retry-After``), server errors, timeouts, connection errors and dropped streams;
plain-English :class:`~solver.model.ModelError` for everything else.

Nothing a server does can hold a call for ever or flood memory: each call has an overall
deadline (attempts and waits between them included), and a reply is read line by line under
caps on its tokens, characters and bytes derived from ``max_tokens``; every cap counts bytes
once decompressed, and bodies read whole (an error, a list of models) have caps of their own.
No redirect is followed. Every string that comes from a server (reply text, error messages)
passes through a :class:`Redactor` first, so an API key a server echoes back never reaches a
screen, a log or a file.

The HTTP client under the openai client, and what it refuses, is :mod:`solver.model.transport`;
the reading of a reply's event stream within its caps is :mod:`solver.model.stream`.
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import contextlib
import hashlib
import json
import math
import os
import random
import re
import string
import time
import urllib.parse
from collections.abc import (
    AsyncIterator,
    Callable,
    Coroutine,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any

import openai

from solver.model.adaptive import AdaptiveLimit, ConcurrencyShown
from solver.model.base import (
    CUT_REASONS,
    Call,
    Generation,
    Message,
    ModelError,
    Sampling,
    TokenCallback,
    Usage,
    request_sent,
    rough_tokens,
)
from solver.model.cache import ResponseCache
from solver.model.retry import backoff
from solver.model.retry import retry_after as _retry_after
from solver.model.stream import QUICK_READER, ReplyLimits, chunk_value, events, usage_of
from solver.model.transport import (
    CLIENT_INTERNALS,
    REQUEST_ERRORS,
    BadCoding,
    BodyTooLarge,
    Failure,
    body_of,
    capped_http_client,
    chat_request,
    direct_route,
    http_library,
    read_whole_chunks,
    short,
)
from solver.roles import Purpose
from solver.settings import Settings, mask_url

__all__ = [
    "OPENAI_BASE_URL",
    "OpenAIModel",
    "Redactor",
    "ReplyLimits",
    "ResponseCache",
    "RetryCallback",
    "StreamRedactor",
    "base_url_problem",
    "cause_text",
    "gather_all",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Where requests go when no base URL is configured."""

RetryCallback = Callable[[str, int, float], None]
"""Called before each retry with (error kind, retry number from 1, seconds it will wait)."""

# Statuses worth another try: request timeout, conflict (OpenAI's lock timeouts), rate limit.
_RETRY_STATUSES = {408, 409, 429}

_DETAIL_CHARS = 240  # of a server's error message shown to people


# -- secrets --------------------------------------------------------------------------------


class Redactor:
    """Hides secrets (the API key, a password in the base URL) in text that came from a server.

    A server may echo a secret in many forms: as sent (``Bearer sk-...``), URL-quoted, inside
    JSON, base64-encoded at any offset (an echoed ``Authorization`` header), reversed, as hex,
    in upper or lower case, or in pieces (a message cut short, a stream split into deltas).
    :meth:`scrub` replaces each secret as written by its ``shown`` form (``sk-...abcd``) and
    every other form, and any run of :attr:`PIECE` or more characters of a secret (or of its
    reversed or hex form), by ``[redacted]``. Matching ignores the case of ASCII letters.

    Secrets shorter than :attr:`PIECE` characters are left alone: placeholder keys such as
    ``ollama`` are no secrets, and hiding every ``x`` in a reply would break it.
    """

    PIECE = 8
    """The shortest run of a secret's characters that is hidden on its own."""

    HIDDEN = "[redacted]"

    def __init__(self, secrets: Iterable[str], shown: Mapping[str, str] | None = None) -> None:
        shown = shown or {}
        self.secrets = tuple(dict.fromkeys(s for s in secrets if len(s) >= self.PIECE))
        self._shown = {secret: shown[secret] for secret in self.secrets if secret in shown}
        forms = {_fold(form) for secret in self.secrets for form in _encoded_forms(secret)}
        # Longest first, so a form is never half-hidden through a shorter one inside it.
        self._forms = sorted(forms, key=lambda form: (-len(form), form))
        self._pieces = {
            text[i : i + self.PIECE]
            for secret in self.secrets
            for text in _piece_sources(secret)
            for i in range(len(text) - self.PIECE + 1)
        }
        letters = {c for piece in self._pieces for c in piece}
        alphabet = "".join(sorted(letters | {c.upper() for c in letters}))
        self._runs = re.compile(f"[{re.escape(alphabet)}]{{{self.PIECE},}}") if alphabet else None
        self.longest = len(self._forms[0]) if self._forms else 0

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def scrub(self, text: str) -> str:
        """``text`` with every secret, in every form, hidden.

        Each form is looked for with ``str.find`` in a case-folded copy of ``text`` (folding
        only ASCII letters keeps every index in place), so a scrub takes time linear in the
        length of ``text`` for each form, however big the text.
        """
        if not self.secrets or not text:
            return text
        out: list[str] = []
        last = 0
        for start, end in self._spans(_fold(text)):
            found = text[start:end]
            out += [text[last:start], self._shown.get(found, self.HIDDEN)]
            last = end
        out.append(text[last:])
        assert self._runs is not None
        return self._runs.sub(self._hide_pieces, "".join(out))

    def _spans(self, folded: str) -> list[tuple[int, int]]:
        """Where the forms of the secrets lie in ``folded``, longest forms first claimed, in
        order and never overlapping."""
        starts: list[int] = []  # sorted: the spans claimed so far
        ends: dict[int, int] = {}
        for form in self._forms:
            start = folded.find(form)
            while start >= 0:
                end = start + len(form)
                at = bisect.bisect(starts, start)
                free_before = at == 0 or ends[starts[at - 1]] <= start
                free_after = at == len(starts) or starts[at] >= end
                if free_before and free_after:
                    starts.insert(at, start)
                    ends[start] = end
                start = folded.find(form, end if free_before and free_after else start + 1)
        return [(start, ends[start]) for start in starts]

    def _hide_pieces(self, match: re.Match[str]) -> str:
        run = match.group()
        folded = _fold(run)
        width = self.PIECE
        hidden = [False] * len(run)
        for i in range(len(run) - width + 1):
            if folded[i : i + width] in self._pieces:
                hidden[i : i + width] = [True] * width
        if not any(hidden):
            return run
        out: list[str] = []
        for i, char in enumerate(run):
            if not hidden[i]:
                out.append(char)
            elif i == 0 or not hidden[i - 1]:
                out.append(self.HIDDEN)
        return "".join(out)

    def holdback(self, text: str) -> int:
        """How many characters at the end of ``text`` a stream must hold back until the next
        delta tells: those that could be part of a secret in some form, and, should that cut
        a whole form in two (its last characters may also begin another), the whole form."""
        if not self.secrets:
            return 0
        keep = 0
        while keep < min(len(text), self.longest):
            tail = _fold(text[len(text) - keep - 1 :])
            if not any(tail in form for form in self._forms):
                break
            keep += 1
        cut = len(text) - keep
        for start, end in self._spans(_fold(text)):
            if start < cut < end:
                return len(text) - start
        return keep


_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _fold(text: str) -> str:
    """``text`` with ASCII letters in lower case; unlike ``str.lower`` it never changes the
    length of a text (``"İ".lower()`` is two characters), so indexes into it hold for both."""
    return text.translate(_FOLD)


def _encoded_forms(secret: str) -> set[str]:
    """The forms a server may echo ``secret`` in: as written, URL-quoted, inside JSON,
    reversed, as hex, base64-encoded from any byte offset. Case is left to the matching."""
    raw = secret.encode()
    forms = {
        secret,
        urllib.parse.quote(secret, safe=""),
        json.dumps(secret)[1:-1],
        secret[::-1],
        raw.hex(),
    }
    for offset in range(3):
        # Inside a longer base64 text the secret starts at any byte offset: the whole groups
        # of three bytes from the next group boundary encode the same way every time.
        body = raw[offset:]
        whole = len(body) // 3 * 3
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            form = encode(body[:whole]).decode()
            if len(form) >= Redactor.PIECE:
                forms.add(form)
    return forms


def _piece_sources(secret: str) -> tuple[str, ...]:
    """The texts whose every run of :attr:`Redactor.PIECE` characters gives a secret away
    (folded): the secret, reversed and as hex."""
    return tuple(_fold(text) for text in (secret, secret[::-1], secret.encode().hex()))


class StreamRedactor:
    """Scrubs one sample's deltas as they stream: a tail that may be the start of a secret is
    held back until later text shows it is not one (or hides it)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.pending = ""

    def feed(self, delta: str) -> str:
        text = self.pending + delta
        keep = self.redactor.holdback(text)
        cut = len(text) - keep
        self.pending = text[cut:]
        return self.redactor.scrub(text[:cut])

    def flush(self) -> str:
        text, self.pending = self.pending, ""
        return self.redactor.scrub(text)


# -- base URLs ------------------------------------------------------------------------------


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the root of an OpenAI-compatible API, or None if it can be."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return "it holds spaces or control characters"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - reading it checks it
    except ValueError as err:
        return f"it is not a URL ({err})"
    if parts.scheme not in ("http", "https"):
        hint = f"; did you mean http://{url}?" if "://" not in url else ""
        return f"it must start with http:// or https://{hint}"
    if not parts.hostname:
        return "it names no host"
    return None


def _url_user(url: str) -> str | None:
    """The user name a URL carries ("" for a password alone); None when it carries none."""
    with contextlib.suppress(ValueError):
        parts = urllib.parse.urlsplit(url)
        if parts.username is not None or parts.password is not None:
            return urllib.parse.unquote(parts.username or "")
    return None


def _url_password(url: str) -> str:
    with contextlib.suppress(ValueError):
        return urllib.parse.unquote(urllib.parse.urlsplit(url).password or "")
    return ""


# -- reply limits ---------------------------------------------------------------------------


@dataclass
class _Reply:
    """What one successful HTTP request brought back."""

    texts: list[str]  # one per choice the server sent, in choice order
    finish: list[str]  # the finish reason of each
    usage: Usage
    model: str
    notes: list[str] = field(default_factory=list)


@dataclass
class _Tally:
    """Per-call count of HTTP requests and the call's deadline (local to one generate)."""

    requests: int = 0
    deadline: float | None = None  # loop time; set when the call's first request starts


@dataclass
class _Reading:
    """What has been read of one streamed reply so far."""

    limits: ReplyLimits
    positions: Sequence[int]
    on_token: TokenCallback | None
    parts: dict[int, list[str]] = field(default_factory=dict)
    chars: dict[int, int] = field(default_factory=dict)
    finished: dict[int, str] = field(default_factory=dict)
    usage: object = None
    model: str = ""
    streams: dict[int, StreamRedactor] = field(default_factory=dict)


@dataclass
class _Slots:
    """The concurrency limit, bound to the event loop it was created in."""

    loop: asyncio.AbstractEventLoop
    limit: AdaptiveLimit
    client: Any = field(default=None)  # openai.AsyncOpenAI; its connections belong to `loop`


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

    ``call_deadline`` bounds a whole call, retries and the waits between them included,
    from the moment its first request is sent (time spent queueing for the concurrency
    limit is not counted); by default ``timeout * (max_retries + 1)``, the longest the
    retry budget allows an answer to take. ``timeout`` itself bounds each connect and each
    wait for the next bytes of a reply.
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
        call_deadline: float | None = None,
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
        self.url = mask_url(self.base_url)
        """The base URL fit to show (a password in it masked)."""
        if call_deadline is None:
            call_deadline = self.settings.timeout * (self.settings.max_retries + 1)
        if not 0 < call_deadline < math.inf:
            raise ValueError(f"call_deadline must be a positive number, not {call_deadline!r}")
        self.call_deadline = call_deadline
        key = self.settings.api_key or ""
        self.redactor = Redactor(
            [key, _url_password(self.base_url)], {key: self.settings.masked_key()}
        )
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
        self.json_mode_refused = False
        """The server refused ``response_format``: JSON is asked for in the prompt only."""
        self.cache_hits = 0
        """Samples answered from the cache."""
        # Learned when a server answers n > 1 with a single choice (llama.cpp): later calls
        # fan out at once instead of asking for n and waiting to be disappointed.
        self._server_ignores_n = False
        self._n_ignored = 0
        self._slots: _Slots | None = None
        self._limit: AdaptiveLimit | None = None  # the last loop's: kept when it is closed
        self._random = random.Random()

    def __repr__(self) -> str:
        return f"OpenAIModel(model={self.model!r}, base_url={self.url!r})"

    # -- the Model protocol ------------------------------------------------------------------

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        """Answer ``call`` with exactly ``call.sampling.n`` texts, streaming to ``on_token``.

        Raises :class:`~solver.model.ModelError` when the server cannot answer.
        """
        start = time.perf_counter()
        n = call.sampling.n
        texts: list[str | None] = [None] * n
        keys: list[str] = []  # hashing the whole prompt is for the cache alone
        if self.cache is not None:
            keys = [self._cache_key(call, call.sample_offset + i) for i in range(n)]
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
                more = await gather_all(
                    [self._request(call, group, on_token, tally) for group in groups]
                )
                replies += zip(groups, more, strict=True)

        usage = Usage()
        server_model = ""
        finish = ["stop"] * n  # cached samples were finished (cut ones are never cached)
        notes: list[str] = []
        for positions, reply in replies:
            usage += reply.usage
            server_model = server_model or reply.model
            notes += reply.notes
            for position, text, reason in zip(positions, reply.texts, reply.finish, strict=False):
                texts[position] = text
                finish[position] = reason
                # An unfinished sample is not worth keeping: asked again, it may finish.
                if self.cache is not None and reason not in CUT_REASONS:
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
            finish_reasons=tuple(finish),
            notes=tuple(dict.fromkeys(notes)),
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
        names = await self._model_names()
        if self.model in names or f"{self.model}:latest" in names:
            return f"Connected to {self.url}: model {self.model!r} is available."
        probe = Call(
            Purpose.CHECK,
            (Message("user", "Reply with OK."),),
            Sampling(temperature=0, max_tokens=1),
        )
        await self._request(probe, [0], None, _Tally())
        listed = f" ({len(names)} models listed)" if names else ""
        return f"Connected to {self.url}: model {self.model!r} answered{listed}."

    async def _model_names(self) -> list[str]:
        """The names of the server's models; none when it cannot list them (the probe of
        :meth:`check_connection` still tells)."""
        try:
            client = self.client()
            async with self._listing_slot():
                self.requests += 1
                async with asyncio.timeout(self.call_deadline):
                    page = await client.models.list()
            return [m.id for m in page.data if isinstance(m.id, str)]
        except openai.NotFoundError:
            return []  # some servers have no /models
        except (AttributeError, TypeError):
            # A reply that is no list of models (a bare list, text, "data" that is no list):
            # the client fails to read it.
            return []
        except (
            TimeoutError,
            Failure,
            BodyTooLarge,
            BadCoding,
            RecursionError,
            openai.APIError,
            ValueError,
        ) as err:
            raise self.model_error(self._list_failure(err), attempts=1) from None

    def _list_failure(self, err: Exception) -> Failure:
        """What a failed request for the list of models means."""
        if isinstance(err, Failure):  # sorted already (a web page)
            return err
        if isinstance(err, TimeoutError):
            return Failure("timeout", "", retryable=False, deadline=True)
        if isinstance(err, (BodyTooLarge, BadCoding)):
            return _body_failure(err)
        if isinstance(err, RecursionError):
            detail = "its list of models is nested too deeply to read"
            return Failure("bad_response", detail, retryable=False)
        return self.classify(err, responded=False)

    # -- one request, with retries -----------------------------------------------------------

    async def _request(
        self,
        call: Call,
        positions: Sequence[int],
        on_token: TokenCallback | None,
        tally: _Tally,
    ) -> _Reply:
        """Fetch samples for ``positions`` in one request (retrying); may return fewer.

        Every attempt, and every wait before the next, ends by the call's deadline.
        """
        client = self.client()
        limit = self._bound().limit
        limits = ReplyLimits.of(call.sampling.max_tokens, len(positions))
        loop = asyncio.get_running_loop()
        attempt = 0
        while True:
            try:
                ticket = await limit.acquire()
                outcome = "other"  # what the limit learns from this request
                try:
                    if tally.deadline is None:
                        tally.deadline = loop.time() + self.call_deadline
                    remaining = tally.deadline - loop.time()
                    if remaining <= 0:
                        raise Failure("timeout", "", retryable=False, deadline=True)
                    self.requests += 1
                    tally.requests += 1
                    request_sent()
                    outcome = "sent"
                    timer = asyncio.timeout(remaining)
                    try:
                        async with timer:
                            reply = await self._stream(client, call, positions, on_token, limits)
                    except TimeoutError:
                        if not timer.expired():
                            raise
                        raise Failure("timeout", "", retryable=False, deadline=True) from None
                    outcome = "ok"
                    return reply
                except Failure as failure:
                    if outcome == "sent" and _overloaded(failure):
                        outcome = "overloaded"
                    raise
                finally:
                    limit.release(ticket, "other" if outcome == "sent" else outcome)
            except Failure as failure:
                if (
                    call.json
                    and not self.json_mode_refused
                    and failure.kind == "bad_request"
                    and "response_format" in failure.detail
                ):
                    # A server without a JSON mode: ask again without it (the prompt itself
                    # asks for JSON, and the parser reads JSON out of prose).
                    self.json_mode_refused = True
                    continue
                if not failure.retryable or attempt >= self.settings.max_retries:
                    raise self.model_error(failure, attempts=attempt + 1) from None
                wait = self.backoff(attempt, failure.retry_after)
                if tally.deadline is not None and loop.time() + wait >= tally.deadline:
                    # The next try could not even start in time: say what went wrong.
                    raise self.model_error(
                        failure, attempts=attempt + 1, out_of_time=True
                    ) from None
                if failure.retry_after is not None:
                    # The server said when it will take calls again: none of ours starts
                    # sooner, not only this one.
                    limit.pause(wait)
                attempt += 1
                self.retries += 1
                if self.on_retry is not None:
                    self.on_retry(failure.kind, attempt, wait)
                # Outside the limit: a waiting retry must not hold up other calls.
                await asyncio.sleep(wait)

    async def _stream(
        self,
        client: Any,
        call: Call,
        positions: Sequence[int],
        on_token: TokenCallback | None,
        limits: ReplyLimits,
    ) -> _Reply:
        """One streamed request; raises :class:`Failure` for anything short of a full reply."""
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
        if call.json and not self.json_mode_refused:
            params["response_format"] = {"type": "json_object"}
        if self.settings.seed is not None:
            # Offset by sample index, or the extra requests that fill in for a server that
            # ignores n would all draw the same sample.
            params["seed"] = self.settings.seed + call.sample_offset + positions[0]

        reading = _Reading(limits, positions, on_token)
        responded = False
        try:
            # The raw event stream, read with a JSON reader (chunk_value): the client's typed
            # chunk objects cost about 0.3 ms each, which a BoT run (tens of thousands of
            # chunks) cannot afford.
            async with self._post_stream(client, params) as blocks:
                responded = True
                async for payloads in events(blocks, limits):
                    self._take(reading, payloads)
        except (openai.APIError, json.JSONDecodeError) as err:
            raise self.classify(err, responded) from None
        except (BodyTooLarge, BadCoding) as err:
            raise _body_failure(err) from None
        except (OSError, UnicodeDecodeError) as err:
            raise Failure(
                "bad_response", f"the reply stream broke: {err}", retryable=True
            ) from None
        except Exception as err:
            # The HTTP layer's own errors (a connection dropped mid-stream) are not openai's.
            if type(err).__module__.split(".")[0].startswith(("httpx", "httpcore")):
                raise Failure(
                    "bad_response", "the reply stream was cut off", retryable=True
                ) from None
            raise

        parts, finished = reading.parts, reading.finished
        unfinished = sorted(set(parts) - set(finished))
        if unfinished or not finished:
            raise Failure(
                "bad_response",
                "the reply stream ended before the answer was finished",
                retryable=True,
            )
        count = max(finished) + 1
        if set(range(count)) - set(finished):  # a gap in the choices: keep only the leading run
            count = min(set(range(count)) - set(finished))
        # Every finished choice has its parts: they are made on its first chunk.
        texts = [self.redactor.scrub("".join(parts[i])) for i in range(count)]
        reasons = [finished[i] for i in range(count)]

        notes: list[str] = []
        used, sensible = usage_of(reading.usage)
        if used is None:
            if not sensible:
                shown = self.redactor.scrub(short(json.dumps(reading.usage, default=str), 60))
                notes.append(
                    f"the server's token usage {shown} is not a count of tokens; "
                    "it was ignored and estimated instead"
                )
            # Servers such as llama.cpp send no usage; an estimate beats counting nothing.
            prompt = sum(rough_tokens(m.content) for m in call.messages)
            used = Usage(prompt, sum(rough_tokens(t) for t in texts))
        return _Reply(texts, reasons, used, reading.model, notes)

    @contextlib.asynccontextmanager
    async def _post_stream(self, client: Any, params: dict[str, Any]) -> AsyncIterator[Any]:
        """POST ``params`` to the chat completions route and yield the blocks of its reply's
        body as they come; a status other than 2xx raises the openai client's own error.

        The request goes straight to the client's HTTP client: the openai client's own path
        (checking and copying the parameters against their types, building headers and
        options afresh for every request) cost about a millisecond of CPU a call, as much as
        all the rest of a call together. What it would send is kept, worked out once per
        client (:func:`request_template`); its errors are the same as the openai client's.
        Where the HTTP client's own layers would only pass the request and a plain reply on,
        it goes straight to the connection pool under them (:func:`direct_route`).
        """
        route = direct_route(client)  # (None for a client without the internals too)
        if route is None and not all(hasattr(client, name) for name in CLIENT_INTERNALS):
            # An openai release without the internals the quick path uses: its own path.
            params = {**params, "extra_headers": {"Accept-Encoding": "identity"}}
            create = client.chat.completions.with_streaming_response.create
            async with create(**params) as response:
                yield response.iter_bytes()
            return
        http = http_library()
        content = json.dumps(params).encode()
        if route is not None and route.open(client._client):
            try:
                answer = await route.pool.handle_async_request(route.request(content))
            except route.timeouts as err:
                raise openai.APITimeoutError(request=chat_request(client, content)) from err
            except (*REQUEST_ERRORS, *route.failures) as err:
                raise openai.APIConnectionError(request=chat_request(client, content)) from err
            if route.plain(answer):
                try:
                    read_whole_chunks(answer.stream)
                    yield aiter(body_of(answer.stream))
                finally:
                    await answer.aclose()
                return
            try:
                request = chat_request(client, content)
            except BaseException:
                await answer.aclose()
                raise
            response = await route.response(client._client, answer, request)
        else:
            request = chat_request(client, content)
            try:
                response = await client._client.send(request, stream=True)
            except http.TimeoutException as err:
                raise openai.APITimeoutError(request=request) from err
            except (*REQUEST_ERRORS, http.RequestError) as err:
                raise openai.APIConnectionError(request=request) from err
        try:
            if not 200 <= response.status_code < 300:
                await response.aread()
                raise client._make_status_error_from_response(response) from None
            # The body's own stream, not the response's iterators: those pass each block
            # through two more layers (counting, decoding what is already decoded), nor the
            # layers of the HTTP library that only pass it on.
            read_whole_chunks(response.stream)
            yield aiter(body_of(response.stream))
        finally:
            await response.aclose()

    def _take(self, reading: _Reading, payloads: list[bytes]) -> None:
        """Read the ``data:`` payloads of one block of the stream into ``reading``.

        Called for every block, some fifty chunks a call: the checks are the same for every
        chunk, but the common one (a single choice's delta, no one to stream it to) is read
        with as few steps as they allow, in one loop for the block."""
        choosable = len(reading.positions)
        all_parts = reading.parts
        chars = reading.chars
        limits = reading.limits
        tokens, most = limits.tokens, limits.chars
        streamed = reading.on_token is not None
        quick = QUICK_READER
        for data in payloads:
            chunk = None
            if quick is not None:
                try:  # noqa: SIM105 (a suppressing context for each chunk costs more)
                    chunk = quick(data)
                except ValueError:
                    pass
            if chunk is None:  # (jiter refused it, or it is null: read as before)
                chunk = self._chunk_read_slowly(data)
            if type(chunk) is not dict:
                raise Failure("bad_response", "a chunk was not a JSON object", retryable=True)
            if "error" in chunk:
                error = chunk["error"]
                if error:
                    raise Failure(
                        "server",
                        f"it reported an error mid-reply: {self._error_text(error)}",
                        retryable=True,
                    )
            if not reading.model and "model" in chunk and isinstance(chunk["model"], str):
                reading.model = self.redactor.scrub(short(chunk["model"], 100))
            if "usage" in chunk:
                usage = chunk["usage"]
                if usage is not None:
                    reading.usage = usage
            choices = chunk.get("choices")
            if choices is None:
                continue
            if type(choices) is not list:
                raise Failure("bad_response", "a chunk's choices were not a list", retryable=True)
            for choice in choices:
                if type(choice) is not dict:
                    raise Failure("bad_response", "a choice was not a JSON object", retryable=True)
                get = choice.get
                index = get("index")
                if type(index) is not int or not 0 <= index < choosable:
                    continue
                delta = get("delta")
                if delta is None:
                    content = None
                elif type(delta) is dict:
                    content = delta.get("content")
                    if content is not None and type(content) is not str:
                        raise Failure(
                            "bad_response", "a delta's content was not text", retryable=True
                        )
                else:
                    raise Failure("bad_response", "a delta was not a JSON object", retryable=True)
                reason = get("finish_reason")
                if reason is not None and type(reason) is not str:
                    raise Failure("bad_response", "a finish_reason was not text", retryable=True)
                if index in all_parts:
                    parts = all_parts[index]
                else:
                    parts = all_parts[index] = []
                    chars[index] = 0
                if content:
                    # Within the reply's limits (a flood is an error of the call).
                    parts.append(content)
                    count = chars[index] = chars[index] + len(content)
                    if len(parts) > tokens:
                        raise Failure(
                            "too_large", limits.too_long(f"{tokens:,} tokens"), retryable=False
                        )
                    if count > most:
                        raise Failure(
                            "too_large",
                            limits.too_long(f"{most:,} characters"),
                            retryable=False,
                        )
                    if streamed:
                        self._stream_on(reading, index, content)
                if reason:
                    reading.finished[index] = short(reason, 40)
                    stream = reading.streams.pop(index, None)
                    if stream is not None and reading.on_token is not None:
                        tail = stream.flush()
                        if tail:
                            reading.on_token(reading.positions[index], tail)

    @staticmethod
    def _chunk_read_slowly(data: bytes) -> Any:
        """A chunk jiter did not read (or read as null): Python's reader says what it is."""
        try:
            return chunk_value(data)
        except RecursionError:  # [[[[... a hundred thousand deep: no chunk of any server
            raise Failure(
                "bad_response", "a chunk was nested too deeply to read", retryable=True
            ) from None

    def _stream_on(self, reading: _Reading, index: int, content: str) -> None:
        """Hand a delta of choice ``index`` to the call's ``on_token``, secrets held back."""
        on_token = reading.on_token
        assert on_token is not None
        if not self.redactor:
            on_token(reading.positions[index], content)
            return
        stream = reading.streams.get(index)
        if stream is None:
            stream = reading.streams[index] = StreamRedactor(self.redactor)
        shown = stream.feed(content)
        if shown:
            on_token(reading.positions[index], shown)

    # -- errors ------------------------------------------------------------------------------

    def classify(self, err: Exception, responded: bool) -> Failure:
        """Sort an exception from the client into a kind, and whether to try again."""
        if isinstance(err, json.JSONDecodeError):
            return Failure(
                "bad_response", "the server sent a reply that is not JSON", retryable=True
            )
        if isinstance(err, openai.APITimeoutError):
            if type(err.__cause__).__name__ == "ConnectTimeout":
                return Failure("unreachable", "connecting timed out", retryable=True)
            return Failure("timeout", "no answer in time", retryable=True)
        if isinstance(err, openai.APIConnectionError):
            if responded:  # the connection broke mid-reply
                return Failure("bad_response", "the connection dropped mid-reply", retryable=True)
            if _bad_head(err):  # it answered, but not in HTTP: no reason to think it is down
                detail = "the server's reply headers were too large or malformed"
                cause = self._error_text(cause_text(err))
                return Failure("bad_response", f"{detail} ({cause})", retryable=True)
            return Failure("unreachable", self._error_text(cause_text(err)), retryable=True)
        if isinstance(err, openai.APIStatusError):
            status = err.status_code
            if 300 <= status < 400:
                return self._redirected(err.response)
            detail = self._server_detail(err)
            if status == 429:
                wait = _retry_after(err.response.headers)
                return Failure(
                    "rate_limited", detail, retryable=True, retry_after=wait, status=status
                )
            if status in (401, 403):
                return Failure("auth", detail, retryable=False, status=status)
            if status == 404 or _names_missing_model(err):
                return Failure("unknown_model", detail, retryable=False, status=status)
            if status >= 500 or status in _RETRY_STATUSES:
                return Failure("server", detail, retryable=True, status=status)
            return Failure("bad_request", detail, retryable=False, status=status)
        if isinstance(err, openai.APIResponseValidationError):
            return Failure("bad_response", "the reply did not match the API", retryable=True)
        # An error event inside the stream (openai.APIError without a status).
        return Failure("server", self._error_text(str(err)), retryable=True)

    def _redirected(self, response: Any) -> Failure:
        """A redirect, refused: following it would send the prompt and the key elsewhere.
        Where it points is said (the base URL to set, if that server is the right one)."""
        status = response.status_code
        location = response.headers.get("location")
        if not location:
            detail = (
                f"answered HTTP {status}, a redirect without a location; ponder does not "
                "follow redirects. Check the base URL."
            )
            return Failure("bad_url", detail, retryable=False, status=status)
        target = urllib.parse.urljoin(str(response.url), location)
        asked = str(response.request.url)
        # The request went to the base URL plus a path (/chat/completions); a server that
        # moved keeps the path, so the rest of where it points is the base URL to set.
        path = asked[len(self.base_url) :] if asked.startswith(self.base_url) else ""
        base = target[: -len(path)] if path and target.endswith(path) else target
        detail = (
            f"redirected the request to {self._shown_url(target)} (HTTP {status}); ponder "
            "does not follow redirects, which would send the whole prompt to another "
            f"address. If that server is the right one, set the base URL to "
            f"{self._shown_url(base)}."
        )
        return Failure("bad_url", detail, retryable=False, status=status)

    def _shown_url(self, url: str) -> str:
        """A URL a server sent, fit to show: password masked, secrets hidden, printable."""
        text = "".join(c for c in mask_url(url) if c.isprintable())
        return short(self.redactor.scrub(text), 200)

    def _server_detail(self, err: openai.APIStatusError) -> str:
        body = err.body
        message = body.get("message") if isinstance(body, Mapping) else body
        return self._error_text(message or err.message or "")

    def _error_text(self, error: object) -> str:
        """A server's error (a message, or an object holding one) fit to show: secrets hidden
        first, then shortened, so no part of a secret survives the cut."""
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            error = error["message"]
        try:
            text = error if isinstance(error, str) else json.dumps(error, default=str)
        except (RecursionError, ValueError):  # nested past what can be written out again
            text = f"an error of type {type(error).__name__}"
        return short(self.redactor.scrub(text).strip(), _DETAIL_CHARS)

    def model_error(
        self, failure: Failure, attempts: int, *, out_of_time: bool = False
    ) -> ModelError:
        """The plain-English error a person sees once ``failure`` is final."""
        url = self.url
        deadline = f"the call's deadline of {self.call_deadline:g} seconds"
        if out_of_time:
            tries = f" (gave up after {attempts} tries: another would pass {deadline})"
        else:
            tries = f" (gave up after {attempts} tries)" if attempts > 1 else ""
        status = f"HTTP {failure.status}: " if failure.status else ""
        detail = failure.detail
        kind = failure.kind
        if kind == "unreachable":
            text = f"Cannot reach the model server at {url} ({detail}). Is it running?{tries}"
        elif kind == "timeout" and failure.deadline:
            text = f"The model server at {url} did not finish the reply within {deadline}."
            if attempts > 1:
                text = text[:-1] + f" ({attempts} tries)."
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
        elif kind == "too_large":
            text = f"The model server at {url} sent too much: {detail}."
        elif kind == "unknown_model":
            text = f"The server at {url} has no model named {self.model!r} ({status}{detail})."
            if "model" not in detail.lower():
                text += " Check the base URL too: it usually ends in /v1."
        elif kind == "bad_url":
            text = f"The server at {url} {detail}"
        elif kind == "auth" and _url_user(self.base_url) is not None:
            text = self._refused_url_credentials(f"{status}{detail}")
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
        return ModelError(kind, self.redactor.scrub(text), retryable=failure.retryable)

    def _refused_url_credentials(self, said: str) -> str:
        """A refusal when the base URL carries a user name and password: the HTTP library
        sends those as Basic auth, in the header the API key would have gone in, so the key
        never reaches the server. Either may be what the server wants."""
        text = (
            f"The server at {self.url} refused the credentials ({said}). The base URL "
            f"carries a user name and password ({_url_user(self.base_url)}:****), which are "
            "sent as Basic auth"
        )
        if not self.settings.api_key:
            return (
                text + ": correct them if the server wants a password, or remove them and "
                "set OPENAI_API_KEY if it wants an API key."
            )
        return text + (
            f" in place of the API key {self.settings.masked_key()}, which never reached "
            "the server. Remove them from the base URL if the server wants the key, or "
            "correct them if it wants a password."
        )

    # -- plumbing ----------------------------------------------------------------------------

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        return backoff(
            attempt,
            retry_after,
            base=self.backoff_base,
            cap=self.backoff_cap,
            retry_after_cap=self.retry_after_cap,
            rng=self._random,
        )

    def _bound(self) -> _Slots:
        """The concurrency limit and client for the running loop, made on first use in that
        loop; a new loop's limit starts where the last one's had got to."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots.loop is not loop:
            before = self._limit
            limit = AdaptiveLimit(
                self.settings.concurrency, start=before.exact if before is not None else None
            )
            if before is not None:
                limit.decreases = before.decreases
            self._slots = _Slots(loop, limit)
            self._limit = limit
        return self._slots

    def concurrency(self) -> ConcurrencyShown:
        """The concurrency limit now: it comes down when the server is overloaded (HTTP 429
        or 503, timeouts) and climbs back to ``concurrency`` while calls succeed."""
        if self._limit is None:
            return ConcurrencyShown(self.settings.concurrency, self.settings.concurrency, 0)
        return self._limit.shown()

    @contextlib.asynccontextmanager
    async def _listing_slot(self) -> AsyncIterator[None]:
        """Room for a request that is no call (the list of models): it waits its turn, and
        teaches the limit nothing."""
        limit = self._bound().limit
        ticket = await limit.acquire()
        try:
            yield
        finally:
            limit.release(ticket, "other")

    def client(self) -> Any:
        """The ``openai.AsyncOpenAI`` of the running event loop, made on first use (raises
        :class:`~solver.model.ModelError` for a base URL that is not usable, or OpenAI's
        own server with no key)."""
        slots = self._bound()
        if slots.client is None:
            problem = base_url_problem(self.base_url)
            if problem is not None:
                # Nothing to retry: no request could ever reach such a "server".
                shown = self.redactor.scrub(repr(self.url))
                raise ModelError("bad_url", f"The base URL {shown} is not usable: {problem}.")
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
                http_client=capped_http_client(),
                **({} if self.settings.env_credentials else _without_env_credentials(key)),
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
        if call.json:  # a JSON-mode request is another request (older keys stay valid)
            identity.append("json")
        text = json.dumps(identity, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _overloaded(failure: Failure) -> bool:
    """Whether a failed request says the server has more calls than it can take: a rate
    limit (429), 503 (unavailable: busy), or no answer in time."""
    return failure.kind in ("rate_limited", "timeout") or failure.status == 503


async def gather_all(jobs: Sequence[Coroutine[Any, Any, _Reply]]) -> list[_Reply]:
    """Run ``jobs`` together; if one fails, cancel the rest rather than let them run on."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def cause_text(err: BaseException) -> str:
    """What lies under a connection error, in words (the first of a group of errors)."""
    cause: BaseException = err.__cause__ or err
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    if cause is not err and cause.__cause__ is not None and not str(cause).strip():
        return cause_text(cause)
    text = str(cause).strip() or type(cause).__name__
    return short(text, 160)


def _body_failure(err: BodyTooLarge | BadCoding) -> Failure:
    """What a body that was not read means."""
    if isinstance(err, BadCoding):
        return Failure("bad_response", err.detail, retryable=err.retryable)
    detail = f"the server's reply was too large to read: {err}"
    if err.cap.status >= 300:
        # The status says what went wrong (the body would only have said it at length): a
        # server error, worth another try as before.
        return Failure("server", detail, retryable=True, status=err.cap.status)
    return Failure("too_large", detail, retryable=False)


def _bad_head(err: BaseException) -> bool:
    """Whether a connection error came from a reply whose head the HTTP parser (h11)
    refused: headers past its size limit, or not HTTP at all."""
    cause = err.__cause__
    for _ in range(8):  # the chain is short; a cycle must not hold the loop
        if cause is None:
            return False
        if type(cause).__module__.split(".")[0] == "h11":
            return True
        # httpcore raises its own error while handling h11's, without "from".
        cause = cause.__cause__ or cause.__context__
    return False


def _without_env_credentials(key: str | None) -> dict[str, Any]:
    """Client arguments that keep the openai package from adding what it reads from the
    environment (``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``, every header of
    ``OPENAI_CUSTOM_HEADERS``, an ``Authorization`` among them): they were set for one server
    and must not reach another (a base URL typed in the app)."""
    custom = os.environ.get("OPENAI_CUSTOM_HEADERS", "")
    names = {line.partition(":")[0].strip() for line in custom.split("\n") if ":" in line}
    headers: dict[str, Any] = {name: openai.omit for name in names if name}
    headers |= {"OpenAI-Organization": openai.omit, "OpenAI-Project": openai.omit}
    # Named here, an Authorization of the environment's is dropped; this one is ours.
    headers["Authorization"] = f"Bearer {key or 'no-key'}"
    return {"organization": openai.omit, "project": openai.omit, "default_headers": headers}


def _names_missing_model(err: openai.APIStatusError) -> bool:
    """Whether a 4xx error says the model does not exist (servers differ in status and code)."""
    if err.code == "model_not_found":
        return True
    body = err.body
    message = str(body.get("message", "") if isinstance(body, Mapping) else body or "").lower()
    return "model" in message and ("not found" in message or "does not exist" in message)
