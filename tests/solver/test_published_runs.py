"""Issue 27, section 3: ToT's published GPT-4 runs imported as recordings and replayed.

The importer is tried on small logs written here in ToT's log format (our own hands and
text, no benchmark's): value sums decomposed, the match keys ponder's calls find, the
replies split per state, what the log cannot give marked so, bad logs refused with a
message. The bundled recordings are then replayed through the replay engine: the IO and CoT
figures of ToT's Table 2 (means 7.3 % and 4.0 %, best of 100 33 % and 49 %), and a ToT hand.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.events import ErrorRaised, Event, RunFinished
from solver.methods.base import run_method
from solver.methods.baselines import IO, CoT, CoTConfig, IOConfig
from solver.methods.tot import ToT, ToTConfig
from solver.model.recording import Recording, load_recording
from solver.model.replay import ReplayModel
from solver.published import BUNDLED, HANDS_FILE, bundled, hands, resolve
from solver.published.tot_game24 import (
    FORCED,
    NO_LABEL,
    ChainReader,
    Decomposition,
    LogError,
    decompose,
    header,
    import_samples,
    import_search,
    iter_lines,
    recording_bytes,
)
from solver.roles import Purpose

# ------------------------------------------------------------------ value sums


@pytest.mark.parametrize(
    ("value", "counts"),
    [
        (60.0, (3, 0, 0, 0)),
        (22.0, (1, 2, 0, 0)),
        (40.001, (2, 0, 1, 0)),
        (3.0, (0, 3, 0, 0)),
        (2.001, (0, 2, 1, 0)),
        (1.002, (0, 1, 2, 0)),
        (0.003, (0, 0, 3, 0)),
        (0.002, (0, 0, 2, 1)),  # one sample's last line was no label: it added 0
        (2.0, (0, 2, 0, 1)),
        (0, (0, 0, 0, 3)),
        (21.001, (1, 1, 1, 0)),
    ],
)
def test_a_value_sum_decomposes_into_label_counts(
    value: float, counts: tuple[int, int, int, int]
) -> None:
    assert decompose(value) == Decomposition(*counts)


def test_every_count_of_three_samples_has_its_own_sum() -> None:
    seen: dict[float, tuple[int, int, int]] = {}
    for s in range(4):
        for m in range(4 - s):
            for i in range(4 - s - m):
                total = 20 * s + m + 0.001 * i
                assert decompose(total) == Decomposition(s, m, i, 3 - s - m - i)
                assert round(total, 6) not in seen
                seen[round(total, 6)] = (s, m, i)
    assert len(seen) == 20


@pytest.mark.parametrize("value", [5.5, 61.0, 0.004, -1.0, float("nan"), float("inf"), True, "3"])
def test_a_value_no_three_samples_give_is_refused(value: Any) -> None:
    with pytest.raises(LogError):
        decompose(value)


def test_decomposed_samples_read_back_to_the_same_sum() -> None:
    domain = Game24Domain(Hand.parse("2 3 4 15"))
    for value in (60.0, 22.0, 2.001, 0.002, 0):
        for unlabelled in (NO_LABEL, FORCED):
            texts = decompose(value).texts(unlabelled)
            assert len(texts) == 3
            labels = [domain.parse_value(t) for t in texts]
            total = sum(domain.value_weights.get(lb or "?", 0.0) for lb in labels)
            assert total == pytest.approx(value)
            assert labels.count(None) == decompose(value).unlabelled


# ------------------------------------------------------------------ a synthetic ToT log

HAND = "2 3 4 15"
S1 = "15 - 3 = 12 (left: 2 4 12)\n"
S2 = "2 * 3 = 6 (left: 4 6 15)\n"
A = S1 + "4 / 2 = 2 (left: 2 12)\n"
B = S1 + "12 * 2 = 24 (left: 4 24)\n"
C = A + "2 * 12 = 24 (left: 24)\n"
D = A + "12 - 2 = 10 (left: 10)\n"
ANSWER = "Answer: (15 - 3) * (4 / 2) = 24"


def step(
    number: int, ys: list[str], children: list[tuple[str, float]], keep: int = 2
) -> dict[str, Any]:
    new_ys = [y for y, _ in children]
    values = [v for _, v in children]
    ranked = sorted(range(len(new_ys)), key=lambda i: values[i], reverse=True)
    return {
        "step": number,
        "x": HAND,
        "ys": ys,
        "new_ys": new_ys,
        "values": values,
        "select_new_ys": [new_ys[i] for i in ranked[:keep]],
    }


def tot_log() -> list[dict[str, Any]]:
    """One hand of ToT's search, in its log's shape: b = 2, a duplicate, a state of 24
    answered, a chain of four lines without an answer (forced to 0)."""
    steps = [
        step(
            0,
            [""],
            [(S1, 22.0), (S2, 2.001), (S1, 0), ("4 + 2 = 6 (left: 3 6 15)\n", 0.003)],
        ),
        step(
            1,
            [S1, S2],
            [
                (B, 3.0),
                (A, 60.0),
                (S2 + "6 * 4 = 24 (left: 15 24)\n", 1.002),
            ],
        ),
        step(
            2,
            [A, B],
            [
                (C, 60.0),
                (D, 0.003),
                (B + "24 / 4 = 6 (left: 6)\n", 0.003),
                (B + "24 * 4 = 96 (left: 96)\n", 0.002),
            ],
        ),
        step(3, [C, D], [(C + ANSWER + "\n", 60.0), (D + "10 + 4 = 14 (left: 14)\n", 0)]),
    ]
    final = [C + ANSWER + "\n", D + "10 + 4 = 14 (left: 14)\n"]
    return [{"idx": 7, "x": HAND, "steps": steps, "ys": final, "infos": [{"r": 1}, {"r": 0}]}]


def by_purpose(records: Sequence[dict[str, Any]], purpose: str) -> list[dict[str, Any]]:
    return [r for r in records if r["purpose"] == purpose]


def test_each_kept_state_proposals_are_one_reply_keyed_by_its_numbers() -> None:
    records = import_search(tot_log()).records
    proposes = by_purpose(records, "propose")
    keys = [(r["match"]["numbers"], r["reply"]["texts"]) for r in proposes]
    assert keys == [
        (
            ["2", "3", "4", "15"],
            [S1[:-1] + "\n" + S2[:-1] + "\n" + S1[:-1] + "\n4 + 2 = 6 (left: 3 6 15)"],
        ),
        (["2", "4", "12"], ["12 * 2 = 24 (left: 4 24)\n4 / 2 = 2 (left: 2 12)"]),
        (["4", "6", "15"], ["6 * 4 = 24 (left: 15 24)"]),
        (["2", "12"], ["2 * 12 = 24 (left: 24)\n12 - 2 = 10 (left: 10)"]),
        (["4", "24"], ["24 / 4 = 6 (left: 6)\n24 * 4 = 96 (left: 96)"]),
        (["10"], ["10 + 4 = 14 (left: 14)"]),
    ]
    for r in proposes:
        assert r["match"] | {"numbers": None} == {
            "purpose": "propose",
            "kind": "game24",
            "hand": [2, 3, 4, 15],
            "target": 24,
            "numbers": None,
        }
        assert r["messages"] == [] and r["sampling"]["n"] == 1
        assert "reconstructed" not in r


def test_a_state_of_24_is_answered_keyed_by_its_steps() -> None:
    records = import_search(tot_log()).records
    (answer,) = by_purpose(records, "answer")
    assert answer["match"] == {
        "purpose": "answer",
        "kind": "game24",
        "hand": [2, 3, 4, 15],
        "target": 24,
        "steps": ["15 - 3 = 12", "4 / 2 = 2", "2 * 12 = 24"],
    }
    assert answer["reply"]["texts"] == [ANSWER]
    (judge,) = by_purpose(records, "judge")
    assert judge["match"]["answer"] == "(15 - 3) * (4 / 2)"
    assert judge["reply"]["texts"] == ["sure", "sure", "sure"]
    assert "60" in judge["reconstructed"]


def test_values_are_rebuilt_once_per_numbers_and_marked() -> None:
    imported = import_search(tot_log())
    values = {" ".join(r["match"]["numbers"]): r for r in by_purpose(imported.records, "value")}
    # the duplicate S1 got no call; every other multiset one, in the order ToT valued them
    assert list(values) == ["2 4 12", "4 6 15", "3 6 15", "4 24", "2 12", "15 24", "24", "10",
                            "6", "96", "14"]  # fmt: skip
    assert values["2 4 12"]["reply"]["texts"] == ["sure", "likely", "likely"]
    assert values["96"]["reply"]["texts"] == ["impossible", "impossible", NO_LABEL]
    assert values["14"]["reply"]["texts"] == [FORCED] * 3
    assert "forced" in values["14"]["reconstructed"]
    assert all("reconstructed" in r and r["reply"]["finish_reasons"] == ["stop"] * 3
               for r in values.values())  # fmt: skip
    assert imported.stats.notes["duplicate proposals (0, no call)"] == 1
    assert imported.stats.notes["values forced to 0 by ToT"] == 1


def test_the_final_verdicts_travel_with_the_hand() -> None:
    first = import_search(tot_log()).records[0]
    assert first["context"]["tot_log"] == {"idx": 7, "step": 0, "state": "", "final": [True, False]}


def test_a_state_kept_twice_has_its_two_replies_parted() -> None:
    log = tot_log()
    log[0]["steps"] = [
        step(0, [""], [(S1, 22.0), (S1, 0)]),
        step(
            1,
            [S1, S1],
            [(A, 60.0), (B, 3.0), (A, 0), (S1 + "12 / 2 = 6 (left: 4 6)\n", 3.0)],
        ),
    ]
    proposes = by_purpose(import_search(log).records, "propose")
    assert [r["reply"]["texts"][0] for r in proposes[1:]] == [
        "4 / 2 = 2 (left: 2 12)\n12 * 2 = 24 (left: 4 24)",
        "4 / 2 = 2 (left: 2 12)\n12 / 2 = 6 (left: 4 6)",
    ]
    assert all("kept twice" in r["reconstructed"] for r in proposes[1:])


async def replay(records: list[dict[str, Any]], tmp: Path, method: Any, hand: Hand) -> list[Event]:
    path = tmp / "run.jsonl.gz"
    path.write_bytes(recording_bytes(header("test", "2023-05-24T00:00:00Z"), records))
    model = ReplayModel(load_recording(path))
    return [e async for e in run_method(method, Game24Domain(hand), model)]


async def test_ponder_tot_replays_the_imported_search_to_its_answer(tmp_path: Path) -> None:
    records = import_search(tot_log()).records
    events = await replay(
        records, tmp_path, ToT(ToTConfig(breadth=2, paper=True)), Hand.parse(HAND)
    )
    assert not [e for e in events if isinstance(e, ErrorRaised)]
    (done,) = [e for e in events if isinstance(e, RunFinished)]
    assert done.solved and done.answer == "(15 - 3) * (4 / 2)"
    # 5 proposals, 1 answer, 10 values (14 never: one number that is not 24), 1 judge
    assert done.calls == 17


def io_log() -> list[dict[str, Any]]:
    return [
        {
            "idx": 0,
            "ys": ["Answer: (15 - 3) * (4 / 2) = 24", "Answer: 15 + 4 + 3 + 2 = 24", "no idea"],
            "accs": [True, True, False],
            "usage_so_far": {"prompt_tokens": 300, "completion_tokens": 60, "cost": 0.5},
        },
        {
            "idx": 1,
            "ys": ["Answer: 5 * 5 - 1 = 24", "Answer: 5 * 5 + 1 = 24", "Answer: (5 - 1) * 5"],
            "accs": [False, False, False],
            "usage_so_far": {"prompt_tokens": 600, "completion_tokens": 100, "cost": 0.75},
        },
        {  # the run was restarted: the running totals count from 0 again
            "idx": 2,
            "ys": ["Answer: 14 + 10 = 24"],
            "accs": [True],
            "usage_so_far": {"prompt_tokens": 100, "completion_tokens": 10, "cost": 0.1},
        },
    ]


ROWS = [Hand.parse("2 3 4 15"), Hand.parse("1 5 5 20"), Hand.parse("10 14")]


def test_io_replies_are_the_replies_of_the_hands_call() -> None:
    imported = import_samples(io_log(), ROWS, Purpose.IO)
    first, second, third = imported.records
    assert first["match"] == {"purpose": "io", "kind": "game24", "hand": [2, 3, 4, 15],
                              "target": 24}  # fmt: skip
    assert first["reply"]["texts"] == io_log()[0]["ys"]
    assert first["sampling"]["n"] == 3 and first["context"]["tot_log"] == {"idx": 0, "right": 2}
    assert second["reply"]["usage"] == {"prompt_tokens": 300, "completion_tokens": 40}
    assert second["reply"]["cost"] == 0.25
    assert third["reply"]["usage"] == {"prompt_tokens": 100, "completion_tokens": 10}
    assert imported.stats.notes["restarts of the running usage totals"] == 1


async def test_ponder_io_replays_each_hands_samples(tmp_path: Path) -> None:
    records = import_samples(io_log(), ROWS, Purpose.IO).records
    events = await replay(records, tmp_path, IO(IOConfig(samples=3, batch=2)), ROWS[0])
    (done,) = [e for e in events if isinstance(e, RunFinished)]
    assert (done.samples, done.samples_solved) == (3, 2)
    assert done.answer == "(15 - 3) * (4 / 2)"
    # a fourth sample was never recorded: a clear error, never an invented reply
    events = await replay(records, tmp_path, IO(IOConfig(samples=4, batch=2)), ROWS[0])
    (error,) = [e for e in events if isinstance(e, ErrorRaised)]
    assert error.kind == "not_recorded" and "1 reply left" in error.message


@pytest.mark.parametrize(
    ("log", "says"),
    [
        ({"idx": 1}, "JSON list"),
        ([], "JSON list"),
        (["x"], "entry 0 is not an object"),
        ([{"ys": []}], "no row number"),
        ([{"idx": 9, "ys": ["a"]}], "24.csv has only 3 rows"),
        ([{"idx": 0, "ys": "a"}], "'ys' must be a list of texts"),
        ([{"idx": 0, "ys": []}], "no replies"),
        ([{"idx": 0, "ys": ["a"], "accs": [True, False]}], "one number or true/false"),
        ([{"idx": 0, "ys": ["a"], "usage_so_far": {"cost": "x"}}], "usage_so_far.cost"),
    ],
)
def test_a_bad_samples_log_is_refused_with_where_and_why(log: Any, says: str) -> None:
    with pytest.raises(LogError, match=says):
        import_samples(log, ROWS, Purpose.IO, "io.json")


def bad_search(change: str) -> Any:
    log: Any = tot_log()
    first = log[0]["steps"][0]
    if change == "hand":
        first["x"] = "two three"
    elif change == "values":
        first["values"] = first["values"][:-1]
    elif change == "sum":
        first["values"][0] = 5.5
    elif change == "orphan":
        log[0]["steps"][1]["new_ys"][0] = "7 + 7 = 14 (left: 14)\n"
    elif change == "steps":
        log[0]["steps"] = []
    return log


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("hand", "is not a hand"),
        ("values", "one number per proposal"),
        ("sum", r"row 7, step 0: the value 5\.5 is no sum"),
        ("orphan", "no proposals for the state"),
        ("steps", "no 'steps'"),
    ],
)
def test_a_bad_search_log_is_refused_with_where_and_why(change: str, says: str) -> None:
    with pytest.raises(LogError, match=says):
        import_search(bad_search(change), what="tot.json")


def test_the_recording_is_the_same_bytes_every_time() -> None:
    records = import_search(tot_log()).records
    head = header("test", "2023-05-24T00:00:00Z")
    data = recording_bytes(head, records)
    assert data == recording_bytes(head, records)
    lines = list(iter_lines(data))
    assert json.loads(lines[0])["ponder_recording"] == 1
    assert len(lines) == 1 + len(records)


# ------------------------------------------------------------------ the bundled runs


def test_the_bundled_runs_are_named_and_travel_with_their_licence(tmp_path: Path) -> None:
    for name, item in BUNDLED.items():
        assert bundled(name.upper()) is item
        assert resolve(name) == item.path
        assert item.path.is_file() and item.path.stat().st_size < 512 * 1024
        with gzip.open(item.path, "rt", encoding="utf-8") as handle:
            head = json.loads(handle.readline())
        assert head["engine"] == "GPT-4 (ToT's published run, imported)"
        assert "MIT" in head["source"]
    notice = (HANDS_FILE.parent / "LICENSE-tree-of-thought-llm").read_text(encoding="utf-8")
    assert "MIT License" in notice and "Copyright (c) 2023 Shunyu Yao" in notice
    assert [str(h) for h in hands()[:2]] == ["4 5 6 10", "1 2 4 7"] and len(hands()) == 100
    mine = tmp_path / "tot-gpt4-io"
    mine.write_text("")
    assert resolve(str(mine)) == mine  # a path is a path
    assert resolve("no-such-run.jsonl") == Path("no-such-run.jsonl")


@functools.cache
def bundled_recording(name: str) -> Recording:
    """The bundled run ``name``, read once per process (a frozen record; the ToT run takes a
    couple of seconds to read)."""
    return load_recording(BUNDLED[name].path)


def judged(name: str) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Samples ponder judges right over the bundled run, hands with one right, and the
    hands where ponder and ToT's own verdicts disagree (row, ponder, ToT)."""
    right = best = 0
    differ = []
    for call in bundled_recording(name).calls:
        assert call.reply is not None
        hand = Hand(tuple(call.context["hand"]))
        domain = Game24Domain(hand)
        ok = 0
        for text in call.reply.texts:
            answer = domain.parse_answer(text)
            ok += answer is not None and domain.check(answer).ok
        right += ok
        best += ok > 0
        logged = call.context["tot_log"]
        if ok != logged["right"]:
            differ.append((logged["idx"], ok, logged["right"]))
    return right, best, differ


