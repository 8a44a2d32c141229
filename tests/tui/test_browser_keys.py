"""Every action has a key that reaches the app in a browser too (``ponder serve``).

A browser keeps some keys for itself (ctrl+n a new window, ctrl+t a new tab, ctrl+q quits
Firefox on Linux): in the browser they never reach the app. Every binding of ponder's own
screens, dialogs and widgets is walked here, so that a new binding on such a key fails the
suite unless the key that stands in for it (``BROWSER_KEYS``: f2, f3, f10) is bound beside it;
then the stand-in keys are pressed on the screens that have them, at 80x24, and a browser's
footer, help and messages are read. (Textual's own widgets are not ponder's to change:
ScrollableContainer's ctrl+pageup / ctrl+pagedown, which browsers keep, page sideways, which
the mouse and shift+wheel do as well.)
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Static

import tui.screens
import tui.widgets
from puzzles.crossword import generate
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import HelpScreen, LegendScreen
from tui.screens.settings import SettingsScreen
from tui.served import BROWSER_KEYS, kept_by_browsers
from tui.widgets.footer import KeyHints

SMALL = (80, 24)


def ponder_classes() -> list[type[DOMNode]]:
    """The app and every screen, dialog and widget class of ponder's (each module of
    ``tui.screens`` and ``tui.widgets`` imported, so none is missed)."""
    for package in (tui.screens, tui.widgets):
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    found: list[type[DOMNode]] = []
    stack: list[type[DOMNode]] = [DOMNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            if sub.__module__.startswith("tui.") and sub not in found:
                found.append(sub)
    return found


def keys_by_action(cls: type[DOMNode]) -> dict[str, set[str]]:
    """Each action a class binds (its own bindings and those it inherits from ponder's
    classes), with every key bound to it."""
    keys: defaultdict[str, set[str]] = defaultdict(set)
    for base in cls.__mro__:
        if base is cls or base.__module__.startswith("tui."):
            for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
                keys[binding.action].add(binding.key)
    return keys


def browser_trouble(classes: list[type[DOMNode]]) -> Iterator[str]:
    """What is wrong with the bindings of ``classes`` in a browser, one line each."""
    for cls in classes:
        for action, keys in keys_by_action(cls).items():
            for key in sorted(keys):
                if kept_by_browsers(key):
                    stand_in = BROWSER_KEYS.get(key)
                    if stand_in is None:
                        yield f"{cls.__name__}: {action} on {key}, which no key stands in for"
                    elif stand_in not in keys:
                        yield f"{cls.__name__}: {action} on {key} without {stand_in}"
                elif key in BROWSER_KEYS.values():
                    kept = [k for k, v in BROWSER_KEYS.items() if v == key]
                    if not keys & set(kept):
                        yield f"{cls.__name__}: {key} is {kept[0]}'s stand-in, not {action}'s"


def test_no_action_is_reachable_only_through_a_key_a_browser_keeps() -> None:
    classes = {cls.__name__ for cls in ponder_classes()}
    # The walk reaches the classes that bind browser-kept keys today.
    assert {"PonderApp", "CrosswordScreen", "SettingsScreen", "HelpScreen"} <= classes
    assert keys_by_action(CrosswordScreen)["new_mini"] >= {"ctrl+n", "f2"}
    assert list(browser_trouble(ponder_classes())) == []


def test_the_check_finds_a_binding_on_a_kept_key_alone() -> None:
    class Careless(CrosswordScreen):
        BINDINGS = [
            Binding("ctrl+w", "close", "Close"),
            Binding("ctrl+t", "app.legend", "Legend"),
            Binding("f2", "pencil", "Pencil"),
        ]

    trouble = list(browser_trouble([Careless]))
    assert any("close on ctrl+w, which no key stands in for" in line for line in trouble)
    assert "Careless: app.legend on ctrl+t without f3" not in trouble  # inherited f3 counts
    assert any("f2 is ctrl+n's stand-in, not pencil's" in line for line in trouble)


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app as ``ponder serve`` runs it: Textual's web driver says it is in a browser."""
    monkeypatch.setattr(PonderApp, "is_web", property(lambda self: True))


def footer_keys(app: PonderApp) -> dict[str, str]:
    """What the footer shows: each description with its key."""
    return {h.description: h.shown for f in app.screen.query(KeyHints) for h in f.hints}


async def open_mini(app: PonderApp) -> CrosswordScreen:
    screen = CrosswordScreen(generate(7, blocks=False), "open")
    await app.push_screen(screen)
    return screen


async def test_f2_deals_a_new_mini_and_f3_opens_the_legend(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        first = await open_mini(app)
        await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, LegendScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        await wait_for(pilot, lambda: app.screen is not first)
        new = app.screen
        assert isinstance(new, CrosswordScreen)
        assert new.crossword.solution != first.crossword.solution
        # In a terminal the footer shows the keys people know, the help both.
        assert footer_keys(app)["New"] == "^n"
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.screen.rows)
        assert rows["^n / f2"] == "New" and rows["^t / f3"] == "Legend"
        assert rows["^q / f10"] == "Quit"


async def test_in_a_browser_the_footer_and_messages_name_the_keys_that_reach_the_app(
    app: PonderApp, browser: None
) -> None:
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(app)
        await pilot.pause()
        assert footer_keys(app)["New"] == "f2" and footer_keys(app)["Quit"] == "f10"
        status = str(screen.query_one("#solver-status", Static).render())
        assert "f3: what the marks mean" in status and "ctrl+t" not in status
        await pilot.press("ctrl+x", "y")  # give up, and say yes
        await wait_for(pilot, lambda: screen.over)
        said = str(screen.query_one("#message", Static).render())
        assert "Press f2 for a new mini" in said and "ctrl+n" not in said
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "f3 explains" in app.screen.notes and "ctrl+t" not in app.screen.notes
        assert dict(app.screen.rows)["^n / f2"] == "New"  # both keys, each once


async def test_f3_tests_the_connection_in_settings(app: PonderApp, browser: None) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        assert footer_keys(app)["Test connection"] == "f3"
        await pilot.press("f3")
        message = app.screen.query_one("#settings-message", Static)
        await wait_for(pilot, lambda: "needs no connection" in str(message.render()))


async def test_f10_quits_and_asks_first_mid_game(app: PonderApp, tmp_path: Path) -> None:
    from tui.screens.puzzle import QuitDialog

    async with app.run_test(size=SMALL) as pilot:
        screen = await open_mini(app)
        await pilot.pause()
        await pilot.press("a")  # a letter: the mini is in play
        assert screen.in_play
        await pilot.press("f10")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog)
        await pilot.press("f10")  # asked already: again means yes
        await pilot.pause()
        assert app.return_code == 0
