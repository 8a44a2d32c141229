"""ReAct -> CoT-SC and CoT-SC -> ReAct where people meet them: listed by ``ponder solve
wordproblem --help`` (not by the Game of 24's) and offered by a word problem's method dialog;
``--paper --trace`` with the offline engine writes the fallback into the trace and prints it;
bench tallies the fallbacks; the solver pane's transcript shows each decision and the vote."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import RichLog

from puzzles.wordproblem import WordProblem
from solver import events as ev
from solver.settings import Settings
from solver.trace import read_trace
from tui.app import make_app
from tui.cli import main
from tui.screens.dialogs import MethodDialog
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.solver_pane import SolverPane

BOTH = ("react-cotsc", "cotsc-react")
# Five purchases, a total and the change: more computations than ReAct's seven steps allow
# the offline player, which computes one a step.
FRUIT = (
    "Sam buys 2 apples at $1 each, 3 pears at $2 each, 4 plums at $3 each, 5 figs at $4 each "
    "and 6 kiwis at $5 each. He pays with a $100 note. How many dollars of change does he get?"
)


def listed_methods(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    # argparse wraps after a hyphen (``cotsc-`` / ``react``): read the list as one line.
    text = re.sub(r"-\s+", "-", " ".join(capsys.readouterr().out.split()))
    return text.split("--method")[2].split(")")[0]


def test_the_word_problems_help_lists_both_and_the_game_of_24s_neither(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in ("solve", "bench"):
        assert all(name in listed_methods(capsys, command, "wordproblem") for name in BOTH)
        assert not any(name in listed_methods(capsys, command, "24") for name in BOTH)


def test_paper_mode_writes_the_fallback_taken_into_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "run.jsonl"
    argv = ["solve", "wordproblem", FRUIT, "--answer", "30", "--method", "react-cotsc"]
    code = main([*argv, "--paper", "--trace", str(trace)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    _header, events = read_trace(trace)
    events_list = list(events)
    started = next(e for e in events_list if isinstance(e, ev.RunStarted))
    assert started.method == "react-cotsc" and started.config["paper"] is True
    (ended,) = [e for e in events_list if isinstance(e, ev.EpisodeEnded)]
    (decided,) = [e for e in events_list if isinstance(e, ev.FallbackDecided)]
    assert ended.by == "cap" and decided.taken and decided.target == "cot-sc"
    (counted,) = [e for e in events_list if isinstance(e, ev.VotesCounted)]
    assert counted.samples == started.config["samples"]
    assert "fallback → cot-sc" in out and decided.reason in " ".join(out.split())
    assert "votes" in out


def test_bench_tallies_the_fallbacks(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "wordproblem", "--generated", "4", "--method", "cotsc-react"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (line,) = [ln for ln in out.splitlines() if ln.startswith("cotsc-react stopped by:")]
    counts = [int(n) for n in line.split("(")[0].replace(",", " ").split() if n.isdigit()]
    assert sum(counts) == 4 and "finish" not in line  # ReAct's own ending is not the run's
    assert "fell back" in line or "no fallback" in line


async def test_a_word_problems_method_dialog_offers_both(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        problem = WordProblem("Ann has 3 pens and buys 4. How many pens?", Fraction(7))
        await app.push_screen(WordProblemScreen(problem, "easy"))
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        assert set(BOTH) <= {s.name for s in dialog.specs}


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane(id="pane")


async def test_the_pane_shows_each_fallback_decision_and_the_vote() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.reset("react-cotsc", "offline")
        pane.apply(
            [
                ev.RunStarted("react-cotsc", "q", "wordproblem", "offline", {"samples": 21}),
                ev.EpisodeEnded(7, "cap", "no finish within 7 steps"),
                ev.FallbackDecided("react", "cot-sc", True, "ReAct gave no answer in 7 steps"),
                ev.VotesCounted(21, ("7", "8"), (12, 8), 1),
                ev.FallbackDecided("cot-sc", "react", False, "11 of 21 votes"),
            ]
        )
        await pilot.pause()
        lines = [line.text.rstrip() for line in pane.query_one("#transcript", RichLog).lines]
        text = "\n".join(lines)
        assert "Fallback to CoT-SC: ReAct gave no answer in 7 steps" in text
        assert "CoT-SC votes (21 samples): 7 ×12 · 8 ×8 · no answer ×1" in text
        assert "No fallback to ReAct: 11 of 21 votes" in text
        assert pane.view == "transcript"
