"""DELI's start as CARP's: the first solution is asked with the solved problems nearest the
problem by BM25 (8, the reference code's), from a pool of ponder's own generated problems with
their worked steps, built once, never holding the problem itself; and its limits as the
paper's under ``paper`` (15 tool calls a stage, 10 s a call), each still an option."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import bm25s
import pytest

from puzzles.arith import extract_claims
from puzzles.wordproblem import generate, generate_algebra, problem_by_id
from solver.domains.retrieval import normal_question, tokens
from solver.domains.wordproblem import (
    POOL_SEED,
    POOL_SIZE,
    WordProblemDomain,
    demonstration_pool,
)
from solver.domains.wordproblem_prompts import SHOTS
from solver.events import DemonstrationsRetrieved, Event, ToolCalled
from solver.methods import make_method, solve
from solver.model import Call, ScriptedModel
from solver.model.offline import OfflineModel
from solver.roles import Purpose, Role
from tests.solver.pinning import with_recorded_calculator

PROBLEM = problem_by_id("bulk_saving/691459251")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?")
INIT = "Singly: 30 * 11 = 330\nPacks: 3 * 109 = 327\nSaving: 330 - 327 = 3\nAnswer: 3"


def first_call(domain: WordProblemDomain, **options: Any) -> tuple[Call, list[Event]]:
    model = ScriptedModel(
        lambda call: {"deli_init": INIT, "deli_tool": "Final Answer: 3"}.get(call.purpose, INIT)
    )
    _, events = asyncio.run(solve(make_method("deli", turns=1, **options), domain, model))
    return model.calls[0], events


def retrieved(events: list[Event]) -> list[DemonstrationsRetrieved]:
    return [e for e in events if isinstance(e, DemonstrationsRetrieved)]


def test_the_first_solution_is_asked_with_eight_retrieved_solved_problems() -> None:
    domain = WordProblemDomain(PROBLEM)
    call, events = first_call(domain)
    prompt = call.messages[-1].content
    (found,) = retrieved(events)
    assert found.asked == 8 and len(found.ids) == 8 and found.retriever.startswith("BM25")
    # Each demonstration: its question, its worked steps and its answer, in the order
    # retrieved, all before the problem's own question, which comes last.
    at = [prompt.index(text) for text in found.texts]
    assert at == sorted(at) and at[-1] < prompt.rindex(f"Question: {PROBLEM.question}")
    assert prompt.count("Question: ") == 9 and prompt.endswith("Steps:")
    pool = {p.id: p for p in demonstration_pool().problems}
    for name, text in zip(found.ids, found.texts, strict=True):
        solved = pool[name]
        assert text.splitlines()[2:-1] == list(solved.steps) and solved.steps
        assert text.endswith(f"Answer: {solved.answer}")
    # They replace the fixed examples.
    assert not any(question in prompt for question, _, _ in SHOTS)


def test_demonstrations_are_ranked_by_bm25_question_to_question() -> None:
    pool = demonstration_pool().problems
    index = bm25s.BM25()
    index.index([tokens(p.question) for p in pool], show_progress=False)
    for problem in generate(seed=5, count=12):
        found = WordProblemDomain(problem).demonstrations(8)
        scores = index.get_scores(tokens(problem.question))
        best = sorted(float(s) for s in scores)[-8:][::-1]
        assert [d.score for d in found] == pytest.approx(best, rel=1e-5)
        # The nearest problem of all is one of the same kind (the same template).
        template = problem.id.split("/")[0]
        if any(p.id.startswith(f"{template}/") for p in pool):
            assert found[0].id.startswith(f"{template}/")


def test_a_problem_in_the_pool_is_never_its_own_demonstration() -> None:
    pool = demonstration_pool()
    own = pool.problems[17]
    for question in (own.question, f"  {own.question.upper()} "):
        found, excluded = pool.nearest(question, 8)
        assert excluded == 1 and len(found) == 8
        assert all(normal_question(d.question) != normal_question(own.question) for d in found)
    in_pool = WordProblemDomain(problem_by_id(own.id))
    assert own.id not in [d.id for d in in_pool.demonstrations(8)]


def test_the_pool_is_ponders_generated_problems_built_once_and_fast() -> None:
    demonstration_pool.cache_clear()
    start = time.perf_counter()
    pool = demonstration_pool()
    pool.nearest(PROBLEM.question, 8)
    built = time.perf_counter() - start
    assert built < 10  # about 0.3 s here, bm25s and numpy imported with it
    assert demonstration_pool() is pool and len(pool) == POOL_SIZE
    made = generate(POOL_SEED, POOL_SIZE)
    assert [p.id for p in pool.problems] == [p.id for p in made]
    assert all(p.steps and p.answer for p in pool.problems)
    start = time.perf_counter()
    for problem in made[:50]:
        pool.nearest(problem.question, 8)
    assert time.perf_counter() - start < 5  # under a millisecond each here


def test_no_demonstrations_asks_with_the_fixed_examples_and_reports_none() -> None:
    domain = WordProblemDomain(PROBLEM)
    call, events = first_call(domain, demonstrations=0)
    assert call.messages == domain.prompt(Role.COT) and not retrieved(events)


def test_an_algebra_problem_finds_no_demonstrations_and_says_so() -> None:
    domain = WordProblemDomain(generate_algebra(0, 1, "linear")[0])
    call, events = first_call(domain)
    (found,) = retrieved(events)
    assert found.ids == () and found.asked == 8
    assert call.messages == domain.prompt(Role.COT)


def test_the_offline_engine_answers_the_problem_not_a_demonstration() -> None:
    domain = WordProblemDomain(PROBLEM)
    demonstrations = domain.demonstrations(8)
    prompt = domain.prompt(Role.COT, demonstrations=demonstrations)
    for seed in range(5):
        reply = asyncio.run(OfflineModel(seed=seed).generate(Call(Purpose.DELI_INIT, prompt))).text
        # Every number it computes with is the problem's own or one it found, never one
        # only a demonstration holds.
        known = set(NUMBER.findall(PROBLEM.question))
        for claim in extract_claims(reply):
            assert set(NUMBER.findall(claim.lhs)) <= known, (claim.lhs, known)
            known.add(claim.rhs.strip())
        assert domain.parse_answer(reply) is not None


# ------------------------------------------------------------------ limits


def config(**options: Any) -> dict[str, Any]:
    return make_method("deli", **options).config_dict()


def test_paper_mode_takes_the_reference_codes_limits_unless_given() -> None:
    own = config()
    assert (own["tool_steps"], own["tool_limit"], own["demonstrations"]) == (6, 5.0, 8)
    paper = config(paper=True)
    limits = ("tool_steps", "tool_limit", "demonstrations", "turns")
    assert tuple(paper[k] for k in limits) == (15, 10.0, 8, 3)
    given = config(paper=True, tool_steps=4, tool_limit=0.5)
    assert (given["tool_steps"], given["tool_limit"]) == (4, 0.5)


def test_under_paper_a_tool_stage_makes_fifteen_calls_each_under_ten_seconds() -> None:
    domain, calc = with_recorded_calculator(WordProblemDomain(PROBLEM))
    busy = ScriptedModel(
        lambda call: (
            " Again.\nAction 1: calculate[3 * 109]" if call.purpose == "deli_tool" else INIT
        )
    )
    _, events = asyncio.run(solve(make_method("deli", turns=1, paper=True), domain, busy))
    assert len([e for e in events if isinstance(e, ToolCalled)]) == 15
    assert calc.limits == [10.0] * 15
