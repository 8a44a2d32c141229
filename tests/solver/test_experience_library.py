"""BoT's experience library (solver/library.py): a real SQLite file under tmp_path."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

import solver.library as library_module
from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.events import Event, ExperienceAdded, ExperienceCarried, ModelCalled
from solver.library import (
    CorruptLibraryError,
    Entry,
    ExperienceLibrary,
    LibraryError,
    NewerLibraryError,
    WithLibrary,
    fit_budget,
    similarity,
)
from solver.methods import solve
from solver.methods.bot import BoT, BoTConfig
from solver.model.offline import OfflineModel


def entry(puzzle: str, text: str = "", kind: str = "game24", iteration: int = 1) -> Entry:
    body = text or f"chain for {puzzle}"
    return Entry(
        kind=kind,
        method="bot",
        model="offline",
        puzzle=puzzle,
        iteration=iteration,
        entry=f"{iteration}. Reasoning chain and comments\n{body}",
        report="The chain does not reach 24.",
        errors=("wrong result", ""),
        advice=("use 4 * 6", "keep"),
        verdicts=("reject", "recommend"),
        confidence=0.3,
        chain_ok=False,
    )


def test_entries_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "lib.sqlite3"  # the folder is created
    stored = [entry("4 5 10 11 -> 24"), entry("1 1 4 6 -> 24", iteration=2)]
    with ExperienceLibrary(path) as lib:
        assert lib.add(stored) == 2
    with ExperienceLibrary(path) as lib:  # a fresh connection reads what the file holds
        back = lib.entries()
    assert [b.puzzle for b in back] == ["1 1 4 6 -> 24", "4 5 10 11 -> 24"]  # newest first
    for original, read in zip(stored[::-1], back, strict=True):
        assert read.id is not None and read.run and read.created_at
        for name in ("kind", "method", "model", "puzzle", "iteration", "entry", "report"):
            assert getattr(read, name) == getattr(original, name)
        assert read.errors == original.errors and read.advice == original.advice
        assert read.verdicts == original.verdicts
        assert read.confidence == original.confidence and read.chain_ok is False
    # One add is one run: its entries share a run id.
    assert back[0].run == back[1].run


def test_clear_deletes_one_kind_or_all(tmp_path: Path) -> None:
    with ExperienceLibrary(tmp_path / "lib.sqlite3") as lib:
        lib.add([entry("4 5 10 11 -> 24"), entry("a word problem", kind="wordproblem")])
        assert lib.clear("game24") == 1
        assert [e.kind for e in lib.entries()] == ["wordproblem"]
        assert lib.clear() == 1 and lib.count() == 0


def test_similarity_counts_shared_numbers_and_target() -> None:
    assert similarity("4 5 10 11 -> 24", "4 5 10 11 -> 24") == 1.0
    # Numbers are counted with repeats: 4 4 shares one 4 with 4 5.
    assert similarity("4 4 6 8 -> 24", "4 5 6 8 -> 24") == pytest.approx(4 / 6)
    assert similarity("4 5 10 11 -> 24", "4 5 10 12 -> 24") > similarity(
        "4 5 10 11 -> 24", "1 2 3 4 -> 24"
    )
    assert similarity("4 5 10 11 -> 24", "4 5 10 11 -> 10") < 1.0  # another target
    assert similarity("", "") == 0.0


def test_relevant_is_same_kind_most_similar_first(tmp_path: Path) -> None:
    with ExperienceLibrary(tmp_path / "lib.sqlite3") as lib:
        lib.add([entry("4 5 10 11 -> 24", "old same hand")])
        lib.add([entry("1 2 3 4 -> 24")])
        lib.add([entry("4 5 10 12 -> 24")])
        lib.add([entry("4 5 10 11 -> 24", "new same hand")])
        lib.add([entry("4 5 10 11 -> 24", "a crossword's", kind="crossword")])
        found = lib.relevant("game24", "4 5 10 11 -> 24", budget=10_000)
    assert [(e.puzzle, e.entry.split("\n")[1]) for e in found] == [
        ("4 5 10 11 -> 24", "new same hand"),  # the same hand, newer first
        ("4 5 10 11 -> 24", "old same hand"),
        ("4 5 10 12 -> 24", "chain for 4 5 10 12 -> 24"),  # three numbers and 24 shared
        ("1 2 3 4 -> 24", "chain for 1 2 3 4 -> 24"),
    ]


def test_relevant_gives_an_entry_two_runs_learned_once(tmp_path: Path) -> None:
    with ExperienceLibrary(tmp_path / "lib.sqlite3") as lib:
        lib.add([entry("4 5 10 11 -> 24", "the same lesson", iteration=1)])
        lib.add([entry("4 5 10 11 -> 24", "the same lesson", iteration=3)])
        assert len(lib.relevant("game24", "4 5 10 11 -> 24")) == 1


def test_relevant_stays_within_the_token_budget(tmp_path: Path) -> None:
    big = entry("4 5 10 11 -> 24", "x" * 4000)  # about 1000 tokens, the most similar
    small = [entry("4 5 10 12 -> 24"), entry("4 5 9 12 -> 24")]
    with ExperienceLibrary(tmp_path / "lib.sqlite3") as lib:
        lib.add([*small, big])
        assert big.tokens > 900
        for budget in (0, 10, 60, 500, 1200, 5000):
            found = lib.relevant("game24", "4 5 10 11 -> 24", budget)
            assert sum(e.tokens for e in found) <= budget
        # The big entry does not fit 500 tokens: the smaller, less similar ones still go in.
        assert [e.puzzle for e in lib.relevant("game24", "4 5 10 11 -> 24", 500)] == [
            "4 5 10 12 -> 24",
            "4 5 9 12 -> 24",
        ]
        assert lib.relevant("game24", "4 5 10 11 -> 24", 0) == []
        assert lib.relevant("game24", "4 5 10 11 -> 24", 5000)[0].puzzle == "4 5 10 11 -> 24"


def test_fit_budget_keeps_the_order_given() -> None:
    entries = [entry("a", "y" * 40), entry("b", "y" * 400), entry("c")]
    assert [e.puzzle for e in fit_budget(entries, 40)] == ["a", "c"]


def test_a_damaged_file_is_named_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    garbage = b"this is not an SQLite database, just bytes " * 200
    path.write_bytes(garbage)
    with pytest.raises(CorruptLibraryError) as caught:
        ExperienceLibrary(path).open()
    assert str(path) in str(caught.value)
    assert path.read_bytes() == garbage


def test_a_foreign_sqlite_file_is_not_taken_for_a_library(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('keep me')")
    db.close()
    with pytest.raises(CorruptLibraryError, match="not a ponder library"):
        ExperienceLibrary(path).open()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT text FROM notes").fetchall() == [("keep me",)]
    db.close()


def test_a_newer_layout_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    with ExperienceLibrary(path) as lib:
        lib.add([entry("4 5 10 11 -> 24")])
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(NewerLibraryError, match="newer version of ponder"):
        ExperienceLibrary(path).open()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM entries").fetchone() == (1,)
    db.close()


# ---------------------------------------------------------------- BoT with the library


def bot() -> BoT:
    return BoT(BoTConfig(iterations=2, trees=2))


def first_step_prompt(events: list[Event]) -> str:
    return next(e.prompt for e in events if isinstance(e, ModelCalled) and e.purpose == "bot_step")


def test_a_second_run_starts_with_what_the_first_stored(tmp_path: Path) -> None:
    lib = ExperienceLibrary(tmp_path / "lib.sqlite3").open()
    domain = Game24Domain(Hand((4, 5, 10, 11)))
    first = WithLibrary(bot(), lib)
    _, events = asyncio.run(solve(first, domain, OfflineModel(seed=1), seed=1))
    added = [e for e in events if isinstance(e, ExperienceAdded)]
    assert added and first.given == 0
    assert "#####\n\n#####" in first_step_prompt(events)  # the first run started empty
    stored = lib.entries()
    assert 1 <= len(stored) == first.stored <= len(added)
    assert {e.puzzle for e in stored} == {"4 5 10 11 -> 24"}
    assert stored[-1].entry == added[0].entry  # the text as the prompts carried it
    assert stored[-1].model == "offline" and stored[-1].method == "bot"

    assert not [e for e in events if isinstance(e, ExperienceCarried)]

    given = tuple(e.entry for e in lib.relevant("game24", "4 5 10 11 -> 24"))
    second = WithLibrary(bot(), lib)
    _, events = asyncio.run(solve(second, domain, OfflineModel(seed=1), seed=1))
    assert second.given == len(given)
    assert added[0].entry in first_step_prompt(events)
    # The pane is told, once and before the first call, what the run starts with.
    carried = [e for e in events if isinstance(e, ExperienceCarried)]
    assert [(c.entries, c.kept_out) for c in carried] == [(given, False)]
    assert events.index(carried[0]) < min(
        i for i, e in enumerate(events) if isinstance(e, ModelCalled)
    )
    # The ablation that keeps experience out of the prompts says so, and keeps it out.
    given = tuple(e.entry for e in lib.relevant("game24", "4 5 10 11 -> 24"))
    ablation = WithLibrary(
        BoT(BoTConfig(iterations=1, trees=1, experience="none")), lib, write=False
    )
    _, events = asyncio.run(solve(ablation, domain, OfflineModel(seed=1), seed=1))
    carried = [e for e in events if isinstance(e, ExperienceCarried)]
    assert [(c.entries, c.kept_out) for c in carried] == [(given, True)]
    assert added[0].entry not in first_step_prompt(events)

    # Reading only: the run starts with the entries and stores none.
    before = lib.count()
    reader = WithLibrary(bot(), lib, write=False)
    _, events = asyncio.run(solve(reader, domain, OfflineModel(seed=1), seed=1))
    assert added[0].entry in first_step_prompt(events) and lib.count() == before
    lib.close()


def test_a_locked_library_leaves_the_run_going_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_module, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "lib.sqlite3"
    lib = ExperienceLibrary(path).open()
    notes: list[str] = []
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the file
    try:
        method = WithLibrary(bot(), lib, notes=notes.append)
        finish, _ = asyncio.run(
            solve(method, Game24Domain(Hand((4, 5, 10, 11))), OfflineModel(seed=1), seed=1)
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert finish.reason in ("done", "solved early") and finish.calls > 0
    assert any(str(path) in n and "not stored" in n for n in notes)
    lib.close()


# --- a library ponder may not write -------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_read_only_library_reads_the_file_and_never_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    with ExperienceLibrary(path) as lib:
        lib.add([entry("4 5 10 11 -> 24"), entry("1 1 4 6 -> 24")])
    before = _files(tmp_path)
    with ExperienceLibrary(path, read_only=True) as lib:
        assert lib.read_only and lib.count() == 2
        found = lib.relevant("game24", "4 5 10 11 -> 24")
        assert found[0].puzzle == "4 5 10 11 -> 24"
        with pytest.raises(LibraryError, match="cannot store experience: it is read-only"):
            lib.add([entry("2 3 5 12 -> 24")])
        with pytest.raises(LibraryError, match="cannot clear it: it is read-only"):
            lib.clear()
        assert lib.count() == 2
    assert _files(tmp_path) == before  # same bytes, and no WAL or shared-memory file made


def test_a_missing_read_only_library_reads_as_empty_and_is_not_made(tmp_path: Path) -> None:
    path = tmp_path / "none" / "lib.sqlite3"
    with ExperienceLibrary(path, read_only=True) as lib:
        assert lib.count() == 0 and lib.entries() == []
    assert not path.parent.exists()


def test_a_damaged_read_only_library_is_named(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    path.write_bytes(b"not a database " * 300)
    with pytest.raises(CorruptLibraryError, match=str(path)):
        ExperienceLibrary(path, read_only=True).open()
    assert path.read_bytes() == b"not a database " * 300


def test_a_run_with_a_read_only_library_starts_from_it_and_stores_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lib.sqlite3"
    lib = ExperienceLibrary(path).open()
    domain = Game24Domain(Hand((4, 5, 10, 11)))
    _, events = asyncio.run(solve(WithLibrary(bot(), lib), domain, OfflineModel(seed=1), seed=1))
    learned = next(e.entry for e in events if isinstance(e, ExperienceAdded))
    lib.close()
    before = _files(tmp_path)
    notes: list[str] = []
    reader = WithLibrary(bot(), ExperienceLibrary(path, read_only=True).open(), notes=notes.append)
    _, events = asyncio.run(solve(reader, domain, OfflineModel(seed=1), seed=1))
    reader.library.close()
    assert learned in first_step_prompt(events) and reader.stored == 0
    assert notes == []  # said once when it was opened, not after every run
    assert _files(tmp_path) == before
