"""Settings: TOML file, environment overrides, validation, saving without the key."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from solver.factory import describe_engine
from solver.model import Usage
from solver.settings import (
    DEFAULT_PRICES,
    Settings,
    SettingsError,
    config_path,
    data_dir,
    env_sources,
    load_settings,
    mask_url,
    mask_urls,
    save_settings,
    to_toml,
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
     ("PONDER_CACHE", "perhaps"), ("PONDER_ENGINE", "gpt"), ("PONDER_DEADLINE", "0"),
     ("PONDER_DEADLINE", "soon"), ("PONDER_DEADLINE", "inf")],
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
    path = tmp_path / "deep" / "config.toml"
    with pytest.raises(SettingsError, match="saved only by save_api_key"):
        save_settings({"api_key": KEY}, path)
    assert not path.exists()
    path = save_settings({"engine": "openai", "model": "gpt-4o", "seed": 3}, path)
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "api_key" not in text.replace("the API key", "")
    loaded = load_settings(path, env={})
    assert loaded == Settings(engine="openai", model="gpt-4o", seed=3)
    # Atomic write: no temporary files left beside it; a new file is private.
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]
    assert path.stat().st_mode & 0o077 == 0


def test_save_defaults_to_config_path() -> None:
    path = save_settings({"model": "m1"})
    assert path == config_path()
    assert load_settings().model == "m1"


USER_CONFIG = """\
# My ponder config -- hand written, keep my notes!
api_key = "sk-mine-0123456789abcdef"   # yes, I keep my key here
engine = "openai"
model = "llama3.1"  # the small one
base_url = "http://localhost:11434/v1"

timeout = 30.0
cache = false

