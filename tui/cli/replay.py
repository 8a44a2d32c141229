"""``ponder replay TRACE``: a saved run played in the app's panes, or printed with
``--print`` / ``--json``. The answer and every arithmetic check are made again exactly: a
trace's own verdict is not trusted."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.cli.usage import UsageError, json_line, visible
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

    from solver.domains.base import Domain
    from solver.events import Event, WordChecked
    from tui.cli.kinds import _SubParsers

__all__ = ["add_parser", "rechecked", "run"]


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder replay TRACE [--print | --json] [-v] [--export FILE] [--screenshot FILE]``."""
    p = sub.add_parser(
        "replay",
        help="play a saved trace in the app's panes",
        description="Replay a trace written with --trace: in the app (space pauses, [ and ] "
        "change the speed, R plays it again), or printed with --print / --json. The answer "
        "is checked again exactly: a trace's own verdict is not trusted.",
        **common,
    )
    p.add_argument("trace", help="the trace file")
    p.add_argument("--print", action="store_true", help="print the run instead of showing it")
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument("-v", "--verbose", action="store_true", help="print every thought")
    p.add_argument(
        "--export",
        metavar="FILE",
        help="write the thought tree to FILE: .json (nodes with id, parent, text, scores, "
        "marks) or .dot (Graphviz), chosen by the extension",
    )
    p.add_argument(
        "--screenshot",
        metavar="FILE.svg",
        help="play the run in the app without a screen and save its panes at the end as SVG",
    )
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    """``ponder replay``: 0 when the run, checked again, solved its puzzle; else 1."""
    from rich.console import Console

    from solver.events import RunFinished, event_to_json
    from solver.trace import TraceError, read_trace
    from tui.cli.printer import EventPrinter

    if args.export or args.screenshot:
        return _write_files(args)
    if not args.print and not args.json:
        return _in_app(args.trace)
    solved = False
    try:
        header, events = read_trace(args.trace)
        domain = _domain(header, args.trace)
        # A question typed without its answer: the run's answer is shown, not judged.
        unchecked = bool(getattr(domain, "unchecked", False))
        printer = EventPrinter(Console(highlight=False), args.verbose, unchecked=unchecked)
        for event in rechecked(events, domain):
            if args.json:
                print(json_line(event_to_json(event)))
            else:
                printer(event)
            if isinstance(event, RunFinished):
                solved = bool(event.answer) if unchecked else event.solved
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    return ExitCode.OK if solved else ExitCode.NOT_SOLVED


def _in_app(path: str) -> int:
    from solver.trace import TraceError, read_trace
    from tui.app import Replay, run_app

    try:
        header, events = read_trace(path)
        replay = Replay(header, list(rechecked(events, _domain(header, path))))
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    return run_app(replay)


def _write_files(args: argparse.Namespace) -> int:
    """``--export`` and ``--screenshot``: 0 when the run, checked again, solved its puzzle
    (as for ``--print``); else 1."""
    from solver.events import RunFinished
    from solver.trace import TraceError, read_trace
    from tui.exitcodes import ExitCode

    export = screenshot = None
    if args.export:
        from tui.cli.export import EXPORT_FORMATS

        export = Path(args.export)
        if export.suffix.lower() not in EXPORT_FORMATS:
            raise UsageError(
                f"--export {args.export}: the file's extension chooses the format: "
                f"{' or '.join(EXPORT_FORMATS)}"
            )
    if args.screenshot:
        screenshot = Path(args.screenshot)
        if screenshot.suffix.lower() != ".svg":
            raise UsageError(f"--screenshot {args.screenshot}: screenshots are SVG (.svg)")
    if args.print or args.json:
        raise UsageError("--export and --screenshot write files: leave out --print and --json")
    from tui.cli.export import check_output

    for target in (export, screenshot):
        if target is not None:
            check_output(target)  # before the trace is read and replayed
    try:
        header, read = read_trace(args.trace)
        events = list(rechecked(read, _domain(header, args.trace)))
    except TraceError as exc:
        raise UsageError(str(exc)) from exc
    if export is not None:
        from tui.cli.export import write_tree

        write_tree(header, events, export)
        _wrote("the thought tree", export)
    if screenshot is not None:
        from tui.cli.export import save_screenshot

        save_screenshot(header, events, screenshot)
        _wrote("the screenshot", screenshot)
    finished = [e for e in events if isinstance(e, RunFinished)]
    return ExitCode.OK if finished and finished[-1].solved else ExitCode.NOT_SOLVED


