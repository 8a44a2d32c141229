"""No spoilers in a transcript: while the player plays, ReAct's and DELI's transcripts keep the
solver's answer hidden, as the status line does (its finish action and the thought before it,
DELI's stage answers, their working and verdicts, CoT-SC's votes), and so do IoT's turns (each
candidate answer and the reply that states it) and the status line's reply streaming in (a
final answer's call, a line stating an answer), which says what the call does in words;
`v` shows it and hides it again, and solving or giving up shows it. At 80x24, as a newcomer
plays."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import RichLog, Static, TabbedContent, Tree
from textual.widgets.tree import TreeNode

from solver import events as ev
from solver.roles import Purpose
from tests.tui.harness import eggs_problem, open_hand, wait_for
from tui.app import PonderApp
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.dialogue import TurnCard
from tui.widgets.solver_pane import SolverPane

SMALL = (80, 24)
EGGS = eggs_problem()
HIDDEN = "hidden while you play"


def transcript(pane: SolverPane) -> str:
    """The transcript as one line (the pane wraps it at its width)."""
    log = pane.query_one("#transcript", RichLog)
    return " ".join(" ".join(line.text for line in log.lines).split())


def answers(text: str) -> list[str]:
    """The parts of a transcript that give the solver's answer: ReAct's finish action and
    where it stopped, DELI's stage answers."""
    return re.findall(r"finish\[.*?\]|: answer .*?[✓✗]", text)


@pytest.mark.parametrize("method", ["react", "deli"])
async def test_the_transcript_hides_the_answer_until_asked_or_given_up(
    app: PonderApp, method: str
) -> None:
    app.method_name = method
    async with app.run_test(size=SMALL) as pilot:
        screen = WordProblemScreen(EGGS, EGGS.level)
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        await pilot.pause()
        assert pane.finished is not None and pane.finished.answer
        answer = pane.finished.answer  # the offline engine's: right or wrong
        said = answers(transcript(pane))
        assert said and all("hidden" in line for line in said), said
        assert answer not in " ".join(said)
        await pilot.press("v")  # asked: the answer shows, in the transcript too
        await wait_for(pilot, lambda: "hidden" not in transcript(pane))
        assert any(answer in line for line in answers(transcript(pane)))
        await pilot.press("v")  # hidden again
        await wait_for(pilot, lambda: "hidden" in transcript(pane))
        await pilot.press("g", "y")  # given up: no spoiler any more
        await wait_for(pilot, lambda: screen.over)
        await wait_for(pilot, lambda: "hidden" not in transcript(pane))
        assert any(answer in line for line in answers(transcript(pane)))


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane(id="pane")


async def test_cot_sc_votes_and_a_stage_verdict_keep_the_answer_while_hidden() -> None:
    app = PaneApp()
    async with app.run_test(size=SMALL) as pilot:
        pane = app.query_one(SolverPane)
        pane.answer_hidden = True
        pane.reset("react-cotsc", "offline")
        pane.apply(
            [
                ev.VotesCounted(5, ("180", "170"), (3, 2)),
                ev.DeliberationStage(1, 3, "tool", "so it is 180", "180", False, "180 is not 18"),
            ]
        )
        await wait_for(pilot, lambda: "votes" in transcript(pane))
        hidden = transcript(pane)
        assert "180" not in hidden and "×3 · ×2" in hidden and HIDDEN in hidden
        pane.show_answer()
        await wait_for(pilot, lambda: "180 ×3" in transcript(pane))
        assert "so it is 180" in transcript(pane) and "180 is not 18" in transcript(pane)


def dialogue(pane: SolverPane) -> str:
    """IoT's turn cards as drawn, one line."""
    return " ".join(" ".join(str(card.render()) for card in pane.query(TurnCard)).split())


