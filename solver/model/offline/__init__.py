"""The offline engine: embedded heuristic players, no network, one per puzzle kind."""

from __future__ import annotations

from solver.model.offline.game24 import OfflineModel

__all__ = ["OfflineModel"]
