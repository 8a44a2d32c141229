"""The domain seam: everything a reasoning method needs to know about a puzzle kind.

A method never imports a puzzle; it asks its :class:`Domain` for the start state, the prompt
for a role (``propose``, ``value``, ``step``, ``guide``, ...), the parser of that role's
reply, the exact check of an answer, and how steps are written and replayed. Each puzzle
kind has one adapter (``solver.domains.game24`` for the Game of 24). A domain declares the
roles it supports; a method declares the roles it needs (its
:class:`~solver.methods.spec.MethodSpec`), and :func:`require_roles` turns a mismatch into
a clear error before the run starts.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from solver.model import Message
from solver.roles import Role
from solver.tools.result import ToolResult

__all__ = [
    "ClaimLike",
    "Claiming",
    "Demonstration",
    "Domain",
    "FeedbackLike",
    "Guidance",
    "Proposing",
    "Reply",
    "Retrieving",
    "RolesMissing",
    "StepLike",
    "Tool",
    "ToolResult",
    "VerdictLike",
    "require_roles",
]

S = TypeVar("S")
P = TypeVar("P", bound="StepLike")


class VerdictLike(Protocol):
    """The exact judgement of an answer."""

    @property
    def ok(self) -> bool: ...

    @property
    def reason(self) -> str: ...


class ClaimLike(Protocol):
    """An arithmetic claim checked exactly (what a ``ClaimVerified`` event reports)."""

    @property
    def lhs(self) -> str: ...

    @property
    def rhs(self) -> str: ...

    @property
    def status(self) -> object: ...

    @property
    def ok(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def exact_text(self) -> str | None: ...


class StepLike(Protocol):
    """A step read from a reply and checked exactly against the state it was taken from."""

    @property
    def text(self) -> str: ...

    @property
    def claim(self) -> ClaimLike: ...

    @property
    def problem(self) -> str: ...

    @property
    def valid(self) -> bool: ...


class FeedbackLike(Protocol):
    """An analysis of a chain (BoT): report, per-step advice and verdicts, confidence."""

    @property
    def report(self) -> str: ...

    @property
    def advice(self) -> tuple[str, ...]: ...

    @property
    def verdicts(self) -> tuple[str, ...]: ...

    @property
    def confidence(self) -> float | None: ...

    @property
    def analysis(self) -> tuple[str, ...]:
        """Each step's error report, in step order ("" where the analysis said nothing)."""
        ...

    @property
    def parsed(self) -> bool: ...

    def entry(self, index: int, chain: Sequence[str]) -> str: ...


@dataclass(frozen=True, slots=True)
class Guidance:
    """IoT: the Inner Dialogue Agent's reply: its prompt for the answerer and its stop flag."""

    text: str
    stop: bool
    parsed: bool = True


@dataclass(frozen=True, slots=True)
class Reply:
    """IoT: the LLM Agent's reply: reasoning, candidate answer, stated doubts, final flag."""

    explanation: str
    answer: str | None
    uncertainty: str
    final: bool
    parsed: bool = True


class Tool(Protocol):
    """A tool a tool-using method may call (ReAct, DELI): a name and a run on text."""

    name: str
    description: str

    def __call__(self, argument: str) -> str: ...

    def run(self, argument: str, limit: float | None = None) -> ToolResult:
        """Run under a time limit (seconds; None: the tool's own) enforced outside the tool.
        Blocking: methods call it from a thread."""
        ...


