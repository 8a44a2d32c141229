"""Boosting of Thoughts (Chen, Li, Niu, ICLR 2024).

Each iteration grows ``trees`` small weighted binary trees from a prompt that carries all the
experience so far, each tree with its own temperature, top_p and growth strategy (drawn per
tree and sent per call; nothing is shared). A node is one step with the model's own score V_i
(the ``Evaluation score`` it appends) and an edge score V_{i-1,i} from a separate evaluation
call. A node is a leaf at the depth limit, when the step is invalid, or when both its scores
lie below the leaf band [0.3, 0.8] (hopeless; with ``confident_leaf``, the paper's text, also
above it). Each tree's best chain maximises the sum of V_i + V_{i-1,i}; chains are aggregated
best-first or greedily; the model then analyses the aggregated chain, and the chain (each step
with the score the model gave it) plus the analysis exactly as the model wrote it become the
next experience entry (an entry that repeats an earlier one word for word is left out). The
answer is the last aggregated chain z^T, or with ``final_prompt`` (the paper's text) the
answer to one last call whose prompt I^{T+1} carries all the experience (with
``stop_early``, the first chain that reaches 24 exactly). ``paper`` turns on the paper's text
for each of these unless it is set: the two-sided band, the final prompt, and an analysis
prompt that shows the chain alone (``checked_analysis``, ours, adds the exact check of a word
problem's arithmetic).

The paper's variants are options: ``experience`` (additive, cumulative with a condensation
call, BoT(No)'s chains without analysis, or none in the prompts), ``examples`` (BoT+CoT) and
``similarity`` (greedy aggregation's exact measure or the model's judgement).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from solver.domains.base import Claiming, Domain, FeedbackLike, RolesMissing, require_roles
from solver.events import (
    ChainAggregated,
    ExperienceAdded,
    ExperienceCarried,
    FinalAnswered,
    IterationStarted,
    LeafReached,
    SolutionFound,
    ThoughtAdded,
    ThoughtScored,
    TreeStarted,
)
from solver.methods.base import Outcome, RunContext, StopRun
from solver.methods.spec import MethodSpec, option
from solver.model import Call, Sampling
from solver.roles import Purpose, Role

__all__ = ["BoT", "BoTConfig", "Node"]

TEMPERATURES = (0.2, 0.4, 0.6, 0.7, 0.9, 1.1, 1.5)
TOP_PS = (0.1, 0.3, 0.5, 0.7, 0.9)


@dataclass(frozen=True)
class BoTConfig:
    """BoT settings; defaults are the paper's Game of 24 setup."""

    iterations: int = option(10, "boosting iterations", low=1, high=10_000, app=True)
    """T: boosting iterations, each adding one experience entry."""
    trees: int = option(15, "thought trees per iteration", low=1, high=10_000, app=True)
    """M: thought trees grown per iteration."""
    depth: int | None = None
    """Tree depth; None: one level per step of the hand (3 for four numbers, as the paper)."""
    children: int = 2
    """Children per node (binary trees)."""
    growth: tuple[str, ...] = ("layer", "leaf")
    """Growth strategies drawn per tree: layer-wise (level by level, the whole tree) or
    leaf-wise (always from the best node of the deepest layer, until ``leaf_stops`` leaves)."""
    leaf_stops: int = option(
        4,
        "a leaf-wise tree stops after this many leaves (the reference code's max_stops)",
        low=1,
        high=10_000,
    )
    """Leaf-wise growth ends once this many leaves are reached (the reference code's
    ``max_stops``, 4 for the Game of 24) or at its first solution (the reference code's early
    stop of a tree), so its trees are deeper than wide: the best branch is followed to the
    depth limit while the rest of the tree may never be grown."""
    temperatures: tuple[float, ...] = TEMPERATURES
    """Temperatures drawn per tree."""
    top_ps: tuple[float, ...] = TOP_PS
    """top_p values drawn per tree."""
    homogeneous: bool = option(
        False, "one draw of growth, temperature and top_p for every tree (an ablation)"
    )
    """Off (the paper's heterogeneous trees, App. C2): each tree draws its own growth
    strategy, temperature and top_p. On: one draw at the start serves every tree of the run
    (the homogeneous ablation)."""
    leaf_band: tuple[float, float] = (0.3, 0.8)
    """A node whose two scores both fall below this band is a hopeless leaf (and, with the
    confident leaf rule, one whose two scores both lie above it is a confident leaf)."""
    confident_leaf: bool | None = option(
        None,
        "the paper's two-sided leaf band: also end a branch when both scores exceed 0.8 "
        "(on under --paper, off otherwise)",
    )
    """The leaf rule. On (the paper's text, and the default under ``paper``): a node is a
    leaf when both its scores fall outside the band [0.3, 0.8], below it (hopeless) or above
    it (confident). Off (the default otherwise, as the reference code): only the hopeless
    side ends a branch, since in the Game of 24 a "confident" step that has not used all four
    numbers is not an answer. None: as ``paper`` says."""
    final_prompt: bool | None = option(
        None,
        "the answer from one last call whose prompt carries all the experience (the paper's "
        "I^{T+1}; on under --paper); off: the last aggregated chain z^T, no call (the default "
        "otherwise: an analysed chain whose every step was scored)",
    )
    """Where the answer comes from. On (the paper's text, and the default under ``paper``):
    after the last iteration, one ``bot_final`` call with the prompt I^{T+1} (the task and
    every experience entry) asks for the whole solution, and its answer is the run's. Off
    (the default otherwise): the last aggregated chain z^T (Algorithm 1), with no call; we
    keep it as the default because that chain was grown step by step, scored, aggregated and
    analysed, while the final prompt is one unchecked sample. None: as ``paper`` says."""
    checked_analysis: bool | None = option(
        None,
        "word problems: the analysis prompt also carries each step's arithmetic checked "
        "exactly (ours, a tool for the analyst; on by default, off under --paper)",
    )
    """Word problems: the analysis prompt carries the exact check of each step's arithmetic
    beside the chain (ours: a tool-augmented BoT). Off (the paper, and the default under
    ``paper``): the analysis sees only the chain. Other kinds' analysis prompts carry no
    check either way. None: as ``paper`` says."""
    final_temperature: float = 0.3
    """The final call's temperature (the reference configuration's generation setting)."""
    final_top_p: float = 0.3
    """The final call's top_p (the reference configuration's)."""
    aggregation: str = option(
        "best_first", "chain aggregation", choices=("best_first", "greedy"), app=True
    )
    """``best_first`` (the best chain of all trees) or ``greedy`` (stitched step by step)."""
    similarity: str = option(
        "exact",
        "greedy aggregation's step similarity: exact (free and deterministic: the share of "
        "the same numbers and operators) or model (the paper's: the model judges each pair, "
        "one call per comparison)",
        choices=("exact", "model"),
    )
    """How greedy aggregation judges that a step continues the last chosen one. ``exact``
    (default): the domain's own measure (for the Game of 24 the share of identical numbers
    and operators), which costs no call and gives the same chain every time. ``model``: the
    paper's LLM-judged percentage of identical words and numbers, one ``bot_similar`` call per
    pair of different steps (identical texts are the same step without asking; a pair asked
    once in a run is not asked again)."""
    similar_above: float = 0.7
    """Greedy aggregation: steps more similar than this to the last chosen one can be
    continued (the paper's empirical 0.7)."""
    experience: str = option(
        "additive",
        "what later iterations learn from: additive (each analysed chain appended), "
        "cumulative (a condensation call rewrites all of it into one shorter text each "
        "iteration), chains (BoT(No): every tree's best chain as it is, no analysis call), "
        "none (the ablation: no experience in the prompts; the analysis calls are still made, "
        "so the call counts compare)",
        choices=("additive", "cumulative", "chains", "none"),
    )
    """The experience variants of the paper's Table 4. ``additive`` (default): the aggregated
    chain and its analysis are appended each iteration and all entries are kept. ``cumulative``
    (our reading of the paper's undefined term): after each entry is added, one ``bot_condense``
    call rewrites the whole experience into one shorter text that replaces it. ``chains``
    (BoT(No)): no analysis call; each iteration's best chains of every tree, with their scores,
    are the entry. ``none``: the prompts carry no experience (every iteration starts like the
    first); the analysis is still asked and shown, so only the prompts differ."""
    examples: bool = option(
        False, "BoT+CoT: worked examples (our own, of other hands) in the step prompt"
    )
    """BoT+CoT: the step prompt shows worked examples of whole chains (the domain's own,
    never a benchmark hand with its answer); off, the paper's BoT starts from a prompt with
    no exemplars. The Game of 24 shows them for four-number hands and 24 only."""
    eval_temperature: float = 0.2
    """Evaluation calls' temperature (the reference code forces 0.2)."""
    eval_top_p: float = 0.2
    """Evaluation calls' top_p."""
    feedback_temperature: float = 0.3
    """Temperature of the analysis call (the reference configuration: 0.3)."""
    max_tokens: int = 500
    """Longest reply (the reference configuration: 500)."""
    verify_steps: bool = True
    """Make steps with wrong arithmetic or unavailable numbers leaves with edge score 0 (ours;
    the paper leaves them to the model's own evaluation). Off, the state follows what the
    model wrote, as in ``paper`` mode (never the exact result of a step it got wrong)."""
    paper: bool = option(
        False,
        "run as the paper does: the model's own results and sets carry on, wrong steps "
        "included; the verifier only reports; both scores above 0.8 also end a branch; the "
        "answer comes from the final prompt with all the experience; the analysis sees the "
        "chain alone; success is the exact check of the final answer",
    )
    """The paper's mechanism: each node's state is what the model wrote (its ``New number``
    and ``New set``), a wrong step is carried into its children (and reported ✗), steps are
    scored by the model alone; a chain solves the hand only when it claims the target and
    its expression passes the exact check. Unless set otherwise it also turns on
    ``confident_leaf`` and ``final_prompt`` and turns off ``checked_analysis``. Off (ours):
    steps are checked exactly and wrong ones end their branch."""
    stop_early: bool = option(False, "stop once an answer is verified exactly")
    """End the run once a chain reaches the target exactly (on in the app, off for benchmarks)."""


