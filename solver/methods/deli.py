"""DELI (Zhang et al. 2023, "Evaluating and Improving Tool-Augmented Computation-Intensive
Math Reasoning"): iterative deliberation with tools and in natural language.

A first step-by-step solution is written with retrieved examples, as the paper's start
(§3.1, App. D): the ``demonstrations`` solved problems whose questions are nearest the
problem's by BM25 (the reference code: 8), from a pool of worked solutions the domain keeps
(word problems: ponder's own generated problems, never a test set), shown in place of the
domain's fixed examples and reported before the call. It is then deliberated in turns, each
of two stages:

1. **tool**: the model rewrites the solution as tool calls (equations solved by sympy,
   arithmetic computed exactly), one ``Action i:`` per reply, cut at ``Output i:`` so that
   every output comes from the tool, until it writes ``Final Answer:``;
2. **language**: the model revises its prose solution against that verification; where the
   two differ, the verification wins.

It stops when the two stages' answers agree, when neither stage changed (converged), or at
the turn cap (3, the paper's), where the answer is the last tool stage's. Every stage's
answer is checked exactly beside the model's own, and every arithmetic claim is verified.
``paper`` runs with the reference code's limits where none is given: 15 tool calls a tool
stage and 10 s a tool call (ponder's own: 6 and 5 s).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Demonstration, Domain, Retrieving
from solver.events import (
    DeliberationEnded,
    DeliberationStage,
    DemonstrationsRetrieved,
    IterationStarted,
    ToolCalled,
    ToolObserved,
)
from solver.methods.base import Outcome, RunContext
from solver.methods.react import run_tool
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role
from solver.tools import format_trajectory, parse_action, parse_final

__all__ = ["DELI", "DELIConfig"]


@dataclass(frozen=True)
class DELIConfig:
    """DELI settings; defaults are the paper's (3 turns, 8 retrieved examples, greedy), but
    for the tool stage's limits, which are the paper's under ``paper``."""

    turns: int = option(3, "most deliberation turns", low=1, high=50, app=True)
    """The turn cap (the paper: 3)."""
    demonstrations: int = option(
        8,
        "solved problems retrieved by BM25 as examples for the first solution (0: the fixed "
        "examples)",
        low=0,
        high=32,
    )
    """Examples retrieved for the first solution, question to question (the reference code's
    ``--num_demos``: 8); 0 shows the domain's fixed examples instead."""
    tool_steps: int = option(6, "most tool calls in one tool stage", low=1, high=50, paper=15)
    """Tool calls one tool stage may make (the reference code's ``max_steps``: 15)."""
    tool_limit: float = option(
        5.0, "seconds a tool call may run before it is stopped", low=0.05, high=600, paper=10.0
    )
    """Each tool call's time limit, enforced in a separate process (the reference code: 10 s)."""
    paper: bool = option(
        False,
        "run with the reference code's limits where none is given: 15 tool calls a tool "
        "stage, 10 s a tool call",
    )
    """The paper's limits (the reference code's ``max_steps`` 15 and its 10 s timeout) for
    the options not given; set through the method catalogue (``make_method``, ``--paper``),
    which fills them in."""
    temperature: float = 0.0
    """Greedy (the paper: temperature 0, top_p 1)."""
    max_tokens: int = 600
    """Longest reply (the reference code: 512)."""


