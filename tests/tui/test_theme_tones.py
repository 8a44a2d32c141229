"""Colours follow the app's theme: a ✓ is the theme's success colour and a ✗ its error colour,
in whatever theme is chosen (ctrl+p, Theme); after a switch new lines take the new theme's
colours, and the thought tree's marks are redrawn in them."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import RichLog, Tree

from solver import events as ev
from tui.widgets.dialogue import Turn, TurnCard
from tui.widgets.solver_pane import SolverPane
from tui.widgets.tones import Tone, colour


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SolverPane()


def theme_colour(app: App[None], variable: str) -> str:
    return Color.parse(app.theme_variables[variable]).hex.upper()


def style_colour(style: Style | str | None) -> str:
    assert isinstance(style, Style) and style.color is not None
    triplet = style.color.get_truecolor()
    return Color(*triplet).hex.upper()


def mark_colours(log: RichLog) -> list[tuple[str, str]]:
    """Each written line's first mark (✓ or ✗) and its colour."""
    found = []
    for strip in log.lines:
        for segment in strip:
            if segment.text.strip() in ("✓", "✗"):
                found.append((segment.text.strip(), style_colour(segment.style)))
                break
    return found


def tree_mark(tree: Tree[str]) -> str:
    """The colour of the ✗ that marks a thought with a wrong step."""
    nodes = [tree.root]
    while nodes:
        node = nodes.pop()
        nodes.extend(node.children)
        label = node.label
        if not isinstance(label, Text):
            continue
        for span in label.spans:
            if label.plain[span.start : span.end].strip() == "✗":
                return style_colour(Style.parse(str(span.style)))
    raise AssertionError("no thought is marked ✗")


async def test_marks_take_the_running_themes_colours() -> None:
    app = PaneApp()
    async with app.run_test() as pilot:
        app.theme = "textual-dark"
        await pilot.pause()
        pane = app.query_one(SolverPane)
        pane.apply(
            [
                ev.ThoughtAdded("t1", "n1", None, "2 * 3 = 7"),
                ev.ClaimVerified("n1", "2 * 3", "6", "6", "exact", True),
                ev.ClaimVerified("n1", "2 * 3", "7", "6", "wrong", False),
            ]
        )
        await pilot.pause()
        log = pane.query_one("#arith", RichLog)
        dark_right, dark_wrong = theme_colour(app, "text-success"), theme_colour(app, "text-error")
        assert mark_colours(log) == [("✓", dark_right), ("✗", dark_wrong)]
        tree = pane.query_one("#thoughts", Tree)
        assert tree_mark(tree) == dark_wrong

        app.theme = "nord"
        await pilot.pause()
        nord_right, nord_wrong = theme_colour(app, "text-success"), theme_colour(app, "text-error")
        assert (nord_right, nord_wrong) != (dark_right, dark_wrong)
        pane.apply(
            [
                ev.ClaimVerified(None, "3 * 4", "12", "12", "exact", True),
                ev.ClaimVerified(None, "3 * 4", "13", "12", "wrong", False),
            ]
        )
        await pilot.pause()
        assert mark_colours(log)[2:] == [("✓", nord_right), ("✗", nord_wrong)]
        assert tree_mark(tree) == nord_wrong  # redrawn on the switch


def test_without_an_app_a_tone_is_its_old_named_colour() -> None:
    assert colour(None, Tone.RIGHT) == "green"
    assert colour(None, Tone.WRONG) == "red"
    assert colour(None, Tone.WARNING) == "yellow"


class CardApp(App[None]):
    def compose(self) -> ComposeResult:
        answered = ev.TurnAnswered(1, "4 * 6", "24", True, "", True, "", True, 100, 1)
        yield TurnCard(Turn(1, 3, "Multiply.", answered=answered), str)


def card_tick_colour(card: TurnCard) -> str:
    shown = card.content
    assert isinstance(shown, Text)
    for span in shown.spans:
        if shown.plain[span.start : span.end].strip() == "✓":
            return style_colour(Style.parse(str(span.style)))
    raise AssertionError(f"no ✓ in {shown.plain!r}")


async def test_a_turn_card_shown_is_redrawn_in_a_new_themes_colours() -> None:
    app = CardApp()
    async with app.run_test() as pilot:
        app.theme = "textual-dark"
        await pilot.pause()
        card = app.query_one(TurnCard)
        dark = theme_colour(app, "text-success")
        assert card_tick_colour(card) == dark
        app.theme = "gruvbox"
        await pilot.pause()
        assert theme_colour(app, "text-success") != dark
        assert card_tick_colour(card) == theme_colour(app, "text-success")
