"""The puzzle kinds on the command line: one sub-parser per kind, read from the registry
(:mod:`tui.kinds`).

Each kind's module here (``tui/cli/<kind>.py``, named as the registry names the kind) declares
``COMMANDS``, a :class:`KindCommands`: its own flags and what it does for ``ponder puzzles``,
and, for a kind the solvers play, for ``ponder solve`` and ``ponder bench``. A kind's flags
live on its own parser, so no kind has to refuse another's.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from solver.kinds import KindError
from tui.cli.usage import Parser, UsageError
from tui.kinds import KINDS, PuzzleKind, UnknownKind, find_kind

if TYPE_CHECKING:
    from solver.domains.base import Domain

    _SubParsers = argparse._SubParsersAction[Parser]
else:
    _SubParsers = argparse._SubParsersAction

__all__ = ["KindCommands", "KindParsers", "SolverCommands", "add_kind_parsers", "kind_commands"]


@dataclass(frozen=True)
class SolvePuzzle:
    """One puzzle to run a method on: its domain, and what the trace header records of it."""

    domain: Domain[Any, Any]
    header: dict[str, object]
    notes: tuple[str, ...] = ()
    """What a person should know before the run (a hand with no solution), said on stderr."""
    unchecked: bool = False
    """The puzzle has no answer to judge the run by (a question typed without its answer):
    the run's answer is shown, and a run that gives one exits 0."""


@dataclass(frozen=True)
class SolverCommands:
    """How ``ponder solve``, ``bench`` and ``replay`` read a kind the solvers play."""

    add_solve_arguments: Callable[[argparse.ArgumentParser], None]
    """The puzzle and the kind's own flags for ``ponder solve KIND``."""
    solve_puzzle: Callable[[argparse.Namespace], SolvePuzzle]
    add_bench_arguments: Callable[[argparse.ArgumentParser], None]
    """Where ``ponder bench KIND`` takes its puzzles from."""
    bench_hands: Callable[[argparse.Namespace], Sequence[Any]]
    """The puzzles (Game of 24 hands, crosswords) a benchmark runs."""
    domain: Callable[[Any], Domain[Any, Any]]
    """The domain a benchmark's puzzle is played through."""


@dataclass(frozen=True)
class KindCommands:
    """What the command line does with one puzzle kind."""

    add_puzzles_arguments: Callable[[argparse.ArgumentParser], None]
    puzzles: Callable[[argparse.Namespace], int]
    """``ponder puzzles KIND``: the exit code."""
    puzzles_help: str
    """One line for ``ponder puzzles --help``."""
    solver: SolverCommands | None = None
    """None while the solvers do not play the kind."""


def kind_commands() -> list[tuple[PuzzleKind, KindCommands]]:
    """Every kind of the catalogue, in its order: the commands of its module here
    (``tui/cli/<kind>.py``, its own flags), else those every kind has (:func:`plain_commands`)."""
    found = []
    for kind in KINDS.values():
        name = f"{__package__}.{kind.name}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            found.append((kind, plain_commands(kind)))
            continue
        found.append((kind, module.COMMANDS))
    return found


# ------------------------------------------------------------------ a kind with no flags of its own


def plain_commands(kind: PuzzleKind) -> KindCommands:
    """What the command line does with a kind that brings no commands of its own, from its
    spec alone: ``solve KIND PUZZLE`` (what its ``parse`` reads), ``bench KIND --generated
    N`` and ``puzzles KIND --generate`` (its ``generate``)."""
    spec = kind.spec

    def make(args: argparse.Namespace) -> Any:
        text = args.puzzle
        if text is None or (spec.parse is None and text.strip().isdigit()):
            return generated(int(text or 0))
        if spec.parse is None:
            raise UsageError(f"{kind.label} puzzles cannot be typed; give a seed")
        try:
            return spec.parse(text)
        except ValueError as exc:
            raise UsageError(f"bad {kind.label} puzzle {text!r}: {exc}") from None

    def generated(seed: int) -> Any:
        if spec.generate is None:
            raise UsageError(f"{kind.label} puzzles cannot be generated; type one")
        return spec.generate(seed)

    def domain(puzzle: Any) -> Domain[Any, Any]:
        try:
            return spec.make_domain(puzzle)
        except KindError as exc:
            raise UsageError(str(exc)) from None

    def add_solve_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "puzzle",
            nargs="?",
            metavar="PUZZLE",
            help="the puzzle as text, or a generated one's seed",
        )

    def solve_puzzle(args: argparse.Namespace) -> SolvePuzzle:
        puzzle = make(args)
        return SolvePuzzle(domain(puzzle), spec.header_of(puzzle))

    def add_bench_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--generated", type=int, default=20, metavar="N", help="puzzles (20)")
        p.add_argument("--first", type=int, default=0, metavar="S", help="first seed (0)")

    def bench_hands(args: argparse.Namespace) -> list[Any]:
        if not 1 <= args.generated <= 10_000:
            raise UsageError(f"--generated takes 1 to 10000 puzzles, not {args.generated}")
        return [generated(args.first + i) for i in range(args.generated)]

    def add_puzzles_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--generate", action="store_true", help="print generated puzzles")
        p.add_argument("--seed", type=int, default=0, help="the first seed (0)")
        p.add_argument("--count", type=int, default=1, help="how many (1)")

    def puzzles(args: argparse.Namespace) -> int:
        from tui.exitcodes import ExitCode

        for i in range(max(0, args.count)):
            print(generated(args.seed + i))
        return ExitCode.OK

    return KindCommands(
        add_puzzles_arguments=add_puzzles_arguments,
        puzzles=puzzles,
        puzzles_help=f"generated {kind.label} puzzles (--generate)",
        solver=SolverCommands(
            add_solve_arguments=add_solve_arguments,
            solve_puzzle=solve_puzzle,
            add_bench_arguments=add_bench_arguments,
            bench_hands=bench_hands,
            domain=domain,
        ),
    )


