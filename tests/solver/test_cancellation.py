"""A run that is stopped starts no more model calls: on a paid API every call is money.

A counting model wraps the offline engine, takes a little time per call, and counts the calls
started and finished, and those started after the moment the test marks as the stop. Every
test checks that there was work in flight to cancel (so it cannot pass by doing nothing) and
that none started after the stop.
"""

from __future__ import annotations

import asyncio
import json
import signal
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import pytest

import solver.factory
import solver.methods
from puzzles.game24 import Hand
from solver.bench import run_bench
from solver.domains.game24 import Game24Domain
from solver.events import ErrorRaised, Event, ModelCalled
from solver.methods import run_method, solve
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Generation, Model, TokenCallback
from solver.model.offline import OfflineModel
from tui import cli
from tui.exitcodes import ExitCode


class CountingModel:
    """Wraps a model: waits ``delay`` seconds per call, and counts the calls started and
    finished, in all and since :meth:`stop` was called."""

    def __init__(
        self,
        inner: Model | None = None,
        delay: float = 0.01,
        on_start: Callable[[CountingModel], None] | None = None,
        jitter: bool = False,
    ) -> None:
        self.inner = inner or OfflineModel(seed=1)
        self.name = self.inner.name
        self.delay = delay
        self.jitter = jitter
        self.on_start = on_start
        self.started = 0
        self.finished = 0
        self.started_at_stop: int | None = None
        self.finished_at_stop: int | None = None

    def stop(self) -> None:
        """Mark the moment the run was stopped (from here on, no call may start)."""
        self.started_at_stop = self.started
        self.finished_at_stop = self.finished

    @property
    def in_flight(self) -> int:
        return self.started - self.finished

    @property
    def started_after_stop(self) -> int:
        assert self.started_at_stop is not None, "the test never marked the stop"
        return self.started - self.started_at_stop

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.started += 1
        if self.on_start is not None:
            self.on_start(self)
        delay = self.delay
        if self.jitter:  # one to four times the delay, the same for the same call
            key = f"{call.prompt}|{call.sample_offset}|{call.sampling}"
            delay *= 1 + zlib.crc32(key.encode()) % 4
        await asyncio.sleep(delay)
        gen = await self.inner.generate(call, on_token)
        self.finished += 1
        return gen

    async def aclose(self) -> None:
        await self.inner.aclose()


HAND = Hand.parse("4 7 8 8")


# ------------------------------------------------------------------ run_method's consumer


async def test_stopping_the_consumer_cancels_the_method() -> None:
    model = CountingModel(delay=0.01)
    calls_seen = 0
    stream = run_method(BoT(), Game24Domain(HAND), model, seed=1)
    assert isinstance(stream, AsyncGenerator)  # closable, as the app and the CLI use it
    async for event in stream:
        calls_seen += isinstance(event, ModelCalled)
        # Stop after twenty calls, at a moment when calls are under way.
        if calls_seen >= 20 and model.started > model.finished:
            break
    in_flight = model.in_flight
    model.stop()
    # Closing the stream cancels the run at once: no loop turn passes before it.
    await stream.aclose()
    await asyncio.sleep(0.2)  # twenty calls' time: anything left running would show
    assert in_flight > 0  # there was work to cancel: 15 trees grow at once
    assert model.started_after_stop == 0
    assert model.finished == model.finished_at_stop  # the calls in flight were cut, too


async def test_a_consumer_that_stops_without_closing_still_stops_the_run_when_cancelled() -> None:
    # The app's worker: the task that consumes the stream is cancelled (the Stop key).
    model = CountingModel(delay=0.01)

    async def consume() -> None:
        async for _event in run_method(BoT(), Game24Domain(HAND), model, seed=1):
            pass

    task = asyncio.ensure_future(consume())
    while model.finished < 20 or not model.in_flight:
        await asyncio.sleep(0.005)
    in_flight = model.in_flight
    task.cancel()
    # asyncio delivers a cancellation on the loop's next turn; tasks already due on this
    # turn run first. From the moment the cancelled consumer sees it, nothing may start.
    with pytest.raises(asyncio.CancelledError):
        await task
    model.stop()
    await asyncio.sleep(0.2)
    assert in_flight > 0
    assert model.started_after_stop == 0
    assert model.finished < model.started  # calls under way were cut, not waited for


