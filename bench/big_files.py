"""How long ponder takes to read big puzzle files, and how much memory it needs.

Writes ToT mini crossword JSON files of the sizes asked for (realistic minis, and minimal
ones: one-letter clues, the most puzzles per byte) and Game of 24 hand files (one hand per
line, and ToT's ``24.csv`` layout) in a temporary folder, then times, each in a fresh
interpreter so peak memory is its own:

* ``crossword``: ``load_crosswords(FILE)``;
* ``crossword-check``: the same and ``problems()`` of every puzzle (what ``--check`` does);
* ``hands``: ``load_hands(FILE)`` (what ``ponder bench 24 --file FILE`` reads).

Run: ``python -m bench.big_files [--mb 1 5 10 19.9] [--rows 100000 1000000]``. Prints
seconds and peak resident memory (MB) per case; a file over a cap shows the message instead.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

_CASES = {
    "crossword": "from puzzles.crossword import load_crosswords\nload_crosswords(PATH)",
    "crossword-check": (
        "from puzzles.crossword import load_crosswords\n"
        "for c in load_crosswords(PATH):\n    c.problems()"
    ),
    "hands": "from puzzles.game24.loaders import load_hands\nload_hands(PATH)",
}


def write_crosswords(path: Path, megabytes: float, *, minimal: bool = False) -> int:
    """A ToT JSON list of generated minis, repeated to ``megabytes``; the puzzle count.
    ``minimal``: one-letter clues and the board as one string (the most puzzles per byte)."""
    from puzzles.crossword import generate
    from puzzles.crossword.loaders import to_tot

    minis = [to_tot(generate(seed)) for seed in range(20)]
    if minimal:
        minis = [[["a"] * 10, "".join(board)] for _, board in minis]
    pieces = [json.dumps(m, separators=(",", ":")) for m in minis]
    target = int(megabytes * 1024 * 1024)
    out: list[str] = []
    size = 2
    while size + len(pieces[len(out) % 20]) + 2 < target:
        out.append(pieces[len(out) % 20])
        size += len(out[-1]) + 2
    path.write_text("[" + ",\n".join(out) + "]\n", encoding="utf-8")
    return len(out)


def write_hands(path: Path, rows: int, *, csv: bool = False) -> None:
    """``rows`` random four-card hands (cards 1-13), one per line, or as a ToT-style
    ``24.csv`` with ``csv``."""
    rng = random.Random(0)
    lines = ["Rank,Puzzles,AMT (s),Solved rate,1-sigma Mean (s),1-sigma STD (s)"] if csv else []
    for rank in range(1, rows + 1):
        cards = " ".join(str(rng.randint(1, 13)) for _ in range(4))
        lines.append(f"{rank},{cards},5.0,90.0%,5.0,1.0" if csv else cards)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def measure(case: str, path: Path) -> tuple[float, float, str]:
    """(seconds, peak MB, error line or "") of one case in a fresh interpreter."""
    code = (
        "import resource, sys, time\n"
        f"PATH = {str(path)!r}\n"
        "start = time.perf_counter()\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in _CASES[case].splitlines())
        + "    error = ''\n"
        "except Exception as exc:\n"
        "    error = f'{type(exc).__name__}: {exc}'[:160]\n"
        "took = time.perf_counter() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(took, peak, error, sep='\\t')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        return 0.0, 0.0, done.stderr.strip().splitlines()[-1]
    took, peak, error = done.stdout.rstrip("\n").split("\t")
    return float(took), float(peak), error


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, nargs="*", default=[1, 5, 10, 19.9])
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--cases", nargs="*", default=list(_CASES), choices=list(_CASES))
    args = parser.parse_args(argv)
    print(f"{'case':<16} {'file':>26} {'seconds':>8} {'peak MB':>8}  result")
    with tempfile.TemporaryDirectory() as folder:
        for mb in args.mb:
            for minimal in (False, True):
                path = Path(folder) / f"minis-{mb}.json"
                count = write_crosswords(path, mb, minimal=minimal)
                size = f"{path.stat().st_size / 2**20:.1f} MB, {count} minis"
                for case in ("crossword", "crossword-check"):
                    if case in args.cases:
                        took, peak, error = measure(case, path)
                        print(f"{case:<16} {size:>26} {took:8.2f} {peak:8.0f}  {error or 'ok'}")
                path.unlink()
        if "hands" in args.cases:
            for rows in args.rows:
                for csv in (False, True):
                    path = Path(folder) / f"hands-{rows}.{'csv' if csv else 'txt'}"
                    write_hands(path, rows, csv=csv)
                    size = (
                        f"{path.stat().st_size / 2**20:.1f} MB, {rows} {'CSV ' if csv else ''}rows"
                    )
                    took, peak, error = measure("hands", path)
                    print(f"{'hands':<16} {size:>26} {took:8.2f} {peak:8.0f}  {error or 'ok'}")
                    path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
