"""Tree of Thoughts, breadth-first search (Yao et al. 2023), as used for the Game of 24.

Each of the four steps proposes next steps for every kept state in one call, values every new
state with ``value_samples`` samples of the sure / likely / impossible prompt (20 / 1 / 0.001,
summed), and keeps the ``breadth`` best. The fourth step writes the ``Answer:`` line from the
three steps and judges it. The answer is the first kept state whose expression uses exactly
the four input numbers (ToT's own success rule); it counts only if it equals 24 exactly.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from typing import Any

from solver.domains.base import Claiming, Domain
from solver.events import (
    IterationStarted,
    LeafReached,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
)
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role

__all__ = ["ToT", "ToTConfig"]


@dataclass(frozen=True)
class ToTConfig:
    """ToT BFS settings; defaults are the paper's Game of 24 run."""

    breadth: int = option(5, "states kept per step", low=1, high=10_000, app=True)
    """b: states kept after each step."""
    value_samples: int = option(3, "value samples per state", low=1, high=10_000)
    """Value prompt samples per state, summed."""
    steps: int | None = None
    """Steps of the search; None: one per equation, then the answer (4 for four numbers)."""
    temperature: float = option(0.7, "sampling temperature", low=0, high=2)
    """Sampling temperature for every call (the paper: 0.7)."""
    max_tokens: int = 1000
    """Longest reply (the reference code: 1000)."""
    verify_steps: bool = True
    """Prune proposed steps whose arithmetic is wrong or whose numbers are not on the table,
    before valuing them (ours: the paper trusts the model's ``left:`` list). Off, the state
    follows the model's ``left:`` list, as in ``paper`` mode."""
    paper: bool = option(
        False,
        "run as the paper does: the model's own results and left: lists carry on and every "
        "proposal is valued; the verifier only reports; success is the exact check",
    )
    """The paper's mechanism: a proposal's state is the model's ``left:`` list, and proposals
    whose arithmetic fails the exact check are valued by the model like any other (the
    paper trusts the model). Off (ours): they are pruned before valuing."""
    stop_early: bool = option(False, "stop once an answer is verified exactly")
    """End the run as soon as an answer is verified exactly (off for paper-style benchmarks)."""
    weights: dict[str, float] | None = field(default=None)
    """Value of each label; None: the domain's (Game of 24: sure 20, likely 1, impossible
    0.001, as the reference code)."""


@dataclass
class _Beam:
    node: str | None
    state: Any
    lines: tuple[str, ...]
    answer: str | None = None
    value: float = 0.0


