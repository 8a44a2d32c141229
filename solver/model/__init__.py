"""The model layer: the call seam, and the engines behind it.

``solver.model`` itself holds the seam (:mod:`solver.model.base`) and the scripted model for
tests; ``solver.model.openai`` (any OpenAI-compatible server, with its cache and retry policy
in their own modules), ``solver.model.offline`` (the embedded players, one per puzzle kind),
``solver.model.recording`` (the recording format, its reader and the recorder) with
``solver.model.replay`` (the replay engine) and ``solver.factory`` (the one place a
model is built from settings) are imported where they are needed, so the OpenAI client is
loaded only when it is used.
"""

from __future__ import annotations

from solver.model.base import (
    CUT_REASONS,
    Call,
    Generation,
    Message,
    Model,
    ModelError,
    Sampling,
    TokenCallback,
    Usage,
    rough_tokens,
)
from solver.model.scripted import ScriptedModel

__all__ = [
    "CUT_REASONS",
    "Call",
    "Generation",
    "Message",
    "Model",
    "ModelError",
    "Sampling",
    "ScriptedModel",
    "TokenCallback",
    "Usage",
    "rough_tokens",
]
