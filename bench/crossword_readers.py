"""Our crossword readers beside the PyPI ``puzpy`` (.puz) and ``ipuz`` packages, on good and
hostile files.

    .venv/bin/pip install puzpy ipuz          # only for this evaluation; ponder needs neither
    python -m bench.crossword_readers [--json] [--repeat 200] [--keep DIR]

Writes a set of files into a temporary folder (or ``--keep DIR``): well-formed minis from the
generator (5x5, with blocks, a 15x15) as .puz and ipuz, and hostile ones (wrong shapes, over
the size cap, wrong encoding, cut short, scrambled, wrong checksums, no words, a 50-letter
word, a 1 MB clue, not a puzzle at all). Each reader reads each file of its format in a child
process with a time limit, and the table says what it did: ``read`` (with the grid size and
number of clues it saw), ``refused`` (its own error type, with the message), ``crashed``
(any other exception) or ``hung`` (past the limit). Then the read time of the well-formed
files, median over ``--repeat`` reads in one process.

The readers: ours, ``puzzles.crossword.load_puz`` (and with ``verify_checksums=True``, what
``ponder puzzles crossword --check`` does) and ``load_ipuz``; ``puz.read`` from puzpy, and
``ipuz.read`` from ipuz on the file's text decoded as UTF-8 (the library takes text, so the
decoding is the caller's: an error there counts against the library as a crash, since a
caller must handle it). A library missing from the environment is reported, not fatal.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import queue
import statistics
import struct
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzles.crossword import Crossword, Direction, Grid, generate, to_ipuz
from puzzles.crossword.loaders import load_ipuz, load_puz
from puzzles.files import PuzzleFileError

LIMIT_S = 10.0
"""Seconds a reader may take on one file before it counts as hung."""


# --- writing .puz files ----------------------------------------------------------------------


def _cksum(data: bytes, value: int = 0) -> int:
    """Across Lite's 16-bit rotating checksum."""
    for byte in data:
        value = ((value >> 1) | 0x8000 if value & 1 else value >> 1) + byte
        value &= 0xFFFF
    return value


def puz_bytes(
    rows: Sequence[str],
    clues: Sequence[str],
    *,
    title: str = "Bench",
    author: str = "ponder",
    copyright: str = "",
    notes: str = "",
    version: bytes = b"1.3\x00",
    encoding: str = "latin-1",
    scrambled: tuple[int, bytes | None] | None = None,
) -> bytes:
    """An Across Lite .puz file for a solution grid (``#`` or ``.`` blocks) and its clues in
    numbering order, with correct checksums; ``scrambled`` is (tag, scrambled grid or None to
    keep the grid as it is)."""
    width, height = len(rows[0]), len(rows)
    sol = "".join(rows).replace("#", ".").encode("ascii")
    fill = bytes(ord(".") if ch == ord(".") else ord("-") for ch in sol)
    if scrambled is not None and scrambled[1] is not None:
        sol = scrambled[1]
    texts = [s.encode(encoding) for s in (title, author, copyright)]
    clue_bytes = [c.encode(encoding) for c in clues]
    note_bytes = notes.encode(encoding)
    cib = struct.pack("<BBHHH", width, height, len(clues), 1, scrambled[0] if scrambled else 0)
    c_cib = _cksum(cib)

    def text_sum(value: int) -> int:
        for field in texts:
            if field:
                value = _cksum(field + b"\x00", value)
        for clue in clue_bytes:
            value = _cksum(clue, value)
        if note_bytes:
            value = _cksum(note_bytes + b"\x00", value)
        return value

    overall = text_sum(_cksum(fill, _cksum(sol, c_cib)))
    parts = [c_cib, _cksum(sol), _cksum(fill), text_sum(0)]
    low = bytes(k ^ (p & 0xFF) for k, p in zip(b"ICHE", parts, strict=True))
    high = bytes(k ^ (p >> 8) for k, p in zip(b"ATED", parts, strict=True))
    header = (
        struct.pack("<H", overall)
        + b"ACROSS&DOWN\x00"
        + struct.pack("<H", c_cib)
        + low
        + high
        + version
        + b"\x00\x00"
        + b"\x00\x00"
        + b"\x00" * 12
        + cib
    )
    assert len(header) == 0x34  # the format's fixed header
    strings = b"".join(s + b"\x00" for s in [*texts, *clue_bytes, note_bytes])
    return header + sol + fill + strings


