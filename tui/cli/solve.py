"""``ponder solve KIND PUZZLE``: one method on one puzzle, headless, its events printed as
they happen (readable, or JSON lines with ``--json``); ``--trace FILE`` keeps them.

Also what every run on the command line shares: Ctrl-C stopping every task at once, and the
exit code of a run.
"""

from __future__ import annotations

import asyncio
import signal
import types
from collections.abc import Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from tui.cli import library, options
from tui.cli.kinds import SolverCommands, add_kind_parsers, kind_commands
from tui.cli.usage import UsageError, json_line, visible
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

    from solver.events import RunFinished
    from solver.methods import MethodSpec
    from tui.cli.kinds import _SubParsers
    from tui.cli.usage import Parser
    from tui.kinds import PuzzleKind

__all__ = [
    "CONFIG_ERRORS",
    "add_parser",
    "check_roles",
    "refuse_unsolvable",
    "run",
    "run_exit_code",
    "run_stoppable",
]

CONFIG_ERRORS = frozenset(
    {"unreachable", "unknown_model", "auth", "bad_request", "bad_url", "unsupported"}
    | {"not_recorded", "bad_recording"}
)
"""Errors that mean the run cannot go as configured — the server (unreachable, key refused,
...), the method's options on this kind (``unsupported``: a role an option needs, found only
when the run starts) or the recording (a call it does not hold, a file that cannot be read or
written) — usage errors (exit 2). Any other error that ends a run means the server failed
(exit 3)."""
DEFAULT_METHOD = "bot"


def refuse_unsolvable(kind: PuzzleKind) -> str:
    """Why ``solve`` and ``bench`` do not take ``kind``, naming the kinds they do take."""
    played = [f"{k.label} ({k.cli!r})" for k, c in kind_commands() if c.solver and k.solvable]
    return f"the solvers do not play {kind.label} puzzles yet; they play {', '.join(played)}"


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder solve KIND ...``: one sub-parser per kind the solvers play."""
    p = sub.add_parser(
        "solve",
        help="solve one puzzle headless and print the run",
        description="Run a reasoning method on one puzzle and stream its events. The options "
        "follow the kind: ponder solve 24 --help lists them.",
        **common,
    )
    kinds = add_kind_parsers(p, refuse_unsolvable)
    for kind, commands in kind_commands():
        if commands.solver is not None and kind.solvable:
            kinds.add_lazy(
                kind.cli,
                partial(_add_kind_arguments, kind, commands.solver),
                help=kind.label,
                description=f"Run a reasoning method on one {kind.label} puzzle and stream "
                "its events.",
                **common,
            )


def _add_kind_arguments(kind: PuzzleKind, solver: SolverCommands, kp: Parser) -> None:
    """The flags of ``ponder solve KIND``: the kind's own, then the method's and the model's."""
    solver.add_solve_arguments(kp)
    options.add_method_flag(kp, default=DEFAULT_METHOD, several=False, kind=kind)
    kp.add_argument("--json", action="store_true", help="one JSON event per line")
    kp.add_argument(
        "--trace",
        metavar="FILE",
        help="also write the run as a trace file; a trace that cannot be written (a full "
        "disk) stops the run with a message and exit code 2",
    )
    kp.add_argument(
        "-v", "--verbose", action="store_true", help="print every thought and arithmetic check"
    )
    options.add_method_options(kp, kind.methods())
    options.add_model_options(kp)
    library.add_library_options(kp, command="solve")
    kp.set_defaults(run=partial(run, kind, solver), parser=kp)


def check_roles(spec: MethodSpec, domain: Any) -> None:
    """A usage error when the method needs a role (a prompt, a parser) the domain lacks."""
    from solver.domains.base import RolesMissing, require_roles

    try:
        require_roles(spec.name, spec.roles, domain)
    except RolesMissing as exc:
        raise UsageError(not_for_kind(spec.label, exc.kind)) from exc


def not_for_kind(label: str, kind_name: str) -> str:
    """``DELI does not play the Game of 24; its methods are …``: in plain words, with no
    names of prompts or roles."""
    from tui.kinds import UnknownKind, find_kind

    try:
        kind = find_kind(kind_name)
    except UnknownKind:
        return f"{label} does not play {kind_name} puzzles"
    names = ", ".join(s.name for s in kind.methods())
    return f"{label} does not play {kind.label}; the methods that do: {names}"


def run(kind: PuzzleKind, solver: SolverCommands, args: argparse.Namespace) -> int:
    """``ponder solve KIND``: the exit code."""
    from rich.console import Console

    from solver.events import ErrorRaised, RunFinished, event_to_json
    from solver.factory import make_model
    from solver.methods import run_method
    from solver.model.adaptive import concurrency_of
    from solver.trace import TraceError, TraceWriter
    from tui.cli.printer import EventPrinter

    puzzle = solver.solve_puzzle(args)
    ((spec, method),) = options.chosen_methods(args, [args.method])
    check_roles(spec, puzzle.domain)
    settings = options.settings(args)
    hand = getattr(puzzle.domain, "hand", None)
    options.check_published(settings, [(spec, method)], kind.name, [hand])
    (method,) = learning = library.with_library(args, [(spec, method)])
    deadline = options.deadline(args, settings)
    guide_settings = options.guide_settings(args, settings)
    seed = settings.seed if settings.seed is not None else 0
    printer = EventPrinter(Console(highlight=False), args.verbose, unchecked=puzzle.unchecked)
    for note in puzzle.notes:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"note: {visible(note)}", style="yellow", markup=False
        )

    async def play() -> tuple[RunFinished | None, str]:
        model = make_model(settings, seed=seed)
        printer.concurrency = partial(concurrency_of, model)
        guide = make_model(guide_settings, seed=seed) if guide_settings else None
        finish: RunFinished | None = None
        error_kind = ""
        writer = None
        try:
            if args.trace:
                header = {
                    "method": method.name,
                    **puzzle.header,
                    "kind": kind.name,
                    "model": model.name,
                }
                writer = TraceWriter(args.trace, header)
                writer.__enter__()  # TraceError (a usage error) if it cannot be written
            async for event in run_method(
                method, puzzle.domain, model, seed=seed, deadline=deadline, guide_model=guide
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
            if guide is not None:
                await guide.aclose()
        return finish, error_kind

    try:
        finish, error_kind = run_stoppable(play())
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        library.close_library(learning)
    if puzzle.unchecked:  # nothing to judge by: a run that gave an answer did what was asked
        return run_exit_code(finish is not None and bool(finish.answer), error_kind)
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
    the ``KeyboardInterrupt`` that :func:`tui.cli.main.main` reports.
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

    from solver.model.base import few_collections

    with few_collections():  # a run of many calls: few, short garbage collections
        return asyncio.run(stoppable())
