"""Issue 9: BoT and ToT as their papers run them (``paper``), leaf-wise growth, experience
that keeps the analysis' error reports, ToT's answer call, per-iteration success."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TypeVar

import pytest

from puzzles.game24 import Hand
from solver.bench import BenchResult, PuzzleResult
from solver.domains import game24 as g24
from solver.domains.base import Claiming
from solver.domains.game24 import ClaimedState, Game24Domain
from solver.events import (
    ClaimVerified,
    Event,
    ExperienceAdded,
    LeafReached,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
    TreeStarted,
)
from solver.methods import METHODS, solve
from solver.methods.bot import BoT, BoTConfig
from solver.methods.tot import ToT, ToTConfig
from solver.model import Call, ScriptedModel
from solver.model.offline import OfflineModel
from tests.solver.game24_replies import bot_text, numbers_of, sum_and_product

E = TypeVar("E", bound=Event)


def of(events: Sequence[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


# ------------------------------------------------------------------ leaf-wise growth


async def test_leaf_wise_and_layer_wise_trees_differ_on_the_same_seed() -> None:
    hand = Hand.parse("4 5 6 10")

    async def trees(growth: str) -> dict[str, list[ThoughtAdded]]:
        _, events = await solve(
            BoT(BoTConfig(iterations=1, trees=3, growth=(growth,))),
            Game24Domain(hand),
            OfflineModel(seed=3),
            seed=3,
        )
        assert {t.strategy for t in of(events, TreeStarted)} == {growth}
        out: dict[str, list[ThoughtAdded]] = {}
        for e in of(events, ThoughtAdded):
            out.setdefault(e.tree_id, []).append(e)
        return out

    layer, leaf = await trees("layer"), await trees("leaf")
    shape = {t: sorted((n.depth, n.text) for n in nodes) for t, nodes in layer.items()}
    assert shape != {t: sorted((n.depth, n.text) for n in nodes) for t, nodes in leaf.items()}
    for nodes in leaf.values():
        # Deeper than wide: the best branch reaches the depth limit, the first layer is
        # never fully grown, and fewer nodes than the whole binary tree.
        assert max(n.depth for n in nodes) == 3
        assert len(nodes) < 2 + 4 + 8
        parents = {n.parent_id for n in nodes if n.depth == 2}
        assert len(parents) == 1
    assert sum(len(n) for n in leaf.values()) < sum(len(n) for n in layer.values())


def test_leaf_stops_is_an_option_with_the_reference_default() -> None:
    names = {o.name: o.default for o in METHODS["bot"].options()}
    assert names["leaf_stops"] == 4 and names["paper"] is False
    assert {o.name: o.default for o in METHODS["tot"].options()}["paper"] is False
    assert "--paper" in {o.flag for o in METHODS["tot"].options()}


# ------------------------------------------------------------------ the claimed state


def test_the_domain_reads_the_state_the_model_claims() -> None:
    domain = Game24Domain(Hand.parse("2 3 4"))
    assert isinstance(domain, Claiming)
    start = domain.start()
    (step,) = domain.parse_steps(bot_text("2 3 4", "2", "*", "3", "7", "4", "4 7", 0.9), start)
    assert not step.valid  # 2 * 3 is 6
    claimed = domain.claimed(step, start)
    assert isinstance(claimed, ClaimedState) and claimed.numbers == (Fraction(4), Fraction(7))
    # Without a left: list: the numbers less the two used, plus the claimed result.
    (line,) = domain.parse_steps("2 * 3 = 7", start)
    assert domain.claimed(line, start) == claimed
    assert domain.claimed_line(line, claimed) == "2 * 3 = 7 (left: 4 7)"
    # A wrong step stands as its claimed number in the expression: it never checks.
    (nxt,) = domain.parse_steps("4 * 7 = 28 (left: 28)", claimed)
    final = domain.claimed(nxt, claimed)
    assert final is not None and domain.answer_of(final) == "4 * 7 = 28"
    assert not domain.check(domain.answer_of(final)).ok
    # A right chain's claimed expression is the real one.
    (ok1,) = domain.parse_steps("2 * 3 = 6 (left: 4 6)", start)
    s1 = domain.claimed(ok1, start)
    assert s1 is not None
    (ok2,) = domain.parse_steps("6 * 4 = 24 (left: 24)", s1)
    s2 = domain.claimed(ok2, s1)
    assert s2 is not None and domain.answer_of(s2) == "2 * 3 * 4 = 24"
    assert domain.replay_claimed([s1, s2])[2]


HOLE = (
    "Step 2, Current set: 4 6, Two numbers selected: 6 4, Operation: *, New number "
    "calculated: 23, Remaining numbers: none, New set: 23, Evaluation score: 0.9"
)


@pytest.mark.parametrize("config", [BoTConfig(paper=True), BoTConfig(verify_steps=False)])
async def test_a_wrong_result_never_becomes_the_exact_state_with_verification_off(
    config: BoTConfig,
) -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return {
                "2 3 4": bot_text("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.9),
                "4 6": HOLE,
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.9"
        return "Analysis Report: it reaches 24.\nConfidence score: 1.0"

    # The state mechanism alone: no confident leaf (the 0.9, 0.9 steps would end at depth 1)
    # and the answer from the chain, not the final prompt.
    cfg = BoTConfig(
        iterations=1,
        trees=1,
        children=1,
        paper=config.paper,
        verify_steps=config.verify_steps,
        confident_leaf=False,
        final_prompt=False,
    )
    fin, events = await solve(BoT(cfg), Game24Domain(Hand.parse("2 3 4")), ScriptedModel(replies))
    states = [e.state for e in of(events, ThoughtAdded)]
    assert states == ["4 6", "23"]  # the model's 23, never the exact 24
    wrong = [c for c in of(events, ClaimVerified) if not c.ok]
    assert [(c.expression, c.claimed, c.exact, c.mark) for c in wrong] == [
        ("6 * 4", "23", "24", "✗")
    ]
    assert not of(events, SolutionFound)
    (exp,) = of(events, ExperienceAdded)
    assert not exp.chain_ok and "23" in exp.verdict
    assert not fin.solved and fin.answer is not None and "23" in fin.answer


async def test_paper_mode_carries_a_wrong_step_into_its_childs_state() -> None:
    seen: list[str] = []

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            seen.append(numbers_of(call))
            return {
                "2 3 4": bot_text("2 3 4", "2", "*", "3", "7", "4", "4 7", 0.9),
                # 7 * 4 is 28; the model says 24 and claims the target.
                "4 7": bot_text("4 7", "7", "*", "4", "24", "none", "24", 0.9),
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.7"
        return "Analysis Report: it reaches 24.\nConfidence score: 1.0"

    model = ScriptedModel(replies)
    fin, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, children=1, paper=True)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    assert seen == ["2 3 4", "4 7"]  # the child grows from the model's own 4 7
    # The analysis is shown the chain as the model wrote it, each step numbered by its depth.
    (analysed,) = [c for c in model.calls if c.purpose == "bot_feedback"]
    shown = analysed.messages[-1].content
    assert (
        "Step 1, Current set: 2 3 4, Two numbers selected: 2 3, Operation: *, New number "
        "calculated: 7, Remaining numbers: 4, New set: 4 7\n" in shown
    )
    assert (
        "Step 2, Current set: 4 7, Two numbers selected: 7 4, Operation: *, New number "
        "calculated: 24, Remaining numbers: none, New set: 24\n" in shown
    )
    first, second = of(events, ThoughtAdded)
    assert (first.state, second.state, second.parent_id) == ("4 7", "24", first.node_id)
    # The tree pane shows each step as the model wrote it, wrong result and all.
    assert (first.text, second.text) == ("2 * 3 = 7 (left: 4 7)", "7 * 4 = 24 (left: 24)")
    marks = {(c.node_id, c.expression): c.mark for c in of(events, ClaimVerified)}
    assert marks[(first.node_id, "2 * 3")] == "✗" and marks[(second.node_id, "7 * 4")] == "✗"
    # The steps were scored by the model (not cut by the verifier) ...
    assert [e.edge_score for e in of(events, ThoughtScored)] == [0.7, 0.7]
    # ... and the claimed 24 is no solution: the exact check of its expression decides.
    assert not of(events, SolutionFound)
    # The false claim ends its own branch: the leaf is the node that claimed 24.
    leaves = [(e.node_id, e.reason) for e in of(events, LeafReached)]
    assert [n for n, r in leaves if r.startswith("claims the target, but")] == [second.node_id]
    assert not fin.solved


async def test_paper_mode_solves_with_a_right_chain() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return {
                "2 3 4": bot_text("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.9),
                "4 6": bot_text("4 6", "4", "*", "6", "24", "none", "24", 0.9),
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.9"
        return "Analysis Report: it reaches 24.\nConfidence score: 1.0"

    # The chain as the answer (z^T) and no confident leaf: the state mechanism alone.
    config = BoTConfig(
        iterations=1, trees=1, children=1, paper=True, confident_leaf=False, final_prompt=False
    )
    fin, events = await solve(
        BoT(config), Game24Domain(Hand.parse("2 3 4")), ScriptedModel(replies)
    )
    assert len(of(events, SolutionFound)) == 1
    assert fin.solved and fin.answer == "4 * 2 * 3 = 24"


# ------------------------------------------------------------------ ToT


def tot_replies(call: Call) -> Iterable[str] | str:
    if call.purpose == "propose":
        return {
            "2 3 4": "2 * 3 = 7 (left: 4 7)\n2 + 3 = 5 (left: 4 5)",
            "4 7": "4 * 7 = 28 (left: 28)",
            "4 5": "4 * 5 = 20 (left: 20)",
        }[numbers_of(call)]
    if call.purpose == "value":
        return "likely"
    raise AssertionError(call.purpose)


@pytest.mark.parametrize("paper", [False, True])
async def test_tot_values_proposals_that_fail_the_check_only_in_paper_mode(paper: bool) -> None:
    model = ScriptedModel(tot_replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=2, value_samples=1, paper=paper)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    valued = [c.messages[-1].content.splitlines()[-1] for c in model.calls if c.purpose == "value"]
    pruned = [e.reason for e in of(events, ThoughtPruned)]
    if paper:
        assert "4 7" in valued and not pruned  # the model's own 4 7 is valued and grown
        assert "4 7" in [numbers_of(c) for c in model.calls if c.purpose == "propose"]
    else:
        assert "4 7" not in valued and pruned == ["invalid step: ✗ 2 * 3 = 7 (actually 6)"]
    assert not fin.solved


async def test_tot_in_paper_mode_asks_its_answer_from_the_steps_as_the_model_wrote_them() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "propose":  # 2 * 3 is 6, not 7; 4 * 7 is 28, not 24
            return {"2 3 4": "2 * 3 = 7 (left: 4 7)", "4 7": "4 * 7 = 24 (left: 24)"}[
                numbers_of(call)
            ]
        if call.purpose == "value":
            return "sure"
        if call.purpose == "answer":
            return "Answer: (2 * 3) * 4 = 24"
        raise AssertionError(call.purpose)

    model = ScriptedModel(replies)
    await solve(
        ToT(ToTConfig(breadth=1, value_samples=1, paper=True)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    (answer,) = [c.messages[-1].content for c in model.calls if c.purpose == "answer"]
    assert "2 * 3 = 7 (left: 4 7)\n4 * 7 = 24 (left: 24)" in answer


async def test_tot_asks_no_answer_for_one_number_that_is_not_the_target() -> None:
    model = ScriptedModel(tot_replies)
    fin, events = await solve(
        ToT(ToTConfig(breadth=1, value_samples=1)), Game24Domain(Hand.parse("2 3 4")), model
    )
    # propose, value (2 + 3, as 2 * 3 = 7 is pruned), propose, value: no answer, no judge.
    assert [c.purpose for c in model.calls] == ["propose", "value", "propose", "value"]
    assert fin.answer is None and not fin.solved
    assert [e.reason for e in of(events, LeafReached)] == ["one number left, not the target"]


# ------------------------------------------------------------------ experience


FEEDBACK = (
    "Analysis Report: the chain ends at 20, not 24.\n"
    "Step 1: 2 + 3 gives 5, which leads nowhere. Advice: multiply 2 by 3 instead. "
    "Recommendation or Reject: Reject.\n"
    "Step 2: 4 * 5 is 20, not 24. Advice: try 4 * 6. Recommendation or Reject: Reject.\n"
    "Confidence score: 0.3"
)


async def test_experience_keeps_error_reports_and_is_the_text_the_next_prompt_carries() -> None:
    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return {
                "2 3 4": bot_text("2 3 4", "2", "+", "3", "5", "4", "4 5", 0.5),
                "4 5": bot_text("4 5", "4", "*", "5", "20", "none", "20", 0.5),
            }[numbers_of(call)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.5"
        return FEEDBACK

    model = ScriptedModel(replies)
    _, events = await solve(
        BoT(BoTConfig(iterations=3, trees=1, children=1)),
        Game24Domain(Hand.parse("2 3 4")),
        model,
    )
    first, second, third = of(events, ExperienceAdded)
    assert first.analysis == ("2 + 3 gives 5, which leads nowhere", "4 * 5 is 20, not 24")
    # The entry is the chain, each step with the score the model gave it, and the analysis
    # exactly as the model wrote it.
    assert first.entry.endswith("---\n" + FEEDBACK)
    assert "New set: 4 5, Evaluation score: 0.5\n" in first.entry
    roots = [
        c.messages[-1].content
        for c in model.calls
        if c.purpose == "bot_step" and not c.context["chain"]
    ]
    assert len(roots) == 3
    # What the pane is given is what the next prompt carries, word for word.
    assert first.entry in roots[1] and first.entry in roots[2]
    # The same chain and analysis come back: left out, never rewritten.
    assert (second.entry, second.repeat_of) == ("", 1)
    assert (third.entry, third.repeat_of) == ("", 1)
    assert roots[2].count("2 + 3 gives 5") == 1
    assert "1. Reasoning chain" in roots[2] and "2. " not in roots[2]


# ------------------------------------------------------------------ per-iteration success


def test_success_by_iteration_is_each_iterations_own_not_cumulative() -> None:
    def run(by: tuple[bool, ...]) -> PuzzleResult:
        return PuzzleResult("1 2 3 4", by[-1] if by else False, None, 1, 1, None, 0.1, 1,
                            solved_by_iteration=by)  # fmt: skip

    bench = BenchResult(
        "bot", {}, [run((True, False, False)), run((False, True, False)), run((False,)), run(())]
    )
    assert bench.cumulative_by_iteration() == [1 / 4, 2 / 4, 2 / 4]
    assert bench.success_by_iteration() == [1 / 4, 1 / 4, 0.0]
    assert bench.to_json()["success_by_iteration"] == [0.25, 0.25, 0.0]


def test_feedback_parser_keeps_the_per_step_analysis() -> None:
    fb = g24.parse_feedback(FEEDBACK, 2)
    assert fb.analysis == ("2 + 3 gives 5, which leads nowhere", "4 * 5 is 20, not 24")
    assert fb.advice == ("multiply 2 by 3 instead", "try 4 * 6")


async def test_a_leaf_wise_tree_ends_at_its_first_solution() -> None:
    model = ScriptedModel(sum_and_product)
    _, events = await solve(
        BoT(BoTConfig(iterations=1, trees=1, growth=("leaf",))),
        Game24Domain(Hand.parse("1 2 3 4")),
        model,
    )
    # 1 + 2, then 3 + 3, then 4 * 6 = 24: the reference code's early stop of a tree.
    assert len(of(events, SolutionFound)) == 1
    assert len(of(events, ThoughtAdded)) == 2 + 2 + 2
    assert len([c for c in model.calls if c.purpose == "bot_step"]) == 3


@pytest.mark.parametrize("homogeneous", [False, True])
async def test_homogeneous_trees_share_one_draw(homogeneous: bool) -> None:
    _, events = await solve(
        BoT(BoTConfig(iterations=2, trees=6, depth=1, homogeneous=homogeneous)),
        Game24Domain(Hand.parse("4 5 6 10")),
        OfflineModel(seed=2),
        seed=2,
    )
    draws = {(t.strategy, t.temperature, t.top_p) for t in of(events, TreeStarted)}
    assert len(of(events, TreeStarted)) == 12
    assert (len(draws) == 1) is homogeneous
