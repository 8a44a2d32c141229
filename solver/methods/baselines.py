"""The baselines of the papers: IO prompting, chain of thought, and CoT self-consistency."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from solver.domains.base import Domain
from solver.events import IterationStarted, LeafReached, SolutionFound, ThoughtAdded
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import CUT_REASONS, Call, Message, Sampling
from solver.roles import Purpose, Role

__all__ = [
    "IO",
    "CoT",
    "CoTConfig",
    "CoTSC",
    "CoTSCConfig",
    "IOConfig",
    "Vote",
    "report_chain",
]


def report_chain(
    ctx: RunContext,
    domain: Domain[Any, Any],
    tree_id: str,
    text: str,
    call_id: int | None,
    cut: str | None = None,
) -> str | None:
    """Show a sampled chain of steps as one branch of thoughts, verify every arithmetic claim
    in it, and return the answer it ends with (or None).

    ``cut`` says why the reply is unfinished (``length``, ``content_filter``): its steps are
    shown, but it gives no answer, whatever its last lines say."""
    state = domain.start()
    parent: str | None = None
    depth = 0
    for line in text.splitlines()[:40]:
        if not line.strip():
            continue
        steps = domain.parse_steps(line, state, limit=1)
        answer = domain.parse_answer(line)
        if not steps and answer is None:
            continue
        node = ctx.node_id()
        depth += 1
        if steps:
            step = steps[0]
            after = domain.after(step)
            ctx.emit(
                ThoughtAdded(
                    tree_id,
                    node,
                    parent,
                    step.text,
                    depth,
                    domain.state_text(after) if after is not None else "",
                    call_id,
                )
            )
            ctx.verified(node, step.claim)
            if after is not None:
                state = after
        else:
            ctx.emit(ThoughtAdded(tree_id, node, parent, line.strip()[:200], depth, "", call_id))
            for claim in domain.claims(line):
                ctx.verified(node, claim)
        parent = node
    if cut is not None:
        if parent is not None:
            ctx.emit(LeafReached(parent, f"the reply was {CUT_REASONS[cut]}: no answer taken"))
        return None
    answer = domain.parse_answer(text)
    if parent is not None:
        verdict = domain.check(answer)
        if verdict.ok:
            ctx.emit(SolutionFound(parent, answer or ""))
        else:
            ctx.emit(LeafReached(parent, verdict.reason))
    if answer is None:
        ctx.parse_failed(Purpose.ANSWER, text, "no 'Answer:' line")
    return answer


def sample_calls(
    purpose: Purpose,
    messages: tuple[Message, ...],
    sampling: Sampling,
    samples: int,
    batch: int,
    context: dict[str, object],
) -> list[Call]:
    """``samples`` draws of one prompt, ``batch`` at most per call, each call told where its
    samples start (so no two calls share a sample index)."""
    calls = []
    offset = 0
    while offset < samples:
        n = min(max(1, batch), samples - offset)
        calls.append(Call(purpose, messages, replace(sampling, n=n), context, sample_offset=offset))
        offset += n
    return calls


BEST_OF_PAPER: dict[tuple[str, str], str] = {("io", "game24"): "33%", ("cot", "game24"): "49%"}
"""ToT's best-of-100 oracle rows (Table 2, GPT-4), by (method, kind); the means over the same
100 samples are the specs' ``paper`` figures."""

FIRST_SAMPLE_ANSWERS = frozenset({Role.IO, Role.COT})
"""The sampling methods whose answer is their first sample (CoT-SC's is the majority); their
specs' ``paper`` figures are ToT's means over 100 samples."""

SAMPLES_HELP = (
    "samples per hand; the answer is the first sample's, and bench also reports success "
    "averaged over the k samples and best of k (a hand counts if any sample is right)"
)


@dataclass(frozen=True)
class IOConfig:
    """Input-output prompting: few-shot, k samples (ToT's IO baseline: 5 examples, 100
    samples a hand, success averaged over them and best of 100)."""

    temperature: float = option(0.7, "sampling temperature", low=0, high=2)
    """Sampling temperature (ToT: 0.7)."""
    max_tokens: int = 1000
    """Longest reply (ToT's reference code: 1000)."""
    samples: int = option(1, SAMPLES_HELP, low=1, high=10_000)
    """k, draws per hand. The run's answer is the first sample's, so the default of 1 is one
    attempt, as the app and ``ponder solve`` show it; ToT's figures (7.3 % IO, 4.0 % CoT) are
    the mean over 100 samples, which one sample estimates without bias, and its best-of-100
    oracle (33 %, 49 %) needs k = 100: ``--samples 100`` reproduces the protocol."""
    batch: int = 20
    """Samples asked for in one call (ToT asked for 20 at a time)."""


