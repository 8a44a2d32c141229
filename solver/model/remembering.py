"""A model that remembers every reply it gave, so that the same call asked again (a stopped
run resumed) is answered from memory at no cost, for any engine: the offline engine, a
recorded run or a server without a reply cache of its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable

from solver.model.base import Call, Generation, Model, TokenCallback, Usage

__all__ = ["RememberingModel"]


def _key(call: Call) -> Hashable:
    """What makes two calls the same request: everything a model reads, not the context."""
    messages = tuple((m.role, m.content) for m in call.messages)
    return (call.purpose, messages, call.sampling, call.sample_offset, call.json)


class RememberingModel:
    """``inner`` with a memory of its replies, for as long as this object lives."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name
        self._replies: dict[Hashable, Generation] = {}

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        key = _key(call)
        kept = self._replies.get(key)
        if kept is not None:
            # Nothing was asked: no request, no tokens, no cost.
            return dataclasses.replace(
                kept, cached=True, requests=0, latency=0.0, cost=0.0, usage=Usage()
            )
        gen = await self.inner.generate(call, on_token)
        self._replies[key] = gen
        return gen

    async def aclose(self) -> None:
        await self.inner.aclose()
