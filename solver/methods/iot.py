"""Iteration of Thought (Radha et al. 2024): an inner dialogue instead of a tree.

An Inner Dialogue Agent (the guide) writes a context-specific prompt from the query and the
dialogue so far; the LLM Agent (the answerer) replies to it with its reasoning, its doubts and
a candidate answer. The whole transcript travels in every call. Turns are counted by the
answerer's replies, from 1.

Who speaks first is ``iot_start``: ``answer`` (the paper's Algorithm 1, line 1: the answerer's
own unguided answer, then the guide reacts to it) or ``guide`` (the reference code's order: the
guide's prompt opens the dialogue); ``auto`` is ``answer``, under ``paper`` and everyday alike
(the guide's prompts are written to answer a reply, and an easy puzzle ends in one call).

- **AIoT** (autonomous): the dialogue ends when the answerer says its own answer is final
  (its ``iteration_stop``), or at the cap T (10) of guided turns: Algorithm 1's r_0 and then at
  most T guided turns, so T + 1 answers with the answer start, T with the guide's. The guide's
  stop flag is its advice and is shown, but it judges the reply before the new one and ends
  nothing. Two calls a guided turn.
- **GIoT** (guided): exactly N answers (5), as the paper counts them: N - 1 forced turns in
  which the answerer may not conclude, and the definitive answer at the N-th; N - 1 guide
  calls, so 2N - 1 calls. With the answer start the first answer is unguided and the N-th is
  guided; with the guide's, the N-th answers a fixed closing request.

Every turn's candidate answer is checked exactly by the domain beside the model's own claim,
so premature stops, confident wrong answers and drift after being right are visible. The
guide may be another model (``guide_model`` of the run), as the paper allows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain, Reply
from solver.domains.dialogue import IOT_FIRST_PROMPT
from solver.events import DialogueStopped, IterationStarted, TurnAnswered, TurnGuided
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role

__all__ = ["AIoTConfig", "GIoTConfig", "IoT", "first_speaker"]

ROLES = frozenset({Role.GUIDE, Role.RESPOND})

STARTS = ("auto", "answer", "guide")
EVERYDAY_START = "answer"
"""What ``auto`` means outside ``paper``: the answerer first, as the paper (our judgement:
the guide then always has a reply to work on, and a puzzle solved at once costs one call)."""
START_HELP = (
    "who speaks first: answer (the answerer's own unguided answer, then the guide: the "
    "paper's Algorithm 1), guide (the guide's prompt first: the reference code's order) or "
    "auto (answer, with --paper and without)"
)
PAPER_HELP = "run as the paper does: --iot-start auto opens with the answerer's own answer"
CLOSING = "This is the last turn: give your definitive answer from the whole discussion."
"""GIoT's N-th prompt when the guide spoke first (its N - 1 guide calls are spent)."""


@dataclass(frozen=True)
class AIoTConfig:
    """AIoT settings; defaults are the paper's Game of 24 runs (cap 10)."""

    iterations: int = option(
        10,
        "most guided turns (the cap T), after the first answer when the answerer speaks first",
        low=1,
        high=1000,
        app=True,
    )
    """T: the cap on guided turns (Algorithm 1's ``i <= T``); the dialogue usually ends
    earlier, when the answerer says its answer is final."""
    iot_start: str = option("auto", START_HELP, choices=STARTS, app=True)
    """Who speaks first: ``answer``, ``guide`` or ``auto`` (see :func:`first_speaker`)."""
    temperature: float = option(1.0, "sampling temperature", low=0, high=2)
    """The reference code sets none: the API default, 1.0."""
    paper: bool = option(False, PAPER_HELP)
    """Run as the paper: ``auto`` start is the answerer's (Algorithm 1, line 1)."""
    max_tokens: int = 1000
    """Longest reply."""


