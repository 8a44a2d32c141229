"""Settings: TOML file, environment overrides, validation, saving without the key."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.model import Usage
from solver.settings import (
    DEFAULT_PRICES,
    Settings,
    SettingsError,
    config_path,
    data_dir,
    load_settings,
    save_settings,
)

KEY = "sk-proj-abcdefghijklmnop1234"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "nowhere.toml", env={})
    assert settings == Settings()
    assert settings.engine == "offline"
    assert settings.concurrency == 8
    assert settings.cache is True
    assert settings.seed is None


def test_locations_follow_environment(tmp_path: Path) -> None:
    # The autouse fixture points both at tmp_path.
    assert config_path() == tmp_path / "config" / "config.toml"
    assert data_dir() == tmp_path / "data"
    assert config_path({"PONDER_CONFIG": "/x/y.toml"}) == Path("/x/y.toml")
    assert config_path({}).name == "config.toml"


def test_default_path_comes_from_ponder_config(tmp_path: Path) -> None:
    write(config_path(), 'model = "from-env-path"\n')
    assert load_settings().model == "from-env-path"


def test_toml_file_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.toml",
        """
engine = "openai"
base_url = "http://localhost:11434/v1"
model = "llama3.1"
concurrency = 3
timeout = 12
max_retries = 0
cache = false
seed = 42

