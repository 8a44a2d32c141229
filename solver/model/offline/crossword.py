"""The offline engine's mini crossword player: a seeded heuristic solver that reads only the
prompt.

Everything comes from the messages, as a model would read them: the clues (the last
``Clues:`` list, or the ``Unfilled:`` / ``Filled:`` lines with each clue's letters), the board
(rows of letters, ``_`` and ``#``), the chain of words so far, BoT's experience, IoT's
transcript and guidance. ``call.context`` is never read, and the solution is never seen.

It answers from the bundled clue index (WordNet glosses over a SCOWL word list): candidate
words for a clue and a letter pattern, ranked by how well their definitions match the clue.
That ranking is often right and often not (about half the time the answer is the index's
first choice on generated clues, less on human clues), so the player's confidences can be
wrong either way. Its judgement of a pattern is a heuristic: a pattern no word fits is
impossible, a word the index ranks high for the clue is sure, anything else maybe — and it
sometimes misjudges (a rare word called impossible, as the paper saw GPT-4 prune 'agend').
It learns from BoT's experience only through the text: words an analysis rejected are avoided.
"""

from __future__ import annotations

import functools
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from puzzles.crossword import Grid, Slot, clue_index
from solver.model.base import Call, ModelError
from solver.model.markers import (
    CW_ANALYSIS,
    CW_CLUE_CHECK,
    CW_COT,
    CW_EVALUATE,
    CW_FINAL,
    CW_IOT_GUIDE,
    CW_OPENING,
    CW_PROPOSE,
    CW_STEP,
    IOT_FIRST_PROMPT,
    IOT_GUIDE_SAYS,
)
from solver.model.offline.experience import BLOCK, verdicts
from solver.roles import Role

__all__ = ["CrosswordPlayer"]

_WORD_CHARS = re.compile(r"[^A-Z]")
_NAME = r"(?:[hv]\d{1,2}|\d{1,3}[AD])"
_CLUE_LINE = re.compile(rf"^(?P<name>{_NAME})\. (?P<clue>.*) \((?P<len>\d{{1,3}})\)$")
_STATUS_LINE = re.compile(rf"^(?P<name>{_NAME})\. (?P<clue>.*): (?P<pat>[A-Z_#](?: [A-Z_#])*)$")
_CHAIN_STEP = re.compile(rf"^Step\s+(\d+):\s*({_NAME})\.\s*([A-Za-z]+)", re.MULTILINE)
_STEP_WORD = re.compile(rf"({_NAME})\.\s*([A-Za-z]+)")
_MENTION = re.compile(rf"\b({_NAME})\b")
_LEVELS = ("low", "medium", "high", "certain")
_SCORES = {"low": 0.3, "medium": 0.5, "high": 0.7, "certain": 0.9}


def _user_text(call: Call) -> str:
    return "\n".join(m.content for m in call.messages if m.role == "user")


_OURS = re.compile(
    rf"Solve an? \d{{1,2}} x \d{{1,2}} {re.escape(CW_OPENING)}|^{re.escape(CW_CLUE_CHECK)}", re.M
)
"""The opening of every crossword prompt this player reads; others go to the next player."""
_ROLES = (
    (Role.FINAL, CW_FINAL),  # BoT's final prompt (I^{T+1})
    (Role.CLUE_VALUE, CW_CLUE_CHECK),
    (Role.PROPOSE, CW_PROPOSE),
    (Role.EVALUATE, CW_EVALUATE),
    (Role.ANALYZE, CW_ANALYSIS),
    (Role.STEP, CW_STEP),
    (Role.GUIDE, CW_IOT_GUIDE),
    (Role.RESPOND, IOT_GUIDE_SAYS),
    (Role.RESPOND, IOT_FIRST_PROMPT),  # IoT's unguided first answer
    (Role.COT, CW_COT),
)
"""Each role and the sentence its prompt is known by (:mod:`solver.model.markers`, which the
crossword prompts are written with), the prompts that quote others' text (BoT's experience,
IoT's dialogue) first; a prompt with none of them is answered as IO."""


