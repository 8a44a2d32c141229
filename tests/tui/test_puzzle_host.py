"""The app hosts puzzle kinds, not the Game of 24: the registry drives home, play and replay;
the catalogue drives the method dialog, the home's method list, ``make_method`` and the pane's
labels; one model factory; each screen's own palette commands; the dialogue pane of a method
that talks to itself (fed synthetic IoT events)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Select, Static, Switch

from puzzles.game24 import Hand
from solver import events as ev
from solver.domains.game24 import ROLES as GAME24_ROLES
from solver.methods import METHODS
from solver.model import Model
from solver.model.offline import OfflineModel
from solver.settings import Settings
from tests.tui.harness import GatedModel, Notice, choices, shown, wait_for
from tui import app as app_module
from tui.app import OFFLINE_THINK_SECONDS, PonderApp, Replay, make_app
from tui.kinds import KINDS, UnknownKind, find_kind
from tui.screens import dialogs, home, puzzle
from tui.screens.dialogs import MethodDialog
from tui.screens.game24 import Game24Commands, Game24Screen
from tui.screens.home import HomeScreen
from tui.screens.puzzle import PuzzleScreen, SolverCommands
from tui.widgets import solver_pane
from tui.widgets.dialogue import DialogueView, Turn, TurnCard
from tui.widgets.solver_pane import SolverPane


async def game(pilot: Pilot[None], hand: str = "3 4 8 9") -> tuple[Game24Screen, SolverPane]:
    screen = Game24Screen(Hand.parse(hand), "easy")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen, screen.query_one(SolverPane)


def text(widget: Any) -> str:
    return str(widget.render())


# -- no second list of methods or kinds in the app -----------------------------------------------


@pytest.mark.parametrize("module", [app_module, dialogs, home, puzzle, solver_pane])
def test_the_app_names_no_method(module: object) -> None:
    source = inspect.getsource(module)  # type: ignore[arg-type]
    for name in METHODS:
        assert f'"{name}"' not in source and f"'{name}'" not in source, name


def test_the_pane_and_the_host_name_no_puzzle_kind() -> None:
    for module in (solver_pane, puzzle, home):
        source = inspect.getsource(module)
        assert "game24" not in source.lower() and "Game of 24" not in source


# -- the registry drives home, play and replay ---------------------------------------------------


async def test_home_lists_every_registered_kind_and_only_playable_ones_can_be_chosen(
    app: PonderApp,
) -> None:
    async with app.run_test(size=(120, 40)):
        kinds = app.screen.query_one("#kinds", OptionList)
        options = [kinds.get_option_at_index(i) for i in range(kinds.option_count)]
        assert [o.id for o in options] == list(KINDS)
        for option in options:
            entry = KINDS[str(option.id)]
            assert option.disabled is not entry.playable
            assert entry.label in str(option.prompt)
            if not entry.playable:
                assert "coming soon" in str(option.prompt)
        levels = app.screen.query_one("#level", Select)
        assert choices(levels)[1:] == list(Game24Screen.LEVELS)  # a level is its own label


async def test_home_lists_the_catalogues_methods_in_its_order(app: PonderApp) -> None:
    """The methods the highlighted kind (the Game of 24) can run, in the catalogue's order."""
    async with app.run_test(size=(120, 40)):
        method = app.screen.query_one("#method", Select)
        runs = [s for s in METHODS.values() if s.roles <= GAME24_ROLES]
        assert choices(method) == [s.label for s in runs]
        for spec in runs:  # each label stands for its method
            method.value = spec.name
            assert shown(method) == spec.label


async def test_open_puzzle_opens_the_kinds_screen(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_puzzle("game24", "hard", seed=7)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen) and screen.level == "hard"
        app.open_puzzle("24", "hard", seed=7)  # as people type it, too
        await pilot.pause()
        assert isinstance(app.screen, Game24Screen) and app.screen.hand == screen.hand


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("24", "game24"),
        ("Game_Of_24", "game24"),
        ("game-of-24", "game24"),
        (" MINI ", "crossword"),
        ("Cross_Words", "crossword"),
        ("word_problem", "wordproblem"),
        ("GSM-8K", "wordproblem"),
    ],
)
def test_a_kind_is_found_by_any_case_with_dashes_and_underscores_ignored(
    said: str, kind: str
) -> None:
    assert find_kind(said) is KINDS[kind]


def test_an_unknown_kind_names_the_kinds_there_are() -> None:
    with pytest.raises(UnknownKind) as info:
        find_kind("chess_24")
    assert str(info.value) == (
        "unknown puzzle kind 'chess_24'; use '24', 'crossword', 'wordproblem'"
    )


