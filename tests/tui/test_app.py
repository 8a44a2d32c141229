"""The app, driven through Textual's Pilot: play by keys, run the solver, settings, help."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, RichLog, Static, TabbedContent, Tree

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.methods import make_method, run_method
from solver.model.offline import OfflineModel
from solver.settings import Settings, load_settings
from solver.trace import TraceWriter, read_trace
from tests.tui.harness import GatedModel, open_hand, wait_for
from tui.app import PonderApp, Replay, make_app
from tui.screens.dialogs import HelpScreen, SolutionsDialog
from tui.screens.game24 import Game24Screen
from tui.screens.home import HomeScreen
from tui.screens.settings import SettingsScreen
from tui.store import ResultStore
from tui.widgets.solver_pane import SolverPane


def app_for(tmp_path: Path, **kwargs: object) -> PonderApp:
    return make_app(Settings(), store_path=tmp_path / "results.sqlite3", seed=1, **kwargs)  # type: ignore[arg-type]


def text_of(screen: Game24Screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_home_shows_kinds_model_and_opens_a_game(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, HomeScreen)
        assert "offline engine" in str(app.screen.query_one("#model-line", Static).render())
        assert "No games yet" in str(app.screen.query_one("#stats", Static).render())
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen)
        assert len(app.screen.hand.numbers) == 4


async def test_play_a_hand_to_a_win_by_keys(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 2 3 4")
        for _ in range(3):  # 1*2=2, 2*3=6, 6*4=24: always the first two cards
            await pilot.press("1", "asterisk", "2")
        assert screen.board.solved
        assert "Solved" in text_of(screen, "#message")
        assert screen.query_one("#puzzle").has_class("-won")
        await app.workers.wait_for_complete()  # results are saved on a worker thread
        stats = ResultStore(tmp_path / "results.sqlite3").stats()
        assert stats.played == 1 and stats.solved == 1 and stats.current_streak == 1


async def test_steps_are_exact_and_undo_and_reset_work(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "3 3 8 8")
        await pilot.press("3", "slash", "1")  # 8 / 3 stays a fraction
        assert [c.label for c in screen.board.cards] == ["3", "8/3", "8"]
        assert "8 ÷ 3 = 8/3" in text_of(screen, "#steps")
        await pilot.press("u")
        assert [c.label for c in screen.board.cards] == ["3", "3", "8", "8"]
        await pilot.press("1", "plus", "2", "r")
        assert len(screen.board.cards) == 4 and not screen.board.steps


async def test_typed_expressions_are_checked_exactly(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 2 3 4")
        await pilot.press("e")
        assert isinstance(app.focused, Input)
        await pilot.press(*"1+2+3+4", "enter")
        assert "equals 10, not 24" in text_of(screen, "#message")
        assert isinstance(app.focused, Input)
        app.focused.value = ""
        await pilot.press(*"(1+2+3)*4", "enter")
        assert "Solved" in text_of(screen, "#message")


async def test_hints_progress_and_give_up_shows_all_solutions(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "4 7 8 8")
        await pilot.press("h")
        assert "Nudge" in text_of(screen, "#message")
        await pilot.press("h")
        assert "First step" in text_of(screen, "#message")
        await pilot.press("h")
        assert "full solution" in text_of(screen, "#message")
        assert "×" in text_of(screen, "#message") and "*" not in text_of(screen, "#message")
        assert screen.hints_used == 3
        await pilot.press("g", "y")
        await pilot.pause()
        assert isinstance(app.screen, SolutionsDialog)
        solutions = str(app.screen.query_one("#solutions", Static).render())
        assert "= 24" in solutions and "*" not in solutions and "×" in solutions
        await pilot.press("escape")
        await app.workers.wait_for_complete()
    stats = ResultStore(tmp_path / "results.sqlite3").stats()
    assert stats.played == 1 and stats.solved == 0 and stats.hints_used == 3


async def test_solver_runs_beside_the_puzzle_and_fills_the_panes(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    app.method_options = {"trees": 3, "iterations": 3}
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "2 7 8 9")
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        tree = screen.query_one("#thoughts", Tree)
        assert len(pane.nodes) >= 3 and tree.root.children
        assert screen.query_one("#arith", RichLog).lines
        screen.query_one("#solver-tabs", TabbedContent).active = "tab-experience"
        await pilot.pause(0.1)
        experience = [line.text for line in screen.query_one("#experience", RichLog).lines]
        assert any("solved" in line or "Analysis" in line for line in experience)
        status = str(screen.query_one("#solver-status", Static).render())
        assert "BoT" in status and "calls" in status and "offline" in status


async def test_solver_can_be_stopped_and_restarted(tmp_path: Path) -> None:
    app = make_app(
        Settings(), model=lambda: OfflineModel(delay=0.02), store_path=tmp_path / "r.sqlite3"
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 1 1 2")  # no solution: the run goes on
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: len(pane.nodes) > 0)
        assert pane.running
        await pilot.press("s")
        await pilot.pause(0.2)
        assert not pane.running and pane.notice == "stopped"
        count = len(pane.nodes)
        await pilot.pause(0.3)
        assert len(pane.nodes) == count  # nothing arrives after a stop
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.running and len(pane.nodes) > 0)
        await pilot.press("s")


async def test_selecting_a_node_shows_its_prompt_and_reply(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    app.method_name = "tot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "4 5 6 10")
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        # A thought off the way to the answer (that way is hidden while the player plays).
        node_id = next(n for n, info in pane.nodes.items() if not info.wins)
        pane.show_details(node_id)
        await pilot.pause(0.1)
        details = "\n".join(line.text for line in screen.query_one("#details", RichLog).lines)
        assert "Possible next steps" in details and "reply 1" in details


async def test_settings_are_saved_without_the_key(tmp_path: Path) -> None:
    app = make_app(Settings(api_key="sk-secret-abcdef123456"), store_path=tmp_path / "r.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "sk-secret-abcdef123456" not in str(app.screen.query_one("#api-key").render())
        app.screen.query_one("#model", Input).value = "llama3.1:8b"
        app.screen.query_one("#base-url", Input).value = "http://127.0.0.1:11434/v1"
        app.screen.query_one("#concurrency", Input).value = "4"
        await pilot.click("#save")
        await pilot.pause()
        assert "Saved" in str(app.screen.query_one("#settings-message", Static).render())
    saved = load_settings()
    assert saved.model == "llama3.1:8b" and saved.concurrency == 4
    assert saved.base_url == "http://127.0.0.1:11434/v1"
    from solver.settings import config_path

    assert "sk-secret" not in config_path().read_text()


async def test_bad_settings_are_refused_with_a_message(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#concurrency", Input).value = "-3"
        await pilot.click("#save")
        await pilot.pause()
        assert "Not saved" in str(app.screen.query_one("#settings-message", Static).render())


async def test_help_lists_every_key(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_hand(app, pilot, "1 2 3 4")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = str(app.screen.query_one("#help-keys", Static).render())
        for words in ("Undo", "Hint", "Give up", "Solver", "pick a card"):
            assert words in keys
        await pilot.press("escape")
        assert isinstance(app.screen, Game24Screen)


async def test_replay_plays_a_trace_into_the_panes(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TraceWriter(path, {"method": "bot", "puzzle": "4 7 8 8", "model": "offline"}) as w:
        async for event in run_method(
            make_method("bot", iterations=2, trees=2),
            Game24Domain(Hand.parse("4 7 8 8")),
            OfflineModel(),
        ):
            w.write(event)
    header, events = read_trace(path)
    replay = Replay(header, list(events))
    replay.speed = 64.0
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None)
        assert pane.nodes and pane.model.endswith("(replay)")


async def test_typing_never_waits_for_a_running_solver(tmp_path: Path) -> None:
    model = GatedModel()
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "4 7 8 8")
        pane = screen.query_one(SolverPane)
        box = screen.query_one("#expression", Input)
        try:
            await pilot.press("s")
            await wait_for(pilot, lambda: model.started > 0)
            await pilot.press("e", *"(7-8/8)*4")
            # Every key reached the expression box, in order, none lost and none taken by
            # the cards, while the solver was held mid-call: no key waited for it.
            assert app.focused is box and box.value == "(7-8/8)*4"
            assert screen.first is None and not screen.board.steps
            assert pane.running and pane.finished is None
        finally:
            model.gate.set()
        await pilot.press("enter")
        assert "Solved" in text_of(screen, "#message")


async def test_a_hand_that_needs_fractions_is_won_by_keys(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "3 3 8 8")
        await pilot.press("3", "slash", "1")  # 8 / 3 = 8/3
        await pilot.press("1", "minus", "2")  # 3 - 8/3 = 1/3
        await pilot.press("2", "slash", "1")  # 8 / (1/3) = 24
        steps = text_of(screen, "#steps")
        assert "3 - (8/3) = 1/3" in steps and "8 ÷ (1/3) = 24" in steps
        assert steps.count("✓") == 3 and "✗" not in steps
        assert screen.board.solved and "Solved" in text_of(screen, "#message")


async def test_details_open_at_their_summary_at_80x24(tmp_path: Path) -> None:
    """The summary (the thought, its score) is on screen, not scrolled past to the prompt's
    end; a second thought's details open at their top again."""
    app = app_for(tmp_path)
    app.method_name = "tot"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_hand(app, pilot, "4 5 6 10")
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        log = screen.query_one("#details", RichLog)
        for node_id in [n for n, info in pane.nodes.items() if not info.wins][:2]:
            pane.show_details(node_id)
            await pilot.pause(0.2)
            assert log.max_scroll_y > 0  # longer than the tab: there is somewhere to scroll
            assert log.scroll_y == 0
            log.scroll_end(animate=False, immediate=True)
