"""Keys stay quick beside a streaming solver: a tick applies solver events for at most its
budget and leaves the rest for later ticks, in order; a growing tree, a growing log and a
key typed into the box repaint themselves without laying out the whole screen; the lines of
a batch reach the log in order, in one write."""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import RichLog, Static

import tui.screens.puzzle as puzzle_module
from puzzles.game24 import Hand
from solver import events as ev
from solver.settings import Settings
from tui.app import FULL_COLLECTION_EVERY, PonderApp, make_app
from tui.screens.game24 import Game24Screen
from tui.widgets.solver_pane import SolverPane, ThoughtTree

SIZE = (120, 40)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


def receive(screen: Game24Screen, events: list[ev.Event]) -> None:
    """The events reach the screen as a run's do, waiting for its next tick."""
    for event in events:
        screen.receive(event)


def thoughts(n: int, tree: str = "t1") -> list[ev.Event]:
    """``n`` thoughts in one tree, each with its arithmetic checked."""
    out: list[ev.Event] = [
        ev.TreeStarted(tree_id=tree, strategy="layer", temperature=0.7, top_p=0.9)
    ]
    for k in range(n):
        node = f"{tree}.n{k}"
        out.append(ev.ThoughtAdded(tree, node, None, f"{k} + 1 = {k + 1} (left: 1 1 {k})", 1))
        out.append(ev.ClaimVerified(node, f"{k} + 1", str(k + 1), str(k + 1), "exact", True))
    return out


async def open_game(pilot: Pilot[None]) -> tuple[Game24Screen, SolverPane]:
    screen = Game24Screen(Hand.parse("1 1 1 2"), "bench")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    pane = screen.query_one(SolverPane)
    pane.reset("bot", "offline")
    return screen, pane


