"""The template generator: every step verifies exactly, answers are sensible, problems vary."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

import pytest

from puzzles.arith import ClaimStatus, verify_claim
from puzzles.wordproblem import (
    LEVELS,
    TEMPLATES,
    TOPICS,
    Template,
    dump_gsm8k,
    generate,
    make_problem,
    problem_by_id,
    template,
    templates,
)
from puzzles.wordproblem.loaders import parse_gsm8k  # the parser behind load_gsm8k, without a file
from puzzles.wordproblem.templates import counts_of_one

SEEDS = range(60)
STEPS = {"easy": (2, 2), "medium": (3, 3), "hard": (4, 8)}


def test_there_are_at_least_30_templates_across_topics_and_levels() -> None:
    assert len(TEMPLATES) >= 30
    assert len({t.name for t in TEMPLATES}) == len(TEMPLATES)
    assert len(TOPICS) >= 6
    assert {"shopping", "rates", "fractions", "ages", "work", "geometry"} <= set(TOPICS)
    for topic in TOPICS:
        for level in LEVELS:
            assert templates(topic, level), f"no {level} {topic} template"


@pytest.mark.parametrize("chosen", TEMPLATES, ids=lambda t: t.name)
def test_every_step_verifies_exactly_and_the_answer_is_the_last_step(chosen: Template) -> None:
    low, high = STEPS[chosen.level]
    for seed in SEEDS:
        problem = make_problem(chosen, seed)
        assert problem.solution is not None
        claims = problem.solution.claims()
        assert low <= len(claims) <= high, f"{problem.id}: {len(claims)} steps"
        # Re-verify from the text alone, as a reader of the GSM8K rendering would.
        verdicts = [verify_claim(c) for c in claims]
        assert all(v.status is ClaimStatus.EXACT for v in verdicts), problem.id
        assert verdicts[-1].exact == verdicts[-1].claimed == problem.answer, problem.id
        report = problem.verify()
        assert report.ok and report.exact == len(claims), (problem.id, report.failures())
        assert problem.answer is not None and problem.answer > 0, problem.id
        if chosen.whole:
            assert problem.answer.denominator == 1, problem.id
        assert problem.topic == chosen.topic and problem.level == chosen.level
        assert problem.check(problem.answer_text).ok


@pytest.mark.parametrize("chosen", TEMPLATES, ids=lambda t: t.name)
def test_each_template_writes_many_distinct_problems(chosen: Template) -> None:
    questions = {make_problem(chosen, seed).question for seed in range(150)}
    assert len(questions) >= 100, f"{chosen.name}: only {len(questions)} of 150 distinct"


def test_generation_is_seeded_and_deterministic() -> None:
    first = generate(seed=7, count=40)
    again = generate(seed=7, count=40)
    assert [(p.id, p.question, p.answer) for p in first] == [
        (p.id, p.question, p.answer) for p in again
    ]
    other = generate(seed=8, count=40)
    assert [p.question for p in first] != [p.question for p in other]
    assert make_problem(template("fence_cost"), 3) == make_problem(template("fence_cost"), 3)


def test_a_problem_can_be_made_again_from_its_id() -> None:
    for problem in generate(seed=2, count=20):
        assert problem_by_id(problem.id) == problem
    for bad in ("nope/1", "fence_cost/x", "fence_cost"):
        with pytest.raises(ValueError, match="not a generated problem"):
            problem_by_id(bad)


def test_a_large_batch_is_distinct_varied_and_all_verifies() -> None:
    problems = generate(seed=0, count=2000)
    assert len({p.question for p in problems}) == len(problems)
    assert all(p.verify().ok for p in problems)
    used = Counter(p.source for p in problems)
    assert len(used) == len(TEMPLATES)  # every template is drawn
    names = Counter(word for p in problems for word in p.question.split()[:1])
    assert len(names) > 30  # names and openings vary


def test_topic_and_level_filter_the_batch() -> None:
    problems = generate(seed=1, count=30, topic="fractions", level="hard")
    assert {(p.topic, p.level) for p in problems} == {("fractions", "hard")}
    with pytest.raises(ValueError, match="unknown topic"):
        generate(seed=1, count=3, topic="poetry")
    with pytest.raises(ValueError, match="unknown level"):
        generate(seed=1, count=3, level="impossible")
    with pytest.raises(ValueError, match="negative"):
        generate(seed=1, count=-1)
    assert generate(seed=1, count=0) == []


def test_generated_problems_survive_the_gsm8k_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    problems = generate(seed=5, count=100)
    loaded = parse_gsm8k(tmp_path / "generated.jsonl", dump_gsm8k(problems))
    assert [(p.question, p.answer, p.topic, p.level, p.id) for p in loaded] == [
        (p.question, p.answer, p.topic, p.level, p.id) for p in problems
    ]
    assert all(p.verify().ok for p in loaded)


def test_public_view_hides_answer_and_solution() -> None:
    for problem in generate(seed=3, count=50):
        view = problem.public_view()
        assert set(view) == {"kind", "id", "question", "topic", "level"}
        assert problem.solution is not None
        assert all(step.prose not in view["question"] for step in problem.solution.steps)


def test_fraction_stories_show_fractions_not_decimals() -> None:
    problem = make_problem(template("pizza_party"), 1)
    assert problem.solution is not None
    text = problem.solution.render()
    assert "/8" in text and "0.375" not in text
    assert problem.answer is not None
    assert problem.answer == Fraction(problem.answer.numerator)  # whole slices


_PLURAL_AFTER_ONE = re.compile(
    r"(?<![\d.,/:-])1 (?:hours|minutes|years|litres|days|weeks|guests)\b"
)


@pytest.mark.parametrize("chosen", TEMPLATES, ids=lambda t: t.name)
def test_a_count_of_one_reads_in_the_singular(chosen: Template) -> None:
    """ "for 1 hours", "1 years younger", "1 guests drink" and "1/(1) = 1 hour" were written."""
    for seed in range(300):
        problem = make_problem(chosen, seed)
        text = problem.question + "\n" + (problem.solution.prose() if problem.solution else "")
        assert not _PLURAL_AFTER_ONE.search(text), (problem.id, text)
        assert "/(1)" not in text, problem.id


def test_counts_of_one_leaves_other_numbers_alone() -> None:
    assert counts_of_one("for 1 hours and 1 minutes") == "for 1 hour and 1 minute"
    assert counts_of_one("11 hours, 2.1 hours, 1/1 hours, 3 hours") == (
        "11 hours, 2.1 hours, 1/1 hours, 3 hours"
    )
    assert counts_of_one("1 km a minute, ratio 1:4") == "1 km a minute, ratio 1:4"
