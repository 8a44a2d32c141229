"""Math word problems as the methods see them: prompts for every role, tolerant parsers,
exact checks.

A problem is a GSM8K-style :class:`~puzzles.wordproblem.WordProblem` (one exact number) or an
:class:`~puzzles.wordproblem.AlgebraProblem` (a number, values of unknowns, or an expression).
The prompts are our own. A *step* is one intermediate computation with its claim
(``Cost of the kites: 30 * 11 = 330``), or the final ``Answer:``; every claim in a step, a
thought, a tool input or an answer is checked exactly through :mod:`puzzles.arith`, and the
answer through the problem's own exact check (:mod:`puzzles.wordproblem`). Parsers accept real
model output (prose, markdown, several steps at once, the steps so far repeated) and never
raise on it.

The goal test needs the problem's answer, which no prompt carries: it labels a chain that
ends in the right answer (a found solution in the panes) and, with BoT's ``stop_early`` (the
app's setting, off in benchmarks), ends the run, as reaching 24 does for the Game of 24.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from puzzles.arith import Claim, ClaimStatus, extract_claims, parse_number
from puzzles.latex import plain
from puzzles.wordproblem import (
    AlgebraError,
    AlgebraProblem,
    AnswerError,
    Form,
    Verdict,
    WordProblem,
    generate,
    parse_expression,
    read_answer,
)
from puzzles.wordproblem.answers import MAX_ANSWER_LENGTH
from solver.domains.base import Demonstration, Guidance, Reply, RolesMissing, Tool
from solver.domains.dialogue import Turn
from solver.domains.game24 import Feedback, parse_feedback, parse_score
from solver.domains.game24 import parse_guidance as _parse_guidance
from solver.domains.reading import (
    STEP_HEAD,
    clip_text,
    read_json_object,
    reads_the_same,
    truthy,
    unlabelled_answer,
    whole_lines,
)
from solver.domains.retrieval import DemonstrationPool, Solved
from solver.domains.wordproblem_prompts import PROMPTS, ProblemPrompts, question_of
from solver.kinds import roles
from solver.model import Message
from solver.roles import Role
from solver.tools import DEFAULT_LIMIT, Calculate, Solve

__all__ = [
    "POOL_SEED",
    "POOL_SIZE",
    "ROLES",
    "WordProblemDomain",
    "Work",
    "WorkStep",
    "answer_text",
    "demonstration_pool",
    "parse_answer",
    "parse_reply",
    "parse_steps",
    "similarity",
]

Problem = WordProblem | AlgebraProblem

"""The first line of every prompt's task (the offline engine recognises its prompts by it)."""
ROLES = roles.WORDPROBLEM
"""The roles word problems have prompts and parsers for."""
_WEIGHTS: Mapping[str, float] = MappingProxyType({})
_MAX_ANSWER = 1000
_MAX_LINE = 600
_MARKDOWN = re.compile(r"\*\*|__|`+|^\s*[#>]+\s*|^\s*[-•*]\s+", re.MULTILINE)
_SCORE_TAIL = re.compile(r",?\s*\(?\s*evaluat\w*\s+score\b.*$", re.IGNORECASE)
_ANSWER_LABEL = re.compile(
    r"(?:final\s+answer|the\s+answer\s+is|answer)\s*(?:is\b)?\s*[:：=]?\s*(.*)", re.IGNORECASE
)
_NUMBER_TEXT = re.compile(
    r"[-−]?\s*[$€£]?\s*(?:\d[\d,]*(?:\.\d+)?(?:\s+\d+\s*/\s*\d+|\s*/\s*\d+)?|\.\d+)\s*"
    r"(?:%|percent\b)?"
)
_EQUALS = re.compile(r"=|≈")
_LEAD = re.compile(r"^\s*(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:=]?\s*", re.I)
_QUANTITY = re.compile(r"\d[\d,]*(?:\.\d+)?(?:/\d+)?|\b(?:half|twice|double|triple|third)\b")


