"""Tree of Thoughts' published GPT-4 runs on the Game of 24, turned into ponder recordings.

princeton-nlp/tree-of-thought-llm (MIT) publishes three logs of its GPT-4 runs (temperature
0.7) on rows 900-999 of its ``24.csv``, under ``logs/game24/``:

* ``gpt-4_0.7_naive_standard_sample_100_start900_end1000.json``: IO, 100 replies a hand;
* ``gpt-4_0.7_naive_cot_sample_100_start900_end1000.json``: CoT, 100 replies a hand;
* ``gpt-4_0.7_propose1_value3_greedy5_start900_end1000.json``: ToT (propose, value with
  n = 3, greedy b = 5): per hand and step the states kept (``ys``), every proposal
  (``new_ys``, each a state's text plus one line), the summed values and the selection.

This module turns them into recordings in ponder's format (``notes/recording-contract.md``):
a header line, then one line per model call, each with a ``match`` key so that the replay
engine answers ponder's own calls with them, whatever ponder's prompts say. The keys are
built from the same contexts ponder's methods give their calls
(:meth:`solver.domains.game24.Game24Domain.context`), with ponder's own readers:

* **IO / CoT** (purpose ``io`` / ``cot``): a hand's 100 replies, in logged order, as the
  replies of that hand's call; key: kind, hand, target.
* **ToT** (``tot --paper``): the reference code (``src/tot/methods/bfs.py``) asks for one
  proposal reply per kept state and splits it into lines, each line a child; so a state's
  children, joined again with newlines, are exactly that reply. Recorded as the reply of the
  ``propose`` call for the state, keyed by the numbers left (ponder's prompt wording differs).
  A state whose numbers are just ``24`` was asked for the answer instead (ToT's CoT prompt
  with the steps so far): its children are the reply of ponder's ``answer`` call, keyed by
  the state's steps.
* **values**: the log keeps only each state's summed value, 20 a ``sure``, 1 a ``likely``,
  0.001 an ``impossible``, over n = 3 samples. With at most three samples the sum decomposes
  in one way only (:func:`decompose`), so the three ``value`` replies are rebuilt as those
  words and marked ``reconstructed``. A sample whose last line was none of the three words
  added 0 in ToT; it is rebuilt as a text that names no label, which ponder reads as no
  label (also 0). Keyed by the numbers left; the answer's judge (``judge``) by the answer.

Where the log does not say, the record says so rather than invent:

* a **duplicate** candidate (the same text twice in one step) was scored 0 by ToT without a
  call; ponder also scores a duplicate 0 without one, so nothing is recorded for it;
* a chain of **four lines without an answer** was forced to 0 after its value call (ToT's
  ``value_outputs_unwrap``), so its labels are unknown: when ponder makes that call (it values
  every step's children) it gets three texts without a label, 0 as in ToT, marked so;
* ToT caches values by prompt text for the **whole run of 100 hands**; ponder caches them by
  the multiset of numbers for one hand. The first logged value of a multiset in a hand is the
  one recorded (ponder asks once); later different values of the same multiset in that hand
  (written in another order, or forced to 0) are counted in :class:`ImportStats`;
* per-call token usage is not logged, only running totals per hand: IO and CoT get their
  hand's totals; ToT's first call of each hand (the proposals from the hand, which every run
  makes) carries the hand's totals with a note saying so, and its other calls 0; finish
  reasons are not logged and are written as ``stop``; no timing is logged (every call at 0 s,
  no latency);
* a proposed line without ``left:`` (``11 / 5 = 2.2 (not a valid step)``) was valued by ToT
  with its last-step judge; ponder reads it as a step and values its numbers, and is given
  the value ToT gave the line.

Keys are what ponder's readers read in ToT's text (the state ponder's ToT reaches after each
chain, :class:`ChainReader`), so a replay follows ponder's reading; a chain ponder cannot read is
keyed by ToT's own reading (the numbers after the last ``left:``), ready for a reader that
learns it. Where the two readings differ, the import counts it (:class:`ImportStats`). The
importer never evaluates text; a log of the wrong shape raises :class:`LogError` naming the
entry and the step.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from puzzles.arith import ArithError, format_number, parse_number
from puzzles.game24 import Hand, HandError, State
from solver.domains.game24 import VALUE_WEIGHTS, Game24Domain
from solver.roles import Purpose

__all__ = [
    "ENGINE",
    "MODEL",
    "TEMPERATURE",
    "VALUE_SAMPLES",
    "ChainReader",
    "Decomposition",
    "ImportStats",
    "Imported",
    "LogError",
    "current_numbers",
    "decompose",
    "header",
    "import_samples",
    "import_search",
    "iter_lines",
    "recording_bytes",
]

MODEL = "gpt-4"
TEMPERATURE = 0.7
MAX_TOKENS = 1000
"""The reference code's ``gpt()`` defaults: GPT-4, temperature 0.7, 1,000 tokens."""
VALUE_SAMPLES = 3
"""ToT's ``--n_evaluate_sample`` for the Game of 24."""
ENGINE = "GPT-4 (ToT's published run, imported)"
LABELS = ("sure", "likely", "impossible")

