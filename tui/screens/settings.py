"""Settings: engine, server, model, prices, concurrency, recordings; saved to the TOML config.

Save writes only the fields changed on this screen into the config file and keeps everything
else in it byte for byte (:func:`solver.settings.save_settings`): values that came from the
environment, and an ``api_key`` the user keeps in the file, stay where they are. Credentials
in the base URL are shown masked; a field still holding the mask is not saved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Header, Input, Select, Static

from puzzles.text import visible
from solver.model import ModelError
from solver.settings import (
    MASK,
    OPENAI_URL,
    Settings,
    SettingsError,
    config_path,
    env_sources,
    key_travels,
    mask_url,
    mask_urls,
    save_api_key,
    save_settings,
    url_origin,
)
from tui.screens.base import PonderScreen
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.footer import KeyHints
from tui.widgets.tones import Tone, tone

__all__ = ["PUBLISHED", "SettingsScreen"]

PUBLISHED = "published"
"""The engine choice "GPT-4 (ToT's published run)": saved as the replay engine on the bundled
recording of ToT's search (:data:`solver.published.SEARCH`)."""


def _engine_choice(s: Settings) -> str:
    """The Engine box's value for ``s``: ``published`` for the replay of ToT's published
    search, else the engine."""
    from solver.published import SEARCH, which

    run = which(s.replay_file) if s.engine == "replay" else None
    return PUBLISHED if run is not None and run.name == SEARCH else s.engine