# ------------------------------------------------------------------ states and steps


@dataclass(frozen=True, slots=True)
class Work:
    """The state of a solution: the steps so far, the value each one found, and the answer
    once a step gives it."""

    steps: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    answer: str | None = None

    def left(self) -> str:
        """One short line for panes: the answer, the last value found, or the start."""
        if self.answer is not None:
            return f"answer {self.answer[:40]}"
        if self.values:
            return f"found {self.values[-1][:40]}"
        return "start"


@dataclass(frozen=True, slots=True)
class WorkStep:
    """One step read from a reply: its line, its claim checked exactly, the state it leads to,
    and (for the final step) the answer it gives."""

    text: str
    claim: Claim
    state: Work | None
    problem: str = ""
    answer: str | None = None

    @property
    def valid(self) -> bool:
        return self.state is not None and not self.problem


def _stated(value: str) -> Claim:
    """The claim of a step that only states the answer: nothing to compute, so it holds."""
    try:
        number = parse_number(value.replace(",", "").replace("$", "").strip())
    except (ValueError, ZeroDivisionError):
        number = None
    return Claim(
        f"answer = {value}", value, value, ClaimStatus.EXACT, number, number, "stated", (0, 0)
    )


def _clean(line: str) -> str:
    line = _MARKDOWN.sub("", line[:_MAX_LINE])
    line = _SCORE_TAIL.sub("", line)
    line = STEP_HEAD.sub("", line)
    return line.strip().strip(",;").strip()


def answer_text(text: str, numeric: bool = True) -> str | None:
    """The answer in the text after an ``Answer:`` label: for a numeric problem the number
    (with its sign, currency, percent) after the last ``=``, else the text itself."""
    text = _MARKDOWN.sub("", text).strip()
    if not text:
        return None
    # Kept to 1,000 characters: the check refuses anything over 200 as too long, so an
    # answer cut short is refused for its length, never judged on its start.
    if not numeric:
        return text.rstrip(".").strip()[:_MAX_ANSWER] or None
    tail = _EQUALS.split(plain(text[: _MAX_ANSWER * 4]).text)[-1]
    m = _NUMBER_TEXT.search(tail)
    if m is None:
        return tail.strip()[:_MAX_ANSWER] or None
    return " ".join(m.group().split())[:_MAX_ANSWER]


def parse_answer(text: str, numeric: bool = True) -> str | None:
    """The answer of the last ``Answer:`` line (``Final answer: $18.`` gives ``$18``); for a
    numeric problem without one, the value on the last line when all of that line is
    arithmetic (``30 * 11 + 12 = 342``, ``$342``); or None."""
    if not isinstance(text, str):
        return None
    found = None
    for line in whole_lines(text, 20000).splitlines():
        m = _ANSWER_LABEL.search(_MARKDOWN.sub("", line))
        if m and m.group(1).strip():
            found = m.group(1)
    if found is None and numeric:
        found = unlabelled_answer(text)
    return answer_text(found, numeric) if found is not None else None


def parse_steps(text: str, state: Work, limit: int = 32, numeric: bool = True) -> list[WorkStep]:
    """Every step the text proposes after ``state``: a line with an arithmetic claim (its
    computation) or an ``Answer:`` line; a step already in ``state`` is skipped (models
    repeat the steps so far), duplicates dropped."""
    out: list[WorkStep] = []
    if not isinstance(text, str):
        return out
    done = {_key_of(line) for line in state.steps}
    seen: set[Hashable] = set()
    for raw in whole_lines(text, 20000).splitlines():
        # A line longer than the cap is read in part: what may go on past the cut is not read.
        cut = len(raw) > _MAX_LINE
        line = _clean(raw)
        if not line:
            continue
        claims = extract_claims(line, limit=8, cut=cut)
        answer = _labelled_answer(line, numeric)
        if cut and not reads_the_same(lambda kept: _labelled_answer(kept, numeric), line, answer):
            answer = None
        if not claims and answer is None:
            continue
        key = _key_of(line)
        if key in done or key in seen:
            continue
        seen.add(key)
        if claims:
            bad = [c for c in claims if not c.ok]
            claim = bad[0] if bad else claims[-1]
        else:
            claim = _stated(answer or "")
        problem = "" if claim.ok else claim.describe()
        value = claim.rhs if claims else (answer or "")
        after = Work((*state.steps, line), (*state.values, value), answer)
        out.append(WorkStep(line, claim, after, problem, answer))
        if len(out) >= limit:
            break
    return out