def test_cot_figures_are_tots_table_2() -> None:
    """CoT: mean 4.0 % (403 of 10,000 replies), best of 100 49 %, hand by hand as ToT
    judged them."""
    assert judged("tot-gpt4-cot") == (403, 49, [])


def test_io_figures_are_tots_table_2() -> None:
    """IO: mean 7.3 % (734 of 10,000 replies), best of 100 33 %, hand by hand as ToT
    judged them (30 of the right replies are an expression with no ``Answer:`` label)."""
    assert judged("tot-gpt4-io") == (734, 33, [])


@pytest.mark.parametrize(("name", "row"), [("tot-gpt4-io", 956), ("tot-gpt4-cot", 900)])
async def test_the_replay_engine_answers_ponder_baselines(name: str, row: int) -> None:
    hand = hands()[row - 900]
    model = ReplayModel(bundled_recording(name))
    method = IO(IOConfig(samples=100)) if name.endswith("io") else CoT(CoTConfig(samples=100))
    events = [e async for e in run_method(method, Game24Domain(hand), model)]
    (done,) = [e for e in events if isinstance(e, RunFinished)]
    assert not [e for e in events if isinstance(e, ErrorRaised)]
    assert (done.calls, done.samples) == (5, 100)


async def test_the_replay_engine_answers_ponder_tot_as_the_log_ends() -> None:
    """Row 900 (4 5 6 10): ToT's log keeps (4 * 5) + (10 - 6) = 24 first."""
    model = ReplayModel(bundled_recording("tot-gpt4-bfs"))
    events = [
        e async for e in run_method(ToT(ToTConfig(paper=True)), Game24Domain(hands()[0]), model)
    ]
    assert not [e for e in events if isinstance(e, ErrorRaised)]
    (done,) = [e for e in events if isinstance(e, RunFinished)]
    assert done.solved and done.answer == "(4 * 5) + (10 - 6)"


