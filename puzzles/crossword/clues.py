"""Clues from definitions, and a clue index that ranks words for a clue and a letter pattern.

:func:`write_clue` turns a word's WordNet definition into a short crossword clue that never
contains the answer or its stem (nor, for ``RAN``, its lemma ``run``). Inflected words get the
clue of their lemma with the head verb inflected (``Moved fast ...`` for ``RAN``) or a
``(pl.)`` / ``(more)`` tag.

:class:`ClueIndex` answers "which word of this pattern fits this clue?": each word is a small
document (its definitions, synonyms and hypernyms, synonyms counting double), clue and
document are compared by TF-IDF over crudely stemmed words, candidates are restricted to the
pattern, and ties go to the more common word. It knows only the bundled definitions, so it is
a heuristic: good on clues written from definitions, weaker on wordplay.
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from puzzles.crossword.model import mentions_answer
from puzzles.crossword.wordlist import WILDCARDS, Sense, Word, word_list

__all__ = [
    "MAX_CLUE_LENGTH",
    "Candidate",
    "ClueIndex",
    "clue_index",
    "clue_options",
    "write_clue",
]

MAX_CLUE_LENGTH = 80
"""Longest clue :func:`write_clue` writes, in characters."""
SHORT_CLUE_LENGTH = 50
"""A definition is cut to this many characters where it has a natural break there; only a
definition without one keeps up to :data:`MAX_CLUE_LENGTH` (newspaper clues are short)."""

_STOPWORDS = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each etc few for
    from further had has have having he her here hers him his how i if in into is it its itself
    just like made make many may me more most much must my no nor not now of off on once one
    only or other our out over own same she should so some something someone such than that the
    their them then there these they this those through to too under until up upon used using
    usually very was way we were what when where which while who whom why will with would you
    your especially often either etc esp kind type sort form thing things certain various
"""
STOPWORDS = frozenset(_STOPWORDS.split())
_TOKEN = re.compile(r"[a-z]+")
_SUFFIXES = ("ings", "ing", "ers", "est", "ies", "ied", "ed", "er", "es", "ly", "s", "e")
_LEADING_NOTE = re.compile(r"^\s*\([^)]*\)\s*")
_ARTICLE = re.compile(r"^(a|an|the)\s+", re.IGNORECASE)
_TO = re.compile(r"^to\s+", re.IGNORECASE)


def stem(word: str) -> str:
    """A crude stem (``running`` -> ``runn``, ``felines`` -> ``felin``): enough to match a
    clue's words to a definition's, not a linguistic claim."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """The stemmed content words of a text."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS and len(t) > 1]


# --- writing clues --------------------------------------------------------------------------

_IRREGULAR = {
    "present": {"be": "is", "have": "has", "do": "does", "go": "goes"},
    "past": {"be": "was", "have": "had", "do": "did", "go": "went", "make": "made"},
    "ing": {"be": "being", "die": "dying", "lie": "lying", "tie": "tying", "see": "seeing"},
}


def _double_final(verb: str) -> bool:
    # "stop" -> "stopped": a short verb ending consonant-vowel-consonant doubles it.
    return (
        len(verb) <= 4
        and re.search(r"[^aeiou][aeiou][bdgklmnprt]$", verb) is not None
        and not verb.endswith(("w", "x", "y"))
    )


def _inflect(verb: str, kind: str, known: dict[str, str]) -> str:
    if verb in _IRREGULAR.get(kind, {}):
        return _IRREGULAR[kind][verb]
    if verb in known:
        return known[verb]
    if kind == "present":
        if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
            return verb + "es"
        if re.search(r"[^aeiou]y$", verb):
            return verb[:-1] + "ies"
        return verb + "s"
    if kind == "past":
        if verb.endswith("e"):
            return verb + "d"
        if re.search(r"[^aeiou]y$", verb):
            return verb[:-1] + "ied"
        return verb + verb[-1] + "ed" if _double_final(verb) else verb + "ed"
    if kind == "ing":
        if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
            return verb[:-1] + "ing"
        return verb + verb[-1] + "ing" if _double_final(verb) else verb + "ing"
    return verb


@functools.cache
def _known_inflections(kind: str) -> dict[str, str]:
    """base -> inflected form for the verbs the word list knows (its irregular forms)."""
    return {w.base: w.text.lower() for w in word_list() if w.form == kind and w.base}


def _first_clause(definition: str) -> str:
    text = _LEADING_NOTE.sub("", definition).strip()
    return text.split(";")[0].strip()


