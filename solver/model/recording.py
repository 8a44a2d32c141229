"""Recordings: every model call of a run, written as it happens, read back to replay it.

A recording is a JSON Lines file in UTF-8; a name ending in ``.gz`` is gzip-compressed.
Line 1 is the header::

    {"ponder_recording": 1, "engine": "gpt-4o at https://api.openai.com/v1",
     "model": "gpt-4o", "started": "2025-01-01T12:00:00+00:00", "source": "..."}

``engine`` is one line for people, ``started`` an ISO-8601 UTC time and ``source`` (optional)
where the calls came from, with a licence note for imported runs. Each further line is one
model call, written when the call finished::

    {"purpose": "propose", "messages": [{"role": "user", "content": "..."}],
     "sampling": {"temperature": 0.7, "top_p": 1.0, "n": 1, "max_tokens": null, "stop": []},
     "sample_offset": 0, "json": false, "context": {...}, "at": 1.234,
     "reply": {"texts": [...], "finish_reasons": [...],
               "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "latency": 0.8,
               "model": "gpt-4o", "cost": null, "requests": 1, "cached": false, "notes": []},
     "match": {...}, "reconstructed": "..."}

``at`` is seconds from the recording's start to the call's start; ``context`` a JSON copy of
:attr:`Call.context`. A call that failed has ``"error": {"kind": ..., "message": ...}`` (a
:class:`~solver.model.ModelError`) in place of ``reply``; a cancelled call is not written.
``match`` and ``reconstructed`` are optional: an imported line may leave ``messages`` empty
and be found by its ``match`` key alone, and ``reconstructed`` says how its texts were
rebuilt. Fields a line leaves out take :class:`~solver.model.Sampling`'s and
:class:`~solver.model.Generation`'s defaults (a reply's ``model``: the header's); fields ponder
does not know are ignored.

How a replayed call finds its reply (:mod:`solver.model.replay`):

1. Exact request first. A call's identity is (purpose, messages, temperature, top_p,
   max_tokens, stop, json, sample_offset): ``n`` is not part of it. All lines with the same
   identity form one pool of choices, in recorded order (line order, then choice order); a
   call asking ``n`` samples takes the next ``n`` choices of its pool.
2. Else the key a recording gives: a line with ``"match": {"purpose": P, FIELD: VALUE, ...}``
   matches a call whose purpose is P and whose ``context[FIELD]`` equals VALUE for every other
   field; a JSON list compares as a multiset (order ignored), strings and numbers exactly.
   Lines with equal keys form one pool, served in order the same way; where several keys
   match, the one naming more fields is tried first.
3. Else a :class:`~solver.model.ModelError` of kind ``not_recorded`` naming the call and what
   was recorded nearest to it: never an invented reply. Too few choices left in a pool is
   the same error, saying how many were asked for and how many remain. A recorded error met
   in a pool is raised again, as the run met it.

Timing: replayed at once by default; at a speed, each call takes its recorded latency divided
by the speed (1: as recorded). Answers are handed out in line order, the order the recorded
calls finished, so concurrent calls finish as they did. Token streaming (``on_token``) gets
the recorded texts.

Writing (:class:`RecordingModel`, around any model): one line per finished call, flushed at
once, one whole line per write, so calls finishing together never mix. Every model of one
process that records to the same file shares it: the first starts the file afresh, later ones
(each bench method, the app's next run) add to it. Secrets are never written: no headers, the
base URL masked (:func:`solver.settings.mask_url`), and every text passed through the OpenAI
model's :class:`~solver.model.openai.Redactor` when a key is known.

Reading (:func:`read_recording`) goes through the file guard (:mod:`puzzles.files`): a
regular file of at most :data:`MAX_RECORDING_BYTES` (and as much once decompressed), lines of
at most :data:`MAX_RECORDING_LINE` bytes, JSON nested at most :data:`MAX_RECORDING_DEPTH`
deep. Anything else is a :class:`RecordingError` naming the file and the line.
"""