class ToT:
    """Tree of Thoughts with breadth-first search."""

    name = "tot"

    def __init__(self, config: ToTConfig | None = None) -> None:
        self.config = config or ToTConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        beams = [_Beam(None, domain.start(), ())]
        # Values are cached per run by the remaining numbers (the value prompt shows only
        # those), as in the reference code; one method object may serve concurrent runs.
        cache: dict[Any, asyncio.Future[tuple[float, tuple[str, ...]]]] = {}
        # One equation a step until one number is left, then the answer: 4 for four numbers.
        steps = cfg.steps or domain.depth() + 1
        for step in range(1, steps + 1):
            ctx.emit(IterationStarted(step, steps, f"step {step}"))
            expansions = await ctx.gather(*(self._expand(domain, ctx, b) for b in beams))
            candidates = [c for group in expansions for c in group]
            if not candidates:
                break
            await self._value_all(domain, ctx, candidates, cache)
            candidates.sort(key=lambda c: -c.value)
            kept, cut = candidates[: cfg.breadth], candidates[cfg.breadth :]
            floor = kept[-1].value if kept else 0.0
            for c in cut:
                if c.node:
                    ctx.emit(ThoughtPruned(c.node, f"value {c.value:g} below the kept {floor:g}"))
            beams = kept
            if cfg.stop_early:
                for b in beams:
                    if b.answer and domain.check(b.answer).ok:
                        return Outcome(b.answer, "solved early")
        return Outcome(self._final(domain, beams))

    def _final(self, domain: Domain[Any, Any], beams: list[_Beam]) -> str | None:
        for b in beams:
            if b.answer and domain.uses_all(b.answer):
                return b.answer
        for b in beams:
            if b.answer:
                return b.answer
        return None

    async def _expand(self, domain: Domain[Any, Any], ctx: RunContext, beam: _Beam) -> list[_Beam]:
        cfg = self.config
        sampling = Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens)
        if domain.is_final(beam.state):
            if beam.answer is not None:
                return []
            if not domain.is_goal(beam.state):
                # One number that is not the target: no expression of it can be an answer,
                # so no answer call is made for it.
                if beam.node:
                    ctx.emit(LeafReached(beam.node, "one number left, not the target"))
                return []
            call = Call(
                Purpose.ANSWER,
                domain.prompt(Role.COT, steps=beam.lines),
                sampling,
                domain.context(beam.state),
            )
            gen, call_id = await ctx.call(call)
            if gen.cut(0):  # an unfinished reply gives no answer (the call event says why)
                return []
            answer = domain.parse_answer(gen.text)
            if answer is None:
                ctx.parse_failed(Purpose.ANSWER, gen.text, "no 'Answer:' line")
                return []
            node = ctx.node_id()
            ctx.emit(
                ThoughtAdded(
                    "tot", node, beam.node, f"Answer: {answer}", len(beam.lines) + 1, "", call_id
                )
            )
            return [_Beam(node, beam.state, beam.lines, answer)]
        call = Call(
            Purpose.PROPOSE,
            domain.prompt(Role.PROPOSE, state=beam.state),
            sampling,
            domain.context(beam.state),
        )
        gen, call_id = await ctx.call(call)
        steps = domain.parse_steps(gen.text, beam.state)
        if not steps:
            ctx.parse_failed(Purpose.PROPOSE, gen.text, "no step of the form 'a op b = c'")
        trust = cfg.paper or not cfg.verify_steps
        claiming = domain if trust and isinstance(domain, Claiming) else None
        out = []
        for step in steps:
            node = ctx.node_id()
            # Paper mode: the state is the model's own ``left:`` list, right or wrong.
            after = (
                claiming.claimed(step, beam.state) if claiming is not None else domain.after(step)
            )
            left = domain.state_text(after) if after is not None else ""
            ctx.emit(
                ThoughtAdded("tot", node, beam.node, step.text, len(beam.lines) + 1, left, call_id)
            )
            ctx.verified(node, step.claim)
            if after is None or (not trust and step.problem):
                ctx.emit(ThoughtPruned(node, f"invalid step: {step.problem or 'unreadable'}"))
                continue
            line = (
                claiming.claimed_line(step, after)
                if claiming is not None
                else domain.step_line(step)
            )
            out.append(_Beam(node, after, (*beam.lines, line)))
        return out

    async def _value_all(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        cands: list[_Beam],
        cache: dict[Any, asyncio.Future[tuple[float, tuple[str, ...]]]],
    ) -> None:
        seen: set[tuple[str, ...]] = set()
        todo = []
        for c in cands:
            key = c.lines + ((c.answer,) if c.answer else ())
            if key in seen:  # a duplicate of a state already in this step scores 0
                c.value = 0.0
                if c.node:
                    ctx.emit(ThoughtScored(c.node, 0.0, samples=("duplicate",)))
                continue
            seen.add(key)
            todo.append(c)
        await ctx.gather(*(self._value(domain, ctx, c, cache) for c in todo))

    async def _value(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        cand: _Beam,
        cache: dict[Any, asyncio.Future[tuple[float, tuple[str, ...]]]],
    ) -> None:
        cfg = self.config
        if cand.answer is not None:
            key: Any = ("answer", cand.answer)
            messages = domain.prompt(Role.JUDGE, answer=cand.answer)
            purpose = Purpose.JUDGE
        else:
            key = domain.state_key(cand.state)
            messages = domain.prompt(Role.VALUE, state=cand.state)
            purpose = Purpose.VALUE
        call_id = None
        pending = cache.get(key)
        if pending is not None:
            # Another state with the same numbers is being (or was) valued: share its value.
            value, labels = await asyncio.shield(pending)
        else:
            pending = asyncio.get_running_loop().create_future()
            cache[key] = pending
            try:
                call = Call(
                    purpose,
                    messages,
                    Sampling(cfg.temperature, 1.0, cfg.value_samples, cfg.max_tokens),
                    domain.context(cand.state, answer=cand.answer),
                )
                gen, call_id = await ctx.call(call)
            except asyncio.CancelledError:
                pending.cancel()
                raise
            except Exception as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved here, so a waiter-less failure is not logged
                raise
            label_list = []
            for text in gen.texts:
                for claim in domain.claims(text):  # the evaluator's trial arithmetic
                    ctx.verified(cand.node, claim)
                label = domain.parse_value(text)
                if label is None:
                    ctx.parse_failed(purpose, text, "no sure / likely / impossible")
                label_list.append(label or "?")
            labels = tuple(label_list)
            weights = domain.value_weights if cfg.weights is None else cfg.weights
            value = sum(weights.get(lb, 0.0) for lb in labels)
            pending.set_result((value, labels))
        cand.value = value
        if cand.node:
            ctx.emit(ThoughtScored(cand.node, round(value, 3), samples=labels, call_id=call_id))
            if cand.answer is not None:
                verdict = domain.check(cand.answer)
                if verdict.ok:
                    ctx.emit(SolutionFound(cand.node, cand.answer))
                else:
                    ctx.emit(LeafReached(cand.node, verdict.reason))


SPEC = MethodSpec(
    name="tot",
    label="ToT",
    title="Tree of Thoughts, breadth-first",
    description="Keeps the best few states at each step, as rated by the model, breadth first.",
    build=ToT,
    config=ToTConfig,
    roles=frozenset({Role.PROPOSE, Role.VALUE, Role.COT, Role.JUDGE}),
    order=20,
    round="step",
    paper={"game24": "74%"},
    paper_note="ToT, Table 2, GPT-4, b = 5",
    in_app={"stop_early": True},
)
