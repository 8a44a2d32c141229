"""Settings: one typed object, read from TOML in the user config dir, overridable by env vars.

Precedence, lowest first: built-in defaults, the TOML file, ``PONDER_*`` variables, and the
openai package's own ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``. The API key may be read from the
file or the environment but is never written by ponder, logged or shown unmasked; credentials
in a base URL (``http://user:pw@host``) are masked wherever a URL is shown (:func:`mask_url`).

The file is read through the file guard (:mod:`puzzles.files`): a regular file of at most
:data:`MAX_CONFIG_BYTES`, UTF-8, nested at most :data:`MAX_CONFIG_DEPTH` deep. Saving
(:func:`save_settings`) writes only the fields given to it into the file and keeps everything
else in it — comments, an ``api_key`` the user wrote there, other keys — byte for byte.

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
import tomllib
import urllib.parse
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import platformdirs

from puzzles.files import FileError, check_nesting, decode_text, read_file, write_whole

if TYPE_CHECKING:
    import tomlkit

    from solver.model import Usage

__all__ = [
    "DEFAULT_PRICES",
    "ENGINES",
    "ENV_VARIABLES",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "Settings",
    "SettingsError",
    "config_path",
    "data_dir",
    "env_sources",
    "load_settings",
    "mask_url",
    "mask_urls",
    "save_settings",
    "to_toml",
]

APP_NAME = "ponder"

ENGINES = ("offline", "openai", "replay")
"""The model engines ponder knows: the embedded offline player, any OpenAI-compatible server,
or the replies of a recording (:mod:`solver.model.recording`)."""

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


MAX_CONFIG_BYTES = 1024 * 1024
"""Largest config file read, in bytes (a config is a few hundred)."""
MAX_CONFIG_DEPTH = 16
"""Deepest nesting of arrays and tables read from a config file (ponder's own nest 2 deep)."""


class SettingsError(ValueError):
    """A setting could not be read: the message names the file or variable and the field."""


# --- credentials in URLs ----------------------------------------------------------------------

MASK = "****"
_SECRET_QUERY = re.compile(r"key|token|secret|password|passwd|pwd|sig|auth", re.IGNORECASE)
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_USERINFO = re.compile(r"(//)[^/?#@\s]*@")


def mask_url(url: str) -> str:
    """``url`` fit to show: a password in it becomes ``****`` (``http://me:****@host/v1``), a
    user name alone too (it is often a token), and so do query values named like secrets
    (``?api_key=****``). Never raises; anything unparsable has every ``...@`` masked."""
    try:
        parts = urllib.parse.urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, host = netloc.rpartition("@")
            user, colon, _ = userinfo.partition(":")
            netloc = f"{user}:{MASK}@{host}" if colon and user else f"{MASK}@{host}"
        query = parts.query
        if query:
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
            if any(_SECRET_QUERY.search(name) for name, _ in pairs):
                query = "&".join(
                    f"{name}={MASK if _SECRET_QUERY.search(name) else value}"
                    for name, value in pairs
                )
        if (netloc, query) == (parts.netloc, parts.query):
            return url
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return _USERINFO.sub(rf"\1{MASK}@", url)


OPENAI_URL = "https://api.openai.com/v1"
"""Where the openai client sends calls when no base URL is set."""


def url_origin(url: str | None) -> str:
    """The server a URL names, as browsers write an ``Origin``: ``scheme://host[:port]``,
    lower-cased, the scheme's default port left out (None: OpenAI's own server); ``""`` for
    what is no http(s) URL. Credentials, path and query are not part of it."""
    try:
        parts = urllib.parse.urlsplit(OPENAI_URL if url is None else url.strip())
        port = parts.port
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return ""
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = 80 if scheme == "http" else 443
    return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"


def key_travels(key_url: str | None, url: str | None) -> bool:
    """Whether an API key set for the server of ``key_url`` may be sent to ``url``: only to
    that same server (scheme, host and port), whatever the path."""
    origin = url_origin(url)
    return bool(origin) and origin == url_origin(key_url)


def mask_urls(text: str) -> str:
    """``text`` with every URL in it masked by :func:`mask_url` (for messages and errors)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: mask_url(m.group(0)), text)


def _frozen_prices(prices: Mapping[str, Price]) -> Mapping[str, Price]:
    return MappingProxyType({str(k): (float(v[0]), float(v[1])) for k, v in prices.items()})


@dataclass(frozen=True)
class Settings:
    """Everything ponder needs to know to reach a model. Immutable: use ``replace()``."""

    engine: str = "offline"
    """Which model answers: ``"offline"`` (embedded heuristic player), ``"openai"``
    (any OpenAI-compatible server) or ``"replay"`` (the replies of ``replay_file``)."""

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

    deadline: float | None = None
    """Seconds a whole solver run may take before it is stopped (``None``: no limit beyond
    each call's own); ``--deadline`` overrides it for one command."""

    cache: bool = True
    """Keep replies in a response cache, so a repeated call (same prompt, sampling and sample
    index) costs nothing."""

    seed: int | None = None
    """Seed for the offline engine and, where a server supports it, for sampling."""

    theme: str | None = None
    """The app's colour theme (a Textual theme name such as ``"nord"``), kept when it is
    changed in the app; ``None``: the default theme."""

    env_credentials: bool = True
    """Whether the openai client may add what it reads from the environment besides the key
    (``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``, ``OPENAI_CUSTOM_HEADERS``). The app turns it off
    for a base URL typed for another server than the one the key was set for."""

    experience_library: bool = False
    """The app's BoT runs start with the most relevant experience of earlier runs and store
    their own (``experience.sqlite3`` in the data dir). Off: each run starts empty, as the
    paper's. The command line has ``--library`` instead."""

    replay_file: str | None = None
    """The recording the replay engine answers from (``engine = "replay"``): a file written
    with ``record_file`` or ``--record``, or an imported one (``.jsonl``, or ``.jsonl.gz``)."""

    replay_speed: float = 0.0
    """How fast the replay engine answers: 0 at once, 1 as recorded (each call's recorded
    latency), 2 twice as fast, 0.5 half as fast."""

    solver_pace: float | None = None
    """Calls a second the app's offline engine answers, one at a time, so that a solver's tree
    can be watched as it grows (``[`` and ``]`` change it in a game); 0: full speed, as fast
    as it computes. Unset: 8 in ``ponder``. The command line and benchmarks always run at full
    speed."""

    record_file: str | None = None
    """Record every model call of every run, whatever the engine, to this file (JSON lines);
    ``None``: no recording. Each start of ponder writes it afresh."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check(f.name, getattr(self, f.name), "settings")
        if self.engine == "replay" and not self.replay_file:
            raise SettingsError(
                "settings: the replay engine needs replay_file, the recording to answer from"
            )
        object.__setattr__(self, "prices", _frozen_prices(self.prices))

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            value: Any = getattr(self, f.name)
            if f.name == "api_key":
                value = self.masked_key() if value else None
            elif f.name == "base_url" and value:
                value = mask_url(value)
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
    elif name == "deadline":
        if value is not None and (not _is_number(value) or not (0 < value < math.inf)):  # type: ignore[operator]
            raise bad("a positive number of seconds")
    elif name == "max_retries":
        if not _is_int(value) or value < 0:  # type: ignore[operator]
            raise bad("a whole number of at least 0")
    elif name in ("cache", "experience_library", "env_credentials"):
        if not isinstance(value, bool):
            raise bad("true or false")
    elif name in ("replay_file", "record_file"):
        if value is not None and (
            not isinstance(value, str) or not value.strip() or "\x00" in value
        ):
            raise bad("a file name such as 'run.jsonl'")
    elif name == "solver_pace":
        if value is not None and (not _is_number(value) or not (0 <= value < math.inf)):  # type: ignore[operator]
            raise bad("0 (full speed) or a positive number of calls a second")
    elif name == "replay_speed":
        if not _is_number(value) or not (0 <= value < math.inf):  # type: ignore[operator]
            raise bad("0 (at once) or a positive number (1: as recorded)")
    elif name == "theme":
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise bad("a theme name such as 'nord'")
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
        if name in ("timeout", "deadline", "solver_pace"):
            return float(text)
        if name == "cache":
            lowered = text.strip().lower()
            if lowered in _TRUE | _FALSE:
                return lowered in _TRUE
            raise ValueError(text)
    except ValueError:
        kind = {
            "concurrency": "a whole number",
            "timeout": "a number of seconds",
            "deadline": "a number of seconds",
            "solver_pace": "a number of calls a second (0: full speed)",
        }
        raise SettingsError(
            f"environment variable {var}: {name} must be {kind.get(name, 'true or false')}, "
            f"got {text!r}"
        ) from None
    return text


def _read_config(file: Path) -> str | None:
    """The text of the config file, or ``None`` when there is none; :class:`SettingsError`
    for a file the guard refuses (a pipe, a device, too large, not UTF-8, too long a line)."""
    try:
        data = read_file(file, what="config file", max_bytes=MAX_CONFIG_BYTES)
        return decode_text(data, file, max_line=MAX_CONFIG_BYTES)
    except FileError as err:
        if err.missing:
            return None
        raise SettingsError(str(err)) from None


def _parse_config(text: str, file: Path) -> dict[str, Any]:
    try:
        check_nesting(text, file, syntax="toml", max_depth=MAX_CONFIG_DEPTH)
        return tomllib.loads(text)
    except FileError as err:
        raise SettingsError(str(err)) from None
    except tomllib.TOMLDecodeError as err:
        raise SettingsError(f"{file}: not valid TOML: {err}") from None
    except RecursionError:  # unreachable under the depth cap; kept as the last guard
        raise SettingsError(f"{file}: not valid TOML: nested too deeply") from None
    except ValueError as err:  # e.g. an integer past Python's digit limit
        raise SettingsError(f"{file}: not valid TOML: {err}") from None


ENV_VARIABLES: Mapping[str, str] = MappingProxyType(
    {
        "OPENAI_API_KEY": "api_key",
        "OPENAI_BASE_URL": "base_url",
        "PONDER_ENGINE": "engine",
        "PONDER_MODEL": "model",
        "PONDER_BASE_URL": "base_url",
        "PONDER_CONCURRENCY": "concurrency",
        "PONDER_TIMEOUT": "timeout",
        "PONDER_DEADLINE": "deadline",
        "PONDER_CACHE": "cache",
        "PONDER_SOLVER_PACE": "solver_pace",
    }
)
"""Environment variable -> the field it overrides, in the order they apply (a later one wins:
the openai package's variables mean here what they mean there, and ``PONDER_BASE_URL`` beats
``OPENAI_BASE_URL``)."""


def env_sources(env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """Field -> the environment variable that sets it now (the one that wins)."""
    return {name: var for var, name in ENV_VARIABLES.items() if env.get(var)}


def load_settings(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] = os.environ
) -> Settings:
    """Read settings from ``path`` (default :func:`config_path`), then apply ``env`` overrides.

    A missing file means defaults. A file the file guard refuses, bad TOML, unknown fields,
    wrong types or out-of-range values raise :class:`SettingsError` naming the file (or
    variable) and the field.
    """
    file = Path(path).expanduser() if path is not None else config_path(env)
    text = _read_config(file)
    values = _parse_config(text, file) if text is not None else {}

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

    for var, name in ENV_VARIABLES.items():
        text = env.get(var)
        if not text:
            continue
        value = _env_value(name, var, text)
        _check(name, value, f"environment variable {var}")
        values[name] = value
        engine_chosen = engine_chosen or name == "engine"

    if not engine_chosen and (values.get("base_url") or values.get("api_key")):
        values["engine"] = "openai"
    if values.get("engine") == "replay" and not values.get("replay_file"):
        where = "environment variable PONDER_ENGINE" if env.get("PONDER_ENGINE") else str(file)
        raise SettingsError(
            f"{where}: the replay engine needs replay_file, the recording to answer from"
        )
    return Settings(**values)


# --- saving -----------------------------------------------------------------------------------

_HEADER = "# ponder settings. Keep this file private: it may hold your API key (mode 0600).\n"


def to_toml(
    changes: Mapping[str, Any],
    text: str = "",
    path: str | os.PathLike[str] = "",
    *,
    key: bool = False,
) -> str:
    """``text`` (a config file's TOML) with ``changes`` applied, and nothing else changed.

    ``changes`` maps a field to its new value; ``None`` removes the field from the file (it
    goes back to its default). ``prices`` maps a model to ``(prompt, completion)`` USD per 1M
    tokens, or to ``None`` to remove that model's entry; other models' entries stay. Everything
    not named — comments, blank lines, an ``api_key`` the user wrote, other keys — is kept byte
    for byte. The API key itself is never written: :class:`SettingsError` if it is asked for,
    as for an unknown field or a bad value (``path`` names the file in messages)."""
    import tomlkit  # only to write: imported when a setting is saved, not at every start
    import tomlkit.exceptions

    where = os.fspath(path) or "settings"
    try:
        doc = tomlkit.parse(text) if text.strip() else tomlkit.parse(_HEADER)
    except (tomlkit.exceptions.TOMLKitError, ValueError, RecursionError) as err:
        raise SettingsError(f"{where}: not valid TOML, so not changed: {err}") from None
    for name, value in changes.items():
        if name == "api_key":
            if not key:  # only save_api_key writes it, into a file it makes private
                raise SettingsError("the API key is saved only by save_api_key")
            if value is None:
                doc.pop("api_key", None)
            elif not isinstance(value, str) or not value.strip() or not value.isprintable():
                raise SettingsError("the API key must be one line of text")
            else:
                doc["api_key"] = value.strip()
            continue
        if name not in _FIELDS:
            raise SettingsError(f"unknown setting {name!r}")
        if name == "prices":
            _apply_prices(doc, value, where)
            continue
        _check(name, value, where)
        if value is None:
            if name in doc:
                del doc[name]
        else:
            doc[name] = value
    return doc.as_string()


def _apply_prices(doc: tomlkit.TOMLDocument, prices: Any, where: str) -> None:
    import tomlkit

    if not isinstance(prices, Mapping):
        raise SettingsError(f"{where}: prices must be a table of model = [prompt, completion]")
    table = doc.get("prices")
    if table is None:
        if all(price is None for price in prices.values()):
            return
        table = tomlkit.table()
        table.comment("USD per 1M prompt tokens, USD per 1M completion tokens")
        doc["prices"] = table
        table = doc["prices"]
    if not isinstance(table, MutableMapping):
        raise SettingsError(f"{where}: prices is not a table, so not changed")
    for model, price in prices.items():
        if price is None:
            if model in table:
                del table[model]
            continue
        _check("prices", {model: price}, where)
        table[str(model)] = [float(price[0]), float(price[1])]


def save_api_key(key: str | None, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the API key into the config file (None takes it out), keeping everything else in
    the file byte for byte, and make the file readable by its owner only (mode 0600), whatever
    it was before: the key is a secret. Returns the path; :class:`SettingsError` if it
    cannot."""
    file = save_settings({"api_key": key}, path, key=True)
    try:
        os.chmod(os.path.realpath(file), 0o600)
    except OSError as err:
        raise SettingsError(f"{file}: cannot make it private: {err.strerror or err}") from None
    return file


def save_settings(
    changes: Mapping[str, Any],
    path: str | os.PathLike[str] | None = None,
    *,
    key: bool = False,
) -> Path:
    """Write ``changes`` (see :func:`to_toml`) into the config file at ``path`` (default
    :func:`config_path`), keeping everything else in it byte for byte; atomically.

    Only what is named is written: values that came from the environment, the API key and
    defaults stay out of the file unless named. A file that cannot be read as TOML is left as
    it is. Returns the path written; :class:`SettingsError` for anything that stops it."""
    file = Path(path).expanduser() if path is not None else config_path()
    before = _read_config(file)
    if before is not None:
        _parse_config(before, file)  # never rewrite a file ponder cannot read
    text = to_toml(changes, before or "", file, key=key)
    if text == before:
        return file
    # A config kept elsewhere and linked here (a dotfiles folder) is written where it lives,
    # and the link stays; what it points to must be a regular file (or nothing) all the same.
    target = Path(os.path.realpath(file))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Written beside it, then renamed over it: a crash leaves the old file or the new one,
        # never half of one. A new file is private (it may come to hold a key); a file
        # replaced keeps its permissions.
        with write_whole(file, follow_links=True, new_mode=0o600, newline="") as handle:
            handle.write(text)
    except OSError as err:
        raise SettingsError(f"{file}: cannot write: {err.strerror or err}") from None
    except FileError as err:
        raise SettingsError(f"{file}: cannot write: {err.problem}") from None
    return file
