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
* ``ponder solve wordproblem [SEED [--level L] [--topic T] | TEXT --answer N | --id ID |
  --file FILE [--row N]]``: the problem a method plays: a generated one (the default, seed
  0), one by its id, a row of a file (counted from 0), or a question typed in.
  ``--tool-limit S`` limits each tool call (5 s), the method's and the domain's alike.
* ``ponder bench wordproblem --file FILE [--range A:B] | --generated N [--level L] [--topic T]
  | --algebra N [--level L]``: the problems a benchmark runs (``--set N`` picks the generated
  set; 100 generated problems by default).

Exit codes: 0 ok, 1 some problem failed verification, 2 bad input (a message on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from puzzles.wordproblem import AlgebraProblem, WordProblem
    from solver.domains.wordproblem import WordProblemDomain

from tui.cli.kinds import KindCommands, SolvePuzzle, SolverCommands
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


def _note_doubts(path: str, problems: Iterable[WordProblem]) -> None:
    """Say on stderr when stored answers disagree with their own worked solutions."""
    from rich.console import Console
    from rich.text import Text

    from puzzles.wordproblem import answer_doubts

    doubts = answer_doubts(problems)
    if doubts:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            Text(visible(f"note: {path}: {doubts} (--load FILE --check says why)"), style="yellow")
        )


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


# ------------------------------------------------------------------ ponder solve wordproblem

BENCH_MAX = 10_000


@dataclass(frozen=True)
class BenchProblem:
    """A problem in a benchmark's set; its text is its id (the results' ``hand`` column)."""

    problem: WordProblem | AlgebraProblem
    label: str
    tool_limit: float = 5.0

    def __str__(self) -> str:
        return self.label


def _label(problem: WordProblem | AlgebraProblem, index: int) -> str:
    from puzzles.wordproblem import WordProblem

    if isinstance(problem, WordProblem) and problem.line is not None:
        return f"line {problem.line}"
    return problem.id or f"problem {index}"


def _domain(item: BenchProblem | WordProblem | AlgebraProblem) -> WordProblemDomain:
    from solver.domains.wordproblem import WordProblemDomain

    if isinstance(item, BenchProblem):
        return WordProblemDomain(item.problem, item.tool_limit)
    return WordProblemDomain(item)


def _level(level: str | None) -> None:
    from puzzles.wordproblem import LEVELS

    if level is not None and level not in LEVELS:
        raise UsageError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")


def _generated(
    seed: int, count: int, topic: str | None, level: str | None
) -> list[WordProblem | AlgebraProblem]:
    from puzzles.wordproblem import ALGEBRA_KINDS, TOPICS, generate, generate_algebra

    _level(level)
    if topic == "algebra" or topic in ALGEBRA_KINDS:
        return list(generate_algebra(seed, count, None if topic == "algebra" else topic, level))
    if topic is not None and topic not in TOPICS:
        choices = ", ".join((*TOPICS, "algebra", *ALGEBRA_KINDS))
        raise UsageError(f"unknown topic {topic!r}; choose from {choices}")
    try:
        return list(generate(seed, count, topic, level))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _by_id(problem_id: str) -> WordProblem | AlgebraProblem:
    from solver.kinds.wordproblem import by_id

    try:
        problem: WordProblem | AlgebraProblem = by_id(problem_id)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return problem


def _typed(question: str, answer: str | None) -> WordProblem:
    """A typed question as the kind reads it (see :func:`solver.kinds.wordproblem.typed`),
    its faults said as usage errors."""
    from puzzles.wordproblem import AnswerError
    from solver.kinds.wordproblem import typed

    try:
        problem: WordProblem = typed(question, answer)
    except AnswerError as exc:  # only the answer is read as one
        shown = answer if answer is None or len(answer) <= 40 else f"{answer[:39]}…"
        raise UsageError(f"--answer {shown!r}: {exc}") from exc
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return problem


def add_solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "puzzle",
        nargs="?",
        metavar="SEED|TEXT",
        help="the seed of a generated problem (0), or a question of your own",
    )
    p.add_argument(
        "--answer",
        metavar="N",
        help="the answer of a typed question, to check the run against (without it the "
        "solver's answer is shown, not judged)",
    )
    p.add_argument("--level", metavar="LEVEL", help="easy, medium or hard")
    p.add_argument(
        "--topic", metavar="TOPIC", help="a topic such as shopping, or 'algebra' / an algebra kind"
    )
    p.add_argument("--id", metavar="ID", help="a generated problem by its id, e.g. bulk_saving/7")
    p.add_argument("--file", metavar="FILE", help="a GSM8K .jsonl file (or Q:/A: text)")
    p.add_argument(
        "--row",
        type=int,
        metavar="N",
        help="the problem of --file, counted from 0 (the app's problem 1 is row 0)",
    )


def _tool_time(args: argparse.Namespace) -> float:
    """Seconds a tool call may run: ``--tool-limit`` (the ReAct / DELI option, checked with
    the method's options) for every tool the problem offers, else the default."""
    from solver.tools import DEFAULT_LIMIT

    value = getattr(args, "method_option_tool_limit", None)
    return DEFAULT_LIMIT if value is None else float(value)


