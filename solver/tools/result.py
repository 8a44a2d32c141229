"""What one tool call gives back, shared by the tools and the domains that offer them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ToolResult"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool call's outcome: ``status`` is ``ok``, ``error`` (the input was refused; the
    observation says why), ``timeout`` (stopped at its time limit) or ``crashed``. ``value``
    is the exact number it computed, when there is one."""

    tool: str
    argument: str
    observation: str
    status: str
    value: str | None = None
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"