class SettingsScreen(PonderScreen):
    """Edit and save the settings; test the connection to the server."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="settings.back"),
        # f3 stands in for ctrl+t, which a browser keeps (BROWSER_KEYS).
        Binding("ctrl+t,f3", "test", "Test connection", id="settings.test"),
    ]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.shown: dict[str, str] = {}
        """What each field showed when the screen opened (or was last saved): Save writes
        only the fields that differ from it."""
        self._remember(settings)

    def _remember(self, s: Settings) -> None:
        price_in, price_out = self._price_text(s, s.model)
        self.shown = {
            "engine": _engine_choice(s),
            "base-url": mask_url(s.base_url) if s.base_url else "",
            "model": s.model,
            "price-in": price_in,
            "price-out": price_out,
            "concurrency": str(s.concurrency),
            "library": "on" if s.experience_library else "off",
            "replay-speed": f"{s.replay_speed:g}",
            "replay-file": s.replay_file or "",
            "record-file": s.record_file or "",
            "api-key-new": "",
        }

    @staticmethod
    def _price_text(s: Settings, model: str) -> tuple[str, str]:
        price = s.price_for(model)
        return ("", "") if price is None else (f"{price[0]:g}", f"{price[1]:g}")

    def compose(self) -> ComposeResult:
        s = self.settings
        shown = self.shown
        yield Header()
        with VerticalScroll(id="settings"):
            yield Static(Text("Settings", style="bold"), classes="dialog-title")
            with Horizontal(classes="field"):
                yield Static("Engine", classes="field-label")
                yield Select(
                    [
                        ("offline engine (no network)", "offline"),
                        ("OpenAI-compatible server", "openai"),
                        ("replay a recording", "replay"),
                        ("GPT-4 (ToT's published run)", PUBLISHED),
                    ],
                    value=shown["engine"],
                    allow_blank=False,
                    id="engine",
                )
                yield Static("Speed", classes="field-label", id="replay-speed-label")
                yield Input(
                    shown["replay-speed"],
                    id="replay-speed",
                    placeholder="0",
                    type="number",
                )
            with Horizontal(classes="field"):
                yield Static("Base URL", classes="field-label")
                yield Input(
                    shown["base-url"], placeholder="https://api.openai.com/v1", id="base-url"
                )
            with Horizontal(classes="field"):
                yield Static("Model", classes="field-label")
                yield Input(s.model, id="model")
            with Horizontal(classes="field"):
                yield Static("API key", classes="field-label")
                yield Static(self._key_text(), id="api-key")
                yield Input(
                    "",
                    password=True,
                    placeholder="paste a new key (saved privately)",
                    id="api-key-new",
                )
            with Horizontal(classes="field"):
                yield Static("$ / 1M prompt", classes="field-label")
                yield Input(
                    shown["price-in"],
                    id="price-in",
                    placeholder="unknown",
                    type="number",
                )
                # Beside each other: the row this saves holds the recording files.
                yield Static("$ / 1M output", classes="field-label")
                yield Input(
                    shown["price-out"],
                    id="price-out",
                    placeholder="unknown",
                    type="number",
                )
            with Horizontal(classes="field"):
                yield Static("Concurrency", classes="field-label")
                yield Input(str(s.concurrency), id="concurrency", type="integer")
                # Beside concurrency: a row more would push Save below a small terminal.
                yield Static("Experience", classes="field-label")
                yield Select(
                    [
                        ("off: BoT runs start empty", "off"),
                        ("on: from earlier BoT runs", "on"),
                    ],
                    value=shown["library"],
                    allow_blank=False,
                    id="library",
                )
            with Horizontal(classes="field"):
                yield Static("Replay file", classes="field-label")
                yield Input(
                    shown["replay-file"], id="replay-file", placeholder="a recording to replay"
                )
                yield Static("Record to", classes="field-label")
                yield Input(
                    shown["record-file"], id="record-file", placeholder="off: runs are not recorded"
                )
            note = Static(self._env_text(), id="settings-env")
            note.display = bool(note.content)  # the note takes no line when there is none
            yield note
            yield Static(id="settings-message")
            with Horizontal(classes="buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Test connection", id="test")
                yield Button("Back", id="back")
            yield Static(
                Text(f"Config file: {config_path()} (written only by Save)", style="dim"),
                id="settings-path",
            )
        yield KeyHints()

    # The model name is the field most often changed; Enter in any field saves.
    AUTO_FOCUS = "#model"

    def on_mount(self) -> None:
        self.sub_title = "settings"

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.save()

    def _key_text(self) -> Text:
        """The key in use, masked (``sk-...abcd``; never shown in full), or that none is."""
        masked = self.settings.masked_key()
        return Text(f"{masked} ") if masked else Text("not set ", style="dim")

    def say(self, text: str, style: str = "") -> None:
        # Messages quote servers and the config file: shown as text, escapes made visible.
        message = self.query_one("#settings-message", Static)
        message.update(Text(visible(text), style=style))
        # At 80x24 the message is below the fold: brought into sight, not left unseen.
        self.call_after_refresh(message.scroll_visible, animate=False)

    def _env_text(self) -> Text:
        labels = {"engine": "engine", "base_url": "base URL", "model": "model"}
        labels["concurrency"] = "concurrency"
        found = [f"{labels[f]} ({var})" for f, var in env_sources().items() if f in labels]
        if not found:
            return Text("")
        return Text(
            f"From the environment, and saved only if you change them: {', '.join(found)}. "
            "The environment wins over the file at start.",
            style="dim",
        )

    def _value(self, field: str) -> str:
        if field in ("engine", "library"):
            return str(self.query_one(f"#{field}", Select).value)
        return self.query_one(f"#{field}", Input).value.strip()

    @on(Select.Changed, "#engine")
    def _engine_changed(self, event: Select.Changed) -> None:
        """GPT-4 (ToT's published run) replays a bundled recording: its name shows as the
        replay file. The replay speed shows beside an engine that replays, only: "Speed 0"
        beside the offline engine read as an engine set to stand still."""
        from solver.published import SEARCH

        if event.value == PUBLISHED:
            self.query_one("#replay-file", Input).value = SEARCH
        replays = event.value in ("replay", PUBLISHED)
        for part in ("#replay-speed-label", "#replay-speed"):
            self.query_one(part).display = replays

    @on(Input.Changed, "#model")
    def _model_changed(self, event: Input.Changed) -> None:
        """Prices belong to a model: show the new model's (and count them as unchanged)."""
        price_in, price_out = self._price_text(self.settings, event.value.strip())
        if self._value("price-in") == self.shown["price-in"]:
            self.query_one("#price-in", Input).value = price_in
        if self._value("price-out") == self.shown["price-out"]:
            self.query_one("#price-out", Input).value = price_out
        self.shown["price-in"], self.shown["price-out"] = price_in, price_out

    def read_form(self) -> tuple[Settings, dict[str, Any]]:
        """The settings as the form shows them, and the changes to save (only the fields
        that differ from what the screen showed); :class:`SettingsError` if a field is bad."""
        changed = {f for f in self.shown if self._value(f) != self.shown[f].strip()}
        changes: dict[str, Any] = {}
        if "engine" in changed:
            engine = self._value("engine")
            changes["engine"] = "replay" if engine == PUBLISHED else engine
        if "base-url" in changed:
            base_url = self._value("base-url")
            if MASK in base_url:
                raise SettingsError(
                    f"the base URL still holds {MASK} where its credentials were hidden; "
                    "type it in full, or without them"
                )
            changes["base_url"] = base_url or None
        model = self._value("model")
        if not model:
            raise SettingsError("the model name cannot be empty")
        if "model" in changed:
            changes["model"] = model
        if "library" in changed:
            changes["experience_library"] = self._value("library") == "on"
        if "concurrency" in changed:
            try:
                changes["concurrency"] = int(self._value("concurrency"))
            except ValueError:
                raise SettingsError("concurrency must be a whole number") from None
        changes.update(self._recording_changes(changed))
        typed_key = self._value("api-key-new") if "api-key-new" in changed else ""
        if typed_key:
            if not typed_key.isprintable() or any(c.isspace() for c in typed_key):
                raise SettingsError("the API key is one word, with no spaces")
            changes["api_key"] = typed_key
        if changed & {"price-in", "price-out"}:
            raw_in, raw_out = self._value("price-in"), self._value("price-out")
            if raw_in or raw_out:
                try:
                    price: tuple[float, float] | None = (float(raw_in or 0), float(raw_out or 0))
                except ValueError:
                    raise SettingsError("prices must be numbers (USD per million tokens)") from None
            else:
                price = None  # cleared: the file's entry goes (a built-in price stays)
            changes["prices"] = {model: price}
        runtime = {k: v for k, v in changes.items() if k not in ("prices", "api_key")}
        if "prices" in changes:
            prices = dict(self.settings.prices)
            if changes["prices"][model] is None:
                prices.pop(model, None)
            else:
                prices[model] = changes["prices"][model]
            runtime["prices"] = prices
        settings = self._with_key(self.settings.replace(**runtime), typed_key)
        self._check_recordings(settings, changes)
        return settings, changes

    def _recording_changes(self, changed: set[str]) -> dict[str, Any]:
        from solver.published import SEARCH

        changes: dict[str, Any] = {}
        published = self._value("engine") == PUBLISHED
        replay_file = SEARCH if published else self._value("replay-file")
        if self._value("engine") == "replay" and not replay_file:
            raise SettingsError("the replay engine needs a recording: type its file in Replay file")
        if replay_file != self.shown["replay-file"].strip():
            changes["replay_file"] = replay_file or None
        if "record-file" in changed:
            changes["record_file"] = self._value("record-file") or None
        if "replay-speed" in changed:
            try:
                changes["replay_speed"] = float(self._value("replay-speed") or 0)
            except ValueError:
                raise SettingsError(
                    "the replay speed must be a number: 0 at once, 1 as recorded"
                ) from None
        return changes

    def _check_recordings(self, settings: Settings, changes: dict[str, Any]) -> None:
        """:class:`SettingsError` for a recording chosen here that cannot be replayed, a file
        that cannot be recorded to, or (in the browser) a file outside the folder it may use."""
        from solver.model.recording import record_problem

        replaying = {"engine", "replay_file"} & set(changes)
        if replaying and settings.engine == "replay" and settings.replay_file:
            if not _bundled(settings.replay_file):  # ponder's own data, in the browser too
                self._check_served(settings.replay_file)
            _recording_text(settings.replay_file)
        if "record_file" in changes and settings.record_file:
            self._check_served(settings.record_file)
            problem = record_problem(settings.record_file)
            if problem is not None:
                raise SettingsError(f"cannot record to {settings.record_file}: {problem}")

    def _check_served(self, path: str) -> None:
        """In the browser, files only where ``ponder serve --files`` allows them."""
        from tui.screens.open_file import within
        from tui.served import served_files

        allowed, root = served_files(self.app.is_web)
        if not allowed:
            raise SettingsError(
                "in the browser no file of this machine can be used: start ponder serve "
                "with --files DIR to allow the files of one folder"
            )
        if not within(Path(os.path.expanduser(path)), root):
            raise SettingsError(f"in the browser only files under {root} can be used")

    def _with_key(self, settings: Settings, typed: str = "") -> Settings:
        """``settings`` with the API key only when they still point at the server the key was
        set for: a key is never sent to an address typed in the app (in the browser, anyone
        at the keyboard could type their own). A key typed in the form is for the server the
        form shows."""
        if typed:
            return settings.replace(api_key=typed, env_credentials=False)
        key, key_url = self.ponder.api_key, self.ponder.key_url
        if key_travels(key_url, settings.base_url):
            return settings.replace(api_key=key, env_credentials=True)
        # Nor what the environment adds to the key (an organization, a proxy's token).
        return settings.replace(api_key=None, env_credentials=False)

    def _key_note(self, settings: Settings) -> str:
        """A sentence on a key held back from ``settings``' server; "" when none is."""
        if not self.ponder.api_key or settings.api_key:
            return ""
        return (
            f" The API key is not sent to {url_origin(settings.base_url) or 'that address'}: it "
            f"was set for {url_origin(self.ponder.key_url)}. Set OPENAI_API_KEY for the new "
            "server and start ponder again."
        )

    @on(Button.Pressed, "#save")
    def save(self) -> None:
        try:
            settings, changes = self.read_form()
            unsaved = self._browser_only(changes)
            if not changes and not unsaved:
                self.say("Nothing changed; the config file is as it was.")
                return
            key = changes.pop("api_key", None)
            if key is not None and self.app.is_web:
                raise SettingsError(
                    "in the browser an API key is not saved: set OPENAI_API_KEY (or api_key "
                    "in the config file) where ponder serve runs"
                )
            path = save_settings(changes) if changes else None
            if key is not None:
                path = save_api_key(key)
                self.ponder.api_key, self.ponder.key_url = key, settings.base_url
        except (SettingsError, OSError) as exc:
            self.say(f"Not saved: {mask_urls(str(exc))}", tone(self, Tone.WRONG, "bold"))
            return
        self.settings = settings
        self._remember(settings)
        # A URL typed with credentials is saved as typed (the user's choice) but shown masked.
        self.query_one("#base-url", Input).value = self.shown["base-url"]
        self.ponder.apply_settings(settings)
        said = []
        if key is not None:
            self.query_one("#api-key-new", Input).value = ""
            self.query_one("#api-key", Static).update(self._key_text())
            changes["API key (the file is now readable by you only)"] = key
        if changes:
            names = ", ".join(name.replace("_", " ") for name in changes)
            # The path is on the line below the buttons: said once, not twice.
            said.append(f"Saved {names}." if path == config_path() else f"Saved {names} to {path}.")
        if unsaved:
            said.append(
                f"Using {mask_url(unsaved)} until ponder closes: in the browser, an address for "
                "another server is not saved (edit the config file where ponder serve runs)."
            )
        self.say(" ".join(said) + self._key_note(settings), tone(self, Tone.RIGHT))

    def _browser_only(self, changes: dict[str, Any]) -> str | None:
        """In the browser, a base URL for another server than the one ponder started with is
        taken out of ``changes`` (used, not saved: the config file outlives the session, and
        the key would follow it at the next start); the URL, or None."""
        url = changes.get("base_url")
        if "base_url" not in changes or not self.app.is_web:
            return None
        if url_origin(url) == url_origin(self.ponder.key_url):
            return None
        del changes["base_url"]
        return str(url or OPENAI_URL)

    @on(Button.Pressed, "#test")
    def action_test(self) -> None:
        try:
            settings, _ = self.read_form()
        except SettingsError as exc:
            self.say(mask_urls(str(exc)), tone(self, Tone.WRONG, "bold"))
            return
        if settings.engine == "replay":
            try:
                self.say(_recording_text(settings.replay_file or ""), tone(self, Tone.RIGHT))
            except SettingsError as exc:
                self.say(str(exc), tone(self, Tone.WRONG, "bold"))
            return
        if settings.engine != "openai":
            self.say("The offline engine needs no connection.", tone(self, Tone.RIGHT))
            return
        self.say("Connecting…" + self._key_note(settings))
        self.test_connection(settings)

    @work(exclusive=True, group="settings-test", exit_on_error=False)
    async def test_connection(self, settings: Settings) -> None:
        from solver.model.openai import OpenAIModel

        model = OpenAIModel(settings.replace(max_retries=0))
        note = self._key_note(settings)
        try:
            self.say(mask_urls(await model.check_connection()) + note, tone(self, Tone.RIGHT))
        except ModelError as exc:
            self.say(
                mask_urls(f"{exc.kind.replace('_', ' ')}: {exc.message}") + note,
                tone(self, Tone.WRONG, "bold"),
            )
        finally:
            await model.aclose()

    def edited(self) -> list[str]:
        """The fields whose value differs from what they showed when last saved or opened."""
        return [field for field, was in self.shown.items() if self._value(field) != was]

    @on(Button.Pressed, "#back")
    def action_close(self) -> None:
        edited = self.edited()
        if not edited:
            self.app.pop_screen()
            return
        names = ", ".join(field.replace("-", " ") for field in edited)

        def answered(leave: bool | None) -> None:
            if leave:
                self.app.pop_screen()

        dialog = ConfirmDialog(
            "Leave without saving?",
            f"Your edits ({names}) are not saved.",
            "leave, dropping them",
            "stay and save them",
        )
        self.app.push_screen(dialog, answered)


def _bundled(name: str) -> bool:
    """Whether ``name`` is a bundled run's (``tot-gpt4-bfs``) and means its file."""
    from solver.published import bundled, resolve

    run = bundled(name)
    return run is not None and resolve(name) == run.path


def _recording_text(path: str) -> str:
    """What the recording at ``path`` (or the bundled run of that name) holds, in a
    sentence; :class:`SettingsError` when it cannot be replayed."""
    from solver.factory import recording_path
    from solver.model.recording import RecordingError, load_recording

    try:
        recording = load_recording(recording_path(path))
    except RecordingError as exc:
        raise SettingsError(f"cannot replay {exc}") from None
    calls = len(recording.calls)
    model = recording.header.engine or recording.header.model or "an unnamed model"
    return (
        f"The replay engine needs no connection: {path} holds "
        f"{calls} call{'s' if calls != 1 else ''} of {model}."
    )
