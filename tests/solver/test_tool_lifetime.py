"""No tool process outlives ponder: a worker deep in a long sympy solve dies with the process
that started it, however that process ends (SIGTERM, SIGHUP, SIGKILL), and a worker started
from a thread that has ended keeps working while ponder runs.

Each test runs a real parent process (a small ponder stand-in that starts the tool worker from a
thread and prints the pids), kills it with a real signal and watches ``/proc``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from solver.tools.lifeline import ORPHAN_EXIT

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

LONG_SOLVE = (
    "x^3 + y^3 + z^3 + u^3 = 7, x*y*z + u^2 = 1, y*z*u + x^2 = 2, z*u*x + y^2 = 3; x, y, z, u"
)
"""A system sympy works on for well over a minute (90 s measured, unfinished)."""

PARENT = textwrap.dedent(
    """
    import sys, threading, time
    from solver.tools.worker import ToolWorker

    worker = ToolWorker()
    # A method's thread: it starts the worker and waits in the call, as ReAct does.
    threading.Thread(target=worker.call, args=("solve", sys.argv[1], 600.0), daemon=True).start()
    while worker.pid is None:
        time.sleep(0.02)
    print(worker.pid, flush=True)
    time.sleep(600)
    """
)


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text.rpartition(")")[2].split()


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie (dead, not yet reaped by init) does not count."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid) or []
    ticks = int(fields[11]) + int(fields[12]) if len(fields) > 12 else 0
    return ticks / os.sysconf("SC_CLK_TCK")


def _wait_gone(pids: list[int], within: float) -> list[int]:
    """The pids still alive after ``within`` seconds (none, as soon as all are gone)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        left = [pid for pid in pids if _alive(pid)]
        if not left:
            return []
        time.sleep(0.05)
    return [pid for pid in pids if _alive(pid)]


@pytest.fixture
def parent() -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A running parent whose worker is busy on :data:`LONG_SOLVE`, and the worker's pid. Its
    processes are killed at the end whatever the test found, so a failure leaves none."""
    proc = subprocess.Popen(
        [sys.executable, "-c", PARENT, LONG_SOLVE],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    started = _cpu_seconds(worker)
    end = time.monotonic() + 60
    while _cpu_seconds(worker) < started + 1.0 and time.monotonic() < end:
        time.sleep(0.1)  # until the worker is really solving (a second of CPU time)
    spawned = _children(proc.pid)
    try:
        yield proc, worker
    finally:
        for pid in [proc.pid, *spawned]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_busy_worker_dies_with_its_parent(
    parent: tuple[subprocess.Popen[str], int], sig: signal.Signals
) -> None:
    proc, worker = parent
    spawned = _children(proc.pid)
    assert worker in spawned and _alive(worker)
    assert _cpu_seconds(worker) >= 1.0, "the worker never got busy"  # as the fixture waits
    os.kill(proc.pid, sig)
    assert proc.wait(10) == -sig
    # The worker and every other process the parent started (multiprocessing's resource
    # tracker) are gone, not re-parented to init and left running.
    assert _wait_gone(spawned, within=5) == []


def test_a_worker_started_from_an_ended_thread_keeps_working() -> None:
    # Linux sends the parent-death signal when the *thread* that started a process ends:
    # a worker started by a method's thread must not die with that thread.
    code = textwrap.dedent(
        """
        import threading
        from solver.tools.worker import ToolWorker

        worker = ToolWorker()
        first = threading.Thread(target=worker.call, args=("calculate", "1 + 1", 60.0))
        first.start()
        first.join()
        pid = worker.pid
        reply = worker.call("calculate", "6 * 7", 60.0)
        print(reply.status, reply.value, worker.pid == pid)
        worker.close()
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.split() == ["ok", "42", "True"], out.stderr


def test_a_child_whose_parent_died_before_it_was_guarded_exits() -> None:
    # The gap between a child's start and its parent-death signal: a parent already gone
    # (here, a pid that is not the parent) is noticed at once.
    code = (
        "import os; from solver.tools.lifeline import die_with_parent\n"
        "die_with_parent(os.getppid() + 1)\n"
        "print('still running')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == ORPHAN_EXIT and "still running" not in out.stdout


def test_the_pipe_alone_ends_a_busy_child_when_its_other_end_closes() -> None:
    # The portable guard on its own (no parent-death signal): a child busy in Python code
    # ends once the write end, held only by this process, is closed.
    read_end, write_end = os.pipe()
    code = (
        "import sys; from solver.tools.lifeline import watch_pipe\n"
        "watch_pipe(int(sys.argv[1]))\n"
        "print('watching', flush=True)\n"
        "while True: sum(range(1000))\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(read_end)],
        pass_fds=(read_end,),
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    os.close(read_end)
    try:
        assert child.stdout is not None and child.stdout.readline() == "watching\n"
        time.sleep(0.3)
        assert child.poll() is None
        os.close(write_end)
        assert child.wait(5) == ORPHAN_EXIT
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_death_signal_is_set_to_sigkill() -> None:
    code = (
        "import ctypes\n"
        "from solver.tools.lifeline import set_death_signal\n"
        "took = set_death_signal()\n"
        "sig = ctypes.c_int(0)\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)  # PR_GET_PDEATHSIG\n"
        "print(took, sig.value)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.stdout.split() == ["True", str(int(signal.SIGKILL))], out.stderr
