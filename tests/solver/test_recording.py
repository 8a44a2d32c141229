"""Recording and replaying model calls: the file format, the matching rule, the replay engine.

A run recorded against the test server replays offline event for event; a call the recording
does not hold is an error naming it and the nearest recorded call; secrets never reach the
file; files that are corrupt, too large or compressed are read (or refused) plainly.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench import llm_replies
from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver import events as ev
from solver.domains.game24 import Game24Domain
from solver.events import event_to_json
from solver.factory import describe_engine, make_model
from solver.methods import make_method, run_method
from solver.model import Call, Generation, Message, ModelError, Sampling, ScriptedModel, Usage
from solver.model import recording as rec_module
from solver.model.openai import OpenAIModel
from solver.model.recording import (
    RecordingError,
    RecordingModel,
    RecordingWriter,
    call_line,
    header_line,
    read_recording,
)
from solver.model.replay import ReplayModel, replay_model
from solver.roles import Purpose
from solver.settings import Settings, SettingsError, load_settings

KEY = "sk-test-recording-0123456789abcdef"


def call(
    text: str = "4 6 8 13",
    purpose: str = "propose",
    *,
    n: int = 1,
    offset: int = 0,
    context: Mapping[str, Any] | None = None,
) -> Call:
    return Call(
        Purpose(purpose),
        (Message("user", f"Input: {text}"),),
        Sampling(n=n),
        context=context if context is not None else {},
        sample_offset=offset,
    )


def reply(*texts: str, latency: float = 0.5, **more: Any) -> Generation:
    return Generation(
        tuple(texts),
        Usage(10, 4 * len(texts)),
        latency,
        model="gpt-test",
        cost=0.004,
        finish_reasons=("stop",) * len(texts),
        **more,
    )


def write(path: Path, lines: Sequence[Mapping[str, Any]], *, model: str = "gpt-test") -> Path:
    head = header_line("gpt-test at https://example.test/v1", model)
    path.write_text("".join(json.dumps(x) + "\n" for x in [head, *lines]), encoding="utf-8")
    return path


def keyed(purpose: str, texts: Sequence[str], **fields: Any) -> dict[str, Any]:
    """An imported line: no prompt, found by its match key alone."""
    return {
        "purpose": purpose,
        "messages": [],
        "reply": {"texts": list(texts)},
        "match": {"purpose": purpose, **fields},
    }


def replayer(path: Path, **options: Any) -> ReplayModel:
    return ReplayModel(read_recording(path), **options)


def without_timing(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events (or trace lines) without the fields that say when they happened."""
    drop = {"t", "wall_time", "created"}
    return [{k: v for k, v in e.items() if k not in drop} for e in events]


async def events_of(model: Any, hand: str = "2 3 4 8", method: str = "tot") -> list[ev.Event]:
    events = [
        e async for e in run_method(make_method(method), Game24Domain(Hand.parse(hand)), model)
    ]
    await model.aclose()
    return events


# --- a real run, recorded and replayed -------------------------------------------------------