[prices]  # what my box costs
"llama3.1" = [0, 0]   # free
"qwen2" = [0.1, 0.2]
"""


def test_save_keeps_the_file_byte_for_byte_except_the_changed_field(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", USER_CONFIG)
    path.chmod(0o600)
    save_settings({"model": "qwen2"}, path)
    assert path.read_text(encoding="utf-8") == USER_CONFIG.replace(
        'model = "llama3.1"  #', 'model = "qwen2"  #'
    )
    assert path.stat().st_mode & 0o777 == 0o600  # a file holding a key stays private
    loaded = load_settings(path, env={})
    assert loaded.api_key == "sk-mine-0123456789abcdef"  # later runs still authenticate
    assert (loaded.model, loaded.timeout, loaded.cache) == ("qwen2", 30.0, False)


def test_save_changes_one_price_and_adds_new_fields_beside_the_others(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", USER_CONFIG)
    save_settings({"concurrency": 4, "prices": {"qwen2": (1.0, 2.0), "new": (3, 4)}}, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(USER_CONFIG.split("[prices]")[0].rstrip("\n"))
    assert '"llama3.1" = [0, 0]   # free\n' in text
    assert "concurrency = 4\n" in text.split("[prices]")[0]
    loaded = load_settings(path, env={})
    assert loaded.concurrency == 4
    assert loaded.price_for("qwen2") == (1.0, 2.0) and loaded.price_for("new") == (3.0, 4.0)
    assert loaded.price_for("llama3.1") == (0.0, 0.0)


def test_save_removes_only_what_it_is_told_to(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", USER_CONFIG)
    save_settings({"base_url": None, "prices": {"qwen2": None, "absent": None}}, path)
    text = path.read_text(encoding="utf-8")
    expected = USER_CONFIG.replace('base_url = "http://localhost:11434/v1"\n', "").replace(
        '"qwen2" = [0.1, 0.2]\n', ""
    )
    assert text == expected


def test_save_with_nothing_to_change_leaves_the_file_alone(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", USER_CONFIG)
    before = path.stat().st_mtime_ns
    save_settings({"model": "llama3.1"}, path)
    assert path.read_text(encoding="utf-8") == USER_CONFIG
    save_settings({}, path)
    assert path.stat().st_mtime_ns == before


def test_save_writes_through_a_link_and_keeps_it(tmp_path: Path) -> None:
    real = write(tmp_path / "dotfiles" / "ponder.toml", USER_CONFIG)
    link = tmp_path / "config" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(real)
    save_settings({"cache": True}, link)
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == USER_CONFIG.replace("cache = false", "cache = true")


def test_save_keeps_windows_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    crlf = USER_CONFIG.replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(crlf)
    save_settings({"cache": True}, path)
    assert path.read_bytes() == crlf.replace(b"cache = false", b"cache = true")


@pytest.mark.parametrize(
    ("text", "message"),
    [("model = \n# my notes\n", "not valid TOML"), ("a = [" * 40 + "]" * 40, "nested")],
)
def test_save_never_rewrites_a_file_it_cannot_read(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(SettingsError, match=message):
        save_settings({"model": "m"}, path)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    "changes",
    [{"concurrency": 0}, {"engine": "gpt"}, {"prices": {"m": (1,)}}, {"modle": "typo"}],
)
def test_save_refuses_bad_values_and_writes_nothing(
    tmp_path: Path, changes: dict[str, object]
) -> None:
    path = write(tmp_path / "config.toml", USER_CONFIG)
    with pytest.raises(SettingsError):
        save_settings(changes, path)
    assert path.read_text(encoding="utf-8") == USER_CONFIG


def test_to_toml_of_an_empty_file_starts_with_a_note_and_no_key() -> None:
    text = to_toml({"model": "m", "prices": {"my model": (1.0, 2.0)}})
    assert text.startswith("# ponder settings.")
    data = tomllib.loads(text)
    assert data == {"model": "m", "prices": {"my model": [1.0, 2.0]}}


def test_repr_masks_the_key() -> None:
    settings = Settings(api_key=KEY)
    assert KEY not in repr(settings)
    assert KEY not in str(settings)
    assert "sk-...1234" in repr(settings)
    assert settings.masked_key() == "sk-...1234"
    assert Settings().masked_key() == ""
    assert Settings(api_key="short").masked_key() == "****"
    assert "api_key" not in Settings(api_key=KEY).public_dict()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:pw@host:8000/v1", "http://user:****@host:8000/v1"),
        ("https://sk-token@host/v1", "https://****@host/v1"),
        ("https://:pw@host/v1", "https://****@host/v1"),
        ("http://host/v1?api_key=abc&x=1", "http://host/v1?api_key=****&x=1"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("http://[::1/v1@x", "http://[::1/v1@x"),  # unparsable, no credentials: as it was
        ("http://a:b@[::1", "http://****@[::1"),  # unparsable: every ...@ masked
    ],
)
def test_mask_url(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_credentials_in_urls_are_masked_in_repr_messages_and_status_lines() -> None:
    settings = Settings(engine="openai", base_url="http://me:s3cret@gpu:8000/v1")
    assert "s3cret" not in repr(settings) and "me:****@gpu" in repr(settings)
    assert "s3cret" not in describe_engine(settings)
    text = "cannot reach http://me:s3cret@gpu:8000/v1/models (refused); try https://x@y/"
    assert mask_urls(text) == (
        "cannot reach http://me:****@gpu:8000/v1/models (refused); try https://****@y/"
    )


def test_env_sources_name_the_winning_variable() -> None:
    env = {
        "OPENAI_BASE_URL": "http://a/v1",
        "PONDER_BASE_URL": "http://b/v1",
        "PONDER_TIMEOUT": "3",
    }
    assert env_sources(env) == {"base_url": "PONDER_BASE_URL", "timeout": "PONDER_TIMEOUT"}


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
    changes = {"model": model, "base_url": url, "prices": {price_name: (0.25, 1.5)}}
    with tempfile.TemporaryDirectory() as folder:
        path = save_settings(changes, Path(folder) / "config.toml")
        loaded = load_settings(path, env={})
    assert loaded.model == model
    assert loaded.base_url == url
    assert loaded.price_for(price_name) == (0.25, 1.5)


def test_a_run_deadline_comes_from_the_file_or_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("deadline = 30\n")
    assert load_settings(config, env={}).deadline == 30
    assert load_settings(config, env={"PONDER_DEADLINE": "2.5"}).deadline == 2.5
    assert load_settings(tmp_path / "none.toml", env={}).deadline is None
    config.write_text("deadline = -1\n")
    with pytest.raises(SettingsError, match="deadline"):
        load_settings(config, env={})


def test_a_saved_key_is_kept_in_a_private_file_and_read_back(tmp_path: Path) -> None:
    import os
    import stat

    from solver.settings import load_settings, save_api_key

    path = tmp_path / "config.toml"
    path.write_text("# mine\nmodel = 'gpt-4o'\n", encoding="utf-8")
    path.chmod(0o644)  # a file the user made readable by all: the key makes it private
    save_api_key(KEY, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text(encoding="utf-8").startswith("# mine\nmodel = 'gpt-4o'\n")
    assert load_settings(path).api_key == KEY
    save_api_key(None, path)  # taken out again; the rest stays
    assert KEY not in path.read_text(encoding="utf-8") and load_settings(path).api_key is None
    with pytest.raises(SettingsError, match="one line"):
        save_api_key("sk-one\nsk-two", path)
