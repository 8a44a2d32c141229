"""ReAct's worked trajectories for word problems, written for ponder.

The paper prompts with several human-written trajectories (6 for HotpotQA, 3 for FEVER), each
a question followed by dense Thought / Action / Observation steps and a ``finish`` action. These
are ours, none taken from a benchmark set: four arithmetic word problems (one solves for
unknowns, one recovers from a refused tool input, as the paper's thoughts handle exceptions)
and two algebra tasks (a system, and an expansion checked at a point). Each observation is
exactly what ponder's tools answer and each answer passes the problem's exact check; a test
runs them (``tests/solver/test_react_shots.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.tools import format_trajectory

__all__ = ["TRAJECTORIES", "Trajectory", "trajectories"]

FINISHED = "Episode finished."
"""The observation after ``finish`` (the paper's trajectories end with one, as ReAct's run)."""


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One worked episode: the question, its steps (thought, action, observation), and whether
    it is an algebra task (the rest are arithmetic word problems)."""

    question: str
    steps: tuple[tuple[str, str, str], ...]
    algebra: bool = False

    @property
    def answer(self) -> str:
        """The argument of the last step's ``finish``."""
        action = self.steps[-1][1]
        return action[len("finish[") : -1]

    def text(self) -> str:
        """As a prompt shows it: ``Question:`` then the numbered steps."""
        return f"Question: {self.question}\n{format_trajectory(self.steps)}"


TRAJECTORIES: tuple[Trajectory, ...] = (
    Trajectory(
        "A baker makes 12 loaves a day and sells each for $3. How many dollars does the baker "
        "take in 5 days?",
        (
            ("I need the loaves baked in 5 days, then the money they bring.", "calculate[12 * 5]",
             "60"),
            ("60 loaves at $3 each, so the money is 60 * 3.", "calculate[60 * 3]", "180"),
            ("The baker takes $180, so the answer is 180.", "finish[180]", FINISHED),
        ),
    ),
    Trajectory(
        "A jacket costs $80 and is on sale for 25% off. Lena buys it and pays $6 for shipping. "
        "How many dollars does she pay in all?",
        (
            ("First the discount: 25% of $80.", "calculate[80 * 25 / 100]", "20"),
            ("The discount is $20. She pays the sale price plus shipping.",
             "calculate[80 - 20 + 6]", "66"),
            ("She pays $66 in all.", "finish[66]", FINISHED),
        ),
    ),
    Trajectory(
        "Two brothers share 54 marbles so that the older one has twice as many as the younger "
        "one. How many marbles does the younger brother have?",
        (
            ("Let y be the younger brother's marbles and o the older's: y + o = 54 and o = 2y. "
             "I solve the two equations.", "solve[y + o = 54, o = 2y; y, o]", "y = 18, o = 36"),
            ("Check: 18 + 36 = 54 and 36 is twice 18. The younger brother has 18.",
             "finish[18]", FINISHED),
        ),
    ),
    Trajectory(
        "A square garden has sides of 9 metres. A path takes up 17 square metres of it. How "
        "many square metres are left for planting?",
        (
            ("The garden's area is 9 squared; the path's area comes off it.",
             "calculate[9^2 - 17]",
             "powers are not allowed: write the multiplication out (3 * 3 * 3)"),
            ("The tool wants the power written as a multiplication.", "calculate[9 * 9 - 17]",
             "64"),
            ("64 square metres are left for planting.", "finish[64]", FINISHED),
        ),
    ),
    Trajectory(
        "Solve the system: 2x + y = 11; x - y = 1",
        (
            ("Two linear equations in x and y: the solve tool gives both unknowns.",
             "solve[2x + y = 11, x - y = 1; x, y]", "x = 4, y = 3"),
            ("Check: 2 * 4 + 3 = 11 and 4 - 3 = 1. So x = 4 and y = 3.",
             "finish[x = 4, y = 3]", FINISHED),
        ),
        algebra=True,
    ),
    Trajectory(
        "Expand: (x + 2)(x - 5)",
        (
            ("Multiplying out: x * x - 5x + 2x - 2 * 5 gives x^2 - 3x - 10. I check both at "
             "x = 2, first the product.", "calculate[(2 + 2) * (2 - 5)]", "-12"),
            ("Now x^2 - 3x - 10 at x = 2.", "calculate[2 * 2 - 3 * 2 - 10]", "-12"),
            ("Both give -12, so the expansion holds.", "finish[x^2 - 3x - 10]", FINISHED),
        ),
        algebra=True,
    ),
)  # fmt: skip
"""The trajectories, arithmetic first; the paper's HotpotQA prompt has six."""


def trajectories(count: int, algebra: bool) -> tuple[Trajectory, ...]:
    """``count`` trajectories (1 to all of them) for a prompt: those of the problem's own sort
    (algebra or arithmetic) first, each sort in its written order."""
    own = [t for t in TRAJECTORIES if t.algebra == algebra]
    other = [t for t in TRAJECTORIES if t.algebra != algebra]
    return tuple((own + other)[: max(1, count)])
