"""Word problems: the question, its exact answer, and a worked solution checked step by step.

A worked solution is written the way GSM8K writes one: lines of prose, each arithmetic step
annotated inline as ``<<16-3-4=9>>`` just before the number it produces, for example::

    Janet eats 3 and bakes with 4, so she sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs.
    She makes 9 * 2 = $<<9*2=18>>18 every day.

Every annotation is an arithmetic claim verified exactly through :mod:`puzzles.arith`; the
final answer must be the result of the last claim, or be stated in the last line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from puzzles.arith import (
    MAX_LENGTH,
    ArithError,
    Claim,
    ClaimStatus,
    extract_claims,
    parse_number,
    verify_claim,
)
from puzzles.wordproblem.answers import (
    AnswerError,
    PercentPolicy,
    Verdict,
    check_answer,
    read_answer,
    show_number,
)

__all__ = [
    "KIND",
    "Solution",
    "SolutionReport",
    "Step",
    "StepCheck",
    "WordProblem",
    "answer_doubts",
    "show_number",
]

KIND = "wordproblem"

_ANNOTATION = re.compile(r"<<([^<>\n]*)>>")
_PROSE_NUMBER = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?(?:/\d+)?")


def _invalid(text: str, reason: str) -> Claim:
    return Claim(text, text, "?", ClaimStatus.INVALID, None, None, reason)


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a worked solution, annotations included as written."""

    text: str

    @property
    def claims(self) -> tuple[str, ...]:
        """The annotated claims in this line, e.g. ``("16-3-4=9",)``."""
        return tuple(m.group(1).strip() for m in _ANNOTATION.finditer(self.text))

    @property
    def prose(self) -> str:
        """The line as a reader sees it, annotations removed."""
        return _ANNOTATION.sub("", self.text)

    def checks(self) -> tuple[Claim, ...]:
        """Every claim of this line, verified exactly: the annotated ones, then those written
        in the prose itself (``She has 2 + 2 = 5 pens``) that no annotation already states."""
        out = []
        for text in self.claims:
            if len(text) > MAX_LENGTH:
                out.append(_invalid(text[:40] + "…", "the claim is too long"))
                continue
            try:
                out.append(verify_claim(text))
            except ArithError as exc:
                out.append(_invalid(text, exc.message))
        stated = {(c.exact, c.claimed) for c in out if c.exact is not None}
        for claim in extract_claims(self.prose):
            if claim.exact is None or (claim.exact, claim.claimed) not in stated:
                out.append(claim)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Solution:
    """A worked solution: its lines in order (the final ``#### N`` line is not one of them)."""

    steps: tuple[Step, ...]

    @classmethod
    def parse(cls, text: str) -> Solution:
        """The non-blank lines of ``text`` as steps."""
        return cls(tuple(Step(line.strip()) for line in text.splitlines() if line.strip()))

    def render(self) -> str:
        """The lines with their annotations, one per line."""
        return "\n".join(step.text for step in self.steps)

    def prose(self) -> str:
        """The lines as a reader sees them."""
        return "\n".join(step.prose for step in self.steps)

    def claims(self) -> list[str]:
        """Every annotated claim, in order."""
        return [claim for step in self.steps for claim in step.claims]


@dataclass(frozen=True, slots=True)
class StepCheck:
    """One verified claim and the line (counted from 1) of the solution it sits on."""

    step: int
    claim: Claim


@dataclass(frozen=True, slots=True)
class SolutionReport:
    """How a worked solution stands up: every claim checked, and the final answer."""

    checks: tuple[StepCheck, ...]
    final_ok: bool
    final_reason: str
    has_solution: bool = True

    @property
    def ok(self) -> bool:
        """True when every claim holds (exactly or as a fair rounding) and the final answer
        follows from the solution."""
        return self.final_ok and all(c.claim.ok for c in self.checks)

    @property
    def exact(self) -> int:
        """How many claims are exactly right."""
        return sum(c.claim.status is ClaimStatus.EXACT for c in self.checks)

    @property
    def approximate(self) -> int:
        """How many claims are fair roundings of their exact value."""
        return sum(c.claim.status is ClaimStatus.APPROX for c in self.checks)

    def failures(self) -> list[str]:
        """One line per problem found, for people."""
        out = [f"step {c.step}: {c.claim.describe()}" for c in self.checks if not c.claim.ok]
        if not self.final_ok:
            out.append(self.final_reason)
        return out


