"""The retry policy of the OpenAI client: how long to wait before trying a call again."""

from __future__ import annotations

import contextlib
import email.utils
import math
import random
import time
from collections.abc import Mapping

__all__ = ["backoff", "retry_after"]


def backoff(
    attempt: int,
    retry_after: float | None,
    *,
    base: float,
    cap: float,
    retry_after_cap: float,
    rng: random.Random,
) -> float:
    """Seconds to wait before retry number ``attempt + 1``.

    A server's own ``Retry-After`` wins (up to ``retry_after_cap``); otherwise ``base``
    doubles per retry up to ``cap``, with jitter so calls that failed together spread out.
    """
    if retry_after is not None:
        return min(max(retry_after, 0.0), retry_after_cap)
    ceiling = min(cap, base * 2.0**attempt)
    return float(ceiling * rng.uniform(0.5, 1.0))


def retry_after(headers: Mapping[str, str]) -> float | None:
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