def _labelled_answer(line: str, numeric: bool) -> str | None:
    """The answer after an ``Answer:`` label on ``line``, or None."""
    m = _ANSWER_LABEL.search(line)
    return answer_text(m.group(1), numeric) if m and m.group(1).strip() else None


def _key_of(line: str) -> Hashable:
    """Two lines that compute the same thing (or state the same answer) are one step."""
    claims = extract_claims(line, limit=4)
    if claims:
        return tuple((" ".join(c.lhs.split()), c.claimed) for c in claims)
    return " ".join(line.lower().split())


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\d+(?:\.\d+)?(?:/\d+)?|[a-z]{3,}|[-+*/]", text.lower()))


def similarity(a: str, b: str) -> float:
    """Share of identical numbers, operators and words between two steps (0..1): what BoT's
    LLM-judged similarity amounts to, computed without a call."""
    ta, tb = _words(a), _words(b)
    if not ta or not tb:
        return 0.0
    return sum((ta & tb).values()) / max(sum(ta.values()), sum(tb.values()))


# ------------------------------------------------------------------ demonstrations

POOL_SEED = 230602408
"""The seed of the demonstration pool (the DELI paper's arXiv number): far from the small
seeds of the sets people solve and bench (``--set N``, ``SEED``), and fixed, so every run
retrieves from the same pool."""
POOL_SIZE = 400
"""Problems in the pool: about eight of each template, every topic and level."""


@functools.cache
def demonstration_pool() -> DemonstrationPool:
    """ponder's own generated word problems with their worked steps (never a test set), made
    once per process on first use: the problems DELI's first solution takes its examples
    from."""
    solved = [
        Solved(
            p.id,
            p.question,
            tuple(p.solution.prose().splitlines()) if p.solution is not None else (),
            p.answer_text,
        )
        for p in generate(POOL_SEED, POOL_SIZE)
    ]
    return DemonstrationPool(solved, f"{POOL_SIZE} generated problems (seed {POOL_SEED})")


# ------------------------------------------------------------------ prompts

# ------------------------------------------------------------------ IoT replies


def parse_reply(text: str, numeric: bool = True) -> Reply:
    """The answerer's computations, answer, doubts and final flag; tolerant of prose."""
    data = read_json_object(text)
    if data is not None:
        raw = next((data[k] for k in ("answer", "response", "final_answer") if k in data), None)
        answer = answer_text(str(raw), numeric) if raw not in (None, "") else None
        explanation = " ".join(str(data.get("explanation") or data.get("reasoning") or "").split())
        written = " ".join(str(raw or "").split())
        written = written if len(written) <= _MAX_ANSWER else ""  # never its arithmetic in part
        if extract_claims(written, limit=4) and written not in explanation:
            # A computation written in the answer field ("answer": "30 * 11 = 330") is work
            # like the explanation's: it joins it, so that its claim is checked and shown.
            explanation = f"{explanation} Answer: {written}".strip()
        if answer is not None or explanation:
            return Reply(
                clip_text(explanation, 4000),
                answer,
                " ".join(str(data.get("uncertainty") or "").split())[:600],
                truthy(data.get("final", data.get("answer_to_query"))),
            )
    if not isinstance(text, str) or not text.strip():
        return Reply("", None, "", False, parsed=False)
    plain = " ".join(_MARKDOWN.sub("", text[:20000]).split())
    final = bool(re.search(r"\bfinal\W{0,4}(?:true|yes)\b", plain, re.I))
    return Reply(clip_text(plain, 4000), parse_answer(text, numeric), "", final, parsed=False)


