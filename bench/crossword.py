"""How fast the crossword generator is, and how well the clue index ranks answers.

    python -m bench.crossword [--seeds 100] [--blocks] [--skip-index]

Prints, for the generator, the median and worst seconds per grid over the seeds (the word
list is loaded before timing starts; the cold first call is shown apart), and, for the clue
index, top-1 and top-10 accuracy on clues the generator writes and on the hand-written clues
in ``crossword_clues.UNSEEN_CLUES``, each with only the length known (``?????``) and with
two letters known (the 2nd and 4th, as crossings often give).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterable, Sequence

from bench.crossword_clues import UNSEEN_CLUES
from puzzles.crossword import clue_index, generate, word_list


def time_generator(seeds: Iterable[int], *, blocks: bool = False) -> list[float]:
    """Seconds per grid for each seed."""
    times = []
    for seed in seeds:
        start = time.perf_counter()
        generate(seed, blocks=blocks)
        times.append(time.perf_counter() - start)
    return times


def generated_clues(seeds: Iterable[int]) -> list[tuple[str, str]]:
    """(clue, answer) from generated grids, one per distinct answer."""
    seen: dict[str, str] = {}
    for seed in seeds:
        for entry in generate(seed).entries:
            seen.setdefault(entry.answer, entry.clue.text)
    return [(clue, answer) for answer, clue in seen.items()]


def pattern_for(answer: str, known: Sequence[int] = ()) -> str:
    """``?A?E?``: the answer's letters at ``known`` positions, ``?`` elsewhere."""
    return "".join(ch if i in known else "?" for i, ch in enumerate(answer))


def accuracy(pairs: Sequence[tuple[str, str]], known: Sequence[int] = ()) -> tuple[float, float]:
    """(top-1, top-10) accuracy of the clue index on (clue, answer) pairs."""
    index = clue_index()
    top1 = top10 = 0
    for clue, answer in pairs:
        found = [c.text for c in index.candidates(clue, pattern_for(answer, known), limit=10)]
        top1 += bool(found) and found[0] == answer
        top10 += answer in found
    return top1 / len(pairs), top10 / len(pairs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100, help="seeds 0..N-1 (100)")
    parser.add_argument("--blocks", action="store_true", help="grids with black squares")
    parser.add_argument("--skip-index", action="store_true", help="only time the generator")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    word_list()
    print(f"word list load: {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    generate(10_000, blocks=args.blocks)
    print(f"first grid (cold clue cache): {time.perf_counter() - start:.3f} s")
    times = time_generator(range(args.seeds), blocks=args.blocks)
    kind = "with blocks" if args.blocks else "5x5 without blocks"
    print(
        f"generator, {kind}, {len(times)} seeds: median {statistics.median(times):.3f} s, "
        f"mean {statistics.mean(times):.3f} s, worst {max(times):.3f} s "
        f"(seed {times.index(max(times))})"
    )
    if args.skip_index:
        return 0

    start = time.perf_counter()
    clue_index()
    print(f"clue index build: {time.perf_counter() - start:.3f} s")
    generated = generated_clues(range(20))
    for name, pairs in (("generated", generated), ("unseen (hand-written)", list(UNSEEN_CLUES))):
        for known, label in (((), "length only"), ((1, 3), "2nd+4th letters")):
            top1, top10 = accuracy(pairs, known)
            print(
                f"clue index, {name} clues (n={len(pairs)}), {label}: "
                f"top-1 {top1:.0%}, top-10 {top10:.0%}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
