"""The mini crossword screen, driven through Pilot: opened from home, typing along a word,
turning, erasing, checks, reveals, pencil, a win by typing the solution (saved with its kind),
the solver's ghost board, a solver run beside the grid, and 80x24 throughout."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from puzzles.crossword import Direction, generate
from solver import events as ev
from tests.tui.harness import FrozenClock, wait_for
from tui.app import PonderApp
from tui.kinds import KINDS
from tui.screens.crossword import CrosswordScreen
from tui.screens.home import HomeScreen
from tui.widgets.crossword_grid import CrosswordGrid
from tui.widgets.solver_pane import SolverPane

SMALL = (80, 24)

SnapCompare = Callable[..., bool]


async def open_mini(pilot: Pilot[None], seed: int = 7, blocks: bool = False) -> CrosswordScreen:
    screen = CrosswordScreen(generate(seed, blocks=blocks), "blocks" if blocks else "open")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def message(screen: CrosswordScreen) -> str:
    return str(screen.query_one("#message", Static).render())


def test_the_crossword_kind_is_playable() -> None:
    kind = KINDS["crossword"]
    assert kind.playable and kind.screen_class() is CrosswordScreen


async def test_home_opens_a_mini(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        assert isinstance(app.screen, HomeScreen)
        kinds = app.screen.query_one("#kinds", OptionList)
        kinds.highlighted = list(KINDS).index("crossword")
        await pilot.pause()
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        screen = app.screen
        assert isinstance(screen, CrosswordScreen)
        assert screen.level in CrosswordScreen.LEVELS
        assert screen.crossword.grid.height == 5
        assert screen.focused is screen.query_one(CrosswordGrid)


async def test_typing_fills_and_advances_along_the_word(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        first = screen.crossword.grid.slots[0]
        assert screen.cursor == first.cells[0] and screen.direction is Direction.ACROSS
        await pilot.press("a", "b")
        assert screen.board.letter(first.cells[0]) == "A"
        assert screen.board.letter(first.cells[1]) == "B"
        assert screen.cursor == first.cells[2]
        # Letters that are keys elsewhere (n, s, m) are typing here.
        await pilot.press("n", "s", "m")
        assert screen.board.word(first) == "ABNSM"
        assert screen.query_one(SolverPane).method == ""  # s started nothing
        assert screen.cursor == screen.crossword.grid.slots[1].cells[0]  # on to the next clue


async def test_space_and_tab_turn_and_arrows_move(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("space")
        assert screen.direction is Direction.DOWN
        await pilot.press("tab")
        assert screen.direction.value == "across"  # (mypy narrows the enum)
        await pilot.press("right")
        assert screen.cursor == (0, 1)
        await pilot.press("down")  # across the word: turns first
        assert screen.cursor == (0, 1) and screen.direction is Direction.DOWN
        await pilot.press("down")
        assert screen.cursor == (1, 1)
        await pilot.press("x")  # down the column now
        assert screen.board.letter((1, 1)) == "X" and screen.cursor == (2, 1)


async def test_backspace_erases_and_steps_back(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("a", "b")
        await pilot.press("backspace")  # empty square: back one, erase it
        assert screen.cursor == (0, 1) and screen.board.letter((0, 1)) == ""
        await pilot.press("left", "backspace")  # a written square: erased where it is
        assert screen.cursor == (0, 0) and screen.board.letter((0, 0)) == ""


async def test_check_marks_a_wrong_letter(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        right = screen.crossword.letter((0, 0))
        wrong = "Z" if right != "Z" else "Q"
        await pilot.press(right.lower(), wrong.lower())
        await pilot.press("ctrl+k")  # check word
        assert screen.wrong == {(0, 1)} and (0, 0) in screen.right
        assert "1 wrong" in message(screen)
        assert screen.hints_used == 1
        await pilot.press("left", wrong.lower())  # rewritten: the mark goes
        assert (0, 1) not in screen.wrong


async def test_reveal_letter_and_word(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        solution = screen.crossword.solution
        await pilot.press("ctrl+r")
        assert screen.board.letter((0, 0)) == solution[0][0] and (0, 0) in screen.revealed
        await pilot.press("ctrl+u")
        assert screen.board.word(screen.crossword.grid.slots[0]) == solution[0]
        assert screen.hints_used == 2


async def test_pencil_letters_are_marked(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("ctrl+e", "a")
        assert screen.pencil and (0, 0) in screen.board.pencilled
        assert "✎" in str(screen.query_one("#puzzle-title", Static).render())
        await pilot.press("ctrl+e", "b")
        assert (0, 1) not in screen.board.pencilled


async def test_clicking_a_clue_moves_there(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        down = screen.crossword.grid.down[2]
        clues = screen.query_one("#cw-clues", OptionList)
        clues.highlighted = clues.get_option_index(down.label)
        clues.action_select()
        await pilot.pause()
        assert screen.cursor == down.cells[0] and screen.direction is Direction.DOWN
        assert screen.focused is screen.query_one(CrosswordGrid)


async def test_typing_the_solution_wins_and_is_saved(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot, seed=8, blocks=True)
        for entry in screen.crossword.across:
            screen.move_to(entry.slot.cells[0], Direction.ACROSS)
            await pilot.press(*entry.answer.lower())
        assert screen.over and not screen.gave_up
        text = message(screen)
        cells = len(list(screen.crossword.grid.cells()))
        assert "Solved" in text and f"Letters {cells}/{cells}" in text and "game solved" in text
        assert app.store is not None
        await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
        result = app.store.recent(1)[0]
        assert result.kind == "crossword" and result.solved and result.difficulty == "blocks"
        assert result.answer == "/".join(screen.crossword.solution)
        await pilot.press("a")  # over: nothing changes
        assert screen.board.letters == screen.crossword.solution


async def test_giving_up_shows_the_measures(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press(*screen.crossword.solution[0].lower())
        await pilot.press("ctrl+x", "y")
        assert screen.gave_up
        assert "Letters 5/25" in message(screen) and "words 1/10" in message(screen)


async def test_the_ghost_shows_the_solvers_board(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("ctrl+g")
        assert screen.show_ghost
        row = screen.crossword.solution[0]
        state = "/".join([row, *["_____"] * 4])
        screen.receive(ev.ThoughtAdded("t", "n1", None, f"h1. {row}", 1, state))
        await wait_for(pilot, lambda: screen.ghost is not None)  # with the thought shown
        assert screen.ghost is not None and screen.ghost.letter((0, 0)) == row[0]
        grid = screen.query_one(CrosswordGrid)
        assert grid.view is not None and grid.view.ghost is screen.ghost
        assert row[0].lower() in str(grid.render())
        wrong = "Z" if row[1] != "Z" else "Q"
        await pilot.press("right", wrong.lower())  # the solver's letter shows in the corner
        top = str(grid.render()).splitlines()[0]
        assert top[4:7] == f"2 {row[1].lower()}"


async def test_a_solver_runs_beside_the_grid(app: PonderApp) -> None:
    app.method_name = "tot-dfs"
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot)
        await pilot.press("ctrl+g", "ctrl+s")
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None, timeout=60)
        assert pane.method == "tot-dfs"
        assert screen.ghost is not None and screen.ghost.filled > 0
        assert not screen.over  # the solver's board is not the player's


async def test_io_solver_finishes(app: PonderApp) -> None:
    app.method_name = "io"
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot, seed=8, blocks=True)
        await pilot.press("ctrl+s")
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None, timeout=30)
        assert pane.method == "io"


async def test_every_key_at_80x24_without_a_crash(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(pilot, seed=3, blocks=True)
        keys = ["a", "right", "down", "space", "tab", "backspace", "delete", "enter"]
        keys += ["shift+tab", "ctrl+l", "ctrl+k", "ctrl+a", "ctrl+r", "ctrl+u", "ctrl+e"]
        keys += ["b", "ctrl+g", "up", "left", "question_mark", "escape"]
        await pilot.press(*keys)
        await pilot.pause()
        grid = screen.query_one(CrosswordGrid)
        assert grid.size.width == 19 and grid.size.height == 10
        await pilot.click(CrosswordGrid, offset=(9, 3))  # row 1, column 2
        assert screen.cursor == (1, 2) or screen.crossword.grid.is_block((1, 2))


def test_snapshot_mid_game_80x24(
    snap_compare: SnapCompare, app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())

    async def open_blocks(pilot: Pilot[None]) -> None:
        await open_mini(pilot, seed=8, blocks=True)

    # FOAM# / ERROR / ...: 1 Across right, then 5 Across with a pencilled E and a wrong R
    # found by checking the word; the cursor then on 5 Across's third square.
    keys = ["f", "o", "a", "m", "ctrl+e", "e", "ctrl+e", "x", "ctrl+k"]
    assert snap_compare(app, terminal_size=SMALL, press=keys, run_before=open_blocks)


async def test_a_trace_replays_on_the_crossword_screen(app: PonderApp) -> None:
    from puzzles.crossword import to_ipuz
    from tui.app import Replay

    crossword = generate(8, blocks=True)
    row = crossword.solution[1]
    state = "/".join(["____#", row, "_____", "_____", "#____"])
    events: list[ev.Event] = [
        ev.RunStarted("tot-dfs", crossword.title, "crossword", "offline"),
        ev.ThoughtAdded("t", "n1", None, f"5A. {row}", 1, state),
    ]
    header = {"kind": "crossword", "ipuz": to_ipuz(crossword)}
    async with app.run_test(size=SMALL) as pilot:
        app.open_replay(Replay(header, events))
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        screen = app.screen
        assert isinstance(screen, CrosswordScreen) and screen.level == "replay"
        await wait_for(pilot, lambda: screen.ghost is not None)
        assert screen.ghost is not None and screen.ghost.letters[1] == row
