"""Algebra problems (the sympy set) as a word-problem topic: chosen on home, shown on the word
problem screen, answered as people write expressions and solutions, checked by sympy equality
through the whitelisting parser (an equal answer in the wrong form is told so; a hostile answer
is only unreadable), saved with kind ``wordproblem``, and n / t keep to algebra."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static

from puzzles.wordproblem import AlgebraProblem, make_algebra
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.kinds import KINDS
from tui.screens.home import HomeScreen
from tui.screens.puzzle import NewDialog
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.solver_pane import SolverPane


async def play(pilot: Pilot[None], problem: AlgebraProblem) -> WordProblemScreen:
    screen = WordProblemScreen(problem, problem.level, topic="algebra")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


async def answer(pilot: Pilot[None], screen: WordProblemScreen, text: str) -> str:
    box = screen.query_one("#answer", Input)
    box.value = text
    box.focus()
    await pilot.press("enter")
    await pilot.pause()
    return str(screen.query_one("#message", Static).render())


def test_algebra_is_a_topic() -> None:
    topics = KINDS["wordproblem"].spec.topics() if KINDS["wordproblem"].spec.topics else ()
    assert topics[-1] == "algebra" and "shopping" in topics
    dealt = WordProblemScreen.deal("hard", 5, "algebra")
    assert isinstance(dealt.problem, AlgebraProblem) and dealt.problem.level == "hard"
    factor = WordProblemScreen.deal(None, 5, "factor")
    assert isinstance(factor.problem, AlgebraProblem) and factor.problem.kind == "factor"


async def test_home_deals_algebra_from_the_topic(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        home.query_one("#kinds", OptionList).highlighted = list(KINDS).index("wordproblem")
        await pilot.pause()
        assert home.query_one("#topic-field").display
        home.query_one("#topic", Select).value = "algebra"
        home.query_one("#seed", Input).value = "12"
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        assert isinstance(screen.problem, AlgebraProblem)
        assert screen.problem == WordProblemScreen.deal(None, 12, "algebra").problem
        question = str(screen.query_one("#question", Static).render())
        assert question == screen.problem.prompt
        assert "Algebra: " in str(screen.query_one("#puzzle-title", Static).render())


async def test_an_expansion_is_checked_by_sympy_equality(app: PonderApp) -> None:
    problem = make_algebra("expand", "medium", 4)
    assert problem.given is not None
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play(pilot, problem)
        given = problem.prompt.split(":", 1)[1].strip()  # the product itself
        said = await answer(pilot, screen, given)
        assert "equal, but not expanded" in said and not screen.over
        said = await answer(pilot, screen, problem.answer_text + " + 1")
        assert "not equal" in said and screen.tries == 2
        said = await answer(pilot, screen, "__import__('os').system('true')")
        assert "Cannot read that" in said and screen.tries == 2 and not screen.over
        said = await answer(pilot, screen, problem.answer_text.replace(" ", ""))
        assert "Solved!" in said and screen.over
        assert app.store is not None
        await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
        (last,) = app.store.recent(1)
        assert last.kind == "wordproblem" and last.solved


async def test_a_system_is_answered_with_values(app: PonderApp) -> None:
    problem = make_algebra("system", "easy", 2)
    names = problem.variables
    assert len(names) == 2
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play(pilot, problem)
        placeholder = str(screen.query_one("#answer", Input).placeholder)
        assert f"{names[0]} = " in placeholder and f"{names[1]} = " in placeholder
        right = dict(part.split(" = ") for part in problem.answer_text.split(", "))
        wrong = f"{names[0]} = {right[names[0]]}, {names[1]} = 1000"
        said = await answer(pilot, screen, wrong)
        assert f"{names[0]} is right" in said and not screen.over
        said = await answer(pilot, screen, problem.answer_text)
        assert "Solved!" in said


async def test_giving_up_and_hints_on_algebra(app: PonderApp) -> None:
    problem = make_algebra("factor", "easy", 3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play(pilot, problem)
        await pilot.press("h")
        assert "no worked solution" in str(screen.query_one("#message", Static).render())
        await pilot.press("g", "y")
        said = str(screen.query_one("#message", Static).render())
        assert screen.gave_up and problem.answer_text in said


async def test_n_and_t_keep_to_algebra_and_the_solver_runs(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        first = WordProblemScreen.deal("easy", 3, "algebra")
        await app.push_screen(first)
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is not first)
        second = app.screen
        assert isinstance(second, WordProblemScreen)
        assert isinstance(second.problem, AlgebraProblem) and second.problem.level == "easy"
        await pilot.press("s")
        pane = second.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None)
        await pilot.press("t")  # after algebra, any topic again
        await wait_for(pilot, lambda: isinstance(app.screen, NewDialog))
        await pilot.press("y")  # the solver ran: the problem was in play, and t asked
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        await wait_for(pilot, lambda: app.screen is not second)
        third = app.screen
        assert isinstance(third, WordProblemScreen) and third.topic is None
        assert not isinstance(third.problem, AlgebraProblem)
