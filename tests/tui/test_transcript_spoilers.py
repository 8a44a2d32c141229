"""No spoilers in a transcript: while the player plays, ReAct's and DELI's transcripts keep the
solver's answer hidden, as the status line does (its finish action and the thought before it,
DELI's stage answers, their working and verdicts, CoT-SC's votes), and so do IoT's turns (each
candidate answer and the reply that states it) and the status line's reply streaming in (a
final answer's call, a line stating an answer), which says what the call does in words;
`v` shows it and hides it again, and solving or giving up shows it. At 80x24, as a newcomer
plays."""

from __future__ import annotations

import re

import pytest
from textual.app import App, ComposeResult
from textual.widgets import RichLog, Static

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
