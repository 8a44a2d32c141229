"""Issue 10's "done when", solver side: every word-problem method end to end over real HTTP
(a stand-in model that reads only the request's messages), every arithmetic claim of every
method reported (thoughts, tool inputs, answers, IoT's guide and answer fields), and the bad
inputs of the issue: equations sympy cannot solve, a huge exponent in a tool call, a
10,000-digit answer, a model that never finishes."""

from __future__ import annotations

import asyncio
import json
import random
import time
from fractions import Fraction
from typing import Any

import pytest

from bench.fakeserver import FakeServer
from puzzles.wordproblem import problem_by_id
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    ClaimVerified,
    DeliberationEnded,
    EpisodeEnded,
    ErrorRaised,
    ExperienceAdded,
    RunFinished,
    ThoughtScored,
    ToolCalled,
    ToolObserved,
)
from solver.methods import make_method, solve
from solver.methods.deli import DELIConfig
from solver.methods.react import ReActConfig
from solver.model import Call, Message, Sampling, ScriptedModel
from solver.model.offline.wordproblem import WordProblemPlayer
from solver.model.openai import OpenAIModel
from solver.roles import Purpose
from solver.tools.math import run_solve

PROBLEM = problem_by_id("bulk_saving/691459251")  # answer 3
DOMAIN = WordProblemDomain(PROBLEM)
METHODS = ["io", "cot", "cot-sc", "bot", "aiot", "giot", "react", "deli"]
SMALL = {"cot-sc": {"samples": 5}, "bot": {"trees": 2, "iterations": 2}}
"""Smaller runs of the many-call methods, so that a test over HTTP stays quick."""