def test_a_replay_takes_its_kind_from_the_header_or_else_the_run() -> None:
    started = ev.RunStarted("bot", "4 7 8 8", "crossword", "offline")
    assert Replay({"kind": "game24"}, [started]).kind == "game24"
    assert Replay({}, [started]).kind == "crossword"
    assert Replay({}, []).kind == "game24"  # traces from before kinds were recorded


async def test_a_replay_of_a_kind_the_app_cannot_show_is_refused_over_home(
    toasts: list[Notice],
) -> None:
    started = ev.RunStarted("bot", "x", "crossword", "offline")
    app = make_app(Settings(), replay=Replay({"puzzle": "x"}, [started]), use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("cannot be replayed" in n.message for n in toasts)


async def test_a_replay_opens_the_screen_of_its_kind() -> None:
    started = ev.RunStarted("tot", "4 7 8 8", "game24", "offline")
    replay = Replay({"puzzle": "4 7 8 8"}, [started])
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Game24Screen) and screen.replay is replay
        assert str(screen.hand) == "4 7 8 8"
        await wait_for(pilot, lambda: replay.finished)
        assert screen.query_one(SolverPane).label == "ToT"


# -- one model factory; methods from the catalogue -----------------------------------------------


def test_the_apps_model_comes_from_the_one_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def factory(settings: Settings, **options: Any) -> Model:
        seen.update(options)
        return OfflineModel()

    monkeypatch.setattr("solver.factory.make_model", factory)
    app = make_app(Settings(seed=5), use_store=False)
    app.make_model()
    assert seen["offline_delay"] == OFFLINE_THINK_SECONDS and seen["seed"] == 5


def test_the_factory_passes_the_offline_delay() -> None:
    from solver.factory import make_model

    model = make_model(Settings(), offline_delay=0.25)
    assert isinstance(model, OfflineModel) and model.delay == 0.25


@pytest.mark.parametrize("name", list(METHODS))
def test_make_method_uses_the_specs_app_values_and_only_its_own_options(name: str) -> None:
    spec = METHODS[name]
    app = make_app(Settings(), use_store=False)
    app.kind_name = next(k.name for k in KINDS.values() if spec in k.methods())  # one it plays
    app.method_name = name
    assert app.method_name == name
    # Options of every method at once: only the chosen method's reach it.
    app.method_options = {"breadth": 2, "trees": 3, "samples": 4, "iterations": 2}
    config = app.make_method().config_dict()
    for key, value in spec.in_app.items():
        assert config[key] == value
    names = {o.name for o in spec.options()}
    for key, value in app.method_options.items():
        if key in names:
            assert config[key] == value


# -- the method dialog, generated ----------------------------------------------------------------


GAME24_METHODS = [n for n, spec in METHODS.items() if spec.roles <= GAME24_ROLES]
"""The methods the Game of 24 can take (the dialog offers no other on its screen)."""


@pytest.mark.parametrize("name", GAME24_METHODS)
async def test_the_dialog_shows_each_methods_description_and_only_its_app_options(
    app: PonderApp, name: str
) -> None:
    spec = METHODS[name]
    async with app.run_test(size=(80, 24)) as pilot:
        await game(pilot)
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        dialog.query_one("#method", Select).value = name
        await pilot.pause()
        assert text(dialog.query_one("#method-note", Static)) == spec.description
        fields = [w for w in dialog.query("Input, Switch, Select") if w.id != "method"]
        shown = {str(w.id) for w in fields if w.region.area}
        wanted = {f"{name}-{o.name.replace('_', '-')}" for o in spec.options() if o.option.app}
        assert shown == wanted
        for opt in spec.options():
            if not opt.option.app:
                continue
            widget = dialog.query_one(f"#{name}-{opt.name.replace('_', '-')}")
            if opt.type is bool:
                assert isinstance(widget, Switch)
            elif opt.option.choices:
                assert isinstance(widget, Select)
            else:
                assert isinstance(widget, Input)
                assert widget.type == {int: "integer", float: "number"}.get(opt.type, "text")
        if not wanted:
            notes = [w for w in dialog.query(".no-options") if w.region.area]
            assert len(notes) == 1
        dialog.query_one("#use", Button).press()
        await pilot.pause()
        assert app.method_name == name


