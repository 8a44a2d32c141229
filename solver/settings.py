"""Settings: one typed object, read from TOML in the user config dir, overridable by env vars.

Precedence, lowest first: built-in defaults, the TOML file, ``PONDER_*`` variables, and the
openai package's own ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``. The API key may be read from the
file or the environment but is never written back, logged or shown unmasked.

A config file looks like::

    engine = "openai"
    base_url = "http://localhost:11434/v1"
    model = "llama3.1"
    concurrency = 4

    [prices]  # USD per 1M prompt tokens, USD per 1M completion tokens
    "llama3.1" = [0.0, 0.0]
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import platformdirs

from solver.model import Usage

__all__ = [
    "DEFAULT_PRICES",
    "ENGINES",
    "Settings",
    "SettingsError",
    "config_path",
    "data_dir",
    "load_settings",
    "save_settings",
]

APP_NAME = "ponder"

ENGINES = ("offline", "openai")
"""The model engines ponder knows: the embedded offline player, or any OpenAI-compatible server."""

Price = tuple[float, float]

# A snapshot of OpenAI's list prices (USD per 1M tokens) so cost shows out of the box; users
# correct or extend it with a [prices] table, since prices change more often than releases.
DEFAULT_PRICES: Mapping[str, Price] = MappingProxyType(
    {
        "gpt-4o-mini": (0.15, 0.60),
        "gpt-4o": (2.50, 10.00),
        "gpt-4.1": (2.00, 8.00),
        "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1-nano": (0.10, 0.40),
        "gpt-4-turbo": (10.00, 30.00),
        "gpt-4": (30.00, 60.00),
        "gpt-3.5-turbo": (0.50, 1.50),
        "o3-mini": (1.10, 4.40),
    }
)

# Dated snapshots ("gpt-4o-mini-2024-07-18") cost what their alias costs.
_SNAPSHOT_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


class SettingsError(ValueError):
    """A setting could not be read: the message names the file or variable and the field."""


def _frozen_prices(prices: Mapping[str, Price]) -> Mapping[str, Price]:
    return MappingProxyType({str(k): (float(v[0]), float(v[1])) for k, v in prices.items()})


@dataclass(frozen=True)
class Settings:
    """Everything ponder needs to know to reach a model. Immutable: use ``replace()``."""

    engine: str = "offline"
    """Which model answers: ``"offline"`` (embedded heuristic player) or ``"openai"``
    (any OpenAI-compatible server)."""

    base_url: str | None = None
    """Root URL of an OpenAI-compatible API, e.g. ``http://localhost:11434/v1`` for Ollama.
    ``None`` means OpenAI's own ``https://api.openai.com/v1``."""

    model: str = "gpt-4o-mini"
    """Model name sent with every request."""

    api_key: str | None = None
    """Secret key for the server. Read from ``OPENAI_API_KEY`` or the config file; never
    written to disk, logs or traces, and masked in ``repr``."""

    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES)
    """Model name -> (USD per 1M prompt tokens, USD per 1M completion tokens)."""

    concurrency: int = 8
    """Most requests in flight at once to the server, across all running calls."""

    timeout: float = 60.0
    """Seconds to wait for the server to connect or send the next bytes before giving up."""

    max_retries: int = 4
    """Retries after a rate limit, a server error, a timeout or a dropped stream."""

    cache: bool = True
    """Keep replies in a response cache, so a repeated call (same prompt, sampling and sample
    index) costs nothing."""

    seed: int | None = None
    """Seed for the offline engine and, where a server supports it, for sampling."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check(f.name, getattr(self, f.name), "settings")
        object.__setattr__(self, "prices", _frozen_prices(self.prices))

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            value: Any = getattr(self, f.name)
            if f.name == "api_key":
                value = self.masked_key() if value else None
            elif f.name == "prices":
                value = dict(value)
            parts.append(f"{f.name}={value!r}")
        return f"Settings({', '.join(parts)})"

    __str__ = __repr__

    def masked_key(self) -> str:
        """The API key fit for display: ``sk-...abcd``, or ``""`` when no key is set."""
        key = self.api_key or ""
        if not key:
            return ""
        if len(key) < 12:  # too short to show any of it without giving most of it away
            return "****"
        return f"{key[:3]}...{key[-4:]}"

    def price_for(self, model: str) -> Price | None:
        """(USD per 1M prompt tokens, USD per 1M completion tokens) for ``model``, if known."""
        if model in self.prices:
            return self.prices[model]
        alias = _SNAPSHOT_SUFFIX.sub("", model)
        return self.prices.get(alias)

    def cost(self, model: str, usage: Usage) -> float | None:
        """What ``usage`` of ``model`` costs in USD, or ``None`` when no price is known."""
        price = self.price_for(model)
        if price is None:
            return None
        prompt, completion = price
        return (usage.prompt_tokens * prompt + usage.completion_tokens * completion) / 1e6

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied (validated like any other settings)."""
        return dataclasses.replace(self, **changes)

    def public_dict(self) -> dict[str, Any]:
        """The settings as plain data without the API key, for files and traces."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "api_key":
                continue
            value = getattr(self, f.name)
            out[f.name] = {k: list(v) for k, v in value.items()} if f.name == "prices" else value
        return out


# --- validation -------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check(name: str, value: object, source: str) -> None:
    """Raise :class:`SettingsError` naming ``source`` and ``name`` if ``value`` is unfit."""

    def bad(expected: str) -> SettingsError:
        return SettingsError(f"{source}: {name} must be {expected}, got {value!r}")

    if name == "engine":
        if value not in ENGINES:
            raise bad(" or ".join(repr(e) for e in ENGINES))
    elif name == "base_url":
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise bad("a URL such as 'http://localhost:11434/v1'")
    elif name in ("model",):
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string")
    elif name == "api_key":
        if value is not None and not isinstance(value, str):
            # Never echo what might be a secret.
            raise SettingsError(f"{source}: api_key must be a string")
    elif name == "concurrency":
        if not _is_int(value) or value < 1:  # type: ignore[operator]
            raise bad("a whole number of at least 1")
    elif name == "timeout":
        if not _is_number(value) or not (0 < value < math.inf):  # type: ignore[operator]
            raise bad("a positive number of seconds")
    elif name == "max_retries":
        if not _is_int(value) or value < 0:  # type: ignore[operator]
            raise bad("a whole number of at least 0")
    elif name == "cache":
        if not isinstance(value, bool):
            raise bad("true or false")
    elif name == "seed":
        if value is not None and not _is_int(value):
            raise bad("a whole number")
    elif name == "prices":
        if not isinstance(value, Mapping):
            raise bad("a table of model = [prompt USD per 1M, completion USD per 1M]")
        for model, price in value.items():
            ok = (
                isinstance(price, list | tuple)
                and len(price) == 2
                and all(_is_number(p) and 0 <= p < math.inf for p in price)
            )
            if not ok:
                raise SettingsError(
                    f"{source}: prices.{model} must be [prompt USD per 1M tokens, "
                    f"completion USD per 1M tokens], got {price!r}"
                )


# --- locations --------------------------------------------------------------------------------


def config_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where the config file lives: ``$PONDER_CONFIG``, else the user config dir."""
    if env.get("PONDER_CONFIG"):
        return Path(env["PONDER_CONFIG"]).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where ponder keeps its data (stats, experience, caches): ``$PONDER_DATA_DIR``, else the
    user data dir. The directory is not created here."""
    if env.get("PONDER_DATA_DIR"):
        return Path(env["PONDER_DATA_DIR"]).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME))


# --- loading ----------------------------------------------------------------------------------

_FIELDS = {f.name for f in dataclasses.fields(Settings)}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _env_value(name: str, var: str, text: str) -> object:
    """Convert the text of environment variable ``var`` to the type of field ``name``."""
    try:
        if name == "concurrency":
            return int(text)
        if name == "timeout":
            return float(text)
        if name == "cache":
            lowered = text.strip().lower()
            if lowered in _TRUE | _FALSE:
                return lowered in _TRUE
            raise ValueError(text)
    except ValueError:
        kind = {"concurrency": "a whole number", "timeout": "a number of seconds"}
        raise SettingsError(
            f"environment variable {var}: {name} must be {kind.get(name, 'true or false')}, "
            f"got {text!r}"
        ) from None
    return text


def load_settings(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] = os.environ
) -> Settings:
    """Read settings from ``path`` (default :func:`config_path`), then apply ``env`` overrides.

    A missing file means defaults. Bad TOML, unknown fields, wrong types or out-of-range
    values raise :class:`SettingsError` naming the file (or variable) and the field.
    """
    file = Path(path).expanduser() if path is not None else config_path(env)
    values: dict[str, Any] = {}
    try:
        with file.open("rb") as handle:
            values = tomllib.load(handle)
    except FileNotFoundError:
        pass
    except tomllib.TOMLDecodeError as err:
        raise SettingsError(f"{file}: not valid TOML: {err}") from None
    except OSError as err:
        raise SettingsError(f"{file}: cannot read: {err.strerror or err}") from None

    unknown = sorted(set(values) - _FIELDS)
    if unknown:
        raise SettingsError(
            f"{file}: unknown setting {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})"
        )
    for name, value in values.items():
        _check(name, value, str(file))
    if "prices" in values:
        values["prices"] = {**DEFAULT_PRICES, **values["prices"]}
    engine_chosen = "engine" in values

    # Applied in this order, so a later variable wins: the openai package's own variables mean
    # here what they mean there, and ponder's PONDER_BASE_URL beats OPENAI_BASE_URL.
    overrides = {
        "OPENAI_API_KEY": "api_key",
        "OPENAI_BASE_URL": "base_url",
        "PONDER_ENGINE": "engine",
        "PONDER_MODEL": "model",
        "PONDER_BASE_URL": "base_url",
        "PONDER_CONCURRENCY": "concurrency",
        "PONDER_TIMEOUT": "timeout",
        "PONDER_CACHE": "cache",
    }
    for var, name in overrides.items():
        text = env.get(var)
        if not text:
            continue
        value = _env_value(name, var, text)
        _check(name, value, f"environment variable {var}")
        values[name] = value
        engine_chosen = engine_chosen or name == "engine"

    if not engine_chosen and (values.get("base_url") or values.get("api_key")):
        values["engine"] = "openai"
    return Settings(**values)


# --- saving -----------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_string(text: str) -> str:
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char < " " or char == "\x7f":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # repr round-trips; validation keeps inf and nan out
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def to_toml(settings: Settings) -> str:
    """The TOML text :func:`save_settings` writes: no API key, no unset values, and only the
    prices that differ from :data:`DEFAULT_PRICES`."""
    data = settings.public_dict()
    prices = data.pop("prices")
    lines = ["# ponder settings. The API key is never stored here: set OPENAI_API_KEY."]
    for name, value in data.items():
        if value is not None:  # TOML has no null: leaving a field out means its default
            lines.append(f"{name} = {_toml_value(value)}")
    changed = {k: v for k, v in prices.items() if DEFAULT_PRICES.get(k) != tuple(v)}
    if changed:
        lines += ["", "[prices]  # USD per 1M prompt tokens, USD per 1M completion tokens"]
        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in sorted(changed.items())]
    return "\n".join(lines) + "\n"


def save_settings(settings: Settings, path: str | os.PathLike[str] | None = None) -> Path:
    """Write ``settings`` to ``path`` (default :func:`config_path`) atomically; never the API key.

    Returns the path written. Write errors raise :class:`SettingsError`.
    """
    file = Path(path).expanduser() if path is not None else config_path()
    text = to_toml(settings)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        # Temp file in the same directory, then rename: a crash leaves the old file or the new
        # one, never half of one.
        fd, temp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, file)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as err:
        raise SettingsError(f"{file}: cannot write: {err.strerror or err}") from None
    return file
