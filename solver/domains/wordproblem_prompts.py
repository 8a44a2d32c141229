"""Word problems' prompts, one builder per role (:data:`PROMPTS`), apart from the parsers
that read the replies (:mod:`solver.domains.wordproblem`), as ToT keeps its prompts apart from
its tasks.

The prompts are our own. The sentence each is known by comes from
:mod:`solver.model.markers`, which the offline player reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from puzzles.arith import extract_claims
from puzzles.wordproblem import AlgebraProblem, Form, WordProblem
from solver.domains.base import Demonstration, Tool
from solver.domains.dialogue import Turn, iot_guide_line, iot_transcript
from solver.domains.game24_prompts import messages
from solver.domains.reading import STEP_HEAD
from solver.domains.wordproblem_shots import trajectories
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
    WP_OPENING,
    WP_REVISE,
    WP_STEP,
)
from solver.roles import Role
from solver.tools import format_trajectory

__all__ = ["PROMPTS", "REACT_SHOTS", "SHOTS", "Builder", "ProblemPrompts", "question_of", "task"]

Problem = WordProblem | AlgebraProblem

REACT_SHOTS = 3
"""Worked trajectories in ReAct's prompt when the method does not say (its own default)."""

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


def question_of(problem: Problem) -> str:
    """The question as prompts show it."""
    return problem.question if isinstance(problem, WordProblem) else problem.prompt


def task(problem: Problem) -> str:
    """The task every prompt opens with."""
    return f"{WP_OPENING} {_answer_rule(problem)}\nQuestion: {question_of(problem)}"


def _scored(chain: Sequence[tuple[str, float]]) -> str:
    return "\n".join(f"{text}, Evaluation score: {score:g}" for text, score in chain)


@dataclass(frozen=True, slots=True)
class ProblemPrompts:
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
        lines = [f"{WP_OPENING} {_answer_rule(self.problem)} {WP_IO}"]
        lines += self._shots(False)
        lines += [f"Question: {question_of(self.problem)}", "Answer:"]
        return "\n".join(lines)

    def cot(self, steps: Sequence[str] = (), demonstrations: Sequence[Demonstration] = ()) -> str:
        lines = [
            f"{WP_OPENING} {_answer_rule(self.problem)} {WP_COT}, written as "
            "'what it finds: expression = value'. End with a line "
            "'Answer: <answer>'."
        ]
        # Retrieved solved problems (DELI) take the place of the two fixed examples.
        if demonstrations:
            lines += [d.text() for d in demonstrations]
        else:
            lines += self._shots(True)
        lines += [f"Question: {question_of(self.problem)}", "Steps:", *steps]
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
        chain = [STEP_HEAD.sub("", text, count=1) for text in chain]
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


# ---------------------------------------------------------------------- by role

Builder = Callable[[ProblemPrompts, Mapping[str, Any]], tuple[Message, ...]]
"""A role's prompt: the messages for one problem, from the arguments the method gives."""


def _act(p: ProblemPrompts, args: Mapping[str, Any]) -> tuple[Message, ...]:
    shots = int(args.get("shots", REACT_SHOTS))
    user = p.act(args.get("steps", ()), args["step"], args["limit"], shots)
    return messages(user, REACT_SYSTEM.replace("{tools}", p.tool_lines()))


def _formalize(p: ProblemPrompts, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = p.formalize(args["trial"], args.get("steps", ()), args["step"])
    return messages(user, DELI_TOOL_SYSTEM.replace("{tools}", p.tool_lines()))


def _revise(p: ProblemPrompts, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = p.revise(args["solution"], args["verification"], args.get("tool_answer"))
    return messages(user, DELI_REVISE_SYSTEM)


PROMPTS: Mapping[Role, Builder] = MappingProxyType(
    {
        Role.IO: lambda p, args: messages(p.io()),
        Role.COT: lambda p, args: messages(
            p.cot(args.get("steps", ()), args.get("demonstrations", ()))
        ),
        Role.STEP: lambda p, args: messages(p.step(args["experience"], args["chain"]), BOT_SYSTEM),
        Role.EVALUATE: lambda p, args: messages(p.evaluate(args["chain"], args["step"])),
        Role.ANALYZE: lambda p, args: messages(
            p.analyze(args["chain"], bool(args.get("checked", True))), FEEDBACK_SYSTEM
        ),
        Role.FINAL: lambda p, args: messages(p.final(args["experience"]), BOT_SYSTEM),
        Role.GUIDE: lambda p, args: messages(
            p.guide(args["turns"], args["turn"], args["total"]), IOT_GUIDE_SYSTEM
        ),
        Role.RESPOND: lambda p, args: messages(
            p.respond(args["turns"], args["guidance"], args["mode"]), IOT_ANSWER_SYSTEM
        ),
        Role.ACT: _act,
        Role.FORMALIZE: _formalize,
        Role.REVISE: _revise,
    }
)
"""Each role's prompt. What each is given: ``cot`` (steps, demonstrations: solved problems
shown instead of the fixed examples), ``step`` (experience, chain: (step, score) pairs),
``evaluate`` (chain, step), ``analyze`` (chain, checked: with the exact check of its
arithmetic), ``final`` (experience), ``guide`` (turns, turn, total), ``respond`` (turns,
guidance, mode), ``act`` (steps: (thought, action, observation) triples, step, limit, shots:
how many worked trajectories, :data:`REACT_SHOTS` when not given), ``formalize`` (trial,
steps, step), ``revise`` (solution, verification, tool_answer)."""
