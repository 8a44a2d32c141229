"""``ponder serve`` in a real browser: headless Chromium loads the page, and keys typed into it
reach the app (a hand of one's own is typed on the home screen, then a solution to it), which
records the win in the results store. Screenshots of the page before and after are taken.

Skipped where Chromium is not installed (Debian: ``apt-get install chromium``). The browser
is driven over the DevTools protocol with aiohttp (textual-serve's own dependency), and it
resolves no name but 127.0.0.1's, so nothing leaves the machine; every wait is bounded.
``BROWSER_CHECK_SHOTS=DIR`` keeps the screenshots in DIR to look at.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from solver.settings import data_dir, load_settings
from tests.tui.serving import Served, launch, stop_process
from tui.app import make_app
from tui.store import FILE_NAME, ResultStore

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)

HAND, SOLUTION = "4 7 8 8", "(7-8/8)*4"
ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])")
WINDOW = (1280, 800)
NO_NETWORK = [
    # Every host name but 127.0.0.1 fails to resolve (the page links a web font, and Chromium
    # would phone home for updates): nothing leaves the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
]


class DevTools:
    """One page of Chromium, driven over the DevTools protocol."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, shots: Path) -> None:
        self.ws = ws
        self.shots = shots
        self.sent = 0
        self.size: tuple[int, int] | None = None
        """The terminal's columns and rows, as the page told the server."""
        self.screen = ""
        """The text the app has drawn so far (its output less the escape sequences)."""

    def _seen(self, event: dict[str, Any]) -> None:
        """Keep what the page and the app say to each other over the app's websocket."""
        frame = event.get("params", {}).get("response", {})
        if event.get("method") == "Network.webSocketFrameSent" and frame.get("opcode") == 1:
            message = json.loads(frame["payloadData"])
            if message[0] == "resize":
                self.size = (message[1]["width"], message[1]["height"])
        elif event.get("method") == "Network.webSocketFrameReceived" and frame.get("opcode") == 2:
            drawn = base64.b64decode(frame["payloadData"]).decode("utf-8", "replace")
            self.screen += ESCAPE.sub("", drawn)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.sent += 1
        ident = self.sent
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        while True:  # events of the page come between; the reply carries our id
            message = await self.ws.receive_json()
            self._seen(message)
            if message.get("id") == ident:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    async def value(self, expression: str) -> object:
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return reply["result"].get("value")

    async def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1
            )

    async def key(self, key: str, keycode: int, text: str = "", modifiers: int = 0) -> None:
        """A key with no character of its own (Tab, Enter) pressed and released; modifiers:
        1 alt, 2 ctrl, 4 meta, 8 shift."""
        down = {
            "key": key,
            "code": key,
            "windowsVirtualKeyCode": keycode,
            "modifiers": modifiers,
        }
        await self.send("Input.dispatchKeyEvent", type="keyDown", **down, text=text)
        await self.send("Input.dispatchKeyEvent", type="keyUp", **down)

    async def type(self, text: str) -> None:
        """Characters typed one at a time, as the keyboard's text input delivers them."""
        for char in text:
            await self.send("Input.insertText", text=char)

    async def event(self, method: str, seconds: float = 30) -> dict[str, Any]:
        """The parameters of the page's next ``method`` event (no command is sent meanwhile:
        a page showing a dialog answers none)."""
        async with asyncio.timeout(seconds):
            while True:
                received = await self.ws.receive()
                if received.type != aiohttp.WSMsgType.TEXT:
                    raise AssertionError(f"the page went before {method} came")
                message = json.loads(received.data)
                self._seen(message)
                if message.get("method") == method:
                    params: dict[str, Any] = message["params"]
                    return params

    async def screenshot(self, path: Path) -> bytes:
        png = base64.b64decode((await self.send("Page.captureScreenshot", format="png"))["data"])
        path.write_bytes(png)
        return png

    async def until(self, ready: Callable[[], object], what: str) -> None:
        """Wait (30 s at most) for ``ready``: a busy machine draws late."""
        for _ in range(120):
            if ready():
                return
            await asyncio.sleep(0.25)
            await self.send("Runtime.evaluate", expression="0")  # takes in the frames since
        await self.screenshot(self.shots / "timed-out.png")
        raise AssertionError(f"timed out waiting for {what} (see {self.shots}/timed-out.png)")


@pytest.fixture
def served_app() -> Iterator[Served]:
    """``ponder serve`` on a free port of 127.0.0.1 (the test's own data dir)."""
    server = launch()
    try:
        yield server
    finally:
        stop_process(server.proc)


