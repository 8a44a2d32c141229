"""Tying a child process's life to ponder's: no tool process outlives the ponder that started it.

A tool worker can be deep in a sympy computation for minutes. If ponder is killed (SIGTERM,
SIGHUP, SIGKILL) nothing runs in ponder to stop it, and the worker would be re-parented to
init and keep a core busy. Two guards, each enough on its own:

* :func:`set_death_signal` (Linux): the kernel sends the child SIGKILL when its parent dies.
  Linux counts the *thread* that started the child as its parent, so the children are started
  from one thread that lives as long as ponder (:class:`Launcher`), never from a method's
  thread that ends with its run;
* :func:`watch_pipe` (any system): a thread in the child blocks on a pipe whose write end only
  the parent holds; the read returns end-of-file when the parent is gone, however it died.

:func:`die_with_parent` sets both up in the child and then checks that the parent it was
started by is still its parent, which closes the gap between the start and the guards.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["Launcher", "die_with_parent", "set_death_signal", "watch_pipe"]

T = TypeVar("T")

PR_SET_PDEATHSIG = 1
"""The ``prctl`` option of ``<linux/prctl.h>`` that sets the parent-death signal."""

ORPHAN_EXIT = 75
"""The exit status of a child that found its parent gone."""


def set_death_signal(sig: int | None = None) -> bool:
    """Ask Linux to send this process ``sig`` (SIGKILL unless told) when its parent thread
    ends; whether it took. Elsewhere (or without a C library) it does nothing and returns
    False."""
    if not sys.platform.startswith("linux"):
        return False
    if sig is None:
        sig = signal.SIGKILL  # looked up here: Windows has no SIGKILL
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    # prctl is variadic and reads unsigned longs: say so, or the high bits could be junk.
    prctl.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
    prctl.restype = ctypes.c_int
    return int(prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)) == 0


def watch_pipe(fd: int) -> threading.Thread:
    """End this process as soon as ``fd`` (the read end of a pipe whose write end only the
    parent holds) reaches end-of-file, whatever the process is busy with: a daemon thread
    blocks on it. Anything written to the pipe is read and ignored."""

    def watch() -> None:
        while True:
            try:
                if not os.read(fd, 512):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        # os._exit ends the whole process at once, the main thread's computation included.
        os._exit(ORPHAN_EXIT)

    thread = threading.Thread(target=watch, name="ponder-parent-watch", daemon=True)
    thread.start()
    return thread


def die_with_parent(parent: int, fd: int | None = None) -> None:
    """Make this process end with ``parent`` (the pid that started it): the death signal, the
    pipe ``fd`` watched when given, and a check that ``parent`` is still the parent. A
    parent that died before the death signal was set would never send it: exit now."""
    set_death_signal()
    if fd is not None:
        watch_pipe(fd)
    if os.getppid() != parent:
        os._exit(ORPHAN_EXIT)


class Launcher:
    """Runs every start of a child on one thread that lives as long as the process, so that
    the parent-death signal means "ponder ended", never "the thread that asked ended".

    The thread is a daemon blocked on a queue: it keeps nothing alive at exit. In a process
    forked from this one the thread does not exist, so a new one is started there."""

    def __init__(self, name: str = "ponder-launcher") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] | None = None

    def run(self, start: Callable[[], T]) -> T:
        """``start()`` run on the launcher thread; its result, or what it raised."""
        done: Future[T] = Future()
        with self._lock:
            if self._requests is None or self._pid != os.getpid():
                self._requests = queue.SimpleQueue()
                self._pid = os.getpid()
                threading.Thread(
                    target=_serve, args=(self._requests,), name=self._name, daemon=True
                ).start()
            self._requests.put((start, done))
        return done.result()


def _serve(requests: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]) -> None:
    while True:
        start, done = requests.get()
        if not done.set_running_or_notify_cancel():
            continue
        try:
            done.set_result(start())
        except BaseException as exc:  # handed to the caller, who raises it on its own thread
            done.set_exception(exc)
