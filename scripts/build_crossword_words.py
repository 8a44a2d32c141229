"""Build the crossword word list ``puzzles/crossword/data/words.json.gz`` from WordNet 3.0.

Run it where Debian's ``wordnet-base`` and ``scowl`` packages are installed
(``apt-get install wordnet-base scowl``; the files live in ``/usr/share/wordnet`` and
``/usr/share/dict/scowl``), or point ``--wordnet`` at an unpacked WordNet 3.0 ``dict`` folder
and ``--scowl`` at SCOWL's ``final`` folder::

    python scripts/build_crossword_words.py [--wordnet DIR] [--scowl DIR] [--out FILE]

Only this script needs those packages; the app and the tests read the committed output. The
output is byte-for-byte reproducible (sorted keys, fixed gzip header time).

What goes in:

* **lemmas** of 3 to 5 letters (plain a-z, at least one sense written in lower case, so proper
  names and abbreviations such as ``DNA`` stay out), with their senses: part of speech, the
  definition without its examples, a few synonyms and hypernyms. Lemmas of other lengths are
  kept too when they are the base of an inflected form below (``go`` for ``goes``).
* **forms**: inflections of 3 to 5 letters (plurals, ``-s``, ``-ed``, ``-ing``, ``-er``,
  ``-est``) that WordNet's own morphology (its rules and exception lists) maps to a kept
  lemma, and that are attested: in SCOWL's lists up to size 50 or at least twice in WordNet's
  glosses. The check keeps out forms nobody writes, such as ``muds``. A lemma such as
  ``parts`` can be an inflection too; a flag says whether the inflection's senses come before
  the lemma's own.
* **level**: the smallest SCOWL size list (10, 20, 35, 40, 50) the word is in, 0 when none:
  SCOWL's sizes rank words by how common they are (10 holds the most common English words),
  so the generator fills grids from the low levels.
* **frequency**: how often the word occurs in the text of all WordNet glosses and examples,
  plus, for a lemma, its SemCor sense-tag count from ``cntlist.rev``. A rough measure that
  breaks ties within a level.

Senses WordNet files under the usage domains *ethnic slur*, *obscenity* or *disparagement*,
or whose definition calls them offensive, vulgar or obscene or is about sex or excretion, are
dropped, so no clue is ever written from them; a word whose most common sense is such a
sense, or that has no other, is left out entirely, as are the words in :data:`BLOCKLIST`.

Both licences ask that their notices travel with every copy; they are written next to the
output as ``LICENSE-WordNet`` and ``LICENSE-SCOWL``. Only SCOWL's English and American lists of
sizes 10 to 50 are read; their sources (Moby, Kelk's frequency list, 12Dicts, and
inflections made with WordNet) are public domain or under the notices in that file.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import io
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORDNET = Path("/usr/share/wordnet")
DEFAULT_SCOWL = Path("/usr/share/dict/scowl")
SCOWL_LEVELS = (10, 20, 35, 40, 50)
DEFAULT_OUT = ROOT / "puzzles" / "crossword" / "data" / "words.json.gz"

MIN_LEN, MAX_LEN = 3, 5
MAX_SENSES = 6
"""Senses kept per lemma, most frequent first (enough for clues and the clue index)."""
MAX_DEFINITION = 150
MAX_SYNONYMS = 4
MAX_HYPERNYMS = 2
MIN_FORM_COUNT = 2
"""Occurrences in the gloss corpus an inflected form needs to be listed."""

VOWELS = re.compile("[aeiouy]")
POS_NAMES = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
# WordNet's usage-domain synsets whose members must never appear in a puzzle.
BAD_DOMAINS = {"06718862", "07124340", "06717170"}  # ethnic slur, obscenity, disparagement
OFFENSIVE = re.compile(
    r"offensive (?:term|name|word)|ethnic slur|\bobscene|\bvulgar|derogatory|disparaging|"
    r"\bslur\b|sexual intercourse|have sex\b|\bsex organ|genitals|\bpenis\b|\bvagina\b|"
    r"buttocks|excrement|\bfeces",
    re.IGNORECASE,
)
_BLOCKED = """
    arse ass bitch bonk boob boobs butt chink clit cock coon crap cunt damn dick dildo dyke fag
    fagot fuck gook hell homo honky jap kike nazi negro nigga nigra nooky paki pansy piss poof
    pouf poove prick pussy queer rape raper shag shit slut spic spick spik tits turd twat wank
    whore
