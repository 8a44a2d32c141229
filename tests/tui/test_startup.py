"""The app starts light: home's first frame imports no kind's screen, no solver pane, no
method's module (home's Solver list reads the light table, :mod:`solver.methods.listing`), no
sympy and no plot library; each comes when first needed (a game opened, two games to plot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual import events

from solver.settings import Settings
from tests.tui.processes import ROOT
from tui.app import PonderApp, make_app
from tui.screens.home import HomeScreen

FIRST_FRAME = """
import json, sys, tempfile
from pathlib import Path
from tui.app import PonderApp, make_app
from tui.screens.home import HomeScreen
from solver.settings import Settings

app = make_app(Settings(), store_path=Path(tempfile.mkdtemp()) / "r.db", seed=1)
seen = []
display = app._display

def frame(screen, update) -> None:
    # The first frame composed for home: what is imported by then, exactly (a poll of the
    # screen stack every few ms, as before, let the warm-up threads in first on a busy machine).
    if not seen and isinstance(screen, HomeScreen) and update is not None:
        seen.append(sorted(sys.modules))
        app.exit()
    display(screen, update)

app._display = frame
app.run(headless=True, size=(80, 24))
print(json.dumps(seen[0]))
"""

HEAVY = (
    "tui.screens.game24",
    "tui.screens.crossword",
    "tui.screens.wordproblem",
    "tui.widgets.solver_pane",
    "sympy",
    "plotext",
    "textual_plotext",
    "bm25s",
    "openai",
    "solver.events",  # a replay's or a run's: home shows none
)


def test_home_first_frame_imports_nothing_a_game_needs() -> None:
    env = {**os.environ, "PONDER_CONFIG": os.devnull}
    out = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    modules = set(json.loads(out.strip().splitlines()[-1]))
    assert "tui.screens.home" in modules
    loaded = sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)
    assert loaded == [], f"imported before home's first frame: {loaded}"
    methods = sorted(
        m for m in modules if m.startswith("solver.methods.") and m != "solver.methods.listing"
    )
    assert methods == [], f"method modules imported before home's first frame: {methods}"
    assert "puzzles.arith" not in modules  # the methods' tools need it; home does not


async def test_home_has_its_size_classes_from_its_first_style_so_no_resize_restyles_it(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The classes of the window's size (-narrow, -short) are home's before it is mounted:
    its first resize finds them there and restyles nothing (it restyled the whole screen)."""
    changed: list[tuple[frozenset[str], frozenset[str]]] = []
    update_classes = HomeScreen.update_classes

    def watched(self: HomeScreen, classes: Any, *args: Any, **kwargs: Any) -> Any:
        before = frozenset(self.classes)
        result = update_classes(self, classes, *args, **kwargs)
        if frozenset(self.classes) != before:
            changed.append((before, frozenset(self.classes)))
        return result

    monkeypatch.setattr(HomeScreen, "update_classes", watched)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert {"-narrow", "-short"} <= set(app.screen.classes)
        assert changed == []
        await pilot.resize_terminal(120, 40)  # a real change of size still restyles
        await pilot.pause()
        assert {"-wide", "-tall"} <= set(app.screen.classes)
        assert len(changed) == 1


async def test_home_is_not_restyled_when_first_shown_but_is_when_asked_again(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Styled as it mounts, home is not styled whole again by its first showing (Textual's
    resume would); a later resume that asks for fresh styles still gets them."""
    restyled: list[HomeScreen] = []
    update_node_styles = HomeScreen.update_node_styles

    def watched(self: HomeScreen, animate: bool = True) -> None:
        restyled.append(self)
        update_node_styles(self, animate)

    monkeypatch.setattr(HomeScreen, "update_node_styles", watched)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert restyled == []
        app.screen.post_message(events.ScreenResume())  # as a screen pushed again is
        await pilot.pause()
        assert len(restyled) == 1


async def test_home_offers_a_method_the_light_table_lacks_once_the_catalogue_is_loaded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Home's first frame lists the methods from the light table; a method added in a module
    of its own, with no row there, is offered once the warm-up has loaded the catalogue."""
    from textual.widgets import Select

    from solver.methods import listing
    from tests.tui.harness import choices, wait_for
    from tui.app import PonderApp

    short = tuple(entry for entry in listing.LISTED if entry.name != "io")
    monkeypatch.setattr(listing, "LISTED", short)
    monkeypatch.setattr("tui.app.LISTED", short)
    loaded = [False]
    monkeypatch.setattr(listing, "catalogue_loaded", lambda: loaded[0])
    load = PonderApp.load_catalogue

    def loading(app: PonderApp) -> None:
        loaded[0] = True
        load(app)

    monkeypatch.setattr(PonderApp, "load_catalogue", loading)
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        method = home.query_one("#method", Select)
        await wait_for(pilot, lambda: loaded[0])
        await wait_for(pilot, lambda: "IO" in choices(method))
        assert choices(method)[0] == "BoT"
