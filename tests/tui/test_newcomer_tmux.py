"""What a newcomer's try in tmux at 80x24 found (issue 30, "Done when"), each pinned at 80x24:
a method chosen while the solver runs says what the next key does (it stops the run, it does
not start the new method) and the new method then starts afresh, not as a "resumed" run; the
legend describes the thoughts of the kind in front (a crossword's words, not "two numbers
combined"); the last card of a hand shows its whole expression; n in the solutions dialog
deals the new hand the message offers; the settings' help lists no key that does nothing
there; while the solver's pane is enlarged the footer says esc shrinks it (not "Home"); and
each press of a crossword's ghost key (ctrl+g) says what it did, not the press before's; n
(t, ctrl+n) over a puzzle in play asks first, as esc does; and settings show the replay speed
beside a replaying engine only ("Speed 0" beside the offline engine read as a stopped one);
and on a given-up hand the footer says g shows its solutions, as the message does."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Button, Input, Select, Static

from puzzles.crossword import generate
from puzzles.game24 import Hand
from solver.settings import Settings
from tests.tui.harness import Notice, open_hand, wait_for
from tui.app import WATCH_PACE, PonderApp, make_app
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import HelpScreen, LegendScreen, MethodDialog, SolutionsDialog
from tui.screens.game24 import Game24Screen
from tui.screens.puzzle import NewDialog, PuzzleScreen
from tui.screens.settings import SettingsScreen
from tui.screens.wordproblem import WordProblemScreen
from tui.store import ResultStore
from tui.widgets.footer import KeyHints
from tui.widgets.number_card import NumberCard
from tui.widgets.solver_pane import SolverPane

SMALL = (80, 24)


def footer(app: PonderApp) -> dict[str, str]:
    """What the footer shows: each key with its description."""
    return {h.shown: h.description for f in app.screen.query(KeyHints) for h in f.hints}


def message(screen: object) -> str:
    assert isinstance(screen, Game24Screen | CrosswordScreen | WordProblemScreen)
    return str(screen.query_one("#message", Static).render())


async def test_a_method_chosen_while_the_solver_runs_starts_afresh_on_the_second_press(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toasts: list[Notice]
) -> None:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    # The pace of the app a person plays (a call at a time): the run is under way when the
    # method is chosen.
    app = make_app(Settings(solver_pace=WATCH_PACE), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "1 1 1 2")  # no solution: BoT runs on
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.running and pane.calls > 0)
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = "cot"
        await pilot.pause()
        dialog.query_one("#use", Button).press()
        await wait_for(pilot, lambda: app.screen is screen)
        said = message(screen)
        assert "Press space to start it" not in said  # space would stop BoT, not start CoT
        assert "The BoT run goes on: press space to stop it, then space to start CoT" in said
        assert pane.running and pane.method == "bot"
        await pilot.press("space")
        await wait_for(pilot, lambda: not pane.running)
        await pilot.press("space")
        await wait_for(pilot, lambda: pane.method == "cot")
        # A new method's run starts afresh: nothing of BoT's is carried as "resumed".
        assert not any("resumes" in t.message for t in toasts)
        assert pane.earlier == (0, 0, 0.0)


async def test_the_crosswords_legend_describes_words_not_numbers(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await app.push_screen(CrosswordScreen(generate(7, blocks=False), "open"))
        await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()
        legend = app.screen
        assert isinstance(legend, LegendScreen)
        text = " ".join(f"{term} {meaning}" for term, meaning in legend.rows)
        assert "two numbers combined" not in text and "can 24 still be made" not in text
        assert "one word the model wrote in" in text and "h2. is 2 across" in text


async def test_the_legend_in_a_game_of_24_still_speaks_of_numbers(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await open_hand(app, pilot, "4 7 8 8")
        await pilot.press("l")
        await pilot.pause()
        legend = app.screen
        assert isinstance(legend, LegendScreen)
        text = " ".join(f"{term} {meaning}" for term, meaning in legend.rows)
        assert "two numbers combined" in text and "can 24 still be made" in text


async def test_the_last_card_shows_its_whole_expression(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "1 11 13 13")
        await pilot.press("3", "minus", "1")  # 13 - 1 = 12
        await pilot.press("3", "minus", "1")  # 13 - 11 = 2
        await pilot.press("2", "asterisk", "1")  # 2 × 12 = 24
        await wait_for(pilot, lambda: screen.over)
        await pilot.pause()
        card = screen.query_one("#card-0", NumberCard)
        drawn = str(card.render())
        assert "(13 - 11) × (13 - 1)" in drawn and "…" not in drawn
        # The win offers a new hand, as the give-up does (it said "a new puzzle").
        assert "Press n for a new hand." in message(screen)


async def test_n_in_the_solutions_dialog_deals_the_new_hand_it_offers(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        first = await open_hand(app, pilot, "4 4 10 13")
        await pilot.press("g", "y")  # give up, and say yes: every solution shows
        await wait_for(pilot, lambda: isinstance(app.screen, SolutionsDialog))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, Game24Screen))
        await wait_for(pilot, lambda: app.screen is not first)
        new = app.screen
        assert isinstance(new, Game24Screen) and not new.over
        assert new.hand != Hand.parse("4 4 10 13") or new.started != first.started


async def settings_help(app: PonderApp, pilot: Any) -> HelpScreen:
    """The settings screen opened from home with ``s``, and its help with f1."""
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
    await pilot.press("f1")
    await pilot.pause()
    help_screen = app.screen
    assert isinstance(help_screen, HelpScreen)
    return help_screen


async def test_the_settings_help_lists_no_key_that_does_nothing_there(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        help_screen = await settings_help(app, pilot)
        rows = dict(help_screen.rows)
        assert "Settings" not in rows.values()  # ctrl+s opens the screen you are on
        assert rows["^t / f3"] == "Test connection" and rows["esc"] == "Back"


async def test_while_the_pane_is_enlarged_the_footer_says_esc_shrinks_it(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "4 7 8 8")
        assert footer(app).get("esc") == "Home"
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: screen.maximized is not None)
        await pilot.pause()
        assert footer(app).get("esc") == "Shrink"  # esc does not go home from here
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.maximized is None)
        await pilot.pause()
        assert app.screen is screen and footer(app).get("esc") == "Home"


async def test_a_long_key_description_in_the_help_hangs_under_itself(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        help_screen = await settings_help(app, pilot)
        keys = help_screen.query_one("#help-keys", Static)
        width = keys.content_region.width
        lines = [line.rstrip() for line in str(keys.render()).split("\n\n")[0].splitlines()]
        long = [line for line in lines if "accept the completion" in line]
        assert long, "the row of a description that wraps at 80 columns"
        # Each line is a key row (the key right-aligned in 14 columns, then two spaces) or
        # a description's next line, under the description: never under the keys.
        assert all(line[14:16] == "  " and line[16:17].strip() for line in lines if line)
        assert all(len(line) <= width for line in lines)


@pytest.mark.parametrize("size", [SMALL, (120, 40)], ids=["80x24", "120x40"])
async def test_the_own_hand_boxs_hint_fits_it(app: PonderApp, size: tuple[int, int]) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#own", Input)
        assert box.placeholder and len(box.placeholder) < box.content_size.width
        assert "->" in box.placeholder  # a target of one's own is still shown how
        assert box.tooltip == "4 7 8 8, or 1 2 3 4 5 -> 10"


async def test_enter_in_a_method_field_uses_the_method(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "4 7 8 8")
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = "giot"
        await pilot.pause()
        turns = dialog.query_one("#giot-turns", Input)
        turns.focus()
        await pilot.pause()
        await pilot.press("backspace", "3", "enter")  # a value, and enter, as in any box
        await wait_for(pilot, lambda: app.screen is screen)
        assert app.method_name == "giot" and app.method_options["turns"] == 3
        assert "GIoT" in message(screen)
        # A bad value and enter: the dialog stays and says why.
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        turns = dialog.query_one("#giot-turns", Input)
        turns.focus()
        await pilot.pause()
        await pilot.press("backspace", "0", "enter")
        await pilot.pause()
        assert app.screen is dialog
        assert str(dialog.query_one("#method-error", Static).render())


TWO_LINE_CLUE = "A clue that takes two lines in the column, ending in WORDS"
LONG_CLUE = "A clue long enough to need three lines in the narrow column, ending in WORDS"


def fits(screen: CrosswordScreen, part: Static) -> bool:
    """Whether every line of ``part`` is on screen, inside the puzzle's column."""
    column = screen.query_one("#puzzle")
    content = part.render()
    assert isinstance(content, Content)
    return (
        part.region.y >= column.region.y
        and part.region.bottom <= column.region.bottom
        and part.size.height >= len(content.wrap(part.content_region.width))
    )


