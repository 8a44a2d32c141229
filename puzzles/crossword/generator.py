"""New mini crosswords: fill a grid with common words and clue them from their definitions.

:func:`generate` is seeded and deterministic: the same seed (and pattern) gives the same
puzzle on every machine. By default it makes a ToT-style 5 x 5 grid without blocks; with
``blocks=True`` it picks one of the symmetric block patterns in :data:`PATTERNS`.

How a grid is filled: every slot starts with the set of words of its length as a bitset (bit
*i* is the *i*-th word of a per-seed order that favours common words). Placing a word narrows
each crossing slot to the words with the right letter where they cross, and that narrowing
is propagated until nothing changes (arc consistency), so dead ends show up early. The slot
with the fewest candidates is filled next, trying first the words that leave its crossing
slots the most candidates. An attempt that needs more than a fixed number of
steps is abandoned and restarted with a new order; after a few restarts the vocabulary widens
from SCOWL's most common words (level 20 or 35) to rarer ones. Budgets count steps, not
seconds, so the result never depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from puzzles.crossword.clues import write_clue
from puzzles.crossword.model import Crossword, Grid, Slot
from puzzles.crossword.wordlist import Word, WordList, word_list

__all__ = [
    "PATTERNS",
    "GenerationError",
    "Pattern",
    "fill",
    "generate",
]

Pattern = tuple[str, ...]

FULL: Pattern = (".....",) * 5
PATTERNS: tuple[Pattern, ...] = (
    FULL,
    ("#....", ".....", ".....", ".....", "....#"),
    ("....#", ".....", ".....", ".....", "#...."),
    ("#...#", ".....", ".....", ".....", "#...#"),
    ("##...", "#....", ".....", "....#", "...##"),
    ("...##", "....#", ".....", "#....", "##..."),
    ("#....", "#....", ".....", "....#", "....#"),
    ("....#", "....#", ".....", "#....", "#...."),
)
"""5 x 5 patterns, each symmetric under a half turn, every open cell in an across and a down
entry of 3 to 5 letters. The first has no blocks (ToT's shape)."""

# (largest SCOWL level allowed, attempts at that level); 0 means every word in the list.
_TIERS_FULL = ((35, 12), (50, 8), (0, 8))
_TIERS_BLOCKED = ((20, 4), (35, 6), (50, 6), (0, 8))
_STEPS_PER_ATTEMPT = 30
_LEVEL_WEIGHT = {10: 6.0, 20: 4.0, 35: 2.0, 40: 1.5, 50: 1.0, 0: 0.5}
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PLAIN = re.compile("[A-Z]+")
_LOOK_AHEAD = 64
"""Candidates per step ranked by the room they leave (the rest keep the seed order)."""
_FEW = 24
"""Domains this small are read word by word rather than letter by letter."""


class GenerationError(RuntimeError):
    """No fill was found within the search budget (rare; try another seed or pattern)."""


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """Words of one length in a per-seed order, with a bitset per (position, letter)."""

    words: tuple[Word, ...]
    masks: tuple[tuple[int, ...], ...]
    full: int
    present: tuple[tuple[int, ...], ...]


def _vocabulary(words: Sequence[Word], length: int, rng: random.Random) -> _Vocabulary:
    # Weighted shuffle (Efraimidis-Spirakis): common words tend to come first, but every seed
    # sees a different order, so grids vary.
    keyed = []
    for word in words:
        weight = _LEVEL_WEIGHT.get(word.level, 0.5) * (1.0 + math.log1p(word.frequency))
        keyed.append((rng.random() ** (1.0 / weight), word.text, word))
    keyed.sort(key=lambda k: (-k[0], k[1]))
    ordered = tuple(k[2] for k in keyed)
    bits = [[bytearray((len(ordered) + 8) // 8) for _ in _ALPHABET] for _ in range(length)]
    for i, word in enumerate(ordered):
        for p, ch in enumerate(word.text):
            bits[p][ord(ch) - 65][i >> 3] |= 1 << (i & 7)
    masks = tuple(tuple(int.from_bytes(b, "little") for b in row) for row in bits)
    present = tuple(tuple(c for c, m in enumerate(row) if m) for row in masks)
    return _Vocabulary(ordered, masks, (1 << len(ordered)) - 1, present)


class _Filler:
    """One attempt at filling a grid (see the module docstring)."""

    def __init__(self, grid: Grid, vocab: dict[int, _Vocabulary], budget: int) -> None:
        self.slots = grid.slots
        self.vocab = vocab
        self.budget = budget
        self.steps = 0
        self.lengths = [s.length for s in self.slots]
        where: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for index, slot in enumerate(self.slots):
            for position, cell in enumerate(slot.cells):
                where.setdefault(cell, []).append((index, position))
        self.crossings: list[list[tuple[int, int, int]]] = [[] for _ in self.slots]
        for pairs in where.values():
            if len(pairs) == 2:
                (a, p), (b, q) = pairs
                self.crossings[a].append((p, b, q))
                self.crossings[b].append((q, a, p))
        self.rejected: set[str] = set()

    def run(self) -> list[Word] | None:
        domains = [self.vocab[n].full for n in self.lengths]
        if not self._propagate(domains, list(range(len(self.slots)))):
            return None
        return self._search(domains)

    def _propagate(self, domains: list[int], queue: list[int]) -> bool:
        pending = set(queue)
        while queue:
            s = queue.pop()
            pending.discard(s)
            domain = domains[s]
            vocab = self.vocab[self.lengths[s]]
            few = domain.bit_count() <= _FEW
            for p, t, q in self.crossings[s]:
                # Letters slot s can still put in the shared cell...
                if few:
                    used = set()
                    rest = domain
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        used.add(ord(vocab.words[low.bit_length() - 1].text[p]) - 65)
                else:
                    at_p = vocab.masks[p]
                    used = {c for c in vocab.present[p] if domain & at_p[c]}
                other = self.vocab[self.lengths[t]].masks[q]
                allowed = 0
                for c in used:
                    allowed |= other[c]
                # ...are the only ones slot t may keep there.
                narrowed = domains[t] & allowed
                if narrowed != domains[t]:
                    if not narrowed:
                        return False
                    domains[t] = narrowed
                    if t not in pending:
                        pending.add(t)
                        queue.append(t)
        return True

    def _search(self, domains: list[int]) -> list[Word] | None:
        self.steps += 1
        if self.steps > self.budget:
            return None
        best, best_count = -1, 0
        for s, domain in enumerate(domains):
            count = domain.bit_count()
            if count > 1 and (best < 0 or count < best_count):
                best, best_count = s, count
        if best < 0:
            return self._accept(domains)
        length = self.lengths[best]
        words = self.vocab[length].words
        for low in self._order(best, domains):
            word = words[low.bit_length() - 1]
            if word.text in self.rejected:
                continue
            trial = list(domains)
            trial[best] = low
            queue = [best]
            ok = True
            # No answer twice: the word leaves every other slot of its length.
            for t, n in enumerate(self.lengths):
                if t != best and n == length and trial[t] & low:
                    trial[t] &= ~low
                    if not trial[t]:
                        ok = False
                        break
                    queue.append(t)
            if ok and self._propagate(trial, queue):
                found = self._search(trial)
                if found is not None:
                    return found
            if self.steps > self.budget:
                return None
        return None

    def _order(self, s: int, domains: list[int]) -> list[int]:
        """Candidates for slot s (as one-bit masks): the first few in the seed's order,
        those leaving their crossing slots the most words first (a fill that keeps options
        open fails less often), then the rest in the seed's order."""
        vocab = self.vocab[self.lengths[s]]
        rest = domains[s]
        head: list[tuple[float, int, int]] = []
        while rest and len(head) < _LOOK_AHEAD:
            low = rest & -rest
            rest ^= low
            text = vocab.words[low.bit_length() - 1].text
            room = 0.0
            for p, t, q in self.crossings[s]:
                left = (
                    domains[t] & self.vocab[self.lengths[t]].masks[q][ord(text[p]) - 65]
                ).bit_count()
                if not left:
                    break
                room += math.log(left)
            else:
                head.append((-room, len(head), low))
        head.sort()
        ordered = [low for _, _, low in head]
        while rest:
            low = rest & -rest
            rest ^= low
            ordered.append(low)
        return ordered

    def _accept(self, domains: list[int]) -> list[Word] | None:
        words = [
            self.vocab[n].words[d.bit_length() - 1]
            for n, d in zip(self.lengths, domains, strict=True)
        ]
        for s, crossings in enumerate(self.crossings):
            for p, t, q in crossings:
                assert words[s].text[p] == words[t].text[q], "propagation let a clash through"
        roots = [w.base or w.text.lower() for w in words]
        if len(set(roots)) != len(roots):  # e.g. TREE and TREES in one grid
            return None
        for word in words:
            if _clue(word) is None:
                self.rejected.add(word.text)
                return None
        return words


_CLUES: dict[Word, str | None] = {}
"""Clues written so far: a word's clue never changes, and writing one takes a while."""


def _clue(word: Word) -> str | None:
    if word not in _CLUES:
        _CLUES[word] = write_clue(word)
    return _CLUES[word]


def fill(
    grid: Grid,
    seed: int = 0,
    *,
    words: WordList | None = None,
    max_level: int = 35,
    attempts: int = 6,
    budget: int = _STEPS_PER_ATTEMPT,
) -> dict[Slot, Word] | None:
    """One fill of the grid with words up to SCOWL ``max_level`` (0: any word), or None
    when ``attempts`` restarts of ``budget`` steps each find none."""
    words = words if words is not None else word_list()
    lengths = sorted({s.length for s in grid.slots})
    for attempt in range(attempts):
        rng = random.Random(f"{seed}:{max_level}:{attempt}")
        vocab = {}
        for n in lengths:
            pool = [
                w
                for w in words.of_length(n)
                if (max_level == 0 or 0 < w.level <= max_level) and _PLAIN.fullmatch(w.text)
            ]
            vocab[n] = _vocabulary(pool, n, rng)
        found = _Filler(grid, vocab, budget).run()
        if found is not None:
            return dict(zip(grid.slots, found, strict=True))
    return None


def generate(
    seed: int = 0,
    *,
    pattern: Sequence[str] | None = None,
    blocks: bool = False,
    words: WordList | None = None,
) -> Crossword:
    """A new mini crossword. ``pattern`` gives the grid (rows of ``.`` and ``#``); without
    one, a 5 x 5 grid without blocks, or with ``blocks=True`` one of :data:`PATTERNS` picked
    by the seed. :class:`GenerationError` if no fill is found (not seen with the bundled
    word list and these patterns)."""
    rng = random.Random(seed)
    if pattern is None:
        pattern = rng.choice(PATTERNS[1:]) if blocks else FULL
    grid = Grid.parse(tuple(pattern))
    if any(s.length < 3 or s.length > 5 for s in grid.slots) or grid.uncovered():
        raise GenerationError("the pattern needs every open cell in entries of 3 to 5 letters")
    tiers = _TIERS_FULL if grid.blocks == 0 else _TIERS_BLOCKED
    for level, attempts in tiers:
        found = fill(grid, seed, words=words, max_level=level, attempts=attempts)
        if found is not None:
            break
    else:
        raise GenerationError(f"no fill found for seed {seed}")
    entries = {}
    for slot, word in found.items():
        clue = _clue(word)
        assert clue is not None  # _accept only takes clued words
        entries[slot.label] = (clue, word.text)
    return Crossword.from_entries(
        grid,
        entries,
        title=f"Mini #{seed}",
        author="ponder",
        source=f"generated, seed {seed}",
        notes="Clues from WordNet 3.0 definitions.",
    )