async def test_iots_turns_hide_their_candidate_answers_until_asked_or_given_up(
    app: PonderApp,
) -> None:
    app.method_name = "aiot"
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_hand(app, pilot, "1 8 8 9")
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        await wait_for(pilot, lambda: "candidate" in dialogue(pane))
        assert pane.finished is not None and pane.finished.answer
        said = re.findall(r"answer (.*?) uncertainty .*? candidate (.*?) [✓✗]", dialogue(pane))
        assert said and all(HIDDEN in reply and HIDDEN in c for reply, c in said), said
        await pilot.press("v")
        await wait_for(pilot, lambda: HIDDEN not in dialogue(pane))
        answer = screen.answer_text(pane.finished.answer)
        assert answer in dialogue(pane)
        await pilot.press("v")
        await wait_for(pilot, lambda: HIDDEN in dialogue(pane))
        await pilot.press("g", "y")
        await wait_for(pilot, lambda: screen.over)
        await wait_for(pilot, lambda: HIDDEN not in dialogue(pane))


def status(pane: SolverPane) -> str:
    return str(pane.query_one("#solver-status", Static).render())


async def test_a_reply_streaming_in_says_what_it_does_and_keeps_an_answer_hidden() -> None:
    app = PaneApp()
    async with app.run_test(size=SMALL) as pilot:
        pane = app.query_one(SolverPane)
        pane.answer_hidden = True
        pane.reset("bot", "offline")
        pane.apply([ev.TokensStreamed(1, "bot_step", 0, "Step: 9 - 3 = 6")])
        await wait_for(pilot, lambda: "writing a step: Step: 9 - 3 = 6" in status(pane))
        assert "bot_step" not in status(pane)  # a trace's name, not a player's words
        pane.apply([ev.TokensStreamed(2, "bot_final", 0, "(9 - 3) * (8 - 4) = 24")])
        await wait_for(pilot, lambda: "the final answer: (hidden" in status(pane))
        assert "(8 - 4)" not in status(pane)
        pane.apply([ev.TokensStreamed(3, "react_act", 0, "Action 4: finish[46]")])
        await wait_for(pilot, lambda: "thinking and acting: (hidden" in status(pane))
        pane.show_answer()
        pane.refresh_status()
        await wait_for(pilot, lambda: "finish[46]" in status(pane))
    assert all(purpose.said for purpose in Purpose)  # every call has its words


def tree_text(pane: SolverPane) -> str:
    """The thought tree's labels, one line."""
    labels: list[str] = []

    def walk(node: TreeNode[str]) -> None:
        for child in node.children:
            labels.append(str(child.label))
            walk(child)

    walk(pane.query_one("#thoughts", Tree).root)
    return " | ".join(labels)


async def log_text(pilot: Any, pane: SolverPane, log_id: str) -> str:
    """A tab's log as one line (shown first: a log out of sight waits to be drawn)."""
    pane.query_one(TabbedContent).active = f"tab-{log_id}"
    log = pane.query_one(f"#{log_id}", RichLog)
    await wait_for(pilot, lambda: log.lines, timeout=5)
    return " ".join(" ".join(line.text for line in log.lines).split())


WINNING = [
    ev.ThoughtAdded("t1", "a", None, "6 / 6 = 1", 1, "11 12 1"),
    ev.ThoughtAdded("t1", "b", "a", "11 + 1 = 12", 2, "12 12"),
    ev.ThoughtAdded("t1", "dead", "a", "12 / 1 = 12", 2, "11 12"),
    ev.ThoughtAdded("t1", "c", "b", "12 + 12 = 24", 3, "24"),
    ev.ThoughtAdded("t2", "said", None, "Answer: (6 - 6) × 11 × 12", 1, ""),
    ev.LeafReached("said", "0 is not 24"),
    ev.ClaimVerified("c", "12 + 12", "24", "24", "exact", True),
    ev.ClaimVerified("dead", "12 / 1", "12", "12", "exact", True),
    ev.ChainAggregated(
        1, "greedy", ("a", "b", "c"), ("6 / 6 = 1", "11 + 1 = 12", "12 + 12 = 24"), 1
    ),
    ev.ExperienceAdded(1, (), "report: 11 + 1 = 12 then 12 + 12", (), 0.9, "reaches 24", True),
    ev.RunFinished("(6 / 6 + 11) + 12", True, "reaches 24", 3, 10, 10, 0.0, 1.0),
]


