"""The settings screen: Save writes only what was changed there and keeps the rest of the
config file byte for byte; credentials in the base URL are never shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from bench.fakeserver import FakeServer
from solver.settings import config_path, load_settings
from tests.tui.harness import wait_for
from tui.app import PonderApp, make_app
from tui.screens.settings import SettingsScreen

USER_CONFIG = """\
# hand written: keep my notes
api_key = "sk-mine-0123456789abcdef"   # my key lives here
model = "llama3.1"  # the small one
concurrency = 2

[prices]  # my box is free
"llama3.1" = [0, 0]
"""

URL_WITH_PASSWORD = "http://alice:s3cret-pw@gpu-box:8000/v1"


def app_for(tmp_path: Path) -> PonderApp:
    return make_app(load_settings(), store_path=tmp_path / "results.sqlite3", seed=1)


async def open_settings(app: PonderApp, pilot: object) -> SettingsScreen:
    await pilot.press("s")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert isinstance(app.screen, SettingsScreen)
    return app.screen


def message(screen: SettingsScreen) -> str:
    return str(screen.query_one("#settings-message", Static).render())


@pytest.fixture
def env_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values that come from the environment only, as a user's shell would set them."""
    monkeypatch.setenv("OPENAI_BASE_URL", URL_WITH_PASSWORD)
    monkeypatch.setenv("PONDER_TIMEOUT", "7.5")


async def test_save_keeps_the_users_key_comments_and_other_keys(
    tmp_path: Path, env_only: None
) -> None:
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text(USER_CONFIG, encoding="utf-8")
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#concurrency", Input).value = "4"
        await pilot.click("#save")
        await pilot.pause()
        assert "Saved concurrency" in message(screen)
    text = path.read_text(encoding="utf-8")
    assert text == USER_CONFIG.replace("concurrency = 2", "concurrency = 4")
    # Nothing from the environment landed in the file; the key is still there.
    assert "s3cret" not in text and "gpu-box" not in text and "7.5" not in text
    assert load_settings(config_path(), env={}).api_key == "sk-mine-0123456789abcdef"
    # The running app took the change, and kept the environment's values.
    assert app.settings.concurrency == 4
    assert app.settings.base_url == URL_WITH_PASSWORD and app.settings.timeout == 7.5