def _role(text: str) -> Role:
    """What the prompt asks for, read from its wording (the call's purpose is not needed:
    over HTTP a model sees only the messages)."""
    return next((role for role, marker in _ROLES if marker in text), Role.IO)


def _names(grid: Grid) -> dict[str, Slot]:
    """The clue names the prompts use (ToT's h1/v1 when each row and column holds one
    entry, else 1A / 4D): the player works them out from the board, as a reader would."""
    tot = {s.tot_name: s for s in grid.slots}
    return tot if len(tot) == len(grid.slots) else {s.label: s for s in grid.slots}


@functools.lru_cache(maxsize=65536)
def clue_candidates(clue: str, pattern: str) -> tuple[tuple[str, float], ...]:
    """Words that fit ``pattern`` (``_`` unknown), best match to the clue first."""
    query = "".join(ch if ch.isalpha() else "?" for ch in pattern.upper())
    if not query or len(query) > 64:
        return ()
    return tuple((c.text, c.score) for c in clue_index().candidates(clue, query, limit=6))


def is_known_word(word: str) -> bool:
    return any(w == word for w, _ in clue_candidates("", word))


def pick_rank(n: int, rng: random.Random, temperature: float, top_p: float = 1.0) -> int:
    """An index into ``n`` ranked options: the first usually, later ones more often when
    the temperature is high (a softmax over ranks)."""
    if n <= 1 or temperature <= 0.01 or top_p <= 0.15:
        return 0
    weights = [math.exp(-i / max(0.1, temperature * 0.6)) for i in range(n)]
    if top_p < 1.0:
        total, kept = sum(weights), []
        acc = 0.0
        for w in weights:
            kept.append(w)
            acc += w
            if acc >= top_p * total:
                break
        weights = kept
    return rng.choices(range(len(weights)), weights)[0]


def say_confidence(cands: Sequence[tuple[str, float]], index: int, rng: random.Random) -> str:
    """How sure the player says it is of ``cands[index]`` (it can be wrong either way)."""
    top = cands[0][1]
    score = cands[index][1]
    if score <= 0:
        level = 0
    elif index == 0:
        second = cands[1][1] if len(cands) > 1 else 0.0
        ratio = top / second if second > 0 else 3.0
        level = 3 if ratio > 1.5 and top > 12 else 2 if ratio > 1.15 else 1
    else:
        level = 1 if score > 0.75 * top else 0
    if rng.random() < 0.2:
        level = min(3, max(0, level + rng.choice((-1, 1))))
    return _LEVELS[level]


@dataclass
class _Puzzle:
    """What a prompt says of the crossword: the board, the clues by name, the slots."""

    board: list[list[str]]
    clues: dict[str, str]
    slots: dict[str, Slot]

    def pattern(self, name: str) -> str:
        return "".join(self.board[r][c] for r, c in self.slots[name].cells)

    def write(self, name: str, word: str) -> None:
        for (r, c), ch in zip(self.slots[name].cells, word, strict=False):
            self.board[r][c] = ch

    def rows(self) -> list[str]:
        return ["".join(row) for row in self.board]

    def crossing(self, name: str) -> list[str]:
        cells = set(self.slots[name].cells)
        return [n for n, s in self.slots.items() if n != name and cells & set(s.cells)]


def _read_board(text: str) -> list[list[str]] | None:
    """The last board in the text (after 'Current board:' or 'Board:')."""
    heads = list(re.finditer(r"^(?:Current board|Board):[ \t]*$", text, re.MULTILINE))
    if not heads:
        return None
    rows = []
    for line in text[heads[-1].end() :].lstrip("\n").splitlines():
        tokens = line.split()
        if not tokens or not all(len(t) == 1 and (t.isalpha() or t in "_#") for t in tokens):
            break
        rows.append([t.upper() for t in tokens])
    return rows or None  # its shape (a rectangle of at most 64 x 64) is the Grid's to check


