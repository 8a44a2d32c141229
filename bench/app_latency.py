"""How the app feels: key latency under a streaming solver, memory of a big run, startup.

Three measurements, printed as one table (``--json`` prints the raw figures):

1. **Key latency.** Headless at 120x40 on the Game of 24 screen with "1 1 1 2" (no solution,
   so a full BoT run, 15 trees x 10 iterations, streams thousands of events). With the
   solver running, characters are typed into the expression box one at a time. A press is
   timed from posting the key (as Pilot does, without Pilot's idle waits, which would wait
   for the solver to go quiet) to the first frame the screen composes with the character in
   the box. Headless, a frame is composed but not written to a terminal. Then the same again
   with a recorded run *replayed* at the rate the live run delivered its events: the live
   figure is the screen plus the offline engine's arithmetic on the same event loop, the
   replayed one the screen's own cost (what a network model, idle while it waits, leaves).
2. **A 10,000-thought run.** A synthetic BoT run (10 iterations x 15 trees, each thought
   scored and its arithmetic checked, one model call per scored thought and one per two new
   thoughts, with prompts the size of real ones) is fed into a mounted ``SolverPane`` in the
   batches the screen would flush, a frame composed after each; RSS growth and times.
3. **Startup.** ``python -m bench.app_latency --first-frame`` in a fresh interpreter: time to
   import the app, and from process start to the home screen's first frame (bytecode
   compiled and the results file made by an untimed first start, as for a person's second
   start); and the wall time of ``ponder --help``.

Run: ``python -m bench.app_latency [--presses 200] [--thoughts 10000] [--runs 10]``; about
two minutes. Nothing here reads or writes the user's config or data: the app gets default
settings, and ``PONDER_CONFIG``/``PONDER_DATA_DIR`` point into a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from solver import events as ev

# Keys typed into the expression box, by Textual key name. No space: on the game screen
# space also starts and stops the solver, and the box should be the only thing that reacts.
TYPED = [
    ("left_parenthesis", "("),
    ("7", "7"),
    ("minus", "-"),
    ("8", "8"),
    ("slash", "/"),
    ("8", "8"),
    ("right_parenthesis", ")"),
    ("asterisk", "*"),
    ("4", "4"),
    ("plus", "+"),
    ("1", "1"),
]


def rss_bytes() -> int:
    """Resident set size now (Linux), else the peak so far."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class FrameLog:
    """Notes when the app composes a frame, and calls ``on_frame`` right after.

    ``App._display`` is where a composed screen update goes to the terminal; headless it
    stops there, so wrapping it times the frames without writing anything.
    """

    def __init__(self, app: Any, on_frame: Callable[[], None] | None = None) -> None:
        self.app = app
        self.count = 0
        self.last = 0.0
        self.on_frame = on_frame
        self._display = app._display
        app._display = self._wrapped

    def _wrapped(self, screen: Any, renderable: Any) -> None:
        self._display(screen, renderable)
        if renderable is not None and not self.app._batch_count:
            self.count += 1
            self.last = time.perf_counter()
            if self.on_frame is not None:
                self.on_frame()


class AppliedEvents:
    """Wraps ``SolverPane.apply`` on one pane: how many events, and how long each batch took."""

    def __init__(self, pane: Any) -> None:
        self.events = 0
        self.batches: list[float] = []
        apply = pane.apply

        def counted(events: Any, deadline: float | None = None) -> int:
            start = time.perf_counter()
            shown: int = apply(events, deadline)
            self.batches.append(time.perf_counter() - start)
            self.events += shown
            return shown

        pane.apply = counted


def make_bench_app(tmp: Path) -> Any:
    from solver.settings import Settings
    from tui.app import make_app

    return make_app(Settings(), store_path=tmp / "results.sqlite3", seed=0)


# ---------------------------------------------------------------- 1. key latency


