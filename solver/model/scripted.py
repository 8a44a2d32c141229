"""A model that replays given texts, for tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence

from solver.model.base import Call, Generation, TokenCallback, Usage, rough_tokens

__all__ = ["ScriptedModel"]


class ScriptedModel:
    """Replays given texts, for tests.

    ``replies`` is either a sequence consumed in order (one text per sample) or a function of
    the call that returns the texts for it. Every call is recorded in ``calls``. Every text
    is reported as finished for ``finish_reason`` (``length`` plays a model cut off).
    """

    def __init__(
        self,
        replies: Sequence[str] | Callable[[Call], Iterable[str] | str],
        *,
        name: str = "scripted",
        delay: float = 0.0,
        finish_reason: str = "stop",
    ) -> None:
        self.name = name
        self.delay = delay
        self.finish_reason = finish_reason
        self.calls: list[Call] = []
        self._replies = replies
        self._index = 0

    def _next(self, call: Call) -> list[str]:
        if callable(self._replies):
            out = self._replies(call)
            texts = [out] if isinstance(out, str) else list(out)
            while len(texts) < call.sampling.n:
                texts.append(texts[-1] if texts else "")
            return texts[: call.sampling.n]
        texts = []
        for _ in range(call.sampling.n):
            if not self._replies:
                texts.append("")
                continue
            texts.append(self._replies[self._index % len(self._replies)])
            self._index += 1
        return texts

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.calls.append(call)
        start = time.perf_counter()
        if self.delay:
            await asyncio.sleep(self.delay)
        texts = self._next(call)
        if on_token is not None:
            for i, text in enumerate(texts):
                on_token(i, text)
        prompt = sum(rough_tokens(m.content) for m in call.messages)
        completion = sum(rough_tokens(t) for t in texts)
        return Generation(
            tuple(texts),
            Usage(prompt, completion),
            time.perf_counter() - start,
            model=self.name,
            cost=None,
            finish_reasons=(self.finish_reason,) * len(texts),
        )

    async def aclose(self) -> None:
        return None
