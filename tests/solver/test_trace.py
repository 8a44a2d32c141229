"""Traces: written as JSON lines, read back into the same events, never holding a key."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from puzzles.game24 import Hand
from solver import events as events_module
from solver.domains.game24 import Game24Domain
from solver.events import Event, RunFinished, event_from_json, event_to_json
from solver.methods import make_method, run_method
from solver.model.offline import OfflineModel
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


def event_classes() -> list[type[Event]]:
    """Every event class solver.events defines, found by looking, not by a list."""
    return [
        cls
        for cls in vars(events_module).values()
        if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event
    ]


def sample_value(hint: Any, name: str) -> Any:
    """A value of a field's type that differs from any default (None only where nothing
    else fits)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return sample_value(args[0], name)
    if hint is bool:
        return True
    if hint is int:
        return 7
    if hint is float:
        return 2.5
    if hint is str:
        return f"{name} ✓ «text»"
    if typing.get_origin(hint) is tuple:
        return (sample_value(args[0], name), sample_value(args[0], name + "2"))
    if typing.get_origin(hint) is dict or hint is dict:
        return {"breadth": 5, "growth": ["layer", "leaf"], "nested": {"x": None}}
    raise AssertionError(f"no sample for {name}: {hint!r}; teach this test the new type")


def sample_event(cls: type[Event]) -> Event:
    hints = typing.get_type_hints(cls)
    values = {f.name: sample_value(hints[f.name], f.name) for f in dataclasses.fields(cls)}
    return cls(**values)


def test_every_event_class_is_found() -> None:
    names = {cls.__name__ for cls in event_classes()}
    assert len(names) >= 16 and {"RunStarted", "ModelCalled", "RunFinished"} <= names


@pytest.mark.parametrize("cls", event_classes(), ids=lambda cls: cls.__name__)
def test_every_event_converts_to_json_and_back(cls: type[Event]) -> None:
    event = sample_event(cls)
    for f in dataclasses.fields(cls):  # every field set, none left at its default
        assert getattr(event, f.name) != f.default, f.name
    data = json.loads(json.dumps(event_to_json(event)))
    assert data["type"] == cls.__name__
    back = event_from_json(data)
    assert type(back) is cls and back == event


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
