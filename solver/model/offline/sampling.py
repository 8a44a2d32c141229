"""How every offline player turns a reply function into a :class:`Generation`."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Callable

from solver.model.base import Call, Generation, TokenCallback, Usage, rough_tokens

__all__ = ["sample_replies"]


async def sample_replies(
    call: Call,
    reply: Callable[[random.Random], str],
    *,
    seed: int,
    name: str,
    delay: float,
    on_token: TokenCallback | None,
) -> Generation:
    """``call.sampling.n`` samples of ``reply``, each with its own seeded generator.

    A sample is a pure function of (seed, prompt, sample index, sampling), so a run is
    reproducible whatever order concurrent calls finish in. The engine yields to the event
    loop first (``delay`` seconds, even 0), so an app stays responsive while it thinks.
    """
    start = time.perf_counter()
    await asyncio.sleep(delay)
    digest = hashlib.blake2b(call.prompt.encode(), digest_size=8).hexdigest()
    texts = []
    for i in range(call.sampling.n):
        rng = random.Random(
            f"{seed}|{digest}|{call.sample_offset + i}|{call.sampling.temperature}"
            f"|{call.sampling.top_p}"
        )
        text = reply(rng)
        texts.append(text)
        if on_token is not None:
            for piece in text.split(" "):
                on_token(i, piece + " ")
    prompt_tokens = sum(rough_tokens(m.content) for m in call.messages)
    usage = Usage(prompt_tokens, sum(rough_tokens(t) for t in texts))
    return Generation(tuple(texts), usage, time.perf_counter() - start, model=name, cost=0.0)