async def test_the_dialog_shows_the_focused_options_help_and_bounds(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await game(pilot)
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        trees = dialog.query_one("#bot-trees", Input)
        trees.focus()
        await pilot.pause()
        helped = text(dialog.query_one("#option-help", Static))
        assert "thought trees per iteration" in helped and "paper: 15" in helped


# -- the screen's own commands -------------------------------------------------------------------


async def test_each_screen_brings_its_own_palette_commands(app: PonderApp) -> None:
    assert SolverCommands in PuzzleScreen.COMMANDS
    assert {SolverCommands, Game24Commands} <= Game24Screen.COMMANDS
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _ = await game(pilot)
        titles = [title for title, _, _ in Game24Commands(screen).commands()]
        titles += [title for title, _, _ in SolverCommands(screen).commands()]
        for wanted in ("Hint", "Give up", "Start, stop or resume the solver", "Solver method"):
            assert wanted in titles
        hits = [hit async for hit in Game24Commands(screen).search("hint")]
        assert hits and hits[0].help
        palette = [c.title for c in app.get_system_commands(screen)]
        assert "Hint" not in palette  # the screen's, not the app's
        assert "Play Game of 24" in palette


# -- start, stop, restart ------------------------------------------------------------------------


async def test_shift_s_restarts_the_solver_from_the_start(tmp_path: Path) -> None:
    model = OfflineModel(delay=0.2)
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        _, pane = await game(pilot, "1 1 1 2")
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.calls > 0)
        first = pane.started
        await pilot.press("S")
        await pilot.pause()
        assert pane.running and pane.started != first  # a fresh run, from the start
        await pilot.press("s")
        await pilot.pause()
        assert not pane.running and "stopped" in text(pane.query_one("#solver-status"))
        await pilot.press("S")
        await pilot.pause()
        assert pane.running
        await pilot.press("s")


# -- the dialogue pane ---------------------------------------------------------------------------


def dialogue_run() -> list[ev.Event]:
    return [
        ev.TurnGuided(1, 3, "Try combining the two eights first.", stop=False, call_id=1),
        ev.TurnAnswered(
            1,
            "Let me think. " * 40 + "So (8 - 3) * 4 + 9 is my answer.",
            "(8 - 3) * 4 + 9",
            final=False,
            uncertainty="high",
            ok=False,
            verdict="it makes 29, not 24",
            changed=True,
            prompt_tokens=812,
            call_id=2,
        ),
        ev.TurnGuided(2, 3, "Check: does it make 24? Use every card once.", stop=True, call_id=3),
        ev.TurnAnswered(
            2,
            "(9 - 3) * (8 - 4) = 24.",
            "(9 - 3) * (8 - 4)",
            final=True,
            uncertainty="low",
            ok=True,
            verdict="",
            changed=True,
            prompt_tokens=1534,
            call_id=4,
        ),
        ev.DialogueStopped(2, "guide", "the answer checks out"),
    ]


def test_a_turn_card_names_the_unguided_first_answer_and_giots_last() -> None:
    answered = ev.TurnAnswered(1, "4 * 6", "4 * 6", False, "", True, "", True, 100, 1)
    first = TurnCard(Turn(1, 11, "No guide has spoken yet.", phase="first", answered=answered), str)
    shown = first.render_turn().plain
    assert shown.startswith("Turn 1/11 · first answer, unguided")
    assert "no guide the answerer answers on its own" in shown
    assert "■ stop" not in shown and "go on" not in shown  # no guide call, no flag
    last = TurnCard(Turn(5, 5, "This is the last turn.", phase="final"), str)
    assert last.render_turn().plain.startswith("Turn 5/5 · final answer")
    # A trace recorded before (GIoT's closing call after its N full turns) still reads.
    old = TurnCard(Turn(6, 5, "This is the last turn.", phase="final"), str)
    assert old.render_turn().plain.startswith("Closing turn (after 5)")


