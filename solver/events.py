"""Events: everything a method reports, as small frozen dataclasses on one async stream.

The TUI, the headless CLI, the trace writer and the tests are all consumers of this stream.
Each event converts to and from a plain JSON object (``to_json`` / ``event_from_json``) with a
``type`` field, so traces replay into the same consumers.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ChainAggregated",
    "ClaimVerified",
    "ErrorRaised",
    "Event",
    "ExperienceAdded",
    "IterationStarted",
    "LeafReached",
    "ModelCalled",
    "ParseFailed",
    "RunFinished",
    "RunStarted",
    "SolutionFound",
    "ThoughtAdded",
    "ThoughtPruned",
    "ThoughtScored",
    "TokensUsed",
    "TreeStarted",
    "event_from_json",
    "event_to_json",
]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event. ``t`` is seconds since the run started."""

    t: float = field(default=0.0, kw_only=True)


@dataclass(frozen=True, slots=True)
class RunStarted(Event):
    method: str
    puzzle: str
    kind: str  # puzzle kind: "game24", ...
    model: str
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IterationStarted(Event):
    """A new round: a BoT iteration, a ToT step, a CoT-SC sample batch."""

    iteration: int
    total: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class TreeStarted(Event):
    """A new thought tree (BoT: one of the M trees of an iteration, with its own sampling)."""

    tree_id: str
    strategy: str
    temperature: float
    top_p: float


@dataclass(frozen=True, slots=True)
class ThoughtAdded(Event):
    """A node in a thought tree. ``tree_id`` groups nodes of one tree (BoT: ``i2.t7``)."""

    tree_id: str
    node_id: str
    parent_id: str | None
    text: str
    depth: int = 0
    state: str = ""  # the puzzle state after this thought, e.g. "left: 4 6"
    call_id: int | None = None  # the ModelCalled event that produced it


@dataclass(frozen=True, slots=True)
class ThoughtScored(Event):
    node_id: str
    score: float
    edge_score: float | None = None
    samples: tuple[str, ...] = ()  # raw evaluator labels, e.g. ("likely", "sure", "likely")
    call_id: int | None = None


@dataclass(frozen=True, slots=True)
class ThoughtPruned(Event):
    node_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class LeafReached(Event):
    node_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SolutionFound(Event):
    """A thought whose state reaches the goal, checked exactly."""

    node_id: str
    answer: str


@dataclass(frozen=True, slots=True)
class ChainAggregated(Event):
    iteration: int
    strategy: str
    node_ids: tuple[str, ...]
    steps: tuple[str, ...]
    score: float


@dataclass(frozen=True, slots=True)
class ClaimVerified(Event):
    """An arithmetic claim from a thought, re-checked exactly through ``puzzles.arith``."""

    node_id: str | None
    expression: str
    claimed: str
    exact: str | None
    status: str  # exact / approx / wrong / invalid
    ok: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ExperienceAdded(Event):
    iteration: int
    chain: tuple[str, ...]
    report: str
    advice: tuple[str, ...]
    confidence: float | None
    verdict: str = ""  # the exact check of the chain beside the LLM's opinion
    chain_ok: bool = False  # the chain reaches the target exactly
    verdicts: tuple[str, ...] = ()  # recommend / reject per step


@dataclass(frozen=True, slots=True)
class ModelCalled(Event):
    """One call to the model, with the prompt and replies, for "where did this come from"."""

    call_id: int
    purpose: str
    prompt: str
    replies: tuple[str, ...]
    temperature: float
    top_p: float
    cached: bool = False
    latency: float = 0.0


@dataclass(frozen=True, slots=True)
class ParseFailed(Event):
    purpose: str
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class TokensUsed(Event):
    """Running totals for the run so far."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


@dataclass(frozen=True, slots=True)
class ErrorRaised(Event):
    kind: str
    message: str
    fatal: bool = False


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    answer: str | None
    solved: bool
    verdict: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    wall_time: float
    reason: str = "done"  # done / solved early / stopped / error
    rounds: int = 0  # model calls on the longest chain of calls that waited on each other

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        RunStarted,
        IterationStarted,
        TreeStarted,
        ThoughtAdded,
        ThoughtScored,
        ThoughtPruned,
        LeafReached,
        SolutionFound,
        ChainAggregated,
        ClaimVerified,
        ExperienceAdded,
        ModelCalled,
        ParseFailed,
        TokensUsed,
        ErrorRaised,
        RunFinished,
    )
}


def event_to_json(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` field."""
    data: dict[str, Any] = {"type": type(event).__name__}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        data[f.name] = list(value) if isinstance(value, tuple) else value
    return data


def event_from_json(data: dict[str, Any]) -> Event:
    """The event a dict from :func:`event_to_json` describes; ``ValueError`` if it is not one."""
    if not isinstance(data, dict):
        raise ValueError("an event must be a JSON object")
    cls = _TYPES.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {cls.__name__} event: {exc}") from exc
