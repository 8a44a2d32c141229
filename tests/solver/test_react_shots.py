"""ReAct's worked trajectories: each one is true to ponder's tools and to its question's exact
answer; the prompt carries several of them, those of the problem's sort first, and under
``--paper`` the paper's six (its HotpotQA prompt), still short enough for a small model; the
paper's loop keeps going on invalid actions until the step budget is spent."""

from __future__ import annotations

import asyncio
import re
from fractions import Fraction
from typing import Any

import pytest
import sympy

from puzzles.wordproblem import AlgebraProblem, Form, WordProblem
from solver.domains.wordproblem import WordProblemDomain
from solver.domains.wordproblem_shots import TRAJECTORIES, Trajectory, trajectories
from solver.events import EpisodeEnded, Event
from solver.methods import make_method, solve
from solver.methods.react import PAPER_SHOTS, ReActConfig
from solver.model import ScriptedModel
from solver.model.base import rough_tokens
from solver.tools import parse_action

PENS = WordProblem("Ann has 3 pens and buys 4. How many pens does she have?", Fraction(7))
X, Y = sympy.symbols("x y")
SYSTEM = AlgebraProblem(
    "t1", "system", "easy", "Solve the system: x + y = 5; x - y = 1", ("x", "y"), Form.VALUES,
    (sympy.Integer(3), sympy.Integer(2)),
)  # fmt: skip

# Each trajectory's answer, worked out here apart from its text.
GOLD: dict[str, Any] = {
    "baker": 12 * 5 * 3,
    "jacket": Fraction(80) * (1 - Fraction(25, 100)) + 6,
    "marbles": Fraction(54, 3),
    "garden": 9 * 9 - 17,
    "system": sympy.solve([2 * X + Y - 11, X - Y - 1], [X, Y]),
    "expand": sympy.expand((X + 2) * (X - 5)),
}


def problem_of(shot: Trajectory) -> WordProblem | AlgebraProblem:
    """The problem the trajectory's question poses, with its answer worked out here."""
    if not shot.algebra:
        (key,) = [k for k in GOLD if k in shot.question.lower()]
        return WordProblem(shot.question, Fraction(GOLD[key]))
    if shot.question.startswith("Solve"):
        values = GOLD["system"]
        return AlgebraProblem(
            "s", "system", "easy", shot.question, ("x", "y"), Form.VALUES, (values[X], values[Y])
        )
    return AlgebraProblem(
        "e", "expand", "easy", shot.question, ("x",), Form.EXPRESSION, (GOLD["expand"],)
    )


def user_text(model: ScriptedModel, index: int = 0) -> str:
    return "\n".join(m.content for m in model.calls[index].messages if m.role == "user")


def questions(text: str) -> list[str]:
    return re.findall(r"^Question: (.*)$", text, re.MULTILINE)


def run(
    domain: WordProblemDomain, replies: list[str], **options: Any
) -> tuple[list[Event], ScriptedModel]:
    model = ScriptedModel(replies)
    _fin, events = asyncio.run(solve(make_method("react", **options), domain, model))
    return events, model


def test_the_paper_prompts_with_several_trajectories_and_so_do_we() -> None:
    assert len(TRAJECTORIES) >= PAPER_SHOTS == 6  # the paper's HotpotQA prompt: six
    assert ReActConfig().shots >= 2  # several, never one


@pytest.mark.parametrize("shot", TRAJECTORIES, ids=lambda t: t.question[:20])
def test_each_trajectory_is_what_the_tools_say_and_ends_in_the_right_answer(
    shot: Trajectory,
) -> None:
    domain = WordProblemDomain(problem_of(shot))
    names = [t.name for t in domain.tools] + ["finish"]
    for i, (thought, action, observation) in enumerate(shot.steps, 1):
        read = parse_action(f" {thought}\nAction {i}: {action}", names)
        assert read.valid and read.thought == thought, (i, read.problem)
        if read.name == "finish":
            assert i == len(shot.steps) and observation == "Episode finished."
            verdict = domain.check(domain.parse_answer(f"Answer: {read.argument}"))
            assert verdict.ok, verdict.reason
        else:
            (tool,) = [t for t in domain.tools if t.name == read.name]
            assert tool.run(read.argument, 10).observation == observation


def test_reacts_prompt_carries_several_trajectories_of_the_problems_sort_first() -> None:
    domain = WordProblemDomain(PENS)
    _, model = run(domain, [" 3 + 4 = 7.\nAction 1: finish[7]"])
    text = user_text(model)
    shots = ReActConfig().shots
    asked = questions(text)
    assert len(asked) == shots + 1 and asked[-1] == PENS.question
    for shot in trajectories(shots, algebra=False):
        assert shot.text() in text  # whole: every thought, action and observation
    assert not any(t.algebra for t in trajectories(shots, algebra=False))
    # An algebra task sees algebra trajectories first.
    _, model = run(WordProblemDomain(SYSTEM), [" Solved.\nAction 1: finish[x = 3, y = 2]"])
    asked = questions(user_text(model))
    first = next(t for t in TRAJECTORIES if t.question == asked[0])
    assert first.algebra and asked[-1] == SYSTEM.prompt


def test_shots_sets_how_many_and_paper_takes_the_papers_six() -> None:
    domain = WordProblemDomain(PENS)
    _, model = run(domain, [" 7.\nAction 1: finish[7]"], shots=2)
    assert len(questions(user_text(model))) == 3
    _, model = run(domain, [" 7.\nAction 1: finish[7]"], shots=2, paper=True)
    assert len(questions(user_text(model))) == PAPER_SHOTS + 1


def test_the_papers_prompt_stays_short_enough_for_a_small_model() -> None:
    _, model = run(WordProblemDomain(PENS), [" 7.\nAction 1: finish[7]"], paper=True)
    call = model.calls[0]
    tokens = sum(rough_tokens(m.content) for m in call.messages)
    assert tokens < 2000, tokens  # a 4k-context model keeps room for the episode


def test_in_paper_mode_invalid_actions_run_on_to_the_step_budget() -> None:
    domain = WordProblemDomain(PENS)
    events, model = run(domain, [" I am not sure."], steps=5)
    (ended,) = [e for e in events if isinstance(e, EpisodeEnded)]
    assert ended.by == "invalid" and len(model.calls) == 3
    events, model = run(domain, [" I am not sure."], steps=5, paper=True)
    (ended,) = [e for e in events if isinstance(e, EpisodeEnded)]
    assert ended.by == "cap" and len(model.calls) == 5
