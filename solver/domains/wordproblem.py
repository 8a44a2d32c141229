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
from solver.domains.dialogue import Turn, iot_guide_line, iot_transcript
from solver.domains.game24 import Feedback, parse_feedback, parse_score
from solver.domains.game24 import parse_guidance as _parse_guidance
from solver.domains.reading import (
    LIST_NUMBER,
    clip_text,
    read_json_object,
    reads_the_same,
    truthy,
    unlabelled_answer,
    whole_lines,
)
from solver.domains.retrieval import DemonstrationPool, Solved
from solver.domains.wordproblem_shots import trajectories
from solver.kinds import roles
from solver.model import Message
from solver.model.markers import (
    WP_ACT,
    WP_ANALYSIS,
    WP_COT,
    WP_EVALUATE,
    WP_FINAL,
    WP_FORMALIZE,
    WP_IO,
    WP_IOT_ANSWER,
    WP_IOT_GUIDE,
    WP_REVISE,
    WP_STEP,
)
from solver.roles import Role
from solver.tools import DEFAULT_LIMIT, Calculate, Solve, format_trajectory

__all__ = [
    "MARKER",
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
    "task",
]

Problem = WordProblem | AlgebraProblem

MARKER = "Solve this math word problem."
"""The first line of every prompt's task (the offline engine recognises its prompts by it)."""
ROLES = roles.WORDPROBLEM
"""The roles word problems have prompts and parsers for."""
REACT_SHOTS = 3
"""Worked trajectories in ReAct's prompt when the method does not say (its own default)."""
_WEIGHTS: Mapping[str, float] = MappingProxyType({})
_MAX_ANSWER = 1000
_MAX_LINE = 600
_MARKDOWN = re.compile(r"\*\*|__|`+|^\s*[#>]+\s*|^\s*[-•*]\s+", re.MULTILINE)
_SCORE_TAIL = re.compile(r",?\s*\(?\s*evaluat\w*\s+score\b.*$", re.IGNORECASE)
_STEP_HEAD = re.compile(rf"^\s*(?:reasoning\s+)?(?:step\s*\d+\s*[:.,)]?|{LIST_NUMBER})\s*", re.I)
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
    line = _STEP_HEAD.sub("", line)
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

SHOTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "A baker makes 12 loaves a day and sells each for $3. How many dollars does the baker "
        "take in 5 days?",
        ("Loaves in 5 days: 12 * 5 = 60", "Money: 60 * 3 = 180"),
        "180",
    ),
    (
        "Maya has 40 stickers and gives 1/4 of them to her brother. How many stickers does "
        "Maya keep?",
        ("Stickers given: 40 * 1/4 = 10", "Stickers kept: 40 - 10 = 30"),
        "30",
    ),
)
"""Worked examples written for ponder; a test checks each one exactly."""

BOT_SYSTEM = (
    "You are an expert in mathematics who reasons step by step. Before you answer, recall the "
    "trial-and-error experience you are given: its error reports and revision advice. Avoid "
    "the mistakes it describes and reuse the steps it judges correct."
)
CHECKED_HEAD = "Its arithmetic, checked exactly:"
"""Opens the exact check of a chain's arithmetic in the checked analysis prompt (ours)."""