@pytest.fixture
def chromium() -> Iterator[int]:
    """Headless Chromium with no network but the loopback; yields its DevTools port."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",  # tests run as root in CI
                "--disable-gpu",
                f"--window-size={WINDOW[0]},{WINDOW[1]}",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                *NO_NETWORK,
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            active = Path(profile) / "DevToolsActivePort"
            for _ in range(300):  # 30 s
                if active.exists() and len(active.read_text().split()) >= 2:
                    break
                if proc.poll() is not None:
                    pytest.fail(f"Chromium exited with {proc.returncode}")
                time.sleep(0.1)
            else:
                pytest.fail("Chromium did not open its DevTools port")
            yield int(active.read_text().split()[0])
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


async def own_hand_box(columns: int, rows: int) -> tuple[float, float]:
    """Where home's "Your own" box is, in cells (its middle), as the app lays out a screen of
    that size (so a new field on home does not break this test)."""
    app = make_app(load_settings(), use_store=False, seed=1)
    async with app.run_test(size=(columns, rows)):
        region = app.screen.query_one("#own").region
        return region.x + region.width / 2, region.y + region.height / 2


async def click_own_box(page: DevTools) -> None:
    """A click on home's "Your own" box, where the app puts it on a terminal of the page's
    size."""
    assert page.size is not None, "the page never told the app its size"
    box = await page.value(
        "JSON.stringify(document.querySelector('.xterm-screen').getBoundingClientRect())"
    )
    assert isinstance(box, str)
    rect = json.loads(box)
    x, y = await own_hand_box(*page.size)
    await page.click(
        rect["left"] + x * rect["width"] / page.size[0],
        rect["top"] + y * rect["height"] / page.size[1],
    )


async def drive(page: DevTools, server: Served, shots: Path) -> None:
    await page.send("Network.enable")
    await page.send("Page.enable")
    await page.send("Page.navigate", url=f"{server.origin}{server.page}")
    await page.until(lambda: "Pick Game of 24" in page.screen, "the app to draw home")
    await asyncio.sleep(1)  # the rest of the first frames
    first = await page.screenshot(shots / "home.png")
    await click_own_box(page)
    page.screen = ""
    await page.type(HAND)
    # Enter once the box shows the hand (not its placeholder, "4 7 8 8, or ..."): a key
    # pressed while the page still sends the typed text can be lost on a busy machine.
    await page.until(lambda: re.search(f"{HAND}(?!,)", page.screen), "the hand to show")
    page.screen = ""
    await page.key("Enter", 13, "\r")
    await page.until(lambda: "Pick a card" in page.screen, "the hand's screen to open")
    page.screen = ""
    await page.type("e" + SOLUTION)
    await page.until(lambda: SOLUTION in page.screen, "the expression to show")
    await page.key("Enter", 13, "\r")
    await page.until(lambda: "Solved!" in page.screen, "the app to say the hand is solved")
    await asyncio.sleep(0.5)
    assert await page.screenshot(shots / "solved.png") != first


def test_keys_typed_in_chromium_reach_the_served_app(
    served_app: Served, chromium: int, tmp_path: Path
) -> None:
    shots = Path(os.environ.get("BROWSER_CHECK_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)

    in_chromium(chromium, shots, lambda page: drive(page, served_app, shots))
    with ResultStore(data_dir() / FILE_NAME) as store:
        results = store.recent(5)
    assert [(r.kind, r.puzzle, r.solved) for r in results] == [("game24", HAND, True)]


async def _page(http: aiohttp.ClientSession, chromium: int) -> Any:
    async with http.get(f"http://127.0.0.1:{chromium}/json/list") as reply:
        targets = await reply.json()
    return next(t for t in targets if t["type"] == "page")


def in_chromium(
    chromium: int, folder: Path, scenario: Callable[[DevTools], Awaitable[None]]
) -> None:
    """Run ``scenario`` on Chromium's open page (its screenshots kept in ``folder``), within
    two minutes."""

    async def run() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
            target = await _page(http, chromium)
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                await scenario(DevTools(ws, folder))

    asyncio.run(asyncio.wait_for(run(), timeout=120))


def test_a_page_of_another_site_cannot_start_the_app_even_with_the_token(
    served_app: Served, chromium: int, tmp_path: Path
) -> None:
    """The page of another site (here another port of 127.0.0.1) opens the served app's
    websocket from the browser, token and all: the server refuses it and starts no app; the
    served page without its token is refused too."""
    (tmp_path / "evil.html").write_text(
        "<script>const s = new WebSocket("
        f"'ws://127.0.0.1:{served_app.port}/ws/{served_app.token}?width=80&height=24');"
        "s.onopen = () => { document.title = 'opened'; };"
        "s.onerror = () => { document.title = 'refused'; };</script>"
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        evil_port = probe.getsockname()[1]
    evil = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(evil_port), "--bind", "127.0.0.1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    async def title_after(url: str) -> str:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
            target = await _page(http, chromium)
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                page = DevTools(ws, tmp_path)
                await page.send("Page.enable")
                await page.send("Page.navigate", url=url)
                end = time.monotonic() + 20
                while time.monotonic() < end:
                    title = await page.value("document.title + '|' + document.body.innerText")
                    if isinstance(title, str) and title.split("|")[0] in ("opened", "refused"):
                        return title
                    if isinstance(title, str) and "ponder serve:" in title:
                        return title
                    await asyncio.sleep(0.2)
                return "timed out"

    try:
        _wait_port(evil_port)
        said = asyncio.run(title_after(f"http://127.0.0.1:{evil_port}/evil.html"))
        assert said.startswith("refused|"), said
        said = asyncio.run(title_after(f"{served_app.origin}/"))
        assert "needs the address ponder serve printed" in said
        assert _children(served_app.proc.pid) == []
    finally:
        evil.terminate()
        evil.wait(timeout=10)


def _wait_port(port: int) -> None:
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"nothing listens on port {port}")


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


async def stand_in_keys(page: DevTools, server: Served) -> None:
    await page.send("Network.enable")
    await page.send("Page.enable")
    await page.send("Page.navigate", url=f"{server.origin}{server.page}")
    await page.until(lambda: "Pick Game of 24" in page.screen, "the app to draw home")
    await asyncio.sleep(1)  # the rest of the first frames
    # The keys go to the terminal's text area, as after a click on the page.
    await page.value("document.querySelector('.xterm-helper-textarea').focus()")
    page.screen = ""
    await page.key("ArrowDown", 40)  # home's list of kinds: Mini crosswords
    await page.key("Enter", 13, "\r")
    await page.until(lambda: re.search(r"Mini #\d+", page.screen), "a mini to open")
    first = re.findall(r"Mini #(\d+)", page.screen)[-1]
    # The footer names the key that reaches the app in a browser: f2, not ^n.
    await page.until(lambda: "f2 New" in page.screen, "the footer to show f2")
    assert "^n New" not in page.screen
    page.screen = ""
    await page.key("F2", 113)  # a new mini (ctrl+n opens a browser window)
    await page.until(
        lambda: any(n != first for n in re.findall(r"Mini #(\d+)", page.screen)),
        "f2 to deal another mini",
    )
    page.screen = ""
    await page.key("F3", 114)  # the legend (ctrl+t opens a browser tab)
    await page.until(lambda: "What the solver pane shows" in page.screen, "f3: the legend")
    await page.key("Escape", 27, "\x1b")
    await asyncio.sleep(0.5)
    apps = _children(server.proc.pid)
    assert apps, "no app runs for the page"
    await page.key("F10", 121)  # quit (Firefox on Linux quits itself on ctrl+q)
    for _ in range(80):
        if not set(apps) & set(_children(server.proc.pid)):
            return
        await asyncio.sleep(0.25)
    raise AssertionError("f10 did not quit the app")


def test_the_stand_ins_for_keys_a_browser_keeps_reach_the_served_app(
    served_app: Served, chromium: int, tmp_path: Path
) -> None:
    """In the page, the crossword's footer shows f2 for a new mini; f2 deals one, f3 opens
    the legend and f10 quits the app (a browser keeps ctrl+n, ctrl+t and ctrl+q)."""

    in_chromium(chromium, tmp_path, lambda page: stand_in_keys(page, served_app))


async def leave_guard(page: DevTools, server: Served) -> None:
    await page.send("Network.enable")
    await page.send("Page.enable")
    await page.send("Page.navigate", url=f"{server.origin}{server.page}")
    await page.until(lambda: "Pick Game of 24" in page.screen, "the app to draw home")
    await asyncio.sleep(1)  # the rest of the first frames
    await click_own_box(page)
    await page.type(HAND)
    await page.until(lambda: re.search(f"{HAND}(?!,)", page.screen), "the hand to show")
    page.screen = ""
    # alt+backspace stands in for the Input's ctrl+w: the last word goes.
    await page.key("Backspace", 8, modifiers=1)
    await page.until(lambda: re.search(r"4 7 8 (?!8)", page.screen), "a word deleted")
    # Leaving the page (what ctrl+w does to a tab) asks first while the app runs.
    await page.ws.send_json({"id": 10_000, "method": "Page.close", "params": {}})
    dialog = await page.event("Page.javascriptDialogOpening")
    assert dialog["type"] == "beforeunload"
    await page.send("Page.handleJavaScriptDialog", accept=False)  # stay
    await asyncio.sleep(0.5)
    assert await page.value("document.body.classList.contains('-closed')") is False


def test_the_page_asks_before_it_closes_and_alt_backspace_deletes_a_word(
    served_app: Served, chromium: int, tmp_path: Path
) -> None:
    """ctrl+w closes a browser's tab (in a terminal it deletes the word before the cursor):
    the served page asks before it goes while its app runs, and alt+backspace, which the
    terminal in the page sends as the bytes of ctrl+w, deletes the word instead."""

    in_chromium(chromium, tmp_path, lambda page: leave_guard(page, served_app))