async def test_a_run_against_the_test_server_replays_offline_event_for_event(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    with FakeServer(reply=llm_replies.reply) as server:
        # One request at a time: the order calls finish in is the server's, not chance's.
        served = OpenAIModel(base_url=server.url, model="fake-model", concurrency=1)
        recorded = await events_of(RecordingModel(served, path, engine="fake-model at test"))
        asked = len(server.chat_requests)
    replayed = await events_of(replayer(path))
    assert asked > 10  # ToT's proposals and values, several steps deep, in parallel
    assert without_timing([event_to_json(e) for e in replayed]) == without_timing(
        [event_to_json(e) for e in recorded]
    )
    finished = replayed[-1]
    assert isinstance(finished, ev.RunFinished) and finished.reason == "done"


async def test_a_replay_answers_concurrent_calls_in_the_order_they_finished(
    tmp_path: Path,
) -> None:
    # Recorded: b finished before a. Asked together, a first, the replay answers b first.
    path = write(
        tmp_path / "r.jsonl",
        [
            call_line(call("b"), at=0.1, reply=reply("B")),
            call_line(call("a"), at=0, reply=reply("A")),
        ],
    )
    model = replayer(path)
    finished: list[str] = []

    async def ask(text: str) -> None:
        finished.append((await model.generate(call(text))).text)

    await asyncio.gather(ask("a"), ask("b"))
    assert finished == ["B", "A"]


async def test_a_recorded_error_is_raised_again_and_a_cancelled_call_is_not_written(
    tmp_path: Path,
) -> None:
    class Failing:
        name = "failing"

        async def generate(self, call: Call, on_token: object = None) -> Generation:
            if "slow" in call.prompt:
                await asyncio.sleep(30)
            raise ModelError("timeout", "the server took too long")

        async def aclose(self) -> None:
            return None

    path = tmp_path / "r.jsonl"
    model = RecordingModel(Failing(), path)
    with pytest.raises(ModelError):
        await model.generate(call("fast"))
    slow = asyncio.ensure_future(model.generate(call("slow")))
    await asyncio.sleep(0.01)
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    await model.aclose()
    recording = read_recording(path)
    assert [c.error for c in recording.calls] == [
        rec_module.RecordedError("timeout", "the server took too long")
    ]
    with pytest.raises(ModelError) as raised:
        await replayer(path).generate(call("fast"))
    assert (raised.value.kind, raised.value.message) == ("timeout", "the server took too long")


# --- a call the recording does not hold ------------------------------------------------------


async def test_a_replay_missing_a_call_names_it_and_the_nearest_recorded_call(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    await events_of(RecordingModel(ScriptedModel(["4 + 8 = 12 (left: 2 3 12)"]), path))
    events = await events_of(replayer(path), hand="2 3 4 9")
    errors = [e for e in events if isinstance(e, ev.ErrorRaised)]
    assert [(e.kind, e.fatal) for e in errors] == [("not_recorded", True)]
    said = errors[0].message
    assert "holds no reply for the propose call (hand: 2, 3, 4, 9;" in said
    assert "numbers: 2, 3, 4, 9" in said
    assert "nearest recorded: line 2, propose call (hand: 2, 3, 4, 8;" in said
    finished = events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.reason == "error"


async def test_a_call_of_a_purpose_never_recorded_says_what_is_recorded(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(), at=0, reply=reply("x"))])
    with pytest.raises(ModelError) as raised:
        await replayer(path).generate(call(purpose="value"))
    assert raised.value.kind == "not_recorded"
    assert "no value call (it holds: propose)" in raised.value.message


# --- pools: n samples in order ---------------------------------------------------------------


async def test_n_samples_come_from_the_pool_in_recorded_order(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.jsonl",
        [
            call_line(call(n=2), at=0, reply=reply("a1", "a2")),
            call_line(call(n=1), at=1, reply=reply("b1")),
            call_line(call(n=3), at=2, reply=reply("c1", "c2", "c3")),
        ],
    )
    model = replayer(path)
    assert (await model.generate(call(n=1))).texts == ("a1",)  # n is not part of the identity
    spanning = await model.generate(call(n=3))  # the rest of one line, then the next
    assert spanning.texts == ("a2", "b1", "c1")
    assert (await model.generate(call(n=2))).texts == ("c2", "c3")
    with pytest.raises(ModelError) as raised:
        await model.generate(call(n=1))
    assert raised.value.kind == "not_recorded" and "has 0 replies left" in raised.value.message


async def test_too_few_choices_left_says_how_many_were_asked_and_remain(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(n=2), at=0, reply=reply("a1", "a2"))])
    with pytest.raises(ModelError) as raised:
        await replayer(path).generate(call(n=3))
    said = raised.value.message
    assert "has 2 replies left for the propose call" in said and "but 3 were asked for" in said


async def test_a_whole_line_replays_its_figures_and_a_share_splits_them(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(n=3), at=0, reply=reply("a", "b", "c"))])
    whole = await replayer(path).generate(call(n=3))
    assert whole == reply("a", "b", "c")  # as recorded: usage, latency, cost, reasons
    model = replayer(path)
    parts = [await model.generate(call(n=1)) for _ in range(3)]
    assert sum(p.usage.prompt_tokens for p in parts) == 10
    assert sum(p.usage.completion_tokens for p in parts) == 12
    assert sum(p.requests for p in parts) == 1
    assert sum(p.cost or 0 for p in parts) == pytest.approx(0.004)


async def test_the_sample_offset_is_part_of_a_calls_identity(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.jsonl",
        [
            call_line(call(offset=0), at=0, reply=reply("first")),
            call_line(call(offset=1), at=0, reply=reply("second")),
        ],
    )
    model = replayer(path)
    assert (await model.generate(call(offset=1))).text == "second"
    assert (await model.generate(call(offset=0))).text == "first"


