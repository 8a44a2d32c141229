"""How well a run overlaps its model calls.

Starts the test OpenAI-compatible server on 127.0.0.1 with a fixed delay per request, runs
ToT and BoT through the real openai client, and reports wall time divided by
(sequential rounds x delay): 1.0 would be perfect overlap; a sequential implementation pays
roughly (calls / rounds). Run: ``python -m bench.concurrency [--latency 0.1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time

from bench import llm_replies
from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.methods import make_method, solve
from solver.model.openai import OpenAIModel


async def measure(
    method: str, options: dict[str, object], hand: str, url: str, concurrency: int, latency: float
) -> dict[str, object]:
    model = OpenAIModel(
        base_url=url, api_key="bench", model="fake-model", cache=False, concurrency=concurrency
    )
    start = time.perf_counter()
    fin, _ = await solve(make_method(method, **options), Game24Domain(Hand.parse(hand)), model)
    wall = time.perf_counter() - start
    await model.aclose()
    return {
        "method": method,
        "options": options,
        "concurrency": concurrency,
        "calls": fin.calls,
        "rounds": fin.rounds,
        "wall_s": round(wall, 3),
        "ratio": round(wall / (fin.rounds * latency), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--hand", default="4 5 6 10")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 1])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
        return
    runs: list[tuple[str, dict[str, object]]] = [
        ("tot", {}),
        ("bot", {"trees": 15, "iterations": 2}),
    ]
    # The server runs in its own process, as a real one would: in this process it would
    # compete with the client for the interpreter lock and blur what is measured.
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.concurrency", "--serve", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        for limit in args.concurrency:
            for method, options in runs:
                row = asyncio.run(measure(method, options, args.hand, url, limit, args.latency))
                print(json.dumps(row), flush=True)
    finally:
        server.terminate()
        server.wait()


def serve(latency: float) -> None:
    with FakeServer(reply=llm_replies.reply, latency=latency, models=None) as server:
        print(server.url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
