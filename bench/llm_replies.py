"""A rule-following stand-in for an LLM behind the fake server.

It reads only the prompt text (as a real model must), and writes replies in the loose style
real models use: prose, markdown, numbered lists. It plays a simple strategy (combine the two
largest numbers sensibly), which is enough to drive every method end to end over HTTP.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from puzzles.arith import format_number


def _numbers(text: str) -> list[Fraction]:
    return [Fraction(t) for t in re.findall(r"\d+(?:/\d+)?", text)]


def _fmt(ns: list[Fraction]) -> str:
    return " ".join(format_number(n) for n in ns)


def _moves(ns: list[Fraction]) -> list[tuple[Fraction, str, Fraction, Fraction, list[Fraction]]]:
    out = []
    for i in range(len(ns)):
        for j in range(len(ns)):
            if i == j:
                continue
            a, b = ns[i], ns[j]
            rest = [ns[k] for k in range(len(ns)) if k not in (i, j)]
            for op, c in (("*", a * b), ("+", a + b), ("-", a - b)):
                if c >= 0:
                    out.append((a, op, b, c, rest))
            if b and (a / b).denominator == 1:
                out.append((a, "/", b, a / b, rest))

    # Moves whose rest can still make 24 come first (a cheap look at two numbers).
    def good(m: tuple[Any, ...]) -> int:
        after = [*m[4], m[3]]
        if len(after) == 1:
            return 0 if after[0] == 24 else 2
        if len(after) == 2:
            x, y = after
            return 0 if 24 in (x + y, x * y, x - y, y - x) or (y and x / y == 24) else 1
        return 1

    return sorted(out, key=good)


def reply(request: dict[str, Any], index: int) -> str:
    prompt = "\n".join(str(m.get("content", "")) for m in request.get("messages", []))
    last = request["messages"][-1]["content"]
    if last.startswith("Repeat exactly: "):  # bench.concurrency's stream row
        return str(last.removeprefix("Repeat exactly: "))
    if "Possible next steps:" in last and last.rstrip().endswith("Possible next steps:"):
        numbers = _numbers(last.strip().splitlines()[-2])
        lines = ["Here are the possible next steps:"]
        for k, (a, op, b, c, rest) in enumerate(_moves(numbers)[:6], 1):
            lines.append(
                f"{k}. {format_number(a)} {op} {format_number(b)} = "
                f"{format_number(c)} (left: {_fmt([*rest, c])})"
            )
        return "\n".join(lines)
    if last.startswith("Judge whether"):
        numbers = _numbers(last.strip().splitlines()[-1])
        if len(numbers) == 1:
            return "sure" if numbers[0] == 24 else "impossible"
        return "Let me try.\n**likely**" if index % 2 else "sure"
    if last.startswith("Judge an answer"):
        return "Judge: sure"
    if "Steps:" in last and "Input:" in last:
        steps = last.split("Steps:")[-1].strip().splitlines()
        hand = last.split("Input:")[-1].split("\n")[0]
        if steps:
            return f"Answer: {hand.strip().replace(' ', ' + ')} = 24"
        a, b, c, d = _numbers(hand)[:4]
        return (
            f"{format_number(a)} + {format_number(b)} = {format_number(a + b)}\n"
            f"Answer: ({_fmt([a])} + {_fmt([b])}) * {_fmt([c])} - {_fmt([d])} = 24"
        )
    if last.rstrip().endswith("Answer:"):
        hand = last.split("Input:")[-1].split("\n")[0]
        return f"The answer is:\nAnswer: {hand.strip().replace(' ', ' * ')} = 24"
    if "Give exactly one next step" in last:
        chain = last.split("The reasoning steps so far")[-1].split("---")[1]
        sets = re.findall(r"New set: ([\d/ ]+)", chain)
        given = re.search(r"The numbers are: ([\d ]+)", last)
        current = _numbers(sets[-1] if sets else given.group(1) if given else "")
        moves = _moves(current)
        if not moves:
            return "There is nothing left to combine."
        a, op, b, c, rest = moves[index % min(2, len(moves))]
        step = len(sets) + 1
        return (
            f"Step {step}, Current set: {_fmt(current)}, Two numbers selected: "
            f"{format_number(a)} {format_number(b)}, Operation: {op}, New number calculated:"
            f" {format_number(c)}, Remaining numbers: {_fmt(rest)}, New set: "
            f"{_fmt([*rest, c])}, Evaluation score: 0.7"
        )
    if "The next step to evaluate" in last:
        return "The step is correct.\nEvaluation score: 0.9"
    if "Analysis Report" in last:
        return (
            "Analysis Report: the chain was checked.\n"
            "Step 1: correct. Advice: keep it. Recommendation or Reject: Recommend.\n"
            "Confidence score: 0.7"
        )
    return f"I am not sure what to do with: {prompt[:40]}"