def _final_report(
    answer: Fraction, solution: Solution, checks: list[StepCheck]
) -> tuple[bool, str]:
    shown = show_number(answer)
    if checks:
        last = checks[-1].claim
        if answer in (last.claimed, last.exact):
            return True, f"the final answer {shown} is the result of the last step"
    last_line = solution.steps[-1].prose if solution.steps else ""
    for token in _PROSE_NUMBER.findall(last_line):
        try:
            value = parse_number(token.replace(",", ""))
        except ArithError:
            continue
        if value == answer:
            return True, f"the final answer {shown} is stated in the last line"
    if not checks:
        return False, f"the final answer {shown} is neither computed nor stated in the solution"
    last = checks[-1].claim
    result = last.rhs if last.claimed is not None else "no number"
    return False, f"the final answer {shown} is not the result of the last step ({result})"


def answer_doubts(problems: Iterable[WordProblem], limit: int = 5) -> str | None:
    """One line for people when some problems' stored answers are not what their own worked
    solutions arrive at (``3 problems' answers ... (lines 4, 9, 12)``); None when none are."""
    doubted = [p for p in problems if p.answer_doubt() is not None]
    if not doubted:
        return None
    where = [f"line {p.line}" if p.line is not None else p.id or "?" for p in doubted]
    shown = ", ".join(where[:limit]) + (
        f" and {len(where) - limit} more" if len(where) > limit else ""
    )
    count = (
        "1 problem's answer is" if len(doubted) == 1 else f"{len(doubted)} problems' answers are"
    )
    return (
        f"{count} not what its own worked solution arrives at ({shown}); answers are judged "
        "against the file's"
    )


@dataclass(frozen=True, slots=True)
class WordProblem:
    """A math word problem with one exact numeric answer.

    ``source`` says where it came from (``gsm8k``, ``collection``, ``generated:<template>``,
    ``typed``) and ``line`` the line of its file, when it came from one. ``answer`` is None
    for a question a person typed without its answer: an answer to it is read, never judged."""

    question: str
    answer: Fraction | None
    solution: Solution | None = None
    id: str = ""
    topic: str = ""
    level: str = ""
    source: str = ""
    line: int | None = None
    unit: str = ""

    def public_view(self) -> dict[str, str]:
        """Exactly what a player sees: the question and its labels, never the answer or the
        worked solution."""
        return {
            "kind": KIND,
            "id": self.id,
            "question": self.question,
            "topic": self.topic,
            "level": self.level,
        }

    def check(self, text: str, *, percent: PercentPolicy = PercentPolicy.EITHER) -> Verdict:
        """Judge a typed answer exactly (see :mod:`puzzles.wordproblem.answers`); with no
        answer to judge against, it is read and said to be unchecked, never right or wrong."""
        if self.answer is None:
            try:
                given = str(read_answer(text))
            except AnswerError as exc:
                return Verdict(False, str(exc), readable=False)
            return Verdict(False, f"{given}: not checked (no answer was given)", None, given)
        return check_answer(text, self.answer, percent=percent)

    def verify(self) -> SolutionReport:
        """Verify every claim of the worked solution and that it arrives at the answer."""
        if self.solution is None or self.answer is None:
            return SolutionReport((), True, "no worked solution to check", has_solution=False)
        checks = [
            StepCheck(number, claim)
            for number, step in enumerate(self.solution.steps, start=1)
            for claim in step.checks()
        ]
        final_ok, reason = _final_report(self.answer, self.solution, checks)
        return SolutionReport(tuple(checks), final_ok, reason)

    def answer_doubt(self) -> str | None:
        """Why the stored answer is in doubt: its own worked solution arrives elsewhere (``the
        final answer 12 is not the result of the last step (14)``); None when the solution
        arrives at it or there is none. Answers are still judged against the stored one."""
        if self.solution is None:
            return None
        report = self.verify()
        return None if report.final_ok else report.final_reason

    @property
    def answer_text(self) -> str:
        """The answer as a solution writes it (``18``, ``12.5``, ``8/3``); ``?`` when none
        was given."""
        return "?" if self.answer is None else show_number(self.answer)

    def to_gsm8k(self) -> dict[str, str]:
        """A GSM8K record (``question``, ``answer`` ending in ``#### N``) plus our labels, so
        a generated set can be written as JSON lines and loaded back."""
        body = self.solution.render() + "\n" if self.solution is not None else ""
        record = {"question": self.question, "answer": f"{body}#### {self.answer_text}"}
        for key in ("id", "topic", "level"):
            value = getattr(self, key)
            if value:
                record[key] = value
        return record
