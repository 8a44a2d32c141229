"""Every action has a key that reaches the app in a browser too (``ponder serve``).

A browser keeps some keys for itself (ctrl+n a new window, ctrl+t a new tab, ctrl+q quits
Firefox on Linux): in the browser they never reach the app. Every binding of ponder's own
screens, dialogs and widgets is walked here, so that a new binding on such a key fails the
suite unless the key that stands in for it (``BROWSER_KEYS``: f2, f3, f10) is bound beside it;
then the stand-in keys are pressed on the screens that have them, at 80x24, and a browser's
footer, help and messages are read. The Textual widgets the app mounts are walked too: an
action of theirs that only a key a browser keeps reaches (ctrl+pageup pages sideways, an input
box's ctrl+w deletes a word) needs a key that stands in for it (``WIDGET_STAND_INS``, bound by
the app; ``SENT_AS``: alt+backspace, which a terminal sends as ctrl+w's bytes).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.dom import DOMNode
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Input, Static

import tui.app
import tui.screens
import tui.widgets
from puzzles.crossword import generate
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import HelpScreen, LegendScreen
from tui.screens.settings import SettingsScreen
from tui.served import BROWSER_KEYS, SENT_AS, WIDGET_STAND_INS, kept_by_browsers
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


def textual_classes_used() -> set[type[DOMNode]]:
    """Textual's classes that ponder's modules name or build on (ponder's classes imported as
    in :func:`ponder_classes`)."""
    found: set[type[DOMNode]] = set()
    for cls in ponder_classes():
        found |= {b for b in cls.__mro__ if b.__module__.startswith("textual.")}
    modules = [tui.app, *(importlib.import_module(c.__module__) for c in ponder_classes())]
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, DOMNode)
                and value.__module__.startswith("textual.")
            ):
                found.add(value)
    return found


def textual_keys_by_action(cls: type[DOMNode]) -> dict[str, set[str]]:
    """Each action a Textual class binds, with every key bound to it (its own bindings and
    those it inherits from Textual's classes)."""
    keys: defaultdict[str, set[str]] = defaultdict(set)
    for base in cls.__mro__:
        if base.__module__.startswith("textual."):
            for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
                keys[binding.action].add(binding.key)
    return keys


def textual_trouble(classes: set[type[DOMNode]]) -> Iterator[str]:
    """Each action of Textual's ``classes`` that only keys a browser keeps reach, and no key
    of the app's stands in for, one line each."""
    stand_ins = keys_by_action(PonderApp)
    for cls in sorted(classes, key=lambda c: c.__name__):
        for action, keys in textual_keys_by_action(cls).items():
            if not all(kept_by_browsers(key) for key in keys):
                continue  # another key reaches it (copy: ctrl+c beside super+c)
            if issubclass(PonderApp, cls) and action in stand_ins:
                continue  # the app binds it itself (quit: ctrl+q and f10), checked above
            if action in WIDGET_STAND_INS:
                key = WIDGET_STAND_INS[action][0]
                if key not in stand_ins.get(f"focused({action!r})", set()):
                    yield f"{cls.__name__}: {action} on {sorted(keys)}: the app binds no {key}"
            elif not keys & set(SENT_AS.values()):
                yield f"{cls.__name__}: {action} on {sorted(keys)}, which no key stands in for"


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


async def test_no_action_of_textual_widgets_the_app_mounts_needs_a_key_a_browser_keeps(
    app: PonderApp,
) -> None:
    mounted: set[type[DOMNode]] = set()

    def seen() -> None:
        for screen in app.screen_stack:
            for node in screen.walk_children(with_self=True):
                if type(node).__module__.startswith("textual."):
                    mounted.add(type(node))

    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        seen()
        await pilot.press("ctrl+p")  # the command palette
        await pilot.pause()
        seen()
        await pilot.press("escape")
        for kind in ("game24", "crossword", "wordproblem"):
            app.open_puzzle(kind)
            await wait_for(pilot, lambda: type(app.screen).__name__ != "HomeScreen")
            await pilot.pause()
            seen()
            app.pop_screen()
            await pilot.pause()
        await pilot.press("s")  # settings
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        seen()
    classes = mounted | textual_classes_used()
    names = {cls.__name__ for cls in classes}
    # The walk reaches the widgets whose kept keys need stand-ins today.
    assert {"Input", "TextArea", "Tree", "RichLog", "CommandInput", "OptionList"} <= names
    assert list(textual_trouble(classes)) == []


def test_alt_backspace_reaches_the_app_as_ctrl_w() -> None:
    # A terminal (and xterm.js in the served page) sends alt+backspace as ESC DEL.
    for key, sent_as in SENT_AS.items():
        assert key == "alt+backspace"
        parsed = [e for e in XTermParser().feed("\x1b\x7f") if isinstance(e, Key)]
        assert [e.key for e in parsed] == [sent_as]


def test_the_textual_check_finds_an_action_only_a_kept_key_reaches() -> None:
    # Input's ctrl+pageup, ctrl+w and ctrl+shift+a have their stand-ins.
    assert list(textual_trouble({Input, ScrollableContainer})) == []
    assert kept_by_browsers("ctrl+shift+a") and not kept_by_browsers("ctrl+shift+left")
    lonely: type[DOMNode] = type(
        "Lonely",
        (ScrollableContainer,),
        {"__module__": "textual.lonely", "BINDINGS": [Binding("ctrl+shift+x", "scroll_end", "")]},
    )
    bound = dict(textual_keys_by_action(lonely))
    assert "ctrl+shift+x" in bound["scroll_end"] and list(textual_trouble({lonely})) == []
    odd: type[DOMNode] = type(
        "Odd",
        (ScrollableContainer,),
        {"__module__": "textual.odd", "BINDINGS": [Binding("ctrl+shift+x", "odd_thing", "")]},
    )
    assert list(textual_trouble({odd})) == [
        "Odd: odd_thing on ['ctrl+shift+x'], which no key stands in for"
    ]


class WideScreen(Screen[None]):
    """A screen whose one container scrolls sideways."""

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="wide"):
            yield Static("x" * 400, id="line")


