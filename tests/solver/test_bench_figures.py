"""The benchmark's figures, computed from hand-made results whose right values are known."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from puzzles.crossword import generate as generate_crossword
from puzzles.game24 import Hand
from solver.bench import BenchResult, PuzzleResult, run_bench, run_one
from solver.domains.crossword import CrosswordDomain
from solver.methods.baselines import IO
from solver.methods.bot import BoT, BoTConfig
from solver.model import Call, Generation, ModelError, ScriptedModel, TokenCallback


def result(
    hand: str,
    solved: bool,
    calls: int,
    tokens: int,
    cost: float | None,
    wall_time: float,
    by_iteration: tuple[bool, ...] = (),
    error: str = "",
) -> PuzzleResult:
    return PuzzleResult(
        hand,
        solved,
        "(7 - 8 / 8) * 4" if solved else None,
        calls,
        tokens,
        cost,
        wall_time,
        rounds=calls // 2,
        error=error,
        solved_by_iteration=by_iteration,
        error_kind=error.split(":")[0],
    )


FIVE = [
    # solved at iteration 2 (and still at 3)
    result("4 7 8 8", True, 10, 1000, 0.01, 1.0, (False, True, True)),
    # never solved, two iterations
    result("1 1 4 6", False, 20, 3000, 0.02, 3.0, (False, False)),
    # a server error ended it before any iteration
    result("2 7 8 9", False, 2, 100, 0.0, 0.5, (), "rate_limited: slow down"),
    # solved at iteration 1
    result("3 4 6 9", True, 8, 500, 0.03, 1.5, (True,)),
    # never solved, three iterations
    result("1 2 3 4", False, 0, 0, 0.0, 0.0, (False, False, False)),
]


def test_figures_of_a_set_of_five() -> None:
    bench = BenchResult("bot", {"iterations": 3}, list(FIVE), wall_time=4.0)
    assert bench.n == 5 and bench.solved == 2 and bench.completed == 4
    assert bench.success_rate == 2 / 5  # the errored run counts as not solved
    assert bench.completed_success_rate == 2 / 4  # ... or is left out
    assert bench.errors == 1
    # Share solved by the chain of iteration 1, 2, 3 or earlier; short runs keep their last.
    assert bench.cumulative_by_iteration() == [1 / 5, 2 / 5, 2 / 5]
    assert bench.mean("calls") == 8.0 and bench.mean("tokens") == 920.0
    assert bench.mean("wall_time") == pytest.approx(1.2)
    assert bench.cost == pytest.approx(0.06)
    data = bench.to_json()
    assert data == {
        "method": "bot",
        "config": {"iterations": 3},
        "puzzles": 5,
        "success_rate": 0.4,
        "completed_success_rate": 0.5,
        "solved": 2,
        "completed": 4,
        "mean_calls": 8.0,
        "mean_tokens": 920.0,
        "cost": pytest.approx(0.06),
        "mean_wall_time": pytest.approx(1.2),
        "wall_time": 4.0,
        "errors": 1,
        "cumulative_by_iteration": [0.2, 0.4, 0.4],
        "success_by_iteration": [0.2, 0.4, 0.4],
        "stops": {},
        "stopped_by": {},
    }


def test_figures_move_with_the_results() -> None:
    # Not constants: other results, other figures.
    late = [
        result("4 7 8 8", False, 4, 40, None, 1.0, (False, False, True)),
        result("1 1 4 6", True, 6, 60, 0.5, 2.0, (False, True)),
        result("2 7 8 9", False, 1, 10, 0.0, 0.1, (), "timeout: too slow"),
        result("3 4 6 9", False, 1, 10, 0.0, 0.1, (), "server: 500"),
    ]
    bench = BenchResult("bot", {}, late)
    assert bench.success_rate == 1 / 4
    assert bench.completed_success_rate == 1 / 2
    assert bench.errors == 2
    assert bench.cumulative_by_iteration() == [0.0, 1 / 4, 2 / 4]
    assert bench.cost is None  # one run's cost is unknown: the total is too
    assert bench.mean("calls") == 3.0


def test_figures_of_nothing() -> None:
    empty = BenchResult("io", {})
    assert empty.success_rate == 0.0 and empty.completed_success_rate is None
    assert empty.cumulative_by_iteration() == [] and empty.errors == 0
    assert empty.mean("calls") == 0.0
    every_run_failed = BenchResult(
        "io", {}, [result("4 7 8 8", False, 1, 5, 0.0, 0.1, (), "auth: no")]
    )
    assert every_run_failed.success_rate == 0.0
    assert every_run_failed.completed_success_rate is None


# ------------------------------------------------------------------ what a run records

STEP = (
    "Step 1, Current set: {state}, Two numbers selected: {a} {b}, Operation: {op}, "
    "New number calculated: {c}, Remaining numbers: {rest}, New set: {after}, "
    "Evaluation score: 0.9"
)
RIGHT = (  # 2 * 3 = 6, 6 * 4 = 24
    STEP.format(state="2 3 4", a=2, b=3, op="*", c=6, rest="4", after="4 6"),
    STEP.format(state="4 6", a=6, b=4, op="*", c=24, rest="none", after="24"),
)
WRONG = (  # 2 + 3 = 5, 5 * 4 = 20
    STEP.format(state="2 3 4", a=2, b=3, op="+", c=5, rest="4", after="4 5"),
    STEP.format(state="4 5", a=5, b=4, op="*", c=20, rest="none", after="20"),
)


def alternating(call: Call) -> Iterable[str] | str:
    """Iteration 1 and 3 take the wrong chain, iteration 2 the right one (an iteration is
    told by the number of experience entries in its prompt)."""
    prompt = call.messages[-1].content
    if call.purpose == "bot_step":
        entries = prompt.count("Reasoning chain and comments")
        chain = RIGHT if entries == 1 else WRONG
        return chain[len(call.context["chain"])]
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.9"
    return "Analysis Report: checked.\nConfidence score: 0.5"


async def test_a_run_records_which_iterations_chain_was_right() -> None:
    res = await run_one(
        BoT(BoTConfig(iterations=3, trees=1, children=1)),
        Hand.parse("2 3 4"),
        ScriptedModel(alternating),
        seed=0,
    )
    assert res.solved_by_iteration == (False, True, False)
    assert not res.solved and res.answer == "(2 + 3) * 4 = 20" and res.completed
    assert BenchResult("bot", {}, [res]).cumulative_by_iteration() == [0.0, 1.0, 1.0]


async def test_stopping_early_counts_the_iteration_that_found_the_answer() -> None:
    # Iteration 1 takes the wrong chain and is analysed; iteration 2 finds 24 and stops at
    # once, before any analysis: it is still the iteration that solved the hand.
    res = await run_one(
        BoT(BoTConfig(iterations=3, trees=1, children=1, stop_early=True)),
        Hand.parse("2 3 4"),
        ScriptedModel(alternating),
        seed=0,
    )
    assert res.solved and res.solved_by_iteration == (False, True)
    assert BenchResult("bot", {}, [res]).success_by_iteration() == [0.0, 1.0]


class FailsOn:
    """Scripted replies, except for one hand, where the server refuses every call."""

    name = "fails-on"

    def __init__(self, hand: str) -> None:
        self.hand = hand
        self.inner = ScriptedModel(alternating)

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        if f"The numbers are: {self.hand}." in call.messages[-1].content:
            raise ModelError("rate_limited", "slow down")
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        return None


async def test_the_errors_column_counts_runs_a_model_error_ended() -> None:
    hands = [Hand.parse(h) for h in ("2 3 4", "2 3 5", "3 4 2")]
    (bench,) = await run_bench(
        [BoT(BoTConfig(iterations=2, trees=1, children=1))], hands, lambda: FailsOn("2 3 5")
    )
    assert [p.hand for p in bench.puzzles] == ["2 3 4", "2 3 5", "3 4 2"]
    failed = bench.puzzles[1]
    assert failed.error == "rate_limited: slow down" and failed.error_kind == "rate_limited"
    assert failed.solved_by_iteration == () and not failed.solved
    assert bench.errors == 1 and bench.completed == 2
    assert [p.solved_by_iteration for p in bench.puzzles] == [(False, True), (), (False, True)]
    assert bench.cumulative_by_iteration() == [0.0, 2 / 3]


def test_iot_stop_turns_and_reasons_are_counted_per_run() -> None:
    from solver.bench import BenchResult, PuzzleResult

    def run(turn: int, by: str) -> PuzzleResult:
        return PuzzleResult(
            "1 2 3 4", False, None, 2 * turn, 0, 0.0, 0.1, 2 * turn, "", (), "", turn, by
        )

    result = BenchResult(
        "aiot", {}, [run(2, "answerer"), run(1, "guide"), run(2, "answerer"), run(10, "cap")]
    )
    assert result.stops() == {1: 1, 2: 2, 10: 1}
    assert list(result.stops()) == [1, 2, 10]
    assert result.stopped_by() == {"answerer": 2, "guide": 1, "cap": 1}
    assert result.to_json()["stops"] == {"1": 1, "2": 2, "10": 1}


def test_a_result_read_back_from_json_keeps_every_field() -> None:
    for original in FIVE:
        back = PuzzleResult.from_json(json.loads(json.dumps(original.to_json())))
        assert back == original
    assert PuzzleResult.from_json(FIVE[0].to_json()).solved_by_iteration == (False, True, True)


async def test_a_crossword_bench_keeps_tots_letter_and_word_measures_per_run() -> None:
    first, second = generate_crossword(5), generate_crossword(1)
    assert first.solution == ("ACRES", "TROLL", "TABOO", "INEPT", "CEDES")
    # Three rows right of the first (15 of 25 letters; 3 of 10 words: no column is whole),
    # all of the second.
    model = ScriptedModel(
        [
            "Output:\nACRES\nTROLL\nTABOO\nXXXXX\nXXXXX",
            "Output:\n" + "\n".join(second.solution),
        ]
    )
    puzzles: list[Any] = [first, second]  # any kind's puzzles, with its domain
    (bench,) = await run_bench([IO()], puzzles, lambda: model, domain_for=CrosswordDomain)
    assert [(p.letter, p.word, p.solved) for p in bench.puzzles] == [
        (0.6, 0.3, False),
        (1.0, 1.0, True),
    ]
    assert bench.measures() == {"letter": 0.8, "word": 0.65, "game": 0.5}


class Recording:
    """The offline engine, noting the sampling of every call (BoT draws each tree's)."""

    name = "recording"

    def __init__(self, seen: list[tuple[float, float]]) -> None:
        from solver.model.offline import OfflineModel

        self.inner, self.seen = OfflineModel(seed=0), seen

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        self.seen.append((call.sampling.temperature, call.sampling.top_p))
        return await self.inner.generate(call, on_token)

    async def aclose(self) -> None:
        return None


async def test_a_bench_is_seeded_from_zero_unless_told_otherwise() -> None:
    hands = [Hand.parse(h) for h in ("2 3 4", "1 5 6")]

    async def samplings(seed: int | None = None) -> list[tuple[float, float]]:
        seen: list[tuple[float, float]] = []
        method = BoT(BoTConfig(iterations=1, trees=3, children=1))
        if seed is None:
            await run_bench([method], hands, lambda: Recording(seen))
        else:
            await run_bench([method], hands, lambda: Recording(seen), seed=seed)
        return seen

    default = await samplings()
    assert default == await samplings(0)
    assert default != await samplings(1)
