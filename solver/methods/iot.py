"""Iteration of Thought (Radha et al. 2024): an inner dialogue instead of a tree.

An Inner Dialogue Agent (the guide) writes a context-specific prompt from the query and the
dialogue so far; the LLM Agent (the answerer) replies to it with its reasoning, its doubts and
a candidate answer. The whole transcript travels in every call. The guide speaks first (as in
the reference code: there is no unguided first answer).

- **AIoT** (autonomous): the dialogue ends when either agent says the answer is final — the
  guide's stop flag (its judgement of the dialogue before this turn's reply; the reply is still
  asked for) or the answerer's final flag — or at the cap (10). Which one stopped it is
  recorded. Two calls a turn.
- **GIoT** (guided): N full turns (5) in which the answerer may not conclude and the guide's
  stop flag is ignored, then one closing call for the definitive answer: 2N + 1 calls.

Every turn's candidate answer is checked exactly by the domain beside the model's own claim,
so premature stops, confident wrong answers and drift after being right are visible. The
guide may be another model (``guide_model`` of the run), as the paper allows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain, Reply
from solver.events import DialogueStopped, IterationStarted, TurnAnswered, TurnGuided
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling

__all__ = ["AIoTConfig", "GIoTConfig", "IoT"]

ROLES = frozenset({"guide", "respond"})


@dataclass(frozen=True)
class AIoTConfig:
    """AIoT settings; defaults are the paper's Game of 24 runs (cap 10)."""

    iterations: int = option(10, "most dialogue turns (the cap)", low=1, high=1000, app=True)
    """T: the cap on turns; the dialogue usually ends earlier, when an agent says final."""
    temperature: float = option(1.0, "sampling temperature", low=0, high=2)
    """The reference code sets none: the API default, 1.0."""
    max_tokens: int = 1000
    """Longest reply."""


@dataclass(frozen=True)
class GIoTConfig:
    """GIoT settings; defaults are the paper's Game of 24 runs (N = 5)."""

    turns: int = option(5, "discussion turns before the final answer", low=1, high=1000, app=True)
    """N: turns in which the answerer may not conclude; then one closing call (2N + 1 calls)."""
    temperature: float = option(1.0, "sampling temperature", low=0, high=2)
    """The reference code sets none: the API default, 1.0."""
    max_tokens: int = 1000
    """Longest reply."""


class IoT:
    """Iteration of Thought, autonomous (``aiot``) or guided (``giot``)."""

    def __init__(self, config: AIoTConfig | GIoTConfig | None = None) -> None:
        self.config = config or AIoTConfig()
        self.name = "giot" if isinstance(self.config, GIoTConfig) else "aiot"

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        guided = isinstance(cfg, GIoTConfig)
        total = cfg.turns if isinstance(cfg, GIoTConfig) else cfg.iterations
        sampling = Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens)
        turns: list[object] = []
        answer: str | None = None
        for turn in range(1, total + 1):
            ctx.emit(IterationStarted(turn, total, f"turn {turn}"))
            guide = Call(
                "iot_guide",
                domain.prompt("guide", turns=tuple(turns), turn=turn, total=total),
                sampling,
                domain.context(domain.start(), turn=turn),
                json=True,
            )
            gen, call_id = await ctx.call(guide, guide=True)
            guidance = domain.parse_guidance(gen.text)
            if not guidance.parsed:
                ctx.parse_failed("iot_guide", gen.text, "no JSON object with guidance and stop")
            text = guidance.text or "Try again, and check every step."
            for claim in domain.claims(guidance.text):  # the guide's own arithmetic
                ctx.verified(None, claim)
            ctx.emit(TurnGuided(turn, total, text, guidance.stop, "discuss", call_id))
            reply = await self._respond(
                domain, ctx, turns, text, turn, answer, "discuss" if guided else "free"
            )
            answer = reply.answer if reply.answer is not None else answer
            turns.append(domain.turn(text, reply))
            if guided:
                continue
            if guidance.stop:
                ctx.emit(DialogueStopped(turn, "guide", "the guide judged the answer final"))
                return Outcome(answer)
            if reply.final:
                ctx.emit(DialogueStopped(turn, "answerer", "the answerer said its answer is final"))
                return Outcome(answer)
        if not guided:
            ctx.emit(DialogueStopped(total, "cap", f"the cap of {total} turns was reached"))
            return Outcome(answer)
        closing = "This is the last turn: give your definitive answer from the whole discussion."
        ctx.emit(TurnGuided(total + 1, total, closing, False, "final"))
        reply = await self._respond(domain, ctx, turns, closing, total + 1, answer, "close")
        answer = reply.answer if reply.answer is not None else answer
        ctx.emit(DialogueStopped(total + 1, "fixed", f"{total} turns, then the final answer"))
        return Outcome(answer)

    async def _respond(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        turns: list[object],
        guidance: str,
        turn: int,
        previous: str | None,
        mode: str,
    ) -> Reply:
        cfg = self.config
        call = Call(
            "iot_answer",
            domain.prompt("respond", turns=tuple(turns), guidance=guidance, mode=mode),
            Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens),
            domain.context(domain.start(), turn=turn),
            json=True,
        )
        gen, call_id = await ctx.call(call)
        cut = gen.cut(0)
        reply = domain.parse_reply(gen.text)
        if cut:  # an unfinished reply gives no answer and cannot end the dialogue
            reply = Reply(reply.explanation, None, reply.uncertainty, False, reply.parsed)
        elif not reply.parsed:
            ctx.parse_failed("iot_answer", gen.text, "no JSON object with an answer")
        for claim in domain.claims(reply.explanation):
            ctx.verified(None, claim)
        verdict = domain.check(reply.answer)
        ctx.emit(
            TurnAnswered(
                turn,
                reply.explanation,
                reply.answer,
                reply.final,
                reply.uncertainty,
                verdict.ok,
                verdict.reason,
                reply.answer != previous,
                gen.usage.prompt_tokens,
                call_id,
            )
        )
        return reply


SPECS = (
    MethodSpec(
        name="aiot",
        label="AIoT",
        title="Iteration of Thought, autonomous",
        description="A guide prompts, the model answers, until one of them says the answer is "
        "final (two calls a turn).",
        build=IoT,
        config=AIoTConfig,
        roles=ROLES,
        order=15,
        view="dialogue",
        round="turn",
        paper={"game24": "+168% vs CoT"},
        paper_note="IoT, GPT-4o mini, relative to CoT, on random rows of ToT's 24.csv "
        "(not the hard 100); cap 10",
    ),
    MethodSpec(
        name="giot",
        label="GIoT",
        title="Iteration of Thought, guided",
        description="A guide prompts the model for a fixed number of turns, then asks for the "
        "final answer (2N + 1 calls).",
        build=IoT,
        config=GIoTConfig,
        roles=ROLES,
        order=16,
        view="dialogue",
        round="turn",
        paper={"game24": "+266% vs CoT"},
        paper_note="IoT, GPT-4o mini, relative to CoT, on random rows of ToT's 24.csv "
        "(not the hard 100); N = 5",
    ),
)