[prices]
"llama3.1" = [0, 0.5]
""",
    )
    settings = load_settings(path, env={})
    assert settings.engine == "openai"
    assert settings.base_url == "http://localhost:11434/v1"
    assert settings.model == "llama3.1"
    assert (settings.concurrency, settings.timeout, settings.max_retries) == (3, 12, 0)
    assert settings.cache is False
    assert settings.seed == 42
    assert settings.price_for("llama3.1") == (0.0, 0.5)
    # The file adds to the built-in table rather than replacing it.
    assert settings.price_for("gpt-4o-mini") == DEFAULT_PRICES["gpt-4o-mini"]


def test_environment_overrides_file(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", 'model = "file-model"\nconcurrency = 2\n')
    env = {
        "PONDER_MODEL": "env-model",
        "PONDER_CONCURRENCY": "5",
        "PONDER_TIMEOUT": "2.5",
        "PONDER_CACHE": "off",
        "PONDER_ENGINE": "openai",
    }
    settings = load_settings(path, env=env)
    assert settings.model == "env-model"
    assert settings.concurrency == 5
    assert settings.timeout == 2.5
    assert settings.cache is False
    assert settings.engine == "openai"


def test_openai_variables_work_as_the_package_defines_them(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://gpu-box:8000/v1"}
    settings = load_settings(tmp_path / "none.toml", env=env)
    assert settings.api_key == KEY
    assert settings.base_url == "http://gpu-box:8000/v1"
    # A configured server or key chooses the OpenAI engine when none was chosen.
    assert settings.engine == "openai"


def test_ponder_base_url_beats_openai_base_url(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://a/v1", "PONDER_BASE_URL": "http://b/v1"}
    assert load_settings(tmp_path / "none.toml", env=env).base_url == "http://b/v1"


def test_explicit_engine_is_kept_even_with_a_key(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", 'engine = "offline"\n')
    assert load_settings(path, env={"OPENAI_API_KEY": KEY}).engine == "offline"


def test_api_key_from_config_file(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", f'api_key = "{KEY}"\n')
    settings = load_settings(path, env={})
    assert settings.api_key == KEY
    assert settings.engine == "openai"
    # The environment wins over the file.
    assert load_settings(path, env={"OPENAI_API_KEY": "sk-other-key-999999"}).api_key == (
        "sk-other-key-999999"
    )


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.toml", "model = \n")
    with pytest.raises(SettingsError, match=r"broken\.toml") as info:
        load_settings(path, env={})
    assert "TOML" in str(info.value)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("concurrency = -1", "concurrency"),
        ("concurrency = 0", "concurrency"),
        ('concurrency = "8"', "concurrency"),
        ("timeout = 0", "timeout"),
        ("max_retries = -2", "max_retries"),
        ('cache = "yes"', "cache"),
        ('engine = "gpt"', "engine"),
        ("model = 3", "model"),
        ("seed = 1.5", "seed"),
        ('[prices]\n"x" = [1]', "prices.x"),
        ('[prices]\n"x" = [-1, 2]', "prices.x"),
        ('modle = "typo"', "modle"),
    ],
)
def test_wrong_values_name_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path / "bad.toml", text + "\n")
    with pytest.raises(SettingsError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert "bad.toml" in message
    assert field in message


@pytest.mark.parametrize(
    ("var", "value"),
    [("PONDER_CONCURRENCY", "-3"), ("PONDER_CONCURRENCY", "many"), ("PONDER_TIMEOUT", "x"),
     ("PONDER_CACHE", "perhaps"), ("PONDER_ENGINE", "gpt")],
)  # fmt: skip
def test_bad_environment_names_the_variable(tmp_path: Path, var: str, value: str) -> None:
    with pytest.raises(SettingsError, match=var):
        load_settings(tmp_path / "none.toml", env={var: value})


def test_settings_object_validates_too() -> None:
    with pytest.raises(SettingsError, match="concurrency"):
        Settings(concurrency=-1)
    with pytest.raises(SettingsError, match="concurrency"):
        Settings().replace(concurrency=0)


def test_save_never_writes_the_key(tmp_path: Path) -> None:
    settings = Settings(engine="openai", api_key=KEY, model="gpt-4o", seed=3)
    path = save_settings(settings, tmp_path / "deep" / "config.toml")
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert "api_key" not in text.replace("# ponder settings. The API key", "")
    loaded = load_settings(path, env={})
    assert loaded.api_key is None
    assert loaded == settings.replace(api_key=None)
    # Atomic write: no temporary files left beside it.
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]


def test_save_defaults_to_config_path() -> None:
    path = save_settings(Settings(model="m1"))
    assert path == config_path()
    assert load_settings().model == "m1"


def test_save_writes_only_changed_prices(tmp_path: Path) -> None:
    prices = {**DEFAULT_PRICES, "my model": (1.0, 2.0), "gpt-4o": (9.0, 9.0)}
    path = save_settings(Settings(prices=prices), tmp_path / "c.toml")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["prices"] == {"my model": [1.0, 2.0], "gpt-4o": [9.0, 9.0]}
    assert load_settings(path, env={}).prices == Settings(prices=prices).prices


def test_repr_masks_the_key() -> None:
    settings = Settings(api_key=KEY)
    assert KEY not in repr(settings)
    assert KEY not in str(settings)
    assert "sk-...1234" in repr(settings)
    assert settings.masked_key() == "sk-...1234"
    assert Settings().masked_key() == ""
    assert Settings(api_key="short").masked_key() == "****"
    assert "api_key" not in Settings(api_key=KEY).public_dict()


def test_prices_and_cost() -> None:
    settings = Settings(prices={"m": (1.0, 3.0)})
    assert settings.price_for("m") == (1.0, 3.0)
    assert settings.price_for("m-2024-07-18") == (1.0, 3.0)  # a dated snapshot of m
    assert settings.price_for("unknown") is None
    assert settings.cost("m", Usage(1_000_000, 2_000_000)) == pytest.approx(7.0)
    assert settings.cost("unknown", Usage(10, 10)) is None
    assert Settings().price_for("gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["gpt-4o-mini"]


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.model = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.prices["x"] = (1.0, 1.0)  # type: ignore[index]


names = st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != "")


@given(model=names, url=names, price_name=names)
def test_written_toml_reads_back_the_same(model: str, url: str, price_name: str) -> None:
    settings = Settings(model=model, base_url=url, prices={price_name: (0.25, 1.5)})
    with tempfile.TemporaryDirectory() as folder:
        path = save_settings(settings, Path(folder) / "config.toml")
        loaded = load_settings(path, env={})
    assert loaded.model == model
    assert loaded.base_url == url
    assert loaded.price_for(price_name) == (0.25, 1.5)
