"""What a newcomer meets on the solver's side and in the app's chrome (issue 12): the solver's
answer in plain words, the legend of its marks, ★ and ✗ in the tree, × and ÷, tree keys, the
help, the palette, the settings screen and the footer at 80x24."""

from __future__ import annotations

import io

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, RichLog, Static

from puzzles.game24 import Hand
from solver import events as ev
from tests.tui.harness import wait_for
from tui.app import PonderApp
from tui.notation import written
from tui.screens.dialogs import LegendScreen, MethodDialog
from tui.screens.game24 import Game24Screen
from tui.screens.settings import SettingsScreen
from tui.widgets.footer import KeyHints
from tui.widgets.solver_pane import SolverPane, ThoughtTree


async def game(pilot: Pilot[None], hand: str = "3 4 8 9") -> tuple[Game24Screen, SolverPane]:
    screen = Game24Screen(Hand.parse(hand), "easy")
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen, screen.query_one(SolverPane)


def status(pane: SolverPane) -> str:
    return str(pane.query_one("#solver-status", Static).render())


def finished(answer: str | None, solved: bool, votes: int = 0) -> ev.RunFinished:
    return ev.RunFinished(answer, solved, "", 1, 1, 1, 0.0, 0.1, "done", 1, votes)


def test_notation_uses_times_and_divide_and_brackets_fractions() -> None:
    assert written("(9 - 3) * (8 - 4)") == "(9 - 3) × (8 - 4)"
    assert written("8 / (3 - 8/3)") == "8 ÷ (3 - (8/3))"
    assert written("4 * 8/3 = 32/3 (left: 32/3 7)") == "4 × (8/3) = 32/3 (left: 32/3 7)"


