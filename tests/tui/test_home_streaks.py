"""Home lists each kind with the player's current streak on it (and the best, where there is
room): kinds keep their own streaks, a win with the solution shown does not extend one, a kind
never played shows none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.widgets import OptionList

from tui.app import PonderApp
from tui.kinds import KINDS
from tui.screens.home import HomeScreen
from tui.store import Result


def add(app: PonderApp, kind: str, solved: bool, minutes: int, shown: bool = False) -> None:
    assert app.store is not None
    app.store.record(
        Result(
            kind=kind,
            puzzle=f"{kind} {minutes}",
            started_at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes),
            seconds=30.0,
            solved=solved,
            gave_up=not solved,
            solution_shown=shown,
        )
    )


def prompts(app: PonderApp) -> dict[str, str]:
    kinds = app.screen.query_one("#kinds", OptionList)
    return {name: str(kinds.get_option_at_index(at).prompt) for at, name in enumerate(KINDS)}


async def test_each_kind_shows_its_own_streak(app: PonderApp) -> None:
    add(app, "wordproblem", True, 1)
    add(app, "wordproblem", True, 2)
    add(app, "game24", True, 3)
    add(app, "game24", False, 4)  # ends the Game of 24 streak, not the word problems'
    add(app, "crossword", True, 5)
    add(app, "crossword", True, 6, shown=True)  # solution shown: counts, not as a streak
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        shown = prompts(app)
        assert shown["wordproblem"].endswith("Word problems  streak 2 (best 2)")
        assert shown["game24"].endswith("Game of 24  streak 0 (best 1)")
        assert shown["crossword"].endswith("Mini crosswords  streak 0 (best 1)")


async def test_a_kind_never_played_shows_no_streak(app: PonderApp) -> None:
    add(app, "game24", True, 1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = prompts(app)
        assert "streak 1" in shown["game24"]
        assert "streak" not in shown["crossword"] and "streak" not in shown["wordproblem"]


async def test_a_narrow_home_drops_the_best(app: PonderApp) -> None:
    add(app, "wordproblem", True, 1)
    add(app, "wordproblem", False, 2)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        shown = prompts(app)
        assert shown["wordproblem"].endswith("Word problems  streak 0")
