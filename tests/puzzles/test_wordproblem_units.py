"""The unit a generated problem's answer is given in follows its story, and a count of 1 is
singular in the worked solution and the answer."""

from __future__ import annotations

import re

import pytest

from puzzles.wordproblem import TEMPLATES, generate, make_problem, template
from puzzles.wordproblem.templates import FRUIT

SEEDS = range(80)


@pytest.mark.parametrize("seed", SEEDS)
def test_packs_and_loose_answers_in_the_fruit_bought(seed: int) -> None:
    problem = make_problem(template("packs_and_loose"), seed)
    assert problem.unit in FRUIT
    assert problem.unit != "fruit"
    assert f"How many {problem.unit} does" in problem.question
    assert problem.solution is not None
    assert problem.solution.render().endswith(f"{problem.unit} in all.")


def test_every_fruit_is_an_answer_unit_somewhere() -> None:
    units = {make_problem(template("packs_and_loose"), seed).unit for seed in SEEDS}
    assert units == set(FRUIT)


@pytest.mark.parametrize("seed", SEEDS)
def test_fraction_given_away_answers_in_the_things_kept(seed: int) -> None:
    problem = make_problem(template("fraction_given_away"), seed)
    assert problem.unit != "items"
    assert f"How many {problem.unit} does" in problem.question


_PLURAL_AFTER_ONE = re.compile(
    r">>1 (?:dollars|hours|minutes|years|cups|cans|boxes|pages|points|pieces|glasses|litres"
    r"|slices|pizzas|girls|students)\b|>>1 square metres\b|>>1 are\b"
)


def test_no_step_or_answer_says_1_with_a_plural() -> None:
    ones = 0
    for chosen in TEMPLATES:
        for seed in range(150):
            problem = make_problem(chosen, seed)
            assert problem.solution is not None
            body = problem.solution.render()
            assert not _PLURAL_AFTER_ONE.search(body), f"{problem.id}: {body}"
            if problem.answer == 1:
                ones += 1
                assert problem.unit in {"dollar", "hour", "cup", "can", "box", "glass"} or (
                    not problem.unit.endswith("s")
                ), f"{problem.id}: 1 {problem.unit}"
    assert ones  # the sample reaches answers of 1, so the check above ran


def test_a_step_of_1_hour_reads_singular() -> None:
    found = [
        p
        for p in (make_problem(template("trains_meet"), seed) for seed in range(400))
        if p.solution is not None and ">>1 hour" in p.solution.render()
    ]
    assert found
    for problem in found:
        assert problem.solution is not None
        assert ">>1 hour." in problem.solution.render()


def test_units_do_not_change_which_problems_a_seed_makes() -> None:
    # The ids seed 1 drew before units followed the story: the bundled figures rest on them.
    assert [p.id for p in generate(seed=1, count=5)] == [
        "triangle_sails/208223176",
        "budget_left/344057764",
        "boys_and_girls/928773818",
        "new_team_member/785153058",
        "rope_pieces/88269699",
    ]