async def test_the_pane_states_the_answer_and_cot_sc_its_votes(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        _, pane = await game(pilot, "3 4 8 9")
        pane.show_answer()  # as v shows it mid-game (hidden until asked)
        pane.reset("bot", "offline")
        pane.apply([finished("(9 - 3) * (8 - 4) = 24", True)])
        assert "answer: (9 - 3) × (8 - 4) = 24 ✓" in status(pane)
        pane.reset("cot-sc", "offline")
        started = ev.RunStarted("cot-sc", "3 4 8 9", "game24", "offline", {"samples": 5})
        pane.apply([started, finished("(9 - 3) * (8 - 4)", True, votes=4)])
        assert "answer: (9 - 3) × (8 - 4) = 24 ✓" in status(pane)
        assert "majority: 4 of 5 samples" in status(pane)
        pane.reset("io", "offline")
        pane.apply([finished("9 * 3 - 4 + 8", False)])
        assert "answer: 9 × 3 - 4 + 8 = 31 ✗" in status(pane)


def tree_labels(pane: SolverPane) -> dict[str, str]:
    """Each thought's label in the pane's tree, by its node id (the tree node's data)."""
    labels: dict[str, str] = {}
    nodes = [pane.query_one(ThoughtTree).root]
    while nodes:
        node = nodes.pop()
        nodes.extend(node.children)
        if node.data is not None:
            labels[str(node.data)] = str(node.label)
    return labels


async def test_tree_marks_every_leaf_reaching_24_and_wrong_arithmetic(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        _, pane = await game(pilot, "3 4 8 9")
        pane.show_answer()  # as v shows it (the way to 24 is hidden until asked)
        pane.reset("tot", "offline")
        pane.apply(
            [
                ev.ThoughtAdded("tot", "a", None, "9 - 3 = 6 (left: 4 6 8)", 1, "4 6 8"),
                ev.ThoughtAdded("tot", "b", "a", "8 - 4 = 4 (left: 4 6)", 2, "4 6"),
                ev.ThoughtAdded("tot", "c", "b", "6 * 4 = 24 (left: 24)", 3, "24"),
                ev.ThoughtScored("c", 0.9),
                ev.LeafReached("c", "done"),
                ev.ThoughtAdded("tot", "d", "b", "6 / 4 = 2 (left: 2)", 3, "2"),
                ev.ClaimVerified("d", "6 / 4", "2", "3/2", "wrong", False),
                # Reached 24, but stop-early cut its scoring: still a star.
                ev.ThoughtAdded("tot", "e", "a", "6 * 4 = 24 (left: 24)", 2, "24"),
            ]
        )
        labels = tree_labels(pane)
        assert labels["c"].startswith("★ ") and "0.9" in labels["c"] and "×" in labels["c"]
        assert labels["e"].startswith("★ ")
        assert labels["d"].startswith("✗ ") and "÷" in labels["d"]
        assert "★" not in labels["a"] and "✗" not in labels["a"]


async def test_details_wrap_long_lines(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        _, pane = await game(pilot)
        pane.reset("tot", "offline")
        long = "a long reasoning line " * 8 + "ends at 4, not 24"
        pane.apply([ev.ThoughtAdded("tot", "a", None, long, 1, "4 6 8")])
        pane.show_details("a")
        await pilot.pause()
        log = pane.query_one("#details", RichLog)
        shown = "".join(strip.text for strip in log.lines)
        assert "not 24" in shown.replace("\n", "")
        assert all(strip.cell_length <= log.size.width for strip in log.lines)


async def test_tree_cursor_shows_and_enter_selects_without_folding(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        _, pane = await game(pilot)
        pane.reset("tot", "offline")
        pane.apply(
            [
                ev.ThoughtAdded("tot", "a", None, "9 - 3 = 6 (left: 4 6 8)", 1, "4 6 8"),
                ev.ThoughtAdded("tot", "b", "a", "8 - 4 = 4 (left: 4 6)", 2, "4 6"),
            ]
        )
        await pilot.pause()
        tree = pane.query_one(ThoughtTree)
        tree.focus()
        await pilot.pause()
        assert tree.cursor_line == 0  # visible at once
        group = tree.cursor_node
        assert group is not None and group.is_expanded
        await pilot.press("down")
        node = tree.cursor_node
        assert node is not None and node.data == "a" and node.is_expanded
        await pilot.press("enter")
        await pilot.pause()
        assert node.is_expanded  # Enter selected it, and did not fold it
        assert "9 - 3" in "".join(s.text for s in pane.query_one("#details", RichLog).lines)
        await pilot.press("space")
        assert not node.is_expanded  # space folds


async def test_legend_key_and_help_explain_the_pane(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = str(app.screen.query_one("#help-keys", Static).render())
        assert "Legend" in text and "enter shows a thought" in text and "switch" in text
        await pilot.press("escape", "l")
        await pilot.pause()
        assert isinstance(app.screen, LegendScreen)
        legend = _plain(app.screen.query_one("#legend", Static), 60)
        for term in (
            "edge score",
            "node score",
            "layer-wise",
            "leaf-wise",
            "T, top_p",
            "sure",
            "likely",
            "impossible",
            "✓ ≈ ✗",
            "iteration",
        ):
            assert term in legend, term
        assert "[edge 0.6]" in legend and "[0.8]" in legend  # examples kept, not read as markup
        # A meaning too long for one line hangs under the meanings, not under the terms.
        lines = legend.splitlines()
        first = next(i for i, line in enumerate(lines) if "iteration  BoT: trees grow" in line)
        column = lines[first].index("BoT: trees grow")
        follow = lines[first + 1]
        assert follow[:column].strip() == "" and follow[column : column + 1].strip()


def _plain(static: Static, width: int) -> str:
    """What a Static shows, as plain text at ``width`` columns."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(static.content)
    return console.export_text()


async def test_method_dialog_describes_each_method_and_fits_80x24(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await game(pilot)
        await pilot.press("m")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MethodDialog)
        note = str(dialog.query_one("#method-note", Static).render())
        assert "best chain" in note  # BoT's line
        screen_region = dialog.region
        for selector in (".dialog-title", "#use", "#cancel"):
            widget = dialog.query_one(selector)
            assert screen_region.contains_region(widget.region), selector
            assert widget.region.height > 0


async def test_help_on_home_lists_ponders_keys_first(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        rows = [
            line.split() for line in str(app.screen.query_one("#help-keys").render()).splitlines()
        ]
        keys = [r[0] for r in rows if r]
        assert keys[0] in ("enter", "⏎")  # Play, not a scroll key


async def test_help_on_the_game_screen_scrolls_rather_than_being_cut(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        scroll = app.screen.query_one("#help-scroll")
        assert app.screen.region.contains_region(scroll.region)
        assert scroll.max_scroll_y > 0  # the rest is reached by scrolling, not cut


async def test_palette_lists_keys_once(app: PonderApp) -> None:
    async with app.run_test(size=(120, 40)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles.count("Keys") == 1


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_footer_keeps_home_and_keys_in_sight(app: PonderApp, size: tuple[int, int]) -> None:
    async with app.run_test(size=size) as pilot:
        await game(pilot)
        await pilot.pause()
        footer = app.screen.query_one(KeyHints)
        width = app.screen.size.width
        for description in ("Home", "Keys", "Quit"):
            region = footer.region_of(description)
            assert region is not None and region.width > 0 and region.right <= width, description


async def test_settings_say_nothing_saved_and_enter_saves(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        every = " ".join(str(s.render()) for s in screen.query(Static))
        assert "Saved to" not in every
        assert isinstance(screen.focused, Input)
        screen.query_one("#model", Input).value = "llama3.1"
        await pilot.press("enter")
        await pilot.pause()
        message = str(screen.query_one("#settings-message", Static).render())
        assert message.startswith("Saved model")
        every = " ".join(str(s.render()) for s in screen.query(Static))
        assert every.count("config.toml") == 1  # the path once, not twice


async def test_details_name_a_thoughts_state_as_its_kind_does(app: PonderApp) -> None:
    """A crossword thought's state is its board, not 'numbers left' (the Game of 24's)."""
    from puzzles.crossword import generate
    from tui.screens.crossword import CrosswordScreen

    async with app.run_test(size=(120, 40)) as pilot:
        screen = CrosswordScreen(generate(3), "open")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        pane.reset("tot", "offline")
        pane.apply([ev.ThoughtAdded("tot", "a", None, "1A. AGENT", 1, "AGENT/_____")])
        pane.show_details("a")
        details = pane.query_one("#details", RichLog)
        # A RichLog writes once it knows its width: wait for the lines, not for one pause.
        await wait_for(pilot, lambda: details.lines)
        shown = "".join(strip.text for strip in details.lines)
        assert "board: AGENT/_____" in shown and "numbers left" not in shown


async def test_a_new_screens_footer_fits_from_its_first_frame() -> None:
    """Issue 30 #18: after `n` at 80x24 the footer showed Textual's one cut row (every key
    side by side) until the frame after; every frame the footer draws holds every key."""
    drawn: list[list[str]] = []

    class Hints(KeyHints):
        def render(self) -> Text:
            text = super().render()
            drawn.append(text.plain.splitlines())
            return text

    class Busy(Screen[None]):
        BINDINGS = [Binding(k, f"app.notify('{k}')", f"Action {k}") for k in "abcdefghijkl"]

        def compose(self) -> ComposeResult:
            yield Hints()

    class Tiny(App[None]):
        def on_mount(self) -> None:
            self.push_screen(Busy())

    async with Tiny().run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert drawn
        for lines in drawn:
            assert all(len(line) <= 80 for line in lines), lines
            every = " ".join(lines)
            assert all(f" {k} Action {k} " in f" {every} " for k in "abcdefghijkl"), lines


async def test_a_click_on_a_footer_key_presses_it() -> None:
    """The footer draws its keys as text; a click on one still acts as its key, and a click
    on a key the screen has switched off only rings the bell."""
    pressed: list[str] = []

    class Keys(Screen[None]):
        BINDINGS = [
            Binding("a", "note('a')", "Alpha"),
            Binding("b", "note('b')", "Bravo"),
            Binding("c", "note('c')", "Charlie"),
        ]

        def compose(self) -> ComposeResult:
            yield KeyHints()

        def action_note(self, key: str) -> None:
            pressed.append(key)

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return None if parameters == ("c",) else True  # shown, but switched off

    class Tiny(App[None]):
        def on_mount(self) -> None:
            self.push_screen(Keys())

    async with Tiny().run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = pilot.app.screen.query_one(KeyHints)
        for description in ("Bravo", "Charlie", "Alpha"):
            region = footer.region_of(description)
            assert region is not None, description
            await pilot.click(offset=(region.x + 1, region.y))
            await pilot.pause()
        assert pressed == ["b", "a"]