async def test_a_dialogue_method_is_drawn_as_turns_not_a_tree(
    app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        _, pane = await game(pilot, "3 4 8 9")
        # Whatever dialogue method the catalogue has (IoT), or one like it.
        spec = next((s for s in METHODS.values() if s.view == "dialogue"), None)
        if spec is None:
            import dataclasses

            spec = dataclasses.replace(METHODS["cot"], name="talk", label="Talk", view="dialogue")
            monkeypatch.setitem(METHODS, "talk", spec)
        pane.reset(spec.name, "offline")
        pane.show_answer()  # as after v: the answers show (hidden while the player plays)
        pane.apply([ev.RunStarted(spec.name, "3 4 8 9", "game24", "offline"), *dialogue_run()])
        await pilot.pause()
        view = pane.query_one(DialogueView)
        assert view.region.area and not pane.query_one("#thoughts").region.area
        cards = list(view.query(TurnCard))
        assert len(cards) == 2
        first, second = (card.render_turn().plain for card in cards)
        # The guide's prompt and its stop flag.
        assert "Try combining the two eights" in first and "go on" in first
        assert "Use every card once" in second and "■ stop" in second
        # The reply, shortened; its uncertainty; its candidate checked exactly; changed.
        assert "…" in first and len(first) < 700
        assert "uncertainty high" in first and "(8 - 3) × 4 + 9 = 29 ✗ it makes 29" in first
        assert "(9 - 3) × (8 - 4) = 24 ✓" in second and "said final" in second
        assert "changed" in first
        # Prompt tokens per turn, growing with the transcript.
        assert "812 prompt tokens" in first and "1,534 prompt tokens" in second
        # Why it stopped.
        assert view.stopped is not None
        assert "Stopped after turn 2" in view.stop_text().plain
        assert "the answer checks out" in view.stop_text().plain
        view.stopped = ev.DialogueStopped(2, "cap", "")  # no reason given: who stopped it
        assert "most turns allowed" in view.stop_text().plain
        assert text(pane.query_one("#solver-status")).startswith(spec.label)
        # A click on a turn puts its prompts and replies in the Details tab.
        await pilot.click(cards[1])
        await pilot.pause()
        log = pane.query_one("#details")
        shown = "".join(strip.text for strip in log.lines)  # type: ignore[attr-defined]
        assert "Use every card once" in shown and "(9 - 3) * (8 - 4) = 24." in shown
        # A tree method afterwards gets its tree back.
        pane.reset("tot", "offline")
        await pilot.pause()
        assert not view.turns and pane.query_one("#thoughts").region.area


# -- a race won while the solver still thinks ----------------------------------------------------


async def test_a_race_won_before_the_solver_finishes_gets_its_outcome_when_it_does(
    tmp_path: Path,
) -> None:
    model = GatedModel()
    app = make_app(Settings(), model=lambda: model, store_path=tmp_path / "r.db", seed=1)
    app.race = True
    async with app.run_test(size=(120, 40)) as pilot:
        screen, pane = await game(pilot, "4 7 8 8")
        await wait_for(pilot, lambda: pane.running)
        await pilot.press("e", *"(7-8/8)*4", "enter")
        message = text(screen.query_one("#message"))
        assert "You won the race" in message and "not yet" in message
        await pilot.pause(0.5)  # time enough for a save to land, were one started
        assert app.store is not None and app.store.recent(1) == []  # held for the solver
        model.gate.set()
        await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
        (row,) = app.store.recent(1)
        assert row.solved and row.race_won is True
        assert row.solver_solved is not None and row.solver_seconds is not None
        message = text(screen.query_one("#message"))
        assert "You won the race" in message and "later" in message and "not yet" not in message


async def test_s_resumes_a_stopped_run_on_its_model_and_capital_s_starts_afresh(
    tmp_path: Path,
    toasts: list[Notice],
) -> None:
    made: list[OfflineModel] = []

    def factory() -> OfflineModel:
        made.append(OfflineModel(delay=0.3))  # seven rounds: over two seconds
        return made[-1]

    app = make_app(Settings(), model=factory, store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        app.method_name = "bot"
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await pilot.pause(0.3)
        await wait_for(pilot, lambda: pane.calls > 0)
        await pilot.press("s")  # stop
        await pilot.pause()
        assert pane.notice == "stopped" and len(made) == 1
        at_stop = pane.calls
        await pilot.press("s")  # resume: the same model, whose cache holds what was answered
        await wait_for(pilot, lambda: pane.running)  # once its first events are shown
        assert len(made) == 1
        assert any("resumes" in str(n.message) for n in toasts)
        # The count goes on from the stopped run's; what it had answered comes from memory.
        await wait_for(pilot, lambda: pane.cached > 0)
        status = str(pane.query_one("#solver-status", Static).render())
        assert pane.calls >= at_stop and f"(+{pane.cached} from cache)" in status
        await pilot.press("S")  # afresh: a new model
        await wait_for(pilot, lambda: len(made) == 2)
        await wait_for(pilot, lambda: pane.running)


async def test_the_method_dialog_offers_only_methods_the_puzzle_can_take(tmp_path: Path) -> None:
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        app.method_name = "react"  # a word-problem method: the Game of 24 has no tools
        screen = Game24Screen(Hand.parse("4 7 8 8"), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        offered = {s.name for s in dialog.specs}
        assert {"bot", "tot", "aiot", "io"} <= offered
        assert not offered & {"react", "deli", "tot-dfs"}
        assert dialog.method in offered  # the one asked for is not offered: the first is
