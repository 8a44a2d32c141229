"""Playing math word problems, with a reasoning method solving the same problem beside you.

The solver side (its worker, race mode, the method dialog, replays, results) is the
:class:`~tui.screens.puzzle.PuzzleScreen`'s; this screen is the problem: its text, the answer
box (which reads what people type: ``18``, ``$18``, ``1,800``, ``3/4``, ``0.75 kg``), a
scratchpad whose every line is checked exactly through :mod:`puzzles.arith`, progressive
hints from the worked solution, and giving up.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import var
from textual.widgets import Input, Static

from puzzles.arith import (
    MAX_LENGTH,
    ArithError,
    Claim,
    ClaimStatus,
    extract_claims,
    format_decimal,
    format_number,
    parse,
    verify_claim,
)
from puzzles.wordproblem import (
    AlgebraProblem,
    AnswerError,
    Form,
    WordProblem,
    read_answer,
    show_number,
)
from solver.kinds import KINDS as SPECS
from solver.kinds.wordproblem import ALGEBRA
from solver.text import visible
from tui.notation import written
from tui.screens.puzzle import Command, PuzzleScreen, ScreenCommands, clock
from tui.widgets.tones import Tone, tone
from tui.widgets.typing_box import TypingBox

if TYPE_CHECKING:
    pass

__all__ = [
    "ALGEBRA",
    "MAX_SCRATCH_LINES",
    "ScratchLine",
    "WordProblemCommands",
    "WordProblemScreen",
    "check_line",
    "hints",
    "question_of",
]

MAX_SCRATCH_LINES = 200
"""Scratchpad lines kept; the oldest go first."""
_TITLE_CHARS = 20
"""A problem's text as the history lists it, at most (its question, shortened)."""

Problem = WordProblem | AlgebraProblem
"""What the screen plays: a word problem, or an algebra problem."""


def question_of(problem: Problem) -> str:
    """The problem's text as the player reads it."""
    return problem.prompt if isinstance(problem, AlgebraProblem) else problem.question


def _algebra(topic: str | None) -> bool:
    from puzzles.wordproblem import ALGEBRA_KINDS

    return topic == ALGEBRA or topic in ALGEBRA_KINDS


# ------------------------------------------------------------------ the scratchpad


@dataclass(frozen=True, slots=True)
class ScratchLine:
    """One line of the scratchpad as checked: its mark (``✓``, ``≈``, ``✗``, or ``=`` for a
    plain expression, which claims nothing) and what is shown after the mark."""

    mark: str
    text: str

    @property
    def tone(self) -> Tone | None:
        """What the mark means, coloured by the theme: right, close, wrong or unreadable."""
        marks = {"✓": Tone.RIGHT, "≈": Tone.WARNING, "✗": Tone.WRONG, "?": Tone.SECOND}
        return marks.get(self.mark)

    def render(self, app: App[Any] | None = None) -> Text:
        """The line, its mark in the colour ``app``'s theme gives its meaning."""
        meaning = self.tone
        style = "bold" if meaning is None else tone(app, meaning, "bold")
        return Text.assemble((self.mark, style), " ", self.text)


def _claim_line(claim: Claim) -> ScratchLine:
    shown = f"{written(claim.lhs)} {claim.equals} {claim.rhs}"
    exact = claim.exact
    match claim.status:
        case ClaimStatus.EXACT:
            return ScratchLine("✓", shown)
        case ClaimStatus.APPROX if exact is not None:
            return ScratchLine("≈", f"{shown}  (exactly {format_number(exact)})")
        case ClaimStatus.WRONG if exact is not None:
            return ScratchLine("✗", f"{shown}  (it is {_value(exact)})")
        case _:  # unreadable is no verdict: "?", never ✗
            return ScratchLine("?", f"{shown}  ({claim.reason or 'cannot be read'})")


def _value(value: Any) -> str:
    """``9``, ``86.5``, or ``8/3 ≈ 2.6667`` for a value a short decimal cannot write."""
    shown = show_number(value)
    return f"{shown} ≈ {format_decimal(value)}" if "/" in shown else shown


