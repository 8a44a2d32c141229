"""``ponder serve``: the page and the websocket the page uses, over plain HTTP on 127.0.0.1,
and clear refusals for an address that cannot be used."""

from __future__ import annotations

import base64
import hashlib
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _free_port() -> int:
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


def _stop(proc: subprocess.Popen[bytes]) -> None:
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


@pytest.fixture
def served() -> Iterator[int]:
    """``ponder serve`` on a free port of 127.0.0.1, in its own process group."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_listening(port, proc)
        yield port
    finally:
        _stop(proc)


def _read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """One websocket frame from the server (servers never mask): opcode and payload."""

    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    first, second = exactly(2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(exactly(2), "big")
    elif size == 127:
        size = int.from_bytes(exactly(8), "big")
    return first & 0x0F, exactly(size)


def test_serve_gives_the_page_and_its_websocket_runs_the_app(served: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", served, timeout=30)
    conn.request("GET", "/")
    response = conn.getresponse()
    page = response.read().decode()
    conn.close()
    assert response.status == 200
    assert "text/html" in response.getheader("Content-Type", "")
    assert "<div>ponder</div>" in page  # the name textual-serve shows while it connects
    found = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert found, "the page names no websocket"
    url = urlsplit(found.group(1))
    assert url.scheme == "ws" and url.hostname == "127.0.0.1" and url.port == served

    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", served), timeout=60) as sock:
        sock.sendall(
            (
                f"GET {url.path}?width=80&height=24 HTTP/1.1\r\n"
                f"Host: 127.0.0.1:{served}\r\n"
                "Upgrade: websocket\r\n"
                "Connection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(1)
            assert chunk, "the server closed the connection during the handshake"
            head += chunk
        status, *header_lines = head.decode().split("\r\n")
        assert status.startswith("HTTP/1.1 101")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in header_lines if line)
        }
        accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode()).digest())
        assert headers["sec-websocket-accept"] == accept.decode()
        # The app started behind the socket draws its home screen through it.
        screen = b""
        end = time.monotonic() + 60
        while b"Game of 24" not in screen and time.monotonic() < end:
            opcode, payload = _read_frame(sock)
            assert opcode != 8, f"the server closed the websocket: {screen[-500:]!r}"
            screen += payload
        assert b"Game of 24" in screen


def test_serve_refuses_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"cannot listen on 127.0.0.1 port {port}: the port is in use" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "--port must be 1 to 65535"),
        (["--port", "0"], "--port must be 1 to 65535"),
        (["--host", "no-such-host.invalid"], "--host 'no-such-host.invalid': this machine cannot"),
        (["--public-url", "ftp://x"], "--public-url must start with"),
    ],
)
def test_serve_refuses_bad_addresses(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = main(["serve", *argv])
    err = capsys.readouterr().err
    assert code == 2 and f"ponder: {message}" in err and "Traceback" not in err


def test_serve_warns_when_listening_beyond_this_machine(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[tuple[str, str, int]] = []
    urls: list[str] = []

    class Server:
        def __init__(
            self, command: str, *, host: str, port: int, public_url: str, **_: object
        ) -> None:
            started.append((command, host, port))
            urls.append(public_url)

        def serve(self) -> None:
            return None

    import textual_serve.server

    monkeypatch.setattr(textual_serve.server, "Server", Server)
    port = _free_port()
    assert main(["serve", "--host", "0.0.0.0", "--port", str(port)]) == 0
    err = capsys.readouterr().err
    assert "anyone who can reach port" in err and "API key" in err
    ((command, host, _),) = started
    assert host == "0.0.0.0" and command.startswith(sys.executable.replace(" ", "\\ ")[:5])
    assert command.endswith("-m tui.cli")
    # The page tells browsers where to connect: this machine unless --public-url says more.
    assert urls == [f"http://0.0.0.0:{port}"] and f"connect to {urls[0]}; give" in err
    port = _free_port()
    assert main(["serve", "--port", str(port)]) == 0
    assert "anyone" not in capsys.readouterr().err
    given = "https://puzzles.example.org"
    assert main(["serve", "--port", str(port), "--public-url", given]) == 0
    assert urls[1:] == [f"http://127.0.0.1:{port}", given]