async def time_keys(
    app: Any, pilot: Any, screen: Any, presses: int, gap: float, live: bool
) -> dict[str, Any]:
    """Type ``presses`` characters into the expression box; time each to its first frame."""
    from textual import events
    from textual.widgets import Input

    from tui.widgets.solver_pane import SolverPane

    pane = screen.query_one(SolverPane)
    box = screen.query_one("#expression", Input)
    applied = AppliedEvents(pane)
    expected = ""
    shown = asyncio.Event()

    def frame_done() -> None:
        if box.value == expected:
            shown.set()

    frames = FrameLog(app, frame_done)
    # Keys are posted as Pilot.press posts them, but without its waits for the app to go
    # idle, which under a streaming solver would last until the run ends.
    for key in ("s", "e") if live else ("e",):  # start the solver; focus the expression box
        app._driver.send_message(events.Key(key, key))
        await pilot.pause(0.05)
    assert app.focused is box and pane.running
    events_before, frames_before = applied.events, frames.count
    latencies: list[float] = []
    restarts = 0
    started = time.perf_counter()
    for i in range(presses):
        if live and not pane.running:  # a run ended: start another, so the stream goes on
            screen.start_solver()
            restarts += 1
        if len(box.value) >= 40:
            expected = ""
            shown.clear()
            box.value = ""
            await asyncio.wait_for(shown.wait(), 10)
        key, char = TYPED[i % len(TYPED)]
        expected = box.value + char
        shown.clear()
        sent = time.perf_counter()
        app._driver.send_message(events.Key(key, char))
        await asyncio.wait_for(shown.wait(), 10)
        latencies.append(frames.last - sent)
        await asyncio.sleep(gap)
    measured = time.perf_counter() - started
    streaming = pane.running
    screen.workers.cancel_group(screen, "solver")
    ms = [x * 1000 for x in latencies]
    batch_ms = [x * 1000 for x in applied.batches]
    return {
        "presses": len(ms),
        "p50_ms": percentile(ms, 0.5),
        "p95_ms": percentile(ms, 0.95),
        "max_ms": max(ms),
        "measured_s": measured,
        "events": applied.events - events_before,
        "frames": frames.count - frames_before,
        "solver_restarts": restarts,
        "streaming_at_end": streaming,
        "batch_p50_ms": percentile(batch_ms, 0.5) if batch_ms else 0.0,
        "batch_max_ms": max(batch_ms, default=0.0),
    }


async def key_latency_live(presses: int, gap: float) -> dict[str, Any]:
    """The offline engine solving beside the player, on its own loop (tui/solver_loop.py)."""
    from puzzles.game24 import Hand
    from tui.screens.game24 import Game24Screen

    with tempfile.TemporaryDirectory() as tmp:
        app = make_bench_app(Path(tmp))
        app.method_name = "bot"
        app.method_options = {"trees": 15, "iterations": 10}
        async with app.run_test(size=(120, 40)) as pilot:
            screen = Game24Screen(Hand.parse("1 1 1 2"), "bench")
            await app.push_screen(screen)
            await pilot.pause()
            return await time_keys(app, pilot, screen, presses, gap, live=True)


async def record_bot(iterations: int) -> list[ev.Event]:
    """A long BoT run of the offline engine on "1 1 1 2", for replaying."""
    from puzzles.game24 import Hand
    from solver.domains.game24 import Game24Domain
    from solver.methods import make_method, run_method
    from solver.model.offline import OfflineModel

    return [
        event
        async for event in run_method(
            make_method("bot", iterations=iterations, trees=15),
            Game24Domain(Hand.parse("1 1 1 2")),
            OfflineModel(seed=0),
            seed=0,
        )
    ]


async def key_latency_replay(
    presses: int, gap: float, recorded: list[ev.Event], rate: float
) -> dict[str, Any]:
    """The same stream replayed at ``rate`` events a second: the screen's cost alone."""
    from solver.settings import Settings
    from tui.app import Replay, make_app

    replay = Replay({"method": "bot", "puzzle": "1 1 1 2", "model": "offline"}, recorded)
    replay.speed = rate / (len(recorded) / max(recorded[-1].t, 1e-3))
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Settings(), store_path=Path(tmp) / "results.sqlite3", replay=replay, seed=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            result = await time_keys(app, pilot, app.screen, presses, gap, live=False)
    return {**result, "replay_speed": replay.speed}


# ---------------------------------------------------------------- 2. a big run


async def template_calls() -> dict[str, ev.ModelCalled]:
    """One real model call of each kind, from a short offline BoT run: realistic sizes."""
    from puzzles.game24 import Hand
    from solver import events as ev
    from solver.domains.game24 import Game24Domain
    from solver.methods import make_method, run_method
    from solver.model.offline import OfflineModel

    found: dict[str, ev.ModelCalled] = {}
    async for event in run_method(
        make_method("bot", iterations=1, trees=2),
        Game24Domain(Hand.parse("4 7 8 8")),
        OfflineModel(seed=1),
        seed=1,
    ):
        if isinstance(event, ev.ModelCalled):
            found.setdefault(event.purpose, event)
    return found


