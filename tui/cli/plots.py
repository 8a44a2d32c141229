"""The plots under ``ponder bench``'s table, drawn as text with plotext.

Two pictures: the share of hands solved by each iteration (for the methods that work in
rounds: BoT's aggregated chains, IoT's turns), and each method's success against its mean
calls per hand (the cost of a point of success). Each is as wide as the terminal, at most
:data:`MAX_WIDTH` and at least :data:`MIN_WIDTH` columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui.cli.usage import visible

if TYPE_CHECKING:
    from solver.bench import BenchResult

__all__ = ["MAX_WIDTH", "MIN_WIDTH", "bench_plots"]

MAX_WIDTH = 100
MIN_WIDTH = 40
HEIGHT = 15
# One marker per method, so the legend tells them apart without colour.
MARKERS = ("●", "◆", "■", "▲", "★", "✚", "○", "◇", "□", "△")


def bench_plots(results: Sequence[BenchResult], *, width: int, color: bool) -> str:
    """The plots of ``results`` as text (ANSI colours only when ``color``); empty when no
    method ran a hand."""
    import plotext as plt

    shown = [r for r in results if r.n]
    if not shown:
        return ""
    width = max(MIN_WIDTH, min(MAX_WIDTH, width))
    parts = []
    curves = [(r, r.cumulative_by_iteration()) for r in shown]
    curves = [(r, curve) for r, curve in curves if curve]
    if curves:
        _start(width, color)
        longest = max(len(curve) for _, curve in curves)
        for n, (_, curve) in enumerate(curves):
            xs = list(range(1, len(curve) + 1))
            ys = [100 * v for v in curve]
            plt.plot(xs, ys, marker=MARKERS[n % len(MARKERS)])
        plt.xticks(_ticks(longest))
        plt.xlim(0.8, longest + 0.2)
        plt.title("solved by iteration")
        plt.xlabel("iteration")
        parts.append(_finish(color) + _legend([r for r, _ in curves], width))
    _start(width, color)
    calls = [max(r.mean("calls"), 1.0) for r in shown]
    low, high = min(calls), max(calls)
    logarithmic = high / low > 20
    # On a log scale the points are placed at log10(calls) and the ticks say the calls:
    # plotext's own log axis takes its limits in other units.
    places = [math.log10(c) for c in calls] if logarithmic else calls
    for n, (r, x) in enumerate(zip(shown, places, strict=True)):
        plt.scatter([x], [100 * r.success_rate], marker=MARKERS[n % len(MARKERS)])
    if logarithmic:
        plt.xlim(min(places) - 0.15, max(places) + 0.15)
        ticks = [
            t
            for e in range(math.floor(min(places)), math.ceil(max(places)) + 1)
            for t in (10**e, 3 * 10**e)
            if low / 1.5 <= t <= high * 1.5
        ]
        plt.xticks([math.log10(t) for t in ticks], [f"{t:,}" for t in ticks])
        plt.xlabel("mean calls per hand (log scale)")
    else:
        pad = max(1.0, (high - low) * 0.1)
        plt.xlim(max(0.0, low - pad), high + pad)
        plt.xlabel("mean calls per hand")
    plt.title("success against calls")
    parts.append(_finish(color) + _legend(shown, width, figures=True))
    return "\n\n".join(parts)


def _start(width: int, color: bool) -> None:
    import plotext

    plotext.clear_figure()
    plotext.plotsize(width, HEIGHT)
    plotext.theme("pro" if color else "clear")
    plotext.ylim(0, 100)
    plotext.yticks([0, 25, 50, 75, 100], ["0%", "25%", "50%", "75%", "100%"])


def _finish(color: bool) -> str:
    import plotext

    text: str = plotext.build()
    plotext.clear_figure()
    if not color:
        text = plotext.uncolorize(text)
    # plotext pads every line to the full width: trailing blanks only wrap narrow terminals.
    return "\n".join(line.rstrip() for line in text.splitlines())


def _legend(results: Sequence[BenchResult], width: int, figures: bool = False) -> str:
    """Which marker is which method, on lines under the plot: plotext's own legend sits in
    the plot's top-left corner, over the points of cheap and successful methods. With
    ``figures``, each method's success and calls too (methods on the same point hide each
    other's marker)."""
    keys = []
    for n, r in enumerate(results):
        # Names from a results file are outside text: shown, never interpreted.
        key = f"{MARKERS[n % len(MARKERS)]} {visible(r.method)}"
        if figures:
            key += f" {r.success_rate:.0%} at {r.mean('calls'):.1f} calls"
        keys.append(key)
    lines, line = [], "   "
    for key in keys:
        if len(line) + 3 + len(key) > width and line.strip():
            lines.append(line)
            line = "   "
        line += "   " + key if line.strip() else " " + key
    lines.append(line)
    return "\n" + "\n".join(lines)


def _ticks(n: int) -> list[int]:
    """At most about ten iteration ticks."""
    step = max(1, math.ceil(n / 10))
    return list(range(1, n + 1, step))
