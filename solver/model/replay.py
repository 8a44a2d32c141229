"""The replay engine: every call answered from a recording of real calls, never invented.

The recording's format and the matching rule are described in :mod:`solver.model.recording`.
:class:`Matcher` holds a recording's pools and what a run has taken from them;
:class:`ReplayModel` is the :class:`~solver.model.Model` around it, with the recorded timing
replayed at a chosen speed (0, the default: at once).
"""

from __future__ import annotations

import asyncio
import difflib
import heapq
import json
import math
import os
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from puzzles.text import visible
from solver.model.base import Call, Generation, Message, Model, ModelError, TokenCallback, Usage
from solver.model.recording import (
    RecordedCall,
    Recording,
    RecordingError,
    json_safe,
    load_recording,
)

__all__ = ["Answer", "Matcher", "ReplayModel", "describe_call", "replay_model", "short_context"]

_Entry = tuple[int, int]
"""A choice in a pool: (index of its line among the recording's calls, choice index)."""

_NEAREST_LOOKS = 2000  # recorded calls compared when naming the nearest one
_STREAM_STEPS = 20  # pieces a text streams in when replayed at a speed
_SETTLE_TURNS = 8  # event loop turns without a new call before the next answer goes


@dataclass(slots=True)
class _Pool:
    """Choices that answer the same calls, in recorded order."""

    entries: list[_Entry] = field(default_factory=list)
    cursor: int = 0  # entries before it are all taken
    fields: int = 0  # a keyed pool: how many context fields its key names


def _identity(call: Call | RecordedCall) -> tuple[Any, ...]:
    """What makes two requests the same (rule 1): everything sent but ``n``."""
    s = call.sampling
    roles = tuple((m.role, m.content) for m in call.messages)
    return (call.purpose, roles, s.temperature, s.top_p, s.max_tokens, tuple(s.stop),
            call.json, call.sample_offset)  # fmt: skip


def _canonical(value: Any) -> Any:
    """JSON data in a form where equal values are equal: lists as sorted multisets, whole
    floats as integers."""
    if isinstance(value, list):
        return sorted((_canonical(v) for v in value), key=_dump)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _key_text(value: Any) -> str:
    return _dump(_canonical(value))


@dataclass(frozen=True, slots=True)
class _Keys:
    """What a recorded call is looked up by: its request (rule 1) and, for a call recorded
    with a context, the purpose, field names and canonical values of its key."""

    identity: tuple[Any, ...]
    purpose: str
    names: tuple[str, ...] | None = None
    values: tuple[str, ...] = ()


_KEYS: dict[int, list[_Keys]] = {}
"""A recording's lookup keys, by ``id`` while it lives: worked out once, not again for every
model that replays it (a benchmark's hands each replay the same recording)."""


def _keys_of(recording: Recording) -> list[_Keys]:
    keys = _KEYS.get(id(recording))
    if keys is None:
        keys = [_keys(rec) for rec in recording.calls]
        _KEYS[id(recording)] = keys
        weakref.finalize(recording, _KEYS.pop, id(recording), None)
    return keys


def _keys(rec: RecordedCall) -> _Keys:
    if rec.match is None:
        return _Keys(_identity(rec), rec.purpose)
    names = tuple(sorted(k for k in rec.match if k != "purpose"))
    values = tuple(_key_text(rec.match[k]) for k in names)
    return _Keys(_identity(rec), str(rec.match["purpose"]), names, values)