class DELI:
    """Tool deliberation and prose deliberation, in turns, until they agree."""

    name = "deli"

    def __init__(self, config: DELIConfig | None = None) -> None:
        self.config = config or DELIConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    def _sampling(self, stop: tuple[str, ...] = ()) -> Sampling:
        return Sampling(self.config.temperature, 1.0, 1, self.config.max_tokens, stop=stop)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        ctx.emit(IterationStarted(0, cfg.turns, "initial solution"))
        demonstrations = await self._retrieve(domain, ctx)
        examples = {"demonstrations": demonstrations} if demonstrations else {}
        gen, call_id = await ctx.call(
            Call(
                Purpose.DELI_INIT,
                domain.prompt(Role.COT, **examples),
                self._sampling(),
                domain.context(domain.start()),
            )
        )
        solution = gen.text
        nl_answer = None if gen.cut(0) else domain.parse_answer(solution)
        self._stage(domain, ctx, 0, "language", solution, nl_answer, None, call_id, gen.cut(0))
        tool_answer: str | None = None
        previous_trace: str | None = None
        previous_tool: str | None = None
        step_base = 0
        for turn in range(1, cfg.turns + 1):
            ctx.emit(IterationStarted(turn, cfg.turns, f"turn {turn}"))
            trace, tool_answer, step_base = await self._tool_stage(domain, ctx, solution, step_base)
            self._stage(domain, ctx, turn, "tool", trace, tool_answer, previous_tool, None)
            gen, call_id = await ctx.call(
                Call(
                    Purpose.DELI_REVISE,
                    domain.prompt(
                        Role.REVISE, solution=solution, verification=trace, tool_answer=tool_answer
                    ),
                    self._sampling(),
                    domain.context(domain.start(), turn=turn),
                )
            )
            revised = gen.text
            new_answer = None if gen.cut(0) else domain.parse_answer(revised)
            self._stage(
                domain, ctx, turn, "language", revised, new_answer, nl_answer, call_id, gen.cut(0)
            )
            if _same(domain, new_answer, tool_answer):
                ctx.emit(
                    DeliberationEnded(turn, "agree", "the tool and prose answers agree", "tool")
                )
                return Outcome(tool_answer, "answers agree")
            if trace == previous_trace and revised == solution:
                source = "tool" if tool_answer is not None else "language"
                ctx.emit(DeliberationEnded(turn, "converged", "neither stage changed", source))
                return Outcome(tool_answer if tool_answer is not None else new_answer, "converged")
            previous_trace, previous_tool = trace, tool_answer
            solution, nl_answer = revised, new_answer
        source = "tool" if tool_answer is not None else "language"
        ctx.emit(
            DeliberationEnded(
                cfg.turns,
                "cap",
                f"the cap of {cfg.turns} turns was reached; the answer is the last "
                f"{'tool' if source == 'tool' else 'prose'} stage's",
                source,
            )
        )
        return Outcome(tool_answer if tool_answer is not None else nl_answer, "turn cap")

    async def _retrieve(
        self, domain: Domain[Any, Any], ctx: RunContext
    ) -> tuple[Demonstration, ...]:
        """The solved problems the first solution takes as examples, reported as retrieved;
        none when the option is 0 or the domain keeps no pool."""
        k = self.config.demonstrations
        if k <= 0 or not isinstance(domain, Retrieving):
            return ()
        # In a thread: the first search builds the pool (a few tenths of a second), which
        # must not hold up the app's event loop.
        found = await asyncio.to_thread(domain.demonstrations, k)
        ctx.emit(
            DemonstrationsRetrieved(
                domain.retriever,
                tuple(d.id for d in found),
                tuple(round(d.score, 3) for d in found),
                tuple(d.text() for d in found),
                k,
            )
        )
        return found

    async def _tool_stage(
        self, domain: Domain[Any, Any], ctx: RunContext, trial: str, step_base: int
    ) -> tuple[str, str | None, int]:
        """One tool stage: the trace (Action / Output lines), its final answer, and the
        number of the last step reported (steps are numbered across the run)."""
        cfg = self.config
        names = [t.name for t in domain.tools]
        steps: list[tuple[str, str, str]] = []
        invalid = 0
        answer: str | None = None
        number = step_base
        for k in range(1, cfg.tool_steps + 1):
            call = Call(
                Purpose.DELI_TOOL,
                domain.prompt(Role.FORMALIZE, trial=trial, steps=tuple(steps), step=k),
                self._sampling((f"\nOutput {k}:", "\nOutput:")),
                domain.context(domain.start(), step=k),
            )
            gen, call_id = await ctx.call(call)
            action = parse_action(gen.text, names)
            final = parse_final(gen.text)
            number = step_base + k
            for claim in domain.claims(f"{action.thought}\n{action.argument}"):
                ctx.verified(f"deli{number}", claim)
            if not action.valid and final is not None and not gen.cut(0):
                answer = domain.parse_answer(f"Answer: {final}")
                break
            if not action.valid:
                invalid += 1
                ctx.parse_failed(Purpose.DELI_TOOL, gen.text, action.problem)
                ctx.emit(ToolCalled(number, "", action.text, action.thought, call_id, action.notes))
                ctx.emit(ToolObserved(number, "", action.problem, "invalid"))
                steps.append((action.thought, action.written() or "(none)", action.problem))
                if invalid >= 2:
                    break
                continue
            invalid = 0
            ctx.emit(
                ToolCalled(
                    number, action.name, action.argument, action.thought, call_id, action.notes
                )
            )
            result = await run_tool(domain, action.name, action.argument, cfg.tool_limit)
            assert result is not None
            ctx.emit(
                ToolObserved(
                    number,
                    result.tool,
                    result.observation,
                    result.status,
                    result.value,
                    result.elapsed,
                )
            )
            steps.append((action.thought, action.written(), result.observation))
        trace = format_trajectory(steps, "Output")
        if answer is not None:
            trace += f"\nFinal Answer: {answer}"
        return trace, answer, number

    def _stage(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        turn: int,
        stage: str,
        text: str,
        answer: str | None,
        previous: str | None,
        call_id: int | None,
        cut: str | None = None,
    ) -> None:
        if stage == "language":  # a tool stage's claims were checked call by call
            for claim in domain.claims(text):
                ctx.verified(f"deli-{stage}{turn}", claim)
        if stage == "language" and answer is None and not cut:  # a cut reply is no misreading
            purpose = Purpose.DELI_REVISE if turn else Purpose.DELI_INIT
            ctx.parse_failed(purpose, text, "no 'Answer:' line")
        verdict = domain.check(answer)
        ctx.emit(
            DeliberationStage(
                turn,
                self.config.turns,
                stage,
                text[:4000],
                answer,
                verdict.ok,
                verdict.reason,
                not _same(domain, answer, previous),
                call_id,
            )
        )


def _same(domain: Domain[Any, Any], a: str | None, b: str | None) -> bool:
    """Two answers agree: the same normal form (``$18`` and ``18.00``), or the same text."""
    if a is None or b is None:
        return False
    ka, kb = domain.answer_key(a), domain.answer_key(b)
    if ka is not None and kb is not None:
        return ka == kb
    return " ".join(a.split()) == " ".join(b.split())


SPEC = MethodSpec(
    name="deli",
    label="DELI",
    title="deliberation with tools",
    description="Writes a solution, checks it as equations solved by tools, revises it in "
    "prose, and repeats until both agree.",
    build=DELI,
    config=DELIConfig,
    roles=frozenset({Role.COT, Role.FORMALIZE, Role.REVISE}),
    order=25,
    view="transcript",
    round="turn",
    paper={"wordproblem": "+9.35% vs best baseline"},
    paper_note="DELI, gpt-3.5-turbo, on CARP (Chinese algebra), not GSM8K; 3 turns, 8 "
    "BM25-retrieved examples",
)
