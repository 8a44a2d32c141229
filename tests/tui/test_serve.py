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
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.tui.serving import WEBSOCKET_GUID, Served, free_port, launch, stop_process
from tui.cli import main
from tui.web import GuardedServer


@pytest.fixture
def served() -> Iterator[Served]:
    server = launch()
    try:
        yield server
    finally:
        stop_process(server.proc)


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


def _get(port: int, path: str) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read().decode(errors="replace")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        conn.close()


def _upgrade(
    port: int, path: str, origin: str | None, query: str = "width=80&height=24"
) -> tuple[str, socket.socket]:
    """A websocket handshake as a browser (or anyone) may send it: the status line and the
    open socket (the caller closes it)."""
    key = base64.b64encode(os.urandom(16)).decode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    origin_line = f"Origin: {origin}\r\n" if origin is not None else ""
    sock.sendall(
        (
            f"GET {path}?{query} HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\n"
            f"{origin_line}"
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
    if status.startswith("HTTP/1.1 101"):
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in header_lines if line)
        }
        accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode()).digest())
        assert headers["sec-websocket-accept"] == accept.decode()
    return status, sock


def _read_until(sock: socket.socket, text: bytes, seconds: float = 60) -> bytes:
    """What the app draws through the socket, until ``text`` is on it."""
    screen = b""
    end = time.monotonic() + seconds
    while text not in screen and time.monotonic() < end:
        opcode, payload = _read_frame(sock)
        assert opcode != 8, f"the server closed the websocket: {screen[-500:]!r}"
        screen += payload
    assert text in screen
    return screen