def check_line(text: str) -> list[ScratchLine]:
    """A scratchpad line checked exactly: each claim in it (``16 - 3 - 4 = 9``, prose around
    it allowed) marked ✓, ≈ with the exact value, ✗ with the right value, or ? with why it
    cannot be read; a line without ``=`` is an expression, shown with its value. Never
    raises; empty text gives nothing."""
    line = text.strip()
    if not line:
        return []
    if len(line) > MAX_LENGTH:
        return [ScratchLine("?", f"the line is too long (at most {MAX_LENGTH} characters)")]
    claims = extract_claims(line)  # 7 * 1 1/4 = 8.75, 11 / 3 ≈ 3.67, prose around them
    if claims:
        return [_claim_line(c) for c in claims]
    if any(sign in line for sign in "=≈"):
        try:
            return [_claim_line(verify_claim(line))]
        except ArithError as exc:
            return [ScratchLine("?", f"{visible(line)}  ({exc.message})")]
    try:
        value = parse(line).value
    except ArithError as exc:
        return [ScratchLine("?", f"{visible(line)}  ({exc.message})")]
    return [ScratchLine("=", f"{written(line)} = {_value(value)}")]


# ------------------------------------------------------------------ hints


def hints(problem: Problem) -> list[tuple[str, str]]:
    """The hints a worked solution gives, in order, as (title, text): the quantity to find
    first, then the first step, then the whole solution. Empty without a worked solution
    (algebra problems have none)."""
    if isinstance(problem, AlgebraProblem):
        return []
    solution = problem.solution
    if solution is None or not solution.steps:
        return []
    first = solution.steps[0].prose.strip()
    claims = extract_claims(first)
    if claims:
        start, end = claims[0].span
        goal = f"{first[:start].rstrip()} ? {first[end:].lstrip()}".strip()
    else:
        goal = first
    return [
        ("Find first", written(goal)),
        ("First step", written(first)),
        ("Worked solution", "\n".join(written(s.prose.strip()) for s in solution.steps)),
    ]


# ------------------------------------------------------------------ the screen


class WordProblemCommands(ScreenCommands):
    """The word problem's own commands in the palette."""

    def commands(self) -> Iterator[Command]:
        screen = self.screen
        if not isinstance(screen, WordProblemScreen):
            return
        yield ("Answer", "a: type your answer", screen.action_answer)
        yield ("Scratchpad", "w: work a step out, checked exactly", screen.action_scratchpad)
        yield ("Hint", "What to find first, then the first step, then all", screen.action_hint)
        yield ("Give up", "Show the answer and the worked solution", screen.action_give_up)
        yield ("Next topic", "t: a new problem on the next topic", screen.action_topic)


