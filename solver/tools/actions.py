"""The text format of tool use: ReAct's numbered ``Thought i:`` / ``Action i: name[argument]``
/ ``Observation i:`` lines, read tolerantly.

Chat models break the format in known ways (see the ReAct notes): several actions in one
reply, an invented ``Observation`` (the stop sequence missing or ignored), markdown around
the labels, ``Finish[...]`` capitalised or on the line after ``Action 3:``, ``name(arg)``
instead of ``name[arg]``. The parser keeps the first thought and the first action, drops
anything from an invented observation on, and says what it had to forgive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from puzzles.text import clip_text, whole_lines

__all__ = ["Action", "format_trajectory", "parse_action", "parse_final"]

_SCAN = 20_000
_MARKDOWN = re.compile(r"\*\*|__|`+|^\s*[#>]+\s*", re.MULTILINE)
_OBSERVATION = re.compile(r"^\s*(?:observation|output)\b\s*\d*\s*[:：]", re.I | re.M)
_THOUGHT = re.compile(r"^\s*thought\s*\d*\s*[:：]\s*(.*?)\s*$", re.I | re.M)
_ACTION = re.compile(r"^\s*action\s*\d*\s*[:：]\s*(.*?)\s*$", re.I | re.M)
_CALL = re.compile(r"([A-Za-z_]{2,30})\s*([\[(])")


@dataclass(frozen=True, slots=True)
class Action:
    """One step a model wrote: its thought, the action's name (lower case) and argument.

    ``name`` is empty when no action could be read, and ``problem`` then says why (for the
    observation the model gets back). ``notes`` list what the parser forgave."""

    thought: str
    name: str
    argument: str
    text: str = ""
    problem: str = ""
    notes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return bool(self.name) and not self.problem

    def written(self) -> str:
        """The action as the transcript shows it (``calculate[30 * 11]``)."""
        return f"{self.name}[{self.argument}]" if self.name else self.text[:200]


def _call(text: str, names: Iterable[str]) -> tuple[str, str, str] | None:
    """The first ``name[argument]`` (or ``name(argument)``) in ``text`` whose name is one of
    ``names``: (name, argument, problem)."""
    known = {n.lower() for n in names}
    for m in _CALL.finditer(text):
        name = m.group(1).lower()
        if name not in known:
            continue
        close = "]" if m.group(2) == "[" else ")"
        line_end = text.find("\n", m.end())
        rest = text[m.end() : line_end if line_end >= 0 else len(text)]
        end = rest.rfind(close)
        if end < 0:
            return name, rest.strip(), f"the action {name}[ has no closing '{close}'"
        return name, rest[:end].strip(), ""
    return None


_MAX_ARGUMENT = 2000
"""Characters of an action's argument: a longer one is refused, never run in part."""


def parse_action(text: str, names: Sequence[str]) -> Action:
    """The thought and the first action of a reply; ``names`` are the actions the prompt
    offered (tools and ``finish``)."""
    if not isinstance(text, str) or not text.strip():
        return Action("", "", "", "", "the reply was empty")
    body = _MARKDOWN.sub("", whole_lines(text, _SCAN))  # a line the limit cuts is not read
    notes: list[str] = []
    cut = _OBSERVATION.search(body)
    if cut:
        body = body[: cut.start()]
        notes.append("the model wrote its own observation; it was dropped")
    thought_match = _THOUGHT.search(body)
    action_match = _ACTION.search(body)
    if thought_match:
        end = action_match.start() if action_match else len(body)
        thought = " ".join(body[thought_match.start(1) : max(end, thought_match.end(1))].split())
    else:
        # The text before the action is the thought ("Thought i:" was in the prompt).
        first = action_match.start() if action_match else len(body)
        thought = " ".join(body[:first].split())
    thought = clip_text(thought, 2000)  # its arithmetic is checked: never a claim in part
    if action_match:
        action_text = action_match.group(1)
        if not action_text:  # "Action 3:" then the action on a later line
            rest = body[action_match.end() :].strip()
            action_text = rest.splitlines()[0] if rest else ""
        found = _call(action_text, names) or _call(body[action_match.start() :], names)
        if len(_ACTION.findall(body)) > 1:
            notes.append("the model wrote several actions; only the first was taken")
    else:
        found = _call(body, names)
        action_text = found[0] if found else ""
        if found:
            notes.append("no 'Action:' label; the action was read from the text")
    if found is None:
        shown = " ".join(action_text.split())[:80]
        offered = ", ".join(f"{n}[...]" for n in names)
        problem = (
            f"invalid action {shown!r}: use one of {offered}"
            if shown
            else f"no action found: end your reply with one action, one of {offered}"
        )
        return Action(thought, "", "", action_text[:200], problem, tuple(notes))
    name, argument, problem = found
    if name == "finish":  # the answer, kept whole: the check refuses one too long itself
        return Action(thought, name, argument, action_text[:400], problem, tuple(notes))
    if len(argument) > _MAX_ARGUMENT and not problem:
        # Run or checked in part, it would be an expression the model never wrote: refused.
        problem = (
            f"the argument of {name} is too long ({len(argument)} characters; "
            f"at most {_MAX_ARGUMENT})"
        )
        argument = ""
    return Action(thought, name, argument, action_text[:400], problem, tuple(notes))


_FINAL = re.compile(r"(?:final\s+answer|answer)\s*[:：]\s*(.+)", re.I)


def parse_final(text: str) -> str | None:
    """The text after the last ``Final Answer:`` (or ``Answer:``) label, or None."""
    if not isinstance(text, str):
        return None
    found = _FINAL.findall(_MARKDOWN.sub("", whole_lines(text, _SCAN)))
    if not found:
        return None
    answer = found[-1].strip()
    return answer[:400] or None


def format_trajectory(steps: Sequence[tuple[str, str, str]], label: str = "Observation") -> str:
    """Numbered ``Thought i`` / ``Action i`` / ``<label> i`` lines for the steps so far."""
    out = []
    for i, (thought, action, observation) in enumerate(steps, 1):
        out += [f"Thought {i}: {thought}", f"Action {i}: {action}", f"{label} {i}: {observation}"]
    return "\n".join(out)
