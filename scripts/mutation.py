"""Mutation testing of the reasoning: run mutmut and print the score per file.

    .venv/bin/pip install mutmut==3.8.1
    .venv/bin/python scripts/mutation.py                     # every configured file (long)
    .venv/bin/python scripts/mutation.py solver/methods/tot.py solver/model/*
    .venv/bin/python scripts/mutation.py --report             # the last results only
    .venv/bin/python scripts/mutation.py --survivors solver/methods/tot.py
    .venv/bin/python scripts/mutation.py --sample 60 solver/methods/bot.py   # an estimate

What is mutated and which tests run is set in pyproject.toml under ``[tool.mutmut]``. mutmut
copies the project into ``mutants/`` (git-ignored) and remembers results there, so a second
run only checks what changed. It is not part of CI: on two cores the whole set takes hours
(name the files you changed), or ``--sample N`` tests N mutants of each file drawn at random
(the same N for the same ``--seed``) for an estimate in minutes. The score is the share of
checked mutants that the tests detect (killed, timed out, or refused by the type check); a
surviving mutant is a change to the code that no test notices.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"

# mutmut's exit codes for a mutant's test run (mutmut.stats), folded into what matters here.
# Detected: killed (1, 3, crashes), timed out (36, 24, -24, 152, 255), refused by the type check.
DETECTED = frozenset({1, 3, -9, -11, 36, 24, -24, 152, 255, 37})
NOT_DETECTED = {0: "survived", 5: "no tests", 33: "no tests", 35: "suspicious"}


def _module(path: str) -> str:
    """``solver/methods/tot.py`` -> ``solver.methods.tot``."""
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def _results() -> dict[str, dict[str, int | None]]:
    """Exit code by mutant name, per source file (relative to the project)."""
    out: dict[str, dict[str, int | None]] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        source = meta.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        codes = data.get("exit_code_by_key", {})
        if codes:
            out[source] = codes
    return out


def report(only: list[str], drawn: list[str] | None = None) -> int:
    """The score per file; with ``drawn``, over those mutants only (a sample's estimate)."""
    results = _results()
    if drawn is not None:
        keep = set(drawn)
        results = {s: {k: v for k, v in c.items() if k in keep} for s, c in results.items()}
    if not results:
        print("no mutation results yet: run this script without --report first")
        return 1
    rows = []
    total = Counter[str]()
    for source, codes in results.items():
        if only and source not in only:
            continue
        tally = Counter[str]()
        for code in codes.values():
            if code is None:
                tally["not checked"] += 1
            elif code in DETECTED:
                tally["detected"] += 1
            else:
                tally[NOT_DETECTED.get(code, "suspicious")] += 1
        checked = tally["detected"] + tally["survived"] + tally["no tests"] + tally["suspicious"]
        total.update(tally)
        rows.append((source, checked, tally))
    print(f"{'file':<34} {'checked':>7} {'detected':>8} {'survived':>8} {'no test':>7} score")
    for source, checked, tally in rows:
        score = f"{100 * tally['detected'] / checked:5.1f} %" if checked else "    -"
        unchecked = f"  ({tally['not checked']} not checked)" if tally["not checked"] else ""
        print(
            f"{source:<34} {checked:>7} {tally['detected']:>8} {tally['survived']:>8} "
            f"{tally['no tests']:>7} {score}{unchecked}"
        )
    checked = total["detected"] + total["survived"] + total["no tests"] + total["suspicious"]
    if checked:
        print(f"{'all':<34} {checked:>7} {total['detected']:>8} {total['survived']:>8} "
              f"{total['no tests']:>7} {100 * total['detected'] / checked:5.1f} %")  # fmt: skip
    return 0


def survivors(source: str) -> int:
    codes = _results().get(source, {})
    names = [name for name, code in sorted(codes.items()) if code in NOT_DETECTED]
    for name in names:
        print(name)
    print(f"{len(names)} undetected; see one with: .venv/bin/mutmut show NAME", file=sys.stderr)
    return 0


def sample(files: list[str], size: int, seed: int) -> list[str]:
    """``size`` mutant names of each file, drawn at random (the same for the same seed)."""
    results = _results()
    names: list[str] = []
    for source in files:
        known = sorted(results.get(source, {}))
        if not known:
            raise SystemExit(f"no mutants of {source} yet: run this script on it once first")
        names += random.Random(f"{seed}:{source}").sample(known, min(size, len(known)))
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="source files to mutate (default: all set up)")
    parser.add_argument("--report", action="store_true", help="print the last results only")
    parser.add_argument("--survivors", metavar="FILE", help="list a file's undetected mutants")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (2)")
    parser.add_argument("--sample", type=int, metavar="N", help="test N random mutants per file")
    parser.add_argument("--seed", type=int, default=0, help="the draw of --sample (0)")
    args = parser.parse_args(argv)
    if args.survivors:
        return survivors(args.survivors)
    if not args.report:
        # mutmut names a mutant MODULE.x_FUNCTION__mutmut_N or MODULE.xǁCLASSǁMETHOD__...;
        # naming both forms keeps a package's __init__ from matching its submodules too.
        patterns = [f"{_module(f)}.{kind}*" for f in args.files for kind in ("x_", "xǁ")]
        if args.sample:
            patterns = sample(args.files, args.sample, args.seed)
        command = [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children",
                   str(args.jobs), *patterns]  # fmt: skip
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            print(f"mutmut exited {done.returncode}", file=sys.stderr)
    return report(args.files, sample(args.files, args.sample, args.seed) if args.sample else None)


if __name__ == "__main__":
    raise SystemExit(main())
