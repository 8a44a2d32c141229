"""How much of ToT's published GPT-4 Game of 24 text each of ponder's readers reads.

Reads the three logs of princeton-nlp/tree-of-thought-llm (a bare git mirror, read with
``git show``; nothing of them is copied anywhere) and counts, for each reader, the lines it
reads and those it calls unreadable, by reason:

* the Game of 24 step reader (``solver.domains.game24.parse_steps``) on every proposal line
  of the ToT propose/value run, from the state the model's own ``left:`` list gives;
* the answer reader (``parse_answer``) on the IO and CoT replies and on the ToT run's final
  ``Answer:`` lines, each answer then checked exactly (``puzzles.game24.check_answer``);
* ``puzzles.arith.extract_claims`` on every line of the three logs.

Usage: python scripts/reader_figures.py --git MIRROR [--code DIR]
(MIRROR: a clone or bare mirror of princeton-nlp/tree-of-thought-llm, as for
scripts/import_tot_runs.py; DIR: a ponder checkout to measure, default this one)
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

MIRROR = "."  # set from --git
LOGS = {
    "io": "logs/game24/gpt-4_0.7_naive_standard_sample_100_start900_end1000.json",
    "cot": "logs/game24/gpt-4_0.7_naive_cot_sample_100_start900_end1000.json",
    "tot": "logs/game24/gpt-4_0.7_propose1_value3_greedy5_start900_end1000.json",
}
HANDS = "src/tot/data/24/24.csv"
_LEFT = re.compile(r"\(left:\s*([^)]*)\)")


def show(path: str) -> str:
    done = subprocess.run(
        ["git", "-C", MIRROR, "show", f"HEAD:{path}"], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8")


def hands() -> list[str]:
    return [row["Puzzles"] for row in csv.DictReader(io.StringIO(show(HANDS)))]


def proposals(run: list[dict[str, Any]]) -> Iterator[tuple[str, str, str]]:
    """(hand, the numbers before the line as the model left them, the new line) for every
    proposal of every step; an ``Answer:`` line has an empty state."""
    for task in run:
        for step in task["steps"]:
            for y in step["new_ys"]:
                lines = y.strip().splitlines()
                if not lines:
                    continue
                before = step["x"]
                for parent in lines[:-1]:
                    m = _LEFT.search(parent)
                    if m:
                        before = m.group(1)
                yield step["x"], before, lines[-1]


def why_no_step(line: str, extract_claims: Any) -> str:
    if "=" not in line and "≈" not in line:
        return "no '=' on the line"
    claims = extract_claims(line)
    if not claims:
        return "no claim read on the line"
    bad = [c for c in claims if str(c.status) == "invalid"]
    if bad:
        return f"claim unreadable: {bad[0].reason}"
    return "the left side is not one operation a op b"


def step_figures(run: list[dict[str, Any]], m: Any) -> None:
    read: Counter[str] = Counter()
    unread: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    total = 0
    for _, before, line in proposals(run):
        if line.lower().startswith("answer"):
            continue
        total += 1
        try:
            state = m.State(tuple(m.parse_number(n) for n in before.split()))
        except Exception:  # a left list ponder cannot read: the hand's numbers stand in
            state = m.State(())
        steps = m.parse_steps(line, state, limit=1)
        if not steps:
            unread[why_no_step(line, m.extract_claims)] += 1
            continue
        step = steps[0]
        read["read"] += 1
        statuses[str(step.claim.status) + (" (≈ written)" if _approx(step.claim) else "")] += 1
        if step.problem:
            problems[_problem(step.problem)] += 1
    print(f"\n## Game of 24 step reader: {total} proposal lines of the ToT run")
    print(f"read as a step: {read['read']}   unreadable: {sum(unread.values())}")
    _table("unreadable, by reason", unread)
    _table("claims of the steps read", statuses)
    _table("steps read that the exact check refuses, by problem", problems)


def _approx(claim: Any) -> bool:
    return bool(getattr(claim, "approximate", False))


def _problem(problem: str) -> str:
    if "not among" in problem or "not on" in problem:
        return "numbers not on the table"
    if problem.startswith("✗"):
        return "wrong result"
    return re.sub(r"\d+(?:/\d+)?", "N", problem)[:70]


def answer_figures(name: str, texts: list[tuple[str, str]], m: Any) -> None:
    read: Counter[str] = Counter()
    unread: Counter[str] = Counter()
    verdicts: Counter[str] = Counter()
    for hand_text, text in texts:
        answer = m.parse_answer(text)
        if answer is None:
            unread[_why_no_answer(text, m)] += 1
            continue
        labelled = re.search(r"answer\s*[:：]", text, re.IGNORECASE) is not None
        read["with an Answer: label" if labelled else "without a label (the last line)"] += 1
        verdict = m.check_answer(m.Hand.parse(hand_text), answer)
        verdicts[_verdict(verdict, answer)] += 1
    print(f"\n## answer reader: {len(texts)} {name}")
    print(f"answer read: {sum(read.values())}   no answer read: {sum(unread.values())}")
    _table("answers read", read)
    _table("no answer read, by reason", unread)
    _table("the answers read, checked exactly", verdicts)


def _why_no_answer(text: str, m: Any) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "empty reply"
    last = lines[-1]
    if "(left:" in last:
        return "no Answer: line; the last line is a step (left: ...)"
    if re.search(r"[A-Za-z]{3,}", last):
        return "no Answer: line; the last line is prose"
    return "no Answer: line; the last line is not one expression"


def _verdict(verdict: Any, answer: str) -> str:
    if verdict.ok:
        return "right (solves the hand)"
    reason = str(verdict.reason)
    if reason.startswith("not a valid expression"):
        if not re.search(r"\d", answer) or re.match(r"\s*[A-Za-z]{2}", answer):
            return "no expression: the answer is words ('None', 'no solution', ...)"
        return "unreadable: " + re.sub(r"'.'|\d+", "…", reason.split(": ", 1)[1])[:60]
    if reason.startswith("equals"):
        return "wrong: the hand's numbers once each, but not 24"
    return "wrong: not the hand's numbers once each"


def claim_figures(lines: list[str], m: Any) -> None:
    with_sign = [line for line in lines if "=" in line or "≈" in line]
    statuses: Counter[str] = Counter()
    invalid: Counter[str] = Counter()
    none = 0
    for line in with_sign:
        claims = m.extract_claims(line)
        if not claims:
            none += 1
        for claim in claims:
            statuses[str(claim.status) + (" (≈ written)" if _approx(claim) else "")] += 1
            if str(claim.status) == "invalid":
                invalid[re.sub(r"'.'", "'…'", claim.reason)[:70]] += 1
    print(
        f"\n## extract_claims: {len(lines)} lines of the three logs, {len(with_sign)} with = or ≈"
    )
    print(f"lines with a claim read: {len(with_sign) - none}   lines with = but no claim: {none}")
    _table("claims, by verdict", statuses)
    _table("unreadable claims (?), by reason", invalid)


def _table(title: str, counts: Counter[str]) -> None:
    if not counts:
        return
    print(f"  {title}:")
    for key, n in counts.most_common():
        print(f"    {n:>7,}  {key}")


class Readers:
    """The readers of the ponder checkout being measured."""

    def __init__(self, code: str) -> None:
        sys.path.insert(0, code)
        from puzzles.arith import extract_claims, parse_number
        from puzzles.game24 import Hand, State, check_answer
        from solver.domains.game24 import parse_answer, parse_steps

        self.extract_claims, self.parse_number = extract_claims, parse_number
        self.Hand, self.State, self.check_answer = Hand, State, check_answer
        self.parse_answer, self.parse_steps = parse_answer, parse_steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True, help="ToT's repository (a clone or a bare mirror)")
    ap.add_argument("--code", default=str(__import__("pathlib").Path(__file__).parent.parent))
    args = ap.parse_args()
    global MIRROR
    MIRROR = args.git
    m = Readers(args.code)
    every = hands()
    runs = {name: json.loads(show(path)) for name, path in LOGS.items()}
    print(f"# ponder's readers on ToT's published GPT-4 logs (code: {m.parse_steps.__module__})")
    step_figures(runs["tot"], m)
    for name in ("io", "cot"):
        texts = [(every[task["idx"]], y) for task in runs[name] for y in task["ys"]]
        answer_figures(f"{name.upper()} replies", texts, m)
    finals = [(x, line) for x, _, line in proposals(runs["tot"]) if line.startswith("Answer")]
    answer_figures("final Answer: lines of the ToT run", finals, m)
    lines = [
        line
        for name in ("io", "cot")
        for task in runs[name]
        for y in task["ys"]
        for line in y.splitlines()
    ]
    lines += [line for _, _, line in proposals(runs["tot"])]
    claim_figures(lines, m)


if __name__ == "__main__":
    main()
