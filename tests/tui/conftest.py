"""Fixtures the app's tests share; the helpers a test calls are in ``harness.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.settings import Settings
from tests.tui.harness import Notice, notifications
from tui.app import PonderApp, make_app


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    """The app on default settings, with a results store and a config file of its own in the
    test's folder and a fixed seed (1). A file whose app needs more defines its own."""
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


@pytest.fixture
def toasts(monkeypatch: pytest.MonkeyPatch) -> list[Notice]:
    """Every notification shown during the test, in order (see ``harness.notifications``)."""
    return notifications(monkeypatch)
