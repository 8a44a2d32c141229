"""Fixtures shared by every test: an isolated environment and a fake OpenAI-compatible server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.fakeserver import FakeServer


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's config, key or data, or is steered by their variables."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "PONDER_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.setenv("PONDER_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A running :class:`FakeServer`; its ``url`` is the API root to point a client at."""
    with FakeServer() as server:
        yield server
