"""A remembering model answers a call it has answered before from memory, at no cost."""

from __future__ import annotations

from solver.model import Call, Message, Sampling, ScriptedModel
from solver.model.remembering import RememberingModel
from solver.roles import Purpose


def call(text: str, offset: int = 0) -> Call:
    return Call(
        Purpose.COT, (Message("user", text),), Sampling(0.7, 1.0, 1, 100), sample_offset=offset
    )


async def test_the_same_call_again_comes_from_memory_with_no_request_tokens_or_cost() -> None:
    inner = ScriptedModel(["first", "second", "third"])
    model = RememberingModel(inner)
    one = await model.generate(call("Make 24 from 4 7 8 8."))
    again = await model.generate(call("Make 24 from 4 7 8 8."))
    assert again.texts == one.texts == ("first",) and len(inner.calls) == 1
    assert again.cached and again.requests == 0 and again.cost == 0.0
    assert again.usage.prompt_tokens == again.usage.completion_tokens == 0
    assert not one.cached and one.requests == 1


async def test_another_prompt_or_sample_offset_is_asked_anew() -> None:
    inner = ScriptedModel(["a", "b", "c"])
    model = RememberingModel(inner)
    await model.generate(call("Make 24 from 4 7 8 8."))
    other = await model.generate(call("Make 24 from 1 2 3 4."))
    fresh = await model.generate(call("Make 24 from 4 7 8 8.", offset=1))
    assert (other.texts, fresh.texts) == (("b",), ("c",)) and len(inner.calls) == 3