NO_LABEL = "(not in ToT's log: this sample's last line was no label word, so it added 0 to the sum)"
FORCED = (
    "(not in ToT's log: ToT set this state's value to 0, a chain of four lines without an "
    "answer, so the model's words are unknown)"
)
"""Texts of value samples the log cannot give back. Neither holds a word ponder reads as a
label (sure, likely, impossible, maybe, unlikely, certain), so each counts 0, as in ToT."""


class LogError(ValueError):
    """A log that is not one of ToT's Game of 24 logs, with where and why."""


# ------------------------------------------------------------------ values


@dataclass(frozen=True, slots=True)
class Decomposition:
    """How many of the value samples said each label; ``unlabelled`` said none of them."""

    sure: int
    likely: int
    impossible: int
    unlabelled: int

    def texts(self, unlabelled: str = NO_LABEL) -> tuple[str, ...]:
        """The samples rebuilt: the labels, sure first, then ``unlabelled`` texts."""
        return (
            ("sure",) * self.sure
            + ("likely",) * self.likely
            + ("impossible",) * self.impossible
            + (unlabelled,) * self.unlabelled
        )

    def describe(self) -> str:
        parts = [
            f"{count} {name}"
            for count, name in zip(
                (self.sure, self.likely, self.impossible, self.unlabelled),
                ("sure", "likely", "impossible", "without a label"),
                strict=True,
            )
            if count
        ]
        return ", ".join(parts) or "no samples"


def decompose(
    value: float,
    samples: int = VALUE_SAMPLES,
    weights: Mapping[str, float] = VALUE_WEIGHTS,
) -> Decomposition:
    """The one way ``value`` is a sum over ``samples`` samples of the ``weights`` of
    sure / likely / impossible (samples with no label add 0).

    With ToT's weights (20, 1, 0.001) and three samples every count gives another sum, so
    the answer is unique; :class:`LogError` when no count gives ``value`` or, with other
    weights, when two do."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LogError(f"a value must be a finite number, not {value!r}")
    w = [float(weights[name]) for name in LABELS]
    found: list[Decomposition] = []
    for counts in product(range(samples + 1), repeat=3):
        if sum(counts) > samples:
            continue
        total = sum(c * x for c, x in zip(counts, w, strict=True))
        if abs(total - value) <= 1e-6 * max(1.0, abs(value)):
            sure, likely, impossible = counts
            found.append(Decomposition(sure, likely, impossible, samples - sum(counts)))
    if not found:
        raise LogError(
            f"the value {value:g} is no sum of {samples} samples weighted "
            f"sure {w[0]:g}, likely {w[1]:g}, impossible {w[2]:g}"
        )
    if len(found) > 1:
        raise LogError(f"the value {value:g} has more than one decomposition")
    return found[0]


# ------------------------------------------------------------------ records


@dataclass
class ImportStats:
    """What an import did, in counts, for the report."""

    hands: int = 0
    calls: Counter[str] = field(default_factory=Counter)
    """Records written, by purpose."""
    replies: int = 0
    """Texts written."""
    notes: Counter[str] = field(default_factory=Counter)
    """Cases worth telling, by a short description."""
    examples: dict[str, list[str]] = field(default_factory=dict)
    """A few examples of each note (hand and text)."""

    def note(self, what: str, example: str = "") -> None:
        self.notes[what] += 1
        if example:
            kept = self.examples.setdefault(what, [])
            if len(kept) < 5:
                kept.append(example)

    def lines(self) -> list[str]:
        out = [
            f"{self.hands} hands, {sum(self.calls.values())} calls "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.calls.items()))}), "
            f"{self.replies} replies"
        ]
        for what, count in sorted(self.notes.items()):
            out.append(f"  {count:6d}  {what}")
            for example in self.examples.get(what, ()):
                out.append(f"          e.g. {example}")
        return out


@dataclass
class Imported:
    """The records of one log, without the header, and what the import saw."""

    records: list[dict[str, Any]]
    stats: ImportStats
    hands: list[Hand]


def header(source: str, started: str) -> dict[str, Any]:
    """The recording's first line."""
    return {
        "ponder_recording": 1,
        "engine": ENGINE,
        "model": MODEL,
        "started": started,
        "source": source,
    }


