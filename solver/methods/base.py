"""What every method shares: the run context (calls, accounting, events) and the runner."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import inspect
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from solver.domains.base import ClaimLike, Domain, RolesMissing
from solver.events import (
    ClaimVerified,
    ErrorRaised,
    Event,
    ModelCalled,
    ParseFailed,
    RunFinished,
    RunStarted,
    TokensStreamed,
    TokensUsed,
)
from solver.model import Call, Generation, Model, ModelError
from solver.model.base import counting_requests
from solver.roles import Purpose

__all__ = ["Method", "Outcome", "RunContext", "run_method", "solve"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a method ends with: its answer (an expression) and why it stopped."""

    answer: str | None
    reason: str = "done"
    votes: int = 0  # CoT-SC: the samples that gave this answer
    samples: int = 0  # IO / CoT / CoT-SC: the samples drawn (0: not a sampling baseline)
    samples_solved: int = 0  # of those, the samples whose own answer passes the exact check


class Method(Protocol):
    """A reasoning method: an async producer of events over a domain and a model."""

    name: str

    def config_dict(self) -> dict[str, Any]: ...

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome: ...


_T = TypeVar("_T")

STREAM_INTERVAL = 0.05
"""Seconds between two :class:`TokensStreamed` reports of one sample (about 20 a second)."""

# How many model calls lie on the longest chain of calls that each waited for the one before:
# the run's "sequential rounds". Tasks inherit it; RunContext.gather joins it back.
_rounds: contextvars.ContextVar[int] = contextvars.ContextVar("ponder_rounds", default=0)


class StopRun(Exception):
    """Raised inside a method to end the run early (a solution was verified)."""

    def __init__(self, answer: str | None) -> None:
        super().__init__(answer)
        self.answer = answer


