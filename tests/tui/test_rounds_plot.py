"""A finished run's rounds as a plot in the solver pane: BoT's chain score and exact check by
iteration, IoT's exact check by turn."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from puzzles.game24 import Hand
from solver import events as ev
from solver.settings import Settings
from tests.tui.harness import wait_for
from tui.app import make_app
from tui.screens.game24 import Game24Screen
from tui.widgets.rounds_plot import RoundsPlot
from tui.widgets.solver_pane import SolverPane


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane(id="pane")


async def test_bot_rounds_are_plotted_with_their_score_and_exact_check() -> None:
    app = PaneApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply([ev.RunStarted("bot", "4 7 8 8", "game24", "offline", {})])
        for it, (score, ok) in enumerate([(2.5, False), (3.1, False), (3.6, True)], 1):
            pane.apply(
                [
                    ev.IterationStarted(it, 3),
                    ev.ChainAggregated(it, "best_first", ("a",), ("4 + 8 = 12",), score),
                    ev.ExperienceAdded(it, ("4 + 8 = 12",), "r", (), 0.5, "v", ok),
                ]
            )
        plot = pane.query_one(RoundsPlot)
        assert plot.round_name == "iteration"
        assert [(n, r.score, r.ok) for n, r in sorted(plot.rounds.items())] == [
            (1, 2.5, False),
            (2, 3.1, False),
            (3, 3.6, True),
        ]
        pane.query_one("#solver-tabs").active = "tab-rounds"  # type: ignore[attr-defined]
        await pilot.pause()
        drawn = str(plot.render())
        assert "by iteration" in drawn and "chain score" in drawn


async def test_iot_turns_are_plotted_by_turn_and_a_new_run_starts_empty() -> None:
    app = PaneApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply([ev.RunStarted("aiot", "4 7 8 8", "game24", "offline", {})])
        pane.apply(
            [
                ev.TurnAnswered(1, "r", "8 * 3", False, "", False, "not 24", True),
                ev.TurnAnswered(2, "r", "(7 - 8 / 8) * 4", True, "", True, "ok", True),
            ]
        )
        plot = pane.query_one(RoundsPlot)
        assert plot.round_name == "turn"
        assert {n: r.ok for n, r in plot.rounds.items()} == {1: False, 2: True}
        pane.reset("bot", "offline")
        await pilot.pause()
        assert plot.rounds == {}


async def test_the_experience_tab_shows_the_entry_exactly_as_the_prompts_carry_it() -> None:
    from textual.widgets import RichLog

    entry = "1. Reasoning chain and comments\n---\nStep 1: 4 + 8 = 12\n---\nError report: none"
    app = PaneApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply([ev.RunStarted("bot", "4 7 8 8", "game24", "offline", {})])
        pane.query_one("#solver-tabs").active = "tab-experience"  # type: ignore[attr-defined]
        await pilot.pause()
        added = ev.ExperienceAdded(1, ("4 + 8 = 12",), "r", (), 0.5, "v", False, entry=entry)
        pane.apply([added])
        await pilot.pause()
        log = pane.query_one("#experience", RichLog)
        shown = "\n".join(line.text.strip() for line in log.lines)
        for line in entry.splitlines():
            assert line in shown


async def test_react_and_deli_are_drawn_as_transcripts() -> None:
    from textual.widgets import RichLog

    app = PaneApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply([ev.RunStarted("react", "q", "wordproblem", "offline", {})])
        pane.apply(
            [
                ev.ToolCalled(1, "calculate", "16 - 3 - 4", "Eggs left to sell."),
                ev.ToolObserved(1, "calculate", "9", "ok", "9"),
                ev.ToolCalled(2, "solve", "x^^2; x", ""),
                ev.ToolObserved(2, "solve", "cannot read 'x^^2'", "error"),
                ev.EpisodeEnded(3, "finish", "the model called finish"),
            ]
        )
        log = pane.query_one("#transcript", RichLog)

        def shown_now() -> str:
            return "\n".join(line.text for line in log.lines)

        # (a log writes its lines once it knows its width: a pause or two on a busy machine)
        await wait_for(pilot, lambda: "Stopped: the model called finish" in shown_now())
        assert pane.has_class("-transcript") and not pane.query_one("#thoughts").display
        shown = shown_now()
        for seen in (
            "Thought 1: Eggs left to sell.",
            "Action 1: calculate[16 - 3 - 4]",
            "Observation 1: 9",
            "Observation 2 (error): cannot read",
            "Stopped: the model called finish",
        ):
            assert seen in shown, seen
        pane.reset("deli", "offline")
        pane.apply([ev.RunStarted("deli", "q", "wordproblem", "offline", {})])
        pane.apply(
            [
                ev.DeliberationStage(1, 3, "tool", "x = 9", "9", True, "9 is right", True),
                ev.DeliberationEnded(1, "agree", "the two stages agree", "tool"),
            ]
        )
        await wait_for(pilot, lambda: "Stopped: the two stages agree" in shown_now())
        shown = shown_now()
        assert "Turn 1/3 · tool: answer 9 ✓" in shown and "Stopped: the two stages agree" in shown
        assert "Observation 1" not in shown  # a new run starts a new transcript


async def test_one_round_or_a_short_pane_shows_the_rounds_as_text() -> None:
    """A first-iteration win drew an empty plot; at 80x24 the plot was one row tall."""
    app = PaneApp()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.apply([ev.RunStarted("bot", "4 7 8 8", "game24", "offline", {})])
        pane.apply(
            [
                ev.IterationStarted(1, 3),
                ev.ChainAggregated(1, "best_first", ("a",), ("4 + 8 = 12",), 0.9),
                ev.ExperienceAdded(1, ("4 + 8 = 12",), "r", (), 0.5, "v", True),
            ]
        )
        plot = pane.query_one(RoundsPlot)
        pane.query_one("#solver-tabs").active = "tab-rounds"  # type: ignore[attr-defined]
        await pilot.pause()
        assert str(plot.render()) == "iteration 1  chain score 0.9  ✓ right"
        plot.record(2, score=0.4, ok=False)
        await pilot.pause()
        assert plot.size.height >= RoundsPlot.MIN_PLOT_HEIGHT
        drawn = str(plot.render())
        assert "by iteration" in drawn and "✓" in drawn and "✗" in drawn
        assert "-1" not in drawn  # the check has its own two-value axis


async def test_at_80x24_the_game_screens_rounds_are_text(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        plot = pane.query_one(RoundsPlot)
        for n, ok in ((1, False), (2, True)):
            plot.record(n, score=0.5 * n, ok=ok)
        pane.query_one("#solver-tabs").active = "tab-rounds"  # type: ignore[attr-defined]
        await pilot.pause()
        assert 0 < plot.size.height < RoundsPlot.MIN_PLOT_HEIGHT
        assert str(plot.render()).splitlines() == [
            "iteration 2  chain score 1  ✓ right",
            "iteration 1  chain score 0.5  ✗ wrong",
        ]