# --- the key a recording gives ---------------------------------------------------------------


async def test_a_match_key_compares_a_list_as_a_multiset(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.jsonl",
        [
            keyed("propose", ["p1", "p2"], numbers=["4", "6", "13"]),
            keyed("propose", ["q"], numbers=["4", "4", "6"]),
        ],
    )
    model = replayer(path)

    async def answer(numbers: list[str]) -> tuple[str, ...]:
        context = {"kind": "game24", "numbers": numbers}
        return (await model.generate(call(" ".join(numbers), context=context))).texts

    assert await answer(["13", "4", "6"]) == ("p1",)  # order ignored
    assert await answer(["6", "13", "4"]) == ("p2",)  # the same pool, in order
    assert await answer(["6", "4", "4"]) == ("q",)
    for numbers in (["4", "6", "6"], ["4", "6"], ["4", "6", "13", "13"]):  # counts matter
        with pytest.raises(ModelError, match=r"holds no reply|replies left"):
            await answer(numbers)


async def test_a_match_key_needs_every_field_and_the_purpose(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [keyed("value", ["sure"], numbers=["4", "6"], step=2)])
    model = replayer(path)
    for purpose, context in (
        ("value", {"numbers": ["4", "6"]}),  # step missing
        ("value", {"numbers": ["4", "6"], "step": "2"}),  # a string is not a number
        ("propose", {"numbers": ["4", "6"], "step": 2}),  # another purpose
    ):
        with pytest.raises(ModelError, match="holds no reply"):
            await model.generate(call(purpose=purpose, context=context))
    found = await model.generate(
        call(purpose="value", context={"numbers": ["6", "4"], "step": 2.0})
    )
    assert found.texts == ("sure",)


async def test_the_exact_request_comes_before_a_key_and_a_fuller_key_first(
    tmp_path: Path,
) -> None:
    context = {"numbers": ["4", "6"], "hand": [4, 6, 8, 13]}
    path = write(
        tmp_path / "r.jsonl",
        [
            keyed("propose", ["by numbers"], numbers=["4", "6"]),
            keyed("propose", ["by hand and numbers"], numbers=["4", "6"], hand=[4, 6, 8, 13]),
            call_line(call(context=context), at=0, reply=reply("exact")),
        ],
    )
    model = replayer(path)
    assert (await model.generate(call(context=context))).text == "exact"
    assert (await model.generate(call(context=context))).text == "by hand and numbers"
    assert (await model.generate(call(context=context))).text == "by numbers"


# --- writing: concurrency, sharing, secrets --------------------------------------------------


async def test_calls_finishing_together_each_write_one_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = RecordingModel(ScriptedModel(lambda c: c.prompt * 50, delay=0.001), path)
    second = RecordingModel(ScriptedModel(lambda c: "second " + c.prompt), path)
    await asyncio.gather(*(m.generate(call(str(i))) for i in range(100) for m in (first, second)))
    await first.aclose()
    await second.aclose()
    # A model made later (bench's next method) adds to the file the process started.
    third = RecordingModel(ScriptedModel(["third"]), path)
    await third.generate(call("3"))
    await third.aclose()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert sum('"ponder_recording"' in line for line in lines) == 1
    recording = read_recording(path)
    assert len(recording.calls) == 201
    assert sorted(c.messages[0].content for c in recording.calls) == sorted(
        [f"Input: {i}" for i in range(100)] * 2 + ["Input: 3"]
    )


async def test_the_key_never_reaches_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    password = "pw-0123456789-secret"
    leaky = f"my key is {KEY}, base64 {base64.b64encode(KEY.encode()).decode()}, pw {password}"
    settings = Settings(
        engine="offline",
        api_key=KEY,
        base_url=f"http://me:{password}@127.0.0.1:9/v1",
        record_file=str(tmp_path / "r.jsonl"),
    )
    monkeypatch.setattr("solver.factory.engine_for", lambda *a: ScriptedModel([leaky]))
    model = make_model(settings)
    assert isinstance(model, RecordingModel)
    context = {"note": KEY, KEY: "as a key"}
    await model.generate(Call(Purpose.PROPOSE, (Message("user", leaky),), context=context))
    await model.aclose()
    data = (tmp_path / "r.jsonl").read_bytes()
    assert b"my key is" in data and b"[redacted]" in data
    for secret in (KEY, KEY[8:20], password, base64.b64encode(KEY.encode()).decode()[:12]):
        assert secret.encode() not in data


