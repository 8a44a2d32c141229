"""A solver's own event loop, on its own thread, that steps aside whenever the app has work.

The offline engine computes its replies in this process, and a method's work between calls
(parsing, exact checks, events) is Python too: on the app's loop a full-speed Boosting of
Thoughts kept every key waiting behind a dozen of its tasks, and a thread of its own would
still take the interpreter from the app half the time (Python hands it between threads every
few milliseconds). So the two share a gate (:class:`Gate`): the app's loop holds it whenever it
is not waiting for something to happen (a key, a timer, a reply), and the solver's loop passes
through it before every step of every task. A key or a frame never waits for more than the
step under way; the solver runs in the app's idle time, as fast as that allows.

What crosses between the loops is small: a run is started here and awaited from the app (its
cancellation reaches the run), its events are appended to a deque the screen drains on its
own loop, and a race's gate is opened and closed through :meth:`SolverLoop.call`.
"""

from __future__ import annotations

import asyncio
import selectors
import sys
import threading
import weakref
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")

CLOSE_WAIT = 5.0
"""Seconds :meth:`SolverLoop.close` waits for the runs to end, again for the last close, and
again for the thread."""

SWITCH_INTERVAL = 0.001
"""Seconds a thread runs before another waiting for the interpreter gets it, while a gate is
installed (Python's default is 0.005)."""


class Gate:
    """Held by the app's loop while it works; the solver's steps wait at it.

    Installed on an event loop that selects (asyncio's own on Linux and macOS): the loop's
    selector is wrapped so that the gate is let go while the loop waits in ``select`` and
    taken again as soon as it wakes. A loop without a selector (uvloop) gets no gate: the
    solver then shares the interpreter with it as any thread does."""

    _installed: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Gate] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self._loop = loop
        self._selector: selectors.BaseSelector | None = None
        self._switch_interval = 0.0

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Gate:
        """The gate of ``loop`` (the running loop, from its own thread), installed on first
        use; each :meth:`of` is matched by a :meth:`leave`."""
        gate = cls._installed.get(loop)
        if gate is None:
            gate = cls._installed[loop] = cls(loop)
        if gate.users == 0:
            gate._install()
        gate.users += 1
        return gate

    def leave(self) -> None:
        """One user fewer; the last one takes the gate off its loop (from the loop's thread)."""
        self.users -= 1
        if self.users == 0:
            self._uninstall()

    def _install(self) -> None:
        selector = getattr(self._loop, "_selector", None)
        if not isinstance(selector, selectors.BaseSelector):
            return
        self._selector = selector
        self.lock.acquire()  # the loop is working now: it called us
        self._loop._selector = _GatedSelector(selector, self.lock)  # type: ignore[attr-defined]
        # Woken by a key or a timer, the loop waits for the interpreter until the solver's
        # thread is asked to let go of it: after SWITCH_INTERVAL rather than Python's 5 ms.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, SWITCH_INTERVAL))

    def _uninstall(self) -> None:
        if self._selector is not None:
            self._loop._selector = self._selector  # type: ignore[attr-defined]
            self._selector = None
            sys.setswitchinterval(self._switch_interval)
            self.lock.release()

    def wait(self) -> None:
        """Wait until the app's loop waits (at once where no gate is installed)."""
        if self._selector is not None:
            with self.lock:
                pass


class _GatedSelector(selectors.BaseSelector):
    """A selector that lets its gate go while it waits."""

    def __init__(self, inner: selectors.BaseSelector, lock: threading.Lock) -> None:
        self.inner = inner
        self.lock = lock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is not None and timeout <= 0:  # a look, not a wait: the loop has work
            return self.inner.select(timeout)
        self.lock.release()
        try:
            return self.inner.select(timeout)
        finally:
            self.lock.acquire()

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.modify(fileobj, events, data)

    def close(self) -> None:
        self.inner.close()

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.get_key(fileobj)

    def get_map(self) -> Any:
        return self.inner.get_map()


class _Gated(Coroutine[Any, Any, T]):
    """A task's coroutine whose every step first passes the gate."""

    def __init__(self, inner: Coroutine[Any, Any, T], gate: Gate) -> None:
        self.inner = inner
        self.gate = gate
        self.__name__ = getattr(inner, "__name__", "gated")
        self.__qualname__ = getattr(inner, "__qualname__", self.__name__)

    def send(self, value: Any) -> Any:
        self.gate.wait()
        return self.inner.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        self.gate.wait()
        if val is None and tb is None:
            return self.inner.throw(typ)
        return self.inner.throw(typ, val, tb)

    def close(self) -> None:
        self.inner.close()

    def __await__(self) -> Generator[Any, None, T]:
        return self.inner.__await__()


class SolverLoop:
    """An event loop on a daemon thread, started when first used and ended by :meth:`close`.

    Everything a run touches (its model and the model's connections, a race's gate) lives on
    this loop from the run's start to :meth:`close`; a model is closed here too
    (``await solver_loop.run(model.aclose())``)."""

    def __init__(self, name: str = "ponder-solver") -> None:
        self.name = name
        self._gate: Gate | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop, started on its thread if it is not yet (called from the app's loop, whose
        gate its tasks pass)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the solver's loop is closed")
            if self._loop is None:
                gate = self._gate = Gate.of(asyncio.get_running_loop())
                loop = asyncio.new_event_loop()
                loop.set_task_factory(
                    # (keywords too: newer Pythons pass a task's name and context)
                    lambda loop, coro, **kw: asyncio.Task(_Gated(coro, gate), loop=loop, **kw)
                )
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=serve, name=self.name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the solver's loop and wait for it from the caller's. When the
        caller is cancelled the coroutine is cancelled too (it stops at its next await)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop())
        return await asyncio.wrap_future(future)

    def call(self, function: Callable[..., Any], *args: Any) -> None:
        """Call ``function(*args)`` on the solver's loop (soon, not now); at once where the loop
        has not started (nothing on it can be waiting)."""
        if self._loop is None:
            function(*args)
        else:
            self._loop.call_soon_threadsafe(function, *args)

    async def close(self, last: Coroutine[Any, Any, Any] | None = None) -> None:
        """Cancel what still runs on the loop, run ``last`` there (a model's ``aclose``),
        then stop the loop and its thread. Each waits at most :data:`CLOSE_WAIT` seconds: a
        task that will not end or a close that hangs does not hold up the app's exit."""
        with self._lock:
            self._closed = True
            loop, thread, gate = self._loop, self._thread, self._gate
            self._loop = self._thread = self._gate = None
        if loop is None or thread is None or gate is None:
            if last is not None:
                last.close()  # nothing ran on a loop that never started
            return

        async def wind_down() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            try:
                if tasks:
                    await asyncio.wait(tasks, timeout=CLOSE_WAIT)
                if last is not None:
                    await asyncio.wait_for(last, CLOSE_WAIT)
            finally:
                await loop.shutdown_asyncgens()

        try:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(wind_down(), loop))
        except Exception:  # a model that fails to close is closed enough
            pass
        finally:
            loop.call_soon_threadsafe(loop.stop)
            await asyncio.to_thread(thread.join, CLOSE_WAIT)
            gate.leave()
            if not thread.is_alive():
                loop.close()
