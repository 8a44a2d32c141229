"""Ctrl-C stops a big run at once: exit 130, a one-line message, no traceback.

A real ``ponder`` process gets a real SIGINT in the middle of a BoT run of 10,000 trees, the
case that used to take 10.9 s to exit (asyncio reached the cancellation only after a whole batch
of trees had done its offline-engine work).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[2]
BIG_BOT = ["--method", "bot", "--trees", "10000", "--iterations", "3"]
EXIT_WITHIN = 3.0  # seconds; it takes well under one, but the machine may be busy


# ``python -m tui.cli`` with SIGINT back to its default first. A job started in the background
# by a shell without job control (a CI script's ``cmd &``, mutmut's runs) starts with SIGINT
# ignored, and its children inherit that: Python then installs no KeyboardInterrupt handler and
# the test's Ctrl-C would do nothing. (Set in the child's own code, not in a preexec_fn, which
# is unsafe while the test's server threads run.)
PONDER_AS_IN_A_TERMINAL = (
    "import signal, sys\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from tui.cli.main import main\n"
    "raise SystemExit(main(sys.argv[1:]))\n"
)


def start(*argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``ponder ARGV`` in a real process that takes Ctrl-C as a terminal would give it."""
    return subprocess.Popen(
        [sys.executable, "-c", PONDER_AS_IN_A_TERMINAL, *argv],
        cwd=ROOT,
        env=dict(os.environ) if env is None else env,  # the isolated config and data dirs
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def interrupt(process: subprocess.Popen[bytes]) -> tuple[int, float, str]:
    """Send SIGINT; the exit code, the seconds it took to exit, and what it said on stderr."""
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout=30)
    finally:
        process.kill()
    took = time.monotonic() - sent
    assert process.stderr is not None
    return code, took, process.stderr.read().decode()


def test_ctrl_c_stops_a_big_bot_solve_within_a_second_or_so() -> None:
    process = start("solve", "24", "4 7 8 8", *BIG_BOT)
    assert process.stdout is not None
    # The run has begun once its first line is out; then let the trees get going.
    ready, _, _ = select.select([process.stdout], [], [], 60)
    assert ready, "ponder printed nothing within 60 s"
    assert process.stdout.readline().startswith(b"ponder")
    time.sleep(1.0)
    assert process.poll() is None, "the run ended before it could be interrupted"
    code, took, err = interrupt(process)
    assert code == ExitCode.INTERRUPTED and int(code) == 130
    assert err == "ponder: stopped\n"
    assert took < EXIT_WITHIN, f"took {took:.2f} s to stop"


@pytest.mark.parametrize("argv", [["bench", "24", "--hands", "4 7 8 8", *BIG_BOT]])
def test_ctrl_c_stops_a_big_bench(argv: list[str]) -> None:
    process = start(*argv)
    time.sleep(2.0)
    assert process.poll() is None, "the bench ended before it could be interrupted"
    code, took, err = interrupt(process)
    assert code == ExitCode.INTERRUPTED
    assert err == "ponder: stopped\n" and "Traceback" not in err
    assert took < EXIT_WITHIN, f"took {took:.2f} s to stop"
