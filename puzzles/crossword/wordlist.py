"""The bundled crossword word list: 3- to 5-letter English words with senses and commonness.

The data (``data/words.json.gz``, about 0.6 MB) is built from WordNet 3.0 and SCOWL by
``scripts/build_crossword_words.py``; see the licence files next to it. It is read once, on
first use, so importing this module costs nothing.

Each :class:`Word` has its senses (part of speech, definition, synonyms, hypernyms), a
``level`` (the smallest SCOWL list it is in: 10 holds the most common English words, 50 the
least common we use; 0 when it is in none) and a ``frequency`` (occurrences in WordNet's own
glosses and SemCor, which orders words within a level). Inflected forms (``cats``, ``ran``)
carry their lemma in ``base``, the kind of inflection in ``form``, and the lemma's senses.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_FILE",
    "FORM_KINDS",
    "LEVELS",
    "Sense",
    "Word",
    "WordList",
    "match_pattern",
    "word_list",
]

DATA_FILE = "data/words.json.gz"
"""The bundled word list, relative to this package."""
LEVELS = (10, 20, 35, 40, 50)
"""SCOWL's size levels, most common first."""
FORM_KINDS = ("plural", "present", "past", "ing", "comparative", "superlative")
WILDCARDS = frozenset("?._-* ")
"""Characters that stand for an unknown letter in a pattern such as ``?A??S``."""


@dataclass(frozen=True, slots=True)
class Sense:
    """One meaning of a word: part of speech (``n``, ``v``, ``a``, ``r``), WordNet's
    definition, and some synonyms and hypernyms (lower case, spaces between words). For a
    meaning an inflected word takes from its lemma (``ran`` from ``run``), ``base`` is the
    lemma and ``inflection`` the kind (one of :data:`FORM_KINDS`); the definition is the
    lemma's."""

    pos: str
    definition: str
    synonyms: tuple[str, ...] = ()
    hypernyms: tuple[str, ...] = ()
    base: str = ""
    inflection: str = ""


@dataclass(frozen=True, slots=True)
class Word:
    """A word that may fill a slot, upper case in ``text``."""

    text: str
    frequency: int
    level: int
    senses: tuple[Sense, ...]
    base: str = ""
    form: str = ""

    @property
    def rank(self) -> tuple[int, int, str]:
        """Sort key: most common first (lower level, then more frequent)."""
        return (self.level or 99, -self.frequency, self.text)

    def is_common(self, level: int = 35) -> bool:
        """In SCOWL's lists up to ``level`` (35 by default: words most dictionaries have)."""
        return 0 < self.level <= level

    def matches(self, pattern: str) -> bool:
        return match_pattern(self.text, pattern)


def match_pattern(text: str, pattern: str) -> bool:
    """Whether ``text`` fits ``pattern`` (``?``, ``.``, ``_`` or ``-`` for an unknown
    letter; case does not matter)."""
    if len(text) != len(pattern):
        return False
    return all(p in WILDCARDS or p.upper() == t.upper() for t, p in zip(text, pattern, strict=True))


class WordList:
    """Words by text and by length, each length ordered most common first."""

    def __init__(self, words: Iterable[Word]) -> None:
        self._words: dict[str, Word] = {}
        for word in words:
            self._words[word.text.upper()] = word
        by_length: dict[int, list[Word]] = {}
        for word in self._words.values():
            by_length.setdefault(len(word.text), []).append(word)
        self._by_length = {
            n: tuple(sorted(ws, key=lambda w: w.rank)) for n, ws in by_length.items()
        }

    @classmethod
    def load(cls, path: str | Path | None = None) -> WordList:
        """The list in a ``words.json.gz`` file (the bundled one by default)."""
        if path is None:
            raw = resources.files("puzzles.crossword").joinpath(DATA_FILE).read_bytes()
        else:
            raw = Path(path).read_bytes()
        return cls(_parse(json.loads(gzip.decompress(raw))))

    def __len__(self) -> int:
        return len(self._words)

    def __iter__(self) -> Iterator[Word]:
        return iter(self._words.values())

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and text.upper() in self._words

    def get(self, text: str) -> Word | None:
        return self._words.get(text.upper())

    def of_length(self, length: int) -> tuple[Word, ...]:
        """Every word of that length, most common first."""
        return self._by_length.get(length, ())

    def matching(self, pattern: str) -> list[Word]:
        """Words that fit a pattern such as ``?A??S``, most common first."""
        return [w for w in self.of_length(len(pattern)) if w.matches(pattern)]

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(sorted(self._by_length))


def _parse(data: dict[str, Any]) -> Iterator[Word]:
    low, high = data.get("lengths", (3, 5))
    lemmas: dict[str, Any] = data["lemmas"]
    senses_of: dict[str, tuple[Sense, ...]] = {}

    def senses(lemma: str) -> tuple[Sense, ...]:
        if lemma not in senses_of:
            senses_of[lemma] = tuple(
                Sense(pos, definition, tuple(synonyms), tuple(hypernyms))
                for pos, definition, synonyms, hypernyms in lemmas[lemma][2]
            )
        return senses_of[lemma]

    forms: dict[str, Any] = data["forms"]
    for text, (frequency, level, _) in lemmas.items():
        if low <= len(text) <= high and text not in forms:
            yield Word(text.upper(), frequency, level, senses(text))
    for text, (frequency, level, base, pos, kind, primary) in forms.items():
        inflected = tuple(
            replace(s, base=base, inflection=kind) for s in senses(base) if s.pos == pos
        )
        own = senses(text) if text in lemmas else ()
        if text in lemmas:
            frequency = max(frequency, lemmas[text][0])
            level = min((v for v in (level, lemmas[text][1]) if v), default=0)
        ordered = inflected + own if primary else own + inflected
        if ordered:
            yield Word(text.upper(), frequency, level, ordered, base=base, form=kind)


@functools.cache
def word_list() -> WordList:
    """The bundled word list, loaded on first use and shared after that."""
    return WordList.load()
