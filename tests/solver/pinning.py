"""Helpers for tests that pin a method's run: events as plain tuples, a tool that records its
limits."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from solver.domains.base import ToolResult
from solver.events import ClaimVerified, Event
from solver.roles import Purpose, Role


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


async def first_bot_steps(domain: Any, experience: str, seeds: int) -> Counter[str]:
    """The first step the offline engine proposes from an empty chain beside ``experience``,
    over ``seeds`` seeds (and as many sample indices), each counted by its text before the
    score."""
    from solver.model import Call, Sampling
    from solver.model.offline import OfflineModel

    out: Counter[str] = Counter()
    for i in range(seeds):
        prompt = domain.prompt(Role.STEP, experience=experience, chain=[])
        call = Call(Purpose.BOT_STEP, prompt, Sampling(0.7, 1.0, 1, 500), {}, sample_offset=i)
        gen = await OfflineModel(seed=i).generate(call)
        out[gen.text.split(",")[0]] += 1
    return out


class WithTools:
    """A domain with other tools: ``tools`` is what a method sees; everything else is the
    domain's own."""

    def __init__(self, domain: Any, tools: tuple[Any, ...]) -> None:
        self.domain, self.tools = domain, tools

    def __getattr__(self, name: str) -> Any:
        return getattr(self.domain, name)


def with_recorded_calculator(domain: Any) -> tuple[Any, Recording]:
    """``domain`` with its first tool (the calculator) wrapped in a :class:`Recording`."""
    calc = Recording(domain.tools[0])
    return WithTools(domain, (calc, *domain.tools[1:])), calc
