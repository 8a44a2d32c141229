"""The solver pane's transcript (ReAct, DELI) keeps a multi-line text together: every line
of a stage's text, and every line a thought or an observation wraps onto, is indented under
its first, and nothing runs past an 80-column terminal, nor past a pane made narrow again
after its lines were written wide (ctrl+z, then ctrl+z again)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import RichLog

from solver import events as ev
from tests.tui.harness import wait_for
from tui.widgets.solver_pane import SolverPane

LONG = (
    "the eggs left after breakfast and baking are sold at the market for two dollars each, "
    "so the money made is nine times two"
)


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane(id="pane")


def _lines(pane: SolverPane) -> list[str]:
    return [line.text.rstrip() for line in pane.query_one("#transcript", RichLog).lines]


def _between(lines: list[str], first: str, last: str) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i, line in enumerate(lines) if line.startswith(last))
    return lines[start + 1 : end]


async def test_every_line_of_a_deli_stage_text_is_indented_at_80_columns() -> None:
    app = PaneApp()
    async with app.run_test(size=(80, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.reset("deli", "offline")
        pane.apply([ev.RunStarted("deli", "q", "wordproblem", "offline", {})])
        text = f"x = 16 - 3 - 4\ny = x * 2\n{LONG}\nanswer: y"
        pane.apply(
            [
                ev.DeliberationStage(1, 3, "tool", text, "18", True, "18 is right", True),
                ev.DeliberationEnded(1, "agree", "the two stages agree", "tool"),
            ]
        )
        await wait_for(pilot, lambda: "Stopped:" in " ".join(_lines(pane)))
        lines = _lines(pane)
        body = _between(lines, "Turn 1/3 · tool:", "Stopped:")
        assert len(body) > 4, body  # four lines of text, the long one wrapped
        assert all(line.startswith("  ") and line[2] != " " for line in body), body
        assert body[0] == "  x = 16 - 3 - 4" and body[1] == "  y = x * 2"
        assert body[-1] == "  answer: y"
        joined = " ".join(line.strip() for line in body)
        assert LONG in joined  # wrapped, not cut
        assert max(len(line) for line in lines) <= 80


async def test_react_thoughts_and_observations_hang_under_their_first_line() -> None:
    app = PaneApp()
    async with app.run_test(size=(80, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.reset("react", "offline")
        pane.apply([ev.RunStarted("react", "q", "wordproblem", "offline", {})])
        pane.apply(
            [
                ev.ToolCalled(1, "calculate", "16 - 3 - 4", f"First the eggs.\n{LONG}"),
                ev.ToolObserved(1, "calculate", f"9\n{LONG}", "ok", "9"),
                ev.EpisodeEnded(2, "finish", "the model called finish"),
            ]
        )
        await wait_for(pilot, lambda: "Stopped:" in " ".join(_lines(pane)))
        lines = _lines(pane)
        assert "Thought 1: First the eggs." in lines
        thought = _between(lines, "Thought 1:", "Action 1:")
        assert len(thought) >= 2
        assert all(line.startswith(" " * len("Thought 1: ")) for line in thought), thought
        seen = _between(lines, "Observation 1:", "Stopped:")
        assert len(seen) >= 2
        assert all(line.startswith(" " * len("Observation 1: ")) for line in seen), seen
        assert max(len(line) for line in lines) <= 80


async def test_deli_retrieved_demonstrations_head_the_transcript() -> None:
    app = PaneApp()
    async with app.run_test(size=(80, 40)) as pilot:
        pane = app.query_one(SolverPane)
        pane.reset("deli", "offline")
        pane.apply([ev.RunStarted("deli", "q", "wordproblem", "offline", {})])
        texts = (f"Question: {LONG}?\nSteps:\n9 * 2 = 18\nAnswer: 18", "Question: Short one?")
        pane.apply(
            [
                ev.DemonstrationsRetrieved(
                    "BM25 over 400 generated problems", ("eggs/1", "eggs/2"), (12.5, 3.0), texts, 8
                ),
                ev.DeliberationStage(0, 3, "language", "x = 1", "1", False, "wrong", True),
            ]
        )
        await wait_for(pilot, lambda: "Turn 0/3 · language:" in " ".join(_lines(pane)))
        lines = _lines(pane)
        assert lines[0].startswith("Examples: 2 of 8 retrieved by BM25 over 400")
        assert lines[1].startswith("eggs/1 · 12.5: the eggs left")
        first = _between(lines, "eggs/1", "eggs/2")
        assert first and all(line.startswith(" " * len("eggs/1 · 12.5: ")) for line in first)
        assert LONG in " ".join(line.strip() for line in [lines[1], *first]).replace(
            "eggs/1 · 12.5: ", ""
        )
        assert lines[len(first) + 2] == "eggs/2 · 3: Short one?"
        assert any(line.startswith("Turn 0/3 · language:") for line in lines)


async def test_lines_written_wide_wrap_again_when_the_pane_narrows() -> None:
    app = PaneApp()
    async with app.run_test(size=(120, 24)) as pilot:
        pane = app.query_one(SolverPane)
        pane.reset("react", "offline")
        pane.apply([ev.ToolCalled(1, "calculate", "9 * 2", LONG)])
        log = pane.query_one("#transcript", RichLog)
        await wait_for(pilot, lambda: log.lines)
        await pilot.resize_terminal(50, 24)
        await wait_for(pilot, lambda: log.scrollable_content_region.width < 60)
        await pilot.pause()
        width = log.scrollable_content_region.width
        assert all(line.cell_length <= width for line in log.lines)
        said = " ".join(" ".join(line.text.strip() for line in log.lines).split())
        assert LONG in said and "calculate[9 × 2]" in said