from __future__ import annotations

import contextlib
import gzip
import math
import os
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import IO, TYPE_CHECKING, Any

from puzzles.files import FileError, open_file, output_problem, parse_json
from puzzles.text import json_line
from solver.model.base import (
    Call,
    Generation,
    Message,
    Model,
    ModelError,
    Sampling,
    TokenCallback,
    Usage,
)

if TYPE_CHECKING:
    from solver.model.openai import Redactor

__all__ = [
    "MAX_RECORDING_BYTES",
    "MAX_RECORDING_DEPTH",
    "MAX_RECORDING_LINE",
    "RECORDING_VERSION",
    "RecordedCall",
    "RecordedError",
    "Recording",
    "RecordingError",
    "RecordingHeader",
    "RecordingModel",
    "RecordingWriter",
    "call_line",
    "header_line",
    "json_safe",
    "load_recording",
    "read_recording",
    "record_problem",
]

RECORDING_VERSION = 1
MAX_RECORDING_BYTES = 256 * 1024 * 1024
"""Largest recording read, in bytes, on disk and again once decompressed."""
MAX_RECORDING_LINE = 16 * 1024 * 1024
"""Longest line, in bytes: one call with all its choices (100 samples of a long reply)."""
MAX_RECORDING_DEPTH = 32
"""Deepest nesting in one line (a call nests 4 deep, its context a few more)."""
_SAFE_DEPTH = 16  # context nested deeper than this is written as text


class RecordingError(FileError):
    """A recording that cannot be read or written; the message names the file and line."""


# --- the lines ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordingHeader:
    """Line 1 of a recording."""

    engine: str = ""
    model: str = ""
    started: str = ""
    source: str = ""


@dataclass(frozen=True, slots=True)
class RecordedError:
    """A call that failed, as recorded: raised again when replayed."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One call line: the request, and its reply or its error."""

    line: int
    purpose: str
    messages: tuple[Message, ...] = ()
    sampling: Sampling = field(default_factory=Sampling)
    sample_offset: int = 0
    json: bool = False
    context: Mapping[str, Any] = field(default_factory=dict)
    at: float = 0.0
    reply: Generation | None = None
    error: RecordedError | None = None
    match: Mapping[str, Any] | None = None
    reconstructed: str = ""

    @property
    def choices(self) -> int:
        """How many choices the line gives its pool (an error counts as one)."""
        return 1 if self.reply is None else len(self.reply.texts)


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Recording:
    """A recording read from ``path``: its header and its calls in line order."""

    path: str
    header: RecordingHeader
    calls: tuple[RecordedCall, ...]


