"""Benchmarks on a Ray cluster: every run (a method on one puzzle with its seed) is a Ray task.

The driver keeps a window of the runs the selection asks for submitted (a few per CPU of the
cluster), takes each result as it comes back and hands it to ``on_result`` (the command line
writes it to the results file there, so the file, ``--resume``, ``bench report`` and the
exports work as without Ray). A task whose worker dies is retried by Ray (:data:`RETRIES`);
its result still arrives once, and the driver hands on each run once. Ctrl-C on the driver
keeps every result already back, cancels the rest and raises :class:`KeyboardInterrupt`.

A run plays exactly as :func:`solver.bench.run_one` plays it in one process, with the same
seed (the set's seed plus the puzzle's place in it), so a Ray bench gives the local one's
results run for run.

The secrets (the API key and the base URL, which may carry credentials) reach the tasks
sealed: a random pad as large as them goes with each task as an argument, and the secrets
masked by that pad (XOR) go in the tasks' runtime environment. Ray writes a runtime
environment into its logs and shows it on its dashboard in plain text (its runtime env
agent logs "Creating runtime env: {...}"), so a key put there as it is would be in both;
task arguments it neither logs nor shows. Neither half alone holds the key.

Ray is an optional extra (``pip install 'ponder[ray]'``); it is imported only here, and only
when a Ray bench runs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import math
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzles.game24 import Hand
from solver.bench import BenchResult, PuzzleResult, run_one
from solver.domains.base import Domain
from solver.methods import Method
from solver.settings import Settings

__all__ = [
    "INSTALL_HINT",
    "RETRIES",
    "RayBench",
    "RayMissing",
    "RayUnavailable",
    "ray_installed",
    "run_bench_ray",
    "seal",
    "unseal",
]

INSTALL_HINT = (
    "--ray needs Ray, an optional extra: pip install 'ponder[ray]' (in a checkout: "
    "pip install -e '.[ray]')"
)
RETRIES = 3
"""How many times Ray runs a task again whose worker died (a node lost, a process killed)."""
WINDOW_PER_CPU = 8
"""Runs submitted at a time per CPU of the cluster (the rest wait on the driver)."""
SEALED_VAR = "PONDER_RAY_SEALED"
"""The runtime environment variable that carries the sealed secrets to the tasks."""
_SECRET_FIELDS = ("api_key", "base_url")


class RayMissing(RuntimeError):
    """Ray is not installed; the message says how to get it."""


class RayUnavailable(RuntimeError):
    """The Ray cluster asked for could not be joined (or a local one started): why."""


def ray_installed() -> bool:
    """Whether Ray can be imported (it is, here, once: the bench uses it next)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------ the secrets, sealed


def seal(secret: Mapping[str, str | None]) -> tuple[str, bytes]:
    """``secret`` as (sealed text for the runtime environment, the pad for the tasks):
    the JSON of ``secret`` XOR a random pad of its length, in hex."""
    plain = json.dumps(secret, sort_keys=True).encode()
    pad = secrets.token_bytes(len(plain))
    return bytes(a ^ b for a, b in zip(plain, pad, strict=True)).hex(), pad


def unseal(sealed: str, pad: bytes) -> dict[str, str | None]:
    """What :func:`seal` sealed, from its two halves; :class:`ValueError` if they do not
    belong together."""
    masked = bytes.fromhex(sealed)
    if len(masked) != len(pad):
        raise ValueError("the sealed secrets and their pad differ in length")
    data = json.loads(bytes(a ^ b for a, b in zip(masked, pad, strict=True)))
    if not isinstance(data, dict):
        raise ValueError("the sealed secrets are not an object")
    return {str(k): v if isinstance(v, str) else None for k, v in data.items()}


def _secrets_of(settings: Settings | None, prefix: str) -> dict[str, str | None]:
    if settings is None:
        return {}
    return {f"{prefix}{name}": getattr(settings, name) for name in _SECRET_FIELDS}


def _without_secrets(settings: Settings) -> Settings:
    return settings.replace(**dict.fromkeys(_SECRET_FIELDS))


def _with_secrets(settings: Settings, found: dict[str, str | None], prefix: str) -> Settings:
    return settings.replace(**{name: found.get(f"{prefix}{name}") for name in _SECRET_FIELDS})