def _apps(server: Served) -> list[int]:
    """The app processes the server runs now (its children)."""
    pid = server.proc.pid
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def _gone(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` ends (or is a zombie left to reap) within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def test_serve_gives_the_page_and_its_websocket_runs_the_app(served: Served) -> None:
    status, headers, page = _get(served.port, served.page)
    assert status == 200
    assert "text/html" in headers["content-type"]
    # The token is in the page's address: it must not leak in a Referer or be framed.
    assert headers["referrer-policy"] == "no-referrer" and headers["x-frame-options"] == "DENY"
    assert "<div>ponder</div>" in page  # the name textual-serve shows while it connects
    # The browser asks before the page goes while its app runs (ctrl+w closes a tab).
    assert 'addEventListener("beforeunload"' in page and page.rstrip().endswith("</html>")
    found = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert found, "the page names no websocket"
    url = urlsplit(found.group(1))
    assert url.scheme == "ws" and url.hostname == "127.0.0.1" and url.port == served.port
    assert url.path == f"/ws/{served.token}"

    upgraded, sock = _upgrade(served.port, url.path, served.origin)
    with sock:
        assert upgraded.startswith("HTTP/1.1 101")
        # The app started behind the socket draws its home screen through it.
        _read_until(sock, b"Game of 24")


@pytest.mark.parametrize("path", ["/", "/?token=", "/?token=wrong", "/?fontsize=12"])
def test_serve_gives_no_page_without_its_token(served: Served, path: str) -> None:
    status, _, body = _get(served.port, path)
    assert status == 403
    assert "needs the address ponder serve printed" in body and served.token not in body
    assert _apps(served) == []


def test_serve_starts_no_app_for_a_wrong_token_or_another_site(served: Served) -> None:
    wrong = "x" * len(served.token)
    refusals = [
        (f"/ws/{wrong}", served.origin, "403"),  # a guessed token, from the page's own origin
        (f"/ws/{served.token[:-1]}", served.origin, "403"),
        ("/ws", served.origin, "404"),  # textual-serve's own address no longer exists
        (f"/ws/{served.token}", "http://evil.example", "403"),  # the token, from another site
        (f"/ws/{served.token}", f"http://127.0.0.1:{served.port + 1}", "403"),
        (f"/ws/{served.token}", None, "403"),  # browsers always send Origin
    ]
    for path, origin, code in refusals:
        status, sock = _upgrade(served.port, path, origin)
        sock.close()
        assert status.startswith(f"HTTP/1.1 {code}"), (path, origin, status)
    time.sleep(0.5)
    assert _apps(served) == []
    # This machine's other names for itself are the same site.
    status, sock = _upgrade(served.port, f"/ws/{served.token}", f"http://localhost:{served.port}")
    with sock:
        assert status.startswith("HTTP/1.1 101")
        _read_until(sock, b"Game of 24")


def test_twenty_clients_at_once_run_at_most_max_clients_apps() -> None:
    server = launch("--max-clients", "3")
    opened: list[socket.socket] = []
    try:
        statuses = []
        for _ in range(20):
            status, sock = _upgrade(server.port, f"/ws/{server.token}", server.origin)
            statuses.append(status.split()[1])
            opened.append(sock)
        assert statuses.count("101") == 3 and statuses.count("503") == 17
        assert len(_apps(server)) == 3
        # A tab closed frees its place.
        first = _apps(server)
        opened[0].close()
        assert any(_gone(pid, 15) for pid in first)
        end = time.monotonic() + 15
        status = ""
        while time.monotonic() < end:
            status, sock = _upgrade(server.port, f"/ws/{server.token}", server.origin)
            opened.append(sock)
            if status.startswith("HTTP/1.1 101"):
                break
            time.sleep(0.2)
        assert status.startswith("HTTP/1.1 101")
    finally:
        for sock in opened:
            sock.close()
        stop_process(server.proc)


def _send_text(sock: socket.socket, text: str | bytes) -> None:
    """One masked text frame, as a browser sends it."""
    payload = text.encode() if isinstance(text, str) else text
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        head = bytes([0x81, 0x80 | size])
    elif size < 1 << 16:
        head = bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big")
    sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def _until_pong(sock: socket.socket, seconds: float = 30) -> bytes:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        opcode, payload = _read_frame(sock)
        assert opcode != 8, "the server closed the websocket"
        if opcode == 1 and payload.startswith(b'["pong"'):
            return payload
    raise AssertionError("no pong")


def test_malformed_messages_are_dropped_and_the_session_goes_on(served: Served) -> None:
    status, sock = _upgrade(served.port, f"/ws/{served.token}", served.origin)
    with sock:
        assert status.startswith("HTTP/1.1 101")
        _read_until(sock, b"Game of 24")
        for bad in ["[" * 200_000, "not json", '{"a": 1}', '["stdin", 5]', '["resize", "big"]']:
            _send_text(sock, bad)
        _send_text(sock, '["ping", "still here"]')
        assert _until_pong(sock) == b'["pong", "still here"]'
    out = _stop_and_read(served)
    assert "Traceback" not in out and "RecursionError" not in out


def _stop_and_read(server: Served) -> str:
    stop_process(server.proc)
    assert server.proc.stdout is not None
    return server.proc.stdout.read().decode(errors="replace")


def test_strange_requests_are_refused_in_one_line_each(served: Served) -> None:
    status, sock = _upgrade(served.port, f"/ws/{served.token}", "http://\u00e9vil.example")
    sock.close()
    assert status.startswith("HTTP/1.1 403")
    # An Origin that is no UTF-8 (and would be a terminal's control code if printed raw).
    for origin, code in ((b"http://\x9b2J", b"403"), (b"http://\x1b[2J", b"400")):
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
            raw.sendall(
                f"GET /ws/{served.token} HTTP/1.1\r\nHost: x\r\n".encode()
                + b"Origin: "
                + origin
                + b"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
            )
            assert raw.recv(100).split()[1] == code
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
        raw.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        raw.recv(100)
    time.sleep(0.5)
    assert _apps(served) == []
    out = _stop_and_read(served)
    assert "Traceback" not in out and "\x1b" not in out and "\x9b" not in out
    assert "refused a websocket from" in out


def test_a_tab_closed_and_opened_again_at_once_runs_no_more_apps_than_allowed() -> None:
    server = launch("--max-clients", "1")
    try:
        statuses = []
        most = 0
        for _ in range(6):
            status, sock = _upgrade(server.port, f"/ws/{server.token}", server.origin)
            statuses.append(status.split()[1])
            sock.close()
            most = max(most, len(_apps(server)))
            time.sleep(0.2)
            most = max(most, len(_apps(server)))
        assert statuses[0] == "101" and "503" in statuses
        assert most <= 1
        end = time.monotonic() + 20
        while _apps(server) and time.monotonic() < end:
            time.sleep(0.1)
        assert _apps(server) == []
    finally:
        stop_process(server.proc)


def test_an_app_that_ends_by_itself_closes_its_tab_and_frees_its_place(served: Served) -> None:
    status, sock = _upgrade(served.port, f"/ws/{served.token}", served.origin)
    with sock:
        assert status.startswith("HTTP/1.1 101")
        _read_until(sock, b"Game of 24")
        (app,) = _apps(served)
        os.kill(app, signal.SIGKILL)
        end = time.monotonic() + 20
        closed = False
        while not closed and time.monotonic() < end:
            try:
                opcode, _ = _read_frame(sock)
            except (ConnectionError, OSError):
                closed = True
            else:
                closed = opcode == 8
        assert closed, "the tab of an app that ended was left open"
    assert _gone(app, 10)
    end = time.monotonic() + 10
    while _apps(served) and time.monotonic() < end:
        time.sleep(0.1)
    status, sock = _upgrade(served.port, f"/ws/{served.token}", served.origin)
    sock.close()
    assert status.startswith("HTTP/1.1 101")


def test_a_huge_window_is_clamped_and_an_app_whose_client_vanished_ends(served: Served) -> None:
    """A 4000x4000 request once left an app blocked for ever writing frames to a client that
    was gone (343 MB, holding the results database)."""
    status, sock = _upgrade(
        served.port, f"/ws/{served.token}", served.origin, "width=4000&height=4000"
    )
    assert status.startswith("HTTP/1.1 101")
    end = time.monotonic() + 30
    while not _apps(served) and time.monotonic() < end:
        time.sleep(0.1)
    (app,) = _apps(served)
    environ: list[bytes] = []
    while not any(v.startswith(b"PONDER_SERVED_BY=") for v in environ):  # once it has started
        assert time.monotonic() < end, "the app never started"
        environ = Path(f"/proc/{app}/environ").read_bytes().split(b"\0")
        time.sleep(0.05)
    assert b"COLUMNS=400" in environ and b"ROWS=150" in environ
    time.sleep(3)  # frames pile up unread in the socket and the pipe
    sock.close()  # gone without a goodbye
    assert _gone(app, 20), "the app of a client that is gone kept running"
    assert _apps(served) == []


def test_an_app_ends_when_its_server_is_killed(served: Served) -> None:
    status, sock = _upgrade(served.port, f"/ws/{served.token}", served.origin)
    with sock:
        assert status.startswith("HTTP/1.1 101")
        _read_until(sock, b"Game of 24")
        (app,) = _apps(served)
        os.kill(served.proc.pid, signal.SIGKILL)  # no chance to end its apps itself
        assert _gone(app, 15), "an app outlived its server"


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
    started: list[GuardedServer] = []
    monkeypatch.setattr(GuardedServer, "serve", lambda self: started.append(self))
    port = free_port()
    assert main(["serve", "--host", "0.0.0.0", "--port", str(port)]) == 0
    captured = capsys.readouterr()
    err = captured.err
    assert "anyone who can reach port" in err and "API key" in err
    (server,) = started
    assert server.host == "0.0.0.0" and server.port == port
    assert server.argv == [sys.executable, "-m", "tui.cli"]
    # The page tells browsers where to connect: this machine unless --public-url says more.
    assert (
        server.public_url == f"http://0.0.0.0:{port}"
        and f"connect to {server.public_url}; give" in err
    )
    assert f"open http://0.0.0.0:{port}/?token={server.token}" in captured.out
    port = free_port()
    assert main(["serve", "--port", str(port)]) == 0
    assert "anyone" not in capsys.readouterr().err
    given = "https://puzzles.example.org"
    assert main(["serve", "--port", str(port), "--public-url", given]) == 0
    assert [s.public_url for s in started[1:]] == [f"http://127.0.0.1:{port}", given]
    # Each start has its own token, long enough not to be guessed.
    assert len({s.token for s in started}) == 3 and all(len(s.token) >= 40 for s in started)
    # A page behind a proxy is reached at the public URL: its origin is allowed, besides this
    # machine's own names for the server itself; on 0.0.0.0 only the public URL's.
    assert "https://puzzles.example.org" in started[2].origins
    assert {o.rsplit(":", 1)[-1] for o in started[2].origins - {given}} == {str(port)}
    assert started[0].origins == {f"http://0.0.0.0:{started[0].port}"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-clients", "0"], "--max-clients must be 1 to 64"),
        (["--files", "/no/such/folder"], "--files '/no/such/folder': no such folder"),
    ],
)
def test_serve_refuses_bad_limits(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = main(["serve", "--port", str(free_port()), *argv])
    err = capsys.readouterr().err
    assert code == 2 and f"ponder: {message}" in err and "Traceback" not in err