def tot_logged_outcomes() -> dict[tuple[Any, ...], bool]:
    """Each hand (its numbers sorted) and whether ToT's log kept a right answer among its
    five final states."""
    return {
        tuple(sorted(c.context["hand"])): bool(any(c.context["tot_log"]["final"]))
        for c in bundled_recording("tot-gpt4-bfs").calls
        if "final" in c.context.get("tot_log", {})
    }


def test_tots_log_solved_69_of_its_100_hands() -> None:
    logged = tot_logged_outcomes()
    assert sum(logged.values()) == 69 and len(logged) == 100
    assert sorted(logged) == sorted(tuple(sorted(h.numbers)) for h in hands())


@pytest.mark.parametrize("first", range(0, 100, 25), ids=lambda i: f"rows-{900 + i}-{924 + i}")
async def test_ponder_tot_reaches_the_logged_outcome_on_every_hand(first: int) -> None:
    """All 100 hands, 25 to a case (each hand takes a fresh model, a second or so to index
    the recording; four cases share out over the workers): ponder's ToT (--paper) over the
    replayed GPT-4 run is solved exactly where ToT's log kept a right answer among its five
    final states, with no call the recording lacks."""
    recording = bundled_recording("tot-gpt4-bfs")
    logged = tot_logged_outcomes()
    differ = []
    for hand in hands()[first : first + 25]:
        model = ReplayModel(recording)
        method = ToT(ToTConfig(paper=True))
        events = [e async for e in run_method(method, Game24Domain(hand), model)]
        assert not [e for e in events if isinstance(e, ErrorRaised)], str(hand)
        (done,) = [e for e in events if isinstance(e, RunFinished)]
        if done.solved != logged[tuple(sorted(hand.numbers))]:
            differ.append(str(hand))
    assert differ == []


def test_the_bundled_keys_are_what_the_readers_read_now() -> None:
    """The ToT records are keyed by what ponder's readers read in ToT's text; after a change
    to them, rerun scripts/import_tot_runs.py."""
    readers: dict[int, ChainReader] = {}
    stale = []
    for call in bundled_recording("tot-gpt4-bfs").calls:
        logged = call.context["tot_log"]
        hand = Hand(tuple(call.context["hand"]))
        reader = readers.setdefault(logged["idx"], ChainReader(hand))
        text: str = logged["state"]
        lines = tuple(text[:-1].split("\n")) if text else ()
        assert call.match is not None
        if call.purpose == "judge":
            now: object = reader.domain.parse_answer(lines[-1])
            was: object = call.match["answer"]
        else:
            state = reader.state(lines)
            if state is None:
                continue  # ponder cannot reach this state: keyed as ToT reads it
            context = reader.domain.context(state)
            field = "steps" if call.purpose == "answer" else "numbers"
            shown = context[field]
            assert isinstance(shown, list)
            now, was = sorted(map(str, shown)), sorted(call.match[field])
        if now != was:
            stale.append((logged["idx"], call.purpose, text[-60:], now, was))
    assert stale == []
