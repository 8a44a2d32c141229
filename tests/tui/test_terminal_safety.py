"""Text from outside never drives the terminal.

Model replies, server errors, puzzle files and traces may hold escape sequences (set the
window title, clear the screen) and Rich markup. Every output path shows them as visible
escapes and literal text: the headless CLI (readable and ``--json``), ``ponder puzzles``,
``ponder replay``, the app's solver pane and its notifications.
"""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import RichLog, Static, Tree
from textual.widgets.tree import TreeNode

from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver import events as ev
from solver.model import ScriptedModel
from solver.settings import Settings
from solver.trace import TraceWriter, read_trace
from tests.puzzles.crossword_files import (
    CLUES,
    PUZ_CLUES,
    PUZ_SOLUTION,
    build_puz,
    ipuz_doc,
    tot_entry,
)
from tests.tui.harness import Notice, wait_for
from tui.app import PonderApp, Replay, make_app
from tui.cli import main
from tui.cli.printer import EventPrinter
from tui.screens.game24 import Game24Screen
from tui.screens.settings import SettingsScreen
from tui.widgets.solver_pane import SolverPane

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b2J\u202e\x7f"
"""Set the window title, clear the screen (ESC and C1 forms), reverse the text, DEL."""
MARKUP = "[bold red]boom[/] [@click=app.quit]quit[/]"
HOSTILE = f"{ESCAPES} {MARKUP}"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_safe(text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})
    assert not found, f"raw control characters reached the terminal: {found}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert_safe(out)
    assert_safe(err)
    return code, out, err


COT_REPLY = f"{HOSTILE}\n4 + 8 = 12 (left: 7 8 12)\nAnswer: (4 + 8) * (8 - 7) {HOSTILE}"


# ------------------------------------------------------------------ the headless CLI


def test_solve_shows_a_hostile_reply_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeServer(reply=lambda request, index: COT_REPLY) as server:
        argv = ["solve", "24", "4 7 8 8", "--method", "cot", "--base-url", server.url]
        run(capsys, *argv, "--model", "fake-model", "-v")
        _, out, _ = run(capsys, *argv, "--model", "fake-model", "--json")
    called = [json.loads(line) for line in out.splitlines() if '"ModelCalled"' in line]
    assert called and called[0]["replies"] == [COT_REPLY]  # --json keeps the reply exactly


class _Refusing(BaseHTTPRequestHandler):
    """A server whose every error message carries escape sequences and markup."""

    def do_GET(self) -> None:
        self.do_POST()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        error = {"message": HOSTILE, "type": "invalid_request_error", "param": None, "code": None}
        body = json.dumps({"error": error}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def refusing_server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_server_error_message_is_shown_as_text(
    capsys: pytest.CaptureFixture[str], refusing_server: str
) -> None:
    common = ("--method", "io", "--base-url", refusing_server, "--model", "m", "--timeout", "5")
    _, out, _ = run(capsys, "solve", "24", "4 7 8 8", *common)
    assert "error (bad_request)" in out and "\\x1b]0;pwned\\x07" in out
    assert "[bold red]boom[/]" in out  # markup in the message is printed as it was written
    run(capsys, "solve", "24", "4 7 8 8", *common, "--json")
    _, out, _ = run(capsys, "bench", "24", "--hands", "4 7 8 8", *common)
    assert "pwned" in out


def every_event(text: str) -> list[ev.Event]:
    """One event of each kind, every string field holding ``text``."""
    return [
        ev.RunStarted("io", text, "game24", text, config={"note": text}),
        ev.IterationStarted(1, 2, text),
        ev.TreeStarted("t1", text, 0.7, 1.0),
        ev.ThoughtAdded("t1", "n1", None, text, 1, text, 1),
        ev.ThoughtScored("n1", 0.5, 0.25, (text, text), 1),
        ev.ThoughtPruned("n1", text),
        ev.LeafReached("n1", text),
        ev.SolutionFound("n1", text),
        ev.ChainAggregated(1, text, ("n1",), (text, text), 0.5),
        ev.ClaimVerified("n1", text, text, text, "wrong", False, text),
        ev.ClaimVerified("n1", text, text, text, "invalid", False, text),
        ev.ExperienceAdded(1, (text,), text, (text, text), 0.5, text, False, ("reject",)),
        ev.ModelCalled(1, "propose", text, (text, text), 0.7, 1.0),
        ev.ParseFailed("propose", text, text),
        ev.ErrorRaised("server", text),
        ev.RunFinished(text, False, text, 1, 2, 3, None, 0.5, text),
    ]


def test_the_event_printer_shows_every_field_as_text() -> None:
    buffer = io.StringIO()
    printer = EventPrinter(Console(file=buffer, highlight=False, width=400), verbose=True)
    for event in every_event(HOSTILE):
        printer(event)
    out = buffer.getvalue()
    assert_safe(out)
    assert "\\x1b]0;pwned\\x07" in out and MARKUP in out


def hostile_trace(path: Path) -> Path:
    header = {"method": "io", "puzzle": "4 7 8 8", "target": 24, "model": f"m{ESCAPES}"}
    with TraceWriter(path, header) as writer:
        for event in every_event(HOSTILE):
            writer.write(event)
    return path


def test_replay_prints_a_hostile_trace_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = hostile_trace(tmp_path / "run.jsonl")
    assert_safe(trace.read_text(encoding="utf-8"))  # `cat trace` is safe too
    _, events = read_trace(trace)
    assert list(events) == every_event(HOSTILE)  # and the trace holds the text exactly
    _, out, _ = run(capsys, "replay", str(trace), "--print", "-v")
    assert "\\x1b]0;pwned" in out and MARKUP in out
    _, out, _ = run(capsys, "replay", str(trace), "--json")
    assert json.loads(out.splitlines()[3])["text"] == HOSTILE


def test_error_messages_quoting_a_file_name_are_shown_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / f"no{ESCAPES}such.jsonl"), "--print")
    assert code == 2 and "\\x1b]0;pwned" in err


