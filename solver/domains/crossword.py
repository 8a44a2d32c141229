"""Mini crossword domain adapter: prompts for every role, tolerant parsers, exact word checks.

A state is a :class:`Fill`: the board and the words written so far, in order. A step fills one
word (``h2. MOTOR``); every step is checked exactly against the board it was taken from — its
length, its clue, and every crossing letter already written — and reported as a
:class:`WordCheck` (✓ fits / ✗ conflicts, naming the crossing clue and its letter). The answer
of a run is the whole board, written as rows joined by ``/`` (``AGEND/MOTOR/...``, ``_`` for an
empty cell, ``#`` for a block); :meth:`CrosswordDomain.check` scores it with Tree of Thoughts'
three measures (letters, words, game) against the solution, which no prompt ever shows.

Prompts are our own wording of what the papers describe: ToT's propose (candidate words with
confidence levels) and its per-clue value prompt (sure / maybe / impossible from the letter
pattern), BoT's one-word step, evaluation and analysis, IoT's guide and answerer, and the IO
and CoT baselines that write the whole grid in one reply. Clues are named as ToT names them
(``h1``..``h5``, ``v1``..``v5``) in grids whose rows and columns hold one entry each, and by
their numbers (``1A``, ``4D``) otherwise. Parsers accept real model output: markdown, bullets,
lower case, grids written with spaces, bars or numbered rows, rows too short or too long.
Nothing here raises on model text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from puzzles.crossword import BLOCK, Board, Crossword, CrosswordError, Grid, Slot
from solver.domains.base import Guidance, Reply, RolesMissing, Tool
from solver.domains.crossword_prompts import PROMPTS, clip_clue
from solver.domains.dialogue import Turn, iot_transcript
from solver.domains.game24 import (
    Feedback,
    parse_feedback,
    parse_guidance,
    parse_score,
)
from solver.domains.reading import read_json_object, reads_the_same, truthy, whole_lines
from solver.events import WordChecked
from solver.kinds import roles
from solver.kinds.crossword import MINI_MAX
from solver.model import Message
from solver.roles import Role

__all__ = [
    "CONFIDENCE_WEIGHTS",
    "MINI_MAX",
    "ROLES",
    "CrosswordDomain",
    "Fill",
    "Score",
    "Turn",
    "WordCheck",
    "WordStep",
    "parse_value",
    "slot_names",
]

ROLES = roles.CROSSWORD
"""The roles mini crosswords have prompts and parsers for."""
VALUE_WEIGHTS = MappingProxyType({"sure": 20.0, "maybe": 1.0, "impossible": 0.001})
"""A clue's value label as a number (ToT's scale), summed over the clues of a state."""
CONFIDENCE_WEIGHTS = MappingProxyType({"certain": 1.0, "high": 0.5, "medium": 0.2, "low": 0.1})
"""ToT's crossword proposal scores, summed over samples."""
_SCAN = 20_000
_MAX_LINE = 400


def slot_names(grid: Grid) -> dict[str, Slot]:
    """Each slot by the name prompts use: ToT's ``h1``/``v1`` when every row and column holds
    one entry, else the printed label (``1A``)."""
    tot = {s.tot_name: s for s in grid.slots}
    if len(tot) == len(grid.slots):
        return tot
    return {s.label: s for s in grid.slots}


# ---------------------------------------------------------------------- states and checks


@dataclass(frozen=True, slots=True)
class Fill:
    """A board and the words written on it, in the order they were written."""

    board: Board
    words: tuple[tuple[str, str], ...] = ()

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(row.replace(".", "_") for row in self.board.letters)

    def text(self) -> str:
        """The board on one line, rows joined by ``/`` (``_`` empty, ``#`` block)."""
        return "/".join(self.rows)


@dataclass(frozen=True, slots=True)
class WordCheck:
    """The exact check of one word against the board it is written on (the crossword's
    counterpart of an arithmetic claim): does it fit its slot and every crossing letter?"""

    name: str
    word: str
    pattern: str  # the slot's letters before the word, ``_`` for empty
    status: str  # fits / conflicts / invalid
    reason: str
    crossing: str = ""  # the crossing clue and its letter where it conflicts (``v3: A``)

    @property
    def ok(self) -> bool:
        return self.status == "fits"

    @property
    def lhs(self) -> str:
        return f"{self.name}. {self.word}"

    @property
    def rhs(self) -> str:
        return self.pattern

    @property
    def exact_text(self) -> str | None:
        return self.pattern

    def as_event(self, node_id: str | None) -> WordChecked:
        """What the run reports (see :meth:`solver.methods.base.RunContext.verified`)."""
        return WordChecked(
            node_id, self.name, self.word, self.pattern, self.ok, self.reason, self.crossing
        )


