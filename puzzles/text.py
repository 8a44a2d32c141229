"""Outside text made safe to show: control characters become visible escapes.

Text ponder did not write itself — model replies, server messages, puzzle files, traces — may
hold characters a terminal obeys instead of showing: ESC starts sequences that set the window
title or clear the screen, C1 characters (U+0080-U+009F) do the same on some terminals, a
carriage return overwrites the line, and bidirectional overrides reorder what follows.
:func:`visible` is applied to such text where it is shown; the text itself (in a trace, in
``--json``) stays as it came.

The convention: each such character is shown as its Python escape, ``\\x1b`` for ESC,
``\\x07`` for BEL, ``\\x7f`` for DEL, ``\\x9b`` for CSI, ``\\u202e`` for RIGHT-TO-LEFT
OVERRIDE, so the person sees that something was there and what it was. Newline and tab are
kept; a CR LF pair is shown as a newline (servers and files on Windows end lines so).
"""

from __future__ import annotations

import json
import re

__all__ = ["CONTROL_CHARACTERS", "clip_text", "json_line", "visible", "whole_lines"]

_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))

CONTROL_CHARACTERS = frozenset(
    chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0), *_BIDI) if chr(c) not in "\n\t"
)
"""The characters :func:`visible` replaces: C0 but newline and tab, DEL, C1, bidi overrides."""

_SHOWN = {
    ord(c): f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in CONTROL_CHARACTERS
}
# JSON escapes C0 itself; these are the ones json.dumps(ensure_ascii=False) leaves raw.
_JSON_ESCAPED = {ord(c): f"\\u{ord(c):04x}" for c in CONTROL_CHARACTERS if ord(c) >= 0x20}


def visible(text: str) -> str:
    """``text`` with every control character replaced by its visible escape (see above)."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return text.translate(_SHOWN)


def json_line(value: object, *, indent: int | None = None) -> str:
    """``value`` as JSON that is safe to print: non-ASCII text stays readable, but DEL, C1
    and bidi overrides are written as ``\\u`` escapes (``json.dumps`` already escapes C0), so
    the JSON reads back exactly and no terminal acts on it."""
    return json.dumps(value, ensure_ascii=False, indent=indent).translate(_JSON_ESCAPED)


def whole_lines(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, ending where a line ends: the line the
    limit would cut through is left out whole. Read in part, a line may say something it
    does not (``8 / 8 = 12`` cut to ``8 / 8 = 1``); a verdict on it would be on words the
    model never wrote."""
    if len(text) <= limit:
        return text
    if text[limit] in "\r\n":
        return text[:limit]
    return text[: text.rfind("\n", 0, limit) + 1]


_SENTENCE_END = re.compile(r"[.!?;:](?=\s)|\n")


def clip_text(text: str, limit: int) -> str:
    """``text`` kept to ``limit`` characters, ending where a sentence ends, then ``…``:
    its arithmetic is read later (``8 / 8 = 12`` must not end up as ``8 / 8 = 1``, nor
    ``8 / 8 = 12 + 3`` as ``8 / 8 = 12``), and what precedes the end of a sentence reads the
    same in the clipped text as in the whole. A text with no sentence end in reach keeps
    nothing but the ``…``."""
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit - 2)]
    return (text[: ends[-1]].rstrip() + " …").lstrip() if ends else "…"