class Matcher:
    """A recording's pools of choices, and what has been taken from them (rules 1 to 3 of
    :mod:`solver.model.recording`). Each matcher starts with every choice untaken."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self._calls = recording.calls
        self._taken: set[_Entry] = set()
        self._exact: dict[tuple[Any, ...], _Pool] = {}
        # purpose -> field names -> canonical values -> pool
        self._keyed: dict[str, dict[tuple[str, ...], dict[tuple[str, ...], _Pool]]] = {}
        self._by_purpose: dict[str, list[RecordedCall]] = {}
        for index, rec in enumerate(self._calls):
            self._add(index, rec)

    def _add(self, index: int, rec: RecordedCall) -> None:
        entries = [(index, i) for i in range(rec.choices)]
        keys = _keys_of(self.recording)[index]
        self._exact.setdefault(keys.identity, _Pool()).entries += entries
        if keys.names is not None:
            tables = self._keyed.setdefault(keys.purpose, {}).setdefault(keys.names, {})
            tables.setdefault(keys.values, _Pool(fields=len(keys.names))).entries += entries
        self._by_purpose.setdefault(keys.purpose, []).append(rec)

    def take(self, call: Call) -> Generation:
        """The reply to ``call`` from the next choices of its pool; :class:`ModelError`
        ``not_recorded`` when none has enough, or the recorded error met in its pool."""
        answer = self.answer(call)
        if isinstance(answer.reply, ModelError):
            raise answer.reply
        return answer.reply

    def answer(self, call: Call) -> Answer:
        """What the recording answers ``call`` with (a recorded error included), and from
        which line; :class:`ModelError` ``not_recorded`` when it holds no answer."""
        n = call.sampling.n
        short: tuple[_Pool, int] | None = None
        for pool in self._pools(call):
            got = self._draw(pool, n)
            if isinstance(got, list):
                first = self._calls[got[0][0]]
                if first.error is not None:
                    return Answer(ModelError(first.error.kind, first.error.message), first.line)
                return Answer(self._generation(got), first.line)
            if short is None:
                short = (pool, got)
        if short is not None:
            raise ModelError("not_recorded", self._too_few(call, *short))
        raise ModelError("not_recorded", self._missing(call))

    def _pools(self, call: Call) -> Iterator[_Pool]:
        exact = self._exact.get(_identity(call))
        if exact is not None:
            yield exact
        tables = self._keyed.get(call.purpose)
        if not tables:
            return
        context = json_safe(call.context)
        found = []
        for names, table in tables.items():
            if all(name in context for name in names):
                pool = table.get(tuple(_key_text(context[name]) for name in names))
                if pool is not None:
                    found.append(pool)
        # The key naming more fields first; among equals, the one recorded first.
        yield from sorted(found, key=lambda p: (-p.fields, p.entries[0] if p.entries else (0, 0)))

    def _draw(self, pool: _Pool, n: int) -> list[_Entry] | int:
        """The next ``n`` untaken choices of ``pool`` (taken now), or how many are left."""
        while pool.cursor < len(pool.entries) and pool.entries[pool.cursor] in self._taken:
            pool.cursor += 1
        got: list[_Entry] = []
        for entry in pool.entries[pool.cursor :]:
            if entry in self._taken:
                continue
            if self._calls[entry[0]].error is not None:
                if not got:  # the call failed here when it was recorded: fail again
                    self._taken.add(entry)
                    return [entry]
                break
            got.append(entry)
            if len(got) == n:
                self._taken.update(got)
                return got
        return len(got)

    def _generation(self, taken: list[_Entry]) -> Generation:
        """One generation of the choices ``taken``: a whole line as recorded, a share of a
        line's usage, cost and requests for each choice of it."""
        lines: dict[int, list[int]] = {}
        for index, choice in taken:
            lines.setdefault(index, []).append(choice)
        parts = [_Part(self._calls[i], choices) for i, choices in lines.items()]
        texts = tuple(text for part in parts for text in part.texts())
        reasons = tuple(r for part in parts for r in part.reasons())
        known = any(part.reply.finish_reasons for part in parts)
        costs = [part.cost() for part in parts]
        return Generation(
            texts,
            Usage(sum(p.share("prompt") for p in parts), sum(p.share("completion") for p in parts)),
            latency=max(part.reply.latency for part in parts),
            cached=all(part.reply.cached for part in parts),
            model=parts[0].reply.model,
            cost=None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
            requests=sum(part.share("requests") for part in parts),
            finish_reasons=reasons if known else (),
            notes=tuple(dict.fromkeys(note for part in parts for note in part.reply.notes)),
        )

    # --- what is said when no reply is recorded ---------------------------------------------

    def _too_few(self, call: Call, pool: _Pool, left: int) -> str:
        first = self._calls[pool.entries[0][0]].line if pool.entries else 0
        replies = "reply" if left == 1 else "replies"
        return (
            f"{self.recording.path} has {left} {replies} left for the {describe_call(call)}, "
            f"but {call.sampling.n} were asked for (recorded from line {first})"
        )

    def _missing(self, call: Call) -> str:
        said = f"{self.recording.path} holds no reply for the {describe_call(call)}"
        if call.sampling.n > 1:
            said += f" asking for {call.sampling.n} samples"
        nearest = self._nearest(call)
        if nearest is not None:
            return f"{said}; nearest recorded: line {nearest.line}, {_describe_recorded(nearest)}"
        purposes = ", ".join(list(self._by_purpose)[:8]) or "no calls"
        return f"{said}; it has no {_clip(call.purpose, 40)} call (it holds: {purposes})"

    def _nearest(self, call: Call) -> RecordedCall | None:
        same = self._by_purpose.get(call.purpose)
        if not same:
            return None
        mine = short_context(json_safe(call.context)) or _prompt_tail(call.messages)

        def likeness(rec: RecordedCall) -> float:
            theirs = _recorded_short(rec) if call.context else _prompt_tail(rec.messages)
            return difflib.SequenceMatcher(None, mine, theirs, autojunk=False).ratio()

        return max(same[:_NEAREST_LOOKS], key=likeness)


