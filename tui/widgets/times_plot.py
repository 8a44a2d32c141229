"""The player's games over time on the home screen: solve times of solved games, and the
games not solved, oldest first (plotext inside Textual)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from textual_plotext import PlotextPlot

__all__ = ["TimesPlot"]


class Played(Protocol):
    @property
    def seconds(self) -> float: ...

    @property
    def solved(self) -> bool: ...


class TimesPlot(PlotextPlot):
    """Solve times by game; hidden until there are two games to compare."""

    DEFAULT_CSS = """
    TimesPlot { height: 12; }
    """

    def show(self, games: Sequence[Played]) -> None:
        """``games`` newest first, as the store gives them."""
        ordered = list(reversed(games))
        self.display = len(ordered) >= 2
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("your games: seconds to solve")
        numbers = list(range(1, len(ordered) + 1))
        solved = [(n, g.seconds) for n, g in zip(numbers, ordered, strict=True) if g.solved]
        missed = [n for n, g in zip(numbers, ordered, strict=True) if not g.solved]
        if solved:
            plt.plot(
                [n for n, _ in solved],
                [s for _, s in solved],
                label="solved",
                marker="braille",
            )
        if missed:
            plt.scatter(missed, [0.0] * len(missed), label="not solved", marker="x")
        plt.xlabel("game (oldest first)")
        self.refresh()
