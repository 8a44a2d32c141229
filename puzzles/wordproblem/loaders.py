"""Word problems from files: GSM8K JSON lines, and Q:/A: collections of our own.

**GSM8K JSON lines** (``*.jsonl``), as GSM8K's own data files are: one JSON object per line
with a ``question`` and an ``answer`` whose last line is ``#### N``; the lines before it are
the worked solution, its steps annotated ``<<48/2=24>>``. ``N`` may have thousands separators
(``#### 1,600``). Optional ``id``, ``topic`` and ``level`` strings are kept (the generator
writes them). Blank lines are skipped.

**Collections** (any other text file), for people writing problems by hand::

    # Comments start with '#'. Problems are separated by their 'Q:' lines.
    Q: A baker makes 24 muffins and sells 3/4 of them.
       How many muffins are left?
    A: 6
    S: She sells 24 * 3 / 4 = <<24*3/4=18>>18 muffins.
    S: 24 - 18 = <<24-18=6>>6 muffins are left.

``Q:`` (or ``Question:``) starts a problem; ``A:`` (``Answer:``) gives its answer, read as a
person's typed answer is (``$1,200``, ``6 muffins``, ``3/4``; ``75%`` is the number 75);
``S:`` (``Step:``) lines, optional, are the worked solution, annotated as GSM8K does. An
indented line continues the field above it. Tags are case-insensitive.

Which format a file is in is told by its first non-blank character: ``{`` is GSM8K.

A file is read whole, so its size is capped; anything wrong with it — missing, a directory,
not UTF-8 text, too large, bad JSON, a missing field, an answer that is not a number —
raises :class:`PuzzleFileError` naming the file, the line and the problem.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from puzzles.files import MAX_FILE_BYTES, PuzzleFileError, decode_text, read_puzzle_file
from puzzles.wordproblem.answers import AnswerError, read_answer
from puzzles.wordproblem.model import Solution, WordProblem

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_QUESTION_LENGTH",
    "MAX_SOLUTION_LENGTH",
    "PuzzleFileError",
    "dump_gsm8k",
    "load_collection",
    "load_gsm8k",
    "load_problems",
    "parse_gsm8k_answer",
]

MAX_QUESTION_LENGTH = 10_000
"""Longest question, in characters (GSM8K's longest is under 1,000)."""
MAX_SOLUTION_LENGTH = 20_000
"""Longest worked solution, in characters."""

_FINAL = re.compile(r"^\s*####\s*(.*?)\s*$")
_TAG = re.compile(r"^(q|question|a|answer|s|step)\s*:\s?(.*)$", re.IGNORECASE)
_TAG_NAMES = {"q": "q", "question": "q", "a": "a", "answer": "a", "s": "s", "step": "s"}


def _read_text(path: Path) -> str:
    return decode_text(read_puzzle_file(path, "problem file"), path, error=PuzzleFileError)


def parse_gsm8k_answer(text: str) -> tuple[Solution, str]:
    """Split a GSM8K ``answer`` into its worked solution and the text after ``####``.

    :class:`ValueError` when there is no final ``#### N`` line."""
    lines = text.rstrip().splitlines()
    if not lines:
        raise ValueError("the answer is empty")
    m = _FINAL.match(lines[-1])
    if m is None:
        raise ValueError("the answer does not end in a '#### N' line")
    return Solution.parse("\n".join(lines[:-1])), m.group(1)


def _label(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    return value[:100] if isinstance(value, str) else ""


def _gsm8k_problem(path: Path, line: int, raw: str) -> WordProblem:
    try:
        record = json.loads(raw)
    except RecursionError:
        raise PuzzleFileError(path, "bad JSON: nested too deeply", line) from None
    except ValueError as exc:  # JSONDecodeError, and integers too long to convert
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise PuzzleFileError(path, f"bad JSON: {reason}", line) from None
    if not isinstance(record, dict):
        raise PuzzleFileError(
            path,
            f"expected a JSON object with 'question' and 'answer', not a {_json_type(record)}",
            line,
        )
    for key, limit in (("question", MAX_QUESTION_LENGTH), ("answer", MAX_SOLUTION_LENGTH)):
        if key not in record:
            raise PuzzleFileError(path, f"the problem has no {key!r} field", line)
        value = record[key]
        if not isinstance(value, str):
            raise PuzzleFileError(path, f"{key!r} should be text, not a {_json_type(value)}", line)
        if not value.strip():
            raise PuzzleFileError(path, f"{key!r} is empty", line)
        if len(value) > limit:
            raise PuzzleFileError(
                path, f"{key!r} is too long ({len(value)} characters; at most {limit})", line
            )
    try:
        solution, final = parse_gsm8k_answer(record["answer"])
    except ValueError as exc:
        raise PuzzleFileError(path, str(exc), line) from None
    try:
        answer = read_answer(final)
    except AnswerError as exc:
        raise PuzzleFileError(
            path, f"the final answer {final[:40]!r} is not a number ({exc})", line
        ) from None
    return WordProblem(
        question=record["question"].strip(),
        answer=answer.value,
        solution=solution,
        id=_label(record, "id") or f"{path.name}:{line}",
        topic=_label(record, "topic"),
        level=_label(record, "level"),
        source="gsm8k",
        line=line,
    )


def _json_type(value: object) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "number")


def parse_gsm8k(path: Path, text: str) -> list[WordProblem]:
    problems = [
        _gsm8k_problem(path, number, raw)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip()
    ]
    if not problems:
        raise PuzzleFileError(path, "has no problems")
    return problems


def load_gsm8k(path: str | os.PathLike[str]) -> list[WordProblem]:
    """The problems of a GSM8K-style JSON lines file, in file order."""
    file = Path(path)
    return parse_gsm8k(file, _read_text(file))


class _Draft:
    """A collection problem being read: its fields and the lines they started on."""

    def __init__(self, line: int, question: str) -> None:
        self.line = line
        self.question = [question]
        self.answer: tuple[int, list[str]] | None = None
        self.steps: list[list[str]] = []
        self.last: list[str] = self.question

    def finish(self, path: Path) -> WordProblem:
        question = " ".join(part.strip() for part in self.question if part.strip())
        if not question:
            raise PuzzleFileError(path, "the question is empty", self.line)
        if len(question) > MAX_QUESTION_LENGTH:
            raise PuzzleFileError(
                path,
                f"the question is too long (at most {MAX_QUESTION_LENGTH} characters)",
                self.line,
            )
        if self.answer is None:
            raise PuzzleFileError(path, "the problem has no 'A:' answer", self.line)
        answer_line, parts = self.answer
        answer_text = " ".join(part.strip() for part in parts)
        try:
            answer = read_answer(answer_text)
        except AnswerError as exc:
            raise PuzzleFileError(
                path, f"the answer {answer_text[:40]!r} is not a number ({exc})", answer_line
            ) from None
        steps = [" ".join(part.strip() for part in step) for step in self.steps]
        solution = Solution.parse("\n".join(steps)) if steps else None
        if solution is not None and len(solution.render()) > MAX_SOLUTION_LENGTH:
            raise PuzzleFileError(path, "the worked solution is too long", self.line)
        return WordProblem(
            question=question,
            answer=answer.value,
            solution=solution,
            id=f"{path.name}:{self.line}",
            source="collection",
            line=self.line,
            unit=answer.unit,
        )


def _collection(path: Path, lines: Iterable[str]) -> list[WordProblem]:
    drafts: list[_Draft] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        m = _TAG.match(raw.strip()) if not raw[:1].isspace() else None
        if m is None:
            if not drafts or not raw[:1].isspace():
                # What the line holds is not shown: a file that is no puzzle file (a config
                # file with a key in it, opened in the browser) must not be read out.
                raise PuzzleFileError(
                    path,
                    "expected a line that starts 'Q:', 'A:' or 'S:' (or an indented "
                    "continuation); this one starts otherwise",
                    number,
                )
            drafts[-1].last.append(raw)
            continue
        tag, rest = _TAG_NAMES[m.group(1).lower()], m.group(2)
        if tag == "q":
            drafts.append(_Draft(number, rest))
            continue
        if not drafts:
            raise PuzzleFileError(path, f"'{m.group(1)}:' before the first 'Q:'", number)
        draft = drafts[-1]
        if tag == "a":
            if draft.answer is not None:
                raise PuzzleFileError(
                    path, f"a second answer for the problem on line {draft.line}", number
                )
            draft.answer = (number, [rest])
            draft.last = draft.answer[1]
        else:
            draft.steps.append([rest])
            draft.last = draft.steps[-1]
    if not drafts:
        raise PuzzleFileError(path, "has no problems (each starts with 'Q:')")
    return [draft.finish(path) for draft in drafts]


def load_collection(path: str | os.PathLike[str]) -> list[WordProblem]:
    """The problems of a Q:/A: collection file (see the module notes), in file order."""
    file = Path(path)
    return _collection(file, _read_text(file).splitlines())


def load_problems(path: str | os.PathLike[str]) -> list[WordProblem]:
    """The problems of either format, told apart by the first non-blank character."""
    file = Path(path)
    text = _read_text(file)
    start = text.lstrip()[:1]
    if not start:
        raise PuzzleFileError(file, "is empty")
    if start == "{":
        return parse_gsm8k(file, text)
    if start == "[":
        raise PuzzleFileError(
            file,
            "is a JSON list; write one JSON object per line (GSM8K style) or Q:/A: blocks",
        )
    return _collection(file, text.splitlines())


def dump_gsm8k(problems: Iterable[WordProblem]) -> str:
    """Problems as GSM8K JSON lines (each ends with a newline), loadable by :func:`load_gsm8k`."""
    return "".join(json.dumps(p.to_gsm8k(), ensure_ascii=False) + "\n" for p in problems)
