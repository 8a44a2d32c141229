"""Fixtures shared by every test: an isolated environment and a fake OpenAI-compatible server."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.fakeserver import FakeServer


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collect garbage less often. A test process builds hundreds of apps and screens, and at
    Python's default thresholds the collector spent about half of a screen's push walking the
    heap (0.45 s of CPU a push, 0.22 s with these). Cycles are still collected; what the
    imports made is frozen out of every collection."""
    from solver.model.base import freeze_once

    gc.collect()
    freeze_once("the suite's imports")
    gc.set_threshold(100_000, 50, 100)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The app's tests (``tests/tui``: seconds each, some ten) run first, the short ones of the
    puzzles and the solver after them, in the order they were collected otherwise. pytest-xdist
    hands tests out in this order: a long test left to the end kept one worker busy while the
    others had nothing left to do."""
    items.sort(key=lambda item: not item.nodeid.startswith("tests/tui/"))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``pytest -n auto`` runs half as many workers again as there are cores (3 on 2): a
    quarter of a worker's time is spent waiting (on the test server, a subprocess, a Pilot
    idle wait), which the extra worker fills. From a fresh clone on the 2-core machine the
    suite took 366 s with 2 workers, 304 s with 3 and 302 s with 4.
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    return cores + max(1, cores // 2)


def pytest_configure(config: pytest.Config) -> None:
    """Pilot waits for the app to go idle after every key it presses and at every
    ``pause()``: it sleeps in windows of 20 ms until the process used under a twentieth of a
    window's time, so each key cost at least 40 ms of sleep and a typed line half a second,
    most of the Pilot tests' time on a quiet machine. The same test of idleness (under 5% of
    the time busy) in windows of 5 ms."""
    import textual._wait

    textual._wait.SLEEP_GRANULARITY = 1 / 200
    textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20


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


@pytest.fixture
def exact_critics(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offline engine's critics never wrong: every rate of
    :mod:`solver.model.offline.critics` set to 0 (the shares of its value words to the right
    word only). For the tests of what a verdict says, word for word; the sourced rates have
    tests of their own (``tests/solver/test_offline_critics.py``)."""
    from solver.model.offline import critics

    monkeypatch.setattr(
        critics, "VALUE_REACHABLE", {1: (1.0, 0.0, 0.0), 2: (1.0, 0.0, 0.0), 3: (1.0, 0.0, 0.0)}
    )
    monkeypatch.setattr(
        critics, "VALUE_UNREACHABLE", {1: (0.0, 0.0, 1.0), 2: (0.0, 0.0, 1.0), 3: (0.0, 0.0, 1.0)}
    )
    for name in (
        "ANALYSIS_MISSES_SLIP",
        "ANSWERER_FALSE_FINAL",
        "ANSWERER_MISSED_FINAL",
        "GUIDE_FALSE_STOP",
        "GUIDE_MISSED_STOP",
        "JUDGE_FALSE_IMPOSSIBLE",
        "JUDGE_FALSE_SURE",
    ):
        monkeypatch.setattr(critics, name, 0.0)
