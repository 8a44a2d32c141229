"""The model seam pinned exactly: token estimates, unfinished replies, ``ModelError`` and the
scripted model every method test is built on (issue 14: mutation testing of solver/model/*).

A method test that scripts replies trusts :class:`ScriptedModel` to hand them out in order,
one per sample, to pad and cut to ``n``, to stream each text under its sample index and to
count tokens as the real engines estimate them. These tests hold it to that.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.model import (
    CUT_REASONS,
    Call,
    Generation,
    Message,
    ModelError,
    Sampling,
    ScriptedModel,
    Usage,
    rough_tokens,
)
from solver.roles import Purpose

ROOT = Path(__file__).resolve().parents[2]


def call(n: int = 1, text: str = "What is 4 * 6?") -> Call:
    return Call(
        Purpose.PROPOSE, (Message("system", "Be terse."), Message("user", text)), Sampling(n=n)
    )


# -- token estimates -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "tokens"),
    [(0, 0), (1, 1), (3, 1), (4, 1), (5, 2), (8, 2), (9, 3), (16, 4), (17, 5), (400, 100)],
)
def test_rough_tokens_is_four_characters_a_token_rounded_up(length: int, tokens: int) -> None:
    assert rough_tokens("x" * length) == tokens


def test_usage_adds_up() -> None:
    total = Usage(3, 5) + Usage(10, 20)
    assert total == Usage(13, 25)
    assert total.total == 38
    assert Usage().total == 0


# -- unfinished replies --------------------------------------------------------------------


def test_cut_looks_at_the_first_text_unless_told() -> None:
    generation = Generation(("half a sent", "done."), finish_reasons=("length", "stop"))
    assert generation.cut() == "length"
    assert generation.cut(0) == "length"
    assert generation.cut(1) is None
    assert generation.cut(2) is None  # no reason given: not known to be cut
    assert Generation(("a",), finish_reasons=("content_filter",)).cut() == "content_filter"
    assert Generation(("a",)).cut() is None
    assert set(CUT_REASONS) == {"length", "content_filter"}


def test_text_is_the_first_sample() -> None:
    assert Generation(("first", "second")).text == "first"
    assert Generation(()).text == ""


# -- ModelError ----------------------------------------------------------------------------


def test_model_error_reads_as_its_message_and_is_final_by_default() -> None:
    err = ModelError("server", "The model server failed.")
    assert str(err) == "The model server failed."
    assert err.args == ("The model server failed.",)
    assert (err.kind, err.message, err.retryable) == ("server", "The model server failed.", False)
    assert err.retryable is False
    again = ModelError("rate_limited", "slow down", retryable=True)
    assert again.retryable is True


# -- the scripted model --------------------------------------------------------------------


async def test_scripted_defaults() -> None:
    model = ScriptedModel(["a"])
    assert model.name == "scripted"
    assert model.delay == 0.0
    generation = await model.generate(call())
    assert generation.model == "scripted"
    assert generation.finish_reasons == ("stop",)
    assert generation.cut() is None
    assert generation.cost is None
    assert generation.cached is False
    assert generation.requests == 1


async def test_scripted_replies_are_handed_out_one_per_sample_in_order() -> None:
    model = ScriptedModel(["a", "b", "c", "d", "e"])
    first = await model.generate(call(n=3))
    second = await model.generate(call(n=3))
    assert first.texts == ("a", "b", "c")
    assert second.texts == ("d", "e", "a")  # round again from the start
    assert [c.sampling.n for c in model.calls] == [3, 3]


async def test_scripted_one_reply_a_call() -> None:
    model = ScriptedModel(["a", "b"])
    assert (await model.generate(call())).text == "a"
    assert (await model.generate(call())).text == "b"
    assert (await model.generate(call())).text == "a"


async def test_scripted_without_replies_answers_empty_texts() -> None:
    generation = await ScriptedModel([]).generate(call(n=3))
    assert generation.texts == ("", "", "")
    assert generation.usage.completion_tokens == 0
    assert generation.finish_reasons == ("stop", "stop", "stop")


async def test_a_scripted_function_is_padded_with_its_last_text_and_cut_to_n() -> None:
    model = ScriptedModel(lambda c: "same")
    assert (await model.generate(call(n=3))).texts == ("same", "same", "same")
    model = ScriptedModel(lambda c: ["x", "y"])
    assert (await model.generate(call(n=4))).texts == ("x", "y", "y", "y")
    assert (await model.generate(call(n=1))).texts == ("x",)
    model = ScriptedModel(lambda c: [])
    assert (await model.generate(call(n=2))).texts == ("", "")
    model = ScriptedModel(lambda c: iter(["p", "q", "r"]))
    assert (await model.generate(call(n=2))).texts == ("p", "q")


async def test_a_scripted_function_sees_the_call() -> None:
    seen: list[Call] = []

    def reply(c: Call) -> str:
        seen.append(c)
        return c.messages[-1].content.upper()

    the_call = call(text="shout")
    generation = await ScriptedModel(reply).generate(the_call)
    assert generation.text == "SHOUT"
    assert seen == [the_call]


async def test_scripted_streams_each_text_under_its_sample_index() -> None:
    streamed: list[tuple[int, str]] = []
    generation = await ScriptedModel(["a", "bb", "ccc"]).generate(
        call(n=3), lambda index, delta: streamed.append((index, delta))
    )
    assert streamed == [(0, "a"), (1, "bb"), (2, "ccc")]
    assert generation.texts == ("a", "bb", "ccc")


async def test_scripted_usage_is_the_rough_estimate_of_prompt_and_texts() -> None:
    the_call = call(n=2, text="x" * 17)  # 5 tokens, "Be terse." 3 tokens
    generation = await ScriptedModel(["y" * 9, "z"]).generate(the_call)
    assert generation.usage == Usage(8, 4)  # 3 + 5 prompt; 3 + 1 completion


async def test_scripted_delay_is_waited_and_is_the_latency() -> None:
    model = ScriptedModel(["a"], delay=0.05)
    start = time.perf_counter()
    generation = await model.generate(call())
    elapsed = time.perf_counter() - start
    assert elapsed >= 0.05
    assert 0.05 <= generation.latency <= elapsed


async def test_scripted_latency_without_delay_is_small() -> None:
    generation = await ScriptedModel(["a"]).generate(call())
    assert 0.0 <= generation.latency < 0.5


async def test_scripted_name_and_finish_reason_are_reported() -> None:
    model = ScriptedModel(["half"], name="gpt-fake", finish_reason="length")
    generation = await model.generate(call(n=2))
    assert generation.model == "gpt-fake"
    assert generation.finish_reasons == ("length", "length")
    assert generation.cut(1) == "length"
    await model.aclose()  # nothing to release; must not fail


def test_a_run_has_few_garbage_collections_and_the_settings_come_back_after() -> None:
    # In a process of its own, as ponder solve and bench run (the suite has frozen its imports).
    script = """
import gc
from solver.model.base import YOUNG_OBJECTS, FROZEN_FOR, few_collections, freeze_once
from tui.cli.solve import run_stoppable

threshold, frozen = gc.get_threshold(), gc.get_freeze_count()

async def settings():
    return gc.get_threshold()[0], gc.get_freeze_count()

young, frozen_in_run = run_stoppable(settings())  # how ponder solve and bench run
assert young == max(threshold[0], YOUNG_OBJECTS), young
assert frozen_in_run > frozen  # what the run started with is out of the passes
assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)
with few_collections():
    assert gc.get_threshold()[0] == max(threshold[0], YOUNG_OBJECTS)
    with few_collections():
        pass
    assert gc.get_freeze_count() > frozen  # an inner run leaves the outer one's frozen
assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)
# An app's start-up froze what it made: a run keeps that frozen, and so does a second app.
freeze_once("start")
started = gc.get_freeze_count()
with few_collections():
    pass
freeze_once("start")
assert gc.get_freeze_count() == started and FROZEN_FOR == {"start"}
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.stdout.strip() == "ok", done.stderr