class IO:
    """Ask for the answer directly, with five worked examples; k samples are each checked
    exactly, and the run reports how many were right."""

    name = "io"
    purpose = Purpose.IO

    def __init__(self, config: IOConfig | None = None) -> None:
        self.config = config or IOConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    role = Role.IO

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        k = cfg.samples
        ctx.emit(IterationStarted(1, 1, self.name if k == 1 else f"{k} samples"))
        calls = sample_calls(
            self.purpose,
            domain.prompt(self.role),
            Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens),
            k,
            cfg.batch,
            domain.context(domain.start()),
        )
        results = await ctx.gather(*(ctx.call(c) for c in calls))
        first: str | None = None
        first_cut: str | None = None
        right = index = 0
        for gen, call_id in results:
            for i, text in enumerate(gen.texts):
                index += 1
                answer = report_chain(ctx, domain, f"s{index}", text, call_id, gen.cut(i))
                if index == 1:
                    first, first_cut = answer, gen.cut(i)
                if answer is not None and domain.check(answer).ok:
                    right += 1
        # The run's answer is the first sample's (one attempt); every sample is counted, and
        # a sample a server did not send counts as wrong (the mean is over k).
        reason = "reply cut" if first_cut else "done"
        return Outcome(first, reason, samples=k, samples_solved=right)


@dataclass(frozen=True)
class CoTConfig(IOConfig):
    """Chain of thought: the same examples with three steps each."""


class CoT(IO):
    """Ask for three steps then the answer."""

    name = "cot"
    purpose = Purpose.COT

    def __init__(self, config: CoTConfig | None = None) -> None:
        self.config = config or CoTConfig()

    role = Role.COT


@dataclass(frozen=True)
class CoTSCConfig:
    """CoT self-consistency: the majority answer of k chain-of-thought samples."""

    samples: int = option(100, "chain-of-thought samples", low=1, high=10_000, app=True)
    """k, the number of CoT samples (ToT's CoT-SC baseline: 100)."""
    temperature: float = option(0.7, "sampling temperature", low=0, high=2)
    """Sampling temperature."""
    max_tokens: int = 1000
    """Longest reply."""
    batch: int = 20
    """Samples asked for in one call (OpenAI allows n up to 128; ToT asked for 20 at a time)."""


class CoTSC:
    """Sample k chains and answer with the most common answer."""

    name = "cot-sc"

    def __init__(self, config: CoTSCConfig | None = None) -> None:
        self.config = config or CoTSCConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        return (await self.vote(domain, ctx)).outcome()

    async def vote(self, domain: Domain[Any, Any], ctx: RunContext) -> Vote:
        """Draw the k samples, show each, and count their answers' votes."""
        cfg = self.config
        batches = sample_calls(
            Purpose.COT,
            domain.prompt(Role.COT),
            Sampling(cfg.temperature, 1.0, 1, cfg.max_tokens),
            cfg.samples,
            cfg.batch,
            domain.context(domain.start()),
        )
        ctx.emit(IterationStarted(1, 1, f"{cfg.samples} samples"))
        results = await ctx.gather(*(ctx.call(c) for c in batches))
        vote = Vote(cfg.samples)
        index = 0
        for gen, call_id in results:
            for i, text in enumerate(gen.texts):
                index += 1
                answer = report_chain(ctx, domain, f"s{index}", text, call_id, gen.cut(i))
                if not answer:
                    continue
                vote.right += domain.check(answer).ok
                key = domain.answer_key(answer)
                if key is None:
                    continue
                vote.votes[key] += 1
                vote.first.setdefault(key, answer)
        return vote


@dataclass
class Vote:
    """CoT-SC's count: votes by answer key (the domain's normal form), the first answer
    written for each key, and how many samples were right."""

    samples: int
    votes: Counter[str] = field(default_factory=Counter)
    first: dict[str, str] = field(default_factory=dict)
    right: int = 0

    @property
    def majority(self) -> tuple[str | None, int]:
        """The most common answer (as first written) and its votes; (None, 0) with no vote."""
        if not self.votes:
            return None, 0
        best, count = self.votes.most_common(1)[0]
        return self.first[best], count

    def outcome(self) -> Outcome:
        """CoT-SC's result: the majority answer, its votes, the samples drawn and right."""
        answer, count = self.majority
        return Outcome(answer, votes=count, samples=self.samples, samples_solved=self.right)


IO_SPEC = MethodSpec(
    name="io",
    label="IO",
    title="input-output prompting",
    description="Answers at once, from a few worked examples, with no steps.",
    build=IO,
    config=IOConfig,
    roles=frozenset({Role.IO}),
    order=50,
    round="step",
    paper={"game24": "7.3%", "crossword": "38.7 / 14 / 0"},
    paper_note="ToT, GPT-4, Table 2 (24) and Table 3 (crosswords)",
)
COT_SPEC = MethodSpec(
    name="cot",
    label="CoT",
    title="chain of thought",
    description="Writes one step-by-step solution.",
    build=CoT,
    config=CoTConfig,
    roles=frozenset({Role.COT}),
    order=40,
    round="step",
    paper={"game24": "4.0%", "crossword": "40.6 / 15.6 / 1"},
    paper_note="ToT, GPT-4, Table 2 (24) and Table 3 (crosswords)",
)
SPEC = MethodSpec(
    name="cot-sc",
    label="CoT-SC",
    title="chain-of-thought self-consistency",
    description="Writes many step-by-step solutions and answers with the most common one.",
    build=CoTSC,
    config=CoTSCConfig,
    roles=frozenset({Role.COT}),
    order=30,
    round="step",
    paper={"game24": "9.0%"},
    paper_note="ToT, Table 2, GPT-4, k = 100",
    aliases=("cotsc", "cot_sc"),
)
SPECS = (SPEC, COT_SPEC, IO_SPEC)
"""A module with several methods lists them all in ``SPECS``."""
