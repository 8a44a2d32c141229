"""Traces: written as JSON lines, read back into the same events, never holding a key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.events import RunFinished, event_from_json, event_to_json
from solver.methods import make_method, run_method
from solver.offline import OfflineModel
from solver.trace import TraceError, TraceWriter, read_trace


async def test_a_run_round_trips_through_a_trace(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    written = []
    with TraceWriter(path, {"method": "bot", "api_key": "sk-secret"}) as writer:
        async for event in run_method(
            make_method("bot", iterations=1, trees=2),
            Game24Domain(Hand.parse("4 7 8 8")),
            OfflineModel(),
        ):
            writer.write(event)
            written.append(event)
    header, events = read_trace(path)
    assert header["method"] == "bot" and "api_key" not in header
    assert list(events) == written
    assert isinstance(written[-1], RunFinished)
    assert "sk-secret" not in path.read_text()


def test_every_event_converts_to_json_and_back() -> None:
    fin = RunFinished("1+1", False, "no", 3, 10, 5, None, 0.5, t=1.0)
    assert event_from_json(json.loads(json.dumps(event_to_json(fin)))) == fin


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a ponder trace"),
        (b"hello\n", "not a ponder trace"),
        (b'{"type": "trace", "version": 99}\n', "version 99"),
        (b'{"type": "trace", "version": 1}\n{"type": "Nope"}\n', "line 2: unknown event"),
        (b'{"type": "trace", "version": 1}\n{"type": "RunFinished", "answer": 1}\n', "line 2"),
        (b'{"type": "trace", "version": 1}\n\xff\xfe\n', "line 2"),
        (
            b'{"type": "trace", "version": 1}\n{"type": "ThoughtScored", "node_id": "n1", '
            b'"score": "abc"}\n',
            "line 2: ThoughtScored.score should be float",
        ),
        (
            b'{"type": "trace", "version": 1}\n{"type": "IterationStarted", "iteration": 1, '
            b'"total": 2, "t": "soon"}\n',
            "line 2: IterationStarted.t",
        ),
        (b'{"type": "trace", "version": 1}\n{"type": "ThoughtAdded",\n', "line 2"),
    ],
)
def test_corrupt_traces_name_the_file_and_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TraceError) as info:
        _, events = read_trace(path)
        list(events)
    assert message in str(info.value) and str(path) in str(info.value)


def test_missing_trace_and_folder(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="no such file"):
        read_trace(tmp_path / "none.jsonl")
    with pytest.raises(TraceError, match="is a directory"):
        read_trace(tmp_path)