def numbered_clues(crossword: Crossword) -> list[str]:
    """The clues in .puz order: by number, across before down."""
    entries = sorted(
        crossword.entries, key=lambda e: (e.slot.number, e.slot.direction is Direction.DOWN)
    )
    return [e.clue.text for e in entries]


def grid_clues(rows: Sequence[str], text: Callable[[int], str]) -> list[str]:
    """One clue per entry of a grid, in .puz order, written by ``text(i)``."""
    slots = sorted(Grid.parse(list(rows)).slots, key=lambda s: (s.number, s.direction.value))
    return [text(i) for i in range(len(slots))]


def ipuz_doc(rows: Sequence[str], clues: Sequence[str]) -> dict[str, Any]:
    """An ipuz document for a grid (``#`` blocks) and its clues in .puz order."""
    grid = Grid.parse(list(rows))
    ordered = sorted(grid.slots, key=lambda s: (s.number, s.direction.value))
    by_dir: dict[str, list[list[Any]]] = {"Across": [], "Down": []}
    for slot, clue in zip(ordered, clues, strict=True):
        key = "Across" if slot.direction is Direction.ACROSS else "Down"
        by_dir[key].append([slot.number, clue])
    puzzle = [
        ["#" if grid.is_block((r, c)) else (grid.number_at((r, c)) or 0) for c in range(len(row))]
        for r, row in enumerate(rows)
    ]
    return {
        "version": "http://ipuz.org/v2",
        "kind": ["http://ipuz.org/crossword#1"],
        "dimensions": {"width": len(rows[0]), "height": len(rows)},
        "puzzle": puzzle,
        "solution": [list(row) for row in rows],
        "clues": by_dir,
    }


def _big_grid() -> list[str]:
    """A 15 x 15 grid with a symmetric pattern of blocks and made-up letters (the readers do
    not check words against a dictionary)."""
    rows = []
    for r in range(15):
        row = []
        for c in range(15):
            block = (r % 4 == 3 and c % 4 == 3) or (r, c) in ((0, 7), (14, 7), (7, 0), (7, 14))
            row.append("#" if block else chr(ord("A") + (r * 7 + c * 3) % 26))
        rows.append("".join(row))
    return rows


def _scrambled(data: bytes) -> bytes | None:
    """The .puz file locked with the key 1234 by puzpy (the algorithm is Across Lite's), or
    None when puzpy is not installed."""
    try:
        import puz
    except ImportError:
        return None
    p = puz.load(data)
    p.lock_solution(1234)
    return bytes(p.tobytes())


# --- the files ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One file: its name, format (``puz`` or ``ipuz``), bytes, and whether it is good."""

    name: str
    fmt: str
    data: bytes
    good: bool = False