@dataclass
class Node:
    """One thought in a tree."""

    id: str
    parent: Node | None
    state: Any
    depth: int
    text: str = ""  # the step, in BoT's format
    line: str = ""  # the step as 'a op b = c (left: ...)'
    score: float = 0.0  # V_i, the model's own score
    edge: float = 0.0  # V_{i-1,i}, from the evaluation call
    leaf: bool = False
    valid: bool = True
    problem: str = ""
    children: list[Node] = field(default_factory=list)
    grown: bool = False  # asked for children (leaf-wise trees leave some nodes unasked)
    solved: bool = False  # a solution, checked exactly

    def chain(self) -> list[Node]:
        out: list[Node] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            out.append(node)
            node = node.parent
        return out[::-1]


@dataclass
class _Tree:
    id: str
    index: int  # 1-based, within its iteration
    temperature: float
    top_p: float
    nodes: list[Node] = field(default_factory=list)


class BoT:
    """Boosting of Thoughts."""

    name = "bot"

    def __init__(self, config: BoTConfig | None = None) -> None:
        self.config = config or BoTConfig()

    def config_dict(self) -> dict[str, Any]:
        return asdict(self.config)

    async def run(self, domain: Domain[Any, Any], ctx: RunContext) -> Outcome:
        cfg = self.config
        self._require(domain)
        # Past runs' entries (the experience library; none by default) come first.
        experience: list[str] = list(ctx.past_experience)
        if experience:  # the pane marks them apart from this run's own
            ctx.emit(ExperienceCarried(tuple(experience), cfg.experience == "none"))
        structured: list[dict[str, Any]] = []
        bodies: dict[str, int] = {}  # an entry's text after its number -> its iteration
        judged: dict[tuple[str, str], float] = {}  # similarity model: pairs asked this run
        # Homogeneous trees: one draw of growth, temperature and top_p for every tree.
        same: tuple[str, float, float] | None = None
        if cfg.homogeneous:
            same = (
                ctx.rng.choice(cfg.growth),
                ctx.rng.choice(cfg.temperatures),
                ctx.rng.choice(cfg.top_ps),
            )
        answer: str | None = None
        for it in range(1, cfg.iterations + 1):
            ctx.emit(IterationStarted(it, cfg.iterations, f"iteration {it}"))
            specs = []
            for m in range(1, cfg.trees + 1):
                # Drawn per tree and carried by each call: no shared generation settings.
                drawn = same or (
                    ctx.rng.choice(cfg.growth),
                    ctx.rng.choice(cfg.temperatures),
                    ctx.rng.choice(cfg.top_ps),
                )
                specs.append((f"i{it}.t{m}", m, *drawn))
            # The ablation keeps experience out of the prompts (and out of what was asked).
            shown = cfg.experience != "none"
            exp_text = "\n#\n".join(experience) if shown else ""
            asked = structured if shown else []
            trees = await ctx.gather(
                *(self._grow(domain, ctx, spec, exp_text, asked) for spec in specs)
            )
            chains = [c for c in (self._best_chain(t) for t in trees) if c]
            if not chains:
                continue
            if cfg.aggregation == "greedy":
                depth = self._depth(domain)
                chain = await self._aggregate_greedy(domain, ctx, chains, depth, judged)
            else:
                chain = max(chains, key=chain_score)
            lines = [n.line for n in chain]
            ctx.emit(
                ChainAggregated(
                    it,
                    cfg.aggregation,
                    tuple(n.id for n in chain),
                    tuple(lines),
                    round(chain_score(chain), 3),
                )
            )
            final_state, verdict, ok = self.check_chain(domain, chain)
            # The answer is always the latest aggregated chain (the paper's z^T).
            answer = domain.answer_of(final_state) if final_state is not None else None
            feedback: FeedbackLike | None = None
            if cfg.experience == "chains":  # BoT(No): the chains themselves, no analysis
                entry = _chains_entry(it, chains)
            else:
                feedback = await self._analyse(domain, ctx, chain)
                # The chain as the model wrote it, each step with its own score, then the
                # analysis exactly as the model wrote it.
                entry = feedback.entry(it, [_scored_step(n) for n in chain])
            # An entry that repeats an earlier one word for word (the same chain, the same
            # analysis) is left out: the prompts carry it once, never a line of ours in its
            # place, and the pane says so. (Cumulative experience condenses repeats itself.)
            body = entry.split("\n", 1)[-1]
            repeat_of = bodies.get(body, 0) if cfg.experience != "cumulative" else 0
            if repeat_of:
                entry = ""
            else:
                bodies[body] = it
                experience.append(entry)
            if cfg.experience == "cumulative":
                # One shorter text replaces the whole experience; the pane shows that text.
                condensed = await self._condense(domain, ctx, "\n#\n".join(experience))
                if condensed is not None:
                    experience = [condensed]
                entry = experience[0]
            structured.append(
                {
                    "chain": lines,
                    "verdicts": list(feedback.verdicts) if feedback else [],
                    "advice": list(feedback.advice) if feedback else [],
                    "confidence": feedback.confidence if feedback else None,
                }
            )
            ctx.emit(
                ExperienceAdded(
                    it,
                    tuple(lines),
                    feedback.report if feedback else "no analysis: the chains are the experience",
                    feedback.advice if feedback else (),
                    feedback.confidence if feedback else None,
                    verdict,
                    ok,
                    feedback.verdicts if feedback else (),
                    # What the next prompts carry: nothing in the ablation or for a repeat.
                    entry if shown else "",
                    feedback.analysis if feedback else (),
                    repeat_of,
                )
            )
            if ok and cfg.stop_early:
                return Outcome(answer, "solved early")
        if self._final_prompt():
            # The paper's I^{T+1}: the prompt with every experience entry gives the answer.
            shown = cfg.experience != "none"
            answer = await self._final(
                domain,
                ctx,
                "\n#\n".join(experience) if shown else "",
                structured if shown else [],
            )
        return Outcome(answer)

    # ---------------------------------------------------------------- trees

    async def _grow(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        spec: tuple[str, int, str, float, float],
        exp_text: str,
        structured: list[dict[str, Any]],
    ) -> _Tree:
        tree_id, index, strategy, temperature, top_p = spec
        root = Node(f"{tree_id}.root", None, domain.start(), 0)
        tree = _Tree(tree_id, index, temperature, top_p)
        ctx.emit(TreeStarted(tree_id, strategy, temperature, top_p))
        if strategy == "layer":
            frontier = [root]
            while frontier:
                groups = await ctx.gather(
                    *(self._expand(domain, ctx, tree, n, exp_text, structured) for n in frontier)
                )
                frontier = [c for g in groups for c in g if not c.leaf]
        else:
            # Leaf-wise (the reference code's LWG): always the best node of the deepest layer,
            # until ``leaf_stops`` leaves are reached or a solution is found (the reference
            # code's early stop of a tree); what is left is never grown.
            growable = [root]
            stops = 0
            while growable and stops < self.config.leaf_stops:
                if any(n.solved for n in tree.nodes):
                    break
                deepest = max(n.depth for n in growable)
                best = max(
                    (n for n in growable if n.depth == deepest), key=lambda n: n.score + n.edge
                )
                growable.remove(best)
                children = await self._expand(domain, ctx, tree, best, exp_text, structured)
                stops += sum(c.leaf for c in children) if children else 1
                growable.extend(c for c in children if not c.leaf)
        return tree

    async def _expand(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        tree: _Tree,
        node: Node,
        exp_text: str,
        structured: list[dict[str, Any]],
    ) -> list[Node]:
        cfg = self.config
        chain = node.chain()
        scored = [(n.text, n.edge) for n in chain]
        call = Call(
            Purpose.BOT_STEP,
            domain.prompt(Role.STEP, experience=exp_text, chain=scored, **self._examples()),
            Sampling(tree.temperature, tree.top_p, cfg.children, cfg.max_tokens),
            # A copy: the list grows after this iteration, and a call is what was asked.
            domain.context(node.state, experience=list(structured), chain=[n.line for n in chain]),
            # Trees share prompts at the root: each tree asks for its own samples, so neither
            # the response cache nor a seeded engine hands two trees the same thoughts.
            sample_offset=(tree.index - 1) * cfg.children,
        )
        gen, call_id = await ctx.call(call)
        node.grown = True
        trust = self._trusts()
        claiming = domain if trust and isinstance(domain, Claiming) else None
        children: list[Node] = []
        seen: set[Any] = set()
        for text in gen.texts:
            steps = domain.parse_steps(text, node.state, limit=8)
            if not steps:
                ctx.parse_failed(Purpose.BOT_STEP, text, "no step found")
                continue
            # Models often repeat the steps so far before the new one: take the first step
            # that can be played from this state (else the first, to be shown as invalid).
            step = next((s for s in steps if s.valid), steps[0])
            key = domain.step_key(step)
            if key in seen:
                continue
            seen.add(key)
            score = domain.parse_score(text)
            if score is None:
                ctx.parse_failed(Purpose.BOT_STEP, text, "no evaluation score; using 0.5")
                score = 0.5
            # Paper mode: the state is what the model wrote, right or wrong.
            after = (
                claiming.claimed(step, node.state) if claiming is not None else domain.after(step)
            )
            child = Node(
                ctx.node_id(f"{tree.id}.n"),
                node,
                after if after is not None else node.state,
                node.depth + 1,
                score=score,
            )
            if after is not None and claiming is not None:
                child.text = claiming.claimed_text(child.depth, node.state, step, after)
                child.line = claiming.claimed_line(step, after)
            elif after is not None:
                child.text = domain.step_text(child.depth, node.state, step)
                child.line = domain.step_line(step)
            else:
                child.text = child.line = step.text
            child.valid = after is not None and (trust or not step.problem)
            child.problem = step.problem
            node.children.append(child)
            tree.nodes.append(child)
            children.append(child)
            ctx.emit(
                ThoughtAdded(
                    tree.id,
                    child.id,
                    node.id if node.parent else None,
                    child.line,
                    child.depth,
                    domain.state_text(after) if after is not None else "",
                    call_id,
                )
            )
            ctx.verified(child.id, step.claim)
        await ctx.gather(*(self._evaluate(domain, ctx, c, scored) for c in children))
        return children

    async def _evaluate(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        child: Node,
        scored: list[tuple[str, float]],
    ) -> None:
        cfg = self.config
        call_id = None
        if not child.valid:
            child.edge = 0.0
        else:
            call = Call(
                Purpose.BOT_EVALUATE,
                domain.prompt(Role.EVALUATE, chain=scored, step=child.text),
                Sampling(cfg.eval_temperature, cfg.eval_top_p, 1, cfg.max_tokens),
                domain.context(child.state, step=child.line),
            )
            gen, call_id = await ctx.call(call)
            edge = domain.parse_score(gen.text)
            if edge is None:
                ctx.parse_failed(Purpose.BOT_EVALUATE, gen.text, "no evaluation score; using 0.5")
                edge = 0.5
            child.edge = edge
        ctx.emit(ThoughtScored(child.id, child.score, child.edge, call_id=call_id))
        lo, hi = cfg.leaf_band
        if domain.is_goal(child.state) and child.valid:
            child.leaf = True
            answer = domain.answer_of(child.state) or ""
            # A goal solves the hand only if its answer checks exactly: a state the model
            # claimed can be wrong (paper mode); one built by checked steps always passes.
            verdict = domain.check(answer)
            if not verdict.ok:
                ctx.emit(LeafReached(child.id, f"claims the target, but {verdict.reason}"))
                return
            child.solved = True
            ctx.emit(SolutionFound(child.id, answer))
            if cfg.stop_early:
                raise StopRun(answer)
        elif not child.valid:
            child.leaf = True
            ctx.emit(LeafReached(child.id, f"invalid step: {child.problem}"))
        elif child.depth >= self._depth(domain) or domain.is_final(child.state):
            child.leaf = True
            ctx.emit(LeafReached(child.id, "depth limit"))
        elif child.score < lo and child.edge < lo:
            child.leaf = True
            ctx.emit(LeafReached(child.id, f"hopeless ({child.score:g}, {child.edge:g})"))
        elif self._confident_leaf() and child.score > hi and child.edge > hi:
            child.leaf = True
            ctx.emit(LeafReached(child.id, f"confident ({child.score:g}, {child.edge:g})"))

    # ---------------------------------------------------------------- aggregation

    def _confident_leaf(self) -> bool:
        """Whether the confident side of the leaf band ends a branch (``paper``: yes)."""
        c = self.config.confident_leaf
        return self.config.paper if c is None else c

    def _final_prompt(self) -> bool:
        """Whether the answer comes from the final prompt I^{T+1} (``paper``: yes)."""
        f = self.config.final_prompt
        return self.config.paper if f is None else f

    def _checked_analysis(self) -> bool:
        """Whether the analysis prompt carries the exact check (``paper``: no)."""
        c = self.config.checked_analysis
        return not self.config.paper if c is None else c

    def _trusts(self) -> bool:
        """Whether states follow what the model wrote (paper mode, or checking off)."""
        return self.config.paper or not self.config.verify_steps

    def _best_chain(self, tree: _Tree) -> list[Node]:
        # Chains end where growth ended: a leaf, or a node that was asked and gave nothing
        # (a leaf-wise tree's nodes that were never grown are not ends).
        ends = [n for n in tree.nodes if not n.children and (n.leaf or n.grown)]
        if not ends:
            return []
        return max((n.chain() for n in ends), key=chain_score)

    def _depth(self, domain: Domain[Any, Any]) -> int:
        return self.config.depth or domain.depth()

    def greedy_chain(
        self, domain: Domain[Any, Any], chains: list[list[Node]], depth: int
    ) -> list[Node]:
        """Stitch a chain step by step from the trees' best chains (the paper's greedy), with
        the domain's exact similarity."""
        out = [_greedy_first(chains)]
        for _ in range(1, depth):
            last = out[-1].line
            sims = {n.line: domain.similarity(last, n.line) for c in chains for n in c[:-1]}
            best = _greedy_next(chains, sims, self.config.similar_above)
            if best is None:
                break
            out.append(best)
        return out

    async def _aggregate_greedy(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        chains: list[list[Node]],
        depth: int,
        judged: dict[tuple[str, str], float],
    ) -> list[Node]:
        """Greedy aggregation with the configured similarity (``model``: the model judges)."""
        if self.config.similarity != "model":
            return self.greedy_chain(domain, chains, depth)
        out = [_greedy_first(chains)]
        for _ in range(1, depth):
            last = out[-1].line
            sims = await self._similarities(
                domain, ctx, last, [n.line for c in chains for n in c[:-1]], judged
            )
            best = _greedy_next(chains, sims, self.config.similar_above)
            if best is None:
                break
            out.append(best)
        return out

    async def _similarities(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        last: str,
        lines: list[str],
        judged: dict[tuple[str, str], float],
    ) -> dict[str, float]:
        """How similar each line is to ``last`` as the model judges it: one call per pair of
        different texts not asked yet this run (identical texts are the same step)."""
        judge = _judging(domain)
        out: dict[str, float] = {}
        ask: list[str] = []
        for line in lines:
            if line == last:
                out[line] = 1.0
            elif (last, line) in judged:
                out[line] = judged[(last, line)]
            elif line not in ask:
                ask.append(line)

        async def one(line: str) -> None:
            cfg = self.config
            call = Call(
                Purpose.BOT_SIMILAR,
                domain.prompt(Role.SIMILAR, a=last, b=line),
                Sampling(cfg.eval_temperature, cfg.eval_top_p, 1, cfg.max_tokens),
                domain.context(domain.start(), a=last, b=line),
            )
            gen, _ = await ctx.call(call)
            value = judge.parse_similarity(gen.text)
            if value is None:
                ctx.parse_failed(Purpose.BOT_SIMILAR, gen.text, "no similarity; taken as different")
                value = 0.0
            judged[(last, line)] = out[line] = value

        await ctx.gather(*(one(line) for line in ask))
        return out

    def _examples(self) -> dict[str, bool]:
        return {"examples": True} if self.config.examples else {}

    def _require(self, domain: Domain[Any, Any]) -> None:
        """The roles this run's options need beyond BoT's own, named before any call."""
        cfg = self.config
        if cfg.experience == "cumulative":
            require_roles("bot --experience cumulative", frozenset({Role.CONDENSE}), domain)
            _condensing(domain)
        if cfg.similarity == "model" and cfg.aggregation == "greedy":
            require_roles("bot --similarity model", frozenset({Role.SIMILAR}), domain)
            _judging(domain)
        if cfg.examples:
            require_roles("bot --examples", frozenset({Role.EXAMPLES}), domain)
        if self._final_prompt():
            require_roles("bot --final-prompt", frozenset({Role.FINAL}), domain)

    async def _condense(
        self, domain: Domain[Any, Any], ctx: RunContext, experience: str
    ) -> str | None:
        """Cumulative experience: the model rewrites the whole experience into one shorter
        text (None when its reply is empty: the experience then stays as it was)."""
        cfg = self.config
        call = Call(
            Purpose.BOT_CONDENSE,
            domain.prompt(Role.CONDENSE, experience=experience),
            Sampling(cfg.feedback_temperature, 1.0, 1, cfg.max_tokens),
            domain.context(domain.start(), experience=experience),
        )
        gen, _ = await ctx.call(call)
        text = _condensing(domain).parse_condensed(gen.text)
        if text is None:
            ctx.parse_failed(
                Purpose.BOT_CONDENSE, gen.text, "no condensed experience; kept as it was"
            )
        return text

    def check_chain(
        self, domain: Domain[Any, Any], chain: list[Node]
    ) -> tuple[Any | None, str, bool]:
        """Replay a (possibly stitched) chain exactly from the start."""
        for i, node in enumerate(chain, 1):
            if not node.valid:
                return None, f"step {i} is invalid", False
        states = [n.state for n in chain]
        if self._trusts() and isinstance(domain, Claiming):
            return domain.replay_claimed(states)
        return domain.replay(states)

    async def _analyse(
        self, domain: Domain[Any, Any], ctx: RunContext, chain: list[Node]
    ) -> FeedbackLike:
        cfg = self.config
        texts = [n.text for n in chain]
        call = Call(
            Purpose.BOT_FEEDBACK,
            domain.prompt(Role.ANALYZE, chain=texts, checked=self._checked_analysis()),
            Sampling(cfg.feedback_temperature, 1.0, 1, cfg.max_tokens),
            domain.context(
                chain[-1].state,  # aggregation never gives an empty chain
                chain=[n.line for n in chain],
                valid=[n.valid for n in chain],
            ),
        )
        gen, _ = await ctx.call(call)
        # The analysis is checked too: models write things like "80 ... equals 24".
        for claim in domain.claims(gen.text):
            ctx.verified(None, claim)
        feedback = domain.parse_feedback(gen.text, len(chain))
        if not feedback.parsed:
            ctx.parse_failed(Purpose.BOT_FEEDBACK, gen.text, "no analysis report or confidence")
        return feedback

    async def _final(
        self,
        domain: Domain[Any, Any],
        ctx: RunContext,
        experience: str,
        structured: list[dict[str, Any]],
    ) -> str | None:
        """The paper's final answer: one call with I^{T+1} (the task and all the experience),
        read as the domain reads any answer; None when the reply gives none."""
        cfg = self.config
        call = Call(
            Purpose.BOT_FINAL,
            domain.prompt(Role.FINAL, experience=experience, **self._examples()),
            Sampling(cfg.final_temperature, cfg.final_top_p, 1, cfg.max_tokens),
            domain.context(domain.start(), experience=list(structured)),
        )
        gen, call_id = await ctx.call(call)
        for claim in domain.claims(gen.text):
            ctx.verified(None, claim)
        answer = domain.parse_answer(gen.text)
        if answer is None:
            ctx.parse_failed(Purpose.BOT_FINAL, gen.text, "no answer in the final reply")
            ctx.emit(FinalAnswered(None, False, "no answer", call_id))
            return None
        verdict = domain.check(answer)
        ctx.emit(FinalAnswered(answer, verdict.ok, verdict.reason, call_id))
        return answer