async def test_a_tick_applies_events_for_its_budget_and_the_rest_on_later_ticks(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        slow = pane.apply_one

        def three_ms(event: ev.Event) -> None:  # every event takes 3 ms to show
            time.sleep(0.003)
            slow(event)

        monkeypatch.setattr(pane, "apply_one", three_ms)
        events = thoughts(20)  # 41 events
        receive(screen, events)
        started = time.perf_counter()
        screen.flush_events()
        took = time.perf_counter() - started
        shown = len(events) - len(screen.waiting)
        # 8 ms of budget: the event that crosses it is the last (3 of 3 ms: at most 3).
        assert 1 <= shown <= 3, shown
        assert took < 0.1
        assert list(screen.waiting) == events[shown:]  # the rest wait, in order
        ticks = 1
        while screen.waiting:
            screen.flush_events()
            ticks += 1
        assert ticks >= len(events) // 3
        assert list(pane.nodes) == [f"t1.n{k}" for k in range(20)]
        assert pane.counts["exact"] == 20


async def test_a_tick_applies_at_least_one_event_and_everything_means_all(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(puzzle_module, "FLUSH_BUDGET", 0.0)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        events = thoughts(5)
        receive(screen, events)
        screen.flush_events()
        assert len(screen.waiting) == len(events) - 1  # a spent budget still shows one
        screen.flush_events(everything=True)  # a stop or a replay's end: all at once
        assert screen.waiting == ()
        assert len(pane.nodes) == 5


async def test_streaming_thoughts_and_typing_lay_out_no_screen(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        await pilot.press("e")  # into the expression box
        await pilot.pause()
        layouts: list[Any] = []
        refresh_layout = Screen._refresh_layout

        def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
            layouts.append(self)
            refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        for batch in range(6):
            receive(screen, thoughts(8, f"t{batch}"))
            screen.flush_events(everything=True)
            await pilot.pause()
        await pilot.press("1", "plus", "2")
        await pilot.pause()
        tree = pane.query_one(ThoughtTree)
        # The tree outgrew its height: it scrolls, with its scrollbar shown (which lays out
        # the screen, as a scrollbar appearing must; so may the clock in the title, once a
        # second). Laid out on every batch and key, it was 9 or more.
        assert tree.virtual_size.height == 6 + 6 * 8 > tree.size.height
        assert tree.show_vertical_scrollbar and tree.max_scroll_y > 0
        assert len(layouts) <= 3, f"{len(layouts)} layouts for 6 batches and 3 keys"
        assert screen.query_one("#expression").value == "1+2"  # type: ignore[attr-defined]
        log = pane.query_one("#arith", RichLog)
        assert log.virtual_size.height == 48
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y  # shows the last


async def test_a_batchs_log_lines_arrive_in_order_and_a_reset_drops_them(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        _, pane = await open_game(pilot)
        log = pane.query_one("#arith", RichLog)
        pane.apply(thoughts(3))
        await pilot.pause()
        lines = [strip.text.rstrip() for strip in log.lines]
        assert lines == ["✓ 0 + 1 = 1", "✓ 1 + 1 = 2", "✓ 2 + 1 = 3"]
        # A run starting afresh within a batch clears what that batch had written before.
        pane.running = False
        pane.apply([*thoughts(2, "old"), ev.RunStarted("bot", "1 1 1 2", "game24", "offline")])
        await pilot.pause()
        assert log.lines == []
        status = pane.query_one("#solver-status", Static)
        assert "thinking…" in str(status.render())


async def test_full_garbage_collections_are_rare_while_the_app_runs(app: PonderApp) -> None:
    """A full collection stalled a frame for 30-100 ms about once a second beside a streaming
    solver: while the app runs they come a tenth as often (the young generations still run
    as they did)."""
    young, middle, _ = gc.get_threshold()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == (young, middle, FULL_COLLECTION_EVERY)


async def test_a_key_is_drawn_before_the_solvers_events_which_come_less_often_while_typing(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        await pilot.press("e", "1")
        await pilot.pause()
        # A key came and its frame was drawn.
        assert time.perf_counter() - app.last_key_at < 5 and not app.key_unseen
        receive(screen, thoughts(2))
        waiting = len(screen.waiting)
        # A key waits for its frame: nothing else is shown first.
        app.key_unseen, app.last_key_at = True, time.perf_counter()
        screen.flush_events()
        assert len(screen.waiting) == waiting
        # Typing: a batch at most every TYPING_FLUSH_SECONDS.
        app.key_unseen = False
        screen._flushed_at = time.perf_counter()
        screen.flush_events()
        assert len(screen.waiting) == waiting
        screen._flushed_at -= puzzle_module.TYPING_FLUSH_SECONDS
        screen.flush_events()
        assert screen.waiting == () and len(pane.nodes) == 2
        # Not typing any more: every tick shows what came.
        app.last_key_at -= puzzle_module.TYPING_SECONDS
        receive(screen, thoughts(1, "t2"))
        screen.flush_events()
        assert screen.waiting == ()
        # A key whose frame never came (its screen closed) holds nothing up for long.
        app.key_unseen = True
        app.last_key_at = time.perf_counter() - puzzle_module.KEY_FRAME_WAIT - 0.01
        screen._flushed_at -= puzzle_module.TYPING_FLUSH_SECONDS  # (and a batch is due)
        receive(screen, thoughts(1, "t3"))
        screen.flush_events()
        assert screen.waiting == () and len(pane.nodes) == 4


async def test_what_a_stopped_run_still_sends_is_not_shown(app: PonderApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        receive(screen, thoughts(1))
        stopped_run = screen._run_number
        screen.stop_solver()  # shows what came before the stop
        assert list(pane.nodes) == ["t1.n0"]
        # The run's loop ends it a moment later; an event sent meanwhile is dropped.
        screen._inbox.append((stopped_run, thoughts(1, "late")[1]))
        screen.flush_events(everything=True)
        assert list(pane.nodes) == ["t1.n0"] and screen.waiting == ()


async def test_a_full_speed_solver_waits_when_far_ahead_of_the_screen(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(puzzle_module, "BACKLOG", 30)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        # The screen shows nothing: a key's frame is always due.
        app.key_unseen, app.last_key_at = True, time.perf_counter() + 3600
        assert screen.start_solver()
        deadline = time.monotonic() + 10
        while len(screen.waiting) < 30 and time.monotonic() < deadline:
            await pilot.pause(0.02)
        await pilot.pause(0.3)  # the run had time for hundreds more
        assert 30 <= len(screen.waiting) <= 31 and pane.running
        app.key_unseen = False
        app.last_key_at = float("-inf")
        # Shown, the run goes on.
        while len(pane.nodes) < 40 and time.monotonic() < deadline + 10:
            await pilot.pause(0.02)
        assert len(pane.nodes) >= 40
        screen.stop_solver()


async def test_the_thought_tree_redraws_only_the_lines_that_changed(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Tree

    drawn: list[str] = []
    draw = Tree._render_line

    def counted(self: Tree[Any], y: int, *args: Any) -> Any:
        if y < len(self._tree_lines):
            drawn.append(str(self._tree_lines[y].node.label))
        return draw(self, y, *args)

    monkeypatch.setattr(Tree, "_render_line", counted)
    async with app.run_test(size=SIZE) as pilot:
        _, pane = await open_game(pilot)
        tree = pane.query_one(ThoughtTree)
        first = tree.root.add("first", expand=True)
        second = tree.root.add("second", expand=True)
        await pilot.pause()
        assert {"first", "second"} <= set(drawn)
        drawn.clear()
        second.add_leaf("a child")  # Textual's tree forgets all its lines here
        await pilot.pause()
        assert drawn == ["second", "a child"]  # (second gets its fold mark)
        drawn.clear()
        first.set_label("first, relabelled")
        await pilot.pause()
        assert drawn == ["first, relabelled"]
        drawn.clear()
        first.add_leaf("under first")  # every line below moves a row: drawn again
        await pilot.pause()
        assert sorted(drawn) == sorted(["first, relabelled", "under first", "second", "a child"])


async def test_a_result_counts_only_for_the_run_shown_and_from_when_it_came(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await open_game(pilot)
        finished = ev.RunFinished("", False, "no answer", 3, 10, 10, 0.0, 1.0)
        screen._inbox.append((screen._run_number - 1, finished))  # a stopped run's
        screen._drain()
        assert screen.solver_result is None
        app.key_unseen, app.last_key_at = True, time.perf_counter() + 3600  # nothing shown
        screen._inbox.append((screen._run_number, finished))
        screen.flush_events()
        assert screen.solver_result is finished  # noted though not shown yet
        # A retry notice goes with the run its task works for.
        token = puzzle_module._driving.set(screen._run_number - 1)
        try:
            screen._retrying("timeout", 1, 0.5)
        finally:
            puzzle_module._driving.reset(token)
        assert all(not isinstance(e, ev.ErrorRaised) for e in screen.waiting)


async def test_a_frozen_clock_does_not_hold_the_solvers_events(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tui.harness import FrozenClock

    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_game(pilot)
        await pilot.press("e", "1")
        receive(screen, thoughts(2))
        deadline = time.perf_counter() + 10
        while len(pane.nodes) < 2 and time.perf_counter() < deadline:
            await pilot.pause(0.05)
        assert len(pane.nodes) == 2
