"""The web server behind ``ponder serve``: textual-serve's page and websocket, guarded.

textual-serve starts an app process for every websocket that connects, with no question asked:
anyone who could reach the port (a local process, or a web page in the user's own browser
through a cross-origin websocket) drove the app, and through its settings sent the user's API
key to a server of their own. Here:

* Every start of ``ponder serve`` makes a secret token (as Jupyter does). The page is given only
  to ``/?token=TOKEN`` and the websocket lives at ``/ws/TOKEN``; a missing or wrong token is a
  403 (compared in constant time) and starts nothing.
* A websocket must come from the served page: its ``Origin`` must be the public URL's origin
  (or this machine's own names for a server on loopback). Browsers always send ``Origin`` on a
  websocket, so a missing one is refused too.
* At most ``max_clients`` app processes run at once (a 503 for more); the window size a client
  asks for is clamped; a client's messages are size-capped and checked before use; the app of
  a client that is gone is asked to quit and is killed when it does not within seconds.
* Nothing but the page, its static files and the websocket is served: no file downloads, and an
  app cannot make the browser open a URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import signal
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from solver.settings import url_origin

__all__ = [
    "MAX_COLUMNS",
    "MAX_ROWS",
    "GuardedServer",
    "clamp_size",
]

log = logging.getLogger("ponder.serve")

MAX_COLUMNS = 400
"""The widest window an app is drawn for (a 4K screen at a small font is about 380)."""
MAX_ROWS = 150
"""The tallest window an app is drawn for."""
QUIT_GRACE = 3.0
"""Seconds an app whose client has gone gets to quit before it is killed."""
MAX_MESSAGE_BYTES = 1 << 20
"""The largest message a browser may send (a paste of a long text is far below)."""
HEARTBEAT = 15.0
"""Seconds between pings: a client that vanished without closing (no FIN) is noticed within
about 22 s; one that closes, or whose connection is reset, at once."""


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A window size fit to draw: whole numbers within 1..MAX (anything else: 80x24)."""

    def whole(value: object, default: int, most: int) -> int:
        try:
            number = int(str(value)) if not isinstance(value, bool) else default
        except ValueError:
            number = default
        return max(1, min(number, most))

    return whole(width, 80, MAX_COLUMNS), whole(height, 24, MAX_ROWS)


class _App(AppService):
    """One browser's app process: started without a shell, so the process that is killed is
    the app itself; only the ``exit`` message of the app is acted on."""

    def __init__(self, argv: list[str], env: dict[str, str], **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = argv
        self.extra_env = env

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self.extra_env)
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
        )
        self._process = process
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def on_meta(self, data: bytes) -> None:
        # Downloads and "open this URL in the browser" are not used by ponder: an app made to
        # ask for them gets nothing.
        with contextlib.suppress(ValueError):
            if json.loads(data).get("type") == "exit":
                await self.remote_close()

    async def run(self) -> None:
        """Relay the app's screen; when the app ends by itself (a crash, or it found its
        server gone), close the browser's websocket so the tab says so and frees its place."""
        try:
            await super().run()
        finally:
            with contextlib.suppress(Exception):
                await self.remote_close()

    async def set_terminal_size(self, width: int, height: int) -> None:
        await super().set_terminal_size(*clamp_size(width, height))

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def finish(self) -> None:
        """Ask the app to quit; kill it when it has not within :data:`QUIT_GRACE` seconds
        (an app blocked writing a frame to a client that is gone never reads the request)."""
        process = self._process
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.stop(), QUIT_GRACE)
        if process is None or process.returncode is not None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), QUIT_GRACE)
                return