def _scored_step(node: Node) -> str:
    """A step of a chain as the model wrote it: the step and its own evaluation score (on
    the paper's scale, 1.0 not 1)."""
    score = node.score
    shown = f"{score:.1f}" if round(score * 10, 9).is_integer() else f"{score:g}"
    return f"{node.text}, Evaluation score: {shown}"


def _greedy_first(chains: list[list[Node]]) -> Node:
    """Greedy's first step: the best first step of all trees by V_1 + V_{0,1}."""
    return max(chains, key=lambda c: c[0].score + c[0].edge)[0]


def _greedy_next(chains: list[list[Node]], sims: dict[str, float], above: float) -> Node | None:
    """Greedy's next step: of the steps that follow a step more similar than ``above`` to the
    last one chosen (``sims``: each step's similarity to it), the one with the best edge."""
    best: Node | None = None
    for chain in chains:
        for j, node in enumerate(chain[:-1]):
            if sims[node.line] > above:
                nxt = chain[j + 1]
                if best is None or nxt.edge > best.edge:
                    best = nxt
    return best


@runtime_checkable
class _Condensing(Protocol):
    """A domain that reads a condensation reply (``experience cumulative``)."""

    def parse_condensed(self, text: str) -> str | None: ...


@runtime_checkable
class _Judging(Protocol):
    """A domain that reads a similarity judgement (``similarity model``)."""

    def parse_similarity(self, text: str) -> float | None: ...