_DANGLING_WORDS = """
a an the and or but of to in into on at by for from with as that which who is are be its
their his her than so such being having usually very more most not during
"""
_DANGLING = frozenset(_DANGLING_WORDS.split())
_BREAK_WORDS = """
that which who whose having with typically usually especially often used in on for from by
as being when where while whereby into consisting containing
"""
_BREAK_BEFORE = frozenset(_BREAK_WORDS.split())
_COMPLEMENTS = frozenset(["by", "in", "on", "for", "from", "with", "as", "into"])
"""Break words a participle before them needs: ``vertebrates characterized | by ...``."""


def _shorten(text: str, limit: int = MAX_CLUE_LENGTH) -> str | None:
    """The definition if it is at most ``limit`` characters, else its longest head that stops
    at a natural break (a colon, a comma, or before ``that``, ``having``, ``with``...); never
    a head that ends mid-phrase (``assets belonging to``, ``evergreen tree cultivated``) or
    is a single word."""
    text = text.strip().rstrip(".,:;")

    def fit(head: str, minimum: int) -> bool:
        last = head.rsplit(" ", 1)[-1].lower()
        return (
            minimum <= len(head) <= limit
            and last not in _DANGLING
            and head.count("(") == head.count(")")
        )

    if fit(text, 3):
        return text
    for sep in (":", " (", ", "):
        head = text.split(sep)[0].strip().rstrip(",;")
        if " " in head and fit(head, 10):
            return head
    words = text.split()
    for i in range(len(words) - 1, 1, -1):
        word, before = words[i].lower(), words[i - 1].lower()
        if before.endswith("ed") and word in _COMPLEMENTS:
            continue  # a participle cut from its complement
        if word in _BREAK_BEFORE:
            head = " ".join(words[:i]).rstrip(",;")
            if fit(head, 10):
                return head
    # Last, the words before the first "and" ("Fruit with red or yellow or green skin | and
    # sweet ..."): a later "and" too often splits the second of two parts.
    if "and" in words[2:]:
        head = " ".join(words[: words.index("and", 2)]).rstrip(",;")
        if fit(head, 10):
            return head
    return None


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def clue_options(word: Word) -> list[str]:
    """Every clue :func:`write_clue` could give for a word, best first."""
    answer = word.text.lower()
    avoid = {answer} | {s.base for s in word.senses if s.base}
    options: list[str] = []
    for sense in word.senses:
        clause = _first_clause(sense.definition)
        texts = [clause]
        if ":" in clause:
            texts.append(clause.split(":")[0])
        # A short head of the definition where there is one, the longer text otherwise.
        heads = [
            _shorten(t, limit) for limit in (SHORT_CLUE_LENGTH, MAX_CLUE_LENGTH) for t in texts
        ]
        for short in heads:
            if not short:
                continue
            clue = _dress(short, sense)
            if clue and not any(mentions_answer(clue, a, strict=True) for a in avoid):
                options.append(clue)
                break
    if not options:
        # Every definition gives the answer away: fall back on synonyms ("Masticate").
        for sense in word.senses:
            dressed = [
                _dress(synonym, sense, tag=False)
                for synonym in sense.synonyms
                if not any(mentions_answer(synonym, a, strict=True) for a in avoid)
            ]
            synonyms = [d for d in dressed if d]
            if synonyms:
                text = _capitalise(", ".join(s.lower() for s in synonyms[:2]))
                options.append(text + (" (pl.)" if sense.inflection == "plural" else ""))
                break
    return list(dict.fromkeys(options))


def _dress(text: str, sense: Sense, *, tag: bool = True) -> str | None:
    """The definition fitted to an inflected answer: ``Moved ...`` for a past tense,
    ``(pl.)`` after a plural's."""
    kind = sense.inflection
    if kind in ("present", "past", "ing") and sense.pos == "v":
        head, _, rest = text.partition(" ")
        if not head.isalpha():
            return None
        inflected = _inflect(head.lower(), kind, _known_inflections(kind))
        return _capitalise(f"{inflected} {rest}".strip())
    if kind == "plural":
        return _capitalise(_ARTICLE.sub("", text)) + (" (pl.)" if tag else "")
    if kind == "comparative":
        return "More " + _ARTICLE.sub("", text)
    if kind == "superlative":
        return "Most " + _ARTICLE.sub("", text)
    # Clues drop a definition's leading article or infinitive "to" ("Barrier that ...").
    bare = _TO.sub("", text) if sense.pos == "v" else _ARTICLE.sub("", text)
    bare = _LEADING_NOTE.sub("", bare)  # "The (usually elliptical) path ..."
    return _capitalise(bare if " " in bare.strip() and bare[:1].isalpha() else text)


