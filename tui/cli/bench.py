"""``ponder bench KIND``: methods over a set of puzzles, as a paper-style table (or JSON),
with the papers' own figures beside ours."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.cli import library, options
from tui.cli.kinds import SolverCommands, add_kind_parsers, kind_commands
from tui.cli.solve import CONFIG_ERRORS, check_roles, refuse_unsolvable, run_stoppable
from tui.cli.usage import UsageError, visible
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from solver.bench import BenchResult, PuzzleResult
    from solver.bench_results import Record
    from solver.methods import Method, MethodSpec
    from solver.settings import Settings
    from tui.cli.kinds import _SubParsers
    from tui.cli.usage import Parser
    from tui.kinds import PuzzleKind

__all__ = ["add_parser", "bench_exit_code", "parse_shard", "run", "run_report"]

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
    report = kinds.add_parser(
        "report",
        help="the table (and plots) of results files, merged",
        description="Print the table and plots of one or more results files written with "
        "--results, merged: the shards of one set, or the sessions of an interrupted run. "
        "They must share their setup (kind, engine and model, seed, deadline); a run "
        "recorded in several is counted once.",
        **common,
    )
    report.add_argument("files", nargs="+", metavar="FILE", help="results files")
    report.add_argument("--json", action="store_true", help="print results as JSON")
    _add_export_flags(report)
    _add_plot_flags(report)
    report.set_defaults(run=run_report, parser=report)
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
    options.add_method_flag(kp, default=DEFAULT_METHODS, several=True, kind=kind)
    solver.add_bench_arguments(kp)
    kp.add_argument("--jobs", type=int, default=1, metavar="N", help="puzzles run at once (1)")
    kp.add_argument("--json", action="store_true", help="print results as JSON")
    files = kp.add_mutually_exclusive_group()
    files.add_argument(
        "--results",
        metavar="FILE",
        help="write each finished run to FILE as a JSON line, and skip the runs FILE already "
        "holds (a missing FILE is started); the table covers every run in FILE",
    )
    files.add_argument(
        "--resume",
        metavar="FILE",
        dest="results",
        help="the same as --results FILE: rerun an interrupted bench with it to make only the "
        "runs FILE lacks (give one of the two)",
    )
    _add_export_flags(kp)
    kp.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run each method on each puzzle as a task on a Ray cluster: the one at ADDRESS "
        "(auto: the one started on this machine with 'ray start'), or without ADDRESS a "
        "local Ray started for this bench; the same results, file and table as without it "
        "(needs the ray extra: pip install 'ponder[ray]')",
    )
    kp.add_argument(
        "--shard",
        metavar="I/N",
        help="run only every N-th hand, from the I-th (1 <= I <= N): hands whose place in "
        "the set, counted from 0, leaves I-1 over when divided by N",
    )
    _add_plot_flags(kp)
    options.add_method_options(kp, kind.methods())
    options.add_model_options(kp)
    library.add_library_options(kp, command="bench")
    kp.set_defaults(run=partial(run, kind, solver), parser=kp)


def _add_export_flags(p: Parser) -> None:
    p.add_argument(
        "--csv",
        metavar="OUT",
        help="also write one row per run (method, config, puzzle, seed, model, solved, "
        "calls, tokens, cost, wall time, error and the kind's measures) to OUT as CSV",
    )
    p.add_argument(
        "--jsonl",
        metavar="OUT",
        help="also write the rows of --csv to OUT as JSON lines (pandas.read_json(OUT, "
        "lines=True))",
    )


def _check_export(args: argparse.Namespace) -> None:
    """Refuse a --csv or --jsonl target that may never be written (a directory, a pipe, a
    device, a symbolic link) before any run starts, not after the last one."""
    if not (args.csv or args.jsonl):
        return
    from solver.bench_export import ExportError, check_targets

    try:
        check_targets(args.csv, args.jsonl)
    except ExportError as exc:
        raise UsageError(str(exc)) from None


def _export(args: argparse.Namespace, setup: dict[str, Any], records: Sequence[Record]) -> None:
    """The runs to the --csv and --jsonl files, if asked; a file that cannot be written is
    a usage error."""
    if not (args.csv or args.jsonl):
        return
    from solver.bench_export import ExportError, write_export

    try:
        write_export(setup, records, args.csv, args.jsonl)
    except ExportError as exc:
        raise UsageError(str(exc)) from None


def _add_plot_flags(p: Parser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--plot",
        action="store_true",
        help="draw the plots under the table even when the output is not a terminal",
    )
    g.add_argument(
        "--no-plot",
        action="store_true",
        help="no plots under the table (they are drawn only on a terminal, never with --json)",
    )


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``--shard I/N`` as (I, N), 1 <= I <= N; a usage error otherwise."""
    if text is None:
        return None
    found = re.fullmatch(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*", text)
    if not found:
        raise UsageError(f"--shard takes I/N, e.g. 1/4, not {text!r}")
    i, n = int(found.group(1)), int(found.group(2))
    if not 1 <= i <= n:
        raise UsageError(f"--shard {i}/{n}: I must be 1 to N ({n})")
    return i, n


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
    from rich.text import Text

    from solver.bench import run_bench
    from solver.bench_results import Record, combine
    from solver.factory import describe_engine, make_model
    from solver.model.adaptive import concurrency_of

    chosen = options.chosen_methods(args, [m for m in args.method.split(",") if m.strip()])
    if not chosen:
        raise UsageError(f"--method names no method; choose from {options.method_names()}")
    hands = solver.bench_hands(args)
    domain = solver.domain(hands[0])
    for spec, _ in chosen:
        check_roles(spec, domain)
    settings = options.settings(args)
    options.check_published(settings, chosen, kind.name, hands)
    deadline = options.deadline(args, settings)
    guide = options.guide_settings(args, settings)
    seed = settings.seed if settings.seed is not None else 0
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.ray is not None:
        _check_ray(args, settings, guide)
    shard = parse_shard(args.shard)
    _check_export(args)
    methods = library.with_library(args, chosen)
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
    models: list[Any] = []  # the model of the method running now is the last

    def model_for() -> Any:
        models.append(make_model(settings, seed=seed))
        return models[-1]

    def tick(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=total)
        shown = concurrency_of(models[-1]) if models else None
        # The concurrency limit as it adapts to the server (it comes down on 429s).
        label = f"{name} · concurrency {shown}" if shown is not None else name
        progress.update(tasks[name], completed=done, description=label)

    engine = describe_engine(settings)
    setup = {
        "kind": kind.name,
        "engine": engine,
        "guide_model": guide.model if guide else None,
        "seed": seed,
        "deadline": deadline,
    }
    file = None
    if args.results:
        from solver.bench_results import ResultsFile
        from solver.methods import METHODS

        file = ResultsFile(args.results, setup, METHODS)

    def select(method: Method, index: int) -> bool:
        if shard is not None and index % shard[1] != shard[0] - 1:
            return False
        if file is None:
            return True
        key = Record.key_for(method.name, method.config_dict(), index, str(hands[index]))
        return not file.holds(key)

    made: list[Record] = []
    lost: list[str] = []

    def record(method: Method, index: int, result: PuzzleResult) -> None:
        made.append(Record(method.name, method.config_dict(), index, result))
        if file is not None:
            file.write(made[-1])

    with _results_errors(), file if file is not None else contextlib.nullcontext(), progress:
        for note in file.held.notes if file is not None else ():
            err.print(Text(f"ponder: {visible(note)}"))
        if args.ray is not None:
            from solver.bench_ray import RayUnavailable, run_bench_ray

            try:
                ran = results = run_bench_ray(
                    methods,
                    hands,
                    settings,
                    kind=kind.name,
                    seed=seed,
                    deadline=deadline,
                    guide=guide,
                    select=select,
                    on_result=record,
                    progress=partial(tick, "runs on Ray"),
                    on_lost=partial(_lost, err, lost),
                    domain_for=solver.domain,
                    address=args.ray or None,
                )
            except RayUnavailable as exc:
                raise UsageError(str(exc)) from None
        else:
            ran = results = run_stoppable(
                run_bench(
                    methods,
                    hands,
                    model_for,
                    guide_model_for=(lambda: make_model(guide, seed=seed)) if guide else None,
                    domain_for=solver.domain,
                    seed=seed,
                    jobs=args.jobs,
                    progress=tick,
                    deadline=deadline,
                    select=select,
                    on_result=record,
                )
            )
    library.close_library(methods)
    size = len(hands) if shard is None else len(range(shard[0] - 1, len(hands), shard[1]))
    if file is not None:
        # The table covers every run the file holds, this session's and earlier ones.
        results = combine(file.held.records)
        size = len({(r.index, r.result.hand) for r in file.held.records})
        limits = {(r.method, repr(r.config)): r.concurrency for r in ran}
        for result in results:  # this session's limit, for the methods it ran
            result.concurrency = limits.get((result.method, repr(result.config)))
    # run_bench returns one result per method, in the order given; a file's, one per
    # method and config it holds, found by name.
    specs = [spec for spec, _ in chosen] if file is None else None
    _export(args, setup, file.held.records if file is not None else made)
    _report(kind, solver, results, size, engine, args, specs)
    if lost:
        some = "1 run was" if len(lost) == 1 else f"{len(lost)} runs were"
        again = "rerun with the same --results file" if file is not None else "rerun the bench"
        err.print(Text(f"ponder: {some} lost on Ray (a worker died on every try); {again} "
                       "to make what is missing"))  # fmt: skip
        return ExitCode.SERVER_FAILED
    return bench_exit_code(results)


def _check_ray(args: argparse.Namespace, settings: Settings, guide: Settings | None) -> None:
    """A usage error for ``--ray`` without Ray installed, or with what one machine's process
    must do alone: ``--jobs`` (Ray schedules the runs), BoT's experience library (one SQLite
    file, each hand's entries read by the next) and ``--record`` (one file)."""
    from solver.bench_ray import INSTALL_HINT, ray_installed

    if not ray_installed():
        raise UsageError(INSTALL_HINT)
    if args.jobs != 1:
        raise UsageError("--jobs does not apply with --ray: Ray runs as many at once as the "
                         "cluster has CPUs")  # fmt: skip
    if library.library_wanted(args):
        raise UsageError("--library keeps one file on this machine, read hand after hand: "
                         "run BoT with it without --ray")  # fmt: skip
    if settings.record_file or (guide is not None and guide.record_file):
        raise UsageError("--record writes one file on this machine: record without --ray")


def _lost(err: Console, lost: list[str], method: Method, index: int, why: str) -> None:
    """A run Ray gave up on: one line on stderr, counted for the exit code."""
    from rich.text import Text

    lost.append(f"{method.name} #{index}")
    err.print(Text(f"ponder: {method.name} on puzzle {index} was lost on Ray: {visible(why)}"))


@contextlib.contextmanager
def _results_errors() -> Iterator[None]:
    """A results file that cannot be read, used or written is a usage error."""
    from solver.bench_results import ResultsError

    try:
        yield
    except ResultsError as exc:
        raise UsageError(str(exc)) from None


def run_report(args: argparse.Namespace) -> int:
    """``ponder bench report FILE...``: the table of the files' runs, merged; the exit code
    of :func:`bench_exit_code` over them."""
    from rich.console import Console
    from rich.text import Text

    from solver.bench_results import combine, merge, read_results
    from solver.methods import METHODS
    from tui.kinds import UnknownKind, find_kind

    _check_export(args)
    with _results_errors():
        merged = merge([read_results(path, METHODS) for path in args.files], args.files)
    err = Console(stderr=True, highlight=False)
    for note in merged.notes:
        err.print(Text(f"ponder: {visible(note)}"))
    if merged.duplicates:
        err.print(f"ponder: {merged.duplicates} runs recorded more than once were counted once")
    setup = merged.setup
    name, engine = setup.get("kind"), setup.get("engine")
    if not isinstance(name, str) or not isinstance(engine, str):
        raise UsageError(f"{args.files[0]}: the header does not name its kind and engine")
    try:
        kind = find_kind(name)
    except UnknownKind as exc:
        raise UsageError(f"{args.files[0]}: {exc}") from None
    solver = next((c.solver for k, c in kind_commands() if k is kind), None)
    if solver is None:
        raise UsageError(f"{args.files[0]}: the solvers do not play {kind.label} puzzles")
    results = combine(merged.records)
    size = len({(r.index, r.result.hand) for r in merged.records})
    _export(args, setup, merged.records)
    _report(kind, solver, results, size, engine, args)
    return bench_exit_code(results)


def _report(
    kind: PuzzleKind,
    solver: SolverCommands,
    results: Sequence[BenchResult],
    size: int,
    engine: str,
    args: argparse.Namespace,
    specs: Sequence[MethodSpec] | None = None,
) -> None:
    """The results as JSON, or as the table with its plots under it. Each result's method
    spec (for its paper's figure) is found by its name, unless ``specs`` gives them."""
    from solver.methods import find_spec

    if args.json:
        print(
            json.dumps(
                {"engine": engine, "hands": size, "results": [r.to_json() for r in results]},
                indent=2,
            )
        )
        return
    if specs is None:
        specs = [find_spec(r.method) for r in results]
    rows = list(zip(results, specs, strict=True))
    _print_table(kind, solver, rows, size, engine)
    if rows and not args.no_plot and (args.plot or sys.stdout.isatty()):
        from tui.cli.plots import bench_plots

        print(
            bench_plots(
                results, width=shutil.get_terminal_size().columns, color=sys.stdout.isatty()
            )
        )


def _caption(measured: bool) -> str:
    """What the columns mean, naming only columns the table has."""
    means = "calls, tokens and time are means per puzzle; cost is the total"
    if measured:
        return f"letter, word and game: the share right, as ToT scores minis; {means}"
    return (
        "success counts a failed run as not solved; 'of completed' leaves failed runs out; " + means
    )


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
    # Crosswords are scored as ToT scores them: letters, words and whole games right.
    measured = any(r.measures() for r, _ in rows)
    table = Table(
        # Ten columns fit 80 characters only without borders.
        box=None,
        pad_edge=False,
        padding=(0, 0, 0, 1),
        title=Text(f"{kind.label} · {size} {kind.puzzles} · {visible(engine)}"),
        caption=_caption(measured),
    )
    columns: tuple[str, ...] = ("method", "success", "solved", "of\ncompleted")
    if measured:
        columns = ("method", "letter", "word", "game")
    for col in (
        *columns,
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
        if measured:
            m = r.measures() or {"letter": 0.0, "word": 0.0, "game": 0.0}
            first = [f"{m['letter']:.1%}", f"{m['word']:.1%}", f"{m['game']:.1%}"]
        else:
            first = [
                f"{r.success_rate:.1%}",
                f"{r.solved}/{r.n}",
                f"{of_completed:.1%}" if of_completed is not None else "-",
            ]
        table.add_row(
            r.method,
            *first,
            str(r.errors),
            f"{r.mean('calls'):.1f}",
            f"{r.mean('tokens'):,.0f}",
            cost,
            f"{r.mean('wall_time'):.2f}s",
            spec.paper.get(kind.name, "-"),
        )
    if not console.is_terminal:
        # A pipe or a file has no width to fit: print the table whole, never cut to "…".
        natural = console.measure(table, options=console.options.update_width(10_000))
        console.width = max(console.width, natural.maximum)
    console.print(table)
    # Where each figure comes from, methods from the same table together.
    sources: dict[str, list[str]] = {}
    for _, spec in rows:
        if kind.name in spec.paper and spec.paper_note:
            labels = sources.setdefault(spec.paper_note, [])
            if spec.label not in labels:
                labels.append(spec.label)
    if sources:
        setting = f" ({kind.spec.bench_setting})" if kind.spec.bench_setting else ""
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
    for r, spec in rows:
        _print_samples(console, kind, r, spec)
    for r, _ in rows:
        curve = r.cumulative_by_iteration()
        if curve:
            steps = " ".join(f"{i}:{v:.0%}" for i, v in enumerate(curve, 1))
            console.print(f"{r.method} cumulative success by iteration: {steps}")
            alone = " ".join(f"{i}:{v:.0%}" for i, v in enumerate(r.success_by_iteration(), 1))
            console.print(f"{r.method} success of each iteration's chain: {alone}")
        stops = r.stops()
        if stops:
            shares = " · ".join(f"{turn}: {count / r.n:.0%}" for turn, count in stops.items())
            reasons = ", ".join(f"{by} {count}" for by, count in r.stopped_by().items())
            console.print(f"{r.method} dialogues ended at turn {shares} (by {reasons})")
        elif r.stopped_by():
            console.print(f"{r.method} stopped by: {stop_tally(r)}")
        first_error = next((p.error for p in r.puzzles if p.error), "")
        if first_error:
            # A server's message: shown as text, never as markup or control characters.
            failed = f"{r.method}: {r.errors} of {r.n} runs failed; first: {visible(first_error)}"
            console.print(Text(failed, style="red"))


def stop_tally(r: BenchResult) -> str:
    """ReAct / DELI: how many runs each reason ended (``finish 7, step cap 2, error 1 (of 10
    runs)``), from their EpisodeEnded / DeliberationEnded events; ReAct with CoT-SC: how many
    fell back (its FallbackDecided events); runs an error or the deadline ended before any
    such event count as ``error``."""
    # The cap is ReAct's steps or DELI's turns: named by the option the config holds.
    cap = "step cap" if "steps" in r.config else "turn cap" if "turns" in r.config else "cap"
    words = {
        "cap": cap,
        "invalid": "invalid actions",
        "agree": "agreement",
        "cut": "cut off",
        "fallback": "fell back",
    }
    counts = r.stopped_by()
    tally = [f"{words.get(by, by)} {count}" for by, count in counts.items()]
    rest = r.n - sum(counts.values())
    if rest:
        tally.append(f"error {rest}")
    return f"{', '.join(tally)} (of {r.n} runs)"


def _print_samples(console: Any, kind: PuzzleKind, r: BenchResult, spec: MethodSpec) -> None:
    """IO / CoT / CoT-SC with k > 1 samples a hand: success averaged over the samples and
    best of k (a hand counts if any sample is right), ToT's two figures for its baselines."""
    from solver.methods.baselines import BEST_OF_PAPER, FIRST_SAMPLE_ANSWERS

    k = r.sampled()
    mean, best = r.sample_mean(), r.best_of_k()
    if k < 2 or mean is None or best is None:
        return
    paper = []
    first_sample = spec.name in FIRST_SAMPLE_ANSWERS
    if first_sample and kind.name in spec.paper:
        paper.append(f"mean over 100 {spec.paper[kind.name]}")
    if (spec.name, kind.name) in BEST_OF_PAPER:
        paper.append(f"best of 100 {BEST_OF_PAPER[spec.name, kind.name]}")
    beside = f" (paper: {', '.join(paper)})" if paper else ""
    first = "; success above is the first sample's" if first_sample else ""
    console.print(
        f"{r.method} over {k} samples a hand: mean {mean:.1%}, best of {k} {best:.1%}"
        f"{beside}{first}"
    )


def bench_exit_code(results: Sequence[BenchResult]) -> ExitCode:
    """0 when every method completed some runs; otherwise the code of what stopped them:
    a method whose every run failed has no figure to report, and scripts must not read its
    0 % as a result."""
    kinds = {p.error_kind for r in results if r.n and not r.completed for p in r.puzzles}
    if not kinds:
        return ExitCode.OK
    return ExitCode.USAGE if kinds <= CONFIG_ERRORS else ExitCode.SERVER_FAILED
