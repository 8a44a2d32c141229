"""Choosing the model for a run from settings: the offline engine or an OpenAI-compatible one."""

from __future__ import annotations

from solver.model import Model
from solver.settings import Settings, mask_url

__all__ = ["describe_engine", "make_model"]


def make_model(settings: Settings, *, seed: int | None = None) -> Model:
    """The model the settings ask for. The OpenAI client is imported only when needed."""
    if settings.engine == "openai":
        from solver.model.openai import OpenAIModel

        return OpenAIModel(settings)
    from solver.model.offline import OfflineModel

    return OfflineModel(seed=seed if seed is not None else (settings.seed or 0))


def describe_engine(settings: Settings) -> str:
    """One line for people: ``offline engine`` or ``gpt-4o-mini at http://...``."""
    if settings.engine == "openai":
        where = mask_url(settings.base_url) if settings.base_url else "api.openai.com"
        return f"{settings.model} at {where}"
    return "offline engine"