def solve_puzzle(args: argparse.Namespace) -> SolvePuzzle:
    from solver.domains.wordproblem import WordProblemDomain
    from solver.kinds.wordproblem import KIND

    text = args.puzzle
    seed: int | None = None
    if text is not None and text.strip().isdigit() and len(text.strip()) <= 9:
        seed, text = int(text), None
    sources = [text is not None, args.id is not None, args.file is not None]
    if sum(sources) > 1 or (seed is not None and any(sources)):
        raise UsageError("give one of SEED, TEXT, --id or --file")
    if args.row is not None and not args.file:
        raise UsageError("--row picks a problem of --file")
    if args.answer is not None and text is None:
        raise UsageError("--answer goes with a typed question")
    if (args.level or args.topic) and any(sources):
        raise UsageError("--level and --topic choose a generated problem")
    problem: WordProblem | AlgebraProblem
    if text is not None:
        problem = _typed(text, args.answer)
    elif args.id is not None:
        problem = _by_id(args.id)
    elif args.file:
        found = _load(args.file)
        row = 0 if args.row is None else args.row
        if not found:
            raise UsageError(f"{args.file} holds no problem")
        if not 0 <= row < len(found):
            raise UsageError(f"--row {row}: the file has rows 0 to {len(found) - 1}")
        problem = found[row]
    else:
        problem = _generated(seed or 0, 1, args.topic, args.level)[0]
    domain = WordProblemDomain(problem, _tool_time(args))
    doubt = getattr(problem, "answer_doubt", lambda: None)()  # algebra has no stored steps
    notes = (f"the file's answer is in doubt: {doubt}; the run is judged against it",)
    if domain.unchecked:
        unchecked = "no --answer was given: the solver's answer is shown, not checked"
        return SolvePuzzle(domain, KIND.header_of(problem), (unchecked,), unchecked=True)
    return SolvePuzzle(domain, KIND.header_of(problem), notes if doubt else ())


# ------------------------------------------------------------------ ponder bench wordproblem


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--file", metavar="FILE", help="a GSM8K .jsonl file (or Q:/A: text)")
    src.add_argument(
        "--generated", type=int, metavar="N", help="N generated problems (the default: 100)"
    )
    src.add_argument("--algebra", type=int, metavar="N", help="N generated algebra problems")
    p.add_argument("--range", dest="rows", metavar="A:B", help="rows of --file, e.g. 0:100")
    p.add_argument("--level", metavar="LEVEL", help="easy, medium or hard (generated sets)")
    p.add_argument("--topic", metavar="TOPIC", help="one topic (--generated)")
    p.add_argument("--set", type=int, default=0, metavar="N", help="which generated set (0)")


def _rows(text: str, size: int) -> range:
    m = re.fullmatch(r"\s*(\d{0,9})\s*:\s*(\d{0,9})\s*", text)
    if m is None:
        raise UsageError(f"--range takes A:B (rows counted from 0), not {text!r}")
    start = int(m.group(1) or 0)
    stop = min(size, int(m.group(2))) if m.group(2) else size
    if start >= stop:
        raise UsageError(f"--range {text}: no rows (the file has {size})")
    return range(start, stop)


def bench_hands(args: argparse.Namespace) -> list[BenchProblem]:
    problems: list[WordProblem | AlgebraProblem]
    if args.file:
        if args.level or args.topic:
            raise UsageError("--level and --topic choose generated problems, not --file")
        found = _load(args.file)
        rows = _rows(args.rows, len(found)) if args.rows else range(len(found))
        _note_doubts(args.file, [found[i] for i in rows])
        problems = [found[i] for i in rows]
    else:
        if args.rows:
            raise UsageError("--range selects rows of --file")
        count = args.algebra if args.algebra is not None else args.generated
        count = 100 if count is None else count
        if not 1 <= count <= BENCH_MAX:
            raise UsageError(f"a generated set has 1 to {BENCH_MAX} problems, not {count}")
        topic = "algebra" if args.algebra is not None else args.topic
        if args.algebra is not None and args.topic:
            raise UsageError("--topic chooses word problems; --algebra makes algebra ones")
        problems = _generated(args.set, count, topic, args.level)
    if not problems:
        raise UsageError("no problems to run")
    limit = _tool_time(args)
    return [BenchProblem(p, _label(p, i), limit) for i, p in enumerate(problems)]


COMMANDS = KindCommands(
    add_puzzles_arguments=add_puzzles_arguments,
    puzzles=puzzles,
    puzzles_help="check GSM8K-style files (--load FILE --check), generate problems (--generate)",
    solver=SolverCommands(
        add_solve_arguments=add_solve_arguments,
        solve_puzzle=solve_puzzle,
        add_bench_arguments=add_bench_arguments,
        bench_hands=bench_hands,
        domain=_domain,
    ),
)
"""Word problems' commands."""
