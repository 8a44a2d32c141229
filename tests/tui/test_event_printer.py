"""``ponder solve``'s readable output, word for word, for the events of ToT DFS, ReAct and DELI
whose lines the end-to-end tests do not reach on every branch."""

from __future__ import annotations

import io

from rich.console import Console

from solver import events as ev
from tui.cli.printer import EventPrinter


def printed(*events: ev.Event, verbose: bool = True) -> list[str]:
    buffer = io.StringIO()
    printer = EventPrinter(Console(file=buffer, highlight=False, width=200), verbose=verbose)
    for event in events:
        printer(event)
    return [line.rstrip() for line in buffer.getvalue().splitlines()]


def test_a_backtrack_names_where_the_search_goes_back_to() -> None:
    events = (ev.Backtracked("n4", "n1"), ev.Backtracked("n1", None))
    assert printed(*events) == ["    n4 backtrack to n1", "    n1 backtrack to the start"]
    assert printed(*events, verbose=False) == []


def test_an_action_shows_what_its_parser_forgave_under_it() -> None:
    called = ev.ToolCalled(
        2, "calculator", "3 * 8", thought="times", notes=("an invented observation dropped",)
    )
    assert printed(called) == [
        "  thought times",
        "  action calculator[3 * 8]",
        "    ⚠ an invented observation dropped",
    ]
    assert printed(ev.ToolCalled(3, "", "")) == ["  action (none)"]


def test_a_deliberation_stage_is_marked_by_its_exact_check() -> None:
    right = ev.DeliberationStage(1, 3, "tool", "x = 24", "24", True, "24 is right", changed=True)
    wrong = ev.DeliberationStage(2, 3, "language", "so 23", "23", False, "23 is not 24")
    assert printed(right, wrong, verbose=False) == [
        "  tool stage answer 24 ✓ 24 is right · changed",
        "  language stage answer 23 ✗ 23 is not 24 · unchanged",
    ]
    assert printed(wrong)[1] == "    so 23"