# ------------------------------------------------------------------ stop early


async def test_stop_early_cancels_every_other_tree() -> None:
    hand = Hand.parse("1 2 3 4")
    # One full iteration of 8 trees, not stopped: its calls (the trees' and one analysis).
    full = CountingModel(delay=0.0)
    await solve(BoT(BoTConfig(iterations=1, trees=8)), Game24Domain(hand), full, seed=1)
    trees_calls = full.started - 1
    model = CountingModel(delay=0.005, jitter=True)
    fin, events = await solve(
        BoT(BoTConfig(trees=8, stop_early=True)), Game24Domain(hand), model, seed=1
    )
    assert fin.solved and fin.reason == "solved early"
    model.stop()
    # Fewer calls than the trees of one iteration make, and calls under way were cut, not
    # waited for: the other trees were stopped.
    assert model.started < trees_calls, (model.started, trees_calls)
    assert model.finished < model.started
    await asyncio.sleep(0.2)
    assert model.started_after_stop == 0
    assert model.finished == model.finished_at_stop
    assert fin.calls == len([e for e in events if isinstance(e, ModelCalled)])


# ------------------------------------------------------------------ the bench


async def test_stopping_a_bench_stops_every_run() -> None:
    model = CountingModel(delay=0.01)
    hands = [Hand.parse(h) for h in ("4 7 8 8", "1 1 4 6", "2 7 8 9", "3 4 6 9")]
    bench = asyncio.ensure_future(run_bench([BoT()], hands, lambda: model, jobs=3))
    while model.finished < 30 or not model.in_flight:
        await asyncio.sleep(0.005)
    in_flight = model.in_flight
    bench.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(bench, 10)
    model.stop()  # the cancellation has reached the bench's caller: the runs are stopped
    await asyncio.sleep(0.2)
    assert in_flight > 0  # three hands' runs were under way
    assert model.started_after_stop == 0
    assert model.finished < model.started


# ------------------------------------------------------------------ the command line


def use_model(monkeypatch: pytest.MonkeyPatch, model: CountingModel) -> None:
    """``ponder solve`` runs on ``model`` (the CLI builds it through solver.factory)."""

    def make_model(settings: Any, *, seed: int | None = None) -> Model:
        return model

    monkeypatch.setattr(solver.factory, "make_model", make_model)


def test_ctrl_c_in_the_cli_starts_no_call_after_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real SIGINT, raised in this process once 300 calls have started, in the middle of a
    # BoT run of 200 trees on an engine that answers at once (the case where asyncio alone
    # reached the cancellation only after a whole batch of trees had moved on).
    def interrupt(model: CountingModel) -> None:
        if model.started == 300:
            model.stop()
            signal.raise_signal(signal.SIGINT)

    model = CountingModel(delay=0.0, on_start=interrupt)
    use_model(monkeypatch, model)
    # Ctrl-C handled as in a terminal, even where the test runner ignores SIGINT (mutmut's
    # workers do; the CLI rightly leaves an ignored Ctrl-C ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = cli.main(["solve", "24", "4 7 8 8", "--method", "bot", "--trees", "200", "--json"])
        restored = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "ponder: stopped\n"
    assert model.started_after_stop == 0
    assert model.finished < 300  # the calls under way were cut, not waited for
    assert restored is signal.default_int_handler  # the CLI put back the handler it found


def test_the_cli_deadline_starts_no_call_after_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = CountingModel(delay=0.01)
    use_model(monkeypatch, model)
    real_run_method = solver.methods.run_method

    def watched(*args: Any, **kwargs: Any) -> AsyncIterator[Event]:
        # The stream the CLI reads, unchanged; the deadline's error marks the stop.
        async def events() -> AsyncIterator[Event]:
            async for event in real_run_method(*args, **kwargs):
                if isinstance(event, ErrorRaised) and event.kind == "deadline":
                    model.stop()
                yield event

        return events()

    monkeypatch.setattr(solver.methods, "run_method", watched)
    code = cli.main(["solve", "24", "4 7 8 8", "--method", "bot", "--deadline", "0.3", "--json"])
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["type"] == "RunFinished" and last["reason"] == "deadline"
    assert code == ExitCode.SERVER_FAILED
    assert model.started_at_stop is not None and model.started_at_stop > 0
    assert model.started_after_stop == 0