@dataclass(frozen=True)
class GIoTConfig:
    """GIoT settings; defaults are the paper's Game of 24 runs (N = 5)."""

    turns: int = option(
        5,
        "answers in all (N): N - 1 forced turns, the final answer at the N-th",
        low=1,
        high=1000,
        app=True,
    )
    """N: the answerer's replies; the first N - 1 may not conclude (2N - 1 calls)."""
    iot_start: str = option("auto", START_HELP, choices=STARTS, app=True)
    """Who speaks first: ``answer``, ``guide`` or ``auto`` (see :func:`first_speaker`)."""
    temperature: float = option(1.0, "sampling temperature", low=0, high=2)
    """The reference code sets none: the API default, 1.0."""
    paper: bool = option(False, PAPER_HELP)
    """Run as the paper: ``auto`` start is the answerer's."""
    max_tokens: int = 1000
    """Longest reply."""


def first_speaker(config: AIoTConfig | GIoTConfig) -> str:
    """``answer`` or ``guide``: ``iot_start`` as given, ``auto`` resolved (the paper's order
    under ``paper``, else the everyday default)."""
    if config.iot_start != "auto":
        return config.iot_start
    return "answer" if config.paper else EVERYDAY_START


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


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
        answer_first = first_speaker(cfg) == "answer"
        if isinstance(cfg, GIoTConfig):
            total = cfg.turns
        else:  # Algorithm 1: r_0, then at most T guided turns
            total = cfg.iterations + (1 if answer_first else 0)
        sampling = Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens)
        turns: list[object] = []
        answer: str | None = None
        for turn in range(1, total + 1):
            last = guided and turn == total
            label = "first answer, unguided" if answer_first and turn == 1 else f"turn {turn}"
            ctx.emit(IterationStarted(turn, total, label + (", final answer" if last else "")))
            if answer_first and turn == 1:
                text = ""  # no guide call: the answerer's own answer to the query
                ctx.emit(TurnGuided(turn, total, IOT_FIRST_PROMPT, False, "first"))
            elif last and not answer_first:
                text = CLOSING  # the N - 1 guide calls are spent
                ctx.emit(TurnGuided(turn, total, text, False, "final"))
            else:
                text = await self._guide(domain, ctx, turns, turn, total, sampling)
            mode = ("close" if last else "discuss") if guided else "free"
            reply = await self._respond(domain, ctx, turns, text, turn, answer, mode)
            answer = reply.answer if reply.answer is not None else answer
            turns.append(domain.turn(text, reply))
            if not guided and reply.final:  # only the answerer's own flag ends AIoT
                why = "the answerer said its own answer is final (its iteration_stop)"
                ctx.emit(DialogueStopped(turn, "answerer", why))
                return Outcome(answer)
        if isinstance(cfg, GIoTConfig):
            forced = _count(total - 1, "forced turn")
            why = f"{_count(total, 'answer')}: {forced}, then the final answer"
            ctx.emit(DialogueStopped(total, "fixed", why))
        else:
            why = f"the cap of {_count(cfg.iterations, 'guided turn')} was reached"
            ctx.emit(DialogueStopped(total, "cap", why))
        return Outcome(answer)

    async def _guide(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        turns: list[object],
        turn: int,
        total: int,
        sampling: Sampling,
    ) -> str:
        """The guide's prompt for this turn (its stop flag is shown as its advice only)."""
        guide = Call(
            Purpose.IOT_GUIDE,
            domain.prompt(Role.GUIDE, turns=tuple(turns), turn=turn, total=total),
            sampling,
            domain.context(domain.start(), turn=turn),
            json=True,
        )
        gen, call_id = await ctx.call(guide, guide=True)
        guidance = domain.parse_guidance(gen.text)
        if not guidance.parsed:
            ctx.parse_failed(Purpose.IOT_GUIDE, gen.text, "no JSON object with guidance and stop")
        text = guidance.text or "Try again, and check every step."
        for claim in domain.claims(guidance.text):  # the guide's own arithmetic
            ctx.verified(None, claim)
        ctx.emit(TurnGuided(turn, total, text, guidance.stop, "discuss", call_id))
        return text

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
            Purpose.IOT_ANSWER,
            domain.prompt(Role.RESPOND, turns=tuple(turns), guidance=guidance, mode=mode),
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
            ctx.parse_failed(Purpose.IOT_ANSWER, gen.text, "no JSON object with an answer")
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
        description="The model answers, a guide prompts it again, until the model says its "
        "answer is final (two calls a guided turn).",
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
        description="The model answers N times, guided between answers, and concludes only at "
        "the N-th (2N - 1 calls).",
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