"""
BLOCKLIST = frozenset(_BLOCKED.split())
"""Words left out whatever WordNet says of them (some of their senses are harmless, but a
generated puzzle should never show them)."""

# WordNet's detachment rules (morphy), per part of speech: (suffix, ending of the base, kind).
RULES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "n": (
        ("s", "", "plural"),
        ("ses", "s", "plural"),
        ("xes", "x", "plural"),
        ("zes", "z", "plural"),
        ("ches", "ch", "plural"),
        ("shes", "sh", "plural"),
        ("men", "man", "plural"),
        ("ies", "y", "plural"),
    ),
    "v": (
        ("s", "", "present"),
        ("ies", "y", "present"),
        ("es", "e", "present"),
        ("es", "", "present"),
        ("ed", "e", "past"),
        ("ed", "", "past"),
        ("ing", "e", "ing"),
        ("ing", "", "ing"),
    ),
    "a": (
        ("er", "", "comparative"),
        ("est", "", "superlative"),
        ("er", "e", "comparative"),
        ("est", "e", "superlative"),
    ),
}


@dataclass
class Synset:
    pos: str
    words: list[str]
    pointers: list[tuple[str, str, str]]
    definition: str
    examples: list[str] = field(default_factory=list)


def read_synsets(wordnet: Path) -> dict[tuple[str, str], Synset]:
    synsets: dict[tuple[str, str], Synset] = {}
    for name, pos in POS_NAMES.items():
        with open(wordnet / f"data.{name}", encoding="latin-1") as handle:
            for line in handle:
                if line.startswith("  "):  # the licence header
                    continue
                head, _, gloss = line.partition(" | ")
                parts = head.split()
                offset = parts[0]
                count = int(parts[3], 16)
                words = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]) for i in range(count)]
                at = 4 + 2 * count
                n_pointers = int(parts[at])
                pointers = []
                for i in range(n_pointers):
                    symbol, target, target_pos = parts[at + 1 + 4 * i : at + 4 + 4 * i]
                    pointers.append((symbol, target, "a" if target_pos == "s" else target_pos))
                definition, examples = split_gloss(gloss.strip())
                synsets[(pos, offset)] = Synset(pos, words, pointers, definition, examples)
    return synsets


def split_gloss(gloss: str) -> tuple[str, list[str]]:
    """The definition and the quoted examples of a WordNet gloss."""
    examples = re.findall(r'"([^"]*)"', gloss)
    first_quote = gloss.find('"')
    definition = gloss if first_quote < 0 else gloss[:first_quote]
    return definition.strip().rstrip(";").strip(), examples


def read_index(wordnet: Path) -> dict[str, list[tuple[str, int, str]]]:
    """lemma -> [(pos, sense number, synset offset)] in WordNet's sense order."""
    senses: dict[str, list[tuple[str, int, str]]] = collections.defaultdict(list)
    for name, pos in POS_NAMES.items():
        with open(wordnet / f"index.{name}", encoding="latin-1") as handle:
            for line in handle:
                if line.startswith("  "):
                    continue
                parts = line.split()
                lemma, synset_count = parts[0], int(parts[2])
                offsets = parts[-synset_count:]
                for number, offset in enumerate(offsets, start=1):
                    senses[lemma].append((pos, number, offset))
    return senses