@dataclass(frozen=True, slots=True)
class Answer:
    """A recording's answer to a call: its reply, or the error recorded for it, and the line
    of the first choice taken (replayed answers go out in line order)."""

    reply: Generation | ModelError
    line: int


@dataclass(slots=True)
class _Part:
    """The choices a generation takes from one recorded line."""

    rec: RecordedCall
    choices: list[int]

    @property
    def reply(self) -> Generation:
        assert self.rec.reply is not None
        return self.rec.reply

    @property
    def whole(self) -> bool:
        return len(self.choices) == len(self.reply.texts)

    def texts(self) -> Iterator[str]:
        return (self.reply.texts[i] for i in self.choices)

    def reasons(self) -> Iterator[str]:
        reasons = self.reply.finish_reasons
        return (reasons[i] if i < len(reasons) else "" for i in self.choices)

    def share(self, what: str) -> int:
        """This part's share of the line's prompt or completion tokens, or its requests: the
        shares of all a line's choices add up to the line's figure exactly."""
        reply = self.reply
        total = {
            "prompt": reply.usage.prompt_tokens,
            "completion": reply.usage.completion_tokens,
            "requests": reply.requests,
        }[what]
        if self.whole:
            return total
        count = len(reply.texts)
        return sum(round(total * (i + 1) / count) - round(total * i / count) for i in self.choices)

    def cost(self) -> float | None:
        cost = self.reply.cost
        if cost is None or self.whole:
            return cost
        return cost * len(self.choices) / len(self.reply.texts)


# --- calls for people -----------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    flat = visible(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _value_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def short_context(context: Mapping[str, Any]) -> str:
    """A call's context in one short line for people (``numbers: 4, 6, 13; steps: ...``)."""
    parts = []
    for name, value in context.items():
        if name == "kind" or value in ("", [], {}, None):
            continue
        parts.append(f"{_clip(str(name), 20)}: {_clip(_value_text(value), 60)}")
    return _clip("; ".join(parts), 160)


def _prompt_tail(messages: Iterable[Message]) -> str:
    last = "".join(m.content for m in list(messages)[-1:])
    flat = " ".join(last.split())
    return visible("…" + flat[-80:] if len(flat) > 80 else flat)


def describe_call(call: Call) -> str:
    """``propose call (numbers: 4, 6, 13)``: a call's purpose and what it is about."""
    about = short_context(json_safe(call.context)) or _prompt_tail(call.messages)
    return f"{_clip(call.purpose, 40)} call ({about})" if about else f"{call.purpose} call"


def _recorded_short(rec: RecordedCall) -> str:
    if rec.match is not None:
        return short_context({k: v for k, v in rec.match.items() if k != "purpose"})
    return short_context(rec.context) or _prompt_tail(rec.messages)


