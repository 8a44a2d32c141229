"""ReAct and CoT-SC combined, the paper's best prompting methods (Yao et al., Sec. 3.2).

ReAct is more factual and grounded, CoT better at structuring reasoning but prone to
hallucinate; the paper lets a heuristic decide when to switch from one to the other:

- **ReAct -> CoT-SC** (its best on HotpotQA): when ReAct gives no answer within its step
  budget (7 on HotpotQA, 5 on FEVER; more steps did not help), answer with CoT-SC instead.
  Here any ReAct episode that ends without an answer falls back: the budget spent, or (ours)
  the episode ended by invalid actions in a row.
- **CoT-SC -> ReAct** (its best on FEVER): when the majority answer of CoT-SC's n samples has
  fewer than n/2 votes (internal knowledge does not support the task confidently), answer with
  ReAct instead; its answer stands, none included.

CoT-SC samples at temperature 0.7 as in the paper; n defaults to 21, the most samples the
paper's Fig. 2 plots for both combinations (REACT.md calls the count of its Table 1
uncertain). ReAct keeps its own defaults (greedy, 7 steps, the reference code's HotpotQA
budget for both, as word problems are multi-step like HotpotQA). Each decision is reported as
a :class:`~solver.events.FallbackDecided`, taken or not, and CoT-SC's count as a
:class:`~solver.events.VotesCounted`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain
from solver.events import FallbackDecided, VotesCounted
from solver.methods.base import Outcome, RunContext
from solver.methods.baselines import CoTSC, CoTSCConfig, Vote
from solver.methods.react import PAPER_SHOTS, ReAct, ReActConfig
from solver.methods.spec import MethodSpec, option
from solver.roles import Role

__all__ = ["CoTSCThenReAct", "FallbackConfig", "ReActThenCoTSC", "majority_is_weak"]


@dataclass(frozen=True)
class FallbackConfig:
    """Both combinations' settings; the defaults are the paper's."""

    steps: int = option(
        7, "ReAct's most Thought / Action / Observation steps", low=1, high=200, app=True
    )
    """ReAct's step budget (the paper: 7 on HotpotQA, 5 on FEVER)."""
    samples: int = option(21, "CoT-SC's chain-of-thought samples (n)", low=1, high=10_000, app=True)
    """n, CoT-SC's samples (the paper's Fig. 2 goes up to 21)."""
    temperature: float = option(0.7, "CoT-SC's sampling temperature", low=0, high=2)
    """CoT-SC's sampling temperature (the paper: 0.7); ReAct stays greedy."""
    shots: int = option(
        3, "ReAct's worked trajectories in the prompt (--paper: 6)", low=1, high=PAPER_SHOTS
    )
    """ReAct's worked trajectories (see :class:`~solver.methods.react.ReActConfig`)."""
    paper: bool = option(
        False,
        "run ReAct as the paper does: six worked trajectories and invalid actions never end "
        "its episode before the step budget",
    )
    """ReAct's paper mode (see :class:`~solver.methods.react.ReActConfig`)."""
    tool_limit: float = option(
        5.0, "seconds a tool call may run before it is stopped", low=0.05, high=600
    )
    """Each ReAct tool call's time limit."""
    invalid_limit: int = 3
    """ReAct: invalid actions in a row that end its episode (off under ``paper``)."""
    batch: int = 20
    """CoT-SC samples asked for in one call."""

    def react(self) -> ReActConfig:
        """The ReAct part's config."""
        return ReActConfig(
            steps=self.steps,
            invalid_limit=self.invalid_limit,
            tool_limit=self.tool_limit,
            shots=self.shots,
            paper=self.paper,
        )

    def cotsc(self) -> CoTSCConfig:
        """The CoT-SC part's config."""
        return CoTSCConfig(samples=self.samples, temperature=self.temperature, batch=self.batch)


def majority_is_weak(votes: int, samples: int) -> bool:
    """The paper's switch from CoT-SC to ReAct: the majority answer occurs fewer than n/2
    times among the n samples."""
    return 2 * votes < samples


def _counted(ctx: RunContext, vote: Vote) -> None:
    ranked = vote.votes.most_common()
    ctx.emit(
        VotesCounted(
            vote.samples,
            tuple(vote.first[key] for key, _ in ranked),
            tuple(count for _, count in ranked),
            vote.samples - sum(vote.votes.values()),
        )
    )


class _Fallback:
    name = ""

    def __init__(self, config: FallbackConfig | None = None) -> None:
        self.config = config or FallbackConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)


class ReActThenCoTSC(_Fallback):
    """ReAct first; CoT-SC when ReAct gives no answer within its step budget."""

    name = "react-cotsc"

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        first = await ReAct(cfg.react()).run(domain, ctx)
        if first.answer is not None:
            ctx.emit(FallbackDecided("react", "cot-sc", False, "ReAct finished with an answer"))
            return first
        if first.reason == "step cap":
            reason = f"ReAct gave no answer within {cfg.steps} steps"
        else:
            reason = f"ReAct gave no answer ({first.reason})"
        ctx.emit(FallbackDecided("react", "cot-sc", True, reason))
        vote = await CoTSC(cfg.cotsc()).vote(domain, ctx)
        _counted(ctx, vote)
        answer, count = vote.majority
        # Samples are not reported: bench's sample figures are the sampling baselines'.
        return Outcome(answer, "fell back to CoT-SC", votes=count)


class CoTSCThenReAct(_Fallback):
    """CoT-SC first; ReAct when the majority answer has fewer than n/2 votes."""

    name = "cotsc-react"

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        vote = await CoTSC(cfg.cotsc()).vote(domain, ctx)
        _counted(ctx, vote)
        answer, count = vote.majority
        n = vote.samples
        shown = f"{count} of {n} votes" if answer is not None else f"no answer among {n} samples"
        if not majority_is_weak(count, n):
            reason = f"the majority answer has {shown}, at least n/2 = {n / 2:g}"
            ctx.emit(FallbackDecided("cot-sc", "react", False, reason))
            return Outcome(answer, votes=count)
        reason = f"the majority answer has {shown}, fewer than n/2 = {n / 2:g}"
        if answer is None:
            reason = f"{shown}, so no majority of n/2 = {n / 2:g}"
        ctx.emit(FallbackDecided("cot-sc", "react", True, reason))
        second = await ReAct(cfg.react()).run(domain, ctx)
        return Outcome(second.answer, f"fell back to ReAct: {second.reason}")


_COMMON: dict[str, Any] = {
    "config": FallbackConfig,
    "roles": frozenset({Role.ACT, Role.COT}),
    "view": "transcript",
    "round": "step",
}
SPECS = (
    MethodSpec(
        name="react-cotsc",
        label="ReAct→CoT-SC",
        title="ReAct, falling back to CoT self-consistency",
        description="Acts with tools like ReAct; with no answer within its steps, takes the "
        "majority of many step-by-step solutions.",
        build=ReActThenCoTSC,
        order=22,
        aliases=("react-cot-sc",),
        **_COMMON,
    ),
    MethodSpec(
        name="cotsc-react",
        label="CoT-SC→ReAct",
        title="CoT self-consistency, falling back to ReAct",
        description="Takes the majority of many step-by-step solutions; when fewer than half "
        "agree, acts with tools like ReAct.",
        build=CoTSCThenReAct,
        order=23,
        aliases=("cot-sc-react",),
        **_COMMON,
    ),
)
"""The two combinations, after ReAct in the catalogue."""
