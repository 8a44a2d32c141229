"""The method catalogue pinned as people meet it: which methods, in which order, and each
option's type, default, bounds, choices and whether the app's method dialog shows it. The
command line's flags, the app's dialog and bench are all generated from this table, so a change
to any entry must be deliberate (and show here)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from solver.methods import METHODS, find_spec

CATALOGUE: dict[str, list[tuple[Any, ...]]] = {
    "bot": [
        ("iterations", "int", 10, 1, 10000, (), True),
        ("trees", "int", 15, 1, 10000, (), True),
        ("leaf_stops", "int", 4, 1, 10000, (), False),
        ("homogeneous", "bool", False, None, None, (), False),
        ("confident_leaf", "bool", None, None, None, (), False),
        ("final_prompt", "bool", None, None, None, (), False),
        ("checked_analysis", "bool", None, None, None, (), False),
        ("aggregation", "str", "best_first", None, None, ("best_first", "greedy"), True),
        ("similarity", "str", "exact", None, None, ("exact", "model"), False),
        (
            "experience",
            "str",
            "additive",
            None,
            None,
            ("additive", "cumulative", "chains", "none"),
            False,
        ),
        ("examples", "bool", False, None, None, (), False),
        ("paper", "bool", False, None, None, (), False),
        ("stop_early", "bool", False, None, None, (), False),
    ],
    "aiot": [
        ("iterations", "int", 10, 1, 1000, (), True),
        ("iot_start", "str", "auto", None, None, ("auto", "answer", "guide"), True),
        ("temperature", "float", 1.0, 0, 2, (), False),
        ("paper", "bool", False, None, None, (), False),
    ],
    "giot": [
        ("turns", "int", 5, 1, 1000, (), True),
        ("iot_start", "str", "auto", None, None, ("auto", "answer", "guide"), True),
        ("temperature", "float", 1.0, 0, 2, (), False),
        ("paper", "bool", False, None, None, (), False),
    ],
    "react": [
        ("steps", "int", 7, 1, 200, (), True),
        ("invalid_limit", "int", 3, 1, 50, (), False),
        ("tool_limit", "float", 5.0, 0.05, 600, (), False),
        ("shots", "int", 3, 1, 6, (), False),
        ("paper", "bool", False, None, None, (), False),
    ],
    "tot": [
        ("breadth", "int", 5, 1, 10000, (), True),
        ("value_samples", "int", 3, 1, 10000, (), False),
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("paper", "bool", False, None, None, (), False),
        ("stop_early", "bool", False, None, None, (), False),
    ],
    "tot-dfs": [
        ("step_limit", "int", 100, 1, 100000, (), False),
        ("samples", "int", 8, 1, 100, (), False),
        ("max_per_state", "int", 3, 1, 100, (), False),
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("stop_early", "bool", False, None, None, (), False),
    ],
    "react-cotsc": [
        ("steps", "int", 7, 1, 200, (), True),
        ("samples", "int", 21, 1, 10000, (), True),
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("shots", "int", 3, 1, 6, (), False),
        ("paper", "bool", False, None, None, (), False),
        ("tool_limit", "float", 5.0, 0.05, 600, (), False),
    ],
    "cotsc-react": [
        ("steps", "int", 7, 1, 200, (), True),
        ("samples", "int", 21, 1, 10000, (), True),
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("shots", "int", 3, 1, 6, (), False),
        ("paper", "bool", False, None, None, (), False),
        ("tool_limit", "float", 5.0, 0.05, 600, (), False),
    ],
    "deli": [
        ("turns", "int", 3, 1, 50, (), True),
        ("demonstrations", "int", 8, 0, 32, (), False),
        ("tool_steps", "int", 6, 1, 50, (), False),
        ("tool_limit", "float", 5.0, 0.05, 600, (), False),
        ("paper", "bool", False, None, None, (), False),
    ],
    "cot-sc": [
        ("samples", "int", 100, 1, 10000, (), True),
        ("temperature", "float", 0.7, 0, 2, (), False),
    ],
    "cot": [
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("samples", "int", 1, 1, 10000, (), False),
    ],
    "io": [
        ("temperature", "float", 0.7, 0, 2, (), False),
        ("samples", "int", 1, 1, 10000, (), False),
    ],
}


PAPER_VALUES: dict[str, dict[str, Any]] = {
    "deli": {"tool_steps": 15, "tool_limit": 10.0},
}
"""The options whose value under ``--paper`` differs from the default (the reference code's)."""


def test_the_options_paper_mode_sets_and_to_what() -> None:
    got = {
        name: {o.name: o.option.paper for o in spec.options() if o.option.paper is not None}
        for name, spec in METHODS.items()
    }
    assert {name: values for name, values in got.items() if values} == PAPER_VALUES


def test_the_methods_in_the_order_people_see_them() -> None:
    assert list(METHODS) == list(CATALOGUE)
    assert all(find_spec(name).name == name for name in CATALOGUE)


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_each_methods_options_as_declared(name: str) -> None:
    spec = METHODS[name]
    got = [
        (o.name, o.type.__name__, o.default, o.option.low, o.option.high, o.option.choices)
        for o in spec.options()
    ]
    assert got == [row[:6] for row in CATALOGUE[name]]
    # Shown in the app's dialog: exactly True or False, never merely truthy.
    assert [o.option.app for o in spec.options()] == [row[6] for row in CATALOGUE[name]]
    for o in spec.options():
        assert isinstance(o.help, str) and len(o.help) > 10 and o.flag.startswith("--")
    # The config's own defaults are the declared ones: a config made with no arguments.
    made = spec.config()
    assert [getattr(made, o.name) for o in spec.options()] == [row[2] for row in CATALOGUE[name]]
    assert all(f.metadata is not None for f in dataclasses.fields(spec.config))


def test_two_methods_with_one_name_are_refused_with_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import solver.methods as package

    (tmp_path / "copycat.py").write_text(
        "from solver.methods.react import SPEC as _REACT\n"
        "import dataclasses\n"
        "SPEC = dataclasses.replace(_REACT, label='Copycat')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    try:
        with pytest.raises(RuntimeError, match=r"^two methods are called 'react'$"):
            package.collect()
    finally:
        sys.modules.pop("solver.methods.copycat", None)


def test_each_kind_of_option_is_checked_with_its_own_message() -> None:
    bot = METHODS["bot"]
    made = bot.make(aggregation="greedy", similarity="model", stop_early=True, iterations="3")
    assert (made.config.aggregation, made.config.similarity) == ("greedy", "model")
    assert (made.config.stop_early, made.config.iterations) == (True, 3)
    refusals = {
        "aggregation": ("worst", "aggregation must be one of best_first, greedy"),
        "stop_early": ("yes", "stop_early is on or off"),
        "iterations": ("many", "iterations must be a whole number"),
        "trees": (10**6, "trees must be between 1 and 10000"),
    }
    for name, (value, message) in refusals.items():
        with pytest.raises(ValueError) as info:
            bot.make(**{name: value})
        assert str(info.value) == message
    with pytest.raises(ValueError) as warm:
        METHODS["io"].make(temperature="warm")
    assert str(warm.value) == "temperature must be a number"


def test_option_types_are_read_from_written_and_from_real_annotations() -> None:
    from solver.methods.spec import field_types

    @dataclasses.dataclass
    class Written:  # annotations kept as text (this module postpones them)
        n: int
        x: float | None
        word: str
        other: list[int]

    real = dataclasses.make_dataclass(
        "Real",
        [("n", int), ("x", float), ("on", bool), ("word", str), ("other", list), ("k", int | None)],
    )
    assert field_types(Written) == {"n": int, "x": float, "word": str, "other": str}
    assert field_types(real) == {
        "n": int,
        "x": float,
        "on": bool,
        "word": str,
        "other": str,
        "k": int,
    }
