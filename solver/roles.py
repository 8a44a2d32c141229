"""What a model call is for: one vocabulary for methods, domains, the model layer, traces and
the offline engine.

A :class:`Role` is what a prompt asks of the model (propose next steps, value a state, write
one step, analyse a chain, ...): a domain has one prompt and one parser per role it supports,
and a method names the roles it needs. A :class:`Purpose` is one method's call of a role, as a
:class:`~solver.model.Call` carries it and as traces and recordings write it (``bot_step`` is
BoT's call of :attr:`Role.STEP`; ToT's ``answer`` is its call of :attr:`Role.COT`).

Both are string enums: a member is the plain string that traces, results files and
recordings have always held (``Purpose.BOT_STEP == "bot_step"``), so every file written
before them reads the same, and JSON writes them unchanged. This module imports nothing, so
every part of the solver can import it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Purpose", "Role"]


class Role(StrEnum):
    """What a prompt asks of the model; a domain has a prompt and a parser per role."""

    IO = "io"
    """The puzzle, answer at once (IO, CoT-SC's samples)."""
    COT = "cot"
    """Work step by step, then answer (CoT; ToT's answer call; DELI's first solution)."""
    PROPOSE = "propose"
    """ToT: the possible next steps from a state."""
    VALUE = "value"
    """ToT: whether a state can still reach the goal (sure / likely / impossible)."""
    JUDGE = "judge"
    """ToT: whether a finished answer is right."""
    CLUE_VALUE = "clue_value"
    """ToT (DFS, crosswords): whether a clue can still be filled."""
    STEP = "step"
    """BoT: exactly one next step of a chain."""
    EVALUATE = "evaluate"
    """BoT: a score for one step."""
    ANALYZE = "analyze"
    """BoT: the analysis report on a chain (its experience)."""
    CONDENSE = "condense"
    """BoT (cumulative experience): all experience rewritten shorter."""
    SIMILAR = "similar"
    """BoT (greedy aggregation): how alike two steps are."""
    EXAMPLES = "examples"
    """BoT+CoT: the step prompt can carry worked examples (a capability, no call of its own)."""
    FINAL = "final"
    """BoT: the last call, with all the experience."""
    GUIDE = "guide"
    """IoT: the inner dialogue agent's next prompt."""
    RESPOND = "respond"
    """IoT: the answerer's reply to the guidance."""
    ACT = "act"
    """ReAct: one thought and action."""
    FORMALIZE = "formalize"
    """DELI: a trial solution turned into tool calls."""
    REVISE = "revise"
    """DELI: a solution revised against its verification."""


class Purpose(StrEnum):
    """One method's call of a role: what a :class:`~solver.model.Call` is for, by the name
    traces and recordings give it."""

    IO = "io"
    COT = "cot"
    ANSWER = "answer"
    """ToT's answer call (the CoT prompt with the steps so far)."""
    PROPOSE = "propose"
    VALUE = "value"
    JUDGE = "judge"
    CLUE_VALUE = "clue_value"
    BOT_STEP = "bot_step"
    BOT_EVALUATE = "bot_evaluate"
    BOT_FEEDBACK = "bot_feedback"
    BOT_CONDENSE = "bot_condense"
    BOT_SIMILAR = "bot_similar"
    BOT_FINAL = "bot_final"
    IOT_GUIDE = "iot_guide"
    IOT_ANSWER = "iot_answer"
    REACT_ACT = "react_act"
    DELI_INIT = "deli_init"
    DELI_TOOL = "deli_tool"
    DELI_REVISE = "deli_revise"
    CHECK = "check"
    """The OpenAI engine's connection probe (a one-token question, answered at once)."""

    @property
    def role(self) -> Role:
        """The role whose prompt the call sends."""
        return _ROLE_OF[self]

    @property
    def said(self) -> str:
        """What the call is doing, in a player's words (``writing a step``)."""
        return _SAID[self]


_ROLE_OF: dict[Purpose, Role] = {
    Purpose.IO: Role.IO,
    Purpose.COT: Role.COT,
    Purpose.ANSWER: Role.COT,
    Purpose.PROPOSE: Role.PROPOSE,
    Purpose.VALUE: Role.VALUE,
    Purpose.JUDGE: Role.JUDGE,
    Purpose.CLUE_VALUE: Role.CLUE_VALUE,
    Purpose.BOT_STEP: Role.STEP,
    Purpose.BOT_EVALUATE: Role.EVALUATE,
    Purpose.BOT_FEEDBACK: Role.ANALYZE,
    Purpose.BOT_CONDENSE: Role.CONDENSE,
    Purpose.BOT_SIMILAR: Role.SIMILAR,
    Purpose.BOT_FINAL: Role.FINAL,
    Purpose.IOT_GUIDE: Role.GUIDE,
    Purpose.IOT_ANSWER: Role.RESPOND,
    Purpose.REACT_ACT: Role.ACT,
    Purpose.DELI_INIT: Role.COT,
    Purpose.DELI_TOOL: Role.FORMALIZE,
    Purpose.DELI_REVISE: Role.REVISE,
    Purpose.CHECK: Role.IO,
}

_SAID: dict[Purpose, str] = {
    Purpose.IO: "answering",
    Purpose.COT: "working it out",
    Purpose.ANSWER: "answering",
    Purpose.PROPOSE: "proposing steps",
    Purpose.VALUE: "valuing a state",
    Purpose.JUDGE: "judging an answer",
    Purpose.CLUE_VALUE: "valuing a clue",
    Purpose.BOT_STEP: "writing a step",
    Purpose.BOT_EVALUATE: "scoring a step",
    Purpose.BOT_FEEDBACK: "analysing the chain",
    Purpose.BOT_CONDENSE: "condensing the experience",
    Purpose.BOT_SIMILAR: "comparing steps",
    Purpose.BOT_FINAL: "the final answer",
    Purpose.IOT_GUIDE: "the guide",
    Purpose.IOT_ANSWER: "the answerer",
    Purpose.REACT_ACT: "thinking and acting",
    Purpose.DELI_INIT: "a first solution",
    Purpose.DELI_TOOL: "equations for the tools",
    Purpose.DELI_REVISE: "revising the solution",
    Purpose.CHECK: "checking the connection",
}
