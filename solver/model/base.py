"""The model seam: a :class:`Call` goes in, a :class:`Generation` comes out.

Every reasoning method talks to a language model only through :class:`Model`. Four
implementations exist: :class:`solver.model.openai.OpenAIModel` (any OpenAI-compatible
server), :class:`solver.model.offline.OfflineModel` (the embedded heuristic players),
:class:`solver.model.replay.ReplayModel` (a recording's replies) and
:class:`solver.model.scripted.ScriptedModel` (tests). Any of them can be wrapped in
:class:`solver.model.recording.RecordingModel`, which records its calls.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from solver.roles import Purpose

__all__ = [
    "CUT_REASONS",
    "FROZEN_FOR",
    "Call",
    "Generation",
    "Message",
    "Model",
    "ModelError",
    "Sampling",
    "Sent",
    "TokenCallback",
    "Usage",
    "counting_requests",
    "few_collections",
    "freeze_once",
    "request_sent",
    "rough_tokens",
]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: str  # "system", "user" or "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class Sampling:
    """Sampling settings that travel with each call (never shared, mutable state)."""

    temperature: float = 0.7
    top_p: float = 1.0
    n: int = 1
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Call:
    """A request to a model.

    ``purpose`` says what the call is for: which method's call of which role
    (:class:`~solver.roles.Purpose`; traces write it as its plain name, ``bot_step``).
    ``context`` holds the public puzzle state for the call, for traces and panes; a model
    (the offline engine included) reads only ``messages``.
    ``sample_offset`` is the index of the first sample asked for: the response cache keys each
    sample by its index, so a repeated prompt that wants fresh samples asks from a new offset.
    """

    purpose: Purpose
    messages: tuple[Message, ...]
    sampling: Sampling = field(default_factory=Sampling)
    context: Mapping[str, Any] = field(default_factory=dict)
    sample_offset: int = 0
    json: bool = False
    """The prompt asks for one JSON object: servers with a JSON mode are asked for it
    (``response_format``); the parser still tolerates prose around the object."""

    @property
    def prompt(self) -> str:
        """The messages as one text, for display and traces."""
        return "\n\n".join(f"[{m.role}]\n{m.content}" for m in self.messages)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one generation."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


CUT_REASONS = {
    "length": "cut off at the token limit",
    "content_filter": "stopped by the server's content filter",
}
"""Finish reasons of a reply the model did not finish, with what they mean for people."""


@dataclass(frozen=True, slots=True)
class Generation:
    """What a model returned for a call: ``n`` texts, usage, latency, cost, cache hit.

    ``finish_reasons`` has one entry per text when the engine tells (``stop``, ``length``,
    ``content_filter``, ...); a text whose reason is in :data:`CUT_REASONS` is unfinished.
    ``notes`` are things worth telling about the call that did not stop it (usage the server
    got wrong, say).
    """

    texts: tuple[str, ...]
    usage: Usage = Usage()
    latency: float = 0.0
    cached: bool = False
    model: str = ""
    cost: float | None = None  # None: no price known for this model
    requests: int = 1  # HTTP requests it took (0 when fully cached)
    finish_reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return self.texts[0] if self.texts else ""

    def cut(self, index: int = 0) -> str | None:
        """Why text ``index`` is unfinished (``length``, ``content_filter``), or None."""
        if index < len(self.finish_reasons) and self.finish_reasons[index] in CUT_REASONS:
            return self.finish_reasons[index]
        return None


class ModelError(Exception):
    """A model could not answer. ``kind`` is one of: ``unreachable``, ``unknown_model``,
    ``auth``, ``rate_limited``, ``timeout`` (an attempt, or the call's deadline, ran out),
    ``server``, ``bad_response``, ``too_large`` (a reply far past ``max_tokens``),
    ``bad_request``, ``bad_url`` (the base URL cannot be a server's address, or leads
    somewhere that is not the API: a redirect, a web page), ``not_recorded`` (the replay
    engine's recording holds no reply for the call, or too few choices left for it),
    ``bad_recording`` (a recording that cannot be read, or written)."""

    def __init__(self, kind: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable


TokenCallback = Callable[[int, str], None]
"""Called with (sample index, text delta) as tokens stream in."""


@runtime_checkable
class Model(Protocol):
    """Anything that turns a :class:`Call` into a :class:`Generation`."""

    name: str

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        """Answer ``call`` with ``call.sampling.n`` texts."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


@dataclass(slots=True)
class Sent:
    """The requests a model has sent for one call so far.

    A call that is cancelled (Stop, a run's deadline) returns no :class:`Generation` to
    count its requests in, yet a request sent may be billed: this count is how the caller
    learns of them. See :func:`counting_requests`.
    """

    requests: int = 0


_sent: ContextVar[Sent | None] = ContextVar("ponder_requests_sent", default=None)


@contextlib.contextmanager
def counting_requests() -> Iterator[Sent]:
    """Count the requests sent by the model calls made inside the ``with`` block (tasks
    started inside it included): a model reports each with :func:`request_sent`."""
    sent = Sent()
    token = _sent.set(sent)
    try:
        yield sent
    finally:
        _sent.reset(token)


def request_sent() -> None:
    """Report one request sent to a server (for the innermost :func:`counting_requests`)."""
    sent = _sent.get()
    if sent is not None:
        sent.requests += 1


def rough_tokens(text: str) -> int:
    """A token estimate for engines that have no tokenizer (about four characters a token)."""
    return max(1, (len(text) + 3) // 4) if text else 0


YOUNG_OBJECTS = 20_000
"""Allocations between the garbage collector's passes over young objects during a run
(Python's default is 700)."""


FROZEN_FOR: set[str] = set()
"""Why what is frozen out of the garbage collector's passes was frozen (:func:`freeze_once`);
empty while nothing is."""


def freeze_once(why: str) -> None:
    """Freeze what exists now out of the garbage collector's passes, once a process for each
    reason (``"start"``, ``"warm-up"``): what an app makes as it opens lives as long as it.
    Once, because a process that opens a second app (the tests, a server) would otherwise
    freeze the first one's garbage for good."""
    if why not in FROZEN_FOR:
        FROZEN_FOR.add(why)
        gc.freeze()


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """Keep the garbage collector's passes short and few for a run of many model calls.

    What exists when the run starts (the modules imported, settings, puzzles) lives through
    it: unless something is frozen already (the app's start-up, :func:`freeze_once`), it is
    frozen out of the collector's passes, which otherwise walk all of it (the openai client's
    modules among it), 40 to 130 ms a full pass. Young objects are collected every
    :data:`YOUNG_OBJECTS` allocations rather than every 700: with 64 calls in flight each
    pass walked their chunks, requests and replies again, about a tenth of a streamed call's
    CPU time. Both are undone at the end. (Whether anything is frozen is kept here, not asked
    of ``gc.get_freeze_count()``, which counts every frozen object each time it is asked.)
    """
    threshold = gc.get_threshold()
    first = not FROZEN_FOR
    if first:
        FROZEN_FOR.add("run")
        gc.freeze()
    gc.set_threshold(max(threshold[0], YOUNG_OBJECTS), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if first:  # what was frozen before (the app's start-up) stays so
            FROZEN_FOR.discard("run")
            gc.unfreeze()
