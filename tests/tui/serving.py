"""``ponder serve`` started in a real process on a free port, for the tests of browser mode."""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]


WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            pytest.fail(f"ponder serve exited with {proc.returncode}: {out}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail("ponder serve did not start listening")


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """The server and every app it started: they share the server's process group."""
    group = proc.pid
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            break
        end = time.monotonic() + 10
        while time.monotonic() < end:
            proc.poll()
            try:
                os.killpg(group, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            continue
        break
    proc.wait(timeout=10)
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)


class Served(NamedTuple):
    """A running ``ponder serve``: its port, its token and its process."""

    port: int
    token: str
    proc: subprocess.Popen[bytes]

    @property
    def page(self) -> str:
        return f"/?token={self.token}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def launch(*extra: str, env: dict[str, str] | None = None) -> Served:
    """``ponder serve`` on a free port of 127.0.0.1, in its own process group; its token is
    read from the address it prints first."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--port", str(port), *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    first = proc.stdout.readline().decode() if ready else ""
    found = re.search(r"/\?token=([A-Za-z0-9_-]+)", first)
    if not found:
        stop_process(proc)
        pytest.fail(f"ponder serve printed no address with a token: {first!r}")
    _wait_listening(port, proc)
    return Served(port, found.group(1), proc)