def read_tag_counts(wordnet: Path) -> dict[tuple[str, str, int], int]:
    """(lemma, pos, sense number) -> SemCor tag count."""
    ss_type = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
    counts: dict[tuple[str, str, int], int] = collections.Counter()
    with open(wordnet / "cntlist.rev", encoding="latin-1") as handle:
        for line in handle:
            key, number, count = line.split()
            lemma, _, rest = key.partition("%")
            counts[(lemma, ss_type[rest[0]], int(number))] += int(count)
    return counts


def read_exceptions(wordnet: Path) -> dict[str, list[tuple[str, str, str]]]:
    """inflected form -> [(base, pos, kind)] from the ``*.exc`` lists."""
    out: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)
    for name, pos in (("noun", "n"), ("verb", "v"), ("adj", "a")):
        with open(wordnet / f"{name}.exc", encoding="latin-1") as handle:
            for line in handle:
                form, *bases = line.split()
                for base in bases:
                    if pos == "n":
                        kind = "plural"
                    elif pos == "v":
                        kind = (
                            "ing"
                            if form.endswith("ing")
                            else "present"
                            if form.endswith("s") and not form.endswith("ss")
                            else "past"
                        )
                    else:
                        kind = "superlative" if form.endswith("st") else "comparative"
                    out[form].append((base, pos, kind))
    return out


def read_levels(scowl: Path) -> dict[str, int]:
    """word -> the smallest SCOWL size it is listed in (lower-case a-z words only)."""
    levels: dict[str, int] = {}
    for level in SCOWL_LEVELS:
        for variant in ("english", "american"):
            path = scowl / f"{variant}-words.{level}"
            if not path.is_file():
                continue
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                word = line.strip()
                if word.isascii() and word.isalpha() and word.islower():
                    levels.setdefault(word, level)
    return levels


_ENDINGS = {"past": "ed", "ing": "ing", "comparative": "er", "superlative": "est"}


def regular(base: str, kind: str) -> set[str]:
    """The regular spellings of an inflection (both, where a final consonant may double)."""
    if kind in ("plural", "present"):
        if base.endswith("man") and kind == "plural":
            return {base[:-3] + "men", base + "s"}
        if base.endswith(("s", "x", "z", "ch", "sh")):
            return {base + "es"}
        if re.search(r"[^aeiou]y$", base):
            return {base[:-1] + "ies"}
        if base.endswith("o"):
            return {base + "s", base + "es"}
        return {base + "s"}
    ending = _ENDINGS[kind]
    if base.endswith("e"):
        return {base[:-1] + ending, base + ending} if kind == "ing" else {base[:-1] + ending}
    if re.search(r"[^aeiou]y$", base) and kind != "ing":
        return {base[:-1] + "i" + ending}
    return {base + ending, base + base[-1] + ending}


def tokens(text: str) -> list[str]:
    """The lower-case words of a text; capitalised ones are mostly names (``James``), which
    would otherwise pass for common words."""
    return re.findall(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])", text)