def recording_bytes(head: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> bytes:
    """The recording as gzip-compressed JSON lines, byte for byte the same on every run
    (no time or name in the gzip header)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as gz:
        for item in (head, *records):
            line = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            gz.write(line.encode("utf-8") + b"\n")
    return buffer.getvalue()


def _match(purpose: Purpose, hand: Hand, **fields: object) -> dict[str, Any]:
    return {
        "purpose": purpose,
        "kind": "game24",
        "hand": list(hand.numbers),
        "target": hand.target,
        **fields,
    }


def _record(
    purpose: Purpose,
    match: dict[str, Any],
    texts: Sequence[str],
    context: dict[str, Any],
    *,
    usage: tuple[int, int] = (0, 0),
    cost: float | None = None,
    requests: int = 1,
    reconstructed: str | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "purpose": purpose,
        "messages": [],
        "sampling": {
            "temperature": TEMPERATURE,
            "top_p": 1.0,
            "n": len(texts),
            "max_tokens": MAX_TOKENS,
            "stop": [],
        },
        "sample_offset": 0,
        "json": False,
        "context": context,
        "at": 0.0,
        "reply": {
            "texts": list(texts),
            "finish_reasons": ["stop"] * len(texts),
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
            "latency": 0.0,
            "model": MODEL,
            "cost": cost,
            "requests": requests,
            "cached": False,
            "notes": [],
        },
        "match": match,
    }
    if reconstructed:
        record["reconstructed"] = reconstructed
    return record


# ------------------------------------------------------------------ reading the logs


def _entries(log: object, what: str) -> list[dict[str, Any]]:
    if not isinstance(log, list) or not log:
        raise LogError(f"{what}: expected a JSON list of hands, one object each")
    for i, entry in enumerate(log):
        if not isinstance(entry, dict):
            raise LogError(f"{what}: entry {i} is not an object")
        idx = entry.get("idx")
        if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
            raise LogError(f"{what}: entry {i} has no row number ('idx')")
    return log


def _strings(value: object, where: str, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise LogError(f"{where}: '{name}' must be a list of texts")
    return value


@dataclass(frozen=True, slots=True)
class _Spent:
    prompt: int = 0
    completion: int = 0
    cost: float | None = None


@dataclass
class _Totals:
    """A hand's usage from the log's running totals (``usage_so_far``): the difference from
    the entry before; totals that go down mean the run was restarted and count from 0 again
    (the CoT log restarts at row 932, so its last totals are not the whole run's)."""

    stats: ImportStats
    before: tuple[int, int, float] = (0, 0, 0.0)

    def hand(self, entry: Mapping[str, Any], where: str) -> _Spent:
        prompt, completion, cost = _usage(entry, where)
        now = (prompt, completion, cost or 0.0)
        if any(a < b for a, b in zip(now, self.before, strict=True)):
            self.before = (0, 0, 0.0)
            self.stats.note("restarts of the running usage totals")
        before, self.before = self.before, now
        return _Spent(
            prompt - before[0],
            completion - before[1],
            None if cost is None else round(now[2] - before[2], 6),
        )


def _usage(entry: Mapping[str, Any], where: str) -> tuple[int, int, float | None]:
    usage = entry.get("usage_so_far")
    if usage is None:
        return 0, 0, None
    if not isinstance(usage, dict):
        raise LogError(f"{where}: 'usage_so_far' must be an object")
    out: list[float] = []
    for name in ("prompt_tokens", "completion_tokens", "cost"):
        value = usage.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise LogError(f"{where}: usage_so_far.{name} must be a number")
        out.append(float(value))
    return int(out[0]), int(out[1]), out[2]


def _rewards(entry: Mapping[str, Any], where: str, count: int) -> list[bool] | None:
    """ToT's own verdict on each reply or final state (``accs``, or ``infos``' ``r``), if
    logged."""
    if "accs" in entry:
        raw: object = entry["accs"]
    elif "infos" in entry:
        infos = entry["infos"]
        if not isinstance(infos, list) or not all(isinstance(i, dict) for i in infos):
            raise LogError(f"{where}: 'infos' must be a list of objects")
        raw = [i.get("r") for i in infos]
    else:
        return None
    if (
        not isinstance(raw, list)
        or len(raw) != count
        or not all(isinstance(r, bool | int | float) for r in raw)
    ):
        raise LogError(f"{where}: ToT's verdicts must be one number or true/false per reply")
    return [bool(r) for r in raw]


def _hand(text: object, where: str) -> Hand:
    if not isinstance(text, str):
        raise LogError(f"{where}: the hand ('x') must be a text such as '4 5 6 10'")
    try:
        return Hand.parse(text)
    except HandError as exc:
        raise LogError(f"{where}: {text[:40]!r} is not a hand ({exc})") from None


def import_samples(
    log: object, rows: Sequence[Hand], purpose: Purpose, what: str = "log"
) -> Imported:
    """IO (``purpose="io"``) or CoT (``"cot"``): each hand's replies as the replies of its
    call. ``rows`` are the hands of ``24.csv`` in file order (the log gives only row numbers).

    A hand's usage and cost come from the log's running totals (see :class:`_Totals`)."""
    entries = _entries(log, what)
    stats = ImportStats()
    records = []
    hands = []
    totals = _Totals(stats)
    for entry in entries:
        idx = entry["idx"]
        where = f"{what}, row {idx}"
        if idx >= len(rows):
            raise LogError(f"{where}: 24.csv has only {len(rows)} rows")
        hand = rows[idx]
        texts = _strings(entry.get("ys"), where, "ys")
        if not texts:
            raise LogError(f"{where}: no replies")
        spent = totals.hand(entry, where)
        logged: dict[str, Any] = {"idx": idx}
        right = _rewards(entry, where, len(texts))
        if right is not None:
            logged["right"] = sum(right)  # how many ToT judged right
        context = Game24Domain(hand).context(hand.start()) | {"tot_log": logged}
        records.append(
            _record(
                purpose,
                _match(purpose, hand),
                texts,
                context,
                usage=(spent.prompt, spent.completion),
                cost=spent.cost,
                requests=math.ceil(len(texts) / 20),  # ToT asks for 20 at a time
            )
        )
        stats.calls[purpose] += 1
        stats.replies += len(texts)
        hands.append(hand)
    stats.hands = len(hands)
    return Imported(records, stats, hands)


def current_numbers(y: str) -> str:
    """The numbers ToT reads off a state's text: after ``left: `` on its last line, up to
    ``)`` (the reference code's ``get_current_numbers``, for the record's keys)."""
    lines = y.strip().split("\n")
    return lines[-1].split("left: ")[-1].split(")")[0]


def _tot_numbers(text: str) -> list[str] | None:
    """The numbers of ``current_numbers`` as ponder writes them, or None if one is no
    number (then ponder could not read that state either)."""
    out = []
    for token in text.split():
        try:
            out.append(format_number(parse_number(token.strip(","))))
        except ArithError:
            return None
    return out or None


def _numbers_key(numbers: Sequence[str]) -> tuple[str, ...]:
    """A multiset of numbers written as ponder writes them (equal numbers, equal texts)."""
    return tuple(sorted(numbers))


def _lines_of(y: str) -> tuple[str, ...]:
    """A state's lines, as the reference code builds it (each line ends in a newline)."""
    return tuple(y[:-1].split("\n")) if y else ()


class ChainReader:
    """The state ponder's ToT reaches (``--paper``: the model's own ``left:`` lists carry on)
    after a chain of ToT's lines, read as ponder reads a proposal reply; None when ponder
    cannot read a line of it as a step."""

    def __init__(self, hand: Hand) -> None:
        self.domain = Game24Domain(hand)
        self.memo: dict[tuple[str, ...], State | None] = {(): self.domain.start()}

    def state(self, lines: tuple[str, ...]) -> State | None:
        if lines in self.memo:
            return self.memo[lines]
        before = self.state(lines[:-1])
        after: State | None = None
        if before is not None:
            steps = self.domain.parse_steps(lines[-1], before, limit=1)
            if steps:
                after = self.domain.claimed(steps[0], before)
        self.memo[lines] = after
        return after

    def unread(self, lines: tuple[str, ...]) -> str | None:
        """The first line of the chain ponder cannot read as a step, or None."""
        for end in range(1, len(lines) + 1):
            if self.state(lines[:end]) is None:
                return lines[end - 1]
        return None


def _groups(ys: list[str], new_ys: list[str], where: str) -> list[list[str]]:
    """Each kept state's proposal lines. ``new_ys`` holds the children of ``ys[0]``, then of
    ``ys[1]``, ...: each child is its parent's text, one line and a newline. A state kept
    twice (the same text) was asked twice, and the log does not say where the first reply
    ends: it is taken to end before the first line that repeats one of its own."""
    out: list[list[str]] = []
    pos = 0
    i = 0
    while i < len(ys):
        y = ys[i]
        k = 1
        while i + k < len(ys) and ys[i + k] == y:
            k += 1
        run: list[str] = []
        while pos < len(new_ys):
            child = new_ys[pos]
            line = child[len(y) : -1]
            if not (child.startswith(y) and child.endswith("\n") and "\n" not in line):
                break
            run.append(line)
            pos += 1
        if not run:
            raise LogError(f"{where}: no proposals for the state {y[-60:]!r}")
        parts: list[list[str]] = [[]]
        for line in run:
            if line in parts[-1] and len(parts) < k:
                parts.append([])
            parts[-1].append(line)
        while len(parts) < k:  # never in the published log; keep the counts right
            parts.append([])
        out.extend(parts)
        i += k
    if pos != len(new_ys):
        raise LogError(f"{where}: proposal {pos} belongs to none of the states kept")
    return out


@dataclass
class _Hand:
    """One hand's import: the pools already written, so each is written as ponder asks."""

    hand: Hand
    idx: int
    reader: ChainReader
    stats: ImportStats
    records: list[dict[str, Any]] = field(default_factory=list)
    valued: dict[tuple[str, ...], float] = field(default_factory=dict)
    judged: dict[str, float] = field(default_factory=dict)

    def context(self, state: State | None, step: int, y: str, **extra: object) -> dict[str, Any]:
        base: dict[str, Any] = (
            self.reader.domain.context(state)
            if state is not None
            else {"kind": "game24", "hand": list(self.hand.numbers), "target": self.hand.target}
        )
        return base | dict(extra) | {"tot_log": {"idx": self.idx, "step": step, "state": y}}

    def numbers(self, y: str) -> tuple[State | None, list[str] | None]:
        """The state ponder reaches after ``y`` and the numbers that key its calls: ponder's
        when it reads the chain, else ToT's (``current_numbers``)."""
        state = self.reader.state(_lines_of(y))
        if state is not None:
            ponder = [format_number(n) for n in state.numbers]
            tot = _tot_numbers(current_numbers(y)) if y else ponder
            if tot is not None and _numbers_key(tot) != _numbers_key(ponder):
                self.stats.note(
                    "states whose numbers ponder reads otherwise than ToT (keyed as ponder "
                    "reads them)",
                    f"row {self.idx}: {y.strip().splitlines()[-1]!r} -> {' '.join(ponder)}",
                )
            return state, ponder
        self.stats.note(
            "states ponder cannot reach: a line of the chain is no step to ponder (keyed by "
            "ToT's numbers)",
            f"row {self.idx}: {self.reader.unread(_lines_of(y))!r}",
        )
        return None, _tot_numbers(current_numbers(y))

    def add(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        self.stats.calls[record["purpose"]] += 1
        self.stats.replies += len(record["reply"]["texts"])


def _answer_of(reader: ChainReader, line: str) -> str | None:
    return reader.domain.parse_answer(line)


def import_search(log: object, rows: Sequence[Hand] = (), what: str = "log") -> Imported:
    """ToT's propose / value / greedy run: every call it made, as ponder's ToT (``--paper``)
    asks for it. ``rows`` (optional): 24.csv's hands, to check each entry's ``x`` against."""
    entries = _entries(log, what)
    stats = ImportStats()
    records: list[dict[str, Any]] = []
    hands = []
    totals = _Totals(stats)
    for entry in entries:
        idx = entry["idx"]
        steps = entry.get("steps")
        where = f"{what}, row {idx}"
        if not isinstance(steps, list) or not steps:
            raise LogError(f"{where}: no 'steps'")
        x = steps[0].get("x") if isinstance(steps[0], dict) else None
        hand = _hand(x, where)
        if rows and (idx >= len(rows) or sorted(rows[idx].numbers) != sorted(hand.numbers)):
            raise LogError(f"{where}: the hand {x!r} is not row {idx} of 24.csv")
        one = _Hand(hand, idx, ChainReader(hand), stats)
        for number, step in enumerate(steps):
            _import_step(one, step, number, f"{where}, step {number}")
        spent = totals.hand(entry, where)
        if one.records:
            _hand_totals(one.records, spent)
        final = _strings(entry.get("ys", []), where, "ys")
        rewards = _rewards(entry, where, len(final))
        if rewards is not None and one.records:
            # ToT's verdicts on its final states, on the hand's first call (for comparisons)
            one.records[0]["context"]["tot_log"]["final"] = rewards
        records.extend(one.records)
        hands.append(hand)
    stats.hands = len(hands)
    return Imported(records, stats, hands)


HAND_TOTALS = (
    "token usage and cost here are the whole hand's: ToT logs only running totals, not each call's"
)


def _hand_totals(records: list[dict[str, Any]], spent: _Spent) -> None:
    """Put the hand's usage and cost on its first call (every run of ponder's ToT makes that
    one, the proposals from the hand), 0 on the others, so a replayed hand adds up to what
    the log says it cost."""
    for record in records:
        reply = record["reply"]
        reply["cost"] = None if spent.cost is None else 0.0
    first = records[0]["reply"]
    first["usage"] = {"prompt_tokens": spent.prompt, "completion_tokens": spent.completion}
    first["cost"] = spent.cost
    first["notes"] = [HAND_TOTALS]


def _import_step(one: _Hand, step: object, number: int, where: str) -> None:
    if not isinstance(step, dict):
        raise LogError(f"{where}: not an object")
    ys = _strings(step.get("ys"), where, "ys")
    new_ys = _strings(step.get("new_ys"), where, "new_ys")
    values = step.get("values")
    if not isinstance(values, list) or len(values) != len(new_ys):
        raise LogError(f"{where}: 'values' must hold one number per proposal")
    hand, stats = one.hand, one.stats
    groups = _groups(ys, new_ys, where)
    # The calls that made this step's children: one per kept state, in order.
    for y, lines in zip(ys, groups, strict=True):
        reply = "\n".join(lines)
        reconstructed = (
            "ToT's log does not say where the replies of a state kept twice part: taken to "
            "end before the first line that repeats one of its own"
            if ys.count(y) > 1
            else None
        )
        if current_numbers(y) == "24":  # ToT asks for the answer, with its CoT prompt
            state = one.reader.state(_lines_of(y))
            if state is None or not one.reader.domain.is_goal(state):
                stats.note(
                    "answers ToT asked for where ponder reads no state of 24 (not recorded)",
                    f"row {one.idx}: {y.strip().splitlines()[-1]!r}",
                )
                continue
            context = one.context(state, number, y)
            match = _match(Purpose.ANSWER, hand, steps=context["steps"])
            one.add(_record(Purpose.ANSWER, match, [reply], context, reconstructed=reconstructed))
            continue
        state, numbers = one.numbers(y) if y else (one.reader.domain.start(), None)
        if numbers is None:
            numbers = [format_number(Fraction(n)) for n in hand.numbers]
        if state is not None and one.reader.domain.is_goal(state):
            stats.note(
                "states of 24 ToT proposed from instead of asking for the answer",
                f"row {one.idx}: {y.strip().splitlines()[-1]!r}",
            )
        context = one.context(state, number, y)
        match = _match(Purpose.PROPOSE, hand, numbers=numbers)
        one.add(_record(Purpose.PROPOSE, match, [reply], context, reconstructed=reconstructed))
    # The values: one call per distinct child, unless ToT's cache or ponder's answers it.
    # A child of an answer call is an answer line, judged; any other is a step, valued.
    answered = [current_numbers(y) == "24" for y, lines in zip(ys, groups, strict=True)
                for _ in lines]  # fmt: skip
    seen: set[str] = set()
    for child, value, judged in zip(new_ys, values, answered, strict=True):
        if child in seen:  # a duplicate: scored 0 with no call, by ToT and ponder alike
            stats.note("duplicate proposals (0, no call)")
            continue
        seen.add(child)
        try:
            labels = decompose(value)
        except LogError as exc:
            raise LogError(f"{where}: {exc}") from None
        lines = child.strip().split("\n")
        forced = len(lines) == 4 and "answer" not in child.lower()
        if judged:
            _judge(one, child, lines[-1], value, labels, forced, number)
        else:
            _value(one, child, value, labels, forced, number)


def _value(
    one: _Hand, child: str, value: float, labels: Decomposition, forced: bool, number: int
) -> None:
    state, numbers = one.numbers(child)
    if numbers is None:
        one.stats.note("children without numbers to value (not recorded)")
        return
    key = _numbers_key(numbers)
    if key in one.valued:
        if one.valued[key] != value:
            one.stats.note(
                "values of numbers already valued in the hand that differ (ponder uses the first)",
                f"row {one.idx}: {' '.join(numbers)}: {one.valued[key]:g} then {value:g}",
            )
        return
    one.valued[key] = value
    unlabelled = FORCED if forced and value == 0 else NO_LABEL
    why = (
        "ToT forced this value to 0 (a chain of four lines without an answer)"
        if forced and value == 0
        else f"from ToT's logged value {value:g} = {labels.describe()}"
    )
    if "left: " not in child.strip().split("\n")[-1]:
        # ToT judged a line without "left: " with its last-step prompt (sure / impossible);
        # ponder reads it as a step and values its numbers: it gets the value ToT gave it.
        why += ", which ToT's last-step judge gave this line (it has no 'left: ')"
        one.stats.note(
            "steps without 'left: ' that ToT judged as answers; ponder values them (given "
            "ToT's value)",
            f"row {one.idx}: {child.strip().splitlines()[-1]!r}",
        )
    one.stats.note("values forced to 0 by ToT" if forced and value == 0 else "values rebuilt")
    context = one.context(state, number, child, answer=None)
    one.add(
        _record(
            Purpose.VALUE,
            _match(Purpose.VALUE, one.hand, numbers=numbers),
            labels.texts(unlabelled),
            context,
            reconstructed=f"{why} (n = 3; sure 20, likely 1, impossible 0.001)",
        )
    )


def _judge(
    one: _Hand,
    child: str,
    last: str,
    value: float,
    labels: Decomposition,
    forced: bool,
    number: int,
) -> None:
    answer = _answer_of(one.reader, last)
    if answer is None:
        one.stats.note(
            "judged lines ponder reads no answer in (not recorded)", f"row {one.idx}: {last!r}"
        )
        return
    if answer in one.judged:
        if one.judged[answer] != value:
            one.stats.note(
                "judge values of an answer already judged that differ (ponder uses the first)",
                f"row {one.idx}: {answer}",
            )
        return
    one.judged[answer] = value
    one.stats.note("judge values rebuilt")
    unlabelled = FORCED if forced and value == 0 else NO_LABEL
    state = one.reader.state(_lines_of(child)[:-1])
    context = one.context(state, number, child, answer=answer)
    one.add(
        _record(
            Purpose.JUDGE,
            _match(Purpose.JUDGE, one.hand, answer=answer),
            labels.texts(unlabelled),
            context,
            reconstructed=(
                f"from ToT's logged value {value:g} = {labels.describe()} "
                "(n = 3; sure 20, likely 1, impossible 0.001)"
            ),
        )
    )


def iter_lines(data: bytes) -> Iterator[str]:
    """The lines of a gzip-compressed recording (for tests and the report)."""
    with gzip.open(io.BytesIO(data), "rt", encoding="utf-8") as handle:
        yield from handle
