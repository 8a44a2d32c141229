"""Tree of Thoughts, depth-first search (Yao et al. 2023), as the paper runs it on 5 x 5 mini
crosswords.

At each state the model proposes candidate words for the unfilled clues with a confidence
(certain 1, high 0.5, medium 0.2, low 0.1, summed over ``samples`` proposal samples); the
candidates are tried best first. Each word is checked exactly against the board (a word
that does not fit its slot or changes a crossing letter is refused, as the paper's search
refuses a state that changes a filled letter). After a word is written, every clue with
letters on the board is valued from its letter pattern as sure / maybe / impossible, one call
per clue (cached by prompt, as the reference code caches them); a state with any impossible
clue is pruned. At most ``max_per_state`` children are tried per state, and the search stops
after ``step_limit`` states (the paper: 100). The output is the deepest state found, ties
going to the first one visited (the paper's rule; the best state by the exact check is not
used). The pane sees every push, prune (with the clue that made the state impossible) and
backtrack.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain, Proposing, RolesMissing
from solver.events import (
    Backtracked,
    IterationStarted,
    LeafReached,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
)
from solver.methods.base import Outcome, RunContext, StopRun
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role

__all__ = ["ToTDFS", "ToTDFSConfig"]

ROLES = frozenset({Role.PROPOSE, Role.CLUE_VALUE})


@dataclass(frozen=True)
class ToTDFSConfig:
    """ToT DFS settings; defaults are the paper's crossword run."""

    step_limit: int = option(100, "most states visited (the paper: 100)", low=1, high=100_000)
    """T: the search stops after this many states."""
    samples: int = option(8, "proposal samples per state", low=1, high=100)
    """Proposal samples per state, their scores summed (the reference notebook: 8)."""
    max_per_state: int = option(3, "children tried per state", low=1, high=100)
    """Children tried from one state before backtracking (the paper's run: 3)."""
    temperature: float = option(0.7, "sampling temperature", low=0, high=2)
    """Sampling temperature of every call (the paper: 0.7)."""
    prune: bool = True
    """Prune a state when any clue is judged impossible (off: the paper's -prune ablation)."""
    max_tokens: int = 1000
    """Longest reply."""
    stop_early: bool = option(False, "stop once the board is verified solved")
    """End the run once a state is exactly the solution (off for paper-style benchmarks)."""


@dataclass
class _Best:
    node: str | None
    state: Any
    depth: int


class ToTDFS:
    """Tree of Thoughts with depth-first search."""

    name = "tot-dfs"

    def __init__(self, config: ToTDFSConfig | None = None) -> None:
        self.config = config or ToTDFSConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        if not isinstance(domain, Proposing):
            raise RolesMissing(self.name, domain.kind, ["proposals with confidences"])
        search: _Search = _Search(self.config, domain, domain, ctx)
        start = domain.start()
        search.best = _Best(None, start, search.parts.progress(start))
        try:
            await search.dfs(start, None, 0)
        finally:
            ctx.emit(IterationStarted(search.visited, self.config.step_limit, "search done"))
        best = search.best
        if best.node is not None:
            ctx.emit(
                LeafReached(
                    best.node,
                    f"output: the deepest state ({best.depth} words; the first of that depth "
                    "visited)",
                )
            )
        return Outcome(domain.answer_of(best.state), search.reason)


