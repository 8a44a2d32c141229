"""Settings: engine, server, model, prices, concurrency; saved to the TOML config."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, Input, Select, Static

from puzzles.text import visible
from solver.model import ModelError
from solver.settings import Settings, SettingsError, config_path, save_settings
from tui.screens.base import PonderScreen

if TYPE_CHECKING:
    pass

__all__ = ["SettingsScreen"]


class SettingsScreen(PonderScreen):
    """Edit and save the settings; test the connection to the server."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="settings.back"),
        Binding("ctrl+t", "test", "Test connection", id="settings.test"),
    ]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        s = self.settings
        price = s.price_for(s.model)
        yield Header()
        with VerticalScroll(id="settings"):
            yield Static(Text("Settings", style="bold"), classes="dialog-title")
            with Horizontal(classes="field"):
                yield Static("Engine", classes="field-label")
                yield Select(
                    [
                        ("offline engine (no network)", "offline"),
                        ("OpenAI-compatible server", "openai"),
                    ],
                    value=s.engine,
                    allow_blank=False,
                    id="engine",
                )
            with Horizontal(classes="field"):
                yield Static("Base URL", classes="field-label")
                yield Input(
                    s.base_url or "", placeholder="https://api.openai.com/v1", id="base-url"
                )
            with Horizontal(classes="field"):
                yield Static("Model", classes="field-label")
                yield Input(s.model, id="model")
            with Horizontal(classes="field"):
                yield Static("API key", classes="field-label")
                yield Static(self._key_text(), id="api-key")
            with Horizontal(classes="field"):
                yield Static("$ / 1M prompt", classes="field-label")
                yield Input(
                    "" if price is None else f"{price[0]:g}",
                    id="price-in",
                    placeholder="unknown",
                    type="number",
                )
            with Horizontal(classes="field"):
                yield Static("$ / 1M output", classes="field-label")
                yield Input(
                    "" if price is None else f"{price[1]:g}",
                    id="price-out",
                    placeholder="unknown",
                    type="number",
                )
            with Horizontal(classes="field"):
                yield Static("Concurrency", classes="field-label")
                yield Input(str(s.concurrency), id="concurrency", type="integer")
            yield Static(id="settings-message")
            with Horizontal(classes="buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Test connection", id="test")
                yield Button("Back", id="back")
            yield Static(Text(f"Saved to {config_path()}", style="dim"))
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "settings"

    def _key_text(self) -> Text:
        masked = self.settings.masked_key()
        if masked:
            return Text(f"{masked}  (from OPENAI_API_KEY or the config; never shown in full)")
        return Text("not set: export OPENAI_API_KEY=... before starting ponder", style="dim")

    def say(self, text: str, style: str = "") -> None:
        # Messages quote servers and the config file: shown as text, escapes made visible.
        self.query_one("#settings-message", Static).update(Text(visible(text), style=style))

    def read_form(self) -> Settings:
        """The settings as the form shows them; :class:`SettingsError` if a field is bad."""
        engine = self.query_one("#engine", Select).value
        base_url = self.query_one("#base-url", Input).value.strip() or None
        model = self.query_one("#model", Input).value.strip()
        if not model:
            raise SettingsError("the model name cannot be empty")
        try:
            concurrency = int(self.query_one("#concurrency", Input).value.strip())
        except ValueError:
            raise SettingsError("concurrency must be a whole number") from None
        prices = dict(self.settings.prices)
        raw_in = self.query_one("#price-in", Input).value.strip()
        raw_out = self.query_one("#price-out", Input).value.strip()
        if raw_in or raw_out:
            try:
                prices[model] = (float(raw_in or 0), float(raw_out or 0))
            except ValueError:
                raise SettingsError("prices must be numbers (USD per million tokens)") from None
        elif model in prices:
            del prices[model]
        return self.settings.replace(
            engine=str(engine),
            base_url=base_url,
            model=model,
            concurrency=concurrency,
            prices=prices,
        )

    @on(Button.Pressed, "#save")
    def save(self) -> None:
        try:
            settings = self.read_form()
            path = save_settings(settings)
        except (SettingsError, OSError) as exc:
            self.say(f"Not saved: {exc}", "bold red")
            return
        self.settings = settings
        self.ponder.apply_settings(settings)
        self.say(f"Saved to {path}.", "green")

    @on(Button.Pressed, "#test")
    def action_test(self) -> None:
        try:
            settings = self.read_form()
        except SettingsError as exc:
            self.say(str(exc), "bold red")
            return
        if settings.engine != "openai":
            self.say("The offline engine needs no connection.", "green")
            return
        self.say("Connecting…")
        self.test_connection(settings)

    @work(exclusive=True, group="settings-test", exit_on_error=False)
    async def test_connection(self, settings: Settings) -> None:
        from solver.openai_model import OpenAIModel

        model = OpenAIModel(settings.replace(max_retries=0))
        try:
            self.say(await model.check_connection(), "green")
        except ModelError as exc:
            self.say(f"{exc.kind.replace('_', ' ')}: {exc.message}", "bold red")
        finally:
            await model.aclose()

    @on(Button.Pressed, "#back")
    def action_close(self) -> None:
        self.app.pop_screen()
