"""Seeded, deterministic generation of word problems from :mod:`puzzles.wordproblem.templates`.

A problem is fixed by its template and a seed: ``make_problem(template("fence_cost"), 7)``
gives the same problem on every machine, and its id (``fence_cost/7``) says how to make it
again. :func:`generate` draws a batch from one seed. Every problem is checked as it is made:
each step verifies exactly, the answer is the last step's result, positive, and whole where
the template counts whole things.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from puzzles.wordproblem.model import KIND, Solution, WordProblem
from puzzles.wordproblem.templates import (
    LEVELS,
    TEMPLATES,
    TOPICS,
    Template,
    TemplateError,
    Work,
    counts_of_one,
)

__all__ = ["LEVELS", "TOPICS", "generate", "make_problem", "problem_by_id", "template", "templates"]

_MAX_TRIES = 50
"""Redraws allowed per problem to avoid repeating one already in the batch."""


def templates(topic: str | None = None, level: str | None = None) -> list[Template]:
    """The templates of a topic and level (either may be ``None`` for all).

    :class:`ValueError` naming the choices for an unknown topic or level."""
    if topic is not None and topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}; choose from {', '.join(TOPICS)}")
    if level is not None and level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    return [
        t
        for t in TEMPLATES
        if (topic is None or t.topic == topic) and (level is None or t.level == level)
    ]


def template(name: str) -> Template:
    """The template called ``name``; :class:`KeyError` if there is none."""
    for t in TEMPLATES:
        if t.name == name:
            return t
    raise KeyError(name)


def make_problem(chosen: Template, seed: int) -> WordProblem:
    """The problem ``chosen`` writes from ``seed``; its id is ``<template>/<seed>``."""
    work = Work()
    question = counts_of_one(chosen.write(random.Random(seed), work))
    answer = work.last
    if answer is None:
        raise TemplateError(f"{chosen.name} wrote no steps")
    if answer <= 0:
        raise TemplateError(f"{chosen.name}/{seed}: the answer {answer} is not positive")
    if chosen.whole and answer.denominator != 1:
        raise TemplateError(f"{chosen.name}/{seed}: the answer {answer} is not whole")
    return WordProblem(
        question=question,
        answer=answer,
        solution=Solution.parse("\n".join(work.lines)),
        id=f"{chosen.name}/{seed}",
        topic=chosen.topic,
        level=chosen.level,
        source=f"generated:{chosen.name}",
        unit=work.answer_unit(chosen.unit),
    )


def problem_by_id(problem_id: str) -> WordProblem:
    """Make again the problem with id ``<template>/<seed>``; :class:`ValueError` if the id
    is not one."""
    name, _, seed = problem_id.partition("/")
    try:
        return make_problem(template(name), int(seed))
    except (KeyError, ValueError):
        raise ValueError(f"{problem_id!r} is not a generated problem's id") from None


def generate(
    seed: int = 0, count: int = 10, topic: str | None = None, level: str | None = None
) -> list[WordProblem]:
    """``count`` distinct problems drawn from ``seed``, of one topic and level if given.

    The same arguments give the same problems, in the same order."""
    if count < 0:
        raise ValueError("count must not be negative")
    pool: Sequence[Template] = templates(topic, level)
    if not pool:
        raise ValueError(f"no template has topic {topic!r} and level {level!r}")
    rng = random.Random(f"{KIND}:{seed}")
    seen: set[str] = set()
    out: list[WordProblem] = []
    for _ in range(count):
        for _ in range(_MAX_TRIES):
            problem = make_problem(rng.choice(pool), rng.randrange(10**9))
            if problem.question not in seen:
                break
        seen.add(problem.question)
        out.append(problem)
    return out
