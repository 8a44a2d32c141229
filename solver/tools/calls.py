"""The tools ReAct and DELI call, ``calculate`` and ``solve``: each call runs the matching
function of :mod:`solver.tools.math` in the tool worker (:mod:`solver.tools.worker`), stopped at
its time limit."""

from __future__ import annotations

from solver.tools.math import DEFAULT_LIMIT
from solver.tools.result import ToolResult

__all__ = ["Calculate", "Solve"]


class _WorkerTool:
    name = ""
    description = ""

    def __init__(self, limit: float = DEFAULT_LIMIT) -> None:
        self.limit = limit

    def run(self, argument: str, limit: float | None = None) -> ToolResult:
        """Run in the worker process, stopped after ``limit`` seconds (blocking: methods call
        it from a thread)."""
        from solver.tools.worker import shared_worker  # the worker starts on first use

        reply = shared_worker().call(self.name, argument, self.limit if limit is None else limit)
        return ToolResult(
            self.name, argument, reply.text, reply.status, reply.value, round(reply.elapsed, 4)
        )

    def __call__(self, argument: str) -> str:
        return self.run(argument).observation


class Calculate(_WorkerTool):
    """``calculate[expression]``: exact arithmetic with + - * / and brackets."""

    name = "calculate"
    description = (
        "calculate[expression]: the exact value of an arithmetic expression with numbers, "
        "+ - * / and brackets, e.g. calculate[(30 - 6) * 11]; shown as a fraction and a decimal"
    )


class Solve(_WorkerTool):
    """``solve[equations; unknowns]``: a system of equations solved exactly by sympy."""

    name = "solve"
    description = (
        "solve[equations; unknowns]: solves equations for the unknowns named after ';', e.g. "
        "solve[x + y = 78, x = 5y; x, y]; use + - * / ^, brackets and 2x for 2 * x"
    )
