"""Ctrl-C stops a big run at once: exit 130, a one-line message, no traceback.

A real ``ponder`` process gets a real SIGINT in the middle of a BoT run of 10,000 trees, the
case that used to take 10.9 s to exit (asyncio reached the cancellation only after a whole batch
of trees had done its offline-engine work).
"""

from __future__ import annotations

import select
import time

import pytest

from tests.tui.processes import interrupt, start
from tui.exitcodes import ExitCode

BIG_BOT = ["--method", "bot", "--trees", "10000", "--iterations", "3"]
EXIT_WITHIN = 3.0  # seconds; it takes well under one, but the machine may be busy


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
