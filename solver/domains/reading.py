"""Reading structured replies out of real model text: one JSON object among prose."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from puzzles.arith import expression_line
from puzzles.text import clip_text, whole_lines

__all__ = [
    "BULLET",
    "LIST_NUMBER",
    "STEP_HEAD",
    "clip_text",
    "read_json_object",
    "reads_the_same",
    "truthy",
    "unlabelled_answer",
    "whole_lines",
]

LIST_NUMBER = r"\d{1,3}[.)](?!\d)"
"""A list number at the head of a line (``1.``, ``2)``): never the start of a decimal, so
``1.33 + 4 = 5.33`` keeps its ``1.33`` and ``1. 1.5 * 2 = 3`` loses only ``1.``."""

STEP_HEAD = re.compile(rf"^\s*(?:reasoning\s+)?(?:step\s*\d+\s*[:.,)]?|{LIST_NUMBER})\s*", re.I)
"""A step's label at the head of a line (``Step 2:``, ``Reasoning step 3.``, ``2)``)."""
BULLET = r"[-•](?=\s)"
"""A bullet at the head of a line (``- 0.5 * 8 = 4``): a dash followed by a space, never the
sign of a number (``-0.5 * 8``)."""

_SCAN_CHARS = 20_000
_TRIES = 64


def read_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (code fences, prose before and after allowed), or
    None. Bounded: only the first 20,000 characters and 64 opening braces are tried, and
    nesting too deep to read is no object."""
    if not isinstance(text, str):
        return None
    body = text[:_SCAN_CHARS]
    decoder = json.JSONDecoder()
    start = body.find("{")
    tries = 0
    while start >= 0 and tries < _TRIES:
        tries += 1
        try:
            value, _ = decoder.raw_decode(body, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        start = body.find("{", start + 1)
    return None


def truthy(value: object) -> bool:
    """A yes/no field as models write it: ``true``, ``"yes"``, ``"True"``, ``1``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value == 1
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "y", "1", "final", "stop")
    return False


def reads_the_same(read: Callable[[str], object], line: str, value: object) -> bool:
    """Whether ``value``, read from ``line`` that is the kept start of a longer line, would
    read the same without the line's last character, that is, whether it stops short of the
    cut. ``h1. CEDE`` cut from ``h1. CEDES`` reads ``CEDE``, but ``CED`` without its last
    letter: it reached the cut, and is not to be read at all."""
    kept = line.rstrip()
    return bool(kept) and read(kept[:-1]) == value


_EMPHASIS = re.compile(r"\*\*|__|`+")
_LAST_LINE_HEAD = re.compile(rf"^\s*(?:[#>]+\s*|{BULLET}\s*|{LIST_NUMBER}(?=\s))?")


def unlabelled_answer(text: str) -> str | None:
    """The answer of a reply that has no ``Answer:`` line: its last line, made plain, when
    all of that line is arithmetic (``(6 / (9 - 7)) * 8 = 24``, ``$342``; emphasis, a
    bullet or a list number around it allowed). Prose, a step with its remark
    (``3 * 8 = 24 (left: 24)``) or anything else on the last line is no answer: None."""
    if not isinstance(text, str):
        return None
    for line in reversed(whole_lines(text, 20_000).splitlines()):
        bare = _EMPHASIS.sub("", line)
        bare = _LAST_LINE_HEAD.sub("", bare, count=1).strip()
        if bare:
            return expression_line(bare)
    return None