class RunContext:
    """The model and the event sink of one run, with the run's accounting.

    Every model call goes through :meth:`call`, which counts requests, tokens and cost and
    reports a :class:`ModelCalled` and a :class:`TokensUsed` event.
    """

    def __init__(
        self,
        model: Model,
        emit: Callable[[Event], None],
        *,
        seed: int | None = None,
        record_prompts: bool = True,
        guide_model: Model | None = None,
        stream: bool = False,
    ) -> None:
        self.model = model
        self.stream = stream
        """Report :class:`TokensStreamed` while replies arrive (the app shows them live)."""
        self.guide_model = guide_model
        """A second model for guiding roles (IoT's inner dialogue agent); None: ``model``."""
        self._emit = emit
        self.rng = random.Random(seed)
        self.start = time.perf_counter()
        self.calls = 0
        self.cached_calls = 0
        """Calls answered from the reply cache with no request (not among :attr:`calls`)."""
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost: float | None = 0.0
        self.cost_known = True
        self.parse_failures = 0
        self.record_prompts = record_prompts
        self._next_call_id = 0
        self._node_counter = 0
        self.rounds = 0
        self.past_experience: tuple[str, ...] = ()
        """Experience entries of earlier runs that BoT starts with (:mod:`solver.library`)."""
        self.watchers: list[Callable[[Event], None]] = []
        """Called with every event as it is emitted (the library collects BoT's entries)."""

    async def gather(self, *aws: Awaitable[_T]) -> list[_T]:
        """Run independent work concurrently; afterwards this task has waited for the
        longest of them (for the count of sequential rounds)."""

        async def measured(aw: Awaitable[_T]) -> tuple[_T, int]:
            result = await aw
            return result, _rounds.get()

        pending = list(aws)
        tasks = [asyncio.ensure_future(measured(a)) for a in pending]
        try:
            pairs = await asyncio.gather(*tasks)
        except BaseException as exc:
            # One failed (a model error, a verified solution ending the run) or we were
            # cancelled: stop the siblings too, so no call goes on after the run has ended.
            for task in tasks:
                task.cancel()
            # Cancelled, every sibling is already done or cancelled (asyncio.gather waits for
            # its children when it is cancelled; Ctrl-C cancels them all): waiting again would
            # only cost one more pass over thousands of tasks for every level of nesting.
            if not isinstance(exc, asyncio.CancelledError):
                with contextlib.suppress(BaseException):
                    await asyncio.wait(tasks)
            for aw in pending:  # work that never started: close it quietly
                if inspect.iscoroutine(aw) and inspect.getcoroutinestate(aw) == "CORO_CREATED":
                    aw.close()
            raise
        if pairs:
            _rounds.set(max(_rounds.get(), *(r for _, r in pairs)))
        return [p[0] for p in pairs]

    def now(self) -> float:
        return time.perf_counter() - self.start

    def emit(self, event: Event) -> None:
        """Report ``event``, stamped with the run's time. Every caller builds the event for
        this call alone, so the time is set on it (a frozen dataclass, hence
        ``object.__setattr__``) rather than on a copy of all its fields: BoT emits about
        four events a model call."""
        object.__setattr__(event, "t", round(self.now(), 4))
        for watch in self.watchers:
            watch(event)
        self._emit(event)

    def node_id(self, prefix: str = "n") -> str:
        self._node_counter += 1
        return f"{prefix}{self._node_counter}"

    async def call(self, call: Call, *, guide: bool = False) -> tuple[Generation, int]:
        """Send ``call`` to the model; returns the generation and the id of its call event.
        ``guide`` sends it to the run's guide model when it has one.

        A reply the model did not finish (cut at the token limit, stopped by a content
        filter) is reported in the :class:`ModelCalled` event and comes back without its
        unfinished last line: a number cut in half reads as another number. Methods ask
        :meth:`Generation.cut` before they take an answer from a reply.
        """
        self._next_call_id += 1
        call_id = self._next_call_id
        with counting_requests() as sent:
            try:
                model = self.guide_model if guide and self.guide_model is not None else self.model
                if self.stream:
                    gen = await model.generate(call, self._streamer(call_id, call.purpose))
                else:
                    gen = await model.generate(call)
            except ModelError:
                # A failed call may still be billed (a cut stream, a reply over the cap): the
                # run's cost is unknown from here on, never a reassuring $0. It was made, so
                # it counts among the run's calls.
                self.cost_known = False
                self.calls += 1
                raise
            except asyncio.CancelledError:
                # Stopped mid-call (Stop, the run's deadline): the server may have the
                # request, and bill it, although no reply will ever be counted.
                if sent.requests:
                    self.cost_known = False
                    self.calls += sent.requests
                raise
        _rounds.set(_rounds.get() + 1)
        self.rounds = max(self.rounds, _rounds.get())
        self.calls += gen.requests
        if gen.cached and not gen.requests:
            self.cached_calls += 1
        self.prompt_tokens += gen.usage.prompt_tokens
        self.completion_tokens += gen.usage.completion_tokens
        if gen.cost is None:
            if gen.requests:
                self.cost_known = False
        elif self.cost is not None:
            self.cost += gen.cost
        self.emit(
            ModelCalled(
                call_id,
                call.purpose,
                call.prompt if self.record_prompts else "",
                gen.texts,
                call.sampling.temperature,
                call.sampling.top_p,
                gen.cached,
                round(gen.latency, 4),
                gen.finish_reasons,
                gen.notes,
            )
        )
        self.emit(
            TokensUsed(
                self.calls,
                self.prompt_tokens,
                self.completion_tokens,
                self.total_cost,
                self.cached_calls,
            )
        )
        if any(gen.cut(i) for i in range(len(gen.texts))):
            finished = tuple(
                _finished_lines(text) if gen.cut(i) else text for i, text in enumerate(gen.texts)
            )
            gen = dataclasses.replace(gen, texts=finished)
        return gen, call_id

    def _streamer(self, call_id: int, purpose: Purpose) -> Callable[[int, str], None]:
        """A token callback that reports the text so far, at most every 50 ms per sample."""
        texts: dict[int, str] = {}
        last: dict[int, float] = {}
        # The first report comes once a reply has streamed for a while: a call that answers
        # at once (a cache hit, the offline engine) reports nothing but its result.
        begun = time.perf_counter()

        def on_token(index: int, delta: str) -> None:
            texts[index] = texts.get(index, "") + delta
            now = time.perf_counter()
            if now - last.get(index, begun) >= STREAM_INTERVAL:
                last[index] = now
                self.emit(TokensStreamed(call_id, purpose, index, texts[index][-2000:]))

        return on_token

    @property
    def total_cost(self) -> float | None:
        return self.cost if self.cost_known else None

    def parse_failed(self, purpose: Purpose, text: str, reason: str) -> None:
        self.parse_failures += 1
        self.emit(ParseFailed(purpose, text[:500], reason))

    def verified(self, node_id: str | None, claim: ClaimLike) -> None:
        """Report an arithmetic claim the domain checked exactly. A claim that is no
        arithmetic (a crossword word against its crossings) reports its own event."""
        as_event = getattr(claim, "as_event", None)
        if callable(as_event):
            event = as_event(node_id)
            if isinstance(event, Event):
                self.emit(event)
                return
        self.emit(
            ClaimVerified(
                node_id,
                claim.lhs,
                claim.rhs,
                claim.exact_text,
                str(claim.status),
                claim.ok,
                claim.reason,
                bool(getattr(claim, "approximate", False)),
            )
        )