FEEDBACK_SYSTEM = (
    "You are an expert checker of math solutions. For each step decide whether its arithmetic "
    "is right, whether it computes something the question needs, and whether it helps reach "
    "the answer; report errors, give advice, and recommend or reject it."
)
IOT_GUIDE_SYSTEM = (
    "You are the inner guide of a solver working on a math word problem. You do not solve it "
    "yourself. Read the solver's last reply and find where it goes wrong or is unsure: a "
    "quantity read wrongly, a step that answers a different question, arithmetic that does "
    "not hold. Then write the solver its next prompt, speaking to it as 'you': point at the "
    "mistake, suggest what to check, and never state a hint you are not sure is true."
)
IOT_ANSWER_SYSTEM = (
    "You solve a math word problem in a dialogue with your inner guide. Answer the guide's "
    "prompt, show each computation as 'expression = value', say plainly what you are unsure "
    "of, and give your best answer every time."
)
IOT_GUIDE_FORMAT = '{"guidance": "<your prompt to the solver>", "stop": true or false}'
IOT_ANSWER_FORMAT = WP_IOT_ANSWER
REACT_SYSTEM = (
    "You solve math word problems by interleaving Thought, Action and Observation steps. A "
    "Thought reasons about what to find next. An Action is exactly one of:\n"
    "{tools}\n"
    "finish[answer]: ends the task with the answer.\n"
    "Reply with one 'Thought i:' line and one 'Action i:' line, then stop: the Observation "
    "is written for you by the tool. Never write an Observation yourself."
)
DELI_TOOL_SYSTEM = (
    "You check a solution of a math problem with tools. The trial solution may contain "
    "errors. Write the problem as equations and let the tools compute every value:\n"
    "{tools}\n"
    "Each 'Action i:' line holds exactly one call; its 'Output i:' is written for you. Repeat "
    "as needed. When the outputs give the answer, write 'Final Answer: <answer>' (a number, "
    "not prose)."
)
DELI_TOOL_EXAMPLE = (
    "Question: Maya has 40 stickers and gives 1/4 of them to her brother. How many stickers "
    "does Maya keep?\n"
    "Trial: Stickers given: 40 * 1/4 = 10. Stickers kept: 40 - 10 = 20. Answer: 20\n"
    "Thought 1: Let g be the stickers given and k the stickers kept.\n"
    "Action 1: solve[g = 40 * 1/4, k = 40 - g; g, k]\n"
    "Output 1: g = 10, k = 30\n"
    "Final Answer: 30\n"
)
DELI_REVISE_SYSTEM = (
    "You revise a solution of a math problem using a verification made with exact tools. "
    "Where the verification and the solution differ, the verification is right."
)


def _answer_rule(problem: Problem) -> str:
    if isinstance(problem, WordProblem) or problem.form is Form.NUMBER:
        return "The answer is one number."
    names = ", ".join(problem.variables)
    if problem.form is Form.VALUES:
        pairs = ", ".join(f"{n} = ..." for n in problem.variables)
        return f"The answer gives the value of each unknown, as {pairs}."
    return f"The answer is an expression in {names} (write powers as x^2)."


def _question(problem: Problem) -> str:
    return problem.question if isinstance(problem, WordProblem) else problem.prompt


def task(problem: Problem) -> str:
    """The task every prompt opens with."""
    return f"{MARKER} {_answer_rule(problem)}\nQuestion: {_question(problem)}"


def _scored(chain: Sequence[tuple[str, float]]) -> str:
    return "\n".join(f"{text}, Evaluation score: {score:g}" for text, score in chain)


