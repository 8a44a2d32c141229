"""The experience library in the app: a setting (off by default) that runs BoT with it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Select

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.library import ExperienceLibrary, WithLibrary
from solver.methods import solve
from solver.methods.bot import BoT
from solver.model.offline import OfflineModel
from solver.settings import config_path, load_settings
from tui.app import make_app
from tui.screens.settings import SettingsScreen


def test_bot_runs_with_the_library_only_when_the_setting_is_on(tmp_path: Path) -> None:
    library = tmp_path / "data" / "experience.sqlite3"  # conftest's PONDER_DATA_DIR
    off = make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)
    off.method_name = "bot"
    assert isinstance(off.make_method(), BoT) and not library.exists()

    on = make_app(
        load_settings().replace(experience_library=True),
        store_path=tmp_path / "r.sqlite3",
        seed=1,
    )
    on.method_name = "bot"
    on.method_options = {"iterations": 1, "trees": 2}
    method = on.make_method()
    assert isinstance(method, WithLibrary) and method.library.path == library
    # A hand with no solution: the app's early stop cannot end the run before its analysis.
    finish, _ = asyncio.run(
        solve(method, Game24Domain(Hand((1, 1, 1, 1))), OfflineModel(seed=1), seed=1)
    )
    assert finish.calls > 0 and ExperienceLibrary(library).open().count() >= 1
    on.method_name = "tot"  # ToT does not learn from experience: left as it is
    assert not isinstance(on.make_method(), WithLibrary)


async def test_the_setting_is_saved_from_the_settings_screen(tmp_path: Path) -> None:
    app = make_app(load_settings(), store_path=tmp_path / "r.sqlite3", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        choice = screen.query_one("#library", Select)
        assert choice.value == "off"
        choice.value = "on"
        await pilot.click("#save")
        await pilot.pause()
    assert "experience_library = true" in config_path().read_text(encoding="utf-8")
    assert app.settings.experience_library is True
    assert load_settings().experience_library is True
