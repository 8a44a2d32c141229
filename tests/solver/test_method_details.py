"""Details of CoT-SC and ToT that mutation testing showed no test noticed: what a CoT-SC call
carries, what a run with no readable answer reports, and which value event a shared value
comes from."""

from __future__ import annotations

from puzzles.game24 import Hand
from solver.domains.game24 import Game24Domain
from solver.events import ThoughtScored
from solver.methods import solve
from solver.methods.baselines import CoTSC, CoTSCConfig
from solver.methods.tot import ToT, ToTConfig
from solver.model import Call, ScriptedModel


async def test_cot_sc_calls_carry_the_puzzles_context() -> None:
    domain = Game24Domain(Hand.parse("4 7 8 8"))
    model = ScriptedModel(["Answer: (7 - 8 / 8) * 4 = 24"])
    await solve(CoTSC(CoTSCConfig(samples=3, batch=2)), domain, model)
    assert [c.context for c in model.calls] == [domain.context(domain.start())] * 2


async def test_cot_sc_without_a_readable_answer_still_reports_its_samples() -> None:
    model = ScriptedModel(["I could not find one.", "Answer: 4 * 8 - 7 - 8 +"])
    fin, _ = await solve(
        CoTSC(CoTSCConfig(samples=4, batch=4)), Game24Domain(Hand.parse("4 7 8 8")), model
    )
    assert fin.answer is None and not fin.solved
    assert (fin.samples, fin.samples_solved, fin.votes) == (4, 0, 0)


def _two_ways_to_four_four(call: Call) -> str:
    """From 2 2 4, two proposals leave the same numbers (4 4); everything else is valued."""
    if call.purpose == "propose":
        return "2 + 2 = 4 (left: 4 4)\n2 * 2 = 4 (left: 4 4)"
    return "sure"


async def test_a_shared_value_names_no_call_of_its_own() -> None:
    _, events = await solve(
        ToT(ToTConfig(breadth=2, steps=1, value_samples=1)),
        Game24Domain(Hand.parse("2 2 4")),
        ScriptedModel(_two_ways_to_four_four),
    )
    scored = [e for e in events if isinstance(e, ThoughtScored)]
    assert len(scored) == 2 and scored[0].score == scored[1].score
    # One value call for the two states: the first names it, the one that shared it none.
    assert isinstance(scored[0].call_id, int) and scored[1].call_id is None