# ------------------------------------------------------------------ the adapter


@dataclass
class WordProblemDomain:
    """Everything a method needs to know about one word problem (the Domain seam)."""

    problem: Problem
    tool_limit: float = DEFAULT_LIMIT
    """Seconds each tool call may run before it is stopped."""
    kind: str = field(default="wordproblem", init=False)
    roles: frozenset[Role] = field(default=ROLES, init=False)

    def __post_init__(self) -> None:
        self._tools: tuple[Tool, ...] = (Calculate(self.tool_limit), Solve(self.tool_limit))
        self._prompts = ProblemPrompts(self.problem, self._tools)

    @property
    def numeric(self) -> bool:
        """The answer is one number (every GSM8K-style problem; some algebra ones)."""
        return self._prompts.numeric

    @property
    def value_weights(self) -> Mapping[str, float]:
        return _WEIGHTS

    @property
    def unchecked(self) -> bool:
        """The problem has no answer to judge a run by (a question typed without one)."""
        return getattr(self.problem, "answer", 0) is None

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self._tools

    @property
    def title(self) -> str:
        text = " ".join(question_of(self.problem).split())
        return text if len(text) <= 70 else text[:69] + "…"

    # ---------------------------------------------------------------- demonstrations

    @property
    def retriever(self) -> str:
        return f"BM25 over {demonstration_pool().name}"

    def demonstrations(self, k: int) -> tuple[Demonstration, ...]:
        """The ``k`` generated problems whose questions are nearest this one's by BM25, with
        their worked steps; never this problem itself. An algebra problem gets none: the pool
        holds word problems only (algebra problems have no worked steps)."""
        if not isinstance(self.problem, WordProblem):
            return ()
        found, _ = demonstration_pool().nearest(self.problem.question, k)
        return found

    # ---------------------------------------------------------------- states and answers

    def start(self) -> Work:
        return Work()

    def is_goal(self, state: Work) -> bool:
        return state.answer is not None and self.check(state.answer).ok

    def is_final(self, state: Work) -> bool:
        return state.answer is not None

    def depth(self) -> int:
        """Steps in a full solution, estimated from the question (never from the worked
        solution): one computation per quantity given, and the answer; 2 to 8."""
        quantities = len(_QUANTITY.findall(question_of(self.problem)))
        return min(8, max(2, quantities)) + 1

    def check(self, answer: str | None) -> Verdict:
        if answer is None or not answer.strip():
            return Verdict(False, "no answer", readable=False)
        if len(answer) > MAX_ANSWER_LENGTH:
            return Verdict(
                False,
                f"the answer is too long ({len(answer)} characters; at most {MAX_ANSWER_LENGTH})",
                readable=False,
            )
        return self.problem.check(answer)

    def answer_of(self, state: Work) -> str | None:
        """The answer a chain states, else the value its last step found."""
        if state.answer is not None:
            return state.answer
        return state.values[-1] if state.values else None

    def uses_all(self, answer: str) -> bool:
        return True  # a word problem has no rule about using every quantity

    def answer_key(self, answer: str) -> str | None:
        """A normal form for votes: the exact number (``$1,800.00`` and ``1800`` agree); for
        algebra, the values or the expanded expression."""
        if self.numeric:
            try:
                return str(read_answer(answer))
            except AnswerError:
                return None
        assert isinstance(self.problem, AlgebraProblem)
        names = self.problem.variables
        core = _LEAD.sub("", answer, count=1)
        try:
            if self.problem.form is Form.VALUES:
                pairs = re.findall(r"([A-Za-z])\s*=\s*([-−]?[\d./]+)", core)
                if not pairs and len(names) == 1:
                    pairs = [(names[0], core.strip().strip("()"))]
                values = {n: parse_number(v) for n, v in pairs}
                return (
                    ", ".join(f"{n}={values[n]}" for n in names)
                    if set(values) >= set(names)
                    else None
                )
            import sympy

            return str(sympy.expand(parse_expression(core.strip().rstrip("."), names)))
        except (AlgebraError, ValueError, ZeroDivisionError, KeyError):
            return None

    def context(self, state: Work, **extra: object) -> dict[str, object]:
        """The public state of the problem, for traces and panes (never the answer)."""
        view = self.problem.public_view()
        ctx: dict[str, object] = {
            "kind": self.kind,
            "id": view.get("id", ""),
            "question": view.get("question", ""),
            "topic": view.get("topic", ""),
            "level": view.get("level", ""),
            "steps": list(state.steps),
        }
        ctx.update(extra)
        return ctx

    def state_text(self, state: Work) -> str:
        return state.left()

    def state_key(self, state: Work) -> Hashable:
        return (state.values, state.answer)

    # ---------------------------------------------------------------- prompts

    def prompt(self, role: Role, **args: Any) -> tuple[Message, ...]:
        """The messages for ``role`` (what each role is given: :data:`PROMPTS`)."""
        build = PROMPTS.get(role)
        if build is None:
            raise RolesMissing("a method", self.kind, [role])
        return build(self._prompts, args)

    # ---------------------------------------------------------------- parsers

    def parse_steps(self, text: str, state: Work, limit: int = 32) -> list[WorkStep]:
        return parse_steps(text, state, limit, self.numeric)

    def parse_answer(self, text: str) -> str | None:
        return parse_answer(text, self.numeric)

    def parse_value(self, text: str) -> str | None:
        return None  # no value role: ToT does not play word problems

    def parse_score(self, text: str) -> float | None:
        return parse_score(text)

    def parse_feedback(self, text: str, steps: int) -> Feedback:
        return parse_feedback(text, steps)

    def parse_guidance(self, text: str) -> Guidance:
        return _parse_guidance(text)

    def parse_reply(self, text: str) -> Reply:
        return parse_reply(text, self.numeric)

    def turn(self, guidance: str, reply: Reply) -> Turn:
        return Turn(guidance, reply.explanation, reply.answer, reply.uncertainty, reply.final)

    def claims(self, text: str) -> list[Claim]:
        return extract_claims(text)

    # ---------------------------------------------------------------- steps and chains

    def after(self, step: WorkStep) -> Work | None:
        return step.state

    def step_key(self, step: WorkStep) -> Hashable:
        return _key_of(step.text)

    def step_line(self, step: WorkStep) -> str:
        return step.text

    def step_text(self, number: int, before: Work, step: WorkStep) -> str:
        return f"Step {number}: {step.text}"

    def replay(self, states: Sequence[Work]) -> tuple[Work | None, str, bool]:
        """Replay a (possibly stitched) chain: each state's last step, in order, every claim
        checked exactly; then the answer it gives, checked."""
        work = Work()
        for i, after in enumerate(states, 1):
            if not after.steps:
                return None, f"step {i} is empty", False
            line = after.steps[-1]
            for claim in extract_claims(line, limit=8):
                if not claim.ok:
                    return None, f"step {i}: {claim.describe()}", False
            work = Work(
                (*work.steps, line), (*work.values, after.values[-1]), after.answer or work.answer
            )
        answer = self.answer_of(work)
        if answer is None:
            return work, "the chain gives no answer", False
        verdict = self.check(answer)
        return work, f"answers {answer[:40]}: {verdict.reason}", verdict.ok

    def similarity(self, a: str, b: str) -> float:
        return similarity(a, b)