def write_clue(word: Word) -> str | None:
    """A clue for the word from its definitions, or None when every definition gives the
    answer away (or is too long to make a clue)."""
    options = clue_options(word)
    return options[0] if options else None


# --- the clue index -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    """A word the index proposes for a clue, with its score (0 when only the pattern fits)."""

    word: Word
    score: float

    @property
    def text(self) -> str:
        return self.word.text


class ClueIndex:
    """Ranks the words of a word list for a clue and a pattern (see the module docstring)."""

    SYNONYM_WEIGHT = 2.0
    HYPERNYM_WEIGHT = 1.0
    DEFINITION_WEIGHT = 1.0
    SENSE_DECAY = 0.8
    """Weight of each later sense relative to the one before (senses come commonest first)."""
    NORM_POWER = 0.25
    """Length normalisation: 0.5 would be cosine; less spares words with many senses.
    Both set on generated clues of seeds 20-59, never on the hand-written test clues."""

    def __init__(self, words: Iterable[Word]) -> None:
        self._words = list(words)
        postings: dict[str, dict[int, float]] = defaultdict(dict)
        for i, word in enumerate(self._words):
            counts: dict[str, float] = defaultdict(float)
            for k, sense in enumerate(word.senses):
                decay = self.SENSE_DECAY**k
                for t in tokens(sense.definition):
                    counts[t] += self.DEFINITION_WEIGHT * decay
                for synonym in sense.synonyms:
                    for t in tokens(synonym):
                        counts[t] += self.SYNONYM_WEIGHT * decay
                for hypernym in sense.hypernyms:
                    for t in tokens(hypernym):
                        counts[t] += self.HYPERNYM_WEIGHT * decay
            if word.base:
                counts[stem(word.base)] += self.SYNONYM_WEIGHT
            for t, count in counts.items():
                postings[t][i] = 1.0 + math.log(count) if count >= 1 else count
        n = len(self._words)
        self._idf = {t: math.log((n + 1) / (len(docs) + 0.5)) for t, docs in postings.items()}
        norms = [0.0] * n
        for t, docs in postings.items():
            idf = self._idf[t]
            for i, weight in docs.items():
                norms[i] += (weight * idf) ** 2
        self._postings = {
            t: {
                i: weight * self._idf[t] / norms[i] ** self.NORM_POWER for i, weight in docs.items()
            }
            for t, docs in postings.items()
        }

    def candidates(self, clue: str, pattern: str, limit: int = 10) -> list[Candidate]:
        """Up to ``limit`` words that fit ``pattern`` (``?A??S``; ``?``, ``.``, ``_`` unknown),
        best match to ``clue`` first; words the clue itself contains are left out."""
        pattern = pattern.strip()
        length = len(pattern)
        fixed = [(i, ch.upper()) for i, ch in enumerate(pattern) if ch not in WILDCARDS]

        def fits(word: Word) -> bool:
            text = word.text
            return len(text) == length and all(text[i] == ch for i, ch in fixed)

        scores: dict[int, float] = defaultdict(float)
        query: dict[str, float] = defaultdict(float)
        for t in tokens(clue):
            query[t] += self._idf.get(t, 0.0)
        for t, weight in query.items():
            for i, doc_weight in self._postings.get(t, {}).items():
                scores[i] += weight * doc_weight
        ranked = [
            Candidate(self._words[i], score)
            for i, score in scores.items()
            if fits(self._words[i]) and not mentions_answer(clue, self._words[i].text)
        ]
        ranked.sort(key=lambda c: (-round(c.score, 9), c.word.rank))
        if len(ranked) < limit:
            seen = {c.word.text for c in ranked}
            for word in sorted((w for w in self._words if fits(w)), key=lambda w: w.rank):
                if len(ranked) >= limit:
                    break
                if word.text not in seen and not mentions_answer(clue, word.text):
                    ranked.append(Candidate(word, 0.0))
        return ranked[:limit]

    def best(self, clue: str, pattern: str) -> Word | None:
        found = self.candidates(clue, pattern, limit=1)
        return found[0].word if found else None


@functools.cache
def clue_index() -> ClueIndex:
    """The index over the bundled word list, built on first use (about a second)."""
    return ClueIndex(word_list())
