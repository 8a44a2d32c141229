"""Choosing the model for a run from settings: the offline engine, an OpenAI-compatible one,
or the replay of a recording; any of them recorded when the settings name a record file.

The one factory: the command line, the app and the benchmarks all build their model here.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable

from solver.model import Model
from solver.settings import Settings, mask_url

__all__ = ["describe_engine", "make_model", "recording_path"]


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
    ``on_retry`` hears of each retry an OpenAI-compatible server needed. With a
    ``record_file``, every call the model finishes is written to it
    (:class:`~solver.model.recording.RecordingModel`).
    """
    model = engine_for(settings, seed, offline_delay, on_retry)
    if not settings.record_file:
        return model
    from solver.model.recording import RecordingModel

    secrets = [settings.api_key or "", *_url_secrets(settings.base_url)]
    return RecordingModel(
        model, settings.record_file, engine=describe_engine(settings), secrets=secrets
    )


def _url_secrets(url: str | None) -> list[str]:
    """The credentials a base URL carries (its user name is often a token, as
    :func:`~solver.settings.mask_url` knows)."""
    try:
        parts = urllib.parse.urlsplit(url or "")
        found = [parts.username or "", parts.password or ""]
    except ValueError:
        return []
    return [urllib.parse.unquote(s) for s in found if s]


def engine_for(
    settings: Settings,
    seed: int | None,
    offline_delay: float,
    on_retry: Callable[[str, int, float], None] | None,
) -> Model:
    if settings.engine == "openai":
        from solver.model.openai import OpenAIModel

        return OpenAIModel(settings, on_retry=on_retry)
    if settings.engine == "replay" and settings.replay_file:
        from solver.model.replay import replay_model

        return replay_model(recording_path(settings.replay_file), speed=settings.replay_speed)
    from solver.model.offline import OfflineModel

    return OfflineModel(
        seed=seed if seed is not None else (settings.seed or 0), delay=offline_delay
    )


def recording_path(replay_file: str) -> str:
    """The file a ``replay_file`` (``--replay``) names: a bundled run's name
    (``tot-gpt4-io``, :mod:`solver.published`) gives its file, unless a file of that name
    exists; anything else is the path itself."""
    from solver.published import resolve

    return str(resolve(replay_file))


def describe_engine(settings: Settings) -> str:
    """One line for people: ``offline engine``, ``gpt-4o-mini at http://...``,
    ``replay of run.jsonl (model gpt-4o)`` or, for a bundled run,
    ``GPT-4 (ToT's published run: tot-gpt4-bfs)``."""
    if settings.engine == "openai":
        where = mask_url(settings.base_url) if settings.base_url else "api.openai.com"
        return f"{settings.model} at {where}"
    if settings.engine == "replay" and settings.replay_file:
        return _describe_replay(settings.replay_file)
    return "offline engine"


def _describe_replay(path: str) -> str:
    from solver.model.recording import RecordingError, load_recording
    from solver.published import which

    run = which(path)
    if run is not None:
        return f"GPT-4 (ToT's published run: {run.name})"
    try:
        model = load_recording(recording_path(path)).header.model
    except RecordingError:
        return f"replay of {path}"
    return f"replay of {path} (model {model})" if model else f"replay of {path}"