def cases() -> list[Case]:
    """Every file the readers are run on."""
    mini, blocked = generate(3), generate(4, blocks=True)
    big = _big_grid()
    big_clues = grid_clues(big, lambda i: f"Made-up clue {i + 1}")
    good_puz = puz_bytes(mini.solution, numbered_clues(mini))
    out = [
        Case("mini 5x5", "puz", good_puz, True),
        Case("mini with blocks", "puz", puz_bytes(blocked.solution, numbered_clues(blocked)), True),
        Case("15x15", "puz", puz_bytes(big, big_clues), True),
        Case("mini 5x5", "ipuz", json.dumps(to_ipuz(mini)).encode(), True),
        Case("mini with blocks", "ipuz", json.dumps(to_ipuz(blocked)).encode(), True),
        Case("15x15", "ipuz", json.dumps(ipuz_doc(big, big_clues)).encode(), True),
    ]
    ipuz_good = to_ipuz(mini)

    def ipuz(**changes: Any) -> bytes:
        return json.dumps({**ipuz_good, **changes}).encode()

    clues = numbered_clues(mini)
    # .puz
    wrong_width = bytearray(good_puz)
    wrong_width[0x2C] = 6  # header says 6 wide; the grids hold 25 cells
    locked = _scrambled(good_puz)
    bad_sum = bytearray(good_puz)
    bad_sum[0] ^= 0xFF
    v2_latin1 = puz_bytes(mini.solution, ["Caf\xe9 order", *clues[1:]], version=b"2.0\x00")
    word50 = ["ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWX"]
    blocks_only = ["###", "###", "###"]
    out += [
        Case("wrong shape (header width 6)", "puz", bytes(wrong_width)),
        Case("clue count short by one", "puz", puz_bytes(mini.solution, clues[:-1])),
        Case("over the 8 MB cap", "puz", good_puz + b"\x00" * (9 * 1024 * 1024)),
        Case("v2.0 (UTF-8) with Latin-1 bytes", "puz", v2_latin1),
        Case("cut short (half)", "puz", good_puz[: len(good_puz) // 2]),
        Case("checksum wrong", "puz", bytes(bad_sum)),
        Case("no words (all blocks)", "puz", puz_bytes(blocks_only, [])),
        Case("a 50-letter word", "puz", puz_bytes(word50, ["Alphabet twice, nearly"])),
        Case("a 1 MB clue", "puz", puz_bytes(mini.solution, ["x" * 1_000_000, *clues[1:]])),
        Case("not a puzzle (random bytes)", "puz", bytes(range(256)) * 40),
    ]
    if locked is not None:
        out.append(Case("scrambled (key 1234)", "puz", locked))
    # ipuz
    short_row = to_ipuz(mini)
    short_row["solution"][2] = short_row["solution"][2][:4]
    out += [
        Case("wrong shape (a row of 4)", "ipuz", json.dumps(short_row).encode()),
        Case("width 0", "ipuz", ipuz(dimensions={"width": 0, "height": 5})),
        Case(
            "over the 8 MB cap",
            "ipuz",
            ipuz(notes="n" * (9 * 1024 * 1024)),
        ),
        Case("UTF-16", "ipuz", json.dumps(ipuz_good).encode("utf-16")),
        Case("Latin-1 bytes", "ipuz", ipuz(title="Caf\xe9").replace(b"Caf\\u00e9", b"Caf\xe9")),
        Case("cut short (half)", "ipuz", ipuz()[: len(ipuz()) // 2]),
        Case("no words (1x1)", "ipuz", json.dumps(ipuz_doc(["A"], [])).encode()),
        Case("a 50-letter word", "ipuz", json.dumps(ipuz_doc(word50, ["Alphabet"])).encode()),
        Case(
            "a 1 MB clue",
            "ipuz",
            json.dumps(ipuz_doc(mini.solution, ["x" * 1_000_000, *clues[1:]])).encode(),
        ),
        Case("clues not a list", "ipuz", ipuz(clues={"Across": "1 Cat"})),
        Case("kind missing", "ipuz", ipuz(kind=None)),
        Case("not JSON", "ipuz", b"{this is not json"),
        Case("deeply nested", "ipuz", b'{"title": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ]
    return out


# --- the readers ----------------------------------------------------------------------------


def _shape(width: int, height: int, clues: int) -> str:
    return f"{width}x{height}, {clues} clues"


def ours_puz(path: str) -> str:
    c = load_puz(path)
    return _shape(c.grid.width, c.grid.height, len(c.clues))


def ours_puz_checked(path: str) -> str:
    c = load_puz(path, verify_checksums=True)
    return _shape(c.grid.width, c.grid.height, len(c.clues))


def ours_ipuz(path: str) -> str:
    c = load_ipuz(path)
    return _shape(c.grid.width, c.grid.height, len(c.clues))


def puzpy_read(path: str) -> str:
    import puz

    p = puz.read(path)
    locked = ", solution locked" if p.is_solution_locked() else ""
    return _shape(p.width, p.height, len(p.clues)) + locked


def ipuz_read(path: str) -> str:
    import ipuz

    doc = ipuz.read(Path(path).read_bytes().decode("utf-8"))
    dims = doc.get("dimensions", {})
    clues = sum(len(v) for v in doc.get("clues", {}).values() if isinstance(v, list))
    return _shape(dims.get("width", 0), dims.get("height", 0), clues)


def _own_errors(name: str) -> tuple[type[BaseException], ...]:
    """The error type each reader documents for a bad file."""
    if name == "puzpy":
        import puz

        return (puz.PuzzleFormatError,)
    if name == "ipuz":
        import ipuz

        return (ipuz.IPUZException,)
    return (PuzzleFileError,)


READERS: dict[str, tuple[str, Callable[[str], str]]] = {
    "ours": ("puz", ours_puz),
    "ours --check": ("puz", ours_puz_checked),
    "puzpy": ("puz", puzpy_read),
    "ours (ipuz)": ("ipuz", ours_ipuz),
    "ipuz": ("ipuz", ipuz_read),
}


def _child(name: str, path: str, out: Any) -> None:
    reader = READERS[name][1]
    own = _own_errors("puzpy" if name == "puzpy" else "ipuz" if name == "ipuz" else "ours")
    try:
        out.put(("read", reader(path)))
    except own as exc:
        message = getattr(exc, "message", "") or str(exc)
        out.put(("refused", message))
    except Exception as exc:  # what the evaluation is looking for
        out.put(("crashed", f"{type(exc).__name__}: {exc}"))


def read_in_child(name: str, path: str, limit: float = LIMIT_S) -> tuple[str, str, float]:
    """(outcome, detail, seconds) for one reader on one file, in a child process."""
    ctx = multiprocessing.get_context("fork")
    out: Any = ctx.Queue()
    proc = ctx.Process(target=_child, args=(name, path, out))
    start = time.perf_counter()
    proc.start()
    try:
        outcome, detail = out.get(timeout=limit)
    except queue.Empty:
        outcome, detail = (
            ("hung", f"no answer in {limit:.0f} s")
            if proc.is_alive()
            else (
                "crashed",
                f"the process died (exit {proc.exitcode})",
            )
        )
    elapsed = time.perf_counter() - start
    proc.join(1)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return outcome, detail, elapsed


def available(name: str) -> bool:
    try:
        _own_errors("puzpy" if name == "puzpy" else "ipuz" if name == "ipuz" else "ours")
    except ImportError:
        return False
    return True


def median_read_ms(reader: Callable[[str], str], path: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        reader(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object for the lot")
    parser.add_argument("--repeat", type=int, default=200, help="reads per timing (200)")
    parser.add_argument("--keep", metavar="DIR", help="write the files here and keep them")
    args = parser.parse_args(argv)

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ponder-readers-"))
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    timings: list[dict[str, Any]] = []
    for i, case in enumerate(cases()):
        path = folder / f"{i:02d}-{case.name.split(' (')[0].replace(' ', '-')}.{case.fmt}"
        path.write_bytes(case.data)
        for name, (fmt, reader) in READERS.items():
            if fmt != case.fmt:
                continue
            if not available(name):
                rows.append(
                    {
                        "file": case.name,
                        "format": fmt,
                        "reader": name,
                        "outcome": "not installed",
                        "detail": "",
                        "seconds": 0.0,
                    }
                )
                continue
            outcome, detail, seconds = read_in_child(name, str(path))
            rows.append(
                {
                    "file": case.name,
                    "format": fmt,
                    "reader": name,
                    "outcome": outcome,
                    "detail": detail,
                    "seconds": round(seconds, 3),
                }
            )
            if case.good and outcome == "read":
                ms = median_read_ms(reader, str(path), args.repeat)
                timings.append(
                    {"file": case.name, "format": fmt, "reader": name, "median_ms": round(ms, 3)}
                )
    versions = {"puzpy": _version("puzpy"), "ipuz": _version("ipuz")}
    if args.json:
        print(json.dumps({"versions": versions, "results": rows, "timings": timings}, indent=2))
        return 0
    print(f"puzpy {versions['puzpy']}, ipuz {versions['ipuz']}; files in {folder}")
    for fmt in ("puz", "ipuz"):
        print(f"\n{fmt}:")
        for row in (r for r in rows if r["format"] == fmt):
            detail = " ".join(str(row["detail"]).split())
            if len(detail) > 90:
                detail = detail[:87] + "..."
            print(f"  {row['file'][:34]:34} {row['reader']:13} {row['outcome']:9} {detail}")
    print(f"\nread time of well-formed files (median of {args.repeat}, in one process):")
    for t in timings:
        print(f"  {t['format']:5} {t['file']:18} {t['reader']:13} {t['median_ms']:8.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
