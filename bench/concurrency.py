"""How well a run overlaps its model calls.

Starts the test OpenAI-compatible server on 127.0.0.1 with a fixed delay per request, runs
ToT and BoT through the real openai client, and reports wall time divided by
(sequential rounds x delay): 1.0 would be perfect overlap; a sequential implementation pays
roughly (calls / rounds). Each row also gives the client's CPU time per call (this process's
CPU time over the run divided by its calls: the server's CPU is its own process's), and a
``stream`` row measures one kind of call alone: many streamed calls of a 200-character reply
(50 deltas), all in flight together, with no method around them.
Run: ``python -m bench.concurrency [--latency 0.1]``.

``--capacity N`` measures the adaptive concurrency limit instead: the server refuses (429)
every call past N in flight; the same calls run with the limit fixed at N (the best fixed
limit for that server) and with a maximum of 4N, left to adapt, and the row gives both wall
times, their ratio, the limit the adaptive run settled at and how many requests it retried.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Coroutine
from typing import Any

from bench import llm_replies
from bench.fakeserver import FakeServer
from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.methods import make_method, solve
from solver.model.base import Call, Message, Sampling, few_collections
from solver.model.openai import OpenAIModel
from solver.roles import Purpose

STREAM_REPLY = ("Let me think step by step about the four numbers. " * 4)[:200]
"""The reply of each call of the ``stream`` row: 200 characters, 50 deltas of the server's 4."""


async def measure(
    method: str, options: dict[str, object], hand: str, url: str, concurrency: int, latency: float
) -> dict[str, object]:
    model = OpenAIModel(
        base_url=url, api_key="bench", model="fake-model", cache=False, concurrency=concurrency
    )
    # Made before the clock starts: the first row would count importing every method.
    runner, domain = make_method(method, **options), Game24Domain(Hand.parse(hand))
    start = time.perf_counter()
    cpu = time.process_time()
    # Seeded: the method's own choices (a BoT tree's temperature and top-p) are the same in
    # every run, so rows of different runs are the same work (unseeded, BoT's row made 404 to
    # 500 calls).
    fin, _ = await solve(runner, domain, model, seed=0)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    await model.aclose()
    return {
        "method": method,
        "options": options,
        "concurrency": concurrency,
        "calls": fin.calls,
        "rounds": fin.rounds,
        "wall_s": round(wall, 3),
        "ratio": round(wall / (fin.rounds * latency), 3),
        "cpu_ms_per_call": round(1000 * cpu / max(1, fin.calls), 2),
    }


async def stream_calls(model: OpenAIModel, calls: int) -> tuple[float, list[int]]:
    """Run ``calls`` calls of :data:`STREAM_REPLY` together: the wall time, and the limit
    after each call."""
    call = Call(
        Purpose.ANSWER,
        (Message("user", f"Repeat exactly: {STREAM_REPLY}"),),
        Sampling(temperature=0.7, max_tokens=100),
    )
    limits: list[int] = []

    async def one() -> None:
        reply = await model.generate(call)
        assert reply.texts == (STREAM_REPLY,)
        limits.append(model.concurrency().limit)

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(calls)))
    return time.perf_counter() - start, limits


async def measure_adaptive(url: str, capacity: int, calls: int) -> dict[str, object]:
    """The adaptive limit against a server that takes ``capacity`` calls at once."""
    walls: dict[int, float] = {}
    settled = 0.0
    retries = decreases = 0
    for maximum in (capacity, 4 * capacity):
        model = OpenAIModel(
            base_url=url, api_key="bench", model="fake-model", cache=False, concurrency=maximum
        )
        walls[maximum], limits = await stream_calls(model, calls)
        await model.aclose()
        if maximum > capacity:
            settled = statistics.median(limits[len(limits) // 2 :])
            retries, decreases = model.retries, model.concurrency().decreases
    return {
        "method": "adaptive",
        "capacity": capacity,
        "maximum": 4 * capacity,
        "calls": calls,
        "fixed_wall_s": round(walls[capacity], 3),
        "adaptive_wall_s": round(walls[4 * capacity], 3),
        "ratio": round(walls[4 * capacity] / walls[capacity], 3),
        "settled_limit": settled,
        "decreases": decreases,
        "retried_requests": retries,
    }


async def measure_stream(url: str, concurrency: int, calls: int) -> dict[str, object]:
    """CPU time per streamed call: ``calls`` calls of :data:`STREAM_REPLY`, started together."""
    model = OpenAIModel(
        base_url=url, api_key="bench", model="fake-model", cache=False, concurrency=concurrency
    )
    await stream_calls(model, 1)  # the first call pays for connecting and imports
    cpu = time.process_time()
    wall, _ = await stream_calls(model, calls)
    cpu = time.process_time() - cpu
    await model.aclose()
    return {
        "method": "stream",
        "concurrency": concurrency,
        "calls": calls,
        "reply_chars": len(STREAM_REPLY),
        "wall_s": round(wall, 3),
        "cpu_ms_per_call": round(1000 * cpu / calls, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--hand", default="4 5 6 10")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 1])
    parser.add_argument("--stream-calls", type=int, default=640, help="calls of the stream row")
    parser.add_argument(
        "--capacity", type=int, help="measure the adaptive limit against a server taking N calls"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency, args.capacity)
        return
    runs: list[tuple[str, dict[str, object]]] = [
        ("tot", {}),
        ("bot", {"trees": 15, "iterations": 2}),
    ]
    # The server runs in its own process, as a real one would: in this process it would
    # compete with the client for the interpreter lock and blur what is measured.
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.concurrency", "--serve", "--latency", str(args.latency)]
        + (["--capacity", str(args.capacity)] if args.capacity else []),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        if args.capacity:
            row = run(measure_adaptive(url, args.capacity, args.stream_calls))
            print(json.dumps(row), flush=True)
            return
        for limit in args.concurrency:
            if args.stream_calls > 0:
                # At most 16 rounds of calls: at concurrency 1, 640 calls would take a minute.
                calls = min(args.stream_calls, 16 * limit)
                row = run(measure_stream(url, limit, calls))
                print(json.dumps(row), flush=True)
            for method, options in runs:
                row = run(measure(method, options, args.hand, url, limit, args.latency))
                print(json.dumps(row), flush=True)
    finally:
        server.terminate()
        server.wait()


def run(main: Coroutine[Any, Any, dict[str, object]]) -> dict[str, object]:
    """One row's run, with the garbage collector set as ``ponder solve`` and ``ponder bench``
    set it (:func:`solver.model.base.few_collections`)."""
    with few_collections():
        return asyncio.run(main)


def serve(latency: float, capacity: int | None = None) -> None:
    with FakeServer(reply=llm_replies.reply, latency=latency, models=None) as server:
        server.capacity = capacity
        print(server.url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
