"""Word problems in the app: picked on home, answered the way people type, worked out on a
checked scratchpad, hints from the worked solution, giving up, results saved with kind
``wordproblem``, a solver beside the player, and everything at 80x24."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static

from puzzles.wordproblem import Solution, WordProblem, generate
from tests.tui.harness import FrozenClock, choices, eggs_problem, wait_for
from tui.app import PonderApp, Replay
from tui.kinds import KINDS
from tui.screens.home import HomeScreen
from tui.screens.puzzle import LeaveDialog
from tui.screens.wordproblem import WordProblemScreen, check_line, hints
from tui.store import Result
from tui.widgets.solver_pane import SolverPane

EGGS = eggs_problem()
BRICKS = WordProblem(
    "A wall takes 12 rows of 150 bricks. How many bricks is that?",
    Fraction(1800),
    Solution.parse("That is 12 * 150 = <<12*150=1800>>1800 bricks."),
    topic="measurement",
    level="easy",
)
PIZZA = WordProblem(
    "Tom eats 1/2 of a pizza and Ann eats 1/4. What part of the pizza did they eat?",
    Fraction(3, 4),
    Solution.parse("They ate 1/2 + 1/4 = <<1/2+1/4=3/4>>3/4 of it."),
    topic="fractions",
    level="easy",
)


async def play(pilot: Pilot[None], problem: WordProblem = EGGS) -> WordProblemScreen:
    screen = WordProblemScreen(problem, problem.level)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def shown(screen: WordProblemScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def type_in(pilot: Pilot[None], key: str, text: str) -> None:
    """Focus a box with its key (a: answer, w: scratchpad; none: the focused one), type
    ``text`` and press enter."""
    keys = ["space" if c == " " else c for c in text]
    await pilot.press(*([key] if key else []), *keys, "enter")
    await pilot.pause()


async def saved(app: PonderApp, pilot: Pilot[None]) -> Result:
    assert app.store is not None
    await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
    (last,) = app.store.recent(1)
    assert isinstance(last, Result)
    return last


# -- pure checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "mark", "text"),
    [
        ("16 - 3 - 4 = 9", "✓", "16 - 3 - 4 = 9"),
        ("She sells 16 - 3 - 4 = 9 eggs", "✓", "16 - 3 - 4 = 9"),
        ("9 * 2 = 19", "✗", "9 × 2 = 19  (it is 18)"),
        ("8/3 = 2.67", "≈", "8/3 = 2.67  (exactly 8/3)"),
        ("8 / 3 = 3", "✗", "8 ÷ 3 = 3  (it is 8/3 ≈ 2.6667)"),
        ("16 - 3 - 4", "=", "16 - 3 - 4 = 9"),
        ("(79 + 94) / 2", "=", "(79 + 94) ÷ 2 = 86.5"),
        ("2 +", "?", "2 +  (expression ends too early)"),  # unreadable: never ✗
        ("7 * 1 1/4 = 8.75", "✓", "7 × 1 1/4 = 8.75"),
        ("25% of 80 = 20 people", "✓", "25% of 80 = 20"),
        ("11 / 3 ≈ 3.67", "≈", "11 ÷ 3 ≈ 3.67  (exactly 11/3)"),
        ("so 100 / 7 = about 14", "≈", "100 ÷ 7 ≈ 14  (exactly 100/7)"),
        ("100 / 7 = 14", "✗", "100 ÷ 7 = 14  (it is 100/7 ≈ 14.2857)"),
        ("$4 \\times 6 = 24$", "✓", "4 × 6 = 24"),
    ],
)
def test_a_scratchpad_line_is_checked_exactly(line: str, mark: str, text: str) -> None:
    (checked,) = check_line(line)
    assert (checked.mark, checked.text) == (mark, text)


def test_every_claim_on_a_line_is_checked_and_nothing_raises() -> None:
    assert [c.mark for c in check_line("3 + 4 = 7, 7 * 2 = 15")] == ["✓", "✗"]
    assert check_line("   ") == []
    assert check_line("1" * 5000)[0].mark == "?"  # too long to read: no verdict
    assert check_line("2 ** 99999 = 1")[0].mark == "?"
    assert check_line("\x1b[31m = 2")[0].mark == "?"


def test_hints_go_from_the_first_quantity_to_the_whole_solution() -> None:
    steps = hints(EGGS)
    assert [title for title, _ in steps] == ["Find first", "First step", "Worked solution"]
    assert steps[0][1] == "She sells ? eggs."
    assert steps[1][1] == "She sells 16 - 3 - 4 = 9 eggs."
    assert steps[2][1].splitlines() == [
        "She sells 16 - 3 - 4 = 9 eggs.",
        "She makes 9 × 2 = $18 a day.",
    ]
    assert hints(WordProblem("2 + 2?", Fraction(4))) == []


# -- home --------------------------------------------------------------------------------------


async def test_home_offers_word_problems_by_level_and_seed(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        kinds = home.query_one("#kinds", OptionList)
        kinds.focus()
        kinds.highlighted = list(KINDS).index("wordproblem")
        await pilot.pause()
        level = home.query_one("#level", Select)
        assert choices(level)[1:] == list(WordProblemScreen.LEVELS)  # a level is its own label
        level.value = "hard"
        home.query_one("#seed", Input).value = "5"
        await pilot.press("p")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        assert screen.level == "hard" and screen.problem.level == "hard"
        assert screen.problem == generate(5, 1, None, "hard")[0]
        assert shown(screen, "#question") == screen.problem.question


# -- answers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("problem", "typed"),
    [
        (EGGS, "18"),
        (EGGS, "$18"),
        (EGGS, "18 dollars"),
        (EGGS, "The answer is 18."),
        (BRICKS, "1,800"),
        (BRICKS, "1800 bricks"),
        (PIZZA, "3/4"),
        (PIZZA, "0.75"),
    ],
)
async def test_a_right_answer_in_any_form_wins_and_is_saved(
    app: PonderApp, problem: WordProblem, typed: str
) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot, problem)
        await type_in(pilot, "a", typed)
        assert screen.over and "Solved" in shown(screen, "#message")
        assert screen.query_one("#puzzle").has_class("-won")
        last = await saved(app, pilot)
        assert last.kind == "wordproblem" and last.solved and not last.gave_up
        assert last.difficulty == "easy" and last.puzzle == screen.puzzle_text


async def test_a_wrong_answer_is_told_and_an_unreadable_one_is_asked_again(
    app: PonderApp,
) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot)
        await type_in(pilot, "a", "19")
        assert "Not yet: 19 is not correct" in shown(screen, "#message")
        assert screen.tries == 1 and not screen.over
        await pilot.press("ctrl+u")
        await type_in(pilot, "", "18 or 19")
        assert "Cannot read that" in shown(screen, "#message")
        assert screen.tries == 1  # not counted as a miss
        await pilot.press("ctrl+u")
        await type_in(pilot, "", "$18.00")
        assert screen.over and "18 dollars is right" in shown(screen, "#message")


# -- the scratchpad -------------------------------------------------------------------------------


async def test_scratchpad_lines_are_listed_with_their_marks_and_values(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot)
        await pilot.press("w", "1", "6", "minus", "3")
        assert "= 13" in shown(screen, "#scratch-preview")  # checked as it is typed
        await pilot.press("ctrl+u")
        for line in ("16 - 3 - 4 = 9", "9 * 2 = 19", "8/3 = 2.67", "16 - 7"):
            await type_in(pilot, "", line)
        assert screen.query_one("#scratch", Input).value == ""
        lines = shown(screen, "#scratch-lines").splitlines()
        assert lines == [
            "Scratchpad",
            "✓ 16 - 3 - 4 = 9",
            "✗ 9 × 2 = 19  (it is 18)",
            "≈ 8/3 = 2.67  (exactly 8/3)",
            "= 16 - 7 = 9",
        ]
        assert not screen.over and screen.begun()
        # Escape leaves the box; the screen's keys work again.
        await pilot.press("escape", "h")
        assert screen.focused is None and screen.hints_used == 1


# -- hints and giving up -------------------------------------------------------------------------


async def test_hints_come_in_order_and_the_last_shows_the_solution(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot)
        await pilot.press("h")
        assert shown(screen, "#hints") == "Find first: She sells ? eggs."
        assert "hints 1" in shown(screen, "#puzzle-title")
        await pilot.press("h")
        assert shown(screen, "#hints").splitlines()[1] == (
            "First step: She sells 16 - 3 - 4 = 9 eggs."
        )
        assert not screen.solution_shown
        await pilot.press("h")
        assert "She makes 9 × 2 = $18 a day." in shown(screen, "#hints")
        assert screen.solution_shown and screen.hints_used == 3
        await pilot.press("h")
        assert screen.hints_used == 3
        await type_in(pilot, "a", "18")
        last = await saved(app, pilot)
        assert last.solved and last.solution_shown and last.hints == 3


async def test_giving_up_shows_the_answer_and_solution_and_is_saved(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot)
        await pilot.press("g", "y")
        assert screen.over and screen.gave_up
        assert "the answer is 18 dollars" in shown(screen, "#message")
        assert "Worked solution" in shown(screen, "#hints")
        last = await saved(app, pilot)
        assert last.kind == "wordproblem" and last.gave_up and not last.solved
        await type_in(pilot, "a", "18")  # too late
        assert "You gave up" in shown(screen, "#message")
        await pilot.press("escape", "escape")  # leaving a finished problem asks nothing
        assert isinstance(app.screen, HomeScreen)


async def test_leaving_a_begun_problem_asks_and_records_it_abandoned(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await play(pilot)
        await type_in(pilot, "w", "1 + 1")
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, LeaveDialog)
        await pilot.press("y")
        last = await saved(app, pilot)
        assert last.kind == "wordproblem" and last.abandoned


async def test_new_keeps_the_topic_and_t_moves_to_the_next(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(WordProblemScreen.deal("medium", 3, "ages"))
        await pilot.pause()
        first = app.screen
        assert isinstance(first, WordProblemScreen) and first.problem.topic == "ages"
        await pilot.press("n")
        await pilot.pause()
        second = app.screen
        assert isinstance(second, WordProblemScreen) and second is not first
        assert second.problem.topic == "ages" and second.level == "medium"
        await pilot.press("t")
        await pilot.pause()
        third = app.screen
        assert isinstance(third, WordProblemScreen) and third.topic == "work"
        assert third.problem.topic == "work" and third.problem.level == "medium"


# -- the solver beside the player ----------------------------------------------------------------


@pytest.mark.parametrize("method", ["cot", "react", "deli"])
async def test_a_solver_runs_to_its_end_beside_the_problem(app: PonderApp, method: str) -> None:
    app.method_name = method
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await play(pilot)
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        finished = pane.finished
        assert finished is not None and pane.method == method
        assert finished.reason != "error", finished.verdict


def test_a_replay_rebuilds_its_problem_from_the_header() -> None:
    problem = generate(2, 1)[0]
    screen = WordProblemScreen.from_replay(Replay({"id": problem.id}, []))
    assert screen.problem == problem and screen.level == "replay"
    typed = WordProblemScreen.from_replay(Replay({"puzzle": "1 + 1?", "answer": "2"}, []))
    assert typed.problem.answer == 2
    with pytest.raises(ValueError):
        WordProblemScreen.from_replay(Replay({}, []))


# -- 80x24 -------------------------------------------------------------------------------------


async def test_everything_works_at_80x24(app: PonderApp) -> None:
    app.method_name = "cot"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play(pilot)
        for line in ("16 - 3 - 4 = 9", "9 * 2 = 19", "8/3 = 2.67", "9 * 2"):
            await type_in(pilot, "w", line)
            await pilot.press("escape")
        await pilot.press("h", "h", "s")
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None)
        await type_in(pilot, "a", "17")
        await pilot.press("escape", "g", "y")
        assert screen.over and screen.gave_up
        assert screen.query_one("#answer").region.bottom <= 24
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("escape", "n")
        await pilot.pause()
        assert isinstance(app.screen, WordProblemScreen) and app.screen is not screen


# -- snapshot ------------------------------------------------------------------------------------


def test_snapshot_80x24(
    snap_compare: Callable[..., bool], app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())
    monkeypatch.setattr("tui.widgets.solver_pane.time", FrozenClock())

    async def worked(pilot: Pilot[None]) -> None:
        await play(pilot)
        await type_in(pilot, "w", "16 - 3 - 4 = 9")
        await type_in(pilot, "", "9 * 2 = 19")
        await pilot.press("escape", "h")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=worked)


LONG_WAY = WordProblem(
    "Ivan works as a lifeguard for $28 an hour. Hours over 40 in a week are paid at 1.5 "
    "times that rate. How many dollars does Ivan earn in a week of 41 hours?",
    Fraction(1162),
    Solution.parse(
        "Overtime is 41 - 40 = <<41-40=1>>1 hour.\n"
        "Overtime pays 28 * 1.5 = <<28*1.5=42>>42 dollars an hour.\n"
        "The first 40 hours pay 40 * 28 = <<40*28=1120>>1120 dollars.\n"
        "The overtime pays 1 * 42 = <<1*42=42>>42 dollars.\n"
        "So Ivan earns 1120 + 42 = <<1120+42=1162>>1162 dollars."
    ),
    topic="work",
    level="hard",
    unit="dollars",
)


async def test_a_worked_solution_longer_than_its_room_scrolls_by_the_keys(
    app: PonderApp,
) -> None:
    """At 80x24 the worked solution shown on giving up is taller than the room under the
    question: the arrows and page keys scroll it, the message says so, and the help lists
    the keys on one row."""
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play(pilot, LONG_WAY)
        await pilot.press("g", "y")
        await wait_for(pilot, lambda: screen.over)
        assert "↑ ↓ scroll it" in shown(screen, "#message")
        assert "(a)" not in screen.query_one("#answer", Input).placeholder  # a is not offered
        body = screen.query_one("#wp-body")
        await wait_for(pilot, lambda: body.max_scroll_y > 0)
        await pilot.press("pageup", "pageup", "pageup")
        assert body.scroll_y == 0
        await pilot.press(*["down"] * 12)
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("up")
        assert body.scroll_y == body.max_scroll_y - 1
        await pilot.press("question_mark")
        await pilot.pause()
        rows = [row for row in app.screen.rows if "Scroll" in row[1]]  # type: ignore[attr-defined]
        assert len(rows) == 1 and "pgdn" in rows[0][0], rows
