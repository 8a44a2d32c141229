"""The baselines of the papers: IO prompting, chain of thought, and CoT self-consistency."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from solver.domains.base import Domain
from solver.events import IterationStarted, LeafReached, SolutionFound, ThoughtAdded
from solver.methods.base import Outcome, RunContext
from solver.methods.spec import MethodSpec, option
from solver.model import CUT_REASONS, Call, Sampling

__all__ = ["IO", "CoT", "CoTConfig", "CoTSC", "CoTSCConfig", "IOConfig", "report_chain"]


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
        ctx.parse_failed("answer", text, "no 'Answer:' line")
    return answer


@dataclass(frozen=True)
class IOConfig:
    """Input-output prompting: few-shot, one sample (ToT's IO baseline)."""

    temperature: float = option(0.7, "sampling temperature", low=0, high=2)
    """Sampling temperature (ToT: 0.7)."""
    max_tokens: int = 1000
    """Longest reply (ToT's reference code: 1000)."""


class IO:
    """Ask for the answer directly, with five worked examples."""

    name = "io"
    purpose = "io"

    def __init__(self, config: IOConfig | None = None) -> None:
        self.config = config or IOConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    role = "io"

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        ctx.emit(IterationStarted(1, 1, self.name))
        call = Call(
            self.purpose,
            domain.prompt(self.role),
            Sampling(self.config.temperature, 1.0, 1, self.config.max_tokens),
            domain.context(domain.start()),
        )
        gen, call_id = await ctx.call(call)
        answer = report_chain(ctx, domain, "s1", gen.text, call_id, gen.cut(0))
        return Outcome(answer, "reply cut" if gen.cut(0) else "done")


@dataclass(frozen=True)
class CoTConfig(IOConfig):
    """Chain of thought: the same examples with three steps each."""


class CoT(IO):
    """Ask for three steps then the answer."""

    name = "cot"
    purpose = "cot"

    def __init__(self, config: CoTConfig | None = None) -> None:
        self.config = config or CoTConfig()

    role = "cot"


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
        cfg = self.config
        messages = domain.prompt("cot")
        batches = []
        offset = 0
        while offset < cfg.samples:
            n = min(cfg.batch, cfg.samples - offset)
            batches.append(
                Call(
                    "cot",
                    messages,
                    Sampling(cfg.temperature, 1.0, n, cfg.max_tokens),
                    domain.context(domain.start()),
                    sample_offset=offset,
                )
            )
            offset += n
        ctx.emit(IterationStarted(1, 1, f"{cfg.samples} samples"))
        results = await ctx.gather(*(ctx.call(c) for c in batches))
        votes: Counter[str] = Counter()
        first: dict[str, str] = {}
        index = 0
        for gen, call_id in results:
            for i, text in enumerate(gen.texts):
                index += 1
                answer = report_chain(ctx, domain, f"s{index}", text, call_id, gen.cut(i))
                if not answer:
                    continue
                key = domain.answer_key(answer)
                if key is None:
                    continue
                votes[key] += 1
                first.setdefault(key, answer)
        if not votes:
            return Outcome(None)
        best, count = votes.most_common(1)[0]
        return Outcome(first[best], votes=count)


IO_SPEC = MethodSpec(
    name="io",
    label="IO",
    title="input-output prompting",
    description="Answers at once, from a few worked examples, with no steps.",
    build=IO,
    config=IOConfig,
    roles=frozenset({"io"}),
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
    roles=frozenset({"cot"}),
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
    roles=frozenset({"cot"}),
    order=30,
    round="step",
    paper={"game24": "9.0%"},
    paper_note="ToT, Table 2, GPT-4, k = 100",
    aliases=("cotsc", "cot_sc"),
)
SPECS = (SPEC, COT_SPEC, IO_SPEC)
"""A module with several methods lists them all in ``SPECS``."""
