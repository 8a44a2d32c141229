"""Math word problems: GSM8K-style questions with a number for an answer, and the algebra set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.kinds.roles import WORDPROBLEM
from solver.kinds.spec import KindSpec

LONGEST_QUESTION = 4000
"""Characters a typed question may have."""


def by_id(problem_id: str) -> Any:
    """A generated problem (or an algebra problem) by its id; ``ValueError`` when none."""
    from puzzles.wordproblem import algebra_by_id, problem_by_id

    for make in (problem_by_id, algebra_by_id):
        try:
            return make(problem_id)
        except (ValueError, KeyError):
            continue
    raise ValueError(f"{problem_id!r} is not the id of a generated problem")


def typed(question: str, answer: str | None) -> Any:
    """A question a person typed, with the answer it is checked against (None: unchecked)."""
    from puzzles.wordproblem import WordProblem, read_answer

    if not question.strip():
        raise ValueError("the question is empty")
    if len(question) > LONGEST_QUESTION:
        raise ValueError(
            f"the question is too long ({len(question)} characters; at most {LONGEST_QUESTION})"
        )
    if answer is None:
        return WordProblem(" ".join(question.split()), None, id="typed", source="typed")
    value = read_answer(answer).value  # AnswerError is a ValueError
    return WordProblem(" ".join(question.split()), value, id="typed", source="typed")


def _problem(header: Mapping[str, Any]) -> Any:
    problem_id = header.get("id")
    if isinstance(problem_id, str) and problem_id not in ("", "typed"):
        try:
            return by_id(problem_id)
        except ValueError:
            pass  # a file's problem: read back from its question and answer
    question, answer = header.get("puzzle"), header.get("answer")
    if isinstance(question, str) and (answer is None or isinstance(answer, str)):
        return typed(question, answer)
    raise ValueError("the trace does not name a word problem")


def _header(problem: Any) -> dict[str, Any]:
    """Its id when it is generated (the id rebuilds it), else its question and answer."""
    from puzzles.wordproblem import WordProblem

    if isinstance(problem, WordProblem):
        header: dict[str, Any] = {"puzzle": problem.question, "id": problem.id}
        if not problem.source.startswith("generated") and problem.answer is not None:
            header["answer"] = problem.answer_text
        return header
    return {"puzzle": problem.prompt, "id": problem.id}


ALGEBRA = "algebra"
"""The topic of the algebra set (linear equations, systems, expanding, simplifying,
factoring, evaluating), offered after the generator's topics: answers are checked by sympy
equality through the whitelisting parser of :mod:`puzzles.wordproblem.algebra`."""


def _topics() -> tuple[str, ...]:
    from puzzles.wordproblem import TOPICS

    return (*TOPICS, ALGEBRA)


def _generate(seed: int) -> Any:
    from puzzles.wordproblem import generate

    return generate(seed=seed, count=1)[0]


KIND = KindSpec(
    name="wordproblem",
    label="Word problems",
    cli="wordproblem",
    aliases=("wordproblems", "math", "gsm8k"),
    order=30,
    roles=WORDPROBLEM,
    domain="solver.domains.wordproblem:WordProblemDomain",
    player="solver.model.offline.wordproblem:WordProblemPlayer",
    puzzles="problems",
    read_header=_problem,
    header=_header,
    generate=_generate,
    bench_setting="BoT: GPT-4 on GSM8K; DELI: gpt-3.5-turbo on CARP",
    levels=("easy", "medium", "hard"),
    topics=_topics,
    files="GSM8K JSON lines (.jsonl), or Q:/A: blocks of our own (any text file)",
)