class _Search:
    """One run's search: its counters, caches and best state."""

    def __init__(
        self,
        config: ToTDFSConfig,
        domain: Domain[Any, Any],
        parts: Proposing[Any, Any],
        ctx: RunContext,
    ) -> None:
        self.cfg = config
        self.domain = domain
        self.parts = parts
        self.ctx = ctx
        self.visited = 0
        self.reason = "done"
        self.best = _Best(None, None, -1)
        # The reference code caches proposals by board and values by prompt.
        self.proposals: dict[Any, list[tuple[Any, float]]] = {}
        self.values: dict[str, asyncio.Future[str]] = {}

    async def dfs(self, state: Any, node: str | None, depth: int) -> None:
        cfg, domain, ctx = self.cfg, self.domain, self.ctx
        candidates = await self._propose(state, node)
        for tried, (step, score) in enumerate(candidates, 1):
            if self.visited >= cfg.step_limit:
                self.reason = "step limit"
                return
            after = domain.after(step)
            self.visited += 1
            ctx.emit(IterationStarted(self.visited, cfg.step_limit, f"step {self.visited}"))
            child = ctx.node_id()
            label = f"{domain.step_line(step)} ({getattr(step, 'confidence', '') or 'low'}"
            ctx.emit(
                ThoughtAdded(
                    "dfs",
                    child,
                    node,
                    f"{label}, {score:g})",
                    depth + 1,
                    domain.state_text(after),
                )
            )
            progress = self.parts.progress(after)
            if progress > self.best.depth:
                self.best = _Best(child, after, progress)
            if domain.is_goal(after):
                ctx.emit(SolutionFound(child, domain.answer_of(after) or ""))
                if cfg.stop_early:
                    raise StopRun(domain.answer_of(after))
            labels = await self._value(after, child)
            impossible = [name for name, label in labels if label == "impossible"]
            if domain.is_final(after):
                ctx.emit(LeafReached(child, "every clue is filled"))
            elif cfg.prune and impossible:
                name = impossible[0]
                ctx.emit(ThoughtPruned(child, f"{name} judged impossible"))
            else:
                await self.dfs(after, child, depth + 1)
                ctx.emit(
                    Backtracked(
                        child, node, "step limit" if self.visited >= cfg.step_limit else "tried"
                    )
                )
            if tried >= cfg.max_per_state:
                return

    async def _propose(self, state: Any, node: str | None) -> list[tuple[Any, float]]:
        """The candidates from ``state``, best first, each checked exactly; words that do
        not fit the board are reported and dropped."""
        cfg, domain, ctx = self.cfg, self.domain, self.ctx
        key = domain.state_key(state)
        if key in self.proposals:
            return self.proposals[key]
        if domain.is_final(state):
            self.proposals[key] = []
            return []
        call = Call(
            Purpose.PROPOSE,
            domain.prompt(Role.PROPOSE, state=state),
            Sampling(cfg.temperature, 1.0, cfg.samples, cfg.max_tokens),
            domain.context(state),
        )
        gen, _ = await ctx.call(call)
        scores: dict[Any, float] = {}
        first: dict[Any, Any] = {}
        for i, text in enumerate(gen.texts):
            if gen.cut(i):
                continue
            found = self.parts.proposals(text, state)
            if not found:
                ctx.parse_failed(
                    Purpose.PROPOSE, text, "no line of the form 'h1. word (confidence)'"
                )
            for step, score in found:
                k = domain.step_key(step)
                if k not in first:
                    first[k] = step
                    ctx.verified(node, step.claim)
                scores[k] = scores.get(k, 0.0) + score
        ranked = sorted(first, key=lambda k: -scores[k])
        out = [(first[k], round(scores[k], 3)) for k in ranked if first[k].valid]
        self.proposals[key] = out
        return out

    async def _value(self, state: Any, node: str) -> list[tuple[str, str]]:
        """Every open clue's label (sure / maybe / impossible), one call per clue."""
        names = self.parts.open_parts(state)
        labels = await self.ctx.gather(*(self._value_one(state, name) for name in names))
        pairs = list(zip(names, labels, strict=True))
        weights = self.domain.value_weights
        total = sum(weights.get(label, 0.0) for _, label in pairs)
        self.ctx.emit(
            ThoughtScored(
                node, round(total, 3), samples=tuple(f"{name} {label}" for name, label in pairs)
            )
        )
        return pairs

    async def _value_one(self, state: Any, name: str) -> str:
        cfg, domain, ctx = self.cfg, self.domain, self.ctx
        messages = domain.prompt(Role.CLUE_VALUE, state=state, part=name)
        key = "\n".join(m.content for m in messages)
        pending = self.values.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        pending = asyncio.get_running_loop().create_future()
        self.values[key] = pending
        try:
            call = Call(
                Purpose.CLUE_VALUE,
                messages,
                Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens),
                domain.context(state, clue=name),
            )
            gen, _ = await ctx.call(call)
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                pending.cancel()
            else:
                pending.set_exception(exc)
                pending.exception()
            raise
        label = None if gen.cut(0) else domain.parse_value(gen.text)
        if label is None:
            ctx.parse_failed(Purpose.CLUE_VALUE, gen.text, "no sure / maybe / impossible")
            label = "maybe"
        pending.set_result(label)
        return label


SPEC = MethodSpec(
    name="tot-dfs",
    label="ToT-DFS",
    title="Tree of Thoughts, depth-first",
    description="Fills one word at a time, best proposal first; prunes a state when a clue "
    "looks impossible, backtracks, and answers with the deepest state.",
    build=ToTDFS,
    config=ToTDFSConfig,
    roles=ROLES,
    order=21,
    round="step",
    paper={"crossword": "78 / 60 / 20"},
    paper_note="ToT, Table 3, GPT-4, letters / words / games %",
    in_app={"stop_early": True},
    aliases=("totdfs", "tot_dfs", "dfs"),
)
