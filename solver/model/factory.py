"""Choosing the model for a run from settings: the offline engine or an OpenAI-compatible one.

The one factory: the command line, the app and the benchmarks all build their model here.
"""

from __future__ import annotations

from collections.abc import Callable

from solver.model import Model
from solver.settings import Settings, mask_url

__all__ = ["describe_engine", "make_model"]


def make_model(
    settings: Settings,
    *,
    seed: int | None = None,
    offline_delay: float = 0.0,
    on_retry: Callable[[str, int, float], None] | None = None,
) -> Model:
    """The model the settings ask for. The OpenAI client is imported only when needed.

    ``offline_delay`` is the offline engine's pause per call (the app's, so keys stay
    responsive and its tree can be watched; benchmarks and the CLI run it flat out).
    ``on_retry`` hears of each retry an OpenAI-compatible server needed.
    """
    if settings.engine == "openai":
        from solver.model.openai import OpenAIModel

        return OpenAIModel(settings, on_retry=on_retry)
    from solver.model.offline import OfflineModel

    return OfflineModel(
        seed=seed if seed is not None else (settings.seed or 0), delay=offline_delay
    )


def describe_engine(settings: Settings) -> str:
    """One line for people: ``offline engine`` or ``gpt-4o-mini at http://...``."""
    if settings.engine == "openai":
        where = mask_url(settings.base_url) if settings.base_url else "api.openai.com"
        return f"{settings.model} at {where}"
    return "offline engine"