async def test_the_test_servers_key_stays_out_of_a_recorded_run(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    with FakeServer(reply=llm_replies.reply, api_key=KEY) as server:
        settings = Settings(
            engine="openai",
            base_url=server.url,
            model="fake-model",
            api_key=KEY,
            record_file=str(path),
        )
        events = await events_of(make_model(settings), method="cot")
        server.faults.append("echo_key_reply")
        model = make_model(settings)
        echoed = await model.generate(call("echo"))
        await model.aclose()
    assert isinstance(events[-1], ev.RunFinished) and events[-1].calls == 1
    data = path.read_bytes()
    assert b"bad header Authorization" in data and b"fake-model at http://127.0.0.1" in data
    assert KEY.encode() not in data and KEY[-12:].encode() not in data
    assert KEY not in echoed.text  # the client hid it; the recording holds what it was given


# --- reading: corrupt, too large, compressed -------------------------------------------------


def test_a_corrupt_line_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(), at=0, reply=reply("x"))])
    with path.open("a", encoding="utf-8") as file:
        file.write('{"purpose": "value", "messages": [}\n')
    with pytest.raises(RecordingError) as raised:
        read_recording(path)
    assert str(raised.value).startswith(f"{path}, line 3: is not valid JSON")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"purpose": "value"}, "a call must hold a reply or an error"),
        ({"purpose": "", "reply": {"texts": []}}, "purpose must be the call's purpose"),
        ({"purpose": "value", "reply": {"texts": "sure"}}, "texts must be a list of texts"),
        ({"purpose": "v", "reply": {"texts": ["x"], "usage": {"prompt_tokens": -1}}}, "usage"),
        ({"purpose": "v", "reply": {"texts": []}, "sampling": {"n": 0}}, "n must be"),
        ({"purpose": "v", "reply": {"texts": []}, "match": {"numbers": [1]}}, "match must"),
        ({"purpose": "v", "error": {"message": "no kind"}}, "kind must be"),
        ([1, 2], "a line must be a JSON object"),
    ],
)
def test_a_line_of_the_wrong_shape_says_which_field(tmp_path: Path, line: Any, said: str) -> None:
    path = write(tmp_path / "r.jsonl", [line])
    with pytest.raises(RecordingError, match=said) as raised:
        read_recording(path)
    assert raised.value.line == 2


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "is empty, not a ponder recording"),
        (b'{"type": "trace", "version": 1}\n', "not a ponder recording (no recording header)"),
        (b'{"ponder_recording": 2}\n', "recording version 2 is not supported"),
        (b"\xff\xfe garbage\n", "is not UTF-8 text"),
        (b"not json\n", "is not a ponder recording (is not valid JSON"),
    ],
)
def test_a_file_that_is_no_recording_is_refused_plainly(
    tmp_path: Path, content: bytes, said: str
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=re.escape(said)):
        read_recording(path)


def test_a_recording_too_large_or_with_too_long_a_line_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(), at=0, reply=reply("x" * 5000))])
    monkeypatch.setattr(rec_module, "MAX_RECORDING_LINE", 4096)
    with pytest.raises(RecordingError, match="line 2: has a line longer than 4,096 bytes"):
        read_recording(path)
    monkeypatch.setattr(rec_module, "MAX_RECORDING_BYTES", 2048)
    with pytest.raises(RecordingError, match="is too large"):
        read_recording(path)
    packed = tmp_path / "r.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))  # small packed, too large unpacked
    assert packed.stat().st_size < 2048
    with pytest.raises(RecordingError, match="line 2: is too large once decompressed"):
        read_recording(packed)


def test_a_missing_file_or_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="no such file"):
        read_recording(tmp_path / "none.jsonl")
    with pytest.raises(RecordingError, match="is a directory"):
        read_recording(tmp_path)


async def test_a_gzip_recording_reads_as_the_plain_one_and_a_cut_one_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl.gz"
    model = RecordingModel(ScriptedModel(["one", "two"]), path, engine="scripted")
    await model.generate(call("1"))
    await model.generate(call("2"))
    await model.aclose()
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # written compressed
    recording = read_recording(path)
    assert recording.header.engine == "scripted"
    assert [c.reply.text for c in recording.calls if c.reply] == ["one", "two"]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(RecordingError, match="is not a readable gzip file"):
        read_recording(cut)
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_text('{"ponder_recording": 1}\n', encoding="utf-8")
    with pytest.raises(RecordingError, match="is not a readable gzip file"):
        read_recording(plain)


