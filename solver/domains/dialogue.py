"""What every domain's Iteration-of-Thought prompts share: a turn of the dialogue and the
transcript that travels in each call (the prompts around it are each domain's own)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solver.model.markers import IOT_FIRST_PROMPT, IOT_GUIDE_SAYS

__all__ = ["IOT_FIRST_PROMPT", "Turn", "iot_guide_line", "iot_transcript"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One IoT dialogue turn as the prompts show it."""

    guidance: str
    explanation: str
    answer: str | None
    uncertainty: str = ""
    final: bool = False


def iot_transcript(turns: Sequence[Turn]) -> str:
    """The whole dialogue so far, as each IoT call carries it."""
    if not turns:
        return "(nothing yet: the solver has not answered)"
    out = []
    for i, t in enumerate(turns, 1):
        out += [
            f"Turn {i}",
            f"Guide: {t.guidance or '(none: the solver answered on its own first)'}",
            f"Solver: {t.explanation}",
            f"Solver's answer: {t.answer or '(none)'}",
        ]
        if t.uncertainty:
            out.append(f"Solver is unsure: {t.uncertainty}")
        out.append(f"Solver says final: {'yes' if t.final else 'no'}")
    return "\n".join(out)


def iot_guide_line(guidance: str) -> str:
    """The answerer prompt's line with this turn's guidance, or, with none (the first,
    unguided answer), the request to answer on its own."""
    return f"{IOT_GUIDE_SAYS} {guidance}" if guidance else IOT_FIRST_PROMPT
