"""How long ponder takes to read big puzzle files, and how much memory it needs.

Writes a ToT mini crossword JSON file and a Game of 24 CSV (ToT's ``24.csv`` layout) of the
sizes asked for in a temporary folder, then times, each in a fresh interpreter so peak
memory is its own:

* ``crossword``: ``load_crosswords(FILE)``;
* ``crossword-check``: the same and ``problems()`` of every puzzle (what ``--check`` does);
* ``hands``: ``load_hands(FILE)`` (what ``ponder bench 24 --file FILE`` reads).

Run: ``python -m bench.big_files [--mb 1 5 10 19.9] [--rows 1000000]``. Prints seconds and
peak resident memory (MB) per case.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
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


def write_crosswords(path: Path, megabytes: float) -> int:
    """A ToT JSON list of generated minis, repeated to ``megabytes``; the puzzle count."""
    from puzzles.crossword import generate
    from puzzles.crossword.loaders import to_tot

    pieces = [json.dumps(to_tot(generate(seed))) for seed in range(20)]
    target = int(megabytes * 1024 * 1024)
    out, size = [], 2
    while size + len(pieces[len(out) % 20]) + 2 < target:
        out.append(pieces[len(out) % 20])
        size += len(out[-1]) + 2
    path.write_text("[" + ",\n".join(out) + "]\n", encoding="utf-8")
    return len(out)


def write_hands(path: Path, rows: int) -> None:
    """A ToT-style ``24.csv`` of ``rows`` random four-card hands."""
    rng = random.Random(0)
    lines = ["Rank,Puzzles,AMT (s),Solved rate,1-sigma Mean (s),1-sigma STD (s)"]
    for rank in range(1, rows + 1):
        cards = " ".join(str(rng.randint(1, 13)) for _ in range(4))
        lines.append(f"{rank},{cards},5.0,90.0%,5.0,1.0")
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
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
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
    print(f"{'case':<16} {'file':>22} {'seconds':>8} {'peak MB':>8}  result")
    with tempfile.TemporaryDirectory() as folder:
        for mb in args.mb:
            path = Path(folder) / f"minis-{mb}.json"
            count = write_crosswords(path, mb)
            size = f"{path.stat().st_size / 2**20:.1f} MB, {count} minis"
            for case in ("crossword", "crossword-check"):
                if case in args.cases:
                    took, peak, error = measure(case, path)
                    print(f"{case:<16} {size:>22} {took:8.2f} {peak:8.0f}  {error or 'ok'}")
            path.unlink()
        if "hands" in args.cases:
            for rows in args.rows:
                path = Path(folder) / f"hands-{rows}.csv"
                write_hands(path, rows)
                size = f"{path.stat().st_size / 2**20:.1f} MB, {rows} rows"
                took, peak, error = measure("hands", path)
                print(f"{'hands':<16} {size:>22} {took:8.2f} {peak:8.0f}  {error or 'ok'}")
                path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
