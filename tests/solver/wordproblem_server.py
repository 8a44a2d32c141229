"""The offline word-problem player behind the test server: a stand-in model that knows a
prompt's role from its text alone (a server never sees a purpose), and the methods that play
word problems."""

from __future__ import annotations

import random
from typing import Any

from solver.model import Call, Message, Sampling
from solver.model.offline.wordproblem import WordProblemPlayer
from solver.roles import Purpose

METHODS = ["io", "cot", "cot-sc", "bot", "aiot", "giot", "react", "deli"]


ROLE_BY_PROMPT = (
    ("You are an expert in mathematics", "bot_step"),
    ("You are an expert checker", "bot_feedback"),
    ("You are the inner guide", "iot_guide"),
    ("You solve a math word problem in a dialogue", "iot_answer"),
    ("You solve math word problems by interleaving", "react_act"),
    ("You check a solution", "deli_tool"),
    ("You revise a solution", "deli_revise"),
)


def role_of(messages: list[dict[str, Any]]) -> str:
    """Which prompt this is, read from its text alone (a server never sees a purpose)."""
    system = next((str(m["content"]) for m in messages if m["role"] == "system"), "")
    user = str(messages[-1]["content"])
    for opening, role in ROLE_BY_PROMPT:
        if system.startswith(opening):
            return role
    if "The next step to evaluate" in user:
        return "bot_evaluate"
    if "Give only the answer." in user:
        return "io"
    return "cot"


def offline_reply(request: dict[str, Any], index: int) -> str:
    """The offline word-problem player answering a chat request, as a server's model: from
    the request's messages and sampling only."""
    messages = request["messages"]
    call = Call(
        Purpose(role_of(messages)),
        tuple(Message(m["role"], str(m["content"])) for m in messages),
        Sampling(float(request.get("temperature", 1.0)), stop=tuple(request.get("stop") or ())),
    )
    return WordProblemPlayer().reply(call, random.Random(index), 0)
