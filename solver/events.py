"""Events: everything a method reports, as small frozen dataclasses on one async stream.

The TUI, the headless CLI, the trace writer and the tests are all consumers of this stream.
Each event converts to and from a plain JSON object (``to_json`` / ``event_from_json``) with a
``type`` field, so traces replay into the same consumers.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from solver.model import CUT_REASONS

__all__ = [
    "Backtracked",
    "ChainAggregated",
    "ClaimVerified",
    "DeliberationEnded",
    "DeliberationStage",
    "DemonstrationsRetrieved",
    "DialogueStopped",
    "EpisodeEnded",
    "ErrorRaised",
    "Event",
    "ExperienceAdded",
    "ExperienceCarried",
    "FallbackDecided",
    "FinalAnswered",
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
    "TokensStreamed",
    "TokensUsed",
    "ToolCalled",
    "ToolObserved",
    "TreeStarted",
    "TurnAnswered",
    "TurnGuided",
    "VotesCounted",
    "WordChecked",
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
    approximate: bool = False
    """Written as approximate (``11 / 3 ≈ 3.67``): judged as a rounding, shown with ``≈``."""

    @property
    def mark(self) -> str:
        """✓ exact, ≈ a fair rounding, ✗ wrong, ? unreadable (no verdict, never ✗)."""
        return {"exact": "✓", "approx": "≈", "invalid": "?"}.get(self.status, "✗")

    @property
    def said(self) -> str:
        """The claim as the writer meant it: ``8 / 3 = 2.67``, ``11 / 3 ≈ 3.67``."""
        return f"{self.expression} {'≈' if self.approximate else '='} {self.claimed}"

    @property
    def note(self) -> str:
        """What the exact check adds: ``exactly 8/3``, ``is 56``, or why it is invalid."""
        if self.status == "approx":
            return f"exactly {self.exact}"
        if self.status == "wrong":
            return f"is {self.exact}"
        if self.status == "invalid":
            return self.reason
        return ""


@dataclass(frozen=True, slots=True)
class WordChecked(Event):
    """A crossword word checked exactly against the board it is written on (the crossword's
    verified claim): ✓ it fits its slot and every crossing letter, ✗ it conflicts (``crossing``
    names the crossing clue and the letter it holds there) or cannot be written at all."""

    node_id: str | None
    clue: str  # the clue's name in prompts (``h2``, ``1A``)
    word: str
    pattern: str  # the slot's letters before the word, ``_`` for empty
    ok: bool
    reason: str = ""
    crossing: str = ""  # e.g. ``v3: A``

    @property
    def mark(self) -> str:
        return "✓" if self.ok else "✗"


@dataclass(frozen=True, slots=True)
class Backtracked(Event):
    """A depth-first search leaves a state's subtree and goes back to its parent (ToT DFS)."""

    node_id: str
    parent_id: str | None
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
    entry: str = ""  # the experience entry exactly as the next prompts carry it
    analysis: tuple[str, ...] = ()  # per step: the analysis' error report
    # The entry repeats entry ``repeat_of`` word for word (the same chain and analysis): it
    # is left out of the prompts (``entry`` is then empty); 0 when it is new.
    repeat_of: int = 0


@dataclass(frozen=True, slots=True)
class FinalAnswered(Event):
    """BoT's final prompt (the paper's I^{T+1}, every experience entry in it) answered:
    the answer read from the reply (None: none could be read), its exact check, and the
    call it came from."""

    answer: str | None
    ok: bool
    verdict: str
    call_id: int | None = None


@dataclass(frozen=True, slots=True)
class ExperienceCarried(Event):
    """BoT starts with entries of earlier runs (the experience library), before its first
    iteration: ``entries`` exactly as its prompts carry them, or, in the ablation that keeps
    experience out of the prompts (``kept_out``), as they would have."""

    entries: tuple[str, ...]
    kept_out: bool = False


@dataclass(frozen=True, slots=True)
class TokensStreamed(Event):
    """Text a model has streamed so far for one sample of a call still in flight (sent at
    most about 20 times a second per call, each with the whole text so far, so a consumer
    that drops some loses nothing). Only runs that ask for streaming report these."""

    call_id: int
    purpose: str
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class TurnGuided(Event):
    """IoT: the Inner Dialogue Agent's prompt for one turn, and whether it judged the last
    answer final (its stop flag: shown as advice, it ends no dialogue). ``phase`` is
    ``discuss``; ``first`` for the answerer's own unguided first answer, or ``final`` for
    GIoT's closing answer after the guide spoke first: then there is no guide call and
    ``guidance`` is the fixed request the answerer got instead."""

    turn: int
    total: int
    guidance: str
    stop: bool = False
    phase: str = "discuss"
    call_id: int | None = None


