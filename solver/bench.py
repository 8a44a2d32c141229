"""Benchmarks: run methods over a set of hands and tabulate them as the papers do.

Success follows ToT's definition: the method's first (and only) answer must use the four input
numbers once each and equal 24 exactly (checked through ``puzzles.arith``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from puzzles.game24 import Hand
from solver.domains.base import Domain
from solver.events import (
    DeliberationEnded,
    DialogueStopped,
    EpisodeEnded,
    ErrorRaised,
    ExperienceAdded,
    FallbackDecided,
    IterationStarted,
    RunFinished,
    SolutionFound,
    TurnAnswered,
)
from solver.methods import METHODS, Method, run_method
from solver.model import Model
from solver.model.adaptive import concurrency_of
from solver.roles import Role

__all__ = ["BenchResult", "PuzzleResult", "run_bench"]


@dataclass(frozen=True, slots=True)
class PuzzleResult:
    """One method on one hand."""

    hand: str
    solved: bool
    answer: str | None
    calls: int
    tokens: int
    cost: float | None
    wall_time: float
    rounds: int
    error: str = ""  # why the run did not complete ("kind: message"); empty when it did
    solved_by_iteration: tuple[bool, ...] = ()  # BoT: the aggregated chain of each iteration
    error_kind: str = ""  # the model error's kind (solver.model.ModelError), when one ended it
    stopped_at: int = 0  # IoT: the turn the dialogue ended at (0: not a dialogue)
    stopped_by: str = ""  # IoT: guide / answerer / cap / fixed; ReAct, DELI: their events' `by`
    letter: float | None = None  # crosswords: share of letters right (ToT's measures)
    word: float | None = None  # crosswords: share of words right
    samples: int = 0  # IO / CoT / CoT-SC: the samples drawn (0: not a sampling baseline)
    samples_solved: int = 0  # of those, the samples whose own answer passes the exact check

    @property
    def completed(self) -> bool:
        """Whether the run ended with an answer of its own rather than an error."""
        return not self.error

    def to_json(self) -> dict[str, Any]:
        """Every field, as JSON values (a results file's record holds them)."""
        data = dataclasses.asdict(self)
        data["solved_by_iteration"] = list(self.solved_by_iteration)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PuzzleResult:
        """The result :meth:`to_json` wrote; :class:`ValueError` naming the first field that
        is missing or of the wrong type (the data comes from a file anyone can edit)."""
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                if f.default is dataclasses.MISSING:
                    raise ValueError(f"the field {f.name!r} is missing")
                continue
            values[f.name] = _checked(f.name, data[f.name], _FIELD_TYPES[f.name])
        values["solved_by_iteration"] = tuple(values.get("solved_by_iteration", ()))
        return cls(**values)


_FIELD_TYPES: dict[str, str] = {
    "hand": "str",
    "solved": "bool",
    "answer": "str?",
    "calls": "count",
    "tokens": "count",
    "cost": "number?",
    "wall_time": "number",
    "rounds": "count",
    "error": "str",
    "solved_by_iteration": "bools",
    "error_kind": "str",
    "stopped_at": "count",
    "stopped_by": "str",
    "letter": "number?",
    "word": "number?",
    "samples": "count",
    "samples_solved": "count",
}


def _checked(name: str, value: Any, kind: str) -> Any:
    """``value`` when it is of ``kind`` (see :data:`_FIELD_TYPES`), else ValueError."""
    if kind.endswith("?"):
        if value is None:
            return None
        kind = kind[:-1]
    ok = {
        "str": isinstance(value, str),
        "bool": isinstance(value, bool),
        "count": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
        "number": isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0,
        "bools": isinstance(value, list) and all(isinstance(v, bool) for v in value),
    }[kind]
    if not ok:
        wanted = {
            "str": "text",
            "bool": "true or false",
            "count": "a whole number of at least 0",
            "number": "a number of at least 0",
            "bools": "a list of true and false",
        }[kind]
        raise ValueError(f"the field {name!r} is not {wanted}")
    return float(value) if kind == "number" else value


@dataclass
class BenchResult:
    """One method over the whole set."""

    method: str
    config: dict[str, Any]
    puzzles: list[PuzzleResult] = field(default_factory=list)
    wall_time: float = 0.0
    concurrency: dict[str, int] | None = None
    """The model's concurrency limit when the runs ended (``limit``, ``maximum`` and how
    many times it came down, ``decreases``); None for a model without one (offline)."""

    @property
    def n(self) -> int:
        return len(self.puzzles)

    @property
    def solved(self) -> int:
        return sum(p.solved for p in self.puzzles)

    @property
    def completed(self) -> int:
        """Runs that ended with an answer of their own (no error ended them)."""
        return sum(p.completed for p in self.puzzles)

    @property
    def success_rate(self) -> float:
        """Solved over every run, failed runs counted as not solved (ToT's rule)."""
        return self.solved / self.n if self.n else 0.0

    @property
    def completed_success_rate(self) -> float | None:
        """Solved over the runs that completed; ``None`` when none did."""
        return self.solved / self.completed if self.completed else None

    def mean(self, attr: str) -> float:
        return sum(getattr(p, attr) for p in self.puzzles) / self.n if self.n else 0.0

    @property
    def cost(self) -> float | None:
        if any(p.cost is None for p in self.puzzles):
            return None
        return sum(p.cost or 0.0 for p in self.puzzles)

    @property
    def errors(self) -> int:
        return sum(bool(p.error) for p in self.puzzles)

    def cumulative_by_iteration(self) -> list[float]:
        """Share of hands solved by an aggregated chain at or before each iteration."""
        width = max((len(p.solved_by_iteration) for p in self.puzzles), default=0)
        out = []
        for i in range(width):
            hits = sum(any(p.solved_by_iteration[: i + 1]) for p in self.puzzles)
            out.append(hits / self.n)
        return out

    def success_by_iteration(self) -> list[float]:
        """Share of hands whose aggregated chain of each iteration solves them (that
        iteration alone, not cumulative: it can fall as well as rise); a run that ended
        early keeps its last chain."""
        width = max((len(p.solved_by_iteration) for p in self.puzzles), default=0)
        out = []
        for i in range(width):
            hits = sum(
                bool(p.solved_by_iteration)
                and p.solved_by_iteration[min(i, len(p.solved_by_iteration) - 1)]
                for p in self.puzzles
            )
            out.append(hits / self.n)
        return out

    def sampled(self) -> int:
        """IO / CoT / CoT-SC: the most samples drawn for one hand (k); 0 for other methods."""
        return max((p.samples for p in self.puzzles), default=0)

    def sample_mean(self) -> float | None:
        """Success averaged over each hand's samples, then over the hands (ToT's IO 7.3 %
        and CoT 4.0 % are this over 100 samples); a run that failed counts 0. None for
        methods that draw no samples."""
        if not self.sampled():
            return None
        return sum(p.samples_solved / p.samples if p.samples else 0.0 for p in self.puzzles) / (
            self.n
        )

    def sample_figures(self) -> dict[str, Any]:
        """IO / CoT / CoT-SC: ``samples`` (k), ``sample_mean`` and ``best_of_k``; empty for
        methods that draw no samples."""
        if not self.sampled():
            return {}
        return {
            "samples": self.sampled(),
            "sample_mean": self.sample_mean(),
            "best_of_k": self.best_of_k(),
        }

    def best_of_k(self) -> float | None:
        """The oracle: the share of hands where any of the k samples was right (ToT's
        best-of-100 rows, IO 33 % and CoT 49 %). None for methods that draw no samples."""
        if not self.sampled():
            return None
        return sum(p.samples_solved > 0 for p in self.puzzles) / self.n

    def stops(self) -> dict[int, int]:
        """IoT: how many runs ended their dialogue at each turn (turn -> runs), in order."""
        counts: dict[int, int] = {}
        for p in self.puzzles:
            if p.stopped_at:
                counts[p.stopped_at] = counts.get(p.stopped_at, 0) + 1
        return dict(sorted(counts.items()))

    def stopped_by(self) -> dict[str, int]:
        """IoT: how many dialogues each reason ended (guide, answerer, cap, fixed)."""
        counts: dict[str, int] = {}
        for p in self.puzzles:
            if p.stopped_by:
                counts[p.stopped_by] = counts.get(p.stopped_by, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "config": self.config,
            "puzzles": self.n,
            "success_rate": self.success_rate,
            "completed_success_rate": self.completed_success_rate,
            "solved": self.solved,
            "completed": self.completed,
            "mean_calls": self.mean("calls"),
            "mean_tokens": self.mean("tokens"),
            "cost": self.cost,
            "mean_wall_time": self.mean("wall_time"),
            "wall_time": self.wall_time,
            "errors": self.errors,
            "cumulative_by_iteration": self.cumulative_by_iteration(),
            "success_by_iteration": self.success_by_iteration(),
            "stops": {str(k): v for k, v in self.stops().items()},
            "stopped_by": self.stopped_by(),
            **self.sample_figures(),
            **self.measures(),
            **({"concurrency": self.concurrency} if self.concurrency is not None else {}),
        }

    def measures(self) -> dict[str, float]:
        """Crosswords: ToT's ``letter``, ``word`` and ``game`` success as fractions of 1
        (means over the runs; a failed run scores 0); empty for kinds without them."""
        if not self.puzzles or all(p.letter is None for p in self.puzzles):
            return {}
        return {
            "letter": sum(p.letter or 0.0 for p in self.puzzles) / self.n,
            "word": sum(p.word or 0.0 for p in self.puzzles) / self.n,
            "game": self.success_rate,
        }


def _kind_domain(kind: str) -> Callable[[Any], Domain[Any, Any]]:
    """How a puzzle of ``kind`` becomes the domain its runs play, from the kinds catalogue."""
    from solver.kinds import KINDS

    return KINDS[kind].make_domain


def _learns(method: Method) -> bool:
    """Whether a method's rounds each end in an analysed chain (BoT: its ``analyze`` role)."""
    spec = METHODS.get(method.name)
    return spec is not None and Role.ANALYZE in spec.roles


async def run_one(
    method: Method,
    hand: Hand,
    model: Model,
    seed: int | None,
    deadline: float | None = None,
    guide_model: Model | None = None,
    domain_for: Callable[[Any], Domain[Any, Any]] | None = None,
    kind: str = "game24",
) -> PuzzleResult:
    finish: RunFinished | None = None
    error = error_kind = ""
    by_iteration: list[bool] = []
    stopped_at, stopped_by = 0, ""
    iteration = found_in = 0  # the round under way; the round that first found an answer
    domain = (domain_for or _kind_domain(kind))(hand)
    async for event in run_method(
        method,
        domain,
        model,
        seed=seed,
        record_prompts=False,
        deadline=deadline,
        guide_model=guide_model,
    ):
        if isinstance(event, RunFinished):
            finish = event
        elif isinstance(event, ErrorRaised) and event.fatal:
            error, error_kind = f"{event.kind}: {event.message}", event.kind
        elif isinstance(event, ExperienceAdded):
            by_iteration.append(event.chain_ok)
        elif isinstance(event, IterationStarted):
            iteration = event.iteration
        elif isinstance(event, SolutionFound) and not found_in:
            found_in = iteration
        elif isinstance(event, TurnAnswered):  # IoT: each turn's answer, checked exactly
            if event.turn > len(by_iteration):
                by_iteration.append(event.ok)
        elif isinstance(event, DialogueStopped):
            stopped_at, stopped_by = event.turn, event.by
        elif isinstance(event, EpisodeEnded | DeliberationEnded):  # ReAct / DELI: why it ended
            if stopped_by != "fallback":  # a fallback's own ending is not the run's reason
                stopped_by = event.by
        elif isinstance(event, FallbackDecided):  # ReAct + CoT-SC: whether it fell back
            stopped_by = "fallback" if event.taken else "no fallback"
    assert finish is not None
    if finish.solved and _learns(method) and 0 < found_in == len(by_iteration) + 1:
        # Stopped early: the iteration that found the answer ended before its analysis, so no
        # experience entry marks it; it counts as solved (and every later one, by carrying).
        by_iteration.append(True)
    # A kind with more measures than solved or not (crosswords: letters and words right).
    measures = getattr(domain, "measures", None)
    scores = measures(finish.answer) if callable(measures) else {}
    return PuzzleResult(
        str(hand),
        finish.solved,
        finish.answer,
        finish.calls,
        finish.tokens,
        finish.cost,
        finish.wall_time,
        finish.rounds,
        error,
        tuple(by_iteration),
        error_kind,
        stopped_at,
        stopped_by,
        scores.get("letter"),
        scores.get("word"),
        finish.samples,
        finish.samples_solved,
    )


async def run_bench(
    methods: Sequence[Method],
    hands: Sequence[Hand],
    model_for: Callable[[], Model],
    *,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
    deadline: float | None = None,
    guide_model_for: Callable[[], Model] | None = None,
    select: Callable[[Method, int], bool] | None = None,
    on_result: Callable[[Method, int, PuzzleResult], None] | None = None,
    domain_for: Callable[[Any], Domain[Any, Any]] | None = None,
    kind: str = "game24",
) -> list[BenchResult]:
    """Run every method on every hand; ``jobs`` hands run at once per method. A run still
    going after ``deadline`` seconds is stopped (and counted as errored). ``guide_model_for``
    builds a second model for guiding roles (IoT's inner dialogue agent).

    ``select(method, index)`` says which hands to run (all when None): a shard, or what a
    results file does not hold yet. A hand's seed is ``seed`` plus its index in ``hands``,
    whichever others run beside it, so a run split into shards or resumed gives the results
    of one run over the whole set. ``on_result(method, index, result)`` is called as each
    run ends. Each method's result holds the runs made here, in the order of ``hands``.

    ``hands`` are puzzles of ``kind`` (a name in :data:`solver.kinds.KINDS`), each played
    through the domain its kind makes of it, or through ``domain_for`` when given."""
    domain_for = domain_for or _kind_domain(kind)
    results = []
    for method in methods:
        chosen = [(i, hand) for i, hand in enumerate(hands) if select is None or select(method, i)]
        if not chosen:
            results.append(BenchResult(method.name, method.config_dict()))
            continue
        model = model_for()
        guide = guide_model_for() if guide_model_for is not None else None
        start = time.perf_counter()
        puzzles = await _run_set(
            method, chosen, model, seed, jobs, progress, deadline, guide, on_result, domain_for
        )
        await model.aclose()
        if guide is not None:
            await guide.aclose()
        result = BenchResult(method.name, method.config_dict(), puzzles)
        result.wall_time = time.perf_counter() - start
        shown = concurrency_of(model)
        result.concurrency = shown.to_json() if shown is not None else None
        results.append(result)
    return results


async def _run_set(
    method: Method,
    hands: Sequence[tuple[int, Hand]],
    model: Model,
    seed: int | None,
    jobs: int,
    progress: Callable[[str, int, int], None] | None,
    deadline: float | None = None,
    guide_model: Model | None = None,
    on_result: Callable[[Method, int, PuzzleResult], None] | None = None,
    domain_for: Callable[[Any], Domain[Any, Any]] | None = None,
) -> list[PuzzleResult]:
    limit = asyncio.Semaphore(max(1, jobs))
    done = 0

    async def one(index: int, hand: Hand) -> PuzzleResult:
        nonlocal done
        async with limit:
            res = await run_one(
                method,
                hand,
                model,
                None if seed is None else seed + index,
                deadline,
                guide_model,
                domain_for,
            )
        done += 1
        if on_result is not None:
            on_result(method, index, res)
        if progress is not None:
            progress(method.name, done, len(hands))
        return res

    return list(await asyncio.gather(*(one(i, h) for i, h in hands)))
