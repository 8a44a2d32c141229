"""Reading structured replies out of real model text: one JSON object among prose."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["read_json_object", "truthy"]

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
