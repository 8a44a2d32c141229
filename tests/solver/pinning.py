"""Helpers for tests that pin a method's run: events as plain tuples, a tool that records its
limits."""

from __future__ import annotations

import dataclasses
from typing import Any

from solver.domains.base import ToolResult
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


class Recording:
    """Wraps a tool: records the time limit of each run and reports a fixed time taken."""

    def __init__(self, tool: Any) -> None:
        self.tool, self.name, self.description = tool, tool.name, tool.description
        self.limits: list[float | None] = []

    def __call__(self, argument: str) -> str:
        return self.run(argument).observation

    def run(self, argument: str, limit: float | None = None) -> ToolResult:
        self.limits.append(limit)
        result: ToolResult = self.tool.run(argument, limit)
        return dataclasses.replace(result, elapsed=0.125)
