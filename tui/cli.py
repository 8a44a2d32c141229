"""The ``ponder`` command line.

``ponder`` opens the app; ``ponder solve``, ``ponder bench``, ``ponder puzzles`` and
``ponder replay`` work headless. Exit codes come from the one catalogue,
:class:`tui.exitcodes.ExitCode` (0 solved / ok, 1 not solved, 2 bad input or usage, 3 the model
server failed, 130 Ctrl-C), and ``ponder --help`` lists them. Heavy modules are imported inside
the commands so ``ponder --help`` starts fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import signal
import sys
import types
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from puzzles.text import json_line, visible
from tui.exitcodes import ExitCode, exit_codes_help

if TYPE_CHECKING:
    from rich.console import Console

    from solver.events import Event
    from solver.settings import Settings

__all__ = ["main"]

# Short names for the catalogue's codes (the values live in tui.exitcodes only).
EXIT_OK, EXIT_UNSOLVED, EXIT_USAGE = ExitCode.OK, ExitCode.NOT_SOLVED, ExitCode.USAGE
EXIT_SERVER_FAILED = ExitCode.SERVER_FAILED
CONFIG_ERRORS = frozenset({"unreachable", "unknown_model", "auth", "bad_request", "bad_url"})
"""Model errors that mean the server cannot be used as configured: usage errors (exit 2). Any
other error that ends a run means the server failed (exit 3)."""
PAPER_SUCCESS = {"io": "7.3%", "cot": "4.0%", "cot-sc": "9.0%", "tot": "74%", "bot": "~84%"}
"""Game of 24 success rates the papers report (GPT-4), shown beside a benchmark's own."""
METHOD_NAMES = ("io", "cot", "cot-sc", "tot", "bot")


class UsageError(Exception):
    """Bad input from the person at the keyboard: printed plainly, exit code 2."""


def _kind(text: str, allow: tuple[str, ...] = ("game24",)) -> str:
    """The puzzle kind a person named; the solvers play only the Game of 24 so far."""
    key = text.lower().replace("-", "").replace("_", "")
    kind = {
        "24": "game24",
        "game24": "game24",
        "gameof24": "game24",
        "crossword": "crossword",
        "crosswords": "crossword",
        "mini": "crossword",
        "wordproblem": "wordproblem",
        "wordproblems": "wordproblem",
        "math": "wordproblem",
        "gsm8k": "wordproblem",
    }.get(key)
    if kind is None:
        raise UsageError(
            f"unknown puzzle kind {text!r}; use {', '.join(_KIND_NAMES[k] for k in allow)}"
        )
    if kind not in allow:
        raise UsageError(
            f"the solvers do not play {_KIND_NAMES[kind]} puzzles yet; only the Game of 24 ('24')"
        )
    return kind


_KIND_NAMES = {"game24": "'24'", "crossword": "'crossword'", "wordproblem": "'wordproblem'"}
PUZZLE_KINDS = ("game24", "crossword", "wordproblem")


def _add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model")
    g.add_argument(
        "--engine",
        choices=("offline", "openai"),
        help="offline (embedded engine, default) or openai (any compatible server)",
    )
    g.add_argument("--model", help="model name on the server (implies --engine openai)")
    g.add_argument(
        "--base-url", help="server URL, e.g. http://localhost:11434/v1 (implies --engine openai)"
    )
    g.add_argument("--concurrency", type=int, help="most requests in flight at once")
    g.add_argument(
        "--timeout",
        type=float,
        help="seconds to wait for the server to connect or send more of a reply (60); a call "
        "gives up after (retries + 1) times this, retries and waits included",
    )
    g.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="stop a run still going after this many seconds (bench: each hand's run); "
        "default: no limit",
    )
    g.add_argument("--no-cache", action="store_true", help="do not reuse cached replies")
    g.add_argument("--seed", type=int, default=None, help="seed for the run (default 0)")