async def open_mini_with(app: PonderApp, pilot: Any, clue: str, title: str) -> CrosswordScreen:
    """A 5x5 mini whose first clue reads ``clue``, titled as a dealt one (``Mini #N``), open."""
    mini = generate(7, blocks=False)
    first = dataclasses.replace(mini.clues[0], text=clue)
    mini = dataclasses.replace(mini, title=title, clues=(first, *mini.clues[1:]))
    screen = CrosswordScreen(mini, "open")
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def test_a_long_clue_stays_whole_beside_a_long_title_and_message(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        # A dealt mini's title, as the tmux try had it ("Mini #882188164 · open · ⏱ 0:02").
        screen = await open_mini_with(app, pilot, LONG_CLUE, "Mini #882188164")
        mini = screen.crossword
        # A wrong letter, then auto-check: "help 1 · auto-check" makes the title two lines,
        # and the message three ("... 1 wrong now, marked in red.").
        wrong = "Q" if mini.solution[0][0] != "Q" else "Z"
        await pilot.press(wrong.lower(), "ctrl+a")
        title = screen.query_one("#puzzle-title", Static)
        clue = screen.query_one("#cw-clue", Static)
        message = screen.query_one("#message", Static)
        # Wait for the layout to settle after the message and title change; a layout that
        # never gets there times out and fails.
        await wait_for(
            pilot,
            lambda: (
                title.size.height == 2
                and fits(screen, message)
                and clue.region.bottom <= message.region.y
            ),
            10,
        )
        assert title.size.height == 2 and "1 wrong now" in str(message.render())
        assert "ending in WORDS" in str(clue.render())
        assert fits(screen, clue) and fits(screen, message)
        assert clue.region.bottom <= message.region.y


async def test_a_give_up_beside_a_long_title_covers_no_part_of_the_clue(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini_with(app, pilot, TWO_LINE_CLUE, "Mini #164426953")
        # Auto-check (help, and "auto-check" in the title: two lines), a wrong letter, and
        # a give-up: its message takes six lines.
        await pilot.press("ctrl+a", "q", "ctrl+x", "y")
        await wait_for(pilot, lambda: screen.gave_up)
        clue = screen.query_one("#cw-clue", Static)
        message = screen.query_one("#message", Static)
        # The clue makes way two refreshes after the message is laid out: wait for the
        # screen to settle (a clue hidden, or one wholly above the message).
        await wait_for(
            pilot,
            lambda: (
                fits(screen, message)
                and (not clue.display or clue.region.bottom <= message.region.y)
            ),
            10,
        )
        assert screen.query_one("#puzzle-title", Static).size.height == 2
        assert "corrected in red" in str(message.render())
        assert fits(screen, message)
        if clue.display:  # whole, above the message, or not there at all
            assert fits(screen, clue)
            assert clue.region.bottom <= message.region.y


async def test_each_press_of_the_ghost_key_says_what_it_did(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = CrosswordScreen(generate(7, blocks=False), "open")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("ctrl+g")  # no board from the solver yet
        await pilot.pause()
        assert "once it has written something" in message(screen)
        await pilot.press("ctrl+g")  # off again: the message before goes
        await pilot.pause()
        assert "once it has written" not in message(screen)
        assert "The solver's board is hidden (ctrl+g shows it)." in message(screen)
        await pilot.press("ctrl+s")  # the solver writes a board
        await wait_for(pilot, lambda: screen.ghost is not None)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert "shows faintly on your empty squares" in message(screen)


@pytest.mark.parametrize(
    ("kind", "move", "key"),
    [
        ("game24", "1", "n"),  # a card picked
        ("crossword", "a", "ctrl+n"),  # a letter written
        ("wordproblem", "h", "n"),  # a hint taken
        ("wordproblem", "h", "t"),  # the next topic
    ],
)
async def test_a_new_puzzle_mid_game_asks_first_and_counts_the_old_one_abandoned(
    app: PonderApp, tmp_path: Path, kind: str, move: str, key: str
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        app.open_puzzle(kind)
        await wait_for(pilot, lambda: isinstance(app.screen, PuzzleScreen))
        screen = app.screen
        assert isinstance(screen, PuzzleScreen)
        await pilot.pause()
        await pilot.press(move)
        await wait_for(pilot, lambda: screen.in_play)
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, NewDialog))
        assert "abandoned" in str(app.screen.query_one(Static).render())
        await pilot.press("n")  # keep playing
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.in_play and not screen.recorded
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, NewDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, PuzzleScreen))
        await wait_for(pilot, lambda: app.screen is not screen)
        assert screen.recorded
    assert app.close_store() is None
    with ResultStore(tmp_path / "r.db") as store:
        (result,) = store.recent(5)
        assert result.kind == kind and result.abandoned and not result.solved


