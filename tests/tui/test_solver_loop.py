"""The solver's own loop (tui/solver_loop.py): a run goes there and back, its cancellation
reaches it, and its steps wait while the app's loop works."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pytest

from tui.solver_loop import SWITCH_INTERVAL, SolverLoop


async def test_a_run_comes_back_with_its_value_or_its_error() -> None:
    solver = SolverLoop()
    try:

        async def where() -> str:
            await asyncio.sleep(0)
            return threading.current_thread().name

        assert await solver.run(where()) == "ponder-solver"

        async def fails() -> None:
            raise ValueError("bad reply")

        with pytest.raises(ValueError, match="bad reply"):
            await solver.run(fails())
    finally:
        await solver.close()


async def test_cancelling_the_caller_cancels_the_run() -> None:
    solver = SolverLoop()
    ended = threading.Event()
    started = threading.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            ended.set()

    caller = asyncio.ensure_future(solver.run(forever()))
    while not started.is_set():
        await asyncio.sleep(0.005)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.to_thread(ended.wait, 5)
    assert ended.is_set()
    await solver.close()


async def test_the_solver_steps_only_while_the_app_loop_waits() -> None:
    loop = asyncio.get_running_loop()
    selector = loop._selector  # type: ignore[attr-defined]
    interval = sys.getswitchinterval()
    solver = SolverLoop()
    steps: list[float] = []

    async def counting() -> None:
        while True:
            steps.append(time.monotonic())
            await asyncio.sleep(0)

    async def steps_after(count: int) -> None:  # the app's loop waits: the solver steps
        deadline = time.monotonic() + 10
        while len(steps) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert len(steps) >= count

    running = asyncio.ensure_future(solver.run(counting()))
    await steps_after(1)
    assert sys.getswitchinterval() == SWITCH_INTERVAL
    before = len(steps)
    time.sleep(0.1)  # the app's loop works (a frame, a batch): it holds the gate
    assert len(steps) - before <= 1  # at most the step that was under way
    await steps_after(before + 10)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    await solver.close()
    # Closed: the loop's own selector and Python's switch interval are back.
    assert loop._selector is selector  # type: ignore[attr-defined]
    assert sys.getswitchinterval() == interval


async def test_closing_ends_the_thread_and_what_still_runs() -> None:
    solver = SolverLoop()
    started, cleaned = threading.Event(), threading.Event()

    async def holds() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            cleaned.set()

    solver.loop().call_soon_threadsafe(lambda: asyncio.ensure_future(holds()))
    await asyncio.to_thread(started.wait, 10)
    threads = {t.name for t in threading.enumerate()}
    assert "ponder-solver" in threads
    await solver.close()
    assert cleaned.is_set()
    assert "ponder-solver" not in {t.name for t in threading.enumerate()}
    await solver.close()  # twice is harmless


async def test_a_call_reaches_the_solver_loop_or_runs_at_once_before_it_starts() -> None:
    solver = SolverLoop()
    seen: list[str] = []
    solver.call(lambda: seen.append(threading.current_thread().name))
    assert seen == [threading.current_thread().name]  # not started: at once, here
    solver.loop()
    done = threading.Event()

    def note() -> None:
        seen.append(threading.current_thread().name)
        done.set()

    solver.call(note)
    await asyncio.to_thread(done.wait, 5)
    assert seen[-1] == "ponder-solver"
    await solver.close()


async def test_tasks_made_with_a_name_or_a_context_run_there_too() -> None:
    import contextvars

    solver = SolverLoop()
    try:

        async def child() -> str:
            return "done"

        async def spawns() -> list[str]:  # as anyio does on newer Pythons
            loop = asyncio.get_running_loop()
            named = loop.create_task(child(), name="named")
            inside = loop.create_task(child(), context=contextvars.copy_context())
            return [await named, await inside, named.get_name()]

        assert await solver.run(spawns()) == ["done", "done", "named"]
    finally:
        await solver.close()


async def test_closing_cancels_the_runs_before_the_last_close_and_is_final() -> None:
    solver = SolverLoop()
    order: list[str] = []
    started = threading.Event()

    async def run() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            order.append("run ended")

    async def last() -> None:
        order.append("model closed")

    caller = asyncio.ensure_future(solver.run(run()))
    await asyncio.to_thread(started.wait, 10)
    await solver.close(last())
    assert order == ["run ended", "model closed"]
    with pytest.raises(asyncio.CancelledError):
        await caller
    with pytest.raises(RuntimeError, match="closed"):
        solver.loop()
    # A last close for a loop that never started is dropped (nothing ran there).
    unused = SolverLoop()
    await unused.close(last())
    assert order == ["run ended", "model closed"]