async def test_the_base_url_is_shown_masked_and_never_saved_masked(
    tmp_path: Path, env_only: None
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        field = screen.query_one("#base-url", Input)
        assert field.value == "http://alice:****@gpu-box:8000/v1"
        assert "s3cret" not in app.export_screenshot()
        assert "OPENAI_BASE_URL" in str(screen.query_one("#settings-env", Static).render())
        # Saving another field leaves the URL (and its password) out of the file.
        screen.query_one("#model", Input).value = "qwen2"
        await pilot.click("#save")
        await pilot.pause()
        assert "Saved model" in message(screen)
        assert "s3cret" not in config_path().read_text(encoding="utf-8")
        assert "base_url" not in config_path().read_text(encoding="utf-8")
        # An edited URL that still holds the mask is refused, not written with "****".
        field.value = "http://alice:****@gpu-box:9000/v1"
        await pilot.pause(0.3)  # a button ignores clicks while it shows the last one
        await pilot.click("#save")
        await pilot.pause()
        assert "Not saved" in message(screen) and "****" in message(screen)
        assert "9000" not in config_path().read_text(encoding="utf-8")
        assert "s3cret" not in app.export_screenshot()


async def test_a_url_typed_with_credentials_is_saved_as_typed_and_then_shown_masked(
    tmp_path: Path,
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        field = screen.query_one("#base-url", Input)
        field.value = "http://bob:typed-pw@box:8000/v1"
        await pilot.click("#save")
        await pilot.pause()
        assert "Saved base url" in message(screen)
        assert field.value == "http://bob:****@box:8000/v1"
        assert "typed-pw" not in app.export_screenshot()
    assert load_settings(config_path(), env={}).base_url == "http://bob:typed-pw@box:8000/v1"


async def test_an_unchanged_screen_saves_nothing(tmp_path: Path, env_only: None) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        await pilot.click("#save")
        await pilot.pause()
        assert "Nothing changed" in message(screen)
    assert not config_path().exists()


async def test_a_new_models_price_is_saved_for_that_model_only(tmp_path: Path) -> None:
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text(USER_CONFIG, encoding="utf-8")
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#model", Input).value = "gpt-4o"
        await pilot.pause()
        # The price fields follow the model; unchanged, they are not saved.
        assert screen.query_one("#price-in", Input).value == "2.5"
        screen.query_one("#price-out", Input).value = "12"
        await pilot.click("#save")
        await pilot.pause()
    saved = load_settings(config_path(), env={})
    assert saved.model == "gpt-4o" and saved.price_for("gpt-4o") == (2.5, 12.0)
    assert saved.price_for("llama3.1") == (0.0, 0.0)
    assert '"llama3.1" = [0, 0]\n' in path.read_text(encoding="utf-8")


KEY = "sk-owner-0123456789abcdefXYZ"


async def _test_connection(screen: SettingsScreen, pilot: object, url: str) -> str:
    screen.query_one("#base-url", Input).value = url
    await pilot.pause(0.3)  # type: ignore[attr-defined]
    await pilot.press("ctrl+t")  # type: ignore[attr-defined]  # Test connection
    await wait_for(pilot, lambda: "Connecting" not in message(screen))
    return message(screen)


async def test_the_key_goes_only_to_the_server_it_was_set_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser session once sent the owner's key to an address typed into the settings."""
    with FakeServer() as own, FakeServer() as other:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", own.url)
        monkeypatch.setenv("PONDER_MODEL", "fake-model")
        # What the openai package adds from the environment stays with the key's server too.
        monkeypatch.setenv("OPENAI_ORG_ID", "org-owner")
        monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-owner")
        monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Proxy-Token: proxy-secret")
        app = app_for(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_settings(app, pilot)
            said = await _test_connection(screen, pilot, other.url)
            assert "Connected to" in said
            assert f"The API key is not sent to http://127.0.0.1:{other.port}" in said
            assert other.requests
            for secret in (KEY, "org-owner", "proj-owner", "proxy-secret"):
                assert all(secret not in str(r.headers) for r in other.requests), secret
            # Back to its own server (another path of it): the key goes with the calls again.
            said = await _test_connection(screen, pilot, own.url.replace("/v1", "/v1/"))
            assert "not sent" not in said
            sent = own.requests[-1].headers
            assert sent["authorization"] == f"Bearer {KEY}"
            assert sent["x-proxy-token"] == "proxy-secret"
            assert sent["openai-organization"] == "org-owner"
            # Saved in the terminal, the new address is kept, and the running app has no key.
            screen.query_one("#base-url", Input).value = other.url
            await pilot.pause(0.3)
            await pilot.click("#save")
            await pilot.pause()
            assert "Saved base url" in message(screen) and "not sent" in message(screen)
            assert app.settings.base_url == other.url and app.settings.api_key is None
        assert load_settings(config_path(), env={}).base_url == other.url
        assert KEY not in config_path().read_text(encoding="utf-8")


async def test_in_the_browser_another_servers_address_is_used_but_never_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setattr(PonderApp, "is_web", property(lambda self: True))
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#base-url", Input).value = "http://evil.example:8080/v1"
        screen.query_one("#concurrency", Input).value = "3"
        await pilot.click("#save")
        await pilot.pause()
        said = message(screen)
        assert "Saved concurrency" in said and "until ponder closes" in said
        assert "not sent to http://evil.example:8080" in said
        assert app.settings.base_url == "http://evil.example:8080/v1"
        assert app.settings.api_key is None and app.settings.concurrency == 3
    text = config_path().read_text(encoding="utf-8")
    assert "evil" not in text and "concurrency = 3" in text


async def test_escape_with_edits_asks_and_without_edits_leaves(tmp_path: Path) -> None:
    from tui.widgets.confirm import ConfirmDialog

    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(app, pilot)
        await pilot.press("escape")  # nothing edited: back at once
        await pilot.pause()
        assert app.screen is not screen
        screen = await open_settings(app, pilot)
        screen.query_one("#concurrency", Input).value = "7"
        await pilot.press("escape")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and "concurrency" in dialog.body
        await pilot.press("n")  # stay: the edit is still there
        await pilot.pause()
        assert app.screen is screen and screen.query_one("#concurrency", Input).value == "7"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")  # leave, dropping it
        await pilot.pause()
        assert app.screen is not screen and not config_path().exists()


async def test_the_connection_tests_result_is_brought_into_sight_at_80x24(
    tmp_path: Path,
) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(app, pilot)
        await pilot.press("ctrl+t")  # the offline engine: answered at once, below the fold
        await pilot.pause(0.3)
        said = screen.query_one("#settings-message", Static)
        assert "needs no connection" in str(said.render())
        assert screen.region.contains_region(said.region), (said.region, screen.region)


async def test_a_key_typed_in_settings_is_saved_privately_and_never_shown(
    tmp_path: Path,
) -> None:
    import os
    import stat

    key = "sk-typed-in-settings-7Hq2vX9pLm4"
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_settings(app, pilot)
        field = screen.query_one("#api-key-new", Input)
        assert field.password  # typed as dots
        field.value = key
        screen.save()  # as Save does (at 80x24 the button is below the fold)
        await pilot.pause()
        assert "Saved API key" in message(screen) and key not in message(screen)
        assert field.value == "" and key not in app.export_screenshot()
        assert "sk-...xX9pLm4"[-4:] in str(screen.query_one("#api-key", Static).render())
        assert app.api_key == key and app.settings.api_key == key
    path = config_path()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_settings(path).api_key == key