def read_puzzle(text: str) -> _Puzzle | None:
    board = _read_board(text)
    if board is None:
        return None
    try:
        grid = Grid(tuple("".join("#" if ch == "#" else "." for ch in row) for row in board))
    except ValueError:
        return None
    slots = _names(grid)
    clues: dict[str, str] = {}
    heads = list(re.finditer(r"^Clues:[ \t]*$", text, re.MULTILINE))
    if heads:
        for line in text[heads[-1].end() :].lstrip("\n").splitlines():
            m = _CLUE_LINE.match(line)
            if not m:
                break
            clues[m["name"]] = m["clue"]
    for m in map(_STATUS_LINE.match, text.splitlines()):
        if m:
            clues.setdefault(m["name"], m["clue"])
    if not clues:
        return None
    return _Puzzle(board, clues, slots)


def _experience(text: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(rejected, recommended) words of BoT's experience block."""
    rejected: set[tuple[str, str]] = set()
    liked: set[tuple[str, str]] = set()
    for said in verdicts(text):
        m = _STEP_WORD.match(said.step)
        if m:
            step = (m.group(1), m.group(2).upper())
            (rejected if said.verdict == "reject" else liked).add(step)
    return rejected, liked


class CrosswordPlayer:
    """The offline answers for mini crossword prompts (see the module docstring)."""

    def recognises(self, call: Call) -> bool:
        return bool(_OURS.search(_user_text(call)[:4000]))

    def reply(self, call: Call, rng: random.Random, seed: int) -> str:
        text = _user_text(call)
        t = call.sampling.temperature
        role = _role(text)
        if role == Role.CLUE_VALUE:
            return self._value(text, rng)
        puzzle = read_puzzle(text)
        if puzzle is None:
            raise ModelError(
                "bad_request", "the offline engine cannot read this crossword prompt's board"
            )
        if role == Role.PROPOSE:
            return self._propose(puzzle, rng, t)
        if role == Role.STEP:
            return self._step(puzzle, text, rng, t, call.sampling.top_p)
        if role == Role.FINAL:
            return self._final(puzzle, text, rng, t, call.sampling.top_p)
        if role == Role.EVALUATE:
            return self._evaluate(puzzle, text, rng)
        if role == Role.ANALYZE:
            return self._analyse(puzzle, text, rng)
        if role == Role.GUIDE:
            return self._guide(puzzle, text, rng)
        if role == Role.RESPOND:
            return self._answer(puzzle, text, rng, t)
        return self._attempt(puzzle, rng, t, steps=role == Role.COT)

    # ------------------------------------------------------------------ ToT

    def _propose(self, p: _Puzzle, rng: random.Random, t: float) -> str:
        lines: list[tuple[int, str]] = []
        for name in p.slots:
            pattern = p.pattern(name)
            if "_" not in pattern or name not in p.clues:
                continue
            cands = [c for c in clue_candidates(p.clues[name], pattern) if c[0] != pattern]
            if not cands:
                continue
            picks = {pick_rank(len(cands), rng, t) for _ in range(rng.choice((1, 2, 2)))}
            for i in sorted(picks):
                level = say_confidence(cands, i, rng)
                lines.append((_LEVELS.index(level), f"{name}. {cands[i][0].lower()} ({level})"))
        lines.sort(key=lambda x: -x[0])
        return "\n".join(line for _, line in lines[:12]) or "No word fits the board."

    def _value(self, text: str, rng: random.Random) -> str:
        last = [line for line in text.strip().splitlines() if line.strip()]
        if not last or ": " not in last[-1]:
            return "I cannot read the clue.\nmaybe"
        clue, _, spaced = last[-1].rpartition(": ")
        pattern = "".join(spaced.split()).upper()
        cands = clue_candidates(clue, pattern)
        if not cands:
            if rng.random() < 0.03:
                return "Some rare word might fit.\nmaybe"
            return f"No word fits {spaced}.\nimpossible"
        if "_" not in pattern:
            word = pattern
            ranked = [w for w, s in cands[:3] if s > 0]
            if word in ranked and rng.random() < 0.85:
                return f"'{word.lower()}' answers the clue.\nsure"
            if rng.random() < 0.15:
                return (
                    f"'{word.lower()}' looks like a typo; it does not answer the clue.\nimpossible"
                )
            return f"'{word.lower()}' is a word; it may answer the clue.\nmaybe"
        top_word, top = cands[0]
        if top > 12 and rng.random() < 0.5:
            return f"'{top_word.lower()}' fits the letters and the clue.\nsure"
        if top <= 0 and rng.random() < 0.12:
            return f"Nothing that fits {spaced} answers the clue.\nimpossible"
        return f"'{top_word.lower()}' might fit.\nmaybe"

    # ------------------------------------------------------------------ IO, CoT

    def _fill(self, p: _Puzzle, rng: random.Random, t: float) -> dict[str, tuple[str, float]]:
        """A guess for every clue from its pattern alone (no crossing letters used)."""
        out: dict[str, tuple[str, float]] = {}
        for name in p.slots:
            if name not in p.clues:
                continue
            cands = clue_candidates(p.clues[name], p.pattern(name))
            if cands:
                out[name] = cands[pick_rank(len(cands), rng, t)]
        return out

    def _resolve(self, p: _Puzzle, guesses: dict[str, tuple[str, float]]) -> None:
        """Write guesses, the better-scored word winning a shared cell (the down word on a
        tie: it is written after the across)."""
        for name, (word, _score) in sorted(guesses.items(), key=lambda kv: kv[1][1]):
            p.write(name, word)

    def _attempt(self, p: _Puzzle, rng: random.Random, t: float, *, steps: bool) -> str:
        guesses = self._fill(p, rng, t)
        if steps:
            lines = [f"{n}. {w}" for n, (w, _) in guesses.items()]
            self._resolve(p, guesses)
            return "\n".join(lines) + "\nOutput:\n" + "\n".join(" ".join(r) for r in p.rows())
        for name, (word, _) in guesses.items():
            if p.slots[name].direction.value == "across":
                p.write(name, word)
        return "\n".join(" ".join(r) for r in p.rows())

    # ------------------------------------------------------------------ BoT

    def _step(self, p: _Puzzle, text: str, rng: random.Random, t: float, top_p: float) -> str:
        rejected, liked = _experience(text)
        options: list[tuple[float, str, str, str]] = []
        for name in p.slots:
            pattern = p.pattern(name)
            if "_" not in pattern or name not in p.clues:
                continue
            cands = [
                c
                for c in clue_candidates(p.clues[name], pattern)
                if (name, c[0]) not in rejected and c[0] != pattern
            ]
            if not cands:
                continue
            i = pick_rank(len(cands), rng, t, top_p)
            word, score = cands[i]
            bonus = 10.0 if (name, word) in liked else 0.0
            level = say_confidence(cands, i, rng)
            letters = sum(ch != "_" for ch in pattern)
            options.append((score + bonus + 3 * letters, name, word, level))
        if not options:
            return "Every clue I can read is filled; no word fits what is left."
        options.sort(key=lambda o: -o[0])
        _, name, word, level = options[pick_rank(min(3, len(options)), rng, t, top_p)]
        return f"{name}. {word}, Evaluation score: {_SCORES[level]}"

    def _final(self, p: _Puzzle, text: str, rng: random.Random, t: float, top_p: float) -> str:
        """BoT's final prompt: words one at a time as the step prompts get them, from the
        same experience, each written onto the board before the next; then the grid."""
        lines = []
        for _ in range(len(p.slots)):
            m = _STEP_WORD.match(self._step(p, text, rng, t, top_p))
            if m is None or m.group(1) not in p.slots:
                break
            p.write(m.group(1), m.group(2).upper())
            lines.append(f"{m.group(1)}. {m.group(2).upper()}")
        grid = [" ".join(row) for row in p.rows()]
        return "\n".join([*lines, "Output:", *grid])

    def _evaluate(self, p: _Puzzle, text: str, rng: random.Random) -> str:
        m = re.search(rf"^{re.escape(CW_EVALUATE)}\s*\n\s*({_NAME})\.\s*([A-Za-z]+)", text, re.M)
        if not m or m.group(1) not in p.slots:
            return "I cannot tell which word to judge.\nEvaluation score: 0.1"
        name, word = m.group(1), m.group(2).upper()
        pattern = p.pattern(name)
        fits = len(word) == len(pattern) and all(
            a in ("_", b) for a, b in zip(pattern, word, strict=True)
        )
        if not fits:
            return f"{word} does not fit {pattern}.\nEvaluation score: 0.1"
        ranked = [w for w, _ in clue_candidates(p.clues.get(name, ""), pattern)]
        if word in ranked[:1]:
            score = 0.9
        elif word in ranked[:3]:
            score = 0.7
        elif is_known_word(word):
            score = 0.5
        else:
            score = 0.1
        if rng.random() < 0.15:
            score = rng.choice((0.3, 0.5, 0.7, 0.9))
        return f"{word} for '{p.clues.get(name, '')}'.\nEvaluation score: {score}"

    def _analyse(self, p: _Puzzle, text: str, rng: random.Random) -> str:
        block = BLOCK.search(text)
        steps = _CHAIN_STEP.findall(block.group(1)) if block else []
        lines: list[str] = []
        problems: list[str] = []
        good = 0
        writer: dict[tuple[int, int], str] = {}  # the clue whose step wrote each cell
        for i, name, raw in steps:
            word = raw.upper()
            if name not in p.slots:
                lines.append(
                    f"Step {i}: there is no clue {name}. Advice: use the clue names. "
                    "Recommendation or Reject: Reject"
                )
                continue
            slot = p.slots[name]
            clash = ""
            for (r, c), ch in zip(slot.cells, word, strict=False):
                have = p.board[r][c]
                if have not in ("_", ch):
                    who = writer.get((r, c), "the board")
                    clash = (
                        f"{'conflict' if who == name else 'crossing conflict'}: {name} puts "
                        f"{ch} at row {r + 1}, column {c + 1} where {who} has {have}"
                    )
                    break
            pattern = p.pattern(name)
            p.write(name, word)
            writer.update((cell, name) for cell, _ in zip(slot.cells, word, strict=False))
            ranked = [w for w, s in clue_candidates(p.clues.get(name, ""), pattern)[:3] if s > 0]
            if clash:
                problems.append(clash)
                lines.append(
                    f"Step {i}: {clash}. Advice: choose a word for {name} that keeps "
                    "the crossing letters. Recommendation or Reject: Reject"
                )
            elif word not in ranked and rng.random() < 0.8:
                problems.append(f"{word} does not answer {name}")
                lines.append(
                    f"Step {i}: {word} does not seem to answer '{p.clues.get(name)}'. "
                    f"Advice: try another word for {name}. "
                    "Recommendation or Reject: Reject"
                )
            else:
                good += 1
                lines.append(
                    f"Step {i}: {word} answers its clue. Advice: keep it. "
                    "Recommendation or Reject: Recommend"
                )
        full = all(ch != "_" for row in p.board for ch in row if ch != "#")
        filled = len({name for _, name, _ in steps if name in p.slots})
        verdict = "fills the whole grid" if full else f"fills {filled} of {len(p.slots)} clues"
        report = f"The chain {verdict}; " + (
            "; ".join(problems) if problems else "no conflict found"
        )
        share = good / len(steps) if steps else 0.0
        confidence = min((0.1, 0.3, 0.5, 0.7, 0.9, 1.0), key=lambda v: abs(v - share))
        return (
            f"Analysis Report: {report}.\n" + "\n".join(lines) + f"\nConfidence score: {confidence}"
        )

    # ------------------------------------------------------------------ IoT

    def _grid_words(self, p: _Puzzle, answer: str) -> dict[str, str]:
        rows = [r for r in answer.split("/")]
        if len(rows) != len(p.board) or any(len(r) != len(p.board[0]) for r in rows):
            return {}
        p.board = [list(r) for r in rows]
        return {name: p.pattern(name) for name in p.slots}

    def _doubts(self, p: _Puzzle, words: dict[str, str]) -> list[str]:
        out = []
        for name, word in words.items():
            if "_" in word:
                out.append(f"{name} is not filled in")
            elif not is_known_word(word):
                out.append(f"{name} reads {word}, which is not a word")
            elif word not in [
                w for w, s in clue_candidates(p.clues.get(name, ""), "_" * len(word))[:5]
            ]:
                out.append(
                    f"{name} reads {word}, which does not look like an answer to "
                    f"'{p.clues.get(name, '')}'"
                )
        return out

    def _last_grid(self, p: _Puzzle, text: str) -> dict[str, str]:
        """The solver's last grid in the transcript, written onto ``p``'s board, as each
        clue's letters; empty when there is none yet, "(none)", or rows it cannot read as
        this board's."""
        answers = re.findall(r"^Solver's answer:\s*(.*)$", text, re.MULTILINE)
        return self._grid_words(p, answers[-1].strip() if answers else "")

    def _guide(self, p: _Puzzle, text: str, rng: random.Random) -> str:
        words = self._last_grid(p, text)
        if not words:
            guidance = (
                "Start with the clues you are surest of, then fill the crossing words "
                "so that every row and column is a word; give the whole grid."
            )
            return json.dumps({"guidance": guidance, "stop": False})
        doubts = self._doubts(p, words)
        if not doubts or (len(doubts) <= 2 and rng.random() < 0.15):
            return json.dumps(
                {"guidance": "Every entry reads as a word that fits its clue.", "stop": True}
            )
        rng.shuffle(doubts)
        named = "; ".join(doubts[:2])
        guidance = (
            f"Rethink these: {named}. Keep the crossing letters you are sure of and "
            "check each new word against its clue."
        )
        return json.dumps({"guidance": guidance, "stop": False})

    def _answer(self, p: _Puzzle, text: str, rng: random.Random, t: float) -> str:
        says = re.search(rf"^{re.escape(IOT_GUIDE_SAYS)}\s*(.*)$", text, re.MULTILINE)
        named = list(dict.fromkeys(_MENTION.findall(says.group(1)) if says else []))
        named = [n for n in named if n in p.slots]
        close = "definitive final grid now" in text
        discuss = "Do not give a final answer yet" in text
        changes = []
        if not self._last_grid(p, text):
            self._resolve(p, self._fill(p, rng, t))
            changes.append("filled the grid from my best guess for each clue")
        else:
            trusted = {n: p.pattern(n) for n in p.slots if n not in named}
            before = {n: p.pattern(n) for n in named}
            for name in named:
                old = p.pattern(name)
                pattern = "".join(
                    ch
                    if any((r, c) in p.slots[o].cells and o in trusted for o in p.crossing(name))
                    else "_"
                    for (r, c), ch in zip(p.slots[name].cells, old, strict=False)
                )
                cands = [c for c in clue_candidates(p.clues.get(name, ""), pattern) if c[0] != old]
                if cands:
                    p.write(name, cands[pick_rank(len(cands), rng, t)][0])
            # What changed in the end (a later word may write back a letter an earlier took).
            changes = [
                f"changed {n} from {was} to {p.pattern(n)}"
                for n, was in before.items()
                if p.pattern(n) != was
            ]
        doubts = self._doubts(p, {n: p.pattern(n) for n in p.slots})
        if close:
            final = True
        elif discuss:
            final = False
        else:
            final = not doubts or rng.random() < 0.1
        grid = "/".join(p.rows())
        return json.dumps(
            {
                "explanation": "I " + ", ".join(changes or ["kept my grid"]) + ".",
                "answer": grid,
                "uncertainty": "; ".join(doubts[:3]),
                "final": final,
            }
        )
