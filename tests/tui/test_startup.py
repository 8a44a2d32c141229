"""The app starts light: home's first frame imports no kind's screen, no solver pane, no
sympy and no plot library; each comes when first needed (a game opened, two games to plot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.tui.processes import ROOT

FIRST_FRAME = """
import json, sys, tempfile
from pathlib import Path
from tui.app import make_app
from tui.screens.home import HomeScreen
from solver.settings import Settings

app = make_app(Settings(), store_path=Path(tempfile.mkdtemp()) / "r.db", seed=1)
seen = []

def frame() -> None:
    if not seen and isinstance(app.screen, HomeScreen):
        seen.append(sorted(sys.modules))
        app.exit()

async def watch() -> None:
    while not seen:
        frame()
        await __import__("asyncio").sleep(0.005)

app.call_later(lambda: app.run_worker(watch()))
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