@dataclass(frozen=True, slots=True)
class WordStep:
    """A word read from a reply, checked exactly against the state it was taken from."""

    text: str  # the model's line, cleaned
    name: str  # the clue as named in prompts (``h2``, ``1A``)
    word: str  # upper case, as read
    claim: WordCheck
    state: Fill | None  # the state after the word; None when it cannot be written
    problem: str = ""
    confidence: str = ""  # certain / high / medium / low, when a proposal says

    @property
    def valid(self) -> bool:
        return self.state is not None and not self.problem


@dataclass(frozen=True, slots=True)
class Score:
    """A board scored against the solution: ToT's three measures."""

    ok: bool
    reason: str
    letter: float = 0.0
    word: float = 0.0

    @property
    def game(self) -> float:
        return 1.0 if self.ok else 0.0


# ---------------------------------------------------------------------- reading replies

# ``__`` is bold only around text of two or more characters (``__ACRES__``); in a row such
# as ``____Y``, ``__ACR`` or ``__G__`` it is two empty squares, and dropping it moved the
# letters after it to the left. (A closing ``__`` dropped from ``ACR__`` is padded back.)
_BOLD_UNDERSCORES = r"(?<![\w/])__(?=[^_\s/][^_/\n]*?[^_\s/]__(?![\w/]))|(?<=[^_\s/])__(?![\w/])"
_MARKDOWN = re.compile(rf"\*\*|{_BOLD_UNDERSCORES}|`+|^\s*[#>]+\s+|^\s*[-*•+]\s+", re.MULTILINE)
_NAME = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s+)?(?:clue\s+)?(?P<name>[hv]\s?\d{1,2}|\d{1,3}\s?-?\s?(?:across|down|a|d)"
    r"|(?:across|down)\s?\d{1,3})(?![a-z0-9])\s*[.:)\-–=]*\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_CONFIDENCE = re.compile(r"\b(certain|high|medium|low)\b", re.IGNORECASE)
_SCORE_TAIL = re.compile(r",?\s*evaluat\w*\s+score.*$", re.IGNORECASE)
_SPACED = re.compile(r"^\s*((?:[A-Za-z][ ,-]){1,30}[A-Za-z])(?![A-Za-z])")
_WORD = re.compile(r"[A-Za-z]+")
_LABELS = re.compile(r"\b(sure|maybe|likely|possible|impossible|certain|unlikely)\b", re.I)


def _read_name(text: str) -> tuple[str, str] | None:
    """(name, rest of the line) for a line that starts with a clue name."""
    m = _NAME.match(text)
    if not m:
        return None
    raw = re.sub(r"[\s\-]", "", m["name"]).lower()
    if raw[0] in "hv":
        name = raw
    else:
        digits = re.sub(r"\D", "", raw)
        name = digits + ("A" if "a" in raw.replace(digits, "")[:1] else "D")
    return name, m["rest"]


def _read_word(rest: str) -> tuple[str, str]:
    """(word, confidence) from what follows a clue name: ``motor (high)``, ``M O T O R``,
    ``Engine: MOTOR``, ``= motor``."""
    conf = ""
    found = _CONFIDENCE.findall(rest)
    if found:
        conf = found[-1].lower()
    rest = _SCORE_TAIL.sub("", rest)
    rest = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", rest)
    for sep in ("->", "→", ":", "="):
        if sep in rest:
            tail = rest.rsplit(sep, 1)[1]
            if _WORD.search(tail):
                rest = tail
                break
    rest = rest.strip().strip("'\"")
    spaced = _SPACED.match(rest)
    if spaced and all(len(t) == 1 for t in re.split(r"[ ,-]", spaced.group(1))):
        return re.sub(r"[^A-Za-z]", "", spaced.group(1)).upper(), conf
    m = _WORD.search(rest)
    return (m.group(0).upper() if m else ""), conf


def _clean(line: str) -> str:
    return _MARKDOWN.sub("", line[:_MAX_LINE]).strip()


def parse_value(text: str) -> str | None:
    """sure / maybe / impossible, read from the last line that has one (``likely`` and
    ``possible`` read as maybe, ``certain`` as sure, ``unlikely`` as impossible)."""
    if not isinstance(text, str):
        return None
    for line in reversed(text[:_SCAN].strip().splitlines()):
        labels = _LABELS.findall(line)
        if labels:
            label = str(labels[-1]).lower()
            return {
                "likely": "maybe",
                "possible": "maybe",
                "certain": "sure",
                "unlikely": "impossible",
            }.get(label, label)
    return None


_ROW_PREFIX = re.compile(r"^\s*(?:row\s*\d{1,2}\s*[:.)-]?|\d{1,2}\s*[:.)]|[hv]\d\s*[:.)])\s*", re.I)
_CELL_CHARS = re.compile(r"^[A-Za-z_#.?\-*]+$")


def _row_cells(line: str) -> str | None:
    """The cells of a line that is one grid row: ``A G E N D``, ``|A|G|E|N|D|``, ``agend``,
    ``1. A G E N D``; None for prose."""
    line = _clean(line).strip("`'\"")
    line = _ROW_PREFIX.sub("", line)
    line = line.replace("|", " ").replace(",", " ").strip()
    if not line:
        return None
    tokens = line.split()
    if len(tokens) == 1:
        token = tokens[0]
        return token if _CELL_CHARS.match(token) and len(token) <= 64 else None
    if all(len(t) == 1 and _CELL_CHARS.match(t) for t in tokens):
        return "".join(tokens)
    if len(tokens) <= 8 and all(
        (_CELL_CHARS.match(t) and not t.isalpha()) or t.isupper() for t in tokens
    ):
        return "#".join(tokens)  # words split at black squares: ``ARE ONE``
    return None


# ---------------------------------------------------------------------- the adapter


@dataclass
class CrosswordDomain:
    """Everything a method needs to know about one crossword (the Domain seam). Prompts show
    only the public view; the solution is used by :meth:`check` (and the exact goal test)."""

    crossword: Crossword
    kind: str = field(default="crossword", init=False)
    roles: frozenset[Role] = field(default=ROLES, init=False)
    names: dict[str, Slot] = field(init=False, repr=False)
    _by_slot: dict[Slot, str] = field(init=False, repr=False)
    clues: dict[str, str] = field(init=False, repr=False)
    """Each clue's text by name, as prompts show it (a long one cut)."""

    def __post_init__(self) -> None:
        grid = self.crossword.grid
        self.names = slot_names(grid)
        self._by_slot = {slot: name for name, slot in self.names.items()}
        self.clues = {self._by_slot[c.slot]: clip_clue(c.text) for c in self.crossword.clues}

    @property
    def grid(self) -> Grid:
        return self.crossword.grid

    @property
    def value_weights(self) -> Mapping[str, float]:
        return VALUE_WEIGHTS

    @property
    def confidence_weights(self) -> Mapping[str, float]:
        return CONFIDENCE_WEIGHTS

    @property
    def tools(self) -> tuple[Tool, ...]:
        return ()

    @property
    def title(self) -> str:
        return self.crossword.title or self.crossword.source or "mini crossword"

    @property
    def is_mini(self) -> bool:
        return self.grid.height <= MINI_MAX and self.grid.width <= MINI_MAX

    # ---------------------------------------------------------------- states and answers

    def start(self) -> Fill:
        return Fill(self.crossword.empty_board())

    def pattern(self, state: Fill, name: str) -> str:
        """The letters along a clue's slot, ``_`` for each empty cell."""
        return state.board.word(self.names[name])

    def is_goal(self, state: Fill) -> bool:
        """The board is the solution, letter for letter (the exact check)."""
        return state.board.letters == self.crossword.solution

    def is_final(self, state: Fill) -> bool:
        """No word can follow: every clue is filled or the board is full."""
        return state.board.is_full or len(state.words) >= len(self.names)

    def depth(self) -> int:
        return len(self.names)

    def progress(self, state: Fill) -> int:
        """Words written so far (ToT's output is the deepest state)."""
        return len(state.words)

    def open_parts(self, state: Fill) -> list[str]:
        """The clues ToT values at a state: those with at least two letters written (its
        rule for 5-letter words: fewer than four blanks), filled ones included."""
        out = []
        for name, slot in self.names.items():
            letters = sum(ch != "_" for ch in state.board.word(slot))
            if letters >= min(2, slot.length):
                out.append(name)
        return out

    def score(self, answer: str | None) -> Score:
        """ToT's three measures of an answer board against the solution."""
        board = self._board(answer)
        if board is None:
            return Score(False, "no answer" if not answer else "the answer is not a grid")
        verdict = self.crossword.check(board)
        letter = verdict.letter_accuracy
        word = verdict.word_accuracy
        if verdict.ok:
            return Score(True, "solved: every letter is right", 1.0, 1.0)
        reason = (
            f"not solved: {verdict.letters_correct}/{verdict.letters_total} letters and "
            f"{verdict.words_correct}/{verdict.words_total} words right"
        )
        return Score(False, reason, letter, word)

    def check(self, answer: str | None) -> Score:
        return self.score(answer)

    def measures(self, answer: str | None) -> dict[str, float]:
        """``letter``, ``word`` and ``game`` as fractions of 1 (ToT's table)."""
        s = self.score(answer)
        return {"letter": s.letter, "word": s.word, "game": s.game}

    def _board(self, answer: str | None) -> Board | None:
        if not answer:
            return None
        rows = self.parse_answer(answer)
        if rows is None:
            return None
        try:
            return Board.from_rows(self.grid, rows.split("/"))
        except CrosswordError:
            return None

    def answer_of(self, state: Fill) -> str | None:
        return state.text()

    def uses_all(self, answer: str) -> bool:
        board = self._board(answer)
        return board is not None and board.is_full

    def answer_key(self, answer: str) -> str | None:
        return self.parse_answer(answer)

    def context(self, state: Fill, **extra: object) -> dict[str, object]:
        """The public state, for traces and panes (never the solution)."""
        ctx: dict[str, object] = {
            "kind": self.kind,
            "title": self.title,
            "grid": list(self.grid.rows),
            "board": list(state.rows),
            "words": [f"{n}. {w}" for n, w in state.words],
        }
        ctx.update(extra)
        return ctx

    def state_text(self, state: Fill) -> str:
        return state.text()

    def state_key(self, state: Fill) -> Hashable:
        return state.board.letters

    # ---------------------------------------------------------------- exact word checks

    def write(self, state: Fill, name: str, word: str, text: str = "") -> WordStep:
        """``word`` written for clue ``name`` on ``state``, checked exactly."""
        text = text or f"{name}. {word}"
        slot = self.names.get(name)
        if slot is None:
            known = ", ".join(list(self.names)[:12])
            reason = f"there is no clue {name} (the clues are {known})"
            return WordStep(
                text, name, word, WordCheck(name, word, "", "invalid", reason), None, reason
            )
        pattern = state.board.word(slot)
        if not word or len(word) != slot.length or not word.isalpha():
            reason = f"{name} takes {slot.length} letters; {word or '(nothing)'} has {len(word)}"
            check = WordCheck(name, word, pattern, "invalid", reason)
            return WordStep(text, name, word, check, None, reason)
        for cell, have, want in zip(slot.cells, pattern, word, strict=True):
            if have != "_" and have != want:
                others = [self._by_slot[s] for s in self.grid.slots_at(cell) if s != slot]
                other = others[0] if others else name
                reason = (
                    f"conflicts with {other}: row {cell[0] + 1}, column {cell[1] + 1} holds "
                    f"{have}, not {want}"
                )
                check = WordCheck(name, word, pattern, "conflicts", reason, f"{other}: {have}")
                return WordStep(text, name, word, check, None, reason)
        if any(n == name for n, _ in state.words):
            reason = f"{name} is already filled"
            return WordStep(
                text, name, word, WordCheck(name, word, pattern, "invalid", reason), None, reason
            )
        board = state.board.write_word(slot, word)
        after = Fill(board, (*state.words, (name, word)))
        check = WordCheck(name, word, pattern, "fits", f"fits {pattern}")
        return WordStep(text, name, word, check, after)

    # ---------------------------------------------------------------- prompts

    def replayed(self, chain: Sequence[Any]) -> Fill:
        """The state a chain of step texts (``h1. WORD``) leads to; unreadable or conflicting
        steps are skipped (prompts show the board the method believes in)."""
        state = self.start()
        for item in chain:
            text = item[0] if isinstance(item, tuple) else item
            steps = self.parse_steps(str(text), state, limit=1)
            if steps and steps[0].state is not None:
                state = steps[0].state
        return state

    def prompt(self, role: Role, **args: Any) -> tuple[Message, ...]:
        """The messages for ``role`` (what each role is given: :data:`PROMPTS`)."""
        build = PROMPTS.get(role)
        if build is None or role not in self.roles:
            raise RolesMissing("a method", self.kind, [role])
        return build(self, args)

    def transcript(self, turns: Sequence[Turn]) -> str:
        """The whole IoT dialogue so far, as each call carries it."""
        return iot_transcript(turns)

    # ---------------------------------------------------------------- parsers

    def parse_steps(self, text: str, state: Fill, limit: int = 32) -> list[WordStep]:
        """Every word the text writes for a clue (``h2. motor (high)``, ``**H2:** MOTOR``,
        ``2 Down: M O T O R``, ``h2. Engine: motor``), in order, repeats dropped; each
        checked exactly against ``state``."""
        out: list[WordStep] = []
        seen: set[tuple[str, str]] = set()
        if not isinstance(text, str):
            return out
        for raw in whole_lines(text, _SCAN).splitlines():
            line = _clean(raw)
            named = _read_name(line) if line else None
            if named is None:
                continue
            name, rest = named
            # A line longer than the cap is read in part: a word the cut may have shortened
            # (CEDE of CEDES) is not read.
            word, conf = _read_word(rest)
            if len(raw) > _MAX_LINE and not reads_the_same(
                lambda kept: _read_word(kept)[0], rest, word
            ):
                word = ""
            if not word or (name, word) in seen:
                continue
            seen.add((name, word))
            step = self.write(state, self._canonical(name), word, line)
            if conf:
                step = WordStep(
                    step.text, step.name, step.word, step.claim, step.state, step.problem, conf
                )
            out.append(step)
            if len(out) >= limit:
                break
        return out

    def _canonical(self, name: str) -> str:
        """A clue name as this grid names it (``1A`` may be ``h1``, and back)."""
        if name in self.names:
            return name
        try:
            slot = self.grid.slot(name)
        except KeyError:
            return name
        return self._by_slot.get(slot, name)

    def proposals(self, text: str, state: Fill, limit: int = 32) -> list[tuple[WordStep, float]]:
        """ToT's proposals with their scores (certain 1, high 0.5, medium 0.2, low 0.1; a
        line without a confidence counts as low)."""
        steps = self.parse_steps(text, state, limit)
        return [(s, CONFIDENCE_WEIGHTS.get(s.confidence, 0.1)) for s in steps]

    def parse_answer(self, text: str) -> str | None:
        """The grid a reply ends with, as rows joined by ``/`` (``_`` empty, ``#`` block):
        the rows after the last 'Output:' / 'Answer:' / 'Grid:' line, else the last run of
        lines that read as rows; rows written with spaces, bars, numbers or lower case; one
        line of all the letters; rows joined by ``/``. Rows too short are padded with empty
        cells, rows too long cut; None when no grid is there."""
        if not isinstance(text, str) or not text.strip():
            return None
        body = whole_lines(text, _SCAN)
        marker = None
        for m in re.finditer(r"(?im)^\W*(?:output|answer|grid|final grid|board)\W*:?\s*", body):
            marker = m
        if marker is not None:
            tail = body[marker.end() :]
            rows = self._rows_in(tail, first=True)
            if rows:
                return self._fit(rows)
        rows = self._rows_in(body, first=False)
        return self._fit(rows) if rows else None

    def _rows_in(self, text: str, *, first: bool) -> list[str]:
        g = self.grid
        # One line holding the whole grid: rows joined by '/', or all the letters.
        lines = text.splitlines()
        runs: list[list[str]] = []
        current: list[str] = []
        for raw in lines:
            line = raw.strip()
            if "/" in line and line.count("/") >= g.height - 2:
                parts = [
                    p
                    for p in (_row_cells(x) for x in re.split(r"/", _clean(line).strip("`'\"")))
                    if p
                ]
                if len(parts) >= max(2, g.height - 1):
                    if current:
                        runs.append(current)
                    runs.append(parts)
                    current = []
                    if first:
                        break
                    continue
            cells = _row_cells(line) if line else None
            if cells is not None and len(cells) == g.height * g.width and g.height > 1:
                if current:
                    runs.append(current)
                runs.append([cells[i : i + g.width] for i in range(0, len(cells), g.width)])
                current = []
                if first:
                    break
                continue
            if cells is not None and len(cells) >= max(2, g.width - 2):
                current.append(cells)
                continue
            if current:
                runs.append(current)
                current = []
                if first:
                    break
        if current:
            runs.append(current)
        good = [r for r in runs if len(r) >= max(1, min(g.height, 2))]
        if not good:
            return []
        return good[0] if first else good[-1]

    def _fit(self, rows: list[str]) -> str | None:
        """Rows shaped to the grid: blocks where the grid has them, extra cells cut, missing
        ones empty; a row holding exactly the open cells of its row fills them in order."""
        g = self.grid
        rows = rows[: g.height]
        out = []
        for r in range(g.height):
            shape = g.rows[r]
            given = rows[r].upper() if r < len(rows) else ""
            open_count = shape.count(".")
            if BLOCK not in given and len(given) == open_count and open_count < len(shape):
                letters = iter(given)
                given = "".join(BLOCK if ch == BLOCK else next(letters) for ch in shape)
            chars = []
            for c, kind in enumerate(shape):
                ch = given[c] if c < len(given) else "_"
                if kind == BLOCK:
                    chars.append(BLOCK)
                elif ch.isalpha() and ch.isascii():
                    chars.append(ch)
                else:
                    chars.append("_")
            out.append("".join(chars))
        if all(set(row) <= {"_", BLOCK} for row in out):
            return None
        return "/".join(out)

    def parse_value(self, text: str) -> str | None:
        return parse_value(text)

    def parse_score(self, text: str) -> float | None:
        return parse_score(text)

    def parse_feedback(self, text: str, steps: int) -> Feedback:
        return parse_feedback(text, steps)

    def parse_guidance(self, text: str) -> Guidance:
        return parse_guidance(text)

    def parse_reply(self, text: str) -> Reply:
        """The answerer's reasoning, grid, doubts and final flag; the grid may be a string
        (rows joined by ``/`` or by newlines) or a list of rows."""
        data = read_json_object(text)
        if data is not None:
            raw = next(
                (
                    data[k]
                    for k in ("answer", "crossword_solution", "grid", "response")
                    if k in data
                ),
                None,
            )
            if isinstance(raw, list):
                raw = "/".join(str(x) for x in raw[:64])
            answer = self.parse_answer(str(raw)) if raw is not None else None
            explanation = " ".join(
                str(next((data[k] for k in ("explanation", "reasoning") if k in data), "")).split()
            )[:4000]
            if answer is not None or explanation:
                doubts = data.get("uncertainty", data.get("doubts", ""))
                doubt_text = doubts if isinstance(doubts, str) else json.dumps(doubts)
                return Reply(
                    explanation,
                    answer,
                    " ".join(doubt_text.split())[:600],
                    truthy(data.get("final", data.get("answer_to_query"))),
                )
        if not isinstance(text, str) or not text.strip():
            return Reply("", None, "", False, parsed=False)
        final = bool(re.search(r"\bfinal\W{0,4}(?:true|yes)\b", text[:_SCAN], re.I))
        return Reply(
            " ".join(text[:_SCAN].split())[:4000], self.parse_answer(text), "", final, parsed=False
        )

    def turn(self, guidance: str, reply: Reply) -> Turn:
        return Turn(guidance, reply.explanation, reply.answer, reply.uncertainty, reply.final)

    def claims(self, text: str) -> list[WordCheck]:
        """Free text holds no claim to check exactly here: words are checked as steps."""
        return []

    # ---------------------------------------------------------------- steps and chains

    def after(self, step: WordStep) -> Fill | None:
        return step.state

    def step_key(self, step: WordStep) -> Hashable:
        return (step.name, step.word)

    def step_line(self, step: WordStep) -> str:
        return f"{step.name}. {step.word}"

    def step_text(self, number: int, before: Fill, step: WordStep) -> str:
        return f"{step.name}. {step.word}"

    def replay(self, states: Sequence[Fill]) -> tuple[Fill | None, str, bool]:
        """Replay a (possibly stitched) chain from the empty board: each state's last word
        must fit the board so far; the end board is scored against the solution."""
        state = self.start()
        for i, after in enumerate(states, 1):
            if not after.words:
                return None, f"step {i} is empty", False
            name, word = after.words[-1]
            step = self.write(state, name, word)
            if step.state is None:
                return None, f"step {i} does not follow: {step.problem}", False
            state = step.state
        score = self.score(state.text())
        return state, score.reason, score.ok

    def similarity(self, a: str, b: str) -> float:
        """1 for the same word in the same clue, 0.5 for the same clue, else 0."""
        ra, rb = _read_name(_clean(a)), _read_name(_clean(b))
        if ra is None or rb is None:
            return 0.0
        if ra[0] != rb[0]:
            return 0.0
        return 1.0 if _read_word(ra[1])[0] == _read_word(rb[1])[0] else 0.5
