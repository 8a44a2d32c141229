"""The solver pane's first tab says what it checks: "Words" on crosswords (each word against its
slot and crossings, listed and counted), "Arithmetic" on word problems and the Game of 24; a
line that only restates a number (``9600 = 9600``, BoT's answer line) is not listed or counted
as verified arithmetic, while real claims and wrong ones still are."""

from __future__ import annotations

from fractions import Fraction

import pytest
from textual.widgets import RichLog, TabbedContent

from puzzles.crossword import generate
from puzzles.game24 import Hand
from puzzles.wordproblem import WordProblem
from solver import events as ev
from tui.app import PonderApp
from tui.kinds import KINDS
from tui.screens.crossword import CrosswordScreen
from tui.screens.game24 import Game24Screen
from tui.screens.puzzle import PuzzleScreen
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.solver_pane import SolverPane, restates

SALARY = WordProblem(
    "Ann earns $4800 a month. How much does she earn in 2 months?", Fraction(9600), id="salary"
)


def tab_title(pane: SolverPane) -> str:
    return pane.query_one(TabbedContent).get_tab("tab-arith").label_text


def listed(pane: SolverPane) -> str:
    log = pane.query_one("#arith", RichLog)
    return "\n".join(strip.text for strip in log.lines)


def claim(lhs: str, rhs: str, status: str = "exact", exact: str | None = None) -> ev.ClaimVerified:
    return ev.ClaimVerified(None, lhs, rhs, exact or rhs, status, status == "exact")


@pytest.mark.parametrize(
    ("lhs", "rhs", "expected"),
    [
        ("9600", "9600", True),
        ("$9,600", "9600", True),
        ("-5", "-5", True),
        ("x = 2, y = -3", "x = 2, y = -3", True),  # an algebra answer line said again
        ("9600 / 2", "4800", False),
        ("4800 * 2", "9600", False),
        ("9600", "9601", False),
        ("1/2", "0.5", False),
        ("9600 - 0", "9600", False),
    ],
)
def test_restates(lhs: str, rhs: str, expected: bool) -> None:
    assert restates(lhs, rhs) is expected


def test_the_registry_names_each_kinds_checks() -> None:
    assert KINDS["crossword"].checks == "Words"
    assert KINDS["wordproblem"].checks == KINDS["game24"].checks == "Arithmetic"


@pytest.mark.parametrize(
    ("make", "title"),
    [
        (lambda: CrosswordScreen(generate(7), "open"), "Words"),
        (lambda: WordProblemScreen(SALARY, "easy"), "Arithmetic"),
        (lambda: Game24Screen(Hand.parse("4 7 8 8"), "easy"), "Arithmetic"),
    ],
)
async def test_the_first_tab_is_named_for_the_kind(
    app: PonderApp, make: object, title: str
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        assert callable(make)
        screen = make()
        assert isinstance(screen, PuzzleScreen)
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        assert tab_title(pane) == title
        assert title in pane.keys_note() or pane.view != "tree"


async def test_restated_numbers_are_not_listed_or_counted(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = WordProblemScreen(SALARY, "easy")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        pane.reset("bot", "offline")
        pane.apply(
            [
                claim("4800 * 2", "9600"),
                claim("9600", "9600"),  # the answer line, said again
                claim("9600 / 2", "4800"),
                claim("9600", "9601", "wrong", "9600"),
            ]
        )
        await pilot.pause()
        shown = listed(pane)
        assert "4800 × 2 = 9600" in shown and "9600 ÷ 2 = 4800" in shown
        assert "9600 = 9601" in shown  # a wrong restatement is still an error to show
        assert "9600 = 9600" not in shown
        assert pane.counts == {"exact": 2, "approx": 0, "wrong": 1, "invalid": 0}


async def test_crossword_words_are_listed_and_counted(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        screen = CrosswordScreen(generate(7), "open")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        pane.reset("tot-dfs", "offline")
        await pilot.pause()
        before = str(pane.query_one("#solver-status").render())
        assert "words ✓0 ✗0" in before and "≈" not in before  # no arithmetic on a crossword
        pane.apply(
            [
                ev.WordChecked(None, "h1", "SPOIL", "_____", True, "fits _____"),
                ev.WordChecked(
                    None,
                    "v2",
                    "PIXIE",
                    "S____",
                    False,
                    "conflicts with h1: row 1, column 2 holds P, not S",
                    "h1: P",
                ),
            ]
        )
        await pilot.pause()
        shown = listed(pane)
        assert "✓ h1. SPOIL  fits _____" in shown
        assert "✗ v2. PIXIE  conflicts with h1" in shown
        assert pane.words == {"fits": 1, "conflicts": 1}
        status = str(pane.query_one("#solver-status").render())
        assert "words ✓1 ✗1" in status