@dataclass(frozen=True, slots=True)
class TurnAnswered(Event):
    """IoT: the LLM Agent's reply to one turn's prompt, its candidate answer checked exactly
    by the domain beside the model's own claim that it is final."""

    turn: int
    reply: str
    answer: str | None
    final: bool  # the model says the answer is final (``answer_to_query``)
    uncertainty: str
    ok: bool  # the exact check of ``answer``
    verdict: str  # the check's reason
    changed: bool  # the answer differs from the last turn's
    prompt_tokens: int = 0  # grows with the transcript
    call_id: int | None = None


@dataclass(frozen=True, slots=True)
class DialogueStopped(Event):
    """IoT: why the dialogue ended: ``answerer`` (the LLMA said its own answer was final,
    its ``iteration_stop``), ``cap`` (AIoT's cap on guided turns) or ``fixed`` (GIoT's N
    answers, the last one final). Traces from before may hold ``guide`` (the IDA's stop flag
    once ended AIoT too)."""

    turn: int
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class ToolCalled(Event):
    """ReAct / DELI: the model's thought and the action it chose at ``step`` (a tool call or
    ``finish``), as read from its reply. ``tool`` is empty for an action that could not be
    read; ``notes`` say what the parser forgave (an invented observation dropped, ...)."""

    step: int
    tool: str
    argument: str
    thought: str = ""
    call_id: int | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolObserved(Event):
    """What came back for the action at ``step``: always produced by code, never by the model.
    ``status`` is ``ok``, ``error`` (the input was refused), ``timeout`` (stopped at the time
    limit), ``crashed`` or ``invalid`` (no such action, or it could not be read); ``value``
    is the exact number computed, when there is one."""

    step: int
    tool: str
    observation: str
    status: str
    value: str | None = None
    elapsed: float = 0.0


@dataclass(frozen=True, slots=True)
class EpisodeEnded(Event):
    """ReAct: why the episode ended: ``finish`` (the model called finish), ``cap`` (the step
    limit), ``invalid`` (too many invalid actions in a row) or ``cut`` (a reply cut off)."""

    step: int
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class FallbackDecided(Event):
    """ReAct -> CoT-SC, CoT-SC -> ReAct: whether the run falls back from the method it ran
    first (``source``) to the other (``target``), and why: ReAct gave no answer within its
    step budget, or CoT-SC's majority answer has fewer than n/2 of the n samples' votes.
    ``taken`` is False when the first method's answer stands."""

    source: str
    target: str
    taken: bool
    reason: str


@dataclass(frozen=True, slots=True)
class VotesCounted(Event):
    """CoT-SC's vote in a combined method: each answer given (as its first sample wrote it)
    with its votes, most first; ``unanswered`` samples gave none; ``samples`` is n."""

    samples: int
    answers: tuple[str, ...]
    counts: tuple[int, ...]
    unanswered: int = 0

    def summary(self) -> str:
        """The vote in one line: ``180 ×12 · 170 ×5 · no answer ×4``."""
        parts = [f"{a} ×{n}" for a, n in zip(self.answers, self.counts, strict=False)]
        if self.unanswered:
            parts.append(f"no answer ×{self.unanswered}")
        return " · ".join(parts) or "no answer"


@dataclass(frozen=True, slots=True)
class DeliberationStage(Event):
    """DELI: one stage of one turn: ``tool`` (the problem as equations, solved by the tools)
    or ``language`` (the solution revised in prose against the tool result), with the answer
    it gave, checked exactly, and whether it changed since the same stage's last turn."""

    turn: int
    total: int
    stage: str
    text: str
    answer: str | None
    ok: bool
    verdict: str
    changed: bool = False
    call_id: int | None = None