# --- the replay engine: timing, streaming, settings, factory ---------------------------------


async def test_the_replay_speed_scales_the_recorded_latency(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(), at=0, reply=reply("x", latency=0.4))])
    for speed, least, most in ((0, 0.0, 0.2), (1, 0.4, 5), (4, 0.1, 0.38)):
        start = time.perf_counter()
        await replayer(path, speed=speed).generate(call())
        took = time.perf_counter() - start
        assert least <= took < most, (speed, took)
    with pytest.raises(ValueError, match="speed"):
        replayer(path, speed=-1)


@pytest.mark.parametrize("speed", [0, 50])
async def test_streaming_hears_the_recorded_texts(tmp_path: Path, speed: float) -> None:
    texts = ("first reply, a long one " * 4, "second")
    path = write(tmp_path / "r.jsonl", [call_line(call(n=2), at=0, reply=reply(*texts))])
    heard: dict[int, str] = {}

    def on_token(index: int, delta: str) -> None:
        heard[index] = heard.get(index, "") + delta

    await replayer(path, speed=speed).generate(call(n=2), on_token)
    assert heard == dict(enumerate(texts))


def test_the_replay_settings_are_checked() -> None:
    with pytest.raises(SettingsError, match="needs replay_file"):
        Settings(engine="replay")
    with pytest.raises(SettingsError, match="replay_speed must be 0"):
        Settings(replay_speed=-1)
    with pytest.raises(SettingsError, match="record_file must be a file name"):
        Settings(record_file=" ")
    assert Settings(engine="replay", replay_file="r.jsonl", replay_speed=2).replay_speed == 2


def test_a_config_file_choosing_replay_without_a_file_is_named(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('engine = "replay"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=f"{config}: the replay engine needs replay_file"):
        load_settings(config, env={})
    config.write_text('engine = "replay"\nreplay_file = "r.jsonl"\nreplay_speed = 1\n', "utf-8")
    assert load_settings(config, env={}).replay_file == "r.jsonl"


async def test_the_factory_builds_the_replay_engine_and_describes_it(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [call_line(call(), at=0, reply=reply("x"))])
    settings = Settings(engine="replay", replay_file=str(path), replay_speed=2)
    model = make_model(settings)
    assert isinstance(model, ReplayModel) and model.speed == 2 and model.name == "gpt-test"
    assert describe_engine(settings) == f"replay of {path} (model gpt-test)"
    missing = settings.replace(replay_file=str(tmp_path / "none.jsonl"))
    assert describe_engine(missing) == f"replay of {tmp_path / 'none.jsonl'}"
    broken = replay_model(tmp_path / "none.jsonl")
    with pytest.raises(ModelError) as raised:
        await broken.generate(call())
    assert raised.value.kind == "bad_recording" and "no such file" in raised.value.message


async def test_a_recording_that_cannot_be_written_ends_the_call(tmp_path: Path) -> None:
    model = RecordingModel(ScriptedModel(["x"]), tmp_path)  # a folder
    with pytest.raises(ModelError) as raised:
        await model.generate(call())
    await model.aclose()
    assert raised.value.kind == "bad_recording" and "is a directory" in raised.value.message


async def test_a_recording_removed_between_runs_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    for text in ("first", "second"):
        model = RecordingModel(ScriptedModel([text]), path)
        await model.generate(call(text))
        await model.aclose()
        if text == "first":
            path.unlink()
    recording = read_recording(path)  # a header first, so still a recording
    assert [c.reply.text for c in recording.calls if c.reply] == ["second"]


async def test_a_full_disk_stops_the_run_and_no_call_is_made_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = ScriptedModel(["x"])
    model = RecordingModel(inner, tmp_path / "r.jsonl")

    def full(self: RecordingWriter, line: Mapping[str, Any]) -> None:
        raise RecordingError(self.path, "cannot be written: No space left on device")

    monkeypatch.setattr(RecordingWriter, "write", full)
    for _ in range(2):
        with pytest.raises(ModelError) as raised:
            await model.generate(call())
        assert raised.value.kind == "bad_recording"
        assert "No space left on device" in raised.value.message
    assert len(inner.calls) == 1  # the second call never reached the model
    await model.aclose()
