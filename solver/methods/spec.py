"""The method catalogue's entries: what the command line, the dialogs and the panes know of a
method, declared once beside the method.

A method's module defines ``SPEC = MethodSpec(...)``; :mod:`solver.methods` collects them.
The user-facing options are the fields of the method's config dataclass declared with
:func:`option` (help text, bounds, whether the app's method dialog shows it); every other
field keeps the paper's default and is reachable only from code.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from solver.roles import Role

__all__ = ["MethodSpec", "Option", "OptionInfo", "option"]

_META_KEY = "ponder_option"


@dataclass(frozen=True, slots=True)
class Option:
    """What a person may set: help text and bounds (inclusive), or a list of choices."""

    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    app: bool = False
    """Shown in the app's method dialog (the command line shows every option)."""
    paper: Any = None
    """The value under the method's ``paper`` option when none is given (None: the default)."""


def option(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
    app: bool = False,
    paper: Any = None,
) -> Any:
    """A config field that is a user-facing option (a dataclass ``field`` with metadata);
    ``paper``: its value when the method runs as its paper does (``paper`` on) and the option
    is not given."""
    meta = {_META_KEY: Option(help, low, high, choices, app, paper)}
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One user-facing option of one method, as read from its config class."""

    name: str  # the config field, e.g. ``value_samples``
    type: type  # int, float, bool or str
    default: Any
    option: Option

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def help(self) -> str:
        return self.option.help

    def check(self, value: Any) -> Any:
        """``value`` converted and checked against the bounds; ``ValueError`` says why not."""
        opt = self.option
        if self.type is bool:
            if isinstance(value, bool):
                return value
            raise ValueError(f"{self.name} is on or off")
        if self.type is str:
            text = str(value)
            if opt.choices and text not in opt.choices:
                raise ValueError(f"{self.name} must be one of {', '.join(opt.choices)}")
            return text
        try:
            number = self.type(value)
        except (TypeError, ValueError):
            kind = "a whole number" if self.type is int else "a number"
            raise ValueError(f"{self.name} must be {kind}") from None
        if isinstance(value, float) and self.type is int and value != number:
            raise ValueError(f"{self.name} must be a whole number")
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"{self.name} must be a finite number")
        low = -math.inf if opt.low is None else opt.low
        high = math.inf if opt.high is None else opt.high
        if not low <= number <= high:
            raise ValueError(f"{self.name} must be between {opt.low:g} and {opt.high:g}")
        return number


@dataclass(frozen=True)
class MethodSpec:
    """Everything outside a method needs to know about it."""

    name: str
    """The name people type (``bot``, ``cot-sc``)."""
    label: str
    """Short label for tables and panes (``BoT``)."""
    title: str
    """Full name (``Boosting of Thoughts``)."""
    description: str
    """One line for people choosing a method."""
    build: Callable[[Any], Any]
    """The method from its config."""
    config: type
    """The config dataclass; its defaults are the paper's."""
    roles: frozenset[Role]
    """The domain roles (prompts and parsers) the method needs."""
    order: int = 100
    """Place in lists (smaller first)."""
    view: str = "tree"
    """How the panes draw a run: ``tree`` (thought trees), ``dialogue`` (turn pairs)."""
    round: str = "iteration"
    """What one round of the method is called in the status line (``iteration``, ``step``)."""
    paper: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The paper's reported success per puzzle kind, shown beside a benchmark's own."""
    paper_note: str = ""
    """Where the figure comes from (model, paper table)."""
    in_app: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Config values the app uses instead of the paper's (e.g. stop once verified)."""
    aliases: tuple[str, ...] = ()

    def options(self) -> tuple[OptionInfo, ...]:
        """The user-facing options, in the config's field order."""
        hints = field_types(self.config)
        out = []
        for f in dataclasses.fields(self.config):
            opt = f.metadata.get(_META_KEY)
            if opt is None:
                continue
            out.append(OptionInfo(f.name, hints[f.name], f.default, opt))
        return tuple(out)

    def make(self, **options: Any) -> Any:
        """The method with the given options (None values ignored), each checked.

        Raises ``ValueError`` naming an option this method does not have or a value out of
        its bounds. Fields that are not user-facing options may be set from code too. With
        ``paper`` on, an option not given takes its paper value, where it declares one.
        """
        fields = {f.name for f in dataclasses.fields(self.config)}
        given = {k: v for k, v in options.items() if v is not None}
        unknown = [k for k in given if k not in fields]
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(unknown)}")
        infos = {o.name: o for o in self.options()}
        if given.get("paper") is True:
            for info in infos.values():
                if info.option.paper is not None:
                    given.setdefault(info.name, info.option.paper)
        checked = {k: infos[k].check(v) if k in infos else v for k, v in given.items()}
        return self.build(self.config(**checked))


def field_types(config: type) -> dict[str, type]:
    """Field name -> runtime type for the simple field types options may have."""
    names = {"int": int, "float": float, "bool": bool, "str": str}
    out: dict[str, type] = {}
    for f in dataclasses.fields(config):
        # Written annotations are text; a real one is a class, or a union read as its text.
        t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        out[f.name] = names.get(str(t).split("|")[0].strip(), str)
    return out
