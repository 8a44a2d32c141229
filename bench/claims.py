"""How often a run shows a failed arithmetic check beside a solved answer.

Runs IO and CoT on the offline engine over every 30th solvable hand of the catalogue (46
hands, 92 runs, seeded) and counts the runs whose answer was verified but where some claim was
marked wrong or invalid, listing each such claim. Before claims were read whole, most of
these were pieces of the answer (``6 + 6 = 24`` out of ``6 + 6 + 6 + 6 = 24``); what remains
are the engine's own slips in a step. Run: ``python -m bench.claims``.
"""

from __future__ import annotations

import argparse
import asyncio

from puzzles.game24 import catalogue
from solver.domains.game24 import Game24Domain
from solver.events import ClaimVerified
from solver.methods import make_method, solve
from solver.model.offline import OfflineModel


async def main() -> None:
    entries = [e for e in catalogue() if e.solvable][::30]
    runs = flagged = 0
    for seed, entry in enumerate(entries):
        for name in ("io", "cot"):
            fin, events = await solve(
                make_method(name), Game24Domain(entry.hand), OfflineModel(seed=seed), seed=seed
            )
            runs += 1
            failed = [e for e in events if isinstance(e, ClaimVerified) and not e.ok]
            if fin.solved and failed:
                flagged += 1
                shown = ", ".join(f"{c.expression} = {c.claimed} ({c.status})" for c in failed)
                print(f"{name:<4} {entry.hand}: {shown}")
    print(f"{flagged} of {runs} IO/CoT runs show a failed claim beside a solved answer")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    asyncio.run(main())