@runtime_checkable
class Domain(Protocol[S, P]):
    """One puzzle, as the methods see it. ``S`` is the state type, ``P`` the parsed step."""

    kind: str
    """The puzzle kind (``game24``)."""
    roles: frozenset[Role]
    """The roles this domain has prompts and parsers for."""

    @property
    def value_weights(self) -> Mapping[str, float]:
        """The value of each label a ``value`` reply may give (ToT: sure 20 / likely 1)."""
        ...

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools a tool-using method may call (none for the Game of 24)."""
        ...

    @property
    def title(self) -> str: ...

    # ---------------------------------------------------------------- states and answers

    def start(self) -> S: ...

    def is_goal(self, state: S) -> bool: ...

    def is_final(self, state: S) -> bool:
        """No step can follow (one number left)."""
        ...

    def depth(self) -> int:
        """Steps in a full solution (3 for four numbers)."""
        ...

    def check(self, answer: str | None) -> VerdictLike: ...

    def answer_of(self, state: S) -> str | None:
        """The answer a finished state spells out, or None."""
        ...

    def uses_all(self, answer: str) -> bool:
        """Whether an answer uses exactly the puzzle's givens (ToT's own success rule)."""
        ...

    def answer_key(self, answer: str) -> str | None:
        """A normal form of an answer for counting votes (CoT-SC); None when unreadable."""
        ...

    def context(self, state: S, **extra: object) -> dict[str, object]:
        """The public state a call carries, for traces and panes (never the answer)."""
        ...

    def state_text(self, state: S) -> str:
        """A state as one short line (``4 6 8``), for panes."""
        ...

    def state_key(self, state: S) -> Hashable:
        """Two states with the same key get the same value prompt (ToT's value cache)."""
        ...

    # ---------------------------------------------------------------- prompts and parsers

    def prompt(self, role: Role, **args: Any) -> tuple[Message, ...]:
        """The messages for ``role``; raises :class:`RolesMissing` for a role not declared."""
        ...

    # A protocol member: mutmut must leave it alone, or its trampolines join the protocol.
    def parse_steps(self, text: str, state: S, limit: int = 32) -> list[P]: ...  # pragma: no mutate

    def parse_answer(self, text: str) -> str | None: ...

    def parse_value(self, text: str) -> str | None: ...

    def parse_score(self, text: str) -> float | None: ...

    def parse_feedback(self, text: str, steps: int) -> FeedbackLike: ...

    def parse_guidance(self, text: str) -> Guidance: ...

    def parse_reply(self, text: str) -> Reply: ...

    def turn(self, guidance: str, reply: Reply) -> object:
        """One IoT dialogue turn as the domain's ``guide`` / ``respond`` prompts take it."""
        ...

    def claims(self, text: str) -> Sequence[ClaimLike]:
        """Every claim in free text, each checked exactly."""
        ...

    # ---------------------------------------------------------------- steps and chains

    def after(self, step: P) -> S | None:
        """The exact state a step leads to (None when it cannot be played)."""
        ...

    def step_key(self, step: P) -> Hashable:
        """Two steps with the same key are the same move."""
        ...

    def step_line(self, step: P) -> str:
        """A step in the plain form shown in trees (``4 + 8 = 12 (left: 8 12)``)."""
        ...

    def step_text(self, number: int, before: S, step: P) -> str:
        """A step in the long form BoT's prompts use, from the exact states."""
        ...

    def replay(self, states: Sequence[S]) -> tuple[S | None, str, bool]:
        """Replay a chain (the states after each step) exactly from the start: the final
        state (None when a step does not follow), a reason, and whether it is solved."""
        ...

    def similarity(self, a: str, b: str) -> float:
        """How alike two step lines are (0..1), for greedy aggregation."""
        ...


S_in = TypeVar("S_in", contravariant=True)
P_out = TypeVar("P_out", covariant=True)


@runtime_checkable
class Proposing(Protocol[S_in, P_out]):
    """What ToT's depth-first search needs of a domain beyond :class:`Domain` (crosswords):
    proposals read with their confidence, the parts of a state valued one by one (the
    ``clue_value`` role), and how far a state has got (the output is the deepest state)."""

    @property
    def confidence_weights(self) -> Mapping[str, float]:
        """The score of each confidence label a proposal may carry."""
        ...

    # Not mutated, like Domain.parse_steps: a protocol member.
    def proposals(
        self,
        text: str,
        state: S_in,
        limit: int = 32,  # pragma: no mutate
    ) -> Sequence[tuple[P_out, float]]:
        """The steps a ``propose`` reply lists, each with its confidence score."""
        ...

    def open_parts(self, state: S_in) -> list[str]:
        """The parts of ``state`` to value (crosswords: the clues with letters written)."""
        ...

    def progress(self, state: S_in) -> int:
        """How many steps ``state`` has taken (crosswords: words written)."""
        ...


P_in = TypeVar("P_in", contravariant=True)


@runtime_checkable
class Claiming(Protocol[S, P_in]):
    """What a method's paper mode needs of a domain beyond :class:`Domain`: the state the
    model *claims* a step leads to (its own result and list of what is left), kept even when
    the exact arithmetic says otherwise, and how such steps are written and replayed. A domain
    without it runs paper mode on exact states (:meth:`Domain.after`)."""

    def claimed(self, step: P_in, state: S) -> S | None:
        """The state the model says ``step`` leads to from ``state`` (None: unreadable)."""
        ...

    def claimed_line(self, step: P_in, after: S) -> str:
        """A step as the model wrote it, in the plain form of trees."""
        ...

    def claimed_text(self, number: int, before: S, step: P_in, after: S) -> str:
        """A step as the model wrote it, in the long form of BoT's prompts."""
        ...

    def replay_claimed(self, states: Sequence[S]) -> tuple[S | None, str, bool]:
        """A chain of claimed states as written: the final state, a reason, and whether it
        is solved (it claims the goal and its answer passes the exact check)."""
        ...


@dataclass(frozen=True, slots=True)
class Demonstration:
    """A solved problem shown to the model as an example: its question, its worked steps and
    its answer, as a prompt carries them, with the retriever's score for the problem solved."""

    id: str
    question: str
    steps: tuple[str, ...]
    answer: str
    score: float

    def text(self) -> str:
        """The demonstration exactly as a prompt shows it."""
        return "\n".join(
            [f"Question: {self.question}", "Steps:", *self.steps, f"Answer: {self.answer}"]
        )


@runtime_checkable
class Retrieving(Protocol):
    """A domain that can retrieve solved problems like its own (DELI's start, as CARP's:
    question-to-question matching over a pool of worked solutions)."""

    @property
    def retriever(self) -> str:
        """How demonstrations are found, for people (``BM25 over 400 generated problems``)."""
        ...

    def demonstrations(self, k: int) -> tuple[Demonstration, ...]:
        """The ``k`` solved problems most like this one, best first; never this problem
        itself; fewer (or none) when the pool holds fewer of its kind."""
        ...


class RolesMissing(ValueError):
    """A method needs roles a domain does not have."""

    def __init__(self, method: str, kind: str, missing: Sequence[str]) -> None:
        self.method = method
        self.kind = kind
        self.missing = tuple(missing)
        super().__init__(
            f"{method} cannot solve {kind} puzzles yet: the {kind} domain has no "
            f"{', '.join(self.missing)} prompt{'s' if len(self.missing) > 1 else ''}"
        )


def require_roles(method: str, needed: frozenset[Role], domain: Domain[Any, Any]) -> None:
    """Raise :class:`RolesMissing` when ``domain`` lacks any role in ``needed``."""
    missing = sorted(needed - domain.roles)
    if missing:
        raise RolesMissing(method, domain.kind, missing)
