"""Tools a tool-using method (ReAct, DELI) may call, each under a time limit enforced in a
separate process, and the Thought / Action / Observation text format they are called in."""

from solver.tools.actions import Action, format_trajectory, parse_action, parse_final
from solver.tools.calls import Calculate, Solve
from solver.tools.math import DEFAULT_LIMIT, show_value
from solver.tools.result import ToolResult

__all__ = [
    "DEFAULT_LIMIT",
    "Action",
    "Calculate",
    "Solve",
    "ToolResult",
    "format_trajectory",
    "parse_action",
    "parse_final",
    "show_value",
]
