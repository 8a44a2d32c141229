"""Word problems on the command line: ``ponder puzzles wordproblem`` checks GSM8K-style files
and generates problems.

* ``--load FILE --check`` verifies every worked-solution step and the final answer of each
  problem in a GSM8K JSON lines file (or a Q:/A: collection) and lists what fails, by line.
* ``--load FILE`` lists the problems as a player sees them (no answers).
* ``--generate [--seed N] [--count K] [--topic T] [--level L]`` prints new problems with
  their worked solutions; ``--topic algebra`` (or an algebra kind such as ``factor``) makes
  algebra problems instead. With ``--json`` each word problem is a GSM8K record, so the
  output can be saved and loaded back with ``--load``.
* ``--pick`` prints one generated problem as a player sees it.
* With none of these, the topics, levels and template counts are listed.

Exit codes: 0 ok, 1 some problem failed verification, 2 bad input (a message on stderr).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from puzzles.wordproblem import AlgebraProblem, WordProblem

from tui.cli.kinds import KindCommands
from tui.cli.usage import UsageError, json_line, visible
from tui.exitcodes import ExitCode

__all__ = ["COMMANDS"]

EXIT_OK, EXIT_FAILED = ExitCode.OK, ExitCode.NOT_SOLVED
DEFAULT_COUNT = 5
MAX_COUNT = 10_000


def add_puzzles_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``ponder puzzles wordproblem``."""
    p.add_argument("--load", metavar="FILE", help="a GSM8K .jsonl file (or Q:/A: text) to read")
    p.add_argument("--check", action="store_true", help="verify every step and answer of --load")
    p.add_argument(
        "--generate", action="store_true", help="generate new problems (see --seed, --count)"
    )
    p.add_argument("--pick", action="store_true", help="one new problem, as a player sees it")
    p.add_argument("--count", type=int, metavar="K", help=f"how many to generate ({DEFAULT_COUNT})")
    p.add_argument(
        "--topic", metavar="TOPIC", help="a topic such as shopping, or 'algebra' / an algebra kind"
    )
    p.add_argument("--level", metavar="LEVEL", help="easy, medium or hard")
    p.add_argument(
        "--seed", type=int, default=None, metavar="N", help="seed for --generate and --pick (0)"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def puzzles(args: argparse.Namespace) -> int:
    """``ponder puzzles wordproblem``: the exit code."""
    load, check, make = args.load, args.check, args.generate
    if load and make:
        raise UsageError("use either --load FILE or --generate, not both")
    if check and not load:
        raise UsageError("--check needs a file: --load FILE --check")
    if load:
        if args.topic or args.level:
            raise UsageError("--topic and --level choose what --generate makes, not --load")
        return _check_file(args, load) if check else _list_file(args, load)
    if make or args.pick:
        return _generate(args)
    return _catalogue(args)


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _load(path: str) -> list[WordProblem]:
    from puzzles.wordproblem import PuzzleFileError, load_problems

    try:
        return load_problems(path)
    except PuzzleFileError as exc:
        raise UsageError(str(exc)) from exc


# ------------------------------------------------------------------ --load


def _where(problem: WordProblem) -> str:
    return f"line {problem.line}" if problem.line is not None else problem.id


def _check_file(args: argparse.Namespace, path: str) -> int:
    from puzzles.arith import ClaimStatus

    problems = _load(path)
    statuses = dict.fromkeys(("exact", "approximate", "wrong", "invalid"), 0)
    names = {
        ClaimStatus.EXACT: "exact",
        ClaimStatus.APPROX: "approximate",
        ClaimStatus.WRONG: "wrong",
        ClaimStatus.INVALID: "invalid",
    }
    failures: list[tuple[WordProblem, list[str]]] = []
    unchecked = 0
    for problem in problems:
        report = problem.verify()
        for check in report.checks:
            statuses[names[check.claim.status]] += 1
        if not report.has_solution:
            unchecked += 1
        elif not report.ok:
            failures.append((problem, report.failures()))
    verified = len(problems) - len(failures) - unchecked
    if args.json:
        summary = {
            "file": path,
            "problems": len(problems),
            "verified": verified,
            "failed": len(failures),
            "without_solution": unchecked,
            "steps": statuses,
            "failures": [
                {"line": p.line, "id": p.id, "problems": reasons} for p, reasons in failures
            ],
        }
        print(json_line(summary))
        return EXIT_FAILED if failures else EXIT_OK
    from rich.text import Text

    console = _console()
    mark, style = ("✓", "green") if not failures else ("✗", "red")
    # The file's name and text are outside text: control characters are shown as escapes.
    line = Text(f"{mark} {visible(path)}: ", style=style)
    line.append(f"{verified} of {len(problems)} problems verify")
    steps = sum(statuses.values())
    line.append(
        f" · {steps} steps: {statuses['exact']} exact, {statuses['approximate']} approximate, "
        f"{statuses['wrong']} wrong, {statuses['invalid']} unreadable"
    )
    if unchecked:
        line.append(f" · {unchecked} without a worked solution")
    console.print(line)
    for problem, reasons in failures:
        for reason in reasons:
            console.print(Text(visible(f"  {_where(problem)}: {reason}"), style="red"))
    return EXIT_FAILED if failures else EXIT_OK


def _list_file(args: argparse.Namespace, path: str) -> int:
    problems = _load(path)
    if args.json:
        for problem in problems:
            view = {**problem.public_view(), "line": problem.line}
            print(json_line(view))
        return EXIT_OK
    from rich.text import Text

    console = _console()
    console.print(Text(f"{visible(path)}: {len(problems)} problems", style="bold"))
    for problem in problems:
        line = Text(f"{visible(_where(problem))}: ", style="dim")
        line.append(visible(problem.question))
        console.print(line)
    return EXIT_OK


# ------------------------------------------------------------------ --generate


def _count(args: argparse.Namespace) -> int:
    count = args.count
    if count is None:
        return 1 if args.pick and not args.generate else DEFAULT_COUNT
    if not 1 <= count <= MAX_COUNT:
        raise UsageError(f"--count must be between 1 and {MAX_COUNT}")
    return int(count)


def _generate(args: argparse.Namespace) -> int:
    from puzzles.wordproblem import ALGEBRA_KINDS, LEVELS, TOPICS, generate, generate_algebra

    seed = args.seed
    seed = 0 if seed is None else seed
    topic, level = args.topic, args.level
    count = _count(args)
    if level is not None and level not in LEVELS:
        raise UsageError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    public = bool(args.pick) and not args.generate
    if topic == "algebra" or topic in ALGEBRA_KINDS:
        kind = None if topic == "algebra" else topic
        algebra = generate_algebra(seed, count, kind, level)
        return _print_algebra(args, algebra, public)
    if topic is not None and topic not in TOPICS:
        choices = ", ".join((*TOPICS, "algebra", *ALGEBRA_KINDS))
        raise UsageError(f"unknown topic {topic!r}; choose from {choices}")
    try:
        problems = generate(seed, count, topic, level)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return _print_problems(args, problems, public)


def _print_problems(args: argparse.Namespace, problems: list[WordProblem], public: bool) -> int:
    if args.json:
        for problem in problems:
            record = problem.public_view() if public else problem.to_gsm8k()
            print(json_line(record))
        return EXIT_OK
    from rich.text import Text

    console = _console()
    failed = False
    for number, problem in enumerate(problems, start=1):
        if number > 1:
            console.print()
        head = Text(f"{number}. ", style="bold")
        head.append(f"[{problem.topic} · {problem.level}] ", style="cyan")
        head.append(problem.id, style="dim")
        console.print(head)
        console.print(Text(f"   {problem.question}"))
        if public or problem.solution is None:
            continue
        report = problem.verify()
        failed = failed or not report.ok
        for index, step in enumerate(problem.solution.steps, start=1):
            ok = all(c.claim.ok for c in report.checks if c.step == index)
            line = Text(f"   {'✓' if ok else '✗'} ", style="green" if ok else "red")
            line.append(step.prose)
            console.print(line)
        answer = Text("   Answer: ", style="bold")
        answer.append(problem.answer_text + (f" {problem.unit}" if problem.unit else ""))
        console.print(answer)
    return EXIT_FAILED if failed else EXIT_OK


def _print_algebra(args: argparse.Namespace, problems: list[AlgebraProblem], public: bool) -> int:
    if args.json:
        for problem in problems:
            record = problem.public_view()
            if not public:
                record["answer"] = problem.answer_text
            print(json_line(record))
        return EXIT_OK
    from rich.text import Text

    console = _console()
    for number, problem in enumerate(problems, start=1):
        if number > 1:
            console.print()
        head = Text(f"{number}. ", style="bold")
        head.append(f"[algebra: {problem.kind} · {problem.level}] ", style="cyan")
        head.append(problem.id, style="dim")
        console.print(head)
        console.print(Text(f"   {problem.prompt}"))
        if not public:
            answer = Text("   Answer: ", style="bold")
            answer.append(problem.answer_text)
            console.print(answer)
    return EXIT_OK


# ------------------------------------------------------------------ catalogue


def _catalogue(args: argparse.Namespace) -> int:
    from puzzles.wordproblem import ALGEBRA_KINDS, LEVELS, TEMPLATES, TOPICS

    counts = {t: dict.fromkeys(LEVELS, 0) for t in TOPICS}
    for t in TEMPLATES:
        counts[t.topic][t.level] += 1
    if args.json:
        print(
            json.dumps(
                {
                    "templates": len(TEMPLATES),
                    "topics": counts,
                    "levels": list(LEVELS),
                    "algebra": list(ALGEBRA_KINDS),
                }
            )
        )
        return EXIT_OK
    from rich.table import Table

    table = Table(title=f"Word problem templates · {len(TEMPLATES)} in {len(TOPICS)} topics")
    table.add_column("topic")
    for level in LEVELS:
        table.add_column(level, justify="right")
    for topic, by_level in counts.items():
        table.add_row(topic, *(str(by_level[level]) for level in LEVELS))
    console = _console()
    console.print(table)
    console.print(f"Algebra kinds (each easy, medium, hard): {', '.join(ALGEBRA_KINDS)}")
    console.print("Try: ponder puzzles wordproblem --generate --seed 1 --count 3")
    return EXIT_OK


COMMANDS = KindCommands(
    add_puzzles_arguments=add_puzzles_arguments,
    puzzles=puzzles,
    puzzles_help="check GSM8K-style files (--load FILE --check), generate problems (--generate)",
)
"""Word problems' commands (the solvers do not play them yet)."""