def _condensing(domain: Domain[Any, Any]) -> _Condensing:
    if not isinstance(domain, _Condensing):
        raise RolesMissing("bot --experience cumulative", domain.kind, [Role.CONDENSE])
    return domain


def _judging(domain: Domain[Any, Any]) -> _Judging:
    if not isinstance(domain, _Judging):
        raise RolesMissing("bot --similarity model", domain.kind, [Role.SIMILAR])
    return domain


def _chains_entry(index: int, chains: list[list[Node]]) -> str:
    """BoT(No)'s experience entry: every tree's best chain as it is, each step with its
    scores (the model's own and the evaluation's), and no analysis."""
    lines = [f"{index}. Reasoning chains of this iteration, without analysis"]
    for k, chain in enumerate(chains, 1):
        lines.append(f"Chain {k} (total score {chain_score(chain):.3g}):")
        lines.append("---")
        lines.extend(
            f"Step {i}: {n.text}, Evaluation score: {n.score:g}, Edge score: {n.edge:g}"
            for i, n in enumerate(chain, 1)
        )
        lines.append("---")
    return "\n".join(lines)


def chain_score(chain: list[Node]) -> float:
    # An invalid step adds nothing, whatever the model thought of it (ours: with exact
    # checking on, a chain with a broken step must not outscore a sound one).
    return sum(n.score + n.edge for n in chain if n.valid)


SPEC = MethodSpec(
    name="bot",
    label="BoT",
    title="Boosting of Thoughts",
    description="Grows many small trees of steps, joins the best chain, learns from its "
    "mistakes, and repeats.",
    build=BoT,
    config=BoTConfig,
    roles=frozenset({Role.STEP, Role.EVALUATE, Role.ANALYZE}),
    order=10,
    # GSM8K: the paper gives no absolute rate, only BoT against the best earlier method (CSV).
    paper={"game24": "~84%", "wordproblem": "+0.1% vs CSV (GSM8K)"},
    paper_note="BoT, GPT-4, T = 10, M = 15",
    in_app={"stop_early": True},
)