def _add_method_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("method options (defaults are the papers')")
    g.add_argument("--breadth", type=int, help="ToT: states kept per step (5)")
    g.add_argument("--value-samples", type=int, help="ToT: value samples per state (3)")
    g.add_argument("--trees", type=int, help="BoT: trees per iteration (15)")
    g.add_argument("--iterations", type=int, help="BoT: iterations (10)")
    g.add_argument(
        "--aggregation",
        choices=("best_first", "greedy"),
        help="BoT: chain aggregation (best_first)",
    )
    g.add_argument(
        "--confident-leaf",
        action="store_true",
        help="BoT: also end a branch when both scores exceed 0.8, as the paper's text says",
    )
    g.add_argument("--samples", type=int, help="CoT-SC: samples (100)")
    g.add_argument("--temperature", type=float, help="IO / CoT / CoT-SC / ToT temperature (0.7)")
    g.add_argument(
        "--stop-early",
        action="store_true",
        help="ToT / BoT: stop once an answer is verified exactly",
    )


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps one-line descriptions to the terminal as usual, but keeps text written over
    several lines (the exit codes) as it is written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def build_parser() -> argparse.ArgumentParser:
    codes = exit_codes_help()
    parser = argparse.ArgumentParser(
        prog="ponder",
        description="A terminal puzzle arcade and reasoning tutor. Without a command, opens "
        "the app.",
        epilog=codes,
        formatter_class=_HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "solve",
        help="solve one puzzle headless and print the run",
        description="Run a reasoning method on one puzzle and stream its events.",
        epilog=codes,
        formatter_class=_HelpFormatter,
    )
    p.add_argument("kind", help="puzzle kind: 24")
    p.add_argument("puzzle", help='the hand, e.g. "4 7 8 8"')
    p.add_argument("--method", default="bot", help=f"one of {', '.join(METHOD_NAMES)} (bot)")
    p.add_argument("--target", type=int, default=24, help="the number to make (24)")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="also write the run as a trace file; a trace that cannot be written (a full "
        "disk) stops the run with a message and exit code 2",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="print every thought and arithmetic check"
    )
    _add_method_options(p)
    _add_model_options(p)

    p = sub.add_parser(
        "bench",
        help="run methods over a puzzle set and print a table",
        description="Benchmark methods on a set of hands (ToT's success rule).",
        epilog=codes,
        formatter_class=_HelpFormatter,
    )
    p.add_argument("kind", help="puzzle kind: 24")
    p.add_argument(
        "--method", default="tot", help="comma-separated methods, e.g. io,cot,tot,bot (tot)"
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--file", help="ToT's 24.csv or a file with one hand per line")
    src.add_argument(
        "--hardest", type=int, metavar="N", help="the N hardest solvable hands of our catalogue"
    )
    src.add_argument("--hands", help='hands separated by ";", e.g. "4 7 8 8; 1 1 4 6"')
    p.add_argument("--range", dest="rows", help="rows of --file, e.g. 900:1000 (ToT's hard set)")
    p.add_argument("--jobs", type=int, default=1, help="hands run at once (1)")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    _add_method_options(p)
    _add_model_options(p)

    p = sub.add_parser(
        "puzzles",
        help="list, solve, check or generate puzzles",
        description="24: the catalogue of all 1,820 hands of 1-13. crossword: load, check or "
        "generate mini crosswords. wordproblem: check GSM8K-style files, generate problems.",
    )
    p.add_argument("kind", help="puzzle kind: 24, crossword or wordproblem")
    p.add_argument("--solve", metavar="HAND", help="24: print every distinct solution of a hand")
    p.add_argument(
        "--level",
        help="24: easy, medium, hard, expert, unsolvable; word problems: easy, medium, hard",
    )
    p.add_argument("--pick", action="store_true", help="pick one puzzle at random (see --seed)")
    p.add_argument("--seed", type=int, default=None, help="seed for --pick and --generate")
    p.add_argument("--json", action="store_true", help="JSON for machines")
    from tui.commands import crossword, wordproblem

    crossword.add_arguments(p)
    wordproblem.add_arguments(p)

    from tui.commands import verify

    verify.add_parser(sub, epilog=codes, formatter_class=_HelpFormatter)

    p = sub.add_parser(
        "replay",
        help="play a saved trace in the app's panes",
        description="Replay a trace written with --trace: in the app (space pauses, [ and ] "
        "change the speed, R plays it again), or printed with --print / --json. The answer "
        "is checked again exactly: a trace's own verdict is not trusted.",
        epilog=codes,
        formatter_class=_HelpFormatter,
    )
    p.add_argument("trace", help="the trace file")
    p.add_argument("--print", action="store_true", help="print the run instead of showing it")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument("-v", "--verbose", action="store_true", help="print every thought")
    return parser


# ------------------------------------------------------------------ settings and methods


def _settings(args: argparse.Namespace) -> Settings:
    from solver.settings import SettingsError, load_settings, mask_url

    try:
        settings = load_settings()
    except SettingsError as exc:
        raise UsageError(str(exc)) from exc
    changes: dict[str, Any] = {}
    if args.model or args.base_url:
        changes["engine"] = "openai"
    if args.engine:
        changes["engine"] = args.engine
    if args.model:
        changes["model"] = args.model
    if args.base_url:
        changes["base_url"] = args.base_url
    if args.concurrency is not None:
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
        changes["concurrency"] = args.concurrency
    if args.timeout is not None:
        if args.timeout <= 0:
            raise UsageError("--timeout must be positive")
        changes["timeout"] = args.timeout
    if args.no_cache:
        changes["cache"] = False
    if args.seed is not None:
        changes["seed"] = args.seed
    try:
        settings = settings.replace(**changes)
    except (SettingsError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    if settings.engine == "openai" and settings.base_url:
        from solver.model.openai import base_url_problem

        problem = base_url_problem(settings.base_url)
        if problem is not None:
            shown = mask_url(settings.base_url)
            raise UsageError(f"the base URL {shown!r} is not usable: {problem}")
    return settings


def _deadline(args: argparse.Namespace, settings: Settings) -> float | None:
    """The run deadline asked for with ``--deadline`` (else the settings' ``deadline``),
    checked."""
    if args.deadline is None:
        return settings.deadline
    if not 0 < args.deadline < math.inf:
        raise UsageError("--deadline must be a positive number of seconds")
    return float(args.deadline)


def _method_options(args: argparse.Namespace, name: str) -> dict[str, Any]:
    wanted: dict[str, Any] = {}
    if name == "tot":
        wanted = {
            "breadth": args.breadth,
            "value_samples": args.value_samples,
            "temperature": args.temperature,
        }
    elif name == "bot":
        wanted = {
            "trees": args.trees,
            "iterations": args.iterations,
            "aggregation": args.aggregation,
            "confident_leaf": True if args.confident_leaf else None,
        }
    elif name == "cot-sc":
        wanted = {"samples": args.samples, "temperature": args.temperature}
    elif name in ("io", "cot"):
        wanted = {"temperature": args.temperature}
    if args.stop_early and name in ("tot", "bot"):
        wanted["stop_early"] = True
    for key in ("breadth", "value_samples", "trees", "iterations", "samples"):
        value = wanted.get(key)
        if value is not None and not 1 <= value <= 10_000:
            raise UsageError(f"--{key.replace('_', '-')} must be between 1 and 10000")
    temperature = wanted.get("temperature")
    if temperature is not None and not 0 <= temperature <= 2:
        raise UsageError("--temperature must be between 0 and 2")
    return wanted


def _methods(args: argparse.Namespace, names: Sequence[str]) -> list[Any]:
    from solver.methods import make_method

    out = []
    for raw in names:
        name = raw.strip().lower()
        if name not in METHOD_NAMES:
            raise UsageError(f"unknown method {raw!r}; choose from {', '.join(METHOD_NAMES)}")
        try:
            out.append(make_method(name, **_method_options(args, name)))
        except (ValueError, TypeError) as exc:
            raise UsageError(str(exc)) from exc
    used = {m.name for m in out}
    for option, owners in _OPTION_OWNERS.items():
        if getattr(args, option, None) not in (None, False) and not used & owners:
            flag = "--" + option.replace("_", "-")
            print(
                f"ponder: note: {flag} does not apply to {', '.join(sorted(used))}", file=sys.stderr
            )
    return out


_OPTION_OWNERS = {
    "breadth": {"tot"},
    "value_samples": {"tot"},
    "trees": {"bot"},
    "iterations": {"bot"},
    "aggregation": {"bot"},
    "confident_leaf": {"bot"},
    "samples": {"cot-sc"},
    "stop_early": {"tot", "bot"},
}


def _hand(text: str, target: int = 24) -> Any:
    from puzzles.game24 import Hand, HandError

    try:
        return Hand.parse(text, target)
    except HandError as exc:
        raise UsageError(f"bad hand {text!r}: {exc}") from exc


# ------------------------------------------------------------------ printing events


class EventPrinter:
    """Readable lines for a stream of events (``-v`` prints every thought and check)."""

    def __init__(self, console: Console, verbose: bool = False) -> None:
        self.console = console
        self.verbose = verbose

    def __call__(self, event: Event) -> None:
        from rich.markup import escape

        from solver import events as ev
        from solver.text import visible_event

        c = self.console
        # Every string in an event may come from a model, a server or a trace: control
        # characters are made visible here, and each is escaped below so it is never markup.
        event = visible_event(event)
        match event:
            case ev.RunStarted(method=method, puzzle=puzzle, model=model):
                c.print(
                    f"[bold]ponder[/] · [cyan]{escape(method)}[/] on [bold]{escape(puzzle)}[/] · "
                    f"model [magenta]{escape(model)}[/]"
                )
            case ev.IterationStarted(iteration=i, total=n, label=label):
                c.rule(f"{escape(label)} ({i}/{n})", style="dim")
            case ev.ThoughtAdded(node_id=node, text=text, depth=depth) if self.verbose:
                c.print(f"{'  ' * depth}[dim]{escape(node)}[/] {escape(text)}")
            case ev.ThoughtScored(node_id=node, score=score, edge_score=edge, samples=samples) if (
                self.verbose
            ):
                extra = f" edge {edge:g}" if edge is not None else ""
                labels = f" ({', '.join(samples)})" if samples else ""
                c.print(f"    [dim]{escape(node)} scored {score:g}{extra}{escape(labels)}[/]")
            case ev.ThoughtPruned(node_id=node, reason=reason) if self.verbose:
                c.print(f"    [dim]{escape(node)} pruned: {escape(reason)}[/]")
            case ev.ClaimVerified(expression=lhs, claimed=rhs, status=status):
                if self.verbose or status in ("wrong", "invalid"):
                    colour = {"exact": "green", "approx": "yellow"}.get(status, "red")
                    note = f" ({escape(event.note)})" if event.note else ""
                    c.print(f"    [{colour}]{event.mark}[/] {escape(lhs)} = {escape(rhs)}{note}")
            case ev.SolutionFound(node_id=node, answer=answer):
                c.print(f"  [green]★ solution[/] {escape(answer)} [dim]({escape(node)})[/]")
            case ev.ChainAggregated(strategy=strategy, steps=steps, score=score):
                c.print(
                    f"  [bold]aggregated chain[/] ({escape(strategy)}, score {score:g}): "
                    f"{escape(' → '.join(steps))}"
                )
            case ev.ExperienceAdded(
                report=report, advice=advice, confidence=conf, verdict=verdict, chain_ok=ok
            ):
                mark = "[green]✓[/]" if ok else "[red]✗[/]"
                c.print(f"  [bold]analysis[/] {escape(report)}")
                for i, tip in enumerate(advice, 1):
                    if tip:
                        c.print(f"    step {i}: {escape(tip)}")
                conf_text = f"{conf:g}" if conf is not None else "?"
                c.print(f"    confidence {conf_text} · exact check {mark} {escape(verdict)}")
            case ev.ParseFailed(purpose=purpose, reason=reason) if self.verbose:
                c.print(f"    [yellow]unparsed {escape(purpose)} reply:[/] {escape(reason)}")
            case ev.ErrorRaised(kind=kind, message=message):
                c.print(f"[red]error ({escape(kind)}):[/] {escape(message)}")
            case ev.ModelCalled() as called if called.cut or called.notes:
                for warning in called.warnings():
                    c.print(f"  [yellow]⚠ {escape(warning)}[/]")
            case ev.RunFinished() as fin:
                mark = "[green]✓ solved[/]" if fin.solved else "[red]✗ not solved[/]"
                cost = f"${fin.cost:.4f}" if fin.cost is not None else "unknown"
                c.rule(style="dim")
                c.print(f"{mark}  answer: [bold]{escape(fin.answer or '(none)')}[/]")
                c.print(f"[dim]{escape(fin.verdict)}[/]")
                c.print(
                    f"calls {fin.calls} · tokens {fin.tokens:,} · cost {cost} · "
                    f"{fin.wall_time:.2f}s · {escape(fin.reason)}"
                )
            case _:
                pass


# ------------------------------------------------------------------ commands


def cmd_solve(args: argparse.Namespace) -> int:
    from rich.console import Console

    from solver.domains.game24 import Game24Domain
    from solver.events import ErrorRaised, RunFinished, event_to_json
    from solver.methods import run_method
    from solver.model.factory import make_model
    from solver.trace import TraceError, TraceWriter

    _kind(args.kind)
    hand = _hand(args.puzzle, args.target)
    method = _methods(args, [args.method])[0]
    settings = _settings(args)
    deadline = _deadline(args, settings)
    seed = settings.seed if settings.seed is not None else 0
    console = Console(highlight=False)
    printer = EventPrinter(console, args.verbose)

    async def run() -> tuple[RunFinished | None, str]:
        model = make_model(settings, seed=seed)
        finish: RunFinished | None = None
        error_kind = ""
        writer = None
        try:
            if args.trace:
                writer = TraceWriter(
                    args.trace,
                    {
                        "method": method.name,
                        "puzzle": str(hand),
                        "target": hand.target,
                        "kind": "game24",
                        "model": model.name,
                    },
                )
                writer.__enter__()  # TraceError (a usage error) if it cannot be written
            async for event in run_method(
                method, Game24Domain(hand), model, seed=seed, deadline=deadline
            ):
                if writer is not None:
                    writer.write(event)
                if args.json:
                    print(json_line(event_to_json(event)), flush=True)
                else:
                    printer(event)
                if isinstance(event, RunFinished):
                    finish = event
                elif isinstance(event, ErrorRaised) and event.fatal:
                    error_kind = event.kind
        finally:
            if writer is not None:
                writer.__exit__(None, None, None)
            await model.aclose()
        return finish, error_kind

    try:
        finish, error_kind = run_stoppable(run())
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    return run_exit_code(finish is not None and finish.solved, error_kind)


def run_exit_code(solved: bool, error_kind: str) -> ExitCode:
    """The exit code of one run: solved, honestly not solved, or ended by a model error
    (``error_kind``, empty when none): usage for a server that cannot be used as configured,
    else a server that failed, never "not solved"."""
    if solved:
        return ExitCode.OK
    if not error_kind:
        return ExitCode.NOT_SOLVED
    return ExitCode.USAGE if error_kind in CONFIG_ERRORS else ExitCode.SERVER_FAILED


_T = TypeVar("_T")


def run_stoppable(main: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(main)``, except that Ctrl-C stops every task at once.

    ``asyncio.run`` cancels only the main task on Ctrl-C, and only when the loop reaches it:
    behind a batch of 10,000 BoT trees, each a few milliseconds of offline-engine work, that
    took 10 s. Cancelling every task from the signal handler ends each queued step as soon as
    it runs. The main task is left to asyncio's own handler, which turns its cancellation into
    the ``KeyboardInterrupt`` that :func:`main` reports.
    """

    async def stoppable() -> _T:
        loop = asyncio.get_running_loop()
        this = asyncio.current_task()
        previous = signal.getsignal(signal.SIGINT)

        if not callable(previous):  # Ctrl-C ignored (or left to the OS) stays that way
            return await main

        def stop(signum: int, frame: types.FrameType | None) -> None:
            for task in asyncio.all_tasks(loop):
                if task is not this:
                    task.cancel()
            previous(signum, frame)

        try:
            signal.signal(signal.SIGINT, stop)
        except ValueError:  # not the main thread: no signal arrives here anyway
            return await main
        try:
            return await main
        finally:
            signal.signal(signal.SIGINT, previous)

    return asyncio.run(stoppable())


def _bench_hands(args: argparse.Namespace) -> list[Any]:
    if args.file:
        from puzzles.game24.loaders import PuzzleFileError, load_hands

        try:
            hands = load_hands(args.file, args.rows)
        except (PuzzleFileError, ValueError) as exc:
            raise UsageError(str(exc)) from exc
    elif args.hands:
        hands = [_hand(h) for h in args.hands.split(";") if h.strip()]
    else:
        if args.rows:
            raise UsageError("--range selects rows of --file")
        from puzzles.game24.catalogue import hardest

        # 0 is a number asked for, not "unset": it is refused, never read as the default.
        n = 100 if args.hardest is None else args.hardest
        if not 1 <= n <= 1820:
            raise UsageError(f"--hardest takes 1 to 1820 hands, not {n}")
        hands = hardest(n)
    if not hands:
        raise UsageError("no hands to run")
    return hands


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table
    from rich.text import Text

    from solver.bench import run_bench
    from solver.model.factory import describe_engine, make_model

    _kind(args.kind)
    methods = _methods(args, [m for m in args.method.split(",") if m.strip()])
    hands = _bench_hands(args)
    settings = _settings(args)
    deadline = _deadline(args, settings)
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
                methods,
                hands,
                lambda: make_model(settings, seed=seed),
                seed=seed,
                jobs=args.jobs,
                progress=tick,
                deadline=deadline,
            )
        )
    if args.json:
        print(
            json.dumps(
                {
                    "engine": describe_engine(settings),
                    "hands": len(hands),
                    "results": [r.to_json() for r in results],
                },
                indent=2,
            )
        )
    else:
        console = Console(highlight=False)
        table = Table(
            # Ten columns fit 80 characters only without borders.
            box=None,
            pad_edge=False,
            padding=(0, 0, 0, 1),
            title=Text(f"Game of 24 · {len(hands)} hands · {visible(describe_engine(settings))}"),
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
        for r in results:
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
                PAPER_SUCCESS.get(r.method, "-"),
            )
        console.print(table)
        console.print(
            "[dim]paper: GPT-4 on ToT's 100 hard games (ranks 901-1000); BoT's figure is "
            "derived from its margin over ToT[/]"
        )
        for r in results:
            curve = r.cumulative_by_iteration()
            if curve:
                steps = " ".join(f"{i}:{v:.0%}" for i, v in enumerate(curve, 1))
                console.print(f"{r.method} cumulative success by iteration: {steps}")
            first_error = next((p.error for p in r.puzzles if p.error), "")
            if first_error:
                # A server's message: shown as text, never as markup or control characters.
                failed = (
                    f"{r.method}: {r.errors} of {r.n} runs failed; first: {visible(first_error)}"
                )
                console.print(Text(failed, style="red"))
    return bench_exit_code(results)


def bench_exit_code(results: Sequence[Any]) -> ExitCode:
    """0 when every method completed some runs; otherwise the code of what stopped them:
    a method whose every run failed has no figure to report, and scripts must not read its
    0 % as a result."""
    kinds = {p.error_kind for r in results if r.n and not r.completed for p in r.puzzles}
    if not kinds:
        return ExitCode.OK
    return ExitCode.USAGE if kinds <= CONFIG_ERRORS else ExitCode.SERVER_FAILED


def cmd_puzzles(args: argparse.Namespace) -> int:
    kind = _kind(args.kind, PUZZLE_KINDS)
    if kind == "wordproblem":
        from tui.commands import wordproblem

        return wordproblem.run(args)
    if kind == "crossword":
        from tui.commands import crossword

        return crossword.run(args)
    for option in ("load", "check", "generate", "count", "topic"):
        if getattr(args, option, None):
            raise UsageError(f"--{option} is for crossword and word problem puzzles")
    from puzzles.game24.catalogue import LEVELS, catalogue, pick
    from puzzles.game24.solve import solutions

    if args.solve:
        hand = _hand(args.solve)
        found = solutions(hand)
        if args.json:
            print(json.dumps({"hand": str(hand), "solutions": found}))
        else:
            if not found:
                print(f"{hand}: no solution")
            for s in found:
                print(f"{s} = {hand.target}")
        return EXIT_OK if found else EXIT_UNSOLVED
    if args.level and args.level not in LEVELS:
        raise UsageError(f"unknown level {args.level!r}; choose from {', '.join(LEVELS)}")
    if args.pick:
        try:
            print(pick(args.level, args.seed if args.seed is not None else 0))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        return EXIT_OK
    entries = [e for e in catalogue() if not args.level or e.level == args.level]
    if args.json:
        for e in entries:
            print(
                json.dumps(
                    {
                        "hand": e.hand.key,
                        "solvable": e.solvable,
                        "solutions": e.solutions,
                        # JSON has no infinity: an unsolvable hand has no rating.
                        "difficulty": round(e.difficulty, 3) if e.solvable else None,
                        "level": e.level,
                    }
                )
            )
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Game of 24 catalogue · {len(entries)} hands")
    for col in ("hand", "solvable", "solutions", "difficulty", "level"):
        table.add_column(col, justify="left" if col in ("hand", "level") else "right")
    for e in entries:
        table.add_row(
            e.hand.key,
            "yes" if e.solvable else "no",
            str(e.solutions),
            f"{e.difficulty:.2f}" if e.solvable else "-",
            e.level,
        )
    Console(highlight=False).print(table)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    from rich.console import Console

    from solver.events import RunFinished, event_to_json
    from solver.trace import TraceError, read_trace

    if not args.print and not args.json:
        return _replay_in_app(args.trace)
    printer = EventPrinter(Console(highlight=False), args.verbose)
    solved = False
    try:
        header, events = read_trace(args.trace)
        for event in rechecked(events, _trace_hand(header, args.trace)):
            if args.json:
                print(json_line(event_to_json(event)))
            else:
                printer(event)
            if isinstance(event, RunFinished):
                solved = event.solved
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    return EXIT_OK if solved else EXIT_UNSOLVED


def _replay_in_app(path: str) -> int:
    from solver.trace import TraceError, read_trace
    from tui.app import Replay, run_app

    try:
        header, events = read_trace(path)
        replay = Replay(header, list(rechecked(events, _trace_hand(header, path))))
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    return run_app(replay)


def _trace_hand(header: dict[str, Any], path: str) -> Any:
    """The hand a trace was run on, from its header; a usage error when it names none."""
    from puzzles.game24 import Hand, HandError

    target = header.get("target", 24)
    try:
        if not isinstance(target, int) or isinstance(target, bool):
            raise HandError("its target is not a whole number")
        return Hand.parse(str(header.get("puzzle", "")), target)
    except HandError as exc:
        raise UsageError(f"{path}: the trace's puzzle is not a Game of 24 hand ({exc})") from exc


def rechecked(events: Iterable[Event], hand: Any) -> Iterator[Event]:
    """A trace's events with its finish checked again, exactly, on ``hand``.

    A trace is outside text: its ``solved`` is a claim that anyone can edit, so a replay shows
    the verdict of the Game of 24 check (``puzzles.game24`` through the domain, never
    ``eval``), and says so first with an error event when the trace claimed otherwise.
    """
    import dataclasses

    from solver.domains.game24 import Game24Domain
    from solver.events import ClaimVerified, ErrorRaised, RunFinished, SolutionFound

    domain = Game24Domain(hand)
    for event in events:
        if isinstance(event, ClaimVerified):
            again = _claim_again(event)
            if (again.status, again.exact) != (event.status, event.exact):
                yield ErrorRaised(
                    "trace",
                    f"the trace marks {event.expression} = {event.claimed} as {event.status}; "
                    f"checked again exactly, it is {again.status}",
                    t=event.t,
                )
            yield again
            continue
        if isinstance(event, SolutionFound) and not (check := domain.check(event.answer)).ok:
            yield ErrorRaised(
                "trace",
                f"the trace marks {event.node_id} as a solution; checked again exactly, "
                f"{event.answer!r} is not: {check.reason}",
                t=event.t,
            )
            continue
        if isinstance(event, RunFinished):
            verdict = domain.check(event.answer)
            if verdict.ok != event.solved:
                claimed = "solved" if event.solved else "not solved"
                found = "is right" if verdict.ok else "is not"
                yield ErrorRaised(
                    "trace",
                    f"the trace says {claimed}; checked again exactly, the answer {found}: "
                    f"{verdict.reason}",
                    t=event.t,
                )
            event = dataclasses.replace(event, solved=verdict.ok, verdict=verdict.reason)
        yield event


def _claim_again(event: Any) -> Any:
    """A trace's arithmetic check, made again through ``puzzles.arith``."""
    import dataclasses

    from puzzles.arith import ArithError, format_number, verify_claim

    try:
        claim = verify_claim(f"{event.expression} = {event.claimed}")
    except ArithError as exc:
        return dataclasses.replace(event, status="invalid", ok=False, exact=None, reason=str(exc))
    exact = format_number(claim.exact) if claim.exact is not None else None
    return dataclasses.replace(
        event, status=str(claim.status), ok=claim.ok, exact=exact, reason=claim.reason
    )


def cmd_app(args: argparse.Namespace) -> int:
    from tui.app import run_app

    return run_app()


def _cmd_verify(args: argparse.Namespace) -> int:
    from tui.commands import verify

    return verify.run(args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = {
        "solve": cmd_solve,
        "bench": cmd_bench,
        "puzzles": cmd_puzzles,
        "replay": cmd_replay,
        "verify": _cmd_verify,
    }
    try:
        if args.command is None:
            return cmd_app(args)
        return commands[args.command](args)
    except UsageError as exc:
        # Messages quote files, servers and traces: their control characters are made visible.
        print(f"ponder: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ponder: stopped", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