def _describe_recorded(rec: RecordedCall) -> str:
    purpose = str(rec.match["purpose"]) if rec.match is not None else rec.purpose
    about = _recorded_short(rec)
    return f"{_clip(purpose, 40)} call ({about})" if about else f"{purpose} call"


# --- the model ------------------------------------------------------------------------------


class _Sequencer:
    """Lets replayed answers go in the order of their lines: the order the calls finished when
    they were recorded. An answer waits until the event loop has settled (every task that
    can run has run, so every call that will be asked now has been), then the one of the
    lowest line goes; so a run with concurrent calls sees them finish as the recorded run
    did, and makes the same decisions in the same order."""

    def __init__(self) -> None:
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrived = 0
        self._task: asyncio.Task[None] | None = None

    async def turn(self, line: int) -> None:
        """Return when it is the turn of the answer from ``line``."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._arrived += 1
        heapq.heappush(self._waiting, (line, self._arrived, future))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._release())
        await future

    async def _release(self) -> None:
        while self._waiting:
            seen = -1
            while seen != self._arrived:  # settled: no call arrived for a few turns
                seen = self._arrived
                for _ in range(_SETTLE_TURNS):
                    await asyncio.sleep(0)
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():  # not cancelled meanwhile
                future.set_result(None)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()


class ReplayModel:
    """A :class:`~solver.model.Model` that answers every call from ``recording``.

    Concurrent calls get their answers in the order the recorded calls finished (line
    order), so a run replays as it was recorded, events and all. ``speed`` 0 (the default)
    answers at once; otherwise each call first takes its recorded latency divided by
    ``speed`` (1: as recorded), its texts streamed to ``on_token`` over that time. Each model
    starts at the first choice of every pool: a run replayed twice needs two models. Its
    name is the recorded model's."""

    def __init__(self, recording: Recording, *, speed: float = 0.0) -> None:
        if not (0 <= speed < math.inf):
            raise ValueError(f"speed must be 0 or a positive number, not {speed!r}")
        self.recording = recording
        self.speed = speed
        self.name = recording.header.model or "replay"
        self.matcher = Matcher(recording)
        self._sequencer = _Sequencer()

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        answer = self.matcher.answer(call)
        reply = answer.reply
        texts = reply.texts if isinstance(reply, Generation) else ()
        latency = reply.latency if isinstance(reply, Generation) else 0.0
        delay = latency / self.speed if self.speed else 0.0
        if on_token is not None and delay > 0:
            await _stream(texts, delay, on_token)
            on_token = None
        elif delay > 0:
            await asyncio.sleep(delay)
        await self._sequencer.turn(answer.line)
        if isinstance(reply, ModelError):
            raise reply
        for index, text in enumerate(texts if on_token is not None else ()):
            if text and on_token is not None:
                on_token(index, text)
        return reply

    async def aclose(self) -> None:
        self._sequencer.close()


async def _stream(texts: tuple[str, ...], delay: float, on_token: TokenCallback) -> None:
    """``texts`` to ``on_token`` in pieces over ``delay`` seconds."""
    for step in range(_STREAM_STEPS):
        await asyncio.sleep(delay / _STREAM_STEPS)
        for index, text in enumerate(texts):
            start = len(text) * step // _STREAM_STEPS
            end = len(text) * (step + 1) // _STREAM_STEPS
            if end > start:
                on_token(index, text[start:end])


class _Unreadable:
    """The replay engine over a recording that cannot be read: every call says why."""

    def __init__(self, error: RecordingError) -> None:
        self.name = "replay"
        self.error = error

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        raise ModelError("bad_recording", f"the recording {self.error}")

    async def aclose(self) -> None:
        return None


def replay_model(path: str | os.PathLike[str], *, speed: float = 0.0) -> Model:
    """A :class:`ReplayModel` over the recording at ``path``; for a recording that cannot be
    read, a model whose every call fails with a :class:`ModelError` ``bad_recording`` saying
    why (so the app and bench show it as they show any model error)."""
    try:
        return ReplayModel(load_recording(path), speed=speed)
    except RecordingError as exc:
        return _Unreadable(exc)
