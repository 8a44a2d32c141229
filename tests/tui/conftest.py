"""Fixtures the app's tests share; the helpers a test calls are in ``harness.py``."""

from __future__ import annotations

import pytest

from tests.tui.harness import Notice, notifications


@pytest.fixture
def toasts(monkeypatch: pytest.MonkeyPatch) -> list[Notice]:
    """Every notification shown during the test, in order (see ``harness.notifications``)."""
    return notifications(monkeypatch)