def json_safe(value: object, depth: int = 0) -> Any:
    """``value`` as plain JSON data: mappings with text keys, lists, text, finite numbers,
    booleans and null. Tuples and sets become lists, fractions and anything else text, so
    a context always writes and reads back the same."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if len(str(abs(value))) <= 100 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth >= _SAFE_DEPTH or isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((json_safe(v, depth + 1) for v in value), key=json_line)
    return str(value)


def header_line(
    engine: str, model: str, *, source: str | None = None, started: datetime | None = None
) -> dict[str, Any]:
    """The header of a new recording."""
    when = (started or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    line: dict[str, Any] = {
        "ponder_recording": RECORDING_VERSION,
        "engine": engine,
        "model": model,
        "started": when,
    }
    if source:
        line["source"] = source
    return line


def call_line(
    call: Call,
    *,
    at: float,
    reply: Generation | None = None,
    error: ModelError | RecordedError | None = None,
) -> dict[str, Any]:
    """The line for one call, with its ``reply`` or its ``error`` (exactly one)."""
    if (reply is None) == (error is None):
        raise ValueError("a call line holds a reply or an error")
    s = call.sampling
    line: dict[str, Any] = {
        "purpose": call.purpose,
        "messages": [{"role": m.role, "content": m.content} for m in call.messages],
        "sampling": {
            "temperature": s.temperature,
            "top_p": s.top_p,
            "n": s.n,
            "max_tokens": s.max_tokens,
            "stop": list(s.stop),
        },
        "sample_offset": call.sample_offset,
        "json": call.json,
        "context": json_safe(call.context),
        "at": round(max(0.0, at), 4),
    }
    if reply is not None:
        line["reply"] = _reply_data(reply)
    elif error is not None:
        line["error"] = {"kind": error.kind, "message": error.message}
    return json_safe(line)  # type: ignore[no-any-return]


def _reply_data(gen: Generation) -> dict[str, Any]:
    return {
        "texts": list(gen.texts),
        "finish_reasons": list(gen.finish_reasons),
        "usage": {
            "prompt_tokens": gen.usage.prompt_tokens,
            "completion_tokens": gen.usage.completion_tokens,
        },
        "latency": round(gen.latency, 4),
        "model": gen.model,
        "cost": gen.cost,
        "requests": gen.requests,
        "cached": gen.cached,
        "notes": list(gen.notes),
    }


# --- reading ------------------------------------------------------------------------------


def read_recording(path: str | os.PathLike[str]) -> Recording:
    """The recording at ``path``; :class:`RecordingError` naming the file (and the line) for
    anything that is not a readable ponder recording."""
    where = os.path.expanduser(path)
    handle = open_file(where, what="recording", max_bytes=MAX_RECORDING_BYTES, error=RecordingError)
    with handle:
        stream: IO[bytes] | gzip.GzipFile = handle
        if where.endswith(".gz"):
            stream = gzip.GzipFile(fileobj=handle, mode="rb")
        lines = _lines(stream, where)
        header = _header(next(lines, None), where)
        calls = tuple(_call(number, text, where, header) for number, text in lines)
    return Recording(where, header, calls)


def _lines(stream: IO[bytes] | gzip.GzipFile, path: str) -> Iterator[tuple[int, str]]:
    """(number, text) for each line that is not blank, within the size limits."""
    total = number = 0
    while True:
        number += 1
        try:
            raw = stream.readline(MAX_RECORDING_LINE + 2)
        except (OSError, EOFError, zlib.error) as exc:
            raise RecordingError(path, f"is not a readable gzip file ({exc})", number) from None
        if not raw:
            return
        total += len(raw)
        if total > MAX_RECORDING_BYTES:
            raise RecordingError(path, "is too large once decompressed", number)
        if len(raw.rstrip(b"\r\n")) > MAX_RECORDING_LINE:
            raise RecordingError(
                path, f"has a line longer than {MAX_RECORDING_LINE:,} bytes", number
            )
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise RecordingError(path, "is not UTF-8 text", number) from None
        if text.strip():
            yield number, text


def _json(number: int, text: str, path: str) -> dict[str, Any]:
    data = parse_json(text, path, max_depth=MAX_RECORDING_DEPTH, line=number, error=RecordingError)
    if not isinstance(data, dict):
        raise RecordingError(path, "a line must be a JSON object", number)
    return data


def _header(first: tuple[int, str] | None, path: str) -> RecordingHeader:
    if first is None:
        raise RecordingError(path, "is empty, not a ponder recording")
    number, text = first
    try:
        data = _json(number, text, path)
    except RecordingError as exc:
        raise RecordingError(path, f"is not a ponder recording ({exc.problem})", number) from None
    version = data.get("ponder_recording")
    if version is None:
        raise RecordingError(path, "is not a ponder recording (no recording header)", number)
    if version != RECORDING_VERSION or isinstance(version, bool):
        raise RecordingError(path, f"recording version {version!r} is not supported", number)
    read = _Reader(data, path, number, "the header")
    return RecordingHeader(
        engine=read.text("engine"),
        model=read.text("model"),
        started=read.text("started"),
        source=read.text("source"),
    )


class _Reader:
    """Typed fields of one JSON object of line ``number``, each with its own message."""

    def __init__(self, data: Mapping[str, Any], path: str, number: int, what: str) -> None:
        self.data, self.path, self.number, self.what = data, path, number, what

    def bad(self, name: str, expected: str) -> RecordingError:
        return RecordingError(self.path, f"{self.what}: {name} must be {expected}", self.number)

    def text(self, name: str, default: str = "") -> str:
        value = self.data.get(name, default)
        if not isinstance(value, str):
            raise self.bad(name, "text")
        return value

    def texts(self, name: str) -> tuple[str, ...]:
        value = self.data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(name, "a list of texts")
        return tuple(value)

    def amount(self, name: str, default: float) -> float:
        value = self.data.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise self.bad(name, "a number of at least 0")
        return float(value)

    def count(self, name: str, default: int, least: int = 0) -> int:
        value = self.data.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise self.bad(name, f"a whole number of at least {least}")
        return value

    def flag(self, name: str) -> bool:
        value = self.data.get(name, False)
        if not isinstance(value, bool):
            raise self.bad(name, "true or false")
        return value

    def table(self, name: str) -> dict[str, Any] | None:
        value = self.data.get(name)
        if value is not None and not isinstance(value, dict):
            raise self.bad(name, "an object")
        return value

    def inner(self, name: str) -> _Reader:
        return _Reader(self.table(name) or {}, self.path, self.number, f"{self.what}.{name}")


def _call(number: int, text: str, path: str, header: RecordingHeader) -> RecordedCall:
    read = _Reader(_json(number, text, path), path, number, "the call")
    purpose = read.text("purpose")
    if not purpose:
        raise read.bad("purpose", "the call's purpose, such as 'propose'")
    if ("reply" in read.data) == ("error" in read.data):
        raise RecordingError(path, "a call must hold a reply or an error (one of them)", number)
    return RecordedCall(
        line=number,
        purpose=purpose,
        messages=_messages(read),
        sampling=_sampling(read.inner("sampling")),
        sample_offset=read.count("sample_offset", 0),
        json=read.flag("json"),
        context=read.table("context") or {},
        at=read.amount("at", 0.0),
        reply=_reply(read.inner("reply"), header) if "reply" in read.data else None,
        error=_error(read.inner("error")) if "error" in read.data else None,
        match=_match(read),
        reconstructed=read.text("reconstructed"),
    )


def _messages(read: _Reader) -> tuple[Message, ...]:
    value = read.data.get("messages", [])
    if not isinstance(value, list):
        raise read.bad("messages", "a list of {role, content}")
    out = []
    for item in value:
        ok = isinstance(item, dict) and all(
            isinstance(item.get(k), str) for k in ("role", "content")
        )
        if not ok:
            raise read.bad("messages", "a list of {role, content}, each of them text")
        out.append(Message(item["role"], item["content"]))
    return tuple(out)


def _sampling(read: _Reader) -> Sampling:
    max_tokens = read.data.get("max_tokens")
    if max_tokens is not None:
        max_tokens = read.count("max_tokens", 1, least=1)
    return Sampling(
        temperature=read.amount("temperature", 0.7),
        top_p=read.amount("top_p", 1.0),
        n=read.count("n", 1, least=1),
        max_tokens=max_tokens,
        stop=read.texts("stop"),
    )


def _reply(read: _Reader, header: RecordingHeader) -> Generation:
    if "texts" not in read.data:
        raise read.bad("texts", "the list of the reply's texts")
    cost = read.data.get("cost")
    if cost is not None:
        cost = read.amount("cost", 0.0)
    usage = read.inner("usage")
    return Generation(
        texts=read.texts("texts"),
        usage=Usage(usage.count("prompt_tokens", 0), usage.count("completion_tokens", 0)),
        latency=read.amount("latency", 0.0),
        cached=read.flag("cached"),
        model=read.text("model", header.model),
        cost=cost,
        requests=read.count("requests", 1),
        finish_reasons=read.texts("finish_reasons"),
        notes=read.texts("notes"),
    )


def _error(read: _Reader) -> RecordedError:
    kind = read.text("kind")
    if not kind:
        raise read.bad("kind", "the kind of model error, such as 'timeout'")
    return RecordedError(kind, read.text("message"))


def _match(read: _Reader) -> Mapping[str, Any] | None:
    match = read.table("match")
    if match is None:
        return None
    if not isinstance(match.get("purpose"), str) or not match["purpose"]:
        raise read.bad("match", "an object naming the call's purpose and context fields")
    return match


_CACHE: OrderedDict[tuple[str, int, int], Recording] = OrderedDict()
_CACHE_SIZE = 4
_CACHE_LOCK = threading.Lock()


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """:func:`read_recording`, remembered while the file stays the same (its size and time),
    so every model a bench builds from one recording reads it once."""
    where = os.path.expanduser(path)
    try:
        info = os.stat(where)
        key = (os.path.realpath(where), info.st_mtime_ns, info.st_size)
    except (OSError, ValueError):
        return read_recording(where)  # the guard says what is wrong with it
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    recording = read_recording(where)
    with _CACHE_LOCK:
        _CACHE[key] = recording
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return recording


# --- writing ------------------------------------------------------------------------------


def record_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a recording cannot be written at ``path`` (a folder, a pipe, a link, a missing
    folder), or None when it can."""
    path = os.path.expanduser(path)
    problem = output_problem(path)
    if problem is not None:
        return problem
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"its folder {folder} does not exist"
    return None