def clean_definition(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= MAX_DEFINITION:
        return text
    cut = text[:MAX_DEFINITION].rsplit(" ", 1)[0]
    return cut.rstrip(",;:(") + "..."


def display(word: str) -> str:
    return word.replace("_", " ")


def build(wordnet: Path, scowl: Path) -> dict[str, object]:
    synsets = read_synsets(wordnet)
    index = read_index(wordnet)
    tag_counts = read_tag_counts(wordnet)
    exceptions = read_exceptions(wordnet)
    levels = read_levels(scowl)
    lemma_tags: collections.Counter[str] = collections.Counter()
    pos_tags: collections.Counter[tuple[str, str]] = collections.Counter()
    for (name, pos, _), count in tag_counts.items():
        lemma_tags[name] += count
        pos_tags[(name, pos)] += count

    corpus: collections.Counter[str] = collections.Counter()
    for synset in synsets.values():
        corpus.update(tokens(synset.definition))
        for example in synset.examples:
            corpus.update(tokens(example))

    bad_synsets = {
        key
        for key, synset in synsets.items()
        if any(sym == ";u" and target in BAD_DOMAINS for sym, target, _ in synset.pointers)
        or OFFENSIVE.search(synset.definition)
    }

    def lower_senses(lemma: str) -> list[tuple[str, int, str]]:
        """The senses in which the lemma is written in lower case (not a name)."""
        kept = []
        for pos, number, offset in index.get(lemma, ()):
            synset = synsets[(pos, offset)]
            if any(w == lemma for w in synset.words) and (pos, offset) not in bad_synsets:
                kept.append((pos, number, offset))
        return kept

    def offensive(lemma: str) -> bool:
        """Blocklisted, or its most common written-in-lower-case sense is a bad one."""
        if lemma in BLOCKLIST:
            return True
        senses = [
            (pos, number, offset)
            for pos, number, offset in index.get(lemma, ())
            if any(w == lemma for w in synsets[(pos, offset)].words)
        ]
        if not senses:
            return False
        first = max(senses, key=lambda s: tag_counts.get((lemma, s[0], s[1]), 0))
        if tag_counts.get((lemma, first[0], first[1]), 0) == 0:
            first = senses[0]
        return (first[0], first[2]) in bad_synsets

    def usable(lemma: str) -> bool:
        return (
            lemma.isascii()
            and lemma.isalpha()
            and not offensive(lemma)
            and VOWELS.search(lemma) is not None  # drops abbreviations such as "lb", "tsk"
            and bool(lower_senses(lemma))
        )

    candidates = {lemma for lemma in index if MIN_LEN <= len(lemma) <= MAX_LEN and usable(lemma)}

    irregular = {reading for readings in exceptions.values() for reading in readings}
    forms: dict[str, list[object]] = {}
    for form in sorted(set(corpus) | set(levels)):
        if not MIN_LEN <= len(form) <= MAX_LEN or form in BLOCKLIST:
            continue
        if not form.isascii() or not form.isalpha() or not VOWELS.search(form):
            continue
        if corpus[form] < MIN_FORM_COUNT and form not in levels:
            continue
        # The regular rules first: "soles" is the plural of "sole" before that of "sol".
        found: list[tuple[str, str, str]] = []
        for pos in ("n", "v", "a"):
            for suffix, ending, kind in RULES[pos]:
                if form.endswith(suffix) and len(form) > len(suffix):
                    found.append((form[: -len(suffix)] + ending, pos, kind))
        # A rule must also run forwards: "sages" is not "sag" + "es", "pass" not "pas" + "s".
        # ...and not where WordNet lists an irregular form instead ("sited" is not "sit").
        found = [
            (base, pos, kind)
            for base, pos, kind in found
            if form in regular(base, kind) and (base, pos, kind) not in irregular
        ]
        found.extend(exceptions.get(form, ()))
        readings = [
            (base, pos, kind)
            for base, pos, kind in found
            if base != form and usable(base) and any(p == pos for p, _, _ in lower_senses(base))
        ]
        if not readings:
            continue
        # The reading whose lemma is most often tagged in that part of speech: "seeks" is
        # the verb more than the plural of the rare noun "seek". Ties keep the rule order.
        base, pos, kind = max(readings, key=lambda r: pos_tags[(r[0], r[1])])
        # A word can be a lemma and an inflection at once ("parts": the lemma means
        # "the local environment"); the inflection's senses lead unless the lemma's
        # own senses are tagged at least a quarter as often as the base's.
        primary = int(form not in candidates or lemma_tags[form] * 4 < lemma_tags[base])
        forms[form] = [corpus[form], levels.get(form, 0), base, pos, kind, primary]

    wanted = candidates | {str(entry[2]) for entry in forms.values()}
    lemmas: dict[str, list[object]] = {}
    for lemma in sorted(wanted):
        senses = lower_senses(lemma)
        pos_rank = {"n": 0, "v": 1, "a": 2, "r": 3}
        senses.sort(key=lambda s: (-tag_counts.get((lemma, s[0], s[1]), 0), pos_rank[s[0]], s[1]))
        records = []
        for pos, _, offset in senses[:MAX_SENSES]:
            synset = synsets[(pos, offset)]
            synonyms = [display(w).lower() for w in synset.words if w.lower() != lemma]
            hypernyms = []
            for symbol, target, target_pos in synset.pointers:
                if symbol in ("@", "@i") and (target_pos, target) in synsets:
                    hypernyms.append(display(synsets[(target_pos, target)].words[0]).lower())
            records.append(
                [
                    pos,
                    clean_definition(synset.definition),
                    synonyms[:MAX_SYNONYMS],
                    hypernyms[:MAX_HYPERNYMS],
                ]
            )
        lemmas[lemma] = [corpus[lemma] + lemma_tags[lemma], levels.get(lemma, 0), records]

    return {
        "format": 1,
        "source": "WordNet 3.0 (see LICENSE-WordNet) and SCOWL sizes 10-50 (see LICENSE-SCOWL)",
        "lengths": [MIN_LEN, MAX_LEN],
        "lemmas": lemmas,
        "forms": forms,
    }


def write(data: dict[str, object], out: Path) -> int:
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    buffer = io.BytesIO()
    # mtime=0 and no file name keep the archive byte-for-byte reproducible.
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(payload.encode("ascii"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(buffer.getvalue())
    return len(buffer.getvalue())


LICENCES = {
    "LICENSE-WordNet": (
        ("LICENSE", "/usr/share/doc/wordnet-base/copyright"),
        "The crossword word list words.json.gz in this folder is derived from WordNet 3.0\n"
        "(definitions, synonyms, hypernyms, sense counts, morphology) by\n"
        "scripts/build_crossword_words.py. WordNet is distributed under the following\n"
        "licence, which applies to that data.\n\n",
    ),
    "LICENSE-SCOWL": (
        ("../README", "README", "/usr/share/doc/scowl/copyright"),
        "The crossword word list words.json.gz in this folder takes its commonness levels and\n"
        "some inflected forms from SCOWL (Spell Checker Oriented Word Lists, by Kevin\n"
        "Atkinson), English and American lists of sizes 10 to 50, by\n"
        "scripts/build_crossword_words.py. SCOWL is distributed under the following notices.\n\n",
    ),
}


def copy_licences(sources: dict[str, Path], out_dir: Path) -> None:
    for name, (files, header) in LICENCES.items():
        folder = sources[name]
        paths = [folder / f if not f.startswith("/") else Path(f) for f in files]
        notice = next((p.read_text(encoding="utf-8") for p in paths if p.is_file()), None)
        if notice is None:
            print(f"warning: no licence text found for {name}; keep the old one", file=sys.stderr)
            continue
        (out_dir / name).write_text(header + notice, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, default=DEFAULT_WORDNET, help="WordNet dict dir")
    parser.add_argument("--scowl", type=Path, default=DEFAULT_SCOWL, help="SCOWL final dir")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .json.gz")
    args = parser.parse_args(argv)
    if not (args.wordnet / "data.noun").is_file():
        print(
            f"no WordNet data in {args.wordnet}; install Debian's wordnet-base package "
            "or pass --wordnet DIR",
            file=sys.stderr,
        )
        return 2
    if not (args.scowl / "english-words.10").is_file():
        print(
            f"no SCOWL lists in {args.scowl}; install Debian's scowl package or pass --scowl DIR",
            file=sys.stderr,
        )
        return 2
    data = build(args.wordnet, args.scowl)
    size = write(data, args.out)
    copy_licences({"LICENSE-WordNet": args.wordnet, "LICENSE-SCOWL": args.scowl}, args.out.parent)
    lemmas = data["lemmas"]
    forms = data["forms"]
    assert isinstance(lemmas, dict) and isinstance(forms, dict)
    print(f"{args.out}: {len(lemmas)} lemmas, {len(forms)} forms, {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