@dataclass(frozen=True, slots=True)
class _Prompts:
    """The prompt texts of one problem, by role."""

    problem: Problem
    tools: tuple[Tool, ...]

    @property
    def numeric(self) -> bool:
        return isinstance(self.problem, WordProblem) or self.problem.form is Form.NUMBER

    def _shots(self, steps: bool) -> list[str]:
        if not isinstance(self.problem, WordProblem):
            return []
        lines = []
        for question, shot_steps, answer in SHOTS:
            lines.append(f"Question: {question}")
            if steps:
                lines += ["Steps:", *shot_steps]
            lines.append(f"Answer: {answer}")
        return lines

    def io(self) -> str:
        lines = [f"{MARKER} {_answer_rule(self.problem)} {WP_IO}"]
        lines += self._shots(False)
        lines += [f"Question: {_question(self.problem)}", "Answer:"]
        return "\n".join(lines)

    def cot(self, steps: Sequence[str] = (), demonstrations: Sequence[Demonstration] = ()) -> str:
        lines = [
            f"{MARKER} {_answer_rule(self.problem)} {WP_COT}, written as "
            "'what it finds: expression = value'. End with a line "
            "'Answer: <answer>'."
        ]
        # Retrieved solved problems (DELI) take the place of the two fixed examples.
        if demonstrations:
            lines += [d.text() for d in demonstrations]
        else:
            lines += self._shots(True)
        lines += [f"Question: {_question(self.problem)}", "Steps:", *steps]
        return "\n".join(lines)

    def step(self, experience: str, chain: Sequence[tuple[str, float]]) -> str:
        return (
            f"{task(self.problem)}\nLet's think step by step.\n\n"
            "First of all, recall historical reasoning experience (ignore it if empty) and "
            "follow its advice:\n"
            f"#####\n{experience}\n#####\n\n"
            "The reasoning steps so far, each with a score (a higher score means the step is "
            "more likely to lead to the answer; ignore this if empty):\n"
            f"---\n{_scored(chain)}\n---\n\n"
            f"{WP_STEP}, in this format:\n"
            "Step X: <what it finds>: <expression> = <value>, Evaluation score: S\n"
            "If the steps above already give the answer, write instead:\n"
            "Step X: Answer: <answer>, Evaluation score: S\n"
            "S is your confidence in the step, one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0."
        )

    def evaluate(self, chain: Sequence[tuple[str, float]], step: str) -> str:
        return (
            f"{task(self.problem)}\n\n"
            f"The reasoning steps so far:\n---\n{_scored(chain)}\n---\n"
            f"{WP_EVALUATE}\n{step}\n\n"
            "Score this step for its arithmetic, its logic and how much it helps to answer "
            "the question, using one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0 (0.1: a critical error; "
            "1.0: correct and leads to the answer). Reply on the last line as "
            "'Evaluation score: X'."
        )

    def analyze(self, chain: Sequence[str], checked: bool = True) -> str:
        """The analysis prompt; ``checked`` (ours, a tool for the analyst) adds the exact
        check of each step's arithmetic beside the chain, where the paper shows the chain
        alone."""
        chain = [_STEP_HEAD.sub("", text, count=1) for text in chain]
        steps = "\n".join(f"Step {i}: {text}" for i, text in enumerate(chain, 1))
        tool = ""
        if checked:
            checks = []
            for i, text in enumerate(chain, 1):
                for claim in extract_claims(text, limit=8):
                    checks.append(f"Step {i}: {claim.describe()}")
            done = "\n".join(checks) or "(no computation to check)"
            tool = f"{CHECKED_HEAD}\n{done}\n"
        return (
            f"{task(self.problem)}\n"
            f"The reasoning chain:\n---\n{steps}\n---\n"
            f"{tool}\n"
            "Please do the following:\n"
            f"1. {WP_ANALYSIS} and why.\n"
            "2. For each step write: 'Step <idx>: <analysis>. Error report: <what is wrong, "
            "or none>. Advice: <advice>. Recommendation or Reject: <Recommend|Reject>.' "
            "Refer to steps by index only.\n"
            "3. Finish with 'Confidence score: X', X one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0.\n"
            "Be brief."
        )

    def final(self, experience: str) -> str:
        """BoT's final prompt, the paper's I^{T+1}: the task and every experience entry,
        asking for the whole solution and "The answer is:" (the paper's answer format)."""
        return (
            f"{task(self.problem)}\nLet's think step by step.\n\n"
            "First of all, recall historical reasoning experience (ignore it if empty) and "
            "follow its advice:\n"
            f"#####\n{experience}\n#####\n\n"
            f"{WP_FINAL} Write every step, one computation per line, as:\n"
            "Step X: <what it finds>: <expression> = <value>\n"
            "then, on the last line:\n"
            "The answer is: <answer>"
        )

    def guide(self, turns: Sequence[Turn], turn: int, total: int) -> str:
        return (
            f"{task(self.problem)}\n\n"
            f"This is turn {turn} of at most {total}.\n"
            f"The dialogue so far:\n{iot_transcript(turns)}\n\n"
            f"{WP_IOT_GUIDE} Set stop to true only if the solver's last answer "
            "is complete and correct.\n"
            f"Reply with one JSON object: {IOT_GUIDE_FORMAT}"
        )

    def respond(self, turns: Sequence[Turn], guidance: str, mode: str) -> str:
        rule = {
            "free": "If you are sure your answer is complete and correct, set final to true; "
            "if you are unsure, set it to false and keep working.",
            "discuss": "Do not give a final answer yet: set final to false.",
            "close": "Give your definitive final answer now and set final to true.",
        }[mode]
        return (
            f"{task(self.problem)}\n\n"
            f"The dialogue so far:\n{iot_transcript(turns)}\n\n"
            f"{iot_guide_line(guidance)}\n\n{rule}\n"
            f"Reply with one JSON object: {IOT_ANSWER_FORMAT}"
        )

    def tool_lines(self) -> str:
        return "\n".join(t.description for t in self.tools)

    def act(self, steps: Sequence[tuple[str, str, str]], step: int, limit: int, shots: int) -> str:
        so_far = format_trajectory(steps)
        examples = trajectories(shots, algebra=not isinstance(self.problem, WordProblem))
        head = "Here is an example." if len(examples) == 1 else "Here are some examples."
        return (
            f"{head}\n" + "\n\n".join(t.text() for t in examples) + "\n\n"
            f"Now the task. {task(self.problem)}\n"
            f"You have at most {limit} {WP_ACT} {step}.\n"
            + (f"{so_far}\n" if so_far else "")
            + f"Thought {step}:"
        )

    def formalize(self, trial: str, steps: Sequence[tuple[str, str, str]], step: int) -> str:
        so_far = format_trajectory(steps, "Output")
        return (
            f"Here is an example.\n{DELI_TOOL_EXAMPLE}\n"
            f"Now the task. {task(self.problem)}\n"
            f"{WP_FORMALIZE.lstrip()}{' '.join(trial.split())[:3000] or '(none)'}\n"
            + (f"{so_far}\n" if so_far else "")
            + f"Thought {step}:"
        )

    def revise(self, solution: str, verification: str, tool_answer: str | None) -> str:
        return (
            f"{task(self.problem)}\n"
            f"Given Solution:\n{solution.strip()[:4000] or '(none)'}\n"
            f"Verification:\n{verification.strip()[:4000] or '(none)'}\n"
            f"Verified answer: {tool_answer or '(none)'}\n\n"
            f"{WP_REVISE}: one computation per line, written as "
            "'what it finds: expression = value'; where "
            "they differ, the verification is right. End with a line 'Answer: <answer>'."
        )


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
        self._prompts = _Prompts(self.problem, self._tools)

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
        text = " ".join(_question(self.problem).split())
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
        quantities = len(_QUANTITY.findall(_question(self.problem)))
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

    def messages(self, user: str, system: str | None = None) -> tuple[Message, ...]:
        if system:
            return (Message("system", system), Message("user", user))
        return (Message("user", user),)

    def prompt(self, role: Role, **args: Any) -> tuple[Message, ...]:
        """The messages for ``role``. Arguments by role: ``cot`` (steps, demonstrations:
        solved problems shown instead of the fixed examples), ``step``
        (experience, chain: (step, score) pairs), ``evaluate`` (chain, step), ``analyze``
        (chain, checked: with the exact check of its arithmetic), ``final`` (experience),
        ``guide`` (turns, turn, total), ``respond`` (turns, guidance, mode), ``act`` (steps:
        (thought, action, observation) triples, step, limit, shots: how many worked
        trajectories, :data:`REACT_SHOTS` when not given), ``formalize`` (trial, steps, step),
        ``revise`` (solution, verification, tool_answer)."""
        p = self._prompts
        tools = p.tool_lines()
        if role == Role.IO:
            return self.messages(p.io())
        if role == Role.COT:
            return self.messages(p.cot(args.get("steps", ()), args.get("demonstrations", ())))
        if role == Role.STEP:
            return self.messages(p.step(args["experience"], args["chain"]), BOT_SYSTEM)
        if role == Role.EVALUATE:
            return self.messages(p.evaluate(args["chain"], args["step"]))
        if role == Role.ANALYZE:
            checked = bool(args.get("checked", True))
            return self.messages(p.analyze(args["chain"], checked), FEEDBACK_SYSTEM)
        if role == Role.FINAL:
            return self.messages(p.final(args["experience"]), BOT_SYSTEM)
        if role == Role.GUIDE:
            return self.messages(
                p.guide(args["turns"], args["turn"], args["total"]), IOT_GUIDE_SYSTEM
            )
        if role == Role.RESPOND:
            return self.messages(
                p.respond(args["turns"], args["guidance"], args["mode"]), IOT_ANSWER_SYSTEM
            )
        if role == Role.ACT:
            shots = int(args.get("shots", REACT_SHOTS))
            user = p.act(args.get("steps", ()), args["step"], args["limit"], shots)
            return self.messages(user, REACT_SYSTEM.replace("{tools}", tools))
        if role == Role.FORMALIZE:
            user = p.formalize(args["trial"], args.get("steps", ()), args["step"])
            return self.messages(user, DELI_TOOL_SYSTEM.replace("{tools}", tools))
        if role == Role.REVISE:
            user = p.revise(args["solution"], args["verification"], args.get("tool_answer"))
            return self.messages(user, DELI_REVISE_SYSTEM)
        raise RolesMissing("a method", self.kind, [role])

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
