"""Running ``ponder`` in a real process, as a terminal would, for the tests that send it Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