# ------------------------------------------------------------------ one run, in a task


@dataclass(frozen=True)
class RayBench:
    """What every task of one Ray bench shares (sent once, through Ray's object store)."""

    kind: str
    settings: Settings
    """The model's settings without their secrets (they travel sealed)."""
    guide: Settings | None
    seed: int | None
    deadline: float | None
    domain_for: Callable[[Any], Domain[Any, Any]] | None = None
    """How a puzzle becomes its domain, when not as its kind's spec makes it (the command
    line's: a crossword file's row, a word problem with its tool limit)."""


def play(bench: RayBench, method: Method, puzzle: Any, index: int, pad: bytes) -> PuzzleResult:
    """One run, in a Ray worker: the model built from the settings and the unsealed secrets,
    the method played on the puzzle with the seed its place in the set gives it."""
    found = unseal(os.environ[SEALED_VAR], pad) if pad else {}
    settings = _with_secrets(bench.settings, found, "")
    guide = None if bench.guide is None else _with_secrets(bench.guide, found, "guide_")
    return asyncio.run(_play(bench, settings, guide, method, puzzle, index))


async def _play(
    bench: RayBench,
    settings: Settings,
    guide_settings: Settings | None,
    method: Method,
    puzzle: Any,
    index: int,
) -> PuzzleResult:
    from solver.factory import make_model

    seed = bench.seed
    model = make_model(settings, seed=seed)
    guide = make_model(guide_settings, seed=seed) if guide_settings is not None else None
    try:
        return await run_one(
            method,
            puzzle,
            model,
            None if seed is None else seed + index,
            bench.deadline,
            guide,
            bench.domain_for,
            kind=bench.kind,
        )
    finally:
        await model.aclose()
        if guide is not None:
            await guide.aclose()


# ------------------------------------------------------------------ the driver


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissing(INSTALL_HINT) from None
    return ray


def _connect(ray: Any, address: str | None, init: dict[str, Any]) -> bool:
    """Join the cluster at ``address`` (``auto``: the one running here), or start a local
    Ray when None; a Ray this process already joined is used as it is. Whether this call
    started the connection (and so must end it)."""
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "logging_level": logging.ERROR,  # Ray's start-up notes are not the bench's output
        "log_to_driver": False,  # the tasks print nothing; their errors come back as results
        **init,
    }
    if address is None:
        options.setdefault("include_dashboard", False)
    try:
        ray.init(address="local" if address is None else address, **options)
    except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
        where = "start a local Ray" if address is None else f"join the Ray cluster at {address}"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnavailable(f"cannot {where}: {first}") from None
    return True