async def test_the_stand_ins_do_what_textuals_kept_keys_do(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#own", Input)
        box.focus()
        await pilot.press(*"4 7 8 8")
        # alt+backspace, as a terminal sends it: the word before the cursor goes.
        await pilot.press(*[e.key for e in XTermParser().feed("\x1b\x7f") if isinstance(e, Key)])
        assert box.value == "4 7 8 "
        await pilot.press("alt+a")  # ctrl+shift+a's stand-in: select all
        await pilot.press("9")
        assert box.value == "9"
        await pilot.press("f1")  # the keys: the stand-in is listed while it does something
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert dict(app.screen.rows)["alt+a"] == "Select all"
        await pilot.press("escape")
        await pilot.pause()
        app.screen.set_focus(None)
        await pilot.pause()
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert "alt+a" not in dict(app.screen.rows)
        await pilot.press("escape")
        await app.push_screen(WideScreen())
        await pilot.pause()
        wide = app.screen.query_one("#wide", ScrollableContainer)
        wide.styles.overflow_x = "auto"
        app.screen.query_one("#line", Static).styles.width = 400
        wide.focus()
        await pilot.pause()
        await pilot.press("alt+pagedown")  # ctrl+pagedown's stand-in: a page to the right
        await wait_for(pilot, lambda: wide.scroll_x > 0)
        await pilot.press("alt+pageup")
        await wait_for(pilot, lambda: wide.scroll_x == 0)


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


async def test_the_help_lists_a_stand_in_only_where_it_does_something(app: PonderApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await open_mini(app)  # the grid has the keys: it pages nothing
        await pilot.pause()
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        keys = " ".join(key for key, _ in app.screen.rows)
        assert "alt+pgup" not in keys and "alt+a" not in keys  # as Textual names keys
        await pilot.press("escape")
        await pilot.press("ctrl+f")  # the solver's tree: it pages sideways
        await pilot.pause()
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert dict(app.screen.rows).get("alt+pgup") == "Page left"
