"""ReAct (Yao et al., ICLR 2023): reasoning and acting interleaved.

Each step the model writes one ``Thought i:`` and one ``Action i: name[argument]``; the
reply is cut at ``Observation i:`` by hard stop sequences, so the model cannot invent what a
tool says, and the observation is always written by code: a tool's result (the domain's tools,
each under a time limit enforced outside the tool), or a plain message for an unknown or
malformed action. ``finish[answer]`` ends the episode. As in the reference code the episode
has a step budget (7, its HotpotQA setting); with no ``finish`` by then it ends without an
answer, and after ``invalid_limit`` invalid actions in a row it ends with that reason instead
of looping. Chat models break the format (several actions, an invented observation,
``Finish[...]`` capitalised): the parser keeps the first thought and action and the run says
what it forgave. Every arithmetic claim in a thought, an action's input and the answer is
checked exactly.

The prompt carries several worked trajectories, as the paper's do (``shots``, 3 by default, the
paper's FEVER count; ``paper``: 6, its HotpotQA count, with the reference code's loop on
invalid actions until the budget is spent).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain, ToolResult
from solver.events import EpisodeEnded, IterationStarted, ToolCalled, ToolObserved
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role
from solver.tools import parse_action

__all__ = ["PAPER_SHOTS", "ReAct", "ReActConfig", "run_tool"]

FINISH = "finish"
PAPER_SHOTS = 6
"""Worked trajectories in the paper's HotpotQA prompt (``webthink_simple6``; FEVER's has 3)."""


@dataclass(frozen=True)
class ReActConfig:
    """ReAct settings; defaults are the reference code's HotpotQA run."""

    steps: int = option(7, "most Thought / Action / Observation steps", low=1, high=200, app=True)
    """The step budget (the reference code: 7 for HotpotQA, 5 for FEVER)."""
    invalid_limit: int = option(3, "invalid actions in a row that end the episode", low=1, high=50)
    """Invalid or unreadable actions in a row after which the episode ends (ours: the
    reference code loops on them until the budget is spent)."""
    tool_limit: float = option(
        5.0, "seconds a tool call may run before it is stopped", low=0.05, high=600
    )
    """Each tool call's time limit, enforced in a separate process."""
    shots: int = option(
        3, "worked trajectories in the prompt (--paper: 6)", low=1, high=PAPER_SHOTS
    )
    """Worked Thought / Action / Observation trajectories in the prompt (the paper: 6 for
    HotpotQA, 3 for FEVER); written for ponder, those of the problem's sort first."""
    paper: bool = option(
        False,
        "run as the paper does: six worked trajectories (its HotpotQA prompt) and invalid "
        "actions never end the episode before the step budget",
    )
    """The paper's prompt and loop: :data:`PAPER_SHOTS` trajectories whatever ``shots`` says,
    and ``invalid_limit`` off (the reference code retries until the budget is spent)."""
    temperature: float = 0.0
    """Greedy, as the reference code (temperature 0)."""
    max_tokens: int = 400
    """Longest reply (the reference code: 100 tokens, one line at a time)."""

    @property
    def prompt_shots(self) -> int:
        """The trajectories the prompt carries."""
        return PAPER_SHOTS if self.paper else self.shots


async def run_tool(
    domain: Domain[Any, Any], name: str, argument: str, limit: float
) -> ToolResult | None:
    """Run the domain's tool ``name`` in a thread (its time limit is enforced in the tool's
    worker process); None when the domain has no such tool."""
    tool = next((t for t in domain.tools if t.name == name), None)
    if tool is None:
        return None
    return await asyncio.to_thread(tool.run, argument, limit)


class ReAct:
    """Thought, Action, Observation until ``finish`` or the step budget."""

    name = "react"

    def __init__(self, config: ReActConfig | None = None) -> None:
        self.config = config or ReActConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        names = [t.name for t in domain.tools] + [FINISH]
        trajectory: list[tuple[str, str, str]] = []
        seen: dict[tuple[str, str], int] = {}
        invalid = 0
        for i in range(1, cfg.steps + 1):
            ctx.emit(IterationStarted(i, cfg.steps, f"step {i}"))
            call = Call(
                Purpose.REACT_ACT,
                domain.prompt(
                    Role.ACT,
                    steps=tuple(trajectory),
                    step=i,
                    limit=cfg.steps,
                    shots=cfg.prompt_shots,
                ),
                Sampling(
                    cfg.temperature,
                    1.0,
                    1,
                    cfg.max_tokens,
                    stop=(f"\nObservation {i}:", "\nObservation:", f"\nThought {i + 1}:"),
                ),
                domain.context(domain.start(), step=i),
            )
            gen, call_id = await ctx.call(call)
            action = parse_action(gen.text, names)
            node = f"react{i}"
            for claim in domain.claims(f"{action.thought}\n{action.argument}"):
                ctx.verified(node, claim)
            notes = list(action.notes)
            if gen.cut(0):
                notes.append("the reply was cut off; only its finished lines were read")
            if not action.valid:
                invalid += 1
                ctx.parse_failed(Purpose.REACT_ACT, gen.text, action.problem)
                ctx.emit(ToolCalled(i, "", action.text, action.thought, call_id, tuple(notes)))
                ctx.emit(ToolObserved(i, "", action.problem, "invalid"))
                trajectory.append((action.thought, action.written() or "(none)", action.problem))
                if invalid >= cfg.invalid_limit and not cfg.paper:
                    reason = f"{invalid} invalid actions in a row"
                    ctx.emit(EpisodeEnded(i, "invalid", reason))
                    return Outcome(None, "invalid actions")
                continue
            invalid = 0
            key = (action.name, " ".join(action.argument.split()))
            if key in seen:
                notes.append(f"repeats the action of step {seen[key]}")
            seen.setdefault(key, i)
            ctx.emit(
                ToolCalled(i, action.name, action.argument, action.thought, call_id, tuple(notes))
            )
            if action.name == FINISH:
                answer = domain.parse_answer(f"Answer: {action.argument}")
                verdict = domain.check(answer)
                ctx.emit(ToolObserved(i, FINISH, "Episode finished.", "ok", answer))
                ctx.emit(EpisodeEnded(i, "finish", f"finish[{answer or ''}]: {verdict.reason}"))
                return Outcome(answer, "finish")
            result = await run_tool(domain, action.name, action.argument, cfg.tool_limit)
            assert result is not None  # the parser only reads offered names
            ctx.emit(
                ToolObserved(
                    i, result.tool, result.observation, result.status, result.value, result.elapsed
                )
            )
            trajectory.append((action.thought, action.written(), result.observation))
        ctx.emit(EpisodeEnded(cfg.steps, "cap", f"no finish within {cfg.steps} steps"))
        return Outcome(None, "step cap")


SPEC = MethodSpec(
    name="react",
    label="ReAct",
    title="reasoning and acting",
    description="Thinks, calls a tool, reads what it returns, and repeats until it finishes.",
    build=ReAct,
    config=ReActConfig,
    roles=frozenset({Role.ACT}),
    order=20,
    view="transcript",
    round="step",
)