async def test_the_way_to_the_answer_is_hidden_in_the_tree_and_logs_until_shown() -> None:
    """The thoughts that reach 24 and those before them, their checks, the chain that makes
    them and its analysis, and the experience log's answer line stay hidden while the player
    plays; shown, they all read whole (the answer line too)."""
    app = PaneApp()
    async with app.run_test(size=SMALL) as pilot:
        pane = app.query_one(SolverPane)
        pane.goal = "24"
        pane.answer_hidden = True
        pane.reset("bot", "offline")
        pane.apply(WINNING)
        await pilot.pause()
        tree = tree_text(pane)
        for step in ("6 ÷ 6 = 1", "11 + 1 = 12", "12 + 12 = 24", "Answer:"):
            assert step not in tree, tree  # the way to 24, and an answer the solver stated
        assert "12 ÷ 1 = 12" in tree and tree.count("(hidden)") == 4 and "★" in tree
        checks = await log_text(pilot, pane, "arith")
        assert "12 + 12" not in checks and "12 ÷ 1 = 12" in checks and HIDDEN in checks
        said = await log_text(pilot, pane, "experience")
        assert "12 + 12" not in said and "11 + 1" not in said, said
        assert "answer: hidden" in said and "11) + 12" not in said
        pane.show_answer()
        await pilot.pause()
        tree = tree_text(pane)
        assert "12 + 12 = 24" in tree and "11 + 1 = 12" in tree and "hidden" not in tree
        assert "Answer: (6 - 6) × 11 × 12" in tree
        assert "12 + 12 = 24" in await log_text(pilot, pane, "arith")
        said = await log_text(pilot, pane, "experience")
        assert "12 + 12 = 24" in said and "report: 11 + 1" in said and HIDDEN not in said
        assert "answer: (6 / 6 + 11) + 12 ✓" in said, said  # the answer line, once shown
        pane.show_answer(False)
        await pilot.pause()
        assert "12 + 12" not in tree_text(pane) + await log_text(pilot, pane, "experience")


async def test_a_chain_that_checks_hides_its_thoughts_though_none_reaches_the_goal() -> None:
    """A crossword's BoT chain fills the grid from words of several thoughts, no one of which
    holds the whole board: once its analysis says the chain checks, its words are hidden in
    the tree, the Words tab and the chain's line, while the answer is."""
    app = PaneApp()
    async with app.run_test(size=SMALL) as pilot:
        pane = app.query_one(SolverPane)
        pane.goal = "STRIP/TRADE"
        pane.answer_hidden = True
        pane.reset("bot", "offline")
        pane.apply(
            [
                ev.ThoughtAdded("t1", "a", None, "h1. STRIP", 1, "STRIP/_____"),
                ev.WordChecked("a", "h1", "STRIP", "_____", True),
                ev.ThoughtAdded("t1", "b", "a", "h2. TRADE", 2, "STRIP/TRADX"),
                ev.ThoughtAdded("t1", "c", None, "h1. SCRIP", 1, "SCRIP/_____"),
                ev.ChainAggregated(1, "greedy", ("a", "b"), ("h1. STRIP", "h2. TRADE"), 0.9),
            ]
        )
        await pilot.pause()
        assert "STRIP" in tree_text(pane)  # not known to be the answer yet
        pane.apply([ev.ExperienceAdded(1, (), "all fit", (), 0.9, "", True)])
        await pilot.pause()
        shown = tree_text(pane) + await log_text(pilot, pane, "arith")
        shown += await log_text(pilot, pane, "experience")
        assert "STRIP" not in shown and "TRADE" not in shown and "SCRIP" in shown, shown


@pytest.mark.parametrize("kind", ["game24", "crossword", "wordproblem"])
def test_the_legend_says_what_a_hidden_thought_is(kind: str) -> None:
    from tui.screens.dialogs import legend_rows

    said = dict(legend_rows(kind)).get("(hidden)", "")
    assert "hidden while you play" in said and "shows it" in said
