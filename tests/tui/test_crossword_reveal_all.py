"""Revealing the whole mini (ctrl+y, or every word in turn) is no win: the result is saved as
solved with the solution shown, kept out of the streak and the fastest time, and the history
on home says "solution shown". A reveal of the last wrong letter of a grid typed by hand is
still the player's win. A grid larger than the solvers play keeps the solver idle, saying so."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from puzzles.crossword import Direction, generate, parse_ipuz, to_ipuz
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.screens.crossword import CrosswordScreen
from tui.screens.home import HomeScreen
from tui.store import Result
from tui.widgets.solver_pane import SolverPane


async def saved(app: PonderApp, pilot: Pilot[None]) -> Result:
    await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
    assert app.store is not None
    (last,) = app.store.recent(1)
    assert isinstance(last, Result)
    return last


async def open_mini(pilot: Pilot[None], seed: int = 7) -> CrosswordScreen:
    screen = CrosswordScreen(generate(seed), "open")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def message(screen: CrosswordScreen) -> str:
    return str(screen.query_one("#message", Static).render())


async def test_reveal_all_is_recorded_as_solution_shown(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("ctrl+y")
        assert screen.board.letters == screen.crossword.solution
        assert screen.over and screen.solution_shown and not screen.gave_up
        assert "Solution shown" in message(screen) and "Solved!" not in message(screen)
        assert not screen.query_one("#puzzle").has_class("-won")
        result = await saved(app, pilot)
        assert result.kind == "crossword" and result.solved and result.solution_shown
        assert not result.own_solve
        assert app.store is not None
        stats = app.store.stats("crossword")
        assert stats.current_streak == 0 and stats.best_seconds is None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        table = app.screen.query_one("#recent", DataTable)
        assert table.get_row_at(0)[1] == "solution shown"


async def test_revealing_every_word_in_turn_shows_the_solution(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mini(pilot)
        await pilot.press(*screen.crossword.solution[0].lower())  # 1 Across typed right
        for entry in screen.crossword.across[1:]:
            screen.move_to(entry.slot.cells[0], Direction.ACROSS)
            await pilot.press("ctrl+u")
        assert screen.over and not screen.solution_shown  # 1 Across was the player's
        result = await saved(app, pilot)
        assert result.solved and not result.solution_shown


async def test_every_word_revealed_counts_as_shown(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mini(pilot)
        await pilot.press(*screen.crossword.solution[0].lower())
        screen.move_to(screen.crossword.across[0].slot.cells[0], Direction.ACROSS)
        await pilot.press("ctrl+u")  # already right: nothing is revealed, nothing shown
        assert screen.hints_used == 0 and not screen.shown
        for entry in screen.crossword.down:
            screen.move_to(entry.slot.cells[0], Direction.DOWN)
            await pilot.press("ctrl+u")
        assert screen.over and screen.solution_shown
        result = await saved(app, pilot)
        assert result.solved and result.solution_shown


async def test_revealing_the_last_wrong_letter_is_still_a_win(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mini(pilot)
        across = screen.crossword.across
        for at, entry in enumerate(across):
            screen.move_to(entry.slot.cells[0], Direction.ACROSS)
            word = entry.answer.lower()
            if at == len(across) - 1:
                word = word[:-1] + ("a" if word[-1] != "a" else "b")
            await pilot.press(*word)
        assert not screen.over
        screen.move_to(across[-1].slot.cells[-1], Direction.ACROSS)
        await pilot.press("ctrl+r")  # the one wrong square
        assert screen.over and not screen.solution_shown
        assert "Solved!" in message(screen)
        result = await saved(app, pilot)
        assert result.solved and result.own_solve


async def test_a_grid_too_large_for_the_solvers_keeps_them_idle(app: PonderApp) -> None:
    mini = to_ipuz(generate(7))
    # The same words in a 9 x 9 grid: the mini in the corner, the rest blocks.
    width = 9
    mini["dimensions"] = {"width": width, "height": width}
    mini["puzzle"] = [row + ["#"] * (width - 5) for row in mini["puzzle"]] + [
        ["#"] * width for _ in range(width - 5)
    ]
    mini["solution"] = [row + ["#"] * (width - 5) for row in mini["solution"]] + [
        ["#"] * width for _ in range(width - 5)
    ]
    big = parse_ipuz(mini, "big.ipuz")
    assert big.grid.height == width
    async with app.run_test(size=(120, 40)) as pilot:
        screen = CrosswordScreen(big, "file")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not screen.query_one(SolverPane).running
        assert "mini crosswords only" in message(screen) and "9 x 9" in message(screen)