def run_bench_ray(
    methods: Sequence[Method],
    hands: Sequence[Hand],
    settings: Settings,
    *,
    kind: str = "game24",
    seed: int | None = 0,
    deadline: float | None = None,
    guide: Settings | None = None,
    select: Callable[[Method, int], bool] | None = None,
    on_result: Callable[[Method, int, PuzzleResult], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_lost: Callable[[Method, int, str], None] | None = None,
    domain_for: Callable[[Any], Domain[Any, Any]] | None = None,
    address: str | None = None,
    init: dict[str, Any] | None = None,
    task: Callable[..., PuzzleResult] | None = None,
) -> list[BenchResult]:
    """Run every method on every selected hand, each run a Ray task; the results as
    :func:`solver.bench.run_bench` gives them (one per method, its runs in the order of
    ``hands``), each method's wall time the time until its last run came back.

    ``address``: a Ray cluster to join (``auto``: the one started here with ``ray start``);
    None starts a local Ray for this bench and stops it after. ``domain_for`` makes each
    puzzle's domain (its kind's spec when None; it is sent to the workers, so a module's
    function or a closure over picklable values). ``init`` adds options to ``ray.init``
    (tests give ``num_cpus`` and ``_temp_dir``). ``progress(done, total)``
    hears of every run that comes back, from any method. A run whose worker died more than
    :data:`RETRIES` times is left out of the results and told to ``on_lost(method, index,
    why)`` (a rerun with the same results file makes it). ``task`` is what each task runs
    (:func:`play` when None, found when the bench starts; tests wrap it).
    :class:`RayMissing` when Ray is not installed, :class:`RayUnavailable` when the cluster
    cannot be joined."""
    ray = _import_ray()
    units = [
        (m, i) for m, method in enumerate(methods) for i in range(len(hands))
        if select is None or select(method, i)
    ]  # fmt: skip
    results = [BenchResult(method.name, method.config_dict()) for method in methods]
    if not units:
        return results
    started = _connect(ray, address, init or {})
    try:
        bench = RayBench(kind, _without_secrets(settings),
                         None if guide is None else _without_secrets(guide),
                         seed, deadline, domain_for)  # fmt: skip
        return _drive(ray, methods, hands, bench, settings, guide, units, results,
                      on_result, progress, on_lost, task or play)  # fmt: skip
    finally:
        if started:
            ray.shutdown()


def _drive(
    ray: Any,
    methods: Sequence[Method],
    hands: Sequence[Hand],
    bench: RayBench,
    settings: Settings,
    guide: Settings | None,
    units: list[tuple[int, int]],
    results: list[BenchResult],
    on_result: Callable[[Method, int, PuzzleResult], None] | None,
    progress: Callable[[int, int], None] | None,
    on_lost: Callable[[Method, int, str], None] | None,
    task: Callable[..., PuzzleResult],
) -> list[BenchResult]:
    from ray.exceptions import RayTaskError, TaskCancelledError

    hidden = {**_secrets_of(settings, ""), **_secrets_of(guide, "guide_")}
    env: dict[str, str] = {}
    pad = b""
    if any(hidden.values()):
        env[SEALED_VAR], pad = seal(hidden)
    shared = ray.put(bench)
    method_refs = [ray.put(method) for method in methods]
    remote = ray.remote(task).options(
        num_cpus=1,
        max_retries=RETRIES,  # a worker that dies; an error inside a run is its result
        runtime_env={"env_vars": env} if env else None,
    )
    start = time.perf_counter()
    waiting = iter(units)
    pending: dict[Any, tuple[int, int]] = {}

    cpus = {"count": 1.0, "at": -math.inf}

    def submit() -> None:
        """Keep a window of runs submitted: a few per CPU the cluster has (asked again every
        few seconds: it may grow), so that each wait looks at hundreds of runs, not a whole
        set of thousands, and Ctrl-C has few to cancel."""
        if time.monotonic() - cpus["at"] > 5:
            cpus["count"], cpus["at"] = ray.cluster_resources().get("CPU", 1), time.monotonic()
        window = max(WINDOW_PER_CPU * int(cpus["count"]), 64)
        for m, i in itertools.islice(waiting, max(0, window - len(pending))):
            pending[remote.remote(shared, method_refs[m], hands[i], i, pad)] = (m, i)

    submit()
    got: dict[int, dict[int, PuzzleResult]] = {m: {} for m in range(len(methods))}
    done = 0

    def take(ready: list[Any]) -> None:
        nonlocal done
        for ref in ready:
            m, i = pending.pop(ref)
            try:
                result: PuzzleResult = ray.get(ref)
            except TaskCancelledError:
                continue
            except RayTaskError:
                raise  # the run itself raised: a bug, shown as one
            except ray.exceptions.RayError as exc:  # its worker or node died, tries and all
                if on_lost is not None:
                    on_lost(methods[m], i, f"{type(exc).__name__}: {exc}".splitlines()[0])
                continue
            if i in got[m]:  # never twice, whatever the cluster did
                continue
            got[m][i] = result
            results[m].wall_time = time.perf_counter() - start
            done += 1
            if on_result is not None:
                on_result(methods[m], i, result)
            if progress is not None:
                progress(done, len(units))

    try:
        while pending:
            # A short wait, so that Ctrl-C reaches this loop at once.
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            if ready:
                more, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                take(list(dict.fromkeys([*ready, *more])))
                submit()
    except BaseException:
        # Keep what came back before the interruption, then call off the rest.
        finished, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
        for ref in list(pending):
            if ref not in finished:
                ray.cancel(ref)
        try:
            take(finished)
        finally:
            for ref in list(pending):
                ray.cancel(ref)
        raise
    for m, result in enumerate(results):
        result.puzzles = [got[m][i] for i in sorted(got[m])]
    return results