async def run_method(
    method: Method,
    domain: Domain[Any, Any],
    model: Model,
    *,
    seed: int | None = None,
    record_prompts: bool = True,
    deadline: float | None = None,
    guide_model: Model | None = None,
    stream: bool = False,
) -> AsyncIterator[Event]:
    """Run ``method`` and yield its events as they happen, ending with :class:`RunFinished`.

    Cancelling the consumer cancels the method; a model failure ends the run with an
    :class:`ErrorRaised` and a finish event, never an exception. A run still going after
    ``deadline`` seconds is stopped the same way (error kind ``deadline``, reason
    ``deadline``).
    """
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    ctx = RunContext(
        model,
        queue.put_nowait,
        seed=seed,
        record_prompts=record_prompts,
        guide_model=guide_model,
        stream=stream,
    )
    # The config as JSON has it (tuples become lists), so a trace replays to equal events.
    config = json.loads(json.dumps(method.config_dict()))
    if guide_model is not None:
        config["guide_model"] = guide_model.name
    ctx.emit(RunStarted(method.name, domain.title, domain.kind, model.name, config))

    async def body() -> None:
        answer: str | None = None
        reason = "done"
        votes = 0
        sampled = (0, 0)  # IO / CoT / CoT-SC: samples drawn, samples right
        timer = asyncio.timeout(deadline)
        try:
            _check_roles(method, domain)
            async with timer:
                outcome = await method.run(domain, ctx)
            answer, reason = outcome.answer, outcome.reason
            votes = outcome.votes
            sampled = (outcome.samples, outcome.samples_solved)
        except TimeoutError as exc:
            if timer.expired():
                message = f"The run passed its deadline of {deadline:g} seconds and was stopped."
                ctx.emit(ErrorRaised("deadline", message, fatal=True))
                reason = "deadline"
            else:  # not ours: a bug, reported like any other
                ctx.emit(ErrorRaised("internal", f"TimeoutError: {exc}", fatal=True))
                reason = "error"
        except RolesMissing as exc:
            ctx.emit(ErrorRaised("unsupported", str(exc), fatal=True))
            reason = "error"
        except StopRun as stop:
            answer, reason = stop.answer, "solved early"
        except ModelError as exc:
            ctx.emit(ErrorRaised(exc.kind, exc.message, fatal=True))
            reason = "error"
        except asyncio.CancelledError:
            reason = "stopped"
            _finish(ctx, domain, None, reason)
            queue.put_nowait(None)
            raise
        except Exception as exc:  # a bug must not take the consumer down with a traceback
            ctx.emit(ErrorRaised("internal", f"{type(exc).__name__}: {exc}", fatal=True))
            reason = "error"
        _finish(ctx, domain, answer, reason, votes, sampled)
        queue.put_nowait(None)

    task = asyncio.ensure_future(body())
    # However the body ends, the consumer stops waiting (a bug that escapes it is raised by
    # ``await task`` below, never a consumer waiting for ever).
    task.add_done_callback(lambda _: queue.put_nowait(None))
    try:
        while True:
            event = await queue.get()
            if event is None:
                break
            yield event
        await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _check_roles(method: Method, domain: Domain[Any, Any]) -> None:
    """Raise :class:`RolesMissing` when the domain lacks a role the method's spec needs."""
    from solver.domains.base import require_roles
    from solver.methods import METHODS

    spec = METHODS.get(method.name)
    if spec is not None:
        require_roles(spec.name, spec.roles, domain)


def _finished_lines(text: str) -> str:
    """The lines of an unfinished reply that were written to their end."""
    end = text.rfind("\n")
    return text[: end + 1] if end >= 0 else ""


def _finish(
    ctx: RunContext,
    domain: Domain[Any, Any],
    answer: str | None,
    reason: str,
    votes: int = 0,
    sampled: tuple[int, int] = (0, 0),
) -> None:
    try:
        verdict = domain.check(answer)
        ok, why = verdict.ok, verdict.reason
    except Exception as exc:  # a bug in a check must end the run with the error, not hang it
        ctx.emit(ErrorRaised("internal", f"{type(exc).__name__}: {exc}", fatal=True))
        ok, why = False, f"the answer could not be checked ({type(exc).__name__})"
    ctx.emit(
        RunFinished(
            answer,
            ok,
            why,
            ctx.calls,
            ctx.prompt_tokens,
            ctx.completion_tokens,
            ctx.total_cost,
            round(ctx.now(), 4),
            reason,
            ctx.rounds,
            votes,
            *sampled,
        )
    )


async def solve(
    method: Method,
    domain: Domain[Any, Any],
    model: Model,
    *,
    seed: int | None = None,
    guide_model: Model | None = None,
) -> tuple[RunFinished, list[Event]]:
    """Run to the end and return the finish event and every event (tests, benchmarks)."""
    events: list[Event] = []
    async for event in run_method(method, domain, model, seed=seed, guide_model=guide_model):
        events.append(event)
    last = events[-1]
    assert isinstance(last, RunFinished)
    return last, events
