"""A small plot of a run's rounds: BoT's chain score and exact success by iteration, IoT's
exact success by turn. Drawn with plotext inside Textual (textual-plotext)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from tui.widgets.tones import Tone, tone

__all__ = ["Round", "RoundsPlot"]


@dataclass
class Round:
    """What one round of a run came to."""

    score: float | None = None  # BoT: the aggregated chain's score
    ok: bool | None = None  # the exact check of the round's answer or chain


class RoundsPlot(PlotextPlot):
    """Score and success by round; empty until a round is done."""

    DEFAULT_CSS = """
    RoundsPlot { height: 1fr; min-height: 6; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rounds: dict[int, Round] = {}
        self.round_name = "iteration"

    def clear(self, round_name: str = "iteration") -> None:
        self.rounds.clear()
        self.round_name = round_name
        self.draw()

    def record(self, number: int, *, score: float | None = None, ok: bool | None = None) -> None:
        entry = self.rounds.setdefault(number, Round())
        if score is not None:
            entry.score = score
        if ok is not None:
            entry.ok = ok
        self.draw()

    MIN_PLOT_HEIGHT = 8
    """Rows a plot needs to say anything; a shorter pane shows the rounds as lines of text."""

    def render(self) -> RenderResult:
        if len(self.rounds) < 2 or self.size.height < self.MIN_PLOT_HEIGHT:
            return self.summary()
        return super().render()

    def summary(self) -> Text:
        """The rounds as text, the latest first: for a single round (a plot of one point is
        empty) or a pane too short to plot in."""
        if not self.rounds:
            return Text(f"Nothing yet: each {self.round_name}'s score and check shows here.")
        lines = Text()
        for number in sorted(self.rounds, reverse=True):
            entry = self.rounds[number]
            if lines:
                lines.append("\n")
            lines.append(f"{self.round_name} {number}", style="bold")
            if entry.score is not None:
                lines.append(f"  chain score {entry.score:.3g}")
            if entry.ok is not None:
                lines.append(
                    "  ✓ right" if entry.ok else "  ✗ wrong",
                    style=tone(self, Tone.RIGHT) if entry.ok else tone(self, Tone.WRONG),
                )
        return lines

    def draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        numbers = sorted(self.rounds)
        plt.title(f"by {self.round_name}")
        plt.xlabel(self.round_name)
        if not numbers:
            self.refresh()
            return
        scores = [(n, self.rounds[n].score) for n in numbers if self.rounds[n].score is not None]
        if scores:
            plt.plot(
                [n for n, _ in scores],
                [s for _, s in scores],
                label="chain score",
                marker="braille",
            )
        if scores:
            values = [s for _, s in scores if s is not None]
            low, high = min(values), max(values)
            pad = (high - low) * 0.1 or 0.1
            plt.ylim(low - pad, high + pad, yside=1)  # 1: the left axis
        checked = [(n, self.rounds[n].ok) for n in numbers if self.rounds[n].ok is not None]
        if checked:
            plt.scatter(
                [n for n, _ in checked],
                [1 if ok else 0 for _, ok in checked],
                label="exact check",
                marker="dot",
                yside="right",
            )
            # Two values only: ✗ and ✓ on their own axis, not a -1…1 scale.
            plt.ylim(-0.25, 1.25, yside=2)  # 2: the right axis
            plt.yticks([0, 1], ["✗", "✓"], yside=2)
        plt.xlim(numbers[0] - 0.5, numbers[-1] + 0.5)
        plt.xticks([float(n) for n in numbers])
        self.refresh()