async def test_a_new_puzzle_before_any_move_is_dealt_at_once(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        app.open_puzzle("game24")
        await wait_for(pilot, lambda: isinstance(app.screen, Game24Screen))
        first = app.screen
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is not first)
        assert isinstance(app.screen, Game24Screen)


async def test_the_replay_speed_shows_beside_a_replay_engine_only(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.pause()
        speed = app.screen.query_one("#replay-speed", Input)
        # "Speed 0" beside the offline engine read as an engine set to stand still.
        assert not speed.display and not app.screen.query_one("#replay-speed-label").display
        app.screen.query_one("#engine", Select).value = "replay"
        await wait_for(pilot, lambda: speed.display)
        assert app.screen.query_one("#replay-speed-label").display
        app.screen.query_one("#engine", Select).value = "openai"
        await wait_for(pilot, lambda: not speed.display)


async def test_once_a_hand_is_given_up_the_footer_says_g_shows_its_solutions(
    app: PonderApp,
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "4 7 8 8")
        assert footer(app)["g"] == "Give up"
        await pilot.press("g", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, SolutionsDialog))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.pause()
        # The message says "g shows its solutions": the footer and the help say the same.
        assert "g shows its solutions" in message(screen)
        assert footer(app)["g"] == "Solutions"
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert dict(app.screen.rows)["g"] == "Solutions"