class _KindMap(dict[str, Parser]):
    """Sub-parsers by kind, looked up the way :func:`tui.kinds.find_kind` reads a kind (any
    case, aliases), with the registry's own messages for a kind that is not there. A
    sub-parser registered with :meth:`KindParsers.add_lazy` is made when first looked up."""

    def __init__(self, refuse: Callable[[PuzzleKind], str]) -> None:
        super().__init__()
        self.refuse = refuse
        self.later: dict[str, Callable[[], Parser]] = {}
        self.building = False

    def _has(self, key: str) -> bool:
        return dict.__contains__(self, key) or key in self.later

    def _key(self, text: object) -> object:
        if self.building or not isinstance(text, str) or self._has(text):
            return text
        try:
            kind = find_kind(text)
        except UnknownKind as exc:
            raise UsageError(str(exc)) from None
        if not self._has(kind.cli):
            raise UsageError(self.refuse(kind))
        return kind.cli

    def __contains__(self, key: object) -> bool:
        key = self._key(key)
        return isinstance(key, str) and self._has(key)

    def __getitem__(self, key: str) -> Parser:
        key = str(self._key(key))
        if key in self.later and not dict.__contains__(self, key):
            dict.__setitem__(self, key, self.later.pop(key)())
        return dict.__getitem__(self, key)


class KindParsers(_SubParsers):
    """The sub-parsers action of a command that takes a puzzle kind first."""

    def __init__(self, *args: Any, refuse: Callable[[PuzzleKind], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kinds = _KindMap(refuse)
        self._name_parser_map = self.choices = self._kinds

    def add_parser(self, name: str, **kwargs: Any) -> Parser:
        self._kinds.building = True
        try:
            return super().add_parser(name, **kwargs)
        finally:
            self._kinds.building = False

    def add_lazy(
        self, name: str, build: Callable[[Parser], None], *, help: str, **kwargs: Any
    ) -> None:
        """A sub-parser made only when the command line names its kind, ``build`` adding its
        arguments: the method options import the method catalogue, which ``ponder --help``
        and the other commands need not wait for."""
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        kwargs.setdefault("prog", f"{self._prog_prefix} {name}")

        def make() -> Parser:
            parser = self._parser_class(**kwargs)
            assert isinstance(parser, Parser)
            build(parser)
            return parser

        self._kinds.later[name] = make


def add_kind_parsers(parser: Parser, refuse: Callable[[PuzzleKind], str]) -> KindParsers:
    """The ``KIND`` argument of ``parser``; ``refuse`` says why a registered kind has no
    sub-parser here."""
    kinds = parser.add_subparsers(  # type: ignore[call-overload]  # refuse: KindParsers's own
        action=KindParsers,
        metavar="KIND",
        required=True,
        title="puzzle kinds",
        refuse=refuse,
    )
    assert isinstance(kinds, KindParsers)
    return kinds


# ------------------------------------------------------------------ ponder puzzles


def add_puzzles_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder puzzles KIND ...``: one sub-parser per kind, each with its own flags."""
    found = kind_commands()
    p = sub.add_parser(
        "puzzles",
        help="list, solve, check or generate puzzles",
        description="List, solve, check or generate puzzles of one kind. Each kind has its "
        "own flags: ponder puzzles KIND --help.",
        **common,
    )
    kinds = add_kind_parsers(p, lambda kind: f"ponder puzzles has nothing for {kind.label} yet")
    parsers = []
    for kind, commands in found:
        kp = kinds.add_parser(
            kind.cli,
            help=commands.puzzles_help,
            description=f"{kind.label}: {commands.puzzles_help}",
            **common,
        )
        commands.add_puzzles_arguments(kp)
        kp.set_defaults(run=commands.puzzles, parser=kp)
        parsers.append((kind, kp))
    # A flag another kind has is named as such when it is given here ("--solve is a Game of
    # 24 option"), rather than only "unrecognized".
    owners: dict[str, list[str]] = {}
    for kind, kp in parsers:
        for flag in _flags(kp):
            owners.setdefault(flag, []).append(kind.label)
    for kind, kp in parsers:
        own = _flags(kp)
        hints = {
            flag: f"{flag} is for {' and '.join(labels)}, not {kind.label}"
            for flag, labels in owners.items()
            if flag not in own
        }
        kp.set_defaults(flag_hints=hints)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}
