"""Events as plain tuples, for tests that pin a method's run event by event."""

from __future__ import annotations

import dataclasses
from typing import Any

from solver.events import ClaimVerified, Event


def pinned(events: list[Event], kinds: tuple[type[Event], ...]) -> list[tuple[Any, ...]]:
    """The events of ``kinds`` as (name, *fields) without their times; a claim by its node,
    expression and verdict only."""
    out = []
    for e in events:
        if isinstance(e, kinds):
            values = dataclasses.asdict(e)
            values.pop("t")
            values.pop("elapsed", None)
            if isinstance(e, ClaimVerified):
                values = {k: values[k] for k in ("node_id", "expression", "ok")}
            out.append((type(e).__name__, *values.values()))
    return out
