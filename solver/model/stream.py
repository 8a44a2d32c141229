"""Reading a streamed chat completion: the ``data:`` payloads of its server-sent events
(:func:`events`), each decoded as JSON (:func:`chunk_value`), within the caps of
:class:`ReplyLimits`; and the token usage a server reports (:func:`usage_of`).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from solver.model.base import Usage
from solver.model.transport import Failure

__all__ = ["QUICK_READER", "ReplyLimits", "chunk_value", "events", "json_value", "usage_of"]


@dataclass(frozen=True)
class ReplyLimits:
    """How much of one reply is read before it counts as a flood (an error of the call).

    From ``max_tokens`` with a margin: a choice may bring ``2 * max_tokens + 64`` content
    deltas (a delta is a token or more on every server we know; the margin covers servers
    that split them) and 16 characters a token; the whole stream 1 KiB a delta of envelope
    per choice, plus 1 MiB; one line 1 MiB. Without ``max_tokens``, :attr:`CEILING` tokens.
    """

    tokens: int
    chars: int
    bytes: int
    line: int
    max_tokens: int | None = None

    CEILING = 32_768

    @classmethod
    def of(cls, max_tokens: int | None, choices: int) -> ReplyLimits:
        tokens = 2 * max_tokens + 64 if max_tokens else cls.CEILING
        return cls(
            tokens=tokens,
            chars=16 * tokens,
            bytes=max(1, choices) * tokens * 1024 + (1 << 20),
            line=max(1 << 20, 8 * 16 * tokens),
            max_tokens=max_tokens,
        )

    def too_long(self, what: str) -> str:
        asked = (
            f"max_tokens was {self.max_tokens:,}: the server ignores it"
            if self.max_tokens
            else "no reply needs that much"
        )
        return f"the reply passed {what} and was not read further ({asked})"


_DATA_LINE = re.compile(rb"^data:([^\n]*)", re.MULTILINE)


async def events(blocks: AsyncIterator[bytes], limits: ReplyLimits) -> AsyncIterator[list[bytes]]:
    """The ``data:`` payloads of a server-sent event stream, read within ``limits``: those of
    each block read, together (a list for each block that holds any), as bytes with no white
    space at either end (:func:`chunk_value` reads one).

    Lines are split here rather than by the HTTP client, which would hold a line that never
    ends in memory whole. After ``[DONE]`` a little more is read, so that the connection can
    be used again, but never much.
    """
    buffer = bytearray()
    received = 0
    done_at: int | None = None
    async for block in blocks:
        received += len(block)
        if done_at is not None:
            if received - done_at > 65536:
                return
            continue
        if received > limits.bytes:
            raise Failure("too_large", limits.too_long(f"{limits.bytes:,} bytes"), retryable=False)
        if not buffer and block.endswith(b"\n"):
            lines = block  # whole lines, as a server's events mostly come: nothing to keep
        else:
            buffer += block
            end = buffer.rfind(b"\n") + 1  # the whole lines in the buffer end here
            lines = bytes(buffer[:end])
            del buffer[:end]
        # A regular expression finds the data lines: looked at one by one in Python, lines
        # with no data (a few bytes each, or none) would cost seconds a megabyte.
        payloads = [found.strip() for found in _DATA_LINE.findall(lines)]
        if b"[DONE]" in payloads:
            del payloads[payloads.index(b"[DONE]") :]
            done_at = received
        if payloads:
            yield payloads
        if done_at is not None:
            buffer.clear()
        elif len(buffer) > limits.line:
            raise Failure(
                "too_large",
                limits.too_long(f"{limits.line:,} bytes in one line"),
                retryable=False,
            )


_SCAN: Callable[[str, int], tuple[Any, int]]
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def json_value(text: str) -> Any:
    """``json.loads(text)`` for a text with no white space at either end (a ``data:``
    payload, stripped), without the three Python layers ``json.loads`` puts over the
    decoder's C scanner: the same values, and the same errors."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration as err:
        raise json.JSONDecodeError("Expecting value", text, err.value) from None
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def chunk_value(data: bytes) -> Any:
    """The JSON value of a ``data:`` payload (``data``, stripped), as :func:`json_value`
    reads it once decoded as UTF-8 (a bad byte read as U+FFFD): the same values, and the
    same errors.

    A reply's every chunk is read here (fifty a call, and most of a call's CPU time was
    reading them): jiter (the openai client's own JSON reader) reads one in a third of the
    time, and reads the same values where it reads one; what it does not read (JSON it
    refuses, and some Python's decoder takes: a lone surrogate, a bad UTF-8 byte, deep
    nesting) is read by :func:`json_value`, which says what is wrong as before."""
    if QUICK_READER is not None:
        try:
            return QUICK_READER(data)
        except ValueError:
            pass
    return json_value(data.decode("utf-8", errors="replace"))


QUICK_READER: Callable[[bytes], Any] | None = None
"""jiter's reader of JSON (None where it is not installed): :func:`chunk_value` reads with
it first, and so may a reader of many chunks that calls it itself."""
with contextlib.suppress(ImportError):  # (a release of the openai client without it)
    from jiter import from_json as QUICK_READER


_USAGE_CEILING = 10**12  # tokens: more than any call has used, and safe as a float


def usage_of(value: object) -> tuple[Usage | None, bool]:
    """Token usage as the server reported it (None when it did not), and whether what it
    reported made sense: counts must be whole, finite, non-negative numbers."""
    if value is None:
        return None, True
    if not isinstance(value, Mapping):
        return None, False
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        count = value.get(name, 0)
        if count is None:
            count = 0
        if isinstance(count, float) and math.isfinite(count) and count.is_integer():
            count = int(count)
        if type(count) is not int or not 0 <= count <= _USAGE_CEILING:
            return None, False
        counts.append(count)
    if not any(counts):
        return None, True
    return Usage(counts[0], counts[1]), True
