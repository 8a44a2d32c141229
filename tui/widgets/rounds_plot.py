"""A small plot of a run's rounds: BoT's chain score and exact success by iteration, IoT's
exact success by turn. Drawn with plotext inside Textual (textual-plotext)."""

from __future__ import annotations

from dataclasses import dataclass

from textual_plotext import PlotextPlot

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
        checked = [(n, self.rounds[n].ok) for n in numbers if self.rounds[n].ok is not None]
        if checked:
            plt.scatter(
                [n for n, _ in checked],
                [1 if ok else 0 for _, ok in checked],
                label="exact check (1 ✓, 0 ✗)",
                marker="dot",
                yside="right",
            )
        plt.xticks([float(n) for n in numbers])
        self.refresh()
