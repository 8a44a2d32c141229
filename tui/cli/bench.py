"""``ponder bench KIND``: methods over a set of puzzles, as a paper-style table (or JSON),
with the papers' own figures beside ours."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.cli import options
from tui.cli.kinds import SolverCommands, add_kind_parsers, kind_commands
from tui.cli.solve import CONFIG_ERRORS, check_roles, refuse_unsolvable, run_stoppable
from tui.cli.usage import UsageError, visible
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

    from solver.bench import BenchResult
    from solver.methods import MethodSpec
    from tui.cli.kinds import _SubParsers
    from tui.cli.usage import Parser
    from tui.kinds import PuzzleKind

__all__ = ["add_parser", "bench_exit_code", "run"]

DEFAULT_METHODS = "tot"


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder bench KIND ...``: one sub-parser per kind the solvers play."""
    p = sub.add_parser(
        "bench",
        help="run methods over a puzzle set and print a table",
        description="Benchmark methods on a set of puzzles (ToT's success rule). The options "
        "follow the kind: ponder bench 24 --help lists them.",
        **common,
    )
    kinds = add_kind_parsers(p, refuse_unsolvable)
    for kind, commands in kind_commands():
        if commands.solver is not None and kind.solvable:
            kinds.add_lazy(
                kind.cli,
                partial(_add_kind_arguments, kind, commands.solver),
                help=kind.label,
                description=f"Benchmark methods on a set of {kind.label} puzzles (ToT's "
                "success rule).",
                **common,
            )


def _add_kind_arguments(kind: PuzzleKind, solver: SolverCommands, kp: Parser) -> None:
    """The flags of ``ponder bench KIND``: the methods, the kind's puzzle set, the run."""
    options.add_method_flag(kp, default=DEFAULT_METHODS, several=True)
    solver.add_bench_arguments(kp)
    kp.add_argument("--jobs", type=int, default=1, metavar="N", help="puzzles run at once (1)")
    kp.add_argument("--json", action="store_true", help="print results as JSON")
    options.add_method_options(kp)
    options.add_model_options(kp)
    kp.set_defaults(run=partial(run, kind, solver), parser=kp)


