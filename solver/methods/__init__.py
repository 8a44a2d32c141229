"""Reasoning methods, each written once against the model and domain seams."""

from __future__ import annotations

from typing import Any

from solver.methods.base import Method, Outcome, RunContext, run_method, solve
from solver.methods.baselines import IO, CoT, CoTConfig, CoTSC, CoTSCConfig, IOConfig
from solver.methods.bot import BoT, BoTConfig
from solver.methods.tot import ToT, ToTConfig

__all__ = [
    "METHODS",
    "Method",
    "Outcome",
    "RunContext",
    "make_method",
    "run_method",
    "solve",
]

METHODS: dict[str, tuple[type[Any], type[Any]]] = {
    "io": (IO, IOConfig),
    "cot": (CoT, CoTConfig),
    "cot-sc": (CoTSC, CoTSCConfig),
    "tot": (ToT, ToTConfig),
    "bot": (BoT, BoTConfig),
}
"""Method name -> (method class, config class)."""


def make_method(name: str, **options: Any) -> Method:
    """A method by name with config fields overridden by ``options`` (None values ignored).

    Raises ``ValueError`` naming the method or option that does not exist.
    """
    key = name.lower().replace("_", "-")
    if key == "cotsc":
        key = "cot-sc"
    if key not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    cls, config_cls = METHODS[key]
    fields = config_cls.__dataclass_fields__
    given = {k: v for k, v in options.items() if v is not None}
    unknown = [k for k in given if k not in fields]
    if unknown:
        raise ValueError(f"{key} has no option {', '.join(unknown)}")
    method: Method = cls(config_cls(**given))
    return method
