"""OpenAIModel against a hostile server: secrets, deadlines, floods, unfinished replies, wrong
types, bad usage, bad URLs. Real HTTP on 127.0.0.1 through the real openai client."""

from __future__ import annotations

import asyncio
import base64
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bench import fakeserver
from bench.fakeserver import FakeServer, echo_secret
from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.events import ModelCalled, ParseFailed, RunFinished
from solver.methods import make_method, solve
from solver.model import Call, Generation, Message, ModelError, Sampling, ScriptedModel
from solver.model.openai import (
    OpenAIModel,
    Redactor,
    ReplyLimits,
    StreamRedactor,
    base_url_problem,
)
from solver.roles import Purpose
from solver.settings import Settings, mask_url
from tests.solver.hostile import ANSWER, CANARY, ECHOING_FAULTS, leaks

MASKED = Settings(api_key=CANARY).masked_key()


def domain(hand: str) -> Game24Domain:
    return Game24Domain(Hand.parse(hand))


def call(text: str = "What is 4 * 6?", **sampling: Any) -> Call:
    return Call(Purpose.PROPOSE, (Message("user", text),), Sampling(**sampling))


@pytest.fixture
async def make(fake_server: FakeServer) -> AsyncIterator[Callable[..., OpenAIModel]]:
    """Models pointed at the fake server with the canary key; all closed after the test."""
    made: list[OpenAIModel] = []

    def build(**options: Any) -> OpenAIModel:
        options.setdefault("base_url", fake_server.url)
        options.setdefault("api_key", CANARY)
        options.setdefault("model", "fake-model")
        options.setdefault("backoff_base", 0.001)
        options.setdefault("timeout", 5.0)
        options.setdefault("max_retries", 1)
        model = OpenAIModel(**options)
        made.append(model)
        return model

    yield build
    for model in made:
        await model.aclose()


def test_the_leak_check_finds_what_the_server_echoes() -> None:
    said = echo_secret(f"Bearer {CANARY}")
    assert len(leaks(said)) >= 5  # as written, reversed, hex, base64 alone and as a header
    for form in (CANARY[::-1], CANARY.upper(), CANARY.encode().hex().upper()):
        assert leaks(form[3:40])
    assert leaks(CANARY[5:25])
    assert not leaks("echo 0: What is 4 * 6?")


# -- secrets -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ECHOING_FAULTS)
async def test_no_error_path_shows_the_key(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str
) -> None:
    fake_server.faults.extend([fault] * 3)
    fake_server.chunk_size = 3  # the key is split across many deltas
    seen: list[str] = []
    model = make(on_retry=lambda *info: seen.append(repr(info)))
    deltas: list[str] = []
    try:
        generation = await model.generate(call(n=2), lambda i, d: deltas.append(d))
        seen += [*generation.texts, generation.model, *generation.notes]
    except ModelError as err:
        seen += [err.message, str(err), repr(err), err.kind]
    seen += ["".join(deltas), *deltas, repr(model)]
    assert fake_server.chat_requests[0].headers["authorization"] == f"Bearer {CANARY}"
    assert leaks("\n".join(seen)) == []