def run(kind: PuzzleKind, solver: SolverCommands, args: argparse.Namespace) -> int:
    """``ponder bench KIND``: the exit code (see :func:`bench_exit_code`)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from solver.bench import run_bench
    from solver.model.factory import describe_engine, make_model

    chosen = options.chosen_methods(args, [m for m in args.method.split(",") if m.strip()])
    if not chosen:
        raise UsageError(f"--method names no method; choose from {options.method_names()}")
    hands = solver.bench_hands(args)
    domain = solver.domain(hands[0])
    for spec, _ in chosen:
        check_roles(spec, domain)
    settings = options.settings(args)
    deadline = options.deadline(args, settings)
    guide = options.guide_settings(args, settings)
    seed = settings.seed if settings.seed is not None else 0
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    err = Console(stderr=True)
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),  # a long bench says how long it has left
        console=err,
        disable=args.json or not err.is_terminal,
        transient=True,
    )
    tasks: dict[str, Any] = {}

    def tick(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=total)
        progress.update(tasks[name], completed=done)

    with progress:
        results = run_stoppable(
            run_bench(
                [method for _, method in chosen],
                hands,
                lambda: make_model(settings, seed=seed),
                guide_model_for=(lambda: make_model(guide, seed=seed)) if guide else None,
                seed=seed,
                jobs=args.jobs,
                progress=tick,
                deadline=deadline,
            )
        )
    engine = describe_engine(settings)
    if args.json:
        print(
            json.dumps(
                {
                    "engine": engine,
                    "hands": len(hands),
                    "results": [r.to_json() for r in results],
                },
                indent=2,
            )
        )
    else:
        # run_bench returns one result per method, in the order given.
        specs = [spec for spec, _ in chosen]
        _print_table(kind, solver, list(zip(results, specs, strict=True)), len(hands), engine)
    return bench_exit_code(results)


def _print_table(
    kind: PuzzleKind,
    solver: SolverCommands,
    rows: Sequence[tuple[BenchResult, MethodSpec]],
    size: int,
    engine: str,
) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    table = Table(
        # Ten columns fit 80 characters only without borders.
        box=None,
        pad_edge=False,
        padding=(0, 0, 0, 1),
        title=Text(f"{kind.label} · {size} hands · {visible(engine)}"),
        caption="success counts a failed run as not solved; 'of completed' leaves failed runs "
        "out; calls, tokens and time are means per hand; cost is the total",
    )
    for col in (
        "method",
        "success",
        "solved",
        "of\ncompleted",
        "errors",
        "calls",
        "tokens",
        "cost",
        "time",
        "paper",
    ):
        table.add_column(
            col,
            justify="left" if col == "method" else "right",
            no_wrap=True,
            min_width=len(col.split("\n")[-1]),
        )
    for r, spec in rows:
        cost = f"${r.cost:.4f}" if r.cost is not None else "unknown"
        of_completed = r.completed_success_rate
        table.add_row(
            r.method,
            f"{r.success_rate:.1%}",
            f"{r.solved}/{r.n}",
            f"{of_completed:.1%}" if of_completed is not None else "-",
            str(r.errors),
            f"{r.mean('calls'):.1f}",
            f"{r.mean('tokens'):,.0f}",
            cost,
            f"{r.mean('wall_time'):.2f}s",
            spec.paper.get(kind.name, "-"),
        )
    console.print(table)
    # Where each figure comes from, methods from the same table together.
    sources: dict[str, list[str]] = {}
    for _, spec in rows:
        if kind.name in spec.paper and spec.paper_note:
            labels = sources.setdefault(spec.paper_note, [])
            if spec.label not in labels:
                labels.append(spec.label)
    if sources:
        setting = f" ({solver.bench_setting})" if solver.bench_setting else ""
        notes = "; ".join(f"{', '.join(labels)}: {note}" for note, labels in sources.items())
        console.print(Text(f"paper{setting}: {notes}", style="dim"))
    base = next((r for r, spec in rows if spec.name == "cot"), None)
    for r, spec in rows:
        # The IoT paper reports its gains relative to CoT: put ours beside them.
        relative = "vs CoT" in spec.paper.get(kind.name, "")
        if relative and base is not None and r is not base and base.success_rate:
            gain = r.success_rate / base.success_rate - 1
            console.print(
                f"{r.method} relative to cot: {gain:+.0%} (paper: {spec.paper[kind.name]})"
            )
    for r, _ in rows:
        curve = r.cumulative_by_iteration()
        if curve:
            steps = " ".join(f"{i}:{v:.0%}" for i, v in enumerate(curve, 1))
            console.print(f"{r.method} cumulative success by iteration: {steps}")
        stops = r.stops()
        if stops:
            shares = " · ".join(f"{turn}: {count / r.n:.0%}" for turn, count in stops.items())
            reasons = ", ".join(f"{by} {count}" for by, count in r.stopped_by().items())
            console.print(f"{r.method} dialogues ended at turn {shares} (by {reasons})")
        first_error = next((p.error for p in r.puzzles if p.error), "")
        if first_error:
            # A server's message: shown as text, never as markup or control characters.
            failed = f"{r.method}: {r.errors} of {r.n} runs failed; first: {visible(first_error)}"
            console.print(Text(failed, style="red"))


def bench_exit_code(results: Sequence[BenchResult]) -> ExitCode:
    """0 when every method completed some runs; otherwise the code of what stopped them:
    a method whose every run failed has no figure to report, and scripts must not read its
    0 % as a result."""
    kinds = {p.error_kind for r in results if r.n and not r.completed for p in r.puzzles}
    if not kinds:
        return ExitCode.OK
    return ExitCode.USAGE if kinds <= CONFIG_ERRORS else ExitCode.SERVER_FAILED