class RecordingWriter:
    """Writes a recording line by line, each flushed at once; safe across threads.

    ``append`` adds to a file this process already started (no second header). Secrets given
    are hidden in every text written. :class:`RecordingError` when the file cannot be opened
    or written."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: Mapping[str, Any],
        *,
        secrets: Iterable[str] = (),
        append: bool = False,
    ) -> None:
        self.path = os.path.expanduser(path)
        self._lock = threading.Lock()
        self._redactor = _redactor(secrets)
        problem = record_problem(self.path)
        if problem is not None:
            raise RecordingError(self.path, f"cannot be written: {problem}")
        self._file = self._open(append)
        if not append:
            try:
                self.write(header)
            except RecordingError:
                with contextlib.suppress(RecordingError):
                    self.close()
                raise

    def _open(self, append: bool) -> IO[bytes] | gzip.GzipFile:
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            raw = os.fdopen(os.open(self.path, flags, 0o666), "ab" if append else "wb")
        except OSError as exc:
            raise RecordingError(self.path, f"cannot be written: {exc.strerror or exc}") from None
        if not self.path.endswith(".gz"):
            return raw
        return gzip.GzipFile(fileobj=raw, mode="ab" if append else "wb")

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Hide these secrets too, from the next line on."""
        known = self._redactor.secrets if self._redactor is not None else ()
        more = [s for s in secrets if s and s not in known]
        if more:
            with self._lock:
                self._redactor = _redactor([*known, *more])

    def write(self, line: Mapping[str, Any]) -> None:
        """Write one line (scrubbed of secrets) and flush it."""
        data = _scrub(line, self._redactor) if self._redactor else line
        raw = (json_line(data) + "\n").encode("utf-8", "backslashreplace")
        with self._lock:
            try:
                self._file.write(raw)
                self._file.flush()
            except (OSError, ValueError) as exc:
                problem = exc.strerror if isinstance(exc, OSError) else None
                raise RecordingError(
                    self.path, f"cannot be written: {problem or exc}; it holds the calls before"
                ) from None

    def close(self) -> None:
        """Close the file (the calls written stay)."""
        with self._lock:
            file = self._file
            inner = getattr(file, "fileobj", None)
            try:
                file.close()
                if inner is not None:
                    inner.close()
            except OSError as exc:
                raise RecordingError(
                    self.path, f"cannot be written: {exc.strerror or exc}"
                ) from None

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _redactor(secrets: Iterable[str]) -> Redactor | None:
    # Secrets shorter than the redactor's piece are no secrets (``ollama``); without any the
    # OpenAI client module is not loaded for a recording of the offline engine.
    kept = [s for s in secrets if s and len(s) >= 8]
    if not kept:
        return None
    from solver.model.openai import Redactor

    return Redactor(kept)


