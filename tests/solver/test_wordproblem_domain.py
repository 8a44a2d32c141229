"""The word-problem domain: prompts by role, tolerant parsers, exact checks, no answer in any
prompt, and every method end to end on the offline engine (reading only the prompt)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from puzzles.arith import Claim, ClaimStatus, verify_claim
from puzzles.game24 import Hand
from puzzles.wordproblem import (
    AlgebraProblem,
    WordProblem,
    generate,
    generate_algebra,
    problem_by_id,
)
from solver.domains.base import Domain, Reply, RolesMissing
from solver.domains.game24 import Game24Domain
from solver.domains.wordproblem import WordProblemDomain, Work, parse_answer, parse_reply
from solver.domains.wordproblem_prompts import SHOTS
from solver.events import ClaimVerified, ErrorRaised, ParseFailed, RunFinished
from solver.methods import METHODS, make_method, solve
from solver.model import Call, Generation, ScriptedModel, TokenCallback
from solver.model.offline import OfflineModel
from solver.roles import Role
from tests.solver.pinning import first_bot_steps

PROBLEM = problem_by_id("bulk_saving/691459251")  # answer 3
DOMAIN = WordProblemDomain(PROBLEM)
SMALL: dict[str, dict[str, Any]] = {
    "bot": {"iterations": 2, "trees": 2},
    "cot-sc": {"samples": 5},
    "aiot": {"iterations": 3},
    "giot": {"turns": 2},
}
WORD_METHODS = [n for n, s in METHODS.items() if s.roles <= DOMAIN.roles]


def test_the_worked_examples_hold_exactly() -> None:
    for _, steps, _ in SHOTS:
        for line in steps:
            assert verify_claim(line.split(": ", 1)[1]).status is ClaimStatus.EXACT


def test_it_is_a_domain_for_io_cot_bot_iot_react_and_deli_but_not_tot() -> None:
    assert isinstance(DOMAIN, Domain)
    assert {"io", "cot", "cot-sc", "bot", "aiot", "giot", "react", "deli"} <= set(WORD_METHODS)
    assert "tot" not in WORD_METHODS
    with pytest.raises(RolesMissing):
        DOMAIN.prompt(Role.VALUE)


def test_steps_are_read_tolerantly_and_checked_exactly() -> None:
    text = (
        "Step 1: Buying singly: 30 * 11 = 330, Evaluation score: 0.9\n"
        "**Step 2:** packs 30/10 = 3\n"
        "- The packs cost 3 * 109 = 317\n"
        "Some prose without a computation.\n"
        "Answer: $13."
    )
    steps = DOMAIN.parse_steps(text, Work())
    assert [s.text for s in steps] == [
        "Buying singly: 30 * 11 = 330",
        "packs 30/10 = 3",
        "The packs cost 3 * 109 = 317",
        "Answer: $13.",
    ]
    assert [s.valid for s in steps] == [True, True, False, True]
    assert "actually 327" in steps[2].problem
    assert steps[3].answer == "$13" and DOMAIN.is_final(steps[3].state or Work())
    # The steps so far, repeated before the new one, are not new steps.
    after = steps[0].state
    assert after is not None
    again = DOMAIN.parse_steps("30 * 11 = 330\n30 / 10 = 3", after)
    assert [s.text for s in again] == ["30 / 10 = 3"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Final answer: $1,800.", "$1,800"),
        ("**Answer:** 18 dollars", "18"),
        ("so\nAnswer: 330 - 327 = 3", "3"),
        ("The answer is 3/4", "3/4"),
        ("no label here", None),
    ],
)
def test_answers_are_read_from_prose(text: str, answer: str | None) -> None:
    assert parse_answer(text) == answer


def test_votes_count_equal_numbers_as_one_answer_and_checks_are_exact() -> None:
    assert DOMAIN.answer_key("$1,800.00") == DOMAIN.answer_key("1800") == "1800"
    assert DOMAIN.answer_key("eighteen") is None
    assert DOMAIN.check("$3").ok and not DOMAIN.check("4").ok
    huge = DOMAIN.check("9" * 10_000)
    assert not huge.ok and "too long" in huge.reason
    assert DOMAIN.check(None).reason == "no answer"


def test_algebra_answers_are_checked_by_the_problem() -> None:
    for problem in generate_algebra(1, 12):
        domain = WordProblemDomain(problem)
        assert domain.check(problem.answer_text).ok
        assert domain.answer_key(problem.answer_text) is not None


def test_no_prompt_carries_the_answer_or_the_worked_solution() -> None:
    problem = generate(7, 1, level="hard")[0]
    domain = WordProblemDomain(problem)
    assert problem.solution is not None
    prompts = [
        domain.prompt(Role.IO),
        domain.prompt(Role.COT),
        domain.prompt(Role.STEP, experience="", chain=[]),
        domain.prompt(Role.EVALUATE, chain=[], step="Step 1: 2 + 2 = 4"),
        domain.prompt(Role.ANALYZE, chain=["Step 1: 2 + 2 = 5"]),
        domain.prompt(Role.GUIDE, turns=(), turn=1, total=3),
        domain.prompt(Role.RESPOND, turns=(), guidance="Go.", mode="free"),
        domain.prompt(Role.ACT, steps=(), step=1, limit=7),
        domain.prompt(Role.FORMALIZE, trial="2 + 2 = 4", steps=(), step=1),
        domain.prompt(Role.REVISE, solution="2 + 2 = 4", verification="", tool_answer="4"),
    ]
    text = "\n".join(m.content for p in prompts for m in p)
    for step in problem.solution.steps:
        assert step.prose not in text
    assert "Question: " + problem.question in text
    assert "answer" not in str(domain.context(domain.start())).lower()
    # The analysis carries the exact check of the chain's arithmetic.
    assert "✗ 2 + 2 = 5 (actually 4)" in text


def test_replay_checks_every_step_and_the_answer() -> None:
    good = DOMAIN.parse_steps("30 * 11 = 330\n30 / 10 = 3\n3 * 109 = 327\n330 - 327 = 3", Work())
    states = [s.state for s in good]
    final, reason, ok = DOMAIN.replay([s for s in states if s is not None])
    assert ok and final is not None and final.values[-1] == "3", reason
    bad = DOMAIN.parse_steps("30 * 11 = 320", Work())
    _, reason, ok = DOMAIN.replay([s.state for s in bad if s.state is not None])
    assert not ok and "actually 330" in reason


def test_the_depth_comes_from_the_question() -> None:
    assert 3 <= DOMAIN.depth() <= 9


def run(name: str, domain: Any, model: Any) -> tuple[RunFinished, list[Any]]:
    return asyncio.run(solve(make_method(name, **SMALL.get(name, {})), domain, model, seed=5))


@pytest.mark.parametrize("name", ["react", "deli"])
def test_tool_methods_on_the_game_of_24_are_a_clear_roles_missing_error(name: str) -> None:
    model = ScriptedModel(["x"])
    fin, events = run(name, Game24Domain(Hand.parse("4 7 8 8")), model)
    (error,) = [e for e in events if isinstance(e, ErrorRaised)]
    assert error.kind == "unsupported" and "game24 domain has no" in error.message
    assert fin.reason == "error" and model.calls == []


class ContextBlind:
    """The offline engine behind a wall: every call's ``context`` is emptied first."""

    def __init__(self, inner: OfflineModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        return await self.inner.generate(dataclasses.replace(call, context={}), on_token)

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("name", WORD_METHODS)
def test_every_method_runs_on_word_problems_offline_reading_only_the_prompt(name: str) -> None:
    problems: list[WordProblem | AlgebraProblem] = [
        PROBLEM,
        generate(2, 1, level="easy")[0],
        generate_algebra(3, 1, kind="linear")[0],
    ]
    for problem in problems:
        domain = WordProblemDomain(problem)
        seen, events = run(name, domain, OfflineModel(seed=3))
        blind, _ = run(name, domain, ContextBlind(OfflineModel(seed=3)))
        assert seen.reason != "error", [e for e in events if isinstance(e, ErrorRaised)]
        # It writes in the form each prompt asks for: nothing it says goes unread.
        assert not [e for e in events if isinstance(e, ParseFailed)], (name, problem)
        assert (seen.answer, seen.calls, seen.solved) == (blind.answer, blind.calls, blind.solved)
        assert seen.calls >= 1
        if name in ("cot", "cot-sc", "bot", "deli") and problem is PROBLEM:
            assert any(isinstance(e, ClaimVerified) for e in events)


def test_the_offline_player_never_reads_the_answer_or_the_checker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import puzzles.wordproblem.answers as answers

    def boom(*args: object, **kwargs: object) -> Any:
        raise AssertionError("the offline engine used the exact checker")

    domain = WordProblemDomain(PROBLEM)
    check = domain.check
    monkeypatch.setattr(answers, "check_answer", boom)
    monkeypatch.setattr(WordProblemDomain, "check", lambda self, answer: check(answer))
    for name in ("cot", "react", "deli"):
        fin, _ = run(name, domain, OfflineModel(seed=1))
        assert fin.reason != "error"


def test_the_offline_player_starts_afresh_beside_its_experience_and_drops_a_rejected_step() -> None:
    # The experience quotes an earlier chain between "---" lines, as the steps so far are
    # written: the engine must take its position from the steps so far, not from the quote.
    async def first_steps(experience: str) -> Counter[str]:
        return await first_bot_steps(DOMAIN, experience, 30)

    plain = asyncio.run(first_steps(""))
    favourite, times = plain.most_common(1)[0]
    assert favourite.startswith("Step 1: ") and times >= 5, plain
    step = favourite.removeprefix("Step 1: ")
    feedback = (
        "Analysis Report: the chain goes wrong.\n"
        f"Step 1: The computation is wrong. Error report: {step} is not what is asked. "
        "Advice: recompute. Recommendation or Reject: Reject.\n"
        "Confidence score: 0.3"
    )
    after = asyncio.run(first_steps(DOMAIN.parse_feedback(feedback, 1).entry(1, [step])))
    assert all(s.startswith("Step 1: ") for s in after), after
    assert after[favourite] == 0, after


# ------------------------------------------------------------------ found by mutation samples


def test_a_json_reply_with_an_answer_and_no_explanation_is_read_as_json() -> None:
    reply = parse_reply('{"answer": "42", "final": true}')
    assert (reply.answer, reply.final, reply.parsed) == ("42", True, True)


def test_a_json_reply_with_no_answer_field_keeps_its_explanation() -> None:
    reply = parse_reply('{"explanation": "6 * 7 = 42, not yet the total.", "final": false}')
    assert reply == Reply("6 * 7 = 42, not yet the total.", None, "", False)


def test_a_prose_reply_is_kept_to_4000_characters_ending_where_a_sentence_ends() -> None:
    reply = parse_reply("We count 3 + 4 = 7 pens. " * 300)
    assert 3900 < len(reply.explanation) <= 4000 and not reply.parsed
    assert reply.explanation.endswith("= 7 pens. …")
    assert parse_reply("word " * 2000).explanation == "…"  # no sentence ends in reach


def test_a_prose_reply_is_read_for_its_answer_line_and_its_final_flag() -> None:
    # An answerer that ignores the JSON it was asked for still gives its answer.
    reply = parse_reply("**We add** 3 and 4: 3 + 4 = 7.\nAnswer: 7 apples\nFinal: yes")
    assert reply == Reply(
        "We add 3 and 4: 3 + 4 = 7. Answer: 7 apples Final: yes", "7", "", True, parsed=False
    )
    assert parse_reply("It is 3/4 of the cake.\nAnswer: 3/4", numeric=False).answer == "3/4"


@pytest.mark.parametrize(("quantities", "depth"), [(0, 3), (1, 3), (2, 3), (5, 6), (8, 9), (12, 9)])
def test_the_depth_is_one_step_per_quantity_and_the_answer_within_bounds(
    quantities: int, depth: int
) -> None:
    question = " ".join(f"Box {chr(65 + i)} holds {i + 3} apples." for i in range(quantities))
    domain = WordProblemDomain(WordProblem(f"{question} How many apples?", Fraction(0), id="q"))
    assert domain.depth() == depth


def test_a_missing_role_names_the_method_the_kind_and_the_roles() -> None:
    err = RolesMissing("tot", "crossword", ["propose", "value"])
    assert (err.method, err.kind, err.missing) == ("tot", "crossword", ("propose", "value"))
    assert str(err) == (
        "tot cannot solve crossword puzzles yet: the crossword domain has no propose, value prompts"
    )


def test_a_bare_value_counts_for_the_one_unknown_of_an_equation() -> None:
    problem = next(
        p for p in generate_algebra(1, 60) if p.form.value == "values" and len(p.variables) == 1
    )
    domain = WordProblemDomain(problem)
    (name,) = problem.variables
    value = problem.answer_text.split("=")[-1].strip()
    key = f"{name}={value}"
    assert domain.answer_key(problem.answer_text) == domain.answer_key(value) == key
    assert domain.answer_key(f"The answer is ({value})") == key


# ------------------------------------------------------------------ found by a larger draw


def test_a_system_asks_for_the_value_of_each_unknown_by_name() -> None:
    system = next(
        p for p in generate_algebra(1, 80) if p.form.value == "values" and len(p.variables) > 1
    )
    assert system.variables == ("x", "y")
    text = WordProblemDomain(system).prompt(Role.IO)[-1].content
    assert "The answer gives the value of each unknown, as x = ..., y = ...." in text


def test_the_step_prompt_lists_each_step_so_far_with_its_score_on_its_own_line() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    text = domain.prompt(Role.STEP, experience="", chain=[("3 + 4 = 7", 0.9), ("Answer: 7", 0.7)])
    assert "---\n3 + 4 = 7, Evaluation score: 0.9\nAnswer: 7, Evaluation score: 0.7\n---" in (
        text[-1].content
    )


def test_a_step_line_is_read_without_its_trailing_comma_or_semicolon() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    steps = domain.parse_steps("Step 1: 3 + 4 = 7;\nStep 2: 7 * 1 = 7,", domain.start())
    assert [s.text for s in steps] == ["3 + 4 = 7", "7 * 1 = 7"]


def test_a_step_that_only_states_the_answer_holds_as_stated() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    (step,) = domain.parse_steps("Answer: $1,200", domain.start())
    assert step.claim == Claim(
        "answer = $1,200",
        "$1,200",
        "$1,200",
        ClaimStatus.EXACT,
        Fraction(1200),
        Fraction(1200),
        "stated",
        (0, 0),
    )


def test_a_line_is_read_for_its_first_eight_claims_at_most() -> None:
    # A bound on the work one line costs: a ninth claim, even a wrong one, is not read.
    domain = WordProblemDomain(WordProblem("Count up. How many?", Fraction(9)))
    line = ", ".join(f"{n} + 1 = {n + 1}" for n in range(8)) + ", 8 + 1 = 10"
    (step,) = domain.parse_steps(line, domain.start())
    assert step.claim.ok and step.claim.lhs == "7 + 1"


def test_an_expression_answer_loses_only_its_closing_full_stop() -> None:
    from solver.domains.wordproblem import answer_text

    assert answer_text("2x + 3.", numeric=False) == "2x + 3"
    assert answer_text(" .5x ", numeric=False) == ".5x"


def test_a_json_reply_reads_reasoning_and_answer_to_query_under_their_other_names() -> None:
    reply = parse_reply('{"reasoning": "3 + 4 = 7", "answer": "7", "answer_to_query": true}')
    assert reply == Reply("3 + 4 = 7", "7", "", True)
    assert parse_reply("") == Reply("", None, "", False, parsed=False)


def test_a_step_with_a_wrong_claim_among_right_ones_is_judged_by_the_wrong_one() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    (step,) = domain.parse_steps("3 + 4 = 8, and 8 + 1 = 9", domain.start())
    assert not step.claim.ok and step.claim.lhs == "3 + 4" and "actually 7" in step.problem


def test_two_steps_are_as_similar_as_the_numbers_operators_and_words_they_share() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    assert domain.similarity("3 + 4 = 7 pens", "3 + 4 = 7 apples") == 0.8  # 4 of 5 shared
    assert domain.similarity("3 + 4 = 7", "3 + 4 = 7 pens") == 0.8  # of the longer
    assert domain.similarity("3 + 4 = 7", "...") == 0.0


def test_algebra_answers_vote_by_their_values_or_their_expanded_expression() -> None:
    problems = generate_algebra(1, 80)
    one = next(p for p in problems if p.form.value == "values" and len(p.variables) == 1)
    assert WordProblemDomain(one).answer_key("(7)") == "x=7"
    assert WordProblemDomain(one).answer_key("x = 7.") == "x=7"
    assert WordProblemDomain(one).answer_key("X7") is None  # no value: a letter glued to it
    two = next(p for p in problems if p.form.value == "values" and len(p.variables) == 2)
    assert WordProblemDomain(two).answer_key("y = 2, x = -1") == "x=-1, y=2"
    expression = next(p for p in problems if p.form.value == "expression")
    assert WordProblemDomain(expression).answer_key("(x - 1)(x - 5)") == "x**2 - 6*x + 5"


def test_the_public_context_names_the_question_topic_and_level_never_the_answer() -> None:
    problem = WordProblem(
        "Ann has 3 pens and buys 4. How many?", Fraction(7), id="q", topic="t", level="1"
    )
    domain = WordProblemDomain(problem)
    assert domain.context(domain.start(), turn=1) == {
        "kind": "wordproblem",
        "id": "q",
        "question": "Ann has 3 pens and buys 4. How many?",
        "topic": "t",
        "level": "1",
        "steps": [],
        "turn": 1,
    }


def test_reacts_system_message_lists_its_tools() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    system = domain.prompt(Role.ACT, steps=(), step=1, limit=8)[0]
    assert system.role == "system" and "{tools}" not in system.content
    assert "calculate[" in system.content and "solve[" in system.content


def test_a_replayed_chain_keeps_the_answer_it_states() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    (first,) = domain.parse_steps("3 + 4 = 7", domain.start())
    assert first.state is not None
    (last,) = domain.parse_steps("Answer: 7", first.state)
    assert last.state is not None
    state, _reason, ok = domain.replay([first.state, last.state])
    assert state is not None and state.answer == "7" and ok


def test_an_iot_turn_keeps_the_answerers_final_flag() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    turn = domain.turn("Check it.", Reply("3 + 4 = 7", "7", "none", True))
    assert (turn.answer, turn.final) == ("7", True)


def test_the_io_prompt_ends_where_the_answer_is_to_be_written() -> None:
    domain = WordProblemDomain(WordProblem("Ann has 3 pens and buys 4. How many?", Fraction(7)))
    assert domain.prompt(Role.IO)[-1].content.endswith(
        "Question: Ann has 3 pens and buys 4. How many?\nAnswer:"
    )


def test_a_decimal_at_the_head_of_a_step_is_no_list_number() -> None:
    text = "1.5 * 4 = 6 hours\n2. 2.5 * 2 = 5 miles\n3) 0.25 * 8 = 2"
    steps = DOMAIN.parse_steps(text, Work())
    assert [s.text for s in steps] == ["1.5 * 4 = 6 hours", "2.5 * 2 = 5 miles", "0.25 * 8 = 2"]
    assert all(s.valid for s in steps)