class GuardedServer(Server):
    """textual-serve's server with a token, an Origin check and bounded clients."""

    def __init__(
        self,
        argv: list[str],
        *,
        host: str,
        port: int,
        public_url: str,
        token: str | None = None,
        max_clients: int = 4,
        app_env: dict[str, str] | None = None,
        loopback: bool = False,
    ) -> None:
        super().__init__(
            " ".join(argv), host=host, port=port, title="ponder", public_url=public_url
        )
        self.argv = argv
        self.token = token or secrets.token_urlsafe(32)
        self.max_clients = max_clients
        self.app_env = dict(app_env or {})
        self.apps: set[_App] = set()
        self.origins = {url_origin(self.public_url)}
        if loopback:
            # The page may be opened by any of this machine's names for itself.
            self.origins |= {
                url_origin(f"{scheme}://{name}:{port}")
                for scheme in ("http", "https")
                for name in ("127.0.0.1", "localhost", "[::1]")
            }
        self.origins.discard("")

    @property
    def page_url(self) -> str:
        """The address the owner opens: the public URL with the token."""
        return f"{self.public_url.rstrip('/')}/?token={self.token}"

    # -- checks ---------------------------------------------------------------------------------

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def _refuse(self, request: web.Request, status: int, why: str) -> web.Response:
        # The path is not logged whole: a websocket's holds the token.
        log.warning("refused %s from %s: %s", request.path[:3], request.remote, why)
        return web.Response(status=status, text=f"ponder serve: {why}\n", headers=_NO_STORE)

    # -- the web application --------------------------------------------------------------------

    async def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=1 << 16)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if not self._token_ok(request.query.get("token")):
            return self._refuse(
                request,
                403,
                "this page needs the address ponder serve printed when it started "
                "(it ends with ?token=...)",
            )
        base = self.public_url.rstrip("/")
        scheme = "wss" if base.startswith("https") else "ws"
        context = {
            "font_size": clamp_font(request.query.get("fontsize", "16")),
            "app_websocket_url": f"{scheme}:{base.split(':', 1)[1]}/ws/{self.token}",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.text = with_leave_guard(response.text or "")
        response.headers.update(_NO_STORE)
        # The token is in the page's address: no other site learns it from a Referer, and no
        # other site may frame the page.
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        return response

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if not self._token_ok(request.match_info.get("token")):
            return self._refuse(request, 403, "wrong or missing token")
        origin = request.headers.get("Origin")
        if origin is None or origin.lower().rstrip("/") not in self.origins:
            # Said to the owner as ASCII (the header is the client's own text), not echoed back.
            log.warning("refused a websocket from %s", ascii(origin)[:100])
            return self._refuse(request, 403, "a websocket from another site")
        if len(self.apps) >= self.max_clients:
            return self._refuse(
                request,
                503,
                f"{self.max_clients} browser tabs already play; close one, or start ponder "
                "serve with a larger --max-clients",
            )
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE_BYTES)
        width, height = clamp_size(request.query.get("width"), request.query.get("height"))
        service = _App(
            self.argv,
            self.app_env,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        # Counted from here until its process has ended: a tab closed and opened again at
        # once must not run more apps than allowed while the old one is still quitting.
        self.apps.add(service)
        try:
            await websocket.prepare(request)
            await service.start(width, height)
            log.info(
                "app %s started for %s (%d running)", service.pid, request.remote, len(self.apps)
            )
            await self._relay(websocket, service)
        except (asyncio.CancelledError, ConnectionError):
            pass
        except Exception as exc:  # a bug here must end this session, not the server
            log.error("app %s: %s: %s", service.pid, type(exc).__name__, exc)
        finally:
            await service.finish()
            self.apps.discard(service)
            with contextlib.suppress(Exception):
                await websocket.close()
            log.info("app %s ended (%d running)", service.pid, len(self.apps))
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, service: _App) -> None:
        """The browser's messages to its app; anything malformed is dropped."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):
                continue
            if not isinstance(envelope, list) or len(envelope) != 2:
                continue
            kind, data = envelope
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(data.get("width", 80), data.get("height", 24))
            elif kind == "ping" and isinstance(data, str | int | float):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def on_shutdown(self, app: web.Application) -> None:
        """Every app ends with the server (none is left behind holding the results file)."""
        await asyncio.gather(*(service.finish() for service in list(self.apps)))

    async def on_startup(self, app: web.Application) -> None:
        return None

    # -- running --------------------------------------------------------------------------------

    def initialize_logging(self) -> None:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
        # aiohttp's own reports (a malformed request from anyone who reaches the port) as one
        # line each, not a traceback.
        handler.addFilter(_one_line)
        for name in ("ponder.serve", "textual-serve", "aiohttp.server", "aiohttp.web"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [handler]
            logger.setLevel(logging.INFO)
            logger.propagate = False

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT or SIGTERM; one line a browser session, no request log (the
        websocket's address holds the token)."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, self.request_exit)
        try:
            web.run_app(
                self._make_app(),
                host=self.host,
                port=self.port,
                handle_signals=False,
                loop=loop,
                access_log=None,
                print=None,
            )
        finally:
            with contextlib.suppress(RuntimeError):
                loop.close()


_NO_STORE = {"Cache-Control": "no-store"}

LEAVE_GUARD = """<script>
  // ctrl+w deletes a word in a terminal and closes the tab in a browser, losing the game:
  // while the app runs the browser asks before the page goes (alt+backspace deletes the word).
  window.addEventListener("beforeunload", (event) => {
    const page = document.body.classList;
    if (page.contains("-first-byte") && !page.contains("-closed")) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
</script>
"""
"""The script the served page gets beside textual-serve's: the browser asks before a page
whose app still runs is closed or left (once the session has ended, it goes at once)."""


def with_leave_guard(page: str) -> str:
    """``page`` with :data:`LEAVE_GUARD` at the end of its body."""
    head, body_end, tail = page.rpartition("</body>")
    return f"{head}{LEAVE_GUARD}{body_end}{tail}" if body_end else page + LEAVE_GUARD


def _one_line(record: logging.LogRecord) -> bool:
    """Keep a log record to one line: its exception's type and message, no traceback."""
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        record.msg = f"{record.getMessage()}: {type(error).__name__}: {str(error)[:200]!r}"
        record.args = None
        record.exc_info = None
        record.exc_text = None
    return True


def clamp_font(value: str) -> int:
    """The page's font size in pixels, kept within 6..64."""
    try:
        return max(6, min(int(value), 64))
    except ValueError:
        return 16
