"""Game of 24: combine four numbers with + - * / to make 24."""

from puzzles.game24.rules import (
    DEFAULT_TARGET,
    Hand,
    HandError,
    State,
    Step,
    StepError,
    Verdict,
    answer_expression,
    apply,
    check_answer,
    format_numbers,
    parse_numbers,
)

__all__ = [
    "DEFAULT_TARGET",
    "Hand",
    "HandError",
    "State",
    "Step",
    "StepError",
    "Verdict",
    "answer_expression",
    "apply",
    "check_answer",
    "format_numbers",
    "parse_numbers",
]