# ------------------------------------------------------------------ puzzle files


def _write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def crossword_files(tmp_path: Path) -> list[Path]:
    clues = [f"{CLUES[0]} {HOSTILE}", *CLUES[1:]]
    doc = ipuz_doc(title=f"Tiny {ESCAPES}", author=f"A {HOSTILE}")
    doc["clues"]["Across"][0] = [1, f"Feline {HOSTILE}"]
    puz_clues = [f"{PUZ_CLUES[0]} \x1b[2J\x1b]0;pwned\x07", *PUZ_CLUES[1:]]
    return [  # file names are outside text too: --check prints them
        _write(tmp_path / f"minis{ESCAPES}.json", json.dumps([tot_entry(clues=clues)])),
        _write(tmp_path / f"tiny{ESCAPES}.ipuz", json.dumps(doc)),
        _write(tmp_path / "tiny.puz", build_puz(PUZ_SOLUTION, puz_clues, title="T\x1b[2J")),
    ]


@pytest.mark.parametrize("extra", [(), ("--check",), ("--solution",), ("--json",)])
def test_crossword_clues_and_titles_are_printed_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: tuple[str, ...]
) -> None:
    for path in crossword_files(tmp_path):
        code, out, _ = run(capsys, "puzzles", "crossword", "--load", str(path), *extra)
        assert code in (0, 1)
        if not extra:
            assert "\\x1b" in out


def test_word_problems_from_a_file_are_printed_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = [
        {"question": f"Tom has 3 apples. {HOSTILE} How many?", "answer": "3 + 2 = 5\n#### 5"},
        {"question": "Sue has 2 pens.", "answer": f"She buys 2 * 3 = 7 <<2*3=7>>{ESCAPES}\n#### 7"},
    ]
    lines = "\n".join(json.dumps(r) for r in records) + "\n"
    path = _write(tmp_path / f"gsm8k{ESCAPES}.jsonl", lines)  # a file name is outside text too
    _, out, _ = run(capsys, "puzzles", "wordproblem", "--load", str(path))
    assert "\\x1b]0;pwned" in out and MARKUP in out
    code, out, _ = run(capsys, "puzzles", "wordproblem", "--load", str(path), "--check")
    assert code == 1 and "gsm8k\\x1b]0;pwned" in out
    run(capsys, "puzzles", "wordproblem", "--load", str(path), "--json")
    run(capsys, "puzzles", "wordproblem", "--load", str(path), "--check", "--json")


# ------------------------------------------------------------------ the app


def tree_labels(node: TreeNode[str]) -> Iterator[str]:
    for child in node.children:
        label = child.label
        yield label if isinstance(label, str) else label.plain
        yield from tree_labels(child)


def pane_text(screen: Game24Screen) -> str:
    """Everything the solver pane shows: status, tree labels and every log line."""
    pane = screen.query_one(SolverPane)
    parts = [str(pane.query_one("#solver-status", Static).render())]
    parts += tree_labels(pane.query_one("#thoughts", Tree).root)
    for log in pane.query(RichLog):
        parts += [line.text for line in log.lines]
    return "\n".join(parts)


async def test_the_solver_pane_shows_a_hostile_reply_as_text(tmp_path: Path) -> None:
    app = make_app(
        Settings(),
        model=lambda: ScriptedModel([COT_REPLY], name=f"scripted{ESCAPES}"),
        store_path=tmp_path / "r.sqlite3",
    )
    app.method_name = "cot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        pane.show_details(next(iter(pane.nodes)))  # the prompt and the whole reply
        await pilot.pause(0.1)
        shown = pane_text(screen)
        assert_safe(shown)
        assert "\\x1b]0;pwned\\x07" in shown and MARKUP in shown
        # Every event kind, every field: escapes visible, markup literal, the app still up.
        pane.apply(every_event(HOSTILE))
        pane.show_details("n1")
        await pilot.pause(0.1)
        shown = pane_text(screen)
        assert_safe(shown)
        assert MARKUP in shown
        assert any(MARKUP in label for label in tree_labels(pane.query_one(Tree).root))
        assert_safe(app.export_screenshot())
        assert app.is_running


async def test_notifications_show_outside_text_as_text(
    tmp_path: Path, toasts: list[Notice]
) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify(f"cannot save: {HOSTILE}", title=f"store {ESCAPES}", severity="error")
        await pilot.pause(0.1)
        (notification,) = toasts
        assert_safe(notification.message + notification.title)
        assert MARKUP in notification.message
        assert_safe(app.export_screenshot())


async def test_the_settings_connection_test_shows_a_server_message_as_text(
    tmp_path: Path, refusing_server: str
) -> None:
    settings = Settings(engine="openai", base_url=refusing_server, model="m", timeout=5)
    app = make_app(settings, store_path=tmp_path / "r.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        app.action_settings()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.action_test()
        message = screen.query_one("#settings-message", Static)
        await wait_for(pilot, lambda: "Connecting" not in str(message.render()))
        shown = str(message.render())
        assert_safe(shown)
        assert "\\x1b]0;pwned" in shown and MARKUP in shown


async def test_a_replayed_trace_is_shown_as_text(tmp_path: Path) -> None:
    header, events = read_trace(hostile_trace(tmp_path / "run.jsonl"))
    replay = Replay(header, list(events))
    replay.speed = 64.0
    app: PonderApp = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None)
        shown = pane_text(screen)
        assert_safe(shown)
        assert "\\x1b]0;pwned" in shown and MARKUP in shown
        assert_safe(app.export_screenshot())
