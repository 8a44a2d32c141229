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

__all__ = ["CONTROL_CHARACTERS", "json_line", "visible"]

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