async def test_an_echoed_key_is_shown_masked(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("echo_key")
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert MASKED in info.value.message
    assert "[redacted]" in info.value.message  # the base64 forms
    assert info.value.kind == "bad_request"


async def test_a_midstream_error_event_is_a_server_error_without_the_key(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["error_event"] * 2)
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert info.value.kind == "server"
    assert "mid-reply" in info.value.message
    assert MASKED in info.value.message
    assert leaks(info.value.message) == []


async def test_a_key_past_the_cut_of_a_long_message_leaves_no_piece(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The message is cut to 240 characters: were it cut first and scrubbed after, the part of
    # the key before the cut would no longer match the key and would be shown.
    fake_server.faults.append("echo_key")
    padding = "x" * 200
    monkeypatch.setattr(
        fakeserver, "echo_secret", lambda authorization: f"{padding} {authorization} more"
    )
    with pytest.raises(ModelError) as info:
        await make(max_retries=0).generate(call())
    assert padding[:50] in info.value.message
    assert leaks(info.value.message) == []


async def test_a_password_in_the_base_url_is_never_shown(fake_server: FakeServer) -> None:
    password = "pw-canary-9f8e7d6c5b4a"
    url = fake_server.url.replace("http://", f"http://alice:{password}@")
    fake_server.faults.extend(["echo_key", "echo_key_reply"])
    model = OpenAIModel(base_url=url, api_key=CANARY, model="fake-model", max_retries=0)
    try:
        with pytest.raises(ModelError) as info:
            await model.generate(call())
        generation = await model.generate(call())
    finally:
        await model.aclose()
    shown = "\n".join([info.value.message, repr(model), generation.text])
    assert "alice:****@" in info.value.message
    assert leaks(shown, password) == []


def test_redactor_forms_and_pieces() -> None:
    redactor = Redactor([CANARY, "short"], {CANARY: "sk-...0Pi"})
    assert redactor.scrub(f"key {CANARY}!") == "key sk-...0Pi!"
    assert redactor.scrub(f"cut {CANARY[:20]}") == "cut [redacted]"
    assert redactor.scrub("a short word, evaluation") == "a short word, evaluation"
    quoted = urllib.parse.quote(f"k={CANARY}")
    assert leaks(redactor.scrub(quoted)) == []
    for prefix in ("", "B", "Be", "Bearer "):
        encoded = base64.b64encode(f"{prefix}{CANARY}".encode()).decode()
        assert leaks(redactor.scrub(f"echo {encoded} end")) == []
    assert not Redactor(["ollama"])  # placeholder keys are no secrets


def test_a_streamed_key_is_held_back_until_it_can_be_hidden() -> None:
    redactor = Redactor([CANARY])
    text = f"the key is {CANARY} and that is all"
    for size in (1, 3, 7, 50):
        stream = StreamRedactor(redactor)
        out = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
        out.append(stream.flush())
        joined = "".join(out)
        assert leaks(joined) == []
        assert joined == "the key is [redacted] and that is all"


# -- deadlines ---------------------------------------------------------------------------------


async def test_a_trickling_server_is_stopped_at_the_calls_deadline(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    # One delta every 0.2 s never trips the 1 s read timeout: only the deadline ends it.
    fake_server.faults.extend(["trickle:0.2"] * 5)
    model = make(timeout=1.0, max_retries=3, call_deadline=1.0)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    elapsed = time.perf_counter() - start
    assert 0.9 <= elapsed < 1.8
    assert info.value.kind == "timeout"
    assert "deadline of 1 seconds" in info.value.message
    assert len(fake_server.chat_requests) == 1


async def test_the_default_deadline_is_the_retry_budget(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["trickle:0.1"] * 5)
    model = make(timeout=0.4, max_retries=2)
    assert model.call_deadline == pytest.approx(1.2)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert time.perf_counter() - start < 2.0
    assert info.value.kind == "timeout"


async def test_waits_between_retries_count_against_the_deadline(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["500"] * 5)
    model = make(max_retries=4, backoff_base=5.0, call_deadline=1.0)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert time.perf_counter() - start < 1.0  # no 5 s wait for a try that could not finish
    assert info.value.kind == "server"
    assert "another would pass the call's deadline" in info.value.message
    assert len(fake_server.chat_requests) == 1


async def test_a_deadline_spans_retries(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["slow:0.4", "slow:0.4", "slow:0.4", "slow:0.4"])
    model = make(timeout=0.3, max_retries=10, call_deadline=1.0)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await model.generate(call())
    assert time.perf_counter() - start < 1.5
    assert info.value.kind == "timeout"
    assert 2 <= len(fake_server.chat_requests) <= 4


async def test_a_check_of_the_connection_is_bounded_too(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["trickle:0.2"] * 3)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await make(model="not-listed", call_deadline=0.8).check_connection()
    assert time.perf_counter() - start < 1.5
    assert info.value.kind in ("timeout", "unknown_model")


def test_call_deadline_must_be_positive() -> None:
    with pytest.raises(ValueError):
        OpenAIModel(base_url="http://127.0.0.1:9/v1", call_deadline=0)


# -- floods ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["flood", "flood_line"])
async def test_a_flood_is_cut_off_as_an_error_of_the_call(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], fault: str
) -> None:
    fake_server.faults.extend([fault] * 3)
    model = make(max_retries=3)
    start = time.perf_counter()
    with pytest.raises(ModelError) as info:
        await model.generate(call(max_tokens=100))
    assert time.perf_counter() - start < 2.0
    assert info.value.kind == "too_large"
    assert "max_tokens was 100" in info.value.message
    assert len(fake_server.chat_requests) == 1  # a server that ignores max_tokens will again


async def test_a_flood_without_max_tokens_meets_the_ceiling(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.append("flood")
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert info.value.kind == "too_large"
    assert f"{ReplyLimits.CEILING * 16:,} characters" in info.value.message


async def test_a_long_honest_reply_is_not_a_flood(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    text = "word " * 400  # 400 tokens or so, well inside max_tokens=500
    fake_server.reply = lambda request, index: text
    fake_server.chunk_size = 5
    generation = await make().generate(call(max_tokens=500, n=3))
    assert generation.texts == (text,) * 3


async def test_a_huge_error_body_is_not_read_whole(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    fake_server.faults.extend(["huge_error"] * 2)
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert info.value.kind == "server"
    assert "too large to read" in info.value.message
    assert len(info.value.message) < 400


def test_reply_limits_follow_max_tokens() -> None:
    limits = ReplyLimits.of(1000, 2)
    assert limits.tokens == 2064
    assert limits.chars == 16 * 2064
    assert limits.bytes == 2 * 2064 * 1024 + (1 << 20)
    assert ReplyLimits.of(None, 1).tokens == ReplyLimits.CEILING


# -- unfinished replies ------------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["length", "content_filter"])
async def test_unfinished_replies_say_so_and_are_not_cached(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], reason: str
) -> None:
    fake_server.faults.append(reason)
    model = make()
    generation = await model.generate(call())
    assert generation.finish_reasons == (reason,)
    assert generation.cut(0) == reason
    again = await model.generate(call())
    assert again.cached is False  # asked again: it may finish this time
    assert again.finish_reasons == ("stop",)
    assert again.cut(0) is None
    cached = await model.generate(call())
    assert cached.cached is True and cached.finish_reasons == ("stop",)


@pytest.mark.parametrize("name", ["io", "cot", "cot-sc"])
async def test_a_cut_reply_never_becomes_the_answer(name: str) -> None:
    # The text even holds a right answer: cut off, it is still no answer the model gave.
    model = ScriptedModel([ANSWER], finish_reason="length")
    options = {"samples": 3} if name == "cot-sc" else {}
    finish, events = await solve(make_method(name, **options), domain("4 7 8 8"), model)
    assert finish.solved is False
    assert finish.answer is None
    called = [e for e in events if isinstance(e, ModelCalled)]
    assert called and all(e.cut for e in called)
    assert "cut off at the token limit" in called[0].warnings()[0]
    assert not [e for e in events if isinstance(e, ParseFailed) and e.purpose == "answer"]
    if name != "cot-sc":
        assert finish.reason == "reply cut"


async def test_a_finished_reply_still_answers() -> None:
    finish, _ = await solve(make_method("cot"), domain("4 7 8 8"), ScriptedModel([ANSWER]))
    assert finish.solved is True


async def test_the_unfinished_line_of_a_cut_reply_is_not_read() -> None:
    # "4 + 8 = 1" is how "4 + 8 = 12" reads when cut after its first digit.
    model = ScriptedModel(["4 + 8 = 12 (left: 7 8 12)\n4 + 8 = 1"], finish_reason="length")
    _, events = await solve(make_method("cot"), domain("4 7 8 8"), model)
    claims = [e for e in events if type(e).__name__ == "ClaimVerified"]
    assert [getattr(c, "claimed", None) for c in claims] == ["12"]


async def test_tot_takes_no_answer_from_a_cut_reply() -> None:
    def reply(c: Call) -> str:
        if c.purpose == "answer":
            return "Answer: (7 - 8 / 8) * 4"
        if c.purpose == "propose":  # one step fits each state on the way
            return "8 / 8 = 1 (left: 1 4 7)\n7 - 1 = 6 (left: 4 6)\n6 * 4 = 24 (left: 24)"
        return "sure"

    class CutAnswers(ScriptedModel):
        async def generate(self, c: Call, on_token: Any = None) -> Generation:
            gen = await super().generate(c, on_token)
            if c.purpose == "answer":
                return Generation(gen.texts, finish_reasons=("length",) * len(gen.texts))
            return gen

    method = make_method("tot", breadth=1, value_samples=1)
    finish, _ = await solve(method, domain("4 7 8 8"), ScriptedModel(reply))
    assert finish.solved  # the same run, finished replies: solved
    finish, events = await solve(method, domain("4 7 8 8"), CutAnswers(reply))
    assert finish.answer is None
    assert [e.purpose for e in events if isinstance(e, ModelCalled) and e.cut] == ["answer"]


# -- wrong types and bad usage -----------------------------------------------------------------

BAD_CHUNKS = [
    "choices_string",
    "content_number",
    "delta_string",
    "choice_number",
    "chunk_list",
    "finish_number",
]


@pytest.mark.parametrize("what", BAD_CHUNKS)
async def test_a_wrong_typed_chunk_is_a_bad_response_and_retried(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], what: str
) -> None:
    fake_server.faults.append(f"bad_chunk:{what}")
    retries: list[str] = []
    model = make(on_retry=lambda kind, attempt, wait: retries.append(kind))
    generation = await model.generate(call())
    assert generation.text == "echo 0: What is 4 * 6?"
    assert retries == ["bad_response"]


@pytest.mark.parametrize("what", BAD_CHUNKS)
async def test_wrong_typed_chunks_to_the_end_are_a_bad_response(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], what: str
) -> None:
    fake_server.faults.extend([f"bad_chunk:{what}"] * 2)
    with pytest.raises(ModelError) as info:
        await make().generate(call())
    assert info.value.kind == "bad_response"
    assert "2 tries" in info.value.message


@pytest.mark.parametrize(
    "what", ["nan", "infinity", "string", "negative", "huge", "fraction", "list"]
)
async def test_usage_that_is_no_count_is_ignored_with_a_note(
    fake_server: FakeServer, make: Callable[..., OpenAIModel], what: str
) -> None:
    fake_server.faults.append(f"usage:{what}")
    model = make(settings=Settings(prices={"fake-model": (1.0, 1.0)}))
    generation = await model.generate(call())
    assert generation.text == "echo 0: What is 4 * 6?"
    assert generation.requests == 1
    assert [n for n in generation.notes if "token usage" in n and "estimated" in n]
    assert generation.usage.total > 0  # estimated
    assert generation.cost is not None and generation.cost < 1.0


async def test_a_usage_note_reaches_the_run(fake_server: FakeServer) -> None:
    fake_server.faults.extend(["usage:nan"])
    model = OpenAIModel(base_url=fake_server.url, model="fake-model", api_key=CANARY)
    try:
        finish, events = await solve(make_method("io"), domain("4 7 8 8"), model)
    finally:
        await model.aclose()
    [called] = [e for e in events if isinstance(e, ModelCalled)]
    assert called.notes and "token usage" in called.notes[0]
    assert isinstance(finish, RunFinished) and finish.reason == "done"


# -- bad base URLs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[bad", "not a URL"),
        ("localhost:11434/v1", "did you mean http://localhost:11434/v1"),
        ("ftp://example.com/v1", "http:// or https://"),
        ("http:///v1", "no host"),
        ("http://exa mple.com/v1", "spaces"),
        ("http://example.com:99999/v1", "not a URL"),
    ],
)
def test_base_url_problems(url: str, why: str) -> None:
    problem = base_url_problem(url)
    assert problem is not None and why in problem


def test_good_base_urls() -> None:
    for url in ("http://localhost:11434/v1", "https://api.openai.com/v1", "http://[::1]:8080"):
        assert base_url_problem(url) is None
    assert mask_url("http://u:secret@h/v1") == "http://u:****@h/v1"


async def test_a_bad_base_url_fails_at_once_without_retries() -> None:
    retries: list[str] = []
    model = OpenAIModel(
        base_url="http://[bad", api_key=CANARY, on_retry=lambda *info: retries.append("x")
    )
    start = time.perf_counter()
    try:
        with pytest.raises(ModelError) as info:
            await model.generate(call())
    finally:
        await model.aclose()
    assert time.perf_counter() - start < 0.5
    assert info.value.kind == "bad_url"
    assert "http://[bad" in info.value.message and "not a URL" in info.value.message
    assert retries == [] and model.requests == 0


async def test_generation_survives_a_cancelled_deadline_race(
    fake_server: FakeServer, make: Callable[..., OpenAIModel]
) -> None:
    # A call cancelled from outside (Stop) is cancelled, not turned into a timeout.
    fake_server.faults.append("trickle:0.1")
    task = asyncio.ensure_future(make(call_deadline=5.0).generate(call()))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