class WordProblemScreen(PuzzleScreen):
    """A word problem, its answer box and scratchpad on the left; the solver on the right."""

    KIND = "wordproblem"
    NOUN = "problem"
    LEVELS = SPECS[KIND].levels
    COMMANDS = PuzzleScreen.COMMANDS | {WordProblemCommands}
    GIVE_UP_SHOWS = "the answer and the worked solution"
    PLAY_ACTIONS = PuzzleScreen.PLAY_ACTIONS | {"answer", "hint"}

    BINDINGS = [
        Binding("a", "answer", "Answer", id="wordproblem.answer"),
        Binding("w", "scratchpad", "Scratch", id="wordproblem.scratchpad"),
        Binding("h", "hint", "Hint", id="wordproblem.hint"),
        Binding("g", "give_up", "Give up", id="wordproblem.give_up"),
        Binding("t", "topic", "Topic", id="wordproblem.topic"),
        Binding("p", "pause", "Pause", show=False, id="wordproblem.pause"),
        # The work and the hints (a worked solution is longer than 80x24 leaves them) scroll
        # under the question: by the keys too, not only by the mouse.
        Binding(
            "up", "scroll_body(-1)", "Scroll the work and hints", show=False, id="wordproblem.up"
        ),
        Binding(
            "down", "scroll_body(1)", "Scroll the work and hints", show=False, id="wordproblem.down"
        ),
        Binding(
            "pageup",
            "scroll_body(-5)",
            "Scroll the work and hints",
            show=False,
            id="wordproblem.pageup",
        ),
        Binding(
            "pagedown",
            "scroll_body(5)",
            "Scroll the work and hints",
            show=False,
            id="wordproblem.pagedown",
        ),
    ]

    FOCUS_KEYS: ClassVar[dict[str, str]] = {"a": "#answer", "w": "#scratch"}

    scratch: var[tuple[ScratchLine, ...]] = var((), init=False)
    """The scratchpad's lines, each checked (the last :data:`MAX_SCRATCH_LINES`); a new
    tuple with each line kept, and the pad is drawn again."""
    shown_hints: var[tuple[tuple[str, str], ...]] = var((), init=False)
    """The hints shown so far (title, text), drawn under the pad."""
    """Keys that put the typing into a box (handled as keys come, see :meth:`on_key`)."""

    def __init__(
        self,
        problem: Problem,
        level: str | None = None,
        *,
        topic: str | None = None,
        replay: Any = None,
    ) -> None:
        super().__init__(problem, level, replay=replay)
        self.problem = problem
        self.topic = topic
        """The topic asked for (None: any); a new problem (n) keeps it."""
        self.tries = 0
        self.collection: tuple[Sequence[WordProblem], int] | None = None
        """The problems of the file this one came from, and its place there (n: the next)."""

    @classmethod
    def deal(cls, level: str | None, seed: int, topic: str | None = None) -> WordProblemScreen:
        """A new problem of ``topic`` (any word-problem topic when None; ``algebra`` or an
        algebra kind such as ``factor``: the algebra set) at ``level``."""
        from puzzles.wordproblem import generate, generate_algebra

        if _algebra(topic):
            kind = None if topic == ALGEBRA else topic
            algebra = generate_algebra(seed, 1, kind, level)[0]
            return cls(algebra, level or algebra.level, topic=topic)
        problem = generate(seed, 1, topic, level)[0]
        return cls(problem, level or problem.level, topic=topic)

    FILES = SPECS[KIND].files
    """What a file opened from home may hold (home offers a file for kinds that say)."""

    @classmethod
    def load_file(cls, path: str | os.PathLike[str]) -> list[WordProblem]:
        """Every problem of a file; :class:`PuzzleFileError` (a ValueError) says what is
        wrong with a file that cannot be played."""
        from puzzles.wordproblem import PuzzleFileError, load_problems

        found = load_problems(path)
        if not found:
            raise PuzzleFileError(path, "holds no problem")
        return found

    @classmethod
    def file_note(cls, found: Sequence[WordProblem]) -> str | None:
        """What a person should know of a file just opened: stored answers that its own
        worked solutions do not arrive at."""
        from puzzles.wordproblem import answer_doubts

        return answer_doubts(found)

    @classmethod
    def preview(cls, problem: WordProblem) -> str:
        """One line for the list of a file's problems: how its question starts."""
        return " ".join(visible(problem.question).split())[:200]

    @classmethod
    def from_file(cls, found: Sequence[WordProblem], index: int) -> WordProblemScreen:
        """The ``index``-th problem of a file (n goes on to the next)."""
        problem = found[index]
        screen = cls(problem, problem.level or "file")
        screen.collection = (found, index)
        return screen

    @classmethod
    def warm_up(cls) -> None:
        # The word-problem packages import sympy (a second or two): done while home shows.
        import puzzles.wordproblem  # noqa: F401
        import solver.domains.wordproblem  # noqa: F401

    # ---------------------------------------------------------------- layout

    def compose_puzzle(self) -> ComposeResult:
        # The question stays in sight; the checked lines and hints scroll under it.
        with VerticalScroll(id="wp-question"):
            yield Static(id="question")
        with VerticalScroll(id="wp-body"):
            yield Static(id="scratch-lines")
            yield Static(id="hints")
        with Horizontal(classes="wp-box"):
            yield Static("work", classes="wp-label")
            yield TypingBox(placeholder="16 - 3 - 4 = 9 (w)", id="scratch")
        yield Static(id="scratch-preview")
        with Horizontal(classes="wp-box"):
            yield Static("answer", classes="wp-label")
            yield TypingBox(placeholder=self.answer_example(), id="answer")

    def answer_example(self) -> str:
        """The answer box's placeholder: what an answer to this problem looks like."""
        problem = self.problem
        if not isinstance(problem, AlgebraProblem):
            return "e.g. 18 (a)"
        if problem.form is Form.VALUES:
            names = problem.variables
            return "e.g. " + ", ".join(f"{n} = {i + 2}" for i, n in enumerate(names)) + " (a)"
        if problem.form is Form.EXPRESSION:
            return "e.g. 2(x + 3) or x^2 - 1 (a)"
        return "e.g. 7/4 (a)"

    def start_puzzle(self) -> None:
        self.query_one("#question", Static).update(Text(visible(question_of(self.problem))))
        self.watch_scratch()  # both empty and hidden until there is something to show
        self.watch_shown_hints()
        keys = "a: answer · w: work it out, each line checked · h: hint"
        doubt = getattr(self.problem, "answer_doubt", lambda: None)()
        if doubt:  # the file's answer, not its worked solution's, is what answers meet
            warning = f"The file's answer is in doubt: {doubt}. Yours is judged against it.\n"
            self.say(Text.assemble((warning, tone(self, Tone.WARNING)), keys))
        else:
            self.say(keys)

    # ---------------------------------------------------------------- what the base asks

    @property
    def puzzle_text(self) -> str:
        question = " ".join(visible(question_of(self.problem)).split())
        if len(question) <= _TITLE_CHARS:
            return question
        return question[: _TITLE_CHARS - 1].rstrip() + "…"

    def title_text(self) -> Text:
        # The kind is in the header; the title keeps to one line in a narrow column.
        problem = self.problem
        topic = (
            f"algebra: {problem.kind}"
            if isinstance(problem, AlgebraProblem)
            else problem.topic or self.topic or "problem"
        )
        if self.collection is not None:
            found, index = self.collection
            topic = f"{index + 1} of {len(found)} · {topic}"
        labels = [topic, self.level or ""]
        shown = " · ".join(label for label in labels if label)
        hints_used = f" · hints {self.hints_used}" if self.hints_used else ""
        return Text.assemble(
            (shown[:1].upper() + shown[1:], "bold"),
            " · ",
            (f"⏱ {clock(self.elapsed())}", "bold"),
            hints_used,
        )

    def begun(self) -> bool:
        return bool(self.scratch or self.tries or self.hints_used)

    def answer_text(self, answer: str) -> str:
        """An answer as the problem's unit reads it (``18 dollars``), else as given."""
        if isinstance(self.problem, AlgebraProblem):
            return answer
        try:
            value = read_answer(answer)
        except AnswerError:
            return answer
        unit = f" {self.problem.unit}" if self.problem.unit else ""
        return f"{value}{unit}" if value.percent else f"{show_number(value.value)}{unit}"

    def won_text(self, answer: str) -> Text:
        hints_used = (
            f" with {self.hints_used} hint{'s' * (self.hints_used != 1)}"
            if self.hints_used
            else " without hints"
        )
        shown = " (the solution was shown: no streak or best time)" * self.solution_shown
        return Text.assemble(
            ("★ Solved! ", tone(self, Tone.RIGHT, "bold")),
            f"{visible(self.answer_text(answer))} is right,\n",
            f"in {clock(self.elapsed())}{hints_used}{shown}. {self.next_hint}",
        )

    @property
    def next_hint(self) -> str:
        """What n does now: the file's next problem, or a new one."""
        if self.collection is not None:
            return "Press n for the file's next problem."
        return "Press n for a new problem."

    def gave_up_text(self) -> str:
        problem = self.problem
        if isinstance(problem, AlgebraProblem):
            return f"You gave up: the answer is {problem.answer_text}. {self.next_hint}"
        unit = f" {problem.unit}" if problem.unit else ""
        return (
            f"You gave up: the answer is {problem.answer_text}{unit} "
            f"(the worked solution is above: ↑ ↓ scroll it). {self.next_hint}"
        )

    # ---------------------------------------------------------------- the player's work

    def watch_scratch(self) -> None:
        lines = Text()
        if self.scratch:
            lines.append("Scratchpad\n", style="bold")
            for i, line in enumerate(self.scratch):
                lines.append_text(line.render(self.app))
                if i < len(self.scratch) - 1:
                    lines.append("\n")
        self.query_one("#scratch-lines", Static).update(lines)
        self.query_one("#scratch-lines").display = bool(self.scratch)

    def watch_shown_hints(self) -> None:
        shown = Text()
        for i, (title, text) in enumerate(self.shown_hints):
            if i:
                shown.append("\n")
            # A hint of several lines (the worked solution) starts under its title.
            shown.append(f"{title}:" + ("\n" if "\n" in text else " "), style="bold")
            shown.append(text)
        self.query_one("#hints", Static).update(shown)
        self.query_one("#hints").display = bool(self.shown_hints)

    @on(Input.Changed, "#scratch")
    def scratch_changed(self, event: Input.Changed) -> None:
        # The line is checked as it is typed; enter keeps it on the pad.
        preview = Text()
        for i, line in enumerate(check_line(event.value)):
            if i:
                preview.append("   ")
            preview.append_text(line.render(self.app))
        preview.stylize("dim")
        self.query_one("#scratch-preview", Static).update(preview)

    @on(Input.Submitted, "#scratch")
    def scratch_submitted(self, event: Input.Submitted) -> None:
        checked = check_line(event.value)
        if not checked:
            return
        self.scratch = (*self.scratch, *checked)[-MAX_SCRATCH_LINES:]
        event.input.value = ""
        self.query_one("#wp-body", VerticalScroll).scroll_end(animate=False)

    @on(Input.Submitted, "#answer")
    def answer_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.refuse_when_over():
            return
        verdict = self.problem.check(text)
        if verdict.ok:
            self.finish(True, verdict.given or text)
            return
        if not verdict.readable:
            self.say(f"Cannot read that: {verdict.reason}.", tone(self, Tone.WARNING))
            return
        self.tries += 1
        self.say(f"Not yet: {visible(verdict.reason)}.", tone(self, Tone.WRONG))

    def action_answer(self) -> None:
        if not self.refuse_when_over():
            # Focus now, not on the next message: keys typed straight after are queued.
            self.set_focus(self.query_one("#answer", Input))

    def action_scratchpad(self) -> None:
        self.set_focus(self.query_one("#scratch", Input))

    def help_rows(self, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
        # One row for the four keys that scroll the work and the hints.
        scroll = "Scroll the work and hints"
        keys = [key for key, said in rows if said == scroll]
        if not keys:
            return rows
        kept = [row for row in rows if row[1] != scroll]
        at = next((i for i, row in enumerate(rows) if row[1] == scroll), len(kept))
        return [*kept[:at], (" ".join(keys), scroll), *kept[at:]]

    def leave_typing(self) -> None:
        # The problem is over: its answer box no longer offers a (the footer does not).
        super().leave_typing()
        self.query_one("#answer", Input).placeholder = ""

    def action_scroll_body(self, rows: int) -> None:
        """Scroll the work and the hints under the question by ``rows``."""
        body = self.query_one("#wp-body", VerticalScroll)
        body.scroll_relative(y=rows, animate=False)

    def on_key(self, event: events.Key) -> None:
        focused = self.focused
        boxes = [self.query_one("#answer", Input), self.query_one("#scratch", Input)]
        if event.key == "escape" and focused in boxes:
            # Escape from a box gives the keys back to the screen (a second one leaves).
            self.set_focus(None)
            event.stop()
        elif event.key in self.FOCUS_KEYS and focused is None:
            # Here, in the order keys come, rather than as a binding (bindings run when the
            # key reaches the app, after the keys typed next were already routed).
            event.stop()
            event.prevent_default()
            if event.key == "a":
                self.action_answer()
            else:
                self.action_scratchpad()
        elif event.is_printable and isinstance(focused, Input) and focused in boxes:
            # Typed after a or w but routed before the box took focus: the box's.
            event.stop()
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))

    # ---------------------------------------------------------------- hints, giving up

    def action_hint(self) -> None:
        if self.refuse_when_over():
            return
        steps = hints(self.problem)
        if not steps:
            self.say(
                "This problem has no worked solution to give hints from.",
                tone(self, Tone.WARNING),
            )
            return
        if self.hints_used < len(steps):
            self.hints_used += 1
            self.shown_hints = tuple(steps[: self.hints_used])
        if self.hints_used >= len(steps):
            self.solution_shown = True
        title = steps[self.hints_used - 1][0]
        more = "" if self.hints_used >= len(steps) else " (h again for more)"
        self.say(Text.assemble((f"Hint {self.hints_used}: ", "bold"), title.lower(), more))
        self.query_one("#wp-body", VerticalScroll).scroll_end(animate=False)

    def give_up_now(self) -> None:
        if self.over:
            self.refuse_when_over()
            return
        steps = hints(self.problem)
        if steps:
            self.shown_hints = (steps[-1],)
        self.set_focus(None)
        self.give_up()
        self.query_one("#wp-body", VerticalScroll).scroll_end(animate=False)

    def action_topic(self) -> None:
        """A new problem on the next topic (after algebra, any topic again)."""
        from puzzles.wordproblem import TOPICS

        order: list[str | None] = [None, *TOPICS, ALGEBRA]
        at = order.index(self.topic) if self.topic in order else 0
        self.ask_before_new(partial(self.open_next, order[(at + 1) % len(order)]))

    def deal_new(self) -> None:
        if self.collection is not None:
            found, index = self.collection
            self.release_result()
            self.app.switch_screen(self.from_file(found, (index + 1) % len(found)))
            return
        self.open_next(self.topic)

    def open_next(self, topic: str | None) -> None:
        """Swap this problem for a new one of ``topic`` at the same level."""
        self.release_result()
        level = self.level if self.level in self.LEVELS else None
        if self.collection is not None and not _algebra(topic):
            level = None  # a file's levels need not be the generator's
        # The next seed follows from this problem: a session started from a seed plays the
        # same problems again.
        seed = random.Random(f"{self.problem.id}:{topic}").randrange(1 << 30)
        self.app.switch_screen(self.deal(level, seed, topic))
