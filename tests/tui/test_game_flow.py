"""The player's side of a Game of 24 hand, driven through Pilot: a given-up hand, leaving a
started hand, a win after the full solution, keys typed fast after ``s`` and ``e``, race mode
(hidden solver, handicap, who won, what is recorded), the messages that must go away, home
following the method chosen in a game, the Seed box, the theme kept, and the clock paused
under help."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static, Switch

from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver.model import Call, Generation, TokenCallback
from solver.model.offline import OfflineModel
from solver.settings import Settings, config_path, load_settings
from tests.tui.harness import Notice, wait_for
from tui.app import PonderApp, make_app
from tui.screens.game24 import Game24Screen, LeaveDialog
from tui.screens.home import HomeScreen
from tui.store import Result
from tui.widgets.footer import KeyHints
from tui.widgets.solver_pane import SolverPane

WIN = "(7-8/8)*4"  # on 4 7 8 8


class SlowModel:
    """The offline player, taking ``delay`` seconds a call."""

    def __init__(self, delay: float = 0.05) -> None:
        self.inner = OfflineModel(delay=delay)
        self.name = self.inner.name
        self.calls = 0

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.calls += 1
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        await self.inner.aclose()


def text(screen: object, selector: str) -> str:
    assert isinstance(screen, Game24Screen | HomeScreen)
    return str(screen.query_one(selector, Static).render())


def app_for(tmp_path: Path, model: SlowModel | None = None) -> PonderApp:
    return make_app(
        Settings(),
        model=(lambda: model) if model is not None else None,
        store_path=tmp_path / "r.db",
        seed=1,
    )


async def open_hand(app: PonderApp, pilot: Pilot[None], hand: str = "4 7 8 8") -> Game24Screen:
    screen = Game24Screen(Hand.parse(hand), "easy")
    await app.push_screen(screen)
    await pilot.pause()
    return screen


async def saved(app: PonderApp, pilot: Pilot[None], results: int = 1) -> Result:
    """The latest result, once the store holds ``results`` of them (the game's is saved in a
    worker thread: a result recorded by the test itself is there before it)."""
    assert app.store is not None
    await wait_for(pilot, lambda: len(app.store.recent(results)) >= results)
    (last,) = app.store.recent(1)
    result: Result = last
    return result


async def type_win(pilot: Pilot[None]) -> None:
    await pilot.press("e", *WIN, "enter")


# -- game state and results ---------------------------------------------------------------------


async def test_a_given_up_hand_says_so_and_refuses_moves_hints_and_typing(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await pilot.press("g", "y")
        await pilot.pause()
        await pilot.press("escape")  # the solutions dialog
        await pilot.pause()
        assert app.screen is screen and "gave up" in text(screen, "#message")
        for key in ("1", "h", "e", "u"):
            await pilot.press(key)
            await pilot.pause()
            assert (
                "gave up" in text(screen, "#message")
                and "press n" in text(screen, "#message").lower()
            )
        assert screen.first is None and screen.hints_used == 0
        assert not isinstance(app.focused, Input)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen) and app.screen is not screen


async def test_esc_on_a_started_hand_asks_and_records_it_as_abandoned(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.store is not None
        app.store.record(
            Result(
                kind="game24",
                puzzle="1 2 3 4",
                started_at=__import__("datetime").datetime.now(__import__("datetime").UTC),
                seconds=5.0,
                solved=True,
            )
        )
        screen = await open_hand(app, pilot)
        await pilot.press("1", "plus", "2")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LeaveDialog)
        await pilot.press("n")  # keep playing
        await pilot.pause()
        current: object = app.screen  # (the check above narrowed its type)
        assert current is screen and not screen.recorded
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        last = await saved(app, pilot, results=2)  # the test's own, then the game's
        assert last.abandoned and not last.solved and last.puzzle == "4 7 8 8"
        assert app.store.stats().current_streak == 0


async def test_esc_on_an_untouched_hand_leaves_without_asking(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_hand(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_win_after_the_full_solution_is_kept_out_of_fastest_and_streak(
    tmp_path: Path,
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await pilot.press("h", "h", "h")
        assert "full solution" in text(screen, "#message").lower()
        await type_win(pilot)
        assert "Solved" in text(screen, "#message") and "shown" in text(screen, "#message")
        last = await saved(app, pilot)
        assert last.solved and last.solution_shown
        assert app.store is not None
        stats = app.store.stats()
        assert stats.best_seconds is None and stats.current_streak == 0 and stats.solved == 1


async def test_keys_typed_straight_after_s_and_e_all_reach_the_box(tmp_path: Path) -> None:
    model = SlowModel(delay=0.01)
    app = app_for(tmp_path, model)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        # Back to back, with no pause between them: a person typing fast while the solver
        # starts.
        for key, char in [("s", "s"), ("e", "e"), *[(c, c) for c in "1+2"]]:
            name = {"+": "plus"}.get(key, key)
            app.post_message(events.Key(name, char))
        await pilot.pause(0.3)
        box = screen.query_one("#expression", Input)
        assert app.focused is box and box.value == "1+2"
        assert screen.first is None and not screen.board.steps
        await pilot.press("escape", "s")


# -- race mode ----------------------------------------------------------------------------------


async def race(tmp_path: Path, delay: float) -> tuple[PonderApp, SlowModel]:
    model = SlowModel(delay=0.01)
    app = app_for(tmp_path, model)
    app.race = True
    app.race_delay = delay
    return app, model


async def test_in_a_race_the_solver_is_hidden_and_a_handicapped_one_loses(
    tmp_path: Path,
) -> None:
    app, model = await race(tmp_path, delay=10.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.running)
        assert not pane.display and "Race" in text(screen, "#race-status")
        assert model.calls == 0  # still waiting out its handicap
        await pilot.press("s")
        assert pane.running and "race" in text(screen, "#message")
        await type_win(pilot)
        message = text(screen, "#message")
        assert "You won the race" in message and "Yours" in message
        assert pane.display  # shown once the player is done
        # The result waits for the solver's outcome; stopping the solver saves it without.
        await pilot.press("escape", "s")  # out of the answer box, then stop
        last = await saved(app, pilot)
        assert last.race and last.race_won is True and last.solver_solved is None
        assert app.store is not None and app.store.stats().races_won == 1


async def test_a_solver_on_a_call_budget_gives_up_when_it_is_spent(tmp_path: Path) -> None:
    app, model = await race(tmp_path, delay=0.0)
    app.race_calls = 10  # one of the choices home offers
    app.method_name = "bot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await wait_for(pilot, lambda: screen.solver_result is not None)
        result = screen.solver_result
        assert result is not None and not result.solved and result.reason == "error"
        assert model.calls == 10  # the budget, not one call more
        await type_win(pilot)
        assert "You won the race" in text(screen, "#message")


async def test_the_race_solver_waits_while_help_covers_the_race(tmp_path: Path) -> None:
    model = SlowModel(delay=0.3)  # seven rounds of calls: over two seconds
    app = app_for(tmp_path, model)
    app.race, app.method_name = True, "bot"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        assert screen.solver_result is None
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        held = model.calls
        await asyncio.sleep(1.0)
        assert model.calls == held  # no call started while help was open
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.solver_result is not None)
        result = screen.solver_result
        assert result is not None and screen.solver_paused >= 0.9
        assert screen.solver_time(result) <= result.wall_time - 0.9


async def test_a_race_the_solver_wins_says_by_how_much_and_both_answers(tmp_path: Path) -> None:
    app, _ = await race(tmp_path, delay=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await wait_for(pilot, lambda: screen.solver_result is not None)
        result = screen.solver_result
        assert result is not None and result.solved and result.answer
        assert not screen.query_one(SolverPane).display
        await wait_for(pilot, lambda: "found an answer" in text(screen, "#race-status"))
        await type_win(pilot)
        message = text(screen, "#message")
        assert "won the race by" in message and "Yours:" in message
        assert "'s:" in message
        last = await saved(app, pilot)
        assert last.race and last.race_won is False and last.solved
        assert app.store is not None
        assert (app.store.stats().races, app.store.stats().races_won) == (1, 0)


async def test_home_offers_a_race_handicap(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        home.query_one("#handicap", Select).value = "delay:3"
        await pilot.pause()
        assert (app.race_delay, app.race_calls) == (3.0, 0)
        home.query_one("#handicap", Select).value = "calls:10"
        await pilot.pause()
        assert (app.race_delay, app.race_calls) == (0.0, 10)
        assert isinstance(home.query_one("#race", Switch), Switch)


# -- smaller things -----------------------------------------------------------------------------


async def test_undo_clears_the_last_steps_message(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await pilot.press("3", "slash", "4")
        assert "8 ÷ 8" in text(screen, "#message")
        await pilot.press("u")
        assert "8 ÷ 8" not in text(screen, "#message")


async def test_u_with_a_card_chosen_clears_the_choice_and_says_so(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "3 3 8 8")
        await pilot.press("3", "slash", "4", "1")  # a step, then a card chosen
        assert screen.first is not None and len(screen.board.steps) == 1
        await pilot.press("u")
        assert screen.first is None and len(screen.board.steps) == 1
        assert text(screen, "#message") == "Selection cleared."
        await pilot.press("u")
        assert not screen.board.steps and text(screen, "#message") == "Step undone."
        await pilot.press("u")
        assert text(screen, "#message") == "Nothing to undo."


async def test_escape_lets_go_of_a_chosen_card_before_it_goes_home(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_hand(app, pilot, "3 3 8 8")
        await pilot.press("1", "plus")
        assert screen.first is not None
        await pilot.press("escape")
        assert app.screen is screen and screen.first is None and screen.op is None
        assert "Selection cleared" in text(screen, "#message")
        await pilot.press("escape")  # nothing chosen, nothing done: home at once
        await pilot.pause()
        assert app.screen is not screen


async def test_the_start_prompt_goes_when_the_solver_starts(tmp_path: Path) -> None:
    app = app_for(tmp_path, SlowModel())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 1 1 2")
        await pilot.press("m")
        await pilot.pause()
        app.screen.query_one("#use", Button).press()
        await pilot.pause()
        assert "Press space to start it" in text(screen, "#message")
        await pilot.press("space")
        await pilot.pause()
        assert "Press space" not in text(screen, "#message")
        await pilot.press("space")


async def test_a_retry_notice_goes_when_the_solver_is_stopped(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    fake_server.faults.append("429:30")  # rate limited: the model waits 30 s to ask again
    settings = Settings(
        engine="openai", base_url=fake_server.url, model="fake-model", api_key="k", max_retries=1
    )
    app = make_app(settings, store_path=tmp_path / "r.db", seed=1)
    app.method_name = "io"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot, "1 1 1 2")
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.error.startswith("retrying"))
        assert pane.running and "rate limited" in pane.error
        await pilot.press("s")
        await pilot.pause()
        assert not pane.running and pane.error == ""


async def test_home_shows_the_method_chosen_in_a_game(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        app.screen.query_one("#method", Select).value = "tot"
        app.screen.query_one("#use", Button).press()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert home.query_one("#method", Select).value == "tot" == app.method_name


async def test_enter_and_p_in_the_seed_box_start_the_game(tmp_path: Path) -> None:
    for key in ("enter", "p"):
        app = app_for(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            seed = app.screen.query_one("#seed", Input)
            seed.focus()
            await pilot.pause()
            await pilot.press("4", "2", key)
            await pilot.pause()
            assert isinstance(app.screen, Game24Screen), key


async def test_the_theme_is_kept_across_restarts(tmp_path: Path) -> None:
    app = make_app(load_settings(), store_path=tmp_path / "r.db")
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = "nord"
        await pilot.pause()
    assert 'theme = "nord"' in config_path().read_text()
    again = make_app(load_settings(), store_path=tmp_path / "r.db")
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_the_clock_stops_while_help_is_open(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_hand(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is not screen
        before, start = screen.elapsed(), time.monotonic()  # a first mount may be slow
        await asyncio.sleep(1.2)
        await pilot.press("escape")
        await pilot.pause()
        gained, passed = screen.elapsed() - before, time.monotonic() - start
        # Of the time that passed, the 1.2 s under help did not count (a loaded machine may
        # take a while to close the help screen: that part counts).
        assert app.screen is screen and gained <= passed - 1.1


async def test_the_win_message_writes_a_typed_answer_with_times_and_divide(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_hand(app, pilot, "1 5 5 5")
        await pilot.press("e", *"5*(5-1/5)", "enter")
        await pilot.pause()
        assert "★ Solved! 5 × (5 - 1 ÷ 5) = 24" in text(screen, "#message")


async def test_a_hand_of_ones_own_with_any_target_is_played_from_home(
    tmp_path: Path, toasts: list[Notice]
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        own = home.query_one("#own", Input)
        assert home.query_one("#own-field").display and "->" in own.placeholder
        own.focus()
        await pilot.press(*"1 2 3 4 5 -> 10", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen)
        assert screen.hand == Hand((1, 2, 3, 4, 5), 10) and screen.level == "own"
        await pilot.press("e", *"5*2*(1+3)/4", "enter")
        await pilot.pause()
        assert "★ Solved! 5 × 2 × (1 + 3) ÷ 4 = 10" in text(screen, "#message")
        assert (await saved(app, pilot)).puzzle == "1 2 3 4 5 → 10"  # the target kept
        await pilot.press("escape", "escape")
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        own = home.query_one("#own", Input)
        own.value = ""
        own.focus()
        await pilot.press(*"4 7 x", "enter")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)  # refused, with a notice
        assert any("Not a puzzle to play" in str(n.message) for n in toasts)


async def test_an_own_hand_without_a_solution_says_so_and_ending_it_keeps_the_streak(
    tmp_path: Path,
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.store is not None
        app.store.record(
            Result(
                kind="game24",
                puzzle="4 7 8 8",
                started_at=datetime.now(UTC),
                seconds=9.0,
                solved=True,
            )
        )
        solvable = Game24Screen.own("1 2 3 4 5 -> 10")
        await app.push_screen(solvable)
        await pilot.pause(0.3)
        assert not solvable.unsolvable and "No solution" not in text(solvable, "#message")
        app.pop_screen()
        screen = Game24Screen.own("1 2 3")
        await app.push_screen(screen)
        await wait_for(pilot, lambda: "No solution" in text(screen, "#message"))
        assert "cannot make 24" in text(screen, "#message")
        await pilot.press("g", "y")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert "gave up" in text(screen, "#message")
        assert len(app.store.recent(5)) == 1  # nothing recorded for a hand without a solution
        assert app.store.stats().current_streak == 1


def test_solve_says_when_a_hand_has_no_solution(capsys) -> None:  # type: ignore[no-untyped-def]
    from tui.cli import main

    code = main(["solve", "24", "1 2 3", "--method", "io"])
    err = capsys.readouterr().err
    assert code == 1 and "note: 1 2 3 has no solution" in err
    main(["solve", "24", "4 7 8 8", "--method", "io"])
    assert "no solution" not in capsys.readouterr().err


async def test_after_a_typed_win_or_a_give_up_the_games_keys_work_at_once(
    tmp_path: Path,
) -> None:
    """The box kept focus after a win with e, so n typed "n" though the message said
    "Press n for a new puzzle"; while typing, the footer said "esc Home"."""
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_hand(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        footer = app.screen.query_one(KeyHints).text()
        assert "Leave box" in footer and "Home" not in footer
        await pilot.press(*WIN, "enter")
        await pilot.pause()
        assert "Solved" in text(screen, "#message") and not isinstance(app.focused, Input)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen) and app.screen is not screen
        second = app.screen
        await pilot.press("e", "1")
        await pilot.pause()
        assert isinstance(app.focused, Input)
        second.give_up_now()
        await pilot.pause()
        await pilot.press("escape")  # the solutions dialog
        await pilot.pause()
        assert not isinstance(app.focused, Input)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_home_after_a_game_of_your_own_takes_its_keys_again(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        home.query_one("#own", Input).focus()
        await pilot.press(*"4 7 8 8", "enter")
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen) and not isinstance(app.focused, Input)
        await pilot.press("s")
        await pilot.pause()
        assert type(app.screen).__name__ == "SettingsScreen"


async def test_own_hands_of_five_and_six_cards_fit_and_cards_cut_long_expressions(
    tmp_path: Path,
) -> None:
    """At 80x24 only cards 1-2 of 1 2 3 4 5 showed; a result card cut its expression with
    no way to read it. Every card fits; a chosen card's whole expression is under them."""
    for size in ((80, 24), (120, 40)):
        for hand in ("1 2 3 4 5", "1 2 3 4 5 6"):
            app = app_for(tmp_path)
            async with app.run_test(size=size) as pilot:
                screen = Game24Screen(Hand.parse(hand, 100), "own")
                await app.push_screen(screen)
                await pilot.pause()
                row = screen.query_one("#cards").region
                cards = [c for c in screen.query(".card") if c.display]
                assert len(cards) == len(hand.split())
                for card in cards:
                    assert row.contains_region(card.region), (size, hand, card.id)
                    assert card.content_size.width >= 3
                assert f"Pick a card with 1-{len(cards)}," in text(screen, "#message")
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = Game24Screen(Hand.parse("12 13 3 4 5 6", 100), "own")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("1", "plus", "2", "1", "minus", "4")  # 12 + 13, then 25 - 5
        await pilot.pause()
        made = 0  # (12 + 13) - 5 = 20, the first card
        whole = screen.board.cards[made].expression.replace(" * ", " × ").replace(" / ", " ÷ ")
        card = screen.query_one(f"#card-{made}")
        lines = str(card.render()).splitlines()
        assert lines[1] == screen.board.cards[made].label and lines[2].endswith("…")
        assert all(len(line) <= card.content_size.width for line in lines)
        await pilot.press(str(made + 1))
        await pilot.pause()
        assert f"{whole} = {screen.board.cards[made].label}" in text(screen, "#selection")