def of(events: list[Any], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# -- a model behind the test server ----------------------------------------------------------

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


@pytest.mark.parametrize("name", METHODS)
def test_every_method_runs_end_to_end_over_http(name: str) -> None:
    with FakeServer(reply=offline_reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        method = make_method(name, **SMALL.get(name, {}))
        fin, events = asyncio.run(solve(method, DOMAIN, model))
        asyncio.run(model.aclose())
        requests = [r.json for r in server.chat_requests]
    assert not of(events, ErrorRaised) and fin.reason != "error", fin.verdict
    assert fin.calls == len(requests) >= 1 and fin.tokens > 0
    assert fin.answer is not None, f"{name} gave no answer over HTTP"
    assert fin.solved == DOMAIN.check(fin.answer).ok
    if name == "react":
        assert "\nObservation 1:" in requests[0]["stop"]
    if name == "deli":
        tool_requests = [r for r in requests if role_of(r["messages"]) == "deli_tool"]
        assert tool_requests and "\nOutput 1:" in tool_requests[0]["stop"]
    if name in ("react", "deli"):
        called = [c for c in of(events, ToolCalled) if c.tool != "finish"]
        observed = [o for o in of(events, ToolObserved) if o.tool != "finish"]
        assert called and observed and all(o.status == "ok" for o in observed)
        # What the tool said went back to the model in its next prompt.
        later = json.dumps(requests[1:])
        assert any(json.dumps(o.observation)[1:-1] in later for o in observed)
    else:
        assert of(events, ClaimVerified), f"{name} reported no arithmetic over HTTP"


# -- every claim, every method ---------------------------------------------------------------


def claims(name: str, replies: Any, **config: Any) -> tuple[RunFinished, set[tuple[str, str]]]:
    fin, events = asyncio.run(solve(make_method(name, **config), DOMAIN, ScriptedModel(replies)))
    return fin, {(c.expression, c.claimed) for c in of(events, ClaimVerified) if not c.ok}


def test_react_reports_claims_in_thoughts_tool_inputs_and_the_answer() -> None:
    fin, wrong = claims(
        "react",
        [
            " Singly 2 + 2 = 5\nAction 1: calculate[30 * 11 = 320]",
            " done\nAction 2: finish[30 * 11 - 327 = 4]",
        ],
    )
    assert {("2 + 2", "5"), ("30 * 11", "320"), ("30 * 11 - 327", "4")} <= wrong
    assert fin.reason == "finish" and fin.answer == "4" and not fin.solved


def test_deli_reports_claims_in_every_stage_once() -> None:
    def reply(call: Call) -> str:
        if call.purpose == "deli_init":
            return "Total: 7 * 7 = 48\nAnswer: 48"
        if call.purpose == "deli_tool":
            if "Output 1:" in call.messages[-1].content.split("Now the task.")[-1]:
                return "Final Answer: 5 * 5 = 26"
            return " check 6 * 6 = 35\nAction 1: calculate[3 * 3 = 10]"
        return "Revised: 8 * 8 = 63\nAnswer: 9 * 9 = 80"

    fin, events = asyncio.run(solve(make_method("deli", turns=1), DOMAIN, ScriptedModel(reply)))
    reported = [(c.expression, c.claimed) for c in of(events, ClaimVerified) if not c.ok]
    expected = {("7 * 7", "48"), ("6 * 6", "35"), ("3 * 3", "10"), ("5 * 5", "26")}
    assert expected | {("8 * 8", "63"), ("9 * 9", "80")} == set(reported)
    assert len(reported) == len(set(reported)), "a claim was reported twice"
    assert fin.reason == "turn cap"


@pytest.mark.parametrize("name", ["aiot", "giot"])
def test_iot_reports_the_guides_claims_and_the_answer_fields(name: str) -> None:
    def reply(call: Call) -> str:
        if call.purpose == "iot_guide":
            return json.dumps({"guidance": "Check that 4 * 4 = 17 first.", "stop": False})
        answer = {"explanation": "1 + 1 = 3", "answer": "2 * 6 = 13", "final": True}
        return json.dumps(answer)

    # One guide call each: AIoT's answerer says final at once, so its guide must speak first.
    config = {"turns": 2} if name == "giot" else {"iot_start": "guide"}
    fin, wrong = claims(name, reply, **config)
    assert {("4 * 4", "17"), ("1 + 1", "3"), ("2 * 6", "13")} <= wrong
    assert fin.answer == "13"


@pytest.mark.parametrize("name", ["io", "cot", "cot-sc"])
def test_baselines_report_the_claim_in_the_answer_line(name: str) -> None:
    config = {"samples": 1} if name == "cot-sc" else {}
    _fin, wrong = claims(name, ["Singly: 30 * 11 = 330\nAnswer: 11 * 11 = 120"], **config)
    assert ("11 * 11", "120") in wrong


# -- bad input -------------------------------------------------------------------------------


def test_equations_sympy_cannot_solve_are_not_called_contradictions() -> None:
    ok, text, _ = run_solve("x^5 = x*y + 1, y^5 = x + 2; x, y")
    assert not ok and "sympy found no exact solution" in text and "contradict" not in text
    ok, text, value = run_solve("x^7 + x = 3; x")  # roots with no closed form
    assert ok and text.startswith("x ≈ 1.0963") and "RootOf" not in text and value is None
    ok, text, _ = run_solve("x = x + 1; x")
    assert not ok and "contradict each other" in text
    ok, text, _ = run_solve("x + y = 1, x + y = 2; x, y")
    assert not ok and "contradict each other" in text
    ok, text, _ = run_solve("2 * x = x + x; x")
    assert ok and "every value of x works" in text


def test_the_default_tool_time_limit_is_five_seconds() -> None:
    assert ReActConfig().tool_limit == DELIConfig().tool_limit == DOMAIN.tool_limit == 5.0
    assert all(getattr(t, "limit", None) == 5.0 for t in DOMAIN.tools)


def test_deli_survives_hostile_tool_calls_and_a_huge_answer() -> None:
    def reply(call: Call) -> str:
        if call.purpose == "deli_init":
            return "Answer: " + "9" * 10_000
        if call.purpose == "deli_tool":
            step = call.messages[-1].content.rstrip().rsplit("Thought ", 1)[-1]
            return {
                "1:": " Big.\nAction 1: calculate[2^99999999]",
                "2:": " Solve.\nAction 2: solve[x^99999999 = 2; x]",
                "3:": " Hard.\nAction 3: solve[x^12 + y^12 = 1, x^11 - y^7 = 2; x, y]",
            }.get(step, "Final Answer: " + "9" * 10_000)
        return "Answer: " + "9" * 10_000

    start = time.perf_counter()
    method = make_method("deli", turns=1, tool_limit=0.5)
    fin, events = asyncio.run(solve(method, DOMAIN, ScriptedModel(reply)))
    assert time.perf_counter() - start < 30
    observed = [(o.status, o.observation) for o in of(events, ToolObserved)]
    assert [s for s, _ in observed] == ["error", "error", "timeout"]
    assert "powers are not allowed" in observed[0][1] and "too large" in observed[1][1]
    assert "ran too long" in observed[2][1]
    assert fin.reason != "error" and not fin.solved and "too long" in fin.verdict


def test_models_that_never_finish_end_with_their_reason() -> None:
    ramble = ScriptedModel(["Let me think about the kites some more."])
    fin, events = asyncio.run(solve(make_method("react"), DOMAIN, ramble))
    (ended,) = of(events, EpisodeEnded)
    assert ended.by == "invalid" and fin.answer is None and fin.reason == "invalid actions"
    busy = ScriptedModel([" Again.\nAction 1: calculate[30 * 11]"])
    fin, events = asyncio.run(solve(make_method("react", steps=5), DOMAIN, busy))
    assert of(events, EpisodeEnded)[0].by == "cap" and fin.reason == "step cap"
    assert fin.calls == 5 and fin.answer is None
    never = ScriptedModel(lambda call: " More.\nAction 1: calculate[30 * 11]")
    fin, events = asyncio.run(solve(make_method("deli", turns=2), DOMAIN, never))
    (stopped,) = of(events, DeliberationEnded)
    assert stopped.by in ("cap", "converged") and fin.reason != "error"
    assert fin.calls <= 1 + 2 * (DELIConfig().tool_steps + 1)


def test_claims_about_mixed_numbers_are_checked_as_meant() -> None:
    (right,) = DOMAIN.claims("Sugar: 7 * 1 1/4 = 8.75 cups")
    assert right.ok and right.lhs == "7 * 1 1/4" and right.exact == Fraction(35, 4)
    (wrong,) = DOMAIN.claims("14 - 2 1/2 = 12")
    assert not wrong.ok and str(wrong.exact) == "23/2"
    (step,) = DOMAIN.claims("Step 2 3/4 = 0.75")  # a step number is no whole part
    assert step.ok and step.lhs == "3/4"


def test_bot_on_a_word_problem_scores_steps_and_reports_wrong_arithmetic() -> None:
    """A step is one computation with its claim; each is scored (node and edge), and the
    analysis prompt carries the exact check of a wrong step, whose error report the
    experience keeps."""
    prompts: list[str] = []

    def reply(call: Call) -> str:
        text = call.messages[-1].content
        if call.purpose == "bot_step":
            done = text.count("Evaluation score:") - text.count("Evaluation score: S")
            return [
                "Step 1: Singly: 30 * 11 = 330, Evaluation score: 0.9",
                "Step 2: Packs: 3 * 109 = 317, Evaluation score: 0.7",
                "Step 3: Answer: 13, Evaluation score: 0.9",
            ][min(done, 2)]
        if call.purpose == "bot_evaluate":
            return "Evaluation score: 0.7"
        prompts.append(text)
        return (
            "Analysis Report: the chain has an arithmetic error.\n"
            "Step 1: right. Error report: none. Advice: keep. Recommendation or Reject: "
            "Recommend.\n"
            "Step 2: 3 * 109 is 327. Error report: 3 * 109 = 317 is wrong. Advice: redo it. "
            "Recommendation or Reject: Reject.\n"
            "Confidence score: 0.3"
        )

    method = make_method("bot", trees=1, iterations=1)
    fin, events = asyncio.run(solve(method, DOMAIN, ScriptedModel(reply)))
    scored = of(events, ThoughtScored)
    assert scored and all(s.edge_score is not None for s in scored)
    assert ("3 * 109", "317") in {(c.expression, c.claimed) for c in of(events, ClaimVerified)}
    assert prompts and "3 * 109 = 317" in prompts[0] and "327" in prompts[0]
    (experience,) = of(events, ExperienceAdded)
    assert any("317 is wrong" in a for a in experience.analysis)
    assert experience.verdicts[:2] == ("recommend", "reject") and not fin.solved
    assert DOMAIN.depth() >= 3  # from the question's quantities, never its solution


def test_cot_sc_votes_over_the_normalised_number() -> None:
    """$3.00, 3 dollars and 3 are one answer: three votes beat the two for 4."""
    replies = ["Answer: $3.00", "Answer: 4", "Answer: 3 dollars", "Answer: 4", "Answer: 3"]
    fin, _ = asyncio.run(solve(make_method("cot-sc", samples=5), DOMAIN, ScriptedModel(replies)))
    assert fin.solved and fin.votes == 3 and DOMAIN.answer_key(fin.answer or "") == "3"