def synthetic_run(thoughts: int, calls: dict[str, ev.ModelCalled]) -> Iterator[ev.Event]:
    """A BoT-shaped run with ``thoughts`` thoughts: 10 iterations of 15 trees, each tree a
    4-ary tree three levels deep; every thought scored and its arithmetic checked."""
    from solver import events as ev

    iterations, trees = 10, 15
    per_tree = -(-thoughts // (iterations * trees))  # ceiling: the last trees get fewer
    step, evaluate = calls["bot_step"], calls["bot_evaluate"]
    call_id = 0
    prompt_tokens = 0

    def called(template: ev.ModelCalled) -> Iterator[ev.Event]:
        nonlocal call_id, prompt_tokens
        call_id += 1
        prompt_tokens += 300
        # A fresh string per call, as a real run holds one per call.
        yield dataclasses.replace(
            template, call_id=call_id, prompt=f"{template.prompt}\n#{call_id}"
        )
        yield ev.TokensUsed(
            calls=call_id, prompt_tokens=prompt_tokens, completion_tokens=call_id * 60, cost=0.0
        )

    yield ev.RunStarted(method="bot", puzzle="1 1 1 2", kind="game24", model="synthetic")
    made = 0
    for i in range(1, iterations + 1):
        yield ev.IterationStarted(iteration=i, total=iterations, label=f"iteration {i}")
        for t in range(1, trees + 1):
            tree_id = f"i{i}.t{t}"
            yield ev.TreeStarted(tree_id=tree_id, strategy="layer", temperature=0.7, top_p=0.9)
            depths: list[int] = []
            for k in range(per_tree):
                if made >= thoughts:
                    break
                parent = None if k < 4 else (k - 4) // 4
                depth = 1 if parent is None else depths[parent] + 1
                depths.append(depth)
                node_id = f"{tree_id}.n{k}"
                if k % 2 == 0:
                    yield from called(step)
                yield ev.ThoughtAdded(
                    tree_id=tree_id,
                    node_id=node_id,
                    parent_id=None if parent is None else f"{tree_id}.n{parent}",
                    text=f"{k % 9 + 1} + {depth} = {k % 9 + 1 + depth} (left: 1 1 {k})",
                    depth=depth,
                    state=f"1 1 {k}",
                    call_id=call_id,
                )
                yield ev.ClaimVerified(
                    node_id=node_id,
                    expression=f"{k % 9 + 1} + {depth}",
                    claimed=str(k % 9 + 1 + depth),
                    exact=str(k % 9 + 1 + depth),
                    status="exact",
                    ok=True,
                )
                yield from called(evaluate)
                yield ev.ThoughtScored(
                    node_id=node_id, score=0.5, edge_score=0.3, samples=(), call_id=call_id
                )
                if depth == 3:
                    yield ev.LeafReached(node_id=node_id, reason="no numbers left to combine")
                made += 1
        yield ev.ChainAggregated(
            iteration=i,
            strategy="greedy",
            node_ids=(f"i{i}.t1.n0", f"i{i}.t1.n4"),
            steps=("1 + 1 = 2", "2 * 2 = 4"),
            score=0.5,
        )
        yield ev.ExperienceAdded(
            iteration=i,
            chain=("1 + 1 = 2", "2 * 2 = 4"),
            report="The chain does not reach 24.",
            advice=("combine the larger numbers first",),
            confidence=0.2,
            verdict="does not reach 24",
        )


async def big_run(thoughts: int, batch: int) -> dict[str, Any]:
    from puzzles.game24 import Hand
    from tui.screens.game24 import Game24Screen
    from tui.widgets.solver_pane import SolverPane

    calls = await template_calls()
    run = list(synthetic_run(thoughts, calls))
    with tempfile.TemporaryDirectory() as tmp:
        app = make_bench_app(Path(tmp))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = Game24Screen(Hand.parse("1 1 1 2"), "bench")
            await app.push_screen(screen)
            await pilot.pause()
            pane = screen.query_one(SolverPane)
            frames = FrameLog(app)
            pane.reset("bot", "synthetic")
            await pilot.pause()
            gc.collect()
            before = rss_bytes()
            apply_s = 0.0
            frame_s: list[float] = []
            started = time.perf_counter()
            for at in range(0, len(run), batch):
                t0 = time.perf_counter()
                with app.batch_update():  # as PuzzleScreen.flush_events does
                    pane.apply(run[at : at + batch])
                t1 = time.perf_counter()
                await pilot.pause(0)  # lets queued messages run, then composes a frame
                apply_s += t1 - t0
                frame_s.append(time.perf_counter() - t1)
            wall = time.perf_counter() - started
            gc.collect()
            after = rss_bytes()
            shown = len(pane.nodes)
            calls_kept = len(pane.calls_by_id)
            prompt_chars = sum(
                len(c.prompt) + sum(len(r) for r in c.replies) for c in pane.calls_by_id.values()
            )
    return {
        "thoughts": shown,
        "events": len(run),
        "batches": len(frame_s),
        "rss_growth_mb": (after - before) / 2**20,
        "rss_after_mb": after / 2**20,
        "calls_kept": calls_kept,
        "prompt_text_mb": prompt_chars / 2**20,
        "apply_s": apply_s,
        "wall_s": wall,
        "frame_p50_ms": percentile(frame_s, 0.5) * 1000,
        "frame_max_ms": max(frame_s) * 1000,
        "frames": frames.count,
    }


# ---------------------------------------------------------------- 3. startup


def first_frame_child() -> None:
    """In a fresh interpreter: import the app, run it headless, exit at the first frame."""
    wall_start = time.time()
    t0 = time.perf_counter()
    from tui.app import make_app  # noqa: F401  (timed: the import is part of startup)
    from tui.screens.home import HomeScreen

    imported = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        # The results file of the data folder startup() gives every run, which the untimed
        # first start creates: a later start opens it, as a person's second start does
        # (creating it, tables and all, took 25-45 ms more on the shared 2-core machine).
        app = make_bench_app(Path(os.environ.get("PONDER_DATA_DIR") or tmp))
        seen: dict[str, float] = {}

        def on_frame() -> None:
            if "frame" not in seen and isinstance(app.screen, HomeScreen):
                seen["frame"] = time.perf_counter()
                used = resource.getrusage(resource.RUSAGE_SELF)
                seen["cpu"] = used.ru_utime + used.ru_stime
                app.exit()

        FrameLog(app, on_frame)
        app.run(headless=True, size=(120, 40))
    print(
        json.dumps(
            {
                "wall_start": wall_start,
                "import_s": imported - t0,
                "app_to_frame_s": seen["frame"] - imported,
                "frame_wall": wall_start + (seen["frame"] - t0),
                "cpu_s": seen["cpu"],
            }
        ),
        flush=True,
    )


def child_env(tmp: str) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE is dropped: an installed ponder has its bytecode compiled, and a
    # start that compiles every module first would time the compiler, not the app.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PONDER_", "OPENAI_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["PONDER_CONFIG"] = str(Path(tmp) / "config.toml")
    env["PONDER_DATA_DIR"] = str(Path(tmp) / "data")
    return env


def startup(runs: int) -> dict[str, Any]:
    root = Path(__file__).resolve().parent.parent
    ponder = shutil.which("ponder", path=str(Path(sys.executable).parent)) or shutil.which("ponder")
    help_cmd = [ponder, "--help"] if ponder else [sys.executable, "-m", "tui.cli", "--help"]
    results: dict[str, list[float]] = {
        "to_frame": [],
        "cpu": [],
        "import": [],
        "app": [],
        "help": [],
        "py": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(tmp)
        # One start not timed: it writes the bytecode caches and the results file that a
        # later start reads.
        subprocess.run(
            [sys.executable, "-m", "bench.app_latency", "--first-frame"],
            cwd=root,
            env=env,
            capture_output=True,
            check=True,
        )
        for _ in range(runs):
            start = time.time()
            out = subprocess.run(
                [sys.executable, "-m", "bench.app_latency", "--first-frame"],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            row = json.loads(out.strip().splitlines()[-1])
            results["to_frame"].append(row["frame_wall"] - start)
            results["cpu"].append(row["cpu_s"])
            results["import"].append(row["import_s"])
            results["app"].append(row["app_to_frame_s"])
            for key, cmd in (("help", help_cmd), ("py", [sys.executable, "-c", "pass"])):
                t = time.perf_counter()
                subprocess.run(cmd, cwd=root, env=env, capture_output=True, check=True)
                results[key].append(time.perf_counter() - t)
    return {
        "runs": runs,
        "help_cmd": " ".join(
            Path(help_cmd[0]).name if i == 0 else c for i, c in enumerate(help_cmd)
        ),
        **{f"{k}_median_ms": statistics.median(v) * 1000 for k, v in results.items()},
        **{f"{k}_max_ms": max(v) * 1000 for k, v in results.items()},
    }


# ---------------------------------------------------------------- report


def table(figures: dict[str, dict[str, Any]]) -> str:
    rows = _startup_rows(figures["startup"])
    if "keys_live" in figures:
        rows = [*_run_rows(figures), *rows]
    width = max(len(name) for name, _ in rows) + 2
    return "\n".join(f"{name:<{width}}{value}" if value else name for name, value in rows)


def _run_rows(figures: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    live, replayed, big = figures["keys_live"], figures["keys_replay"], figures["big_run"]
    rows: list[tuple[str, str]] = [
        ('key -> first frame showing it, "1 1 1 2" at 120x40', "live BoT 15x10 | replayed"),
        ("  presses", f"{live['presses']} | {replayed['presses']}"),
    ]
    for name, key in (("p50", "p50_ms"), ("p95", "p95_ms"), ("max", "max_ms")):
        rows.append((f"  {name}", f"{live[key]:.1f} ms | {replayed[key]:.1f} ms"))
    for name, key, fmt in (
        ("  solver events shown meanwhile", "events", "{:,}"),
        ("  seconds measured", "measured_s", "{:.1f}"),
        ("  frames composed meanwhile", "frames", "{:,}"),
        ("  event batch apply, p50 ms", "batch_p50_ms", "{:.1f}"),
        ("  event batch apply, max ms", "batch_max_ms", "{:.1f}"),
    ):
        rows.append((name, f"{fmt.format(live[key])} | {fmt.format(replayed[key])}"))
    rows += [
        (
            "  runs restarted | stream still on at the end",
            f"{live['solver_restarts']} | {'yes' if replayed['streaming_at_end'] else 'no'}",
        ),
        (f"big run: {big['thoughts']:,} thoughts, {big['events']:,} events", ""),
        ("  RSS growth", f"{big['rss_growth_mb']:.1f} MB (RSS now {big['rss_after_mb']:.0f} MB)"),
        ("  model-call text the pane keeps", f"{big['prompt_text_mb']:.1f} M characters"),
        ("  apply, all batches", f"{big['apply_s']:.2f} s ({big['batches']} batches)"),
        (
            "  frame after a batch, p50 / max",
            f"{big['frame_p50_ms']:.1f} / {big['frame_max_ms']:.1f} ms",
        ),
        ("  wall, apply + frames", f"{big['wall_s']:.2f} s"),
    ]
    return rows


def _startup_rows(start: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (f"startup, median of {start['runs']}", ""),
        ("  process start -> home screen's first frame", f"{start['to_frame_median_ms']:.0f} ms"),
        (
            "  CPU time by then",
            f"{start['cpu_median_ms']:.0f} ms",
        ),
        ("  of which import tui.app", f"{start['import_median_ms']:.0f} ms"),
        ("  of which make_app -> first frame", f"{start['app_median_ms']:.0f} ms"),
        (f"  {start['help_cmd']}", f"{start['help_median_ms']:.0f} ms"),
        ("  python -c pass (the interpreter alone)", f"{start['py_median_ms']:.0f} ms"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=200, help="keys to time (default 200)")
    parser.add_argument("--gap", type=float, default=0.02, help="seconds between presses")
    parser.add_argument("--thoughts", type=int, default=10_000, help="thoughts in the big run")
    parser.add_argument("--batch", type=int, default=200, help="events per flushed batch")
    parser.add_argument("--runs", type=int, default=10, help="startup runs (default 10)")
    parser.add_argument(
        "--replay-iterations", type=int, default=40, help="BoT iterations recorded for replay"
    )
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    parser.add_argument(
        "--startup", action="store_true", help="measure only the startup (a few seconds)"
    )
    parser.add_argument("--first-frame", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.first_frame:
        first_frame_child()
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(child_env(tmp))
        figures = {"startup": startup(args.runs)} if args.startup else measure(args)
    print(json.dumps(figures, indent=2) if args.json else table(figures))


def measure(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    live = asyncio.run(key_latency_live(args.presses, args.gap))
    recorded = asyncio.run(record_bot(args.replay_iterations))
    rate = live["events"] / live["measured_s"]
    replayed = asyncio.run(key_latency_replay(args.presses, args.gap, recorded, rate))
    big = asyncio.run(big_run(args.thoughts, args.batch))
    start = startup(args.runs)
    return {"keys_live": live, "keys_replay": replayed, "big_run": big, "startup": start}


if __name__ == "__main__":
    main()