def _scrub(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return redactor.scrub(value)
    if isinstance(value, Mapping):
        return {redactor.scrub(str(k)): _scrub(v, redactor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, redactor) for v in value]
    return value


@dataclass(slots=True)
class _Shared:
    """One file that the models of this process record to."""

    header: Mapping[str, Any]
    started: float = field(default_factory=time.monotonic)
    users: int = 0
    writer: RecordingWriter | None = None
    opened: bool = False  # started afresh once: later writers add to it
    failure: RecordingError | None = None


_SHARED: dict[str, _Shared] = {}
_SHARED_LOCK = threading.Lock()


def _join(path: str, header: Mapping[str, Any], secrets: Iterable[str]) -> _Shared:
    """The shared file at ``path``, opened (afresh the first time) for one more user."""
    key = os.path.realpath(path)
    with _SHARED_LOCK:
        shared = _SHARED.setdefault(key, _Shared(header))
        shared.users += 1
        if shared.writer is None and shared.failure is None:
            # Added to only while it still holds what this process wrote (its header first).
            append = shared.opened and _size(path) > 0
            try:
                shared.writer = RecordingWriter(path, shared.header, secrets=secrets, append=append)
                shared.opened = True
            except RecordingError as exc:
                shared.failure = exc
        elif shared.writer is not None:
            shared.writer.add_secrets(secrets)
        return shared


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _leave(shared: _Shared) -> None:
    with _SHARED_LOCK:
        shared.users -= 1
        if shared.users > 0:
            return
        writer, shared.writer, shared.failure = shared.writer, None, None
    if writer is not None:
        # Every line was flushed as it was written: a failure now loses nothing of them
        # (of a .gz file, its end marker; the reader names that).
        with contextlib.suppress(RecordingError):
            writer.close()


class RecordingModel:
    """Any model, with every finished call written to the recording at ``path``.

    ``engine`` is the header's line for people (:func:`solver.factory.describe_engine`)
    and ``secrets`` (the API key, a password in the base URL) are hidden in every line. A
    call that failed is written with its error and the error raised as it was; a cancelled
    call is not written. A recording that cannot be written ends the call with a
    :class:`ModelError` of kind ``bad_recording``."""

    def __init__(
        self,
        model: Model,
        path: str | os.PathLike[str],
        *,
        engine: str = "",
        secrets: Iterable[str] = (),
        source: str | None = None,
    ) -> None:
        self.model = model
        self.name = model.name
        self.path = os.path.expanduser(path)
        header = header_line(engine or model.name, model.name, source=source)
        self._shared: _Shared | None = _join(self.path, header, secrets)

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        shared = self._shared
        if shared is None:
            raise ModelError("bad_recording", f"the recording {self.path} is closed")
        if shared.failure is not None:  # no call the recording would not hold
            raise ModelError("bad_recording", f"the recording {shared.failure}")
        at = time.monotonic() - shared.started
        try:
            gen = await self.model.generate(call, on_token)
        except ModelError as exc:
            self._write(shared, call_line(call, at=at, error=exc))
            raise
        self._write(shared, call_line(call, at=at, reply=gen))
        return gen

    def _write(self, shared: _Shared, line: Mapping[str, Any]) -> None:
        try:
            if shared.failure is not None:
                raise shared.failure
            assert shared.writer is not None
            shared.writer.write(line)
        except RecordingError as exc:
            shared.failure = exc
            raise ModelError("bad_recording", f"the recording {exc}") from None

    async def aclose(self) -> None:
        shared, self._shared = self._shared, None
        try:
            await self.model.aclose()
        finally:
            if shared is not None:
                _leave(shared)