@dataclass(frozen=True, slots=True)
class DemonstrationsRetrieved(Event):
    """DELI, before its first solution: the solved problems retrieved as its examples, best
    first (``ids``, ``scores``), each exactly as the prompt shows it (``texts``), and how they
    were found (``retriever``: ``BM25 over 400 generated problems``). Empty when the pool holds
    nothing like the problem; the prompt then carries the domain's fixed examples."""

    retriever: str
    ids: tuple[str, ...]
    scores: tuple[float, ...]
    texts: tuple[str, ...]
    asked: int = 0


@dataclass(frozen=True, slots=True)
class DeliberationEnded(Event):
    """DELI: why the deliberation ended: ``agree`` (the two stages gave the same answer),
    ``converged`` (neither stage changed) or ``cap`` (the turn limit), and which stage's
    answer is the final one (``source``)."""

    turn: int
    by: str
    reason: str
    source: str = "tool"


@dataclass(frozen=True, slots=True)
class ModelCalled(Event):
    """One call to the model, with the prompt and replies, for "where did this come from".

    ``finish_reasons`` holds one reason per reply when the engine tells; a reply cut off at
    the token limit (``length``) or stopped by a content filter (``content_filter``) is
    unfinished: :attr:`cut` lists them, and methods never take an answer from one.
    ``notes`` are things about the call worth telling (usage the server got wrong, say).
    """

    call_id: int
    purpose: str
    prompt: str
    replies: tuple[str, ...]
    temperature: float
    top_p: float
    cached: bool = False
    latency: float = 0.0
    finish_reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def cut(self) -> tuple[tuple[int, str], ...]:
        """(reply index, what happened to it) for every unfinished reply."""
        return tuple(
            (i, CUT_REASONS[reason])
            for i, reason in enumerate(self.finish_reasons)
            if reason in CUT_REASONS
        )

    def warnings(self) -> list[str]:
        """One line per unfinished reply and per note, for people."""
        label = f"call {self.call_id} ({self.purpose})"
        lines = [
            f"reply {i + 1} of {label} was {what}: it gives no answer"
            if len(self.replies) > 1
            else f"the reply to {label} was {what}: it gives no answer"
            for i, what in self.cut
        ]
        return lines + [f"{label}: {note}" for note in self.notes]


@dataclass(frozen=True, slots=True)
class ParseFailed(Event):
    purpose: str
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class TokensUsed(Event):
    """Running totals for the run so far: ``calls`` are the requests made (what is billed);
    ``cached`` the calls answered from the reply cache with no request (a resumed run's)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    cached: int = 0


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
    votes: int = 0  # CoT-SC: the samples that gave the majority answer (0: no vote taken)
    samples: int = 0  # IO / CoT / CoT-SC: the samples drawn (0: not a sampling baseline)
    samples_solved: int = 0  # of those, the samples whose own answer passes the exact check

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        RunStarted,
        IterationStarted,
        TreeStarted,
        TokensStreamed,
        TurnGuided,
        TurnAnswered,
        DialogueStopped,
        ToolCalled,
        ToolObserved,
        EpisodeEnded,
        FallbackDecided,
        VotesCounted,
        DeliberationStage,
        DeliberationEnded,
        DemonstrationsRetrieved,
        ThoughtAdded,
        ThoughtScored,
        ThoughtPruned,
        LeafReached,
        SolutionFound,
        ChainAggregated,
        ClaimVerified,
        WordChecked,
        Backtracked,
        ExperienceAdded,
        ExperienceCarried,
        FinalAnswered,
        ModelCalled,
        ParseFailed,
        TokensUsed,
        ErrorRaised,
        RunFinished,
    )
}


_HINTS: dict[str, dict[str, Any]] = {}


def _hints(cls: type[Event]) -> dict[str, Any]:
    if cls.__name__ not in _HINTS:
        _HINTS[cls.__name__] = typing.get_type_hints(cls)
    return _HINTS[cls.__name__]


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a value read from JSON fits a field's type (a trace may be hand-edited)."""
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_conforms(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if hint is str:
        return isinstance(value, str)
    if origin is tuple:
        args = typing.get_args(hint)
        return isinstance(value, tuple) and all(_conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    return True


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
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if isinstance(value, list):
            value = tuple(value)
        if not _conforms(value, hints[f.name]):
            wanted = getattr(hints[f.name], "__name__", str(hints[f.name]))
            raise ValueError(f"{cls.__name__}.{f.name} should be {wanted}, not {value!r:.40}")
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {cls.__name__} event: {exc}") from exc