def _wrote(what: str, path: Path) -> None:
    """Say on stderr where a file went (stdout stays free for the file's own use)."""
    print(f"wrote {what} to {visible(str(path.resolve()))}", file=sys.stderr)


def _domain(header: dict[str, Any], path: str) -> Domain[Any, Any]:
    """The domain the trace was run on: its kind (the Game of 24 when it names none) reads
    its puzzle from the header."""
    from solver.kinds import KindError, find_kind

    name = header.get("kind", "game24")
    if not isinstance(name, str):
        raise UsageError(f"{path}: the trace's kind is not a puzzle kind")
    try:
        kind = find_kind(name)
        return kind.make_domain(kind.puzzle_from_header(header))
    except KindError as exc:
        raise UsageError(f"{path}: {exc}") from exc


def rechecked(events: Iterable[Event], domain: Domain[Any, Any]) -> Iterator[Event]:
    """A trace's events with its finish, its arithmetic claims and its crossword word checks
    checked again, exactly, by ``domain``.

    A trace is outside text: its ``solved`` is a claim that anyone can edit, so a replay shows
    the verdict of the domain's own check (for the Game of 24, ``puzzles.game24``; never
    ``eval``), and says so first with an error event when the trace claimed otherwise.
    """
    import dataclasses

    from solver.events import (
        ClaimVerified,
        ErrorRaised,
        RunFinished,
        SolutionFound,
        WordChecked,
    )

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
        if isinstance(event, WordChecked):
            word, mismatch = _word_again(event, domain)
            if mismatch:
                yield ErrorRaised("trace", mismatch, t=event.t)
            yield word
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
        claim = verify_claim(f"{event.expression} = {event.claimed}", approximate=event.approximate)
    except ArithError as exc:
        return dataclasses.replace(event, status="invalid", ok=False, exact=None, reason=str(exc))
    exact = format_number(claim.exact) if claim.exact is not None else None
    return dataclasses.replace(
        event, status=str(claim.status), ok=claim.ok, exact=exact, reason=claim.reason
    )


def _word_again(event: WordChecked, domain: Domain[Any, Any]) -> tuple[WordChecked, str]:
    """A trace's crossword word check made again by the crossword's own check (the word
    written on its slot as the trace says it stood), and what the trace got wrong, if
    anything (``""``)."""
    import dataclasses

    from puzzles.crossword.model import CrosswordError
    from solver.domains.crossword import CrosswordDomain, Fill

    if not isinstance(domain, CrosswordDomain):
        return event, "the trace checks a crossword word, but its puzzle is not a crossword"
    shown = f"{event.clue}. {event.word} on {event.pattern or '(no slot)'}"
    claimed = "fitting" if event.ok else "not fitting"
    state = domain.start()
    slot = domain.names.get(event.clue)
    if slot is not None:
        # The slot's letters before the word are all the check reads of the board.
        pattern = event.pattern
        if len(pattern) != slot.length or not all(c == "_" or c.isalpha() for c in pattern):
            again = dataclasses.replace(event, ok=False, reason="the slot's letters are wrong")
            return again, (
                f"the trace marks {shown} as {claimed}; {event.clue} has {slot.length} squares, "
                f"so {pattern!r} cannot be its letters"
            )
        try:
            state = Fill(state.board.write_word(slot, pattern.upper()))
        except CrosswordError as exc:
            return dataclasses.replace(event, ok=False, reason=str(exc)), (
                f"the trace marks {shown} as {claimed}; its slot cannot be written: {exc}"
            )
    check = domain.write(state, event.clue, event.word).claim
    if check.ok == event.ok:
        return event, ""
    if event.ok is False and "_" not in event.pattern:
        # A full slot: the word may have been refused as already filled, which the check
        # cannot see without the words written before it.
        return event, ""
    again = dataclasses.replace(
        event, ok=check.ok, reason=check.reason, crossing=check.crossing, pattern=check.pattern
    )
    found = "it fits" if check.ok else f"it does not: {check.reason}"
    return again, f"the trace marks {shown} as {claimed}; checked again exactly, {found}"
