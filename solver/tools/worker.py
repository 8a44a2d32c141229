"""The process the tools run in, so that a tool that runs too long can be stopped.

sympy can work for minutes on a system a model writes in one line, and a thread cannot be
stopped. Every tool call is sent to one worker process (started on first use, with sympy
imported once); the caller waits at most the call's time limit for the answer and, when it
does not come, kills the process and says so. The next call starts a fresh one. Nothing in
the worker evaluates text: it runs the tool functions of :mod:`solver.tools.math` by name.

The worker never outlives ponder, however ponder ends (see :mod:`solver.tools.lifeline`): it
gets the parent-death signal on Linux and, everywhere, watches a pipe that only ponder holds
open.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from solver.tools.lifeline import Launcher, die_with_parent

__all__ = ["STARTUP_LIMIT", "ToolWorker", "WorkerReply", "shared_worker"]

STARTUP_LIMIT = 60.0
"""Seconds a fresh worker may take to import its libraries (not counted as tool time)."""


@dataclass(frozen=True, slots=True)
class WorkerReply:
    """What came back from one tool call: ``status`` is ``ok``, ``error`` (the tool refused
    the input, with the reason as ``text``), ``timeout`` or ``crashed``."""

    status: str
    text: str
    value: str | None
    elapsed: float


def _serve(conn: Connection, parent: int, lifeline: Connection) -> None:
    """The worker's loop: (tool name, argument) in, (ok, text, value) out. First of all the
    worker ties its life to ``parent``'s, through the ``lifeline`` pipe among others."""
    die_with_parent(parent, os.dup(lifeline.fileno()))
    lifeline.close()
    from solver.tools import math as tools_math  # the functions it runs

    conn.send(("ready", "", None))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        name, argument = request
        try:
            ok, text, value = tools_math.RUNNERS[name](argument)
        except Exception as exc:  # a tool bug must come back as a message, not a dead worker
            ok, text, value = False, f"the tool failed: {type(exc).__name__}", None
        conn.send(("ok" if ok else "error", text, value))


_LAUNCHER = Launcher("ponder-tools-launcher")
"""Starts every worker, from a thread that lives as long as ponder (the parent-death signal
follows the thread that started a process)."""


class ToolWorker:
    """One worker process, restarted after a call that ran too long or crashed it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None
        self._lifeline: Connection | None = None

    @property
    def pid(self) -> int | None:
        """The worker process's id while one is running."""
        process = self._process
        return None if process is None else int(process.pid)

    def _start(self) -> Connection:
        _tracker_with_real_stderr()
        process, conn, lifeline = _LAUNCHER.run(_spawn)
        # Only this end is kept: the worker sees end-of-file on its end once it is closed,
        # which the system does when ponder dies, however it dies.
        self._process, self._conn, self._lifeline = process, conn, lifeline
        try:
            ready = conn.poll(STARTUP_LIMIT) and conn.recv()[0] == "ready"
        except (EOFError, OSError):  # it ended at start
            ready = False
        if not ready:
            self._stop()
            raise RuntimeError("the tool worker did not start")
        return conn

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
        for end in (self._conn, self._lifeline):
            if end is not None:
                end.close()
        self._process = self._conn = self._lifeline = None

    def call(self, name: str, argument: str, limit: float) -> WorkerReply:
        """Run tool ``name`` on ``argument``; at most ``limit`` seconds of tool time."""
        with self._lock:
            conn = self._conn
            if conn is None or self._process is None or not self._process.is_alive():
                self._stop()
                try:
                    conn = self._start()
                except (RuntimeError, OSError) as exc:
                    return WorkerReply("crashed", f"the tools could not start: {exc}", None, 0.0)
            start = time.perf_counter()
            try:
                conn.send((name, argument))
                ready = conn.poll(limit)
            except (OSError, EOFError):
                self._stop()
                return WorkerReply("crashed", "the tool stopped working", None, 0.0)
            elapsed = time.perf_counter() - start
            if not ready:
                self._stop()  # the only way to stop sympy: end its process
                return WorkerReply(
                    "timeout", f"stopped after {limit:g} s: the tool ran too long", None, elapsed
                )
            try:
                status, text, value = conn.recv()
            except (OSError, EOFError):
                self._stop()
                return WorkerReply("crashed", "the tool stopped working", None, elapsed)
            return WorkerReply(status, text, value, elapsed)

    def close(self) -> None:
        with self._lock:
            self._stop()


def _spawn() -> tuple[Any, Connection, Connection]:
    """A started worker process, the connection to it, and the write end of its lifeline."""
    ctx = multiprocessing.get_context("spawn")
    parent_end, child_end = ctx.Pipe()
    watched, held = ctx.Pipe(duplex=False)
    process = ctx.Process(
        target=_serve,
        args=(child_end, os.getpid(), watched),
        daemon=True,
        name="ponder-tools",
    )
    try:
        process.start()
    except BaseException:
        for end in (parent_end, held):
            end.close()
        raise
    finally:
        child_end.close()
        watched.close()
    return process, parent_end, held


_SHARED: ToolWorker | None = None
_SHARED_LOCK = threading.Lock()


def shared_worker() -> ToolWorker:
    """The process-wide worker (started on its first call, ended at exit)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ToolWorker()
            atexit.register(_SHARED.close)
        return _SHARED


def _tracker_with_real_stderr() -> None:
    """Start multiprocessing's resource tracker against the process's real stderr.

    Spawning starts the tracker first and hands it ``sys.stderr.fileno()``; inside a Textual
    app ``sys.stderr`` is the app's capture, whose ``fileno()`` is -1, and the spawn fails
    ("bad value(s) in fds_to_keep"). The tracker is started once, so this costs nothing after.
    """
    from multiprocessing import resource_tracker

    captured = sys.stderr
    try:
        real = captured.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        real = False
    if real or sys.__stderr__ is None:
        resource_tracker.ensure_running()
        return
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured
