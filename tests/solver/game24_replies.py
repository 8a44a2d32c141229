"""Scripted Game of 24 replies that the method tests share: BoT step texts in the paper's
format and the trees, edges and analyses that make one aggregation or iteration the only right
one; replies that read the numbers on the table; IoT's guide and answer JSON."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction

from solver.model import Call


def numbers_of(call: Call) -> str:
    """The numbers on the table for this call, sorted (``3 5 14``)."""
    nums = sorted(Fraction(str(n)) for n in call.context["numbers"])
    return " ".join(str(n) for n in nums)


def sum_and_product(call: Call) -> Iterable[str] | str:
    """BoT replies: two steps from every node (the sum and the product of its first two
    numbers), every step scored 0.5, and the same analysis of every chain."""
    if call.purpose == "bot_step":
        a, b = numbers_of(call).split()[:2]
        return [
            f"{a} + {b} = {Fraction(a) + Fraction(b)}\nEvaluation score: 0.5",
            f"{a} * {b} = {Fraction(a) * Fraction(b)}\nEvaluation score: 0.5",
        ]
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.5"
    return FEEDBACK


def bot_text(
    state: str, a: str, op: str, b: str, c: str, rest: str, after: str, score: float
) -> str:
    """One BoT step reply in the paper's format."""
    return (
        f"Step 1, Current set: {state}, Two numbers selected: {a} {b}, Operation: {op}, "
        f"New number calculated: {c}, Remaining numbers: {rest}, New set: {after}, "
        f"Evaluation score: {score:g}"
    )


FEEDBACK = (
    "Analysis Report: not yet.\n"
    "Step 1: Advice: try again. Recommendation or Reject: Reject.\n"
    "Confidence score: 0.3"
)


def step_key(line: str) -> str:
    return line.split(" (left")[0]


# Greedy: three trees of depth 2, one child per node. Best chains (V_i, V_{i-1,i}):
#   tree 1: 8 / 8 (0.6, 0.6), then 7 - 1 (1.0, 1.0)    total 3.2, the best whole chain
#   tree 2: 7 - 4 (0.9, 0.9), then 3 * 8 (0.5, 0.3)    the best first step (1.8)
#   tree 3: 7 - 4 (0.5, 0.9), then 8 + 8 (0.1, 0.9)    the best edge after 7 - 4
# Greedy takes 7 - 4 from tree 2, then the best-edged continuation of a step like it: 8 + 8
# from tree 3, a chain that is in no tree. Best-first takes tree 1's whole chain.
GREEDY_TREES = {
    (1, 0): bot_text("4 7 8 8", "8", "/", "8", "1", "4 7", "1 4 7", 0.6),
    (1, 1): bot_text("1 4 7", "7", "-", "1", "6", "4", "4 6", 1.0),
    (2, 0): bot_text("4 7 8 8", "7", "-", "4", "3", "8 8", "3 8 8", 0.9),
    (2, 1): bot_text("3 8 8", "3", "*", "8", "24", "8", "8 24", 0.5),
    (3, 0): bot_text("4 7 8 8", "7", "-", "4", "3", "8 8", "3 8 8", 0.5),
    (3, 1): bot_text("3 8 8", "8", "+", "8", "16", "3", "3 16", 0.1),
}


GREEDY_EDGES = {
    "8 / 8 = 1": 0.6,
    "7 - 1 = 6": 1.0,
    "7 - 4 = 3": 0.9,
    "3 * 8 = 24": 0.3,
    "8 + 8 = 16": 0.9,
}


def tree_replies(
    trees: dict[tuple[int, int], str], edges: dict[str, float]
) -> Callable[[Call], Iterable[str] | str]:
    """BoT replies from scripted trees of one child per node: ``trees[(tree, depth)]`` is the
    step each tree proposes at each depth, ``edges[step]`` its evaluation score; every chain
    gets the same analysis."""

    def replies(call: Call) -> Iterable[str] | str:
        if call.purpose == "bot_step":
            return trees[(call.sample_offset + 1, len(call.context["chain"]))]
        if call.purpose == "bot_evaluate":
            return f"Evaluation score: {edges[step_key(call.context['step'])]:g}"
        return FEEDBACK

    return replies


# Hand 2 3 4, depth 2. Iteration 1 (no experience yet) finds 2 * 3, 6 * 4 = 24; its analysis
# says so. Iteration 2, whose prompt carries that analysis, goes 2 + 3, 5 * 4 = 20 instead.
REPORT = "The chain multiplies 2 by 3 first and then reaches 24 with 6 * 4."


ADVICE = ("keep 2 * 3 as the opening move", "finish with 6 * 4 every time")


FIRST_FEEDBACK = (
    f"Analysis Report: {REPORT}\n"
    f"Step 1: correct. Advice: {ADVICE[0]}. Recommendation or Reject: Recommend.\n"
    f"Step 2: correct. Advice: {ADVICE[1]}. Recommendation or Reject: Recommend.\n"
    "Confidence score: 0.9"
)


FIRST_CHAIN = (
    bot_text("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.9),
    bot_text("4 6", "6", "*", "4", "24", "none", "24", 0.9),
)


SECOND_CHAIN = (
    bot_text("2 3 4", "2", "+", "3", "5", "4", "4 5", 0.9),
    bot_text("4 5", "5", "*", "4", "20", "none", "20", 0.9),
)


def iterations_replies(call: Call) -> Iterable[str] | str:
    prompt = call.messages[-1].content
    if call.purpose == "bot_step":
        chain = SECOND_CHAIN if REPORT in prompt else FIRST_CHAIN
        return chain[len(call.context["chain"])]
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.9"
    if "New number calculated: 24" in prompt:
        return FIRST_FEEDBACK
    return "Analysis Report: 20 is not 24.\nConfidence score: 0.3"


# Hand 2 3 4, one child per node, depth 2: every tree writes 2 * 3, then 6 * 4 = 24, except
# that tree k's first step carries its own score, so each tree's chain text differs.
def chain_replies(call: Call) -> Iterable[str] | str:
    tree = call.sample_offset + 1
    if call.purpose == "bot_step":
        if not call.context["chain"]:
            return bot_text("2 3 4", "2", "*", "3", "6", "4", "4 6", 0.1 * tree + 0.4)
        return bot_text("4 6", "6", "*", "4", "24", "none", "24", 0.9)
    if call.purpose == "bot_evaluate":
        return "Evaluation score: 0.7"
    if call.purpose == "bot_feedback":
        return (
            "Analysis Report: REPORT-TEXT the chain reaches 24.\n"
            "Step 1: Advice: ADVICE-ONE. Recommendation or Reject: Recommend.\n"
            "Step 2: Advice: ADVICE-TWO. Recommendation or Reject: Recommend.\n"
            "Confidence score: 0.9"
        )
    raise AssertionError(call.purpose)


def first_steps(texts: Iterable[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for text in texts:
        m = re.search(r"Two numbers selected: (\S+) (\S+), Operation: (\S)", text)
        assert m is not None
        out[f"{m[1]} {m[3]} {m[2]}"] += 1
    return out


RIGHT = "(7 - 8 / 8) * 4"


WRONG = "8 * 8 + 7 - 4"


def guide(text: str = "Check your numbers.", stop: bool = False) -> str:
    return json.dumps({"guidance": text, "stop": stop})


def answer(expr: str | None, final: bool = False, doubt: str = "") -> str:
    return json.dumps(
        {"explanation": f"I tried {expr}.", "answer": expr, "uncertainty": doubt, "final": final}
    )


def dialogue(guides: list[str], answers: list[str]) -> Callable[[Call], str]:
    """Replies by role, in order; the last one repeats."""
    g, a = iter(guides), iter(answers)
    last = {"iot_guide": guides[-1], "iot_answer": answers[-1]}

    def reply(call: Call) -> str:
        source = g if call.purpose == "iot_guide" else a
        return next(source, last[call.purpose])

    return reply
