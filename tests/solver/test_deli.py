"""DELI: the tool stage (equations solved by sympy) and the prose stage in turns, each stop
reason, the answer at the cap, unsolvable systems, and runs over real HTTP.

DELI's run pinned event by event and call by call: what each call asks (role, prompt,
sampling, stop sequences, context), how each stage's answer is read (a reply cut at the token
limit gives none), whether it changed since the same stage's last turn, how steps are numbered
across the run, and how the deliberation ends (agreement, convergence, the cap and whose answer
it takes); so that a change to any of these is seen.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from bench.fakeserver import FakeServer
from puzzles.wordproblem import problem_by_id
from solver.domains.wordproblem import WordProblemDomain
from solver.events import (
    ClaimVerified,
    DeliberationEnded,
    DeliberationStage,
    Event,
    IterationStarted,
    ParseFailed,
    RunFinished,
    ToolCalled,
    ToolObserved,
)
from solver.methods import make_method, solve
from solver.methods.deli import DELI, DELIConfig
from solver.model import Call, Sampling, ScriptedModel
from solver.model.openai import OpenAIModel
from solver.roles import Role
from tests.solver.pinning import pinned as pinned_as_tuples
from tests.solver.pinning import with_recorded_calculator

DOMAIN = WordProblemDomain(problem_by_id("bulk_saving/691459251"))  # answer 3
INIT = "Singly: 30 * 11 = 330\nPacks: 3 * 109 = 317\nSaving: 330 - 317 = 13\nAnswer: 13"
SOLVE = " As equations.\nAction 1: solve[a = 30 * 11, b = 3 * 109, c = a - b; a, b, c]"
REVISED = "Singly: 30 * 11 = 330\nPacks: 3 * 109 = 327\nSaving: 330 - 327 = 3\nAnswer: 3"


def by_purpose(**replies: list[str]) -> ScriptedModel:
    queues = {k: list(v) for k, v in replies.items()}

    def reply(call: Call) -> str:
        queue = queues[call.purpose]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedModel(reply)


def run(model: Any, **config: Any) -> tuple[RunFinished, list[Any]]:
    return asyncio.run(solve(DELI(DELIConfig(**config)), DOMAIN, model))


def of(events: list[Any], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_the_tool_stage_corrects_the_arithmetic_and_the_stages_agree() -> None:
    model = by_purpose(
        deli_init=[INIT], deli_tool=[SOLVE, "Final Answer: 3"], deli_revise=[REVISED]
    )
    fin, events = run(model)
    assert fin.solved and fin.answer == "3" and fin.reason == "answers agree"
    assert of(events, ToolObserved)[0].observation == "a = 330, b = 327, c = 3"
    stages = [(s.turn, s.stage, s.answer, s.ok) for s in of(events, DeliberationStage)]
    assert stages == [
        (0, "language", "13", False),
        (1, "tool", "3", True),
        (1, "language", "3", True),
    ]
    assert of(events, DeliberationEnded)[0].by == "agree"
    tool_prompt = next(c for c in model.calls if c.purpose == "deli_tool")
    assert (
        "Trial: " in tool_prompt.messages[-1].content and "\nOutput 1:" in tool_prompt.sampling.stop
    )


def test_at_the_cap_the_answer_is_the_last_tool_stages() -> None:
    model = by_purpose(
        deli_init=[INIT],
        deli_tool=[SOLVE, "Final Answer: 3"],
        deli_revise=["Saving: 13\nAnswer: 13", "Still\nAnswer: 14", "Again\nAnswer: 15"],
    )
    fin, events = run(model, turns=3)
    assert fin.reason == "turn cap" and fin.answer == "3" and fin.solved
    ended = of(events, DeliberationEnded)[0]
    assert (ended.by, ended.turn, ended.source) == ("cap", 3, "tool")


def test_an_unchanged_deliberation_has_converged() -> None:
    model = by_purpose(
        deli_init=["Answer: 13"], deli_tool=["Final Answer: 12"], deli_revise=["Answer: 13"]
    )
    fin, events = run(model, turns=3)
    assert fin.reason == "converged" and of(events, DeliberationEnded)[0].turn == 2


def test_an_unsolvable_system_is_an_observation_and_the_run_goes_on() -> None:
    model = by_purpose(
        deli_init=[INIT],
        deli_tool=[" try\nAction 1: solve[x + y = 1, x + y = 2; x, y]", "Final Answer: 13"],
        deli_revise=["Answer: 13"],
    )
    fin, events = run(model, turns=1)
    (observed,) = of(events, ToolObserved)
    assert observed.status == "error" and "no solution" in observed.observation
    assert fin.reason == "answers agree" and not fin.solved


def test_deli_over_http() -> None:
    def reply(request: dict[str, Any], index: int) -> str:
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"]
        if system.startswith("You check a solution"):
            return "Final Answer: 3" if "Output 1:" in user.split("Now the task.")[-1] else SOLVE
        if system.startswith("You revise"):
            return REVISED
        return INIT

    with FakeServer(reply=reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        fin, _ = asyncio.run(solve(make_method("deli"), DOMAIN, model))
        asyncio.run(model.aclose())
    assert fin.solved and fin.reason == "answers agree" and fin.calls == 4


# -- each run pinned event by event and call by call -----------------------------------------------

PINNED = (
    IterationStarted,
    ClaimVerified,
    DeliberationStage,
    ToolCalled,
    ToolObserved,
    DeliberationEnded,
    ParseFailed,
)
NO_ACTION = "no action found: end your reply with one action, one of calculate[...], solve[...]"
WRONG = "13 is not correct"


def pinned(events: list[Event]) -> list[tuple[Any, ...]]:
    """The events that tell the deliberation, as plain tuples without their times."""
    return pinned_as_tuples(events, PINNED)


def stages(events: list[Event]) -> list[tuple[Any, ...]]:
    """Each stage's turn, kind, answer, whether it changed, and the call it came from."""
    return [
        (e.turn, e.stage, e.answer, e.changed, e.call_id)
        for e in events
        if isinstance(e, DeliberationStage)
    ]


def ended(events: list[Event]) -> tuple[Any, ...]:
    (end,) = [e for e in events if isinstance(e, DeliberationEnded)]
    return (end.turn, end.by, end.reason, end.source)


class CutCall(ScriptedModel):
    """Reports the reply to call number ``cut`` (1-based) as cut off at the token limit."""

    def __init__(self, replies: list[str], cut: int) -> None:
        super().__init__(replies)
        self.cut = cut

    async def generate(self, call: Any, on_token: Any = None) -> Any:
        gen = await super().generate(call, on_token)
        if len(self.calls) == self.cut:
            return dataclasses.replace(gen, finish_reasons=("length",))
        return gen


def test_a_deli_run_event_by_event_and_call_by_call() -> None:
    packs = " Packs first: 3 * 109 = 317.\nAction 1: calculate[3 * 109]"
    solve_all = " All at once.\nAction 1: solve[a = 30 * 11, b = 3 * 109, c = a - b; a, b, c]"
    kept = "Singly: 30 * 11 = 330\nSaving: 13\nAnswer: 13"  # new words, the same answer
    model = ScriptedModel(
        [
            INIT,
            packs,
            " I cannot tell.",
            "Final Answer: $3",
            kept,
            solve_all,
            "Final Answer: 3",
            REVISED,
        ]
    )
    fin, events = run(model, turns=3, tool_steps=3, temperature=0.4, max_tokens=250)
    steps1 = (
        "Thought 1: Packs first: 3 * 109 = 317.\nAction 1: calculate[3 * 109]\nOutput 1: 327\n"
        f"Thought 2: I cannot tell.\nAction 2: (none)\nOutput 2: {NO_ACTION}"
    )
    trace1 = f"{steps1}\nFinal Answer: $3"
    trace2 = (
        "Thought 1: All at once.\n"
        "Action 1: solve[a = 30 * 11, b = 3 * 109, c = a - b; a, b, c]\n"
        "Output 1: a = 330, b = 327, c = 3\nFinal Answer: 3"
    )
    assert pinned(events) == [
        ("IterationStarted", 0, 3, "initial solution"),
        ("ClaimVerified", "deli-language0", "30 * 11", True),
        ("ClaimVerified", "deli-language0", "3 * 109", False),
        ("ClaimVerified", "deli-language0", "330 - 317", True),
        ("DeliberationStage", 0, 3, "language", INIT, "13", False, WRONG, True, 1),
        ("IterationStarted", 1, 3, "turn 1"),
        # Steps are numbered across the run; a step's claims are checked under its number.
        ("ClaimVerified", "deli1", "3 * 109", False),
        ("ToolCalled", 1, "calculate", "3 * 109", "Packs first: 3 * 109 = 317.", 2, ()),
        ("ToolObserved", 1, "calculate", "327", "ok", "327"),
        ("ParseFailed", "deli_tool", " I cannot tell.", NO_ACTION),
        ("ToolCalled", 2, "", "", "I cannot tell.", 3, ()),
        ("ToolObserved", 2, "", NO_ACTION, "invalid", None),
        ("DeliberationStage", 1, 3, "tool", trace1, "$3", True, "correct (read as 3)", True,
         None),
        ("ClaimVerified", "deli-language1", "30 * 11", True),
        # The prose answer is turn 0's (13): unchanged, though the words changed.
        ("DeliberationStage", 1, 3, "language", kept, "13", False, WRONG, False, 5),
        ("IterationStarted", 2, 3, "turn 2"),
        # Turn 1's final answer took step 3: turn 2 starts at step 4.
        ("ToolCalled", 4, "solve", "a = 30 * 11, b = 3 * 109, c = a - b; a, b, c",
         "All at once.", 6, ()),
        ("ToolObserved", 4, "solve", "a = 330, b = 327, c = 3", "ok", None),
        # 3 and turn 1's $3 are the same answer: the tool stage did not change.
        ("DeliberationStage", 2, 3, "tool", trace2, "3", True, "correct", False, None),
        ("ClaimVerified", "deli-language2", "30 * 11", True),
        ("ClaimVerified", "deli-language2", "3 * 109", True),
        ("ClaimVerified", "deli-language2", "330 - 327", True),
        ("DeliberationStage", 2, 3, "language", REVISED, "3", True, "correct", True, 8),
        ("DeliberationEnded", 2, "agree", "the tool and prose answers agree", "tool"),
    ]  # fmt: skip
    assert (fin.answer, fin.solved, fin.reason, fin.calls) == ("3", True, "answers agree", 8)

    # Every call: its role, the method's sampling exactly (tool calls stop before an output,
    # which only a tool may write), and the context (the step, or the turn).
    def sampling(*stop: str) -> Sampling:
        return Sampling(0.4, 1.0, 1, 250, stop=stop)

    def tool(k: int) -> tuple[str, Sampling, dict[str, object]]:
        stop = sampling(f"\nOutput {k}:", "\nOutput:")
        return ("deli_tool", stop, DOMAIN.context(DOMAIN.start(), step=k))

    def revise(turn: int) -> tuple[str, Sampling, dict[str, object]]:
        return ("deli_revise", sampling(), DOMAIN.context(DOMAIN.start(), turn=turn))

    assert [(c.purpose, c.sampling, c.context) for c in model.calls] == [
        ("deli_init", sampling(), DOMAIN.context(DOMAIN.start())),
        tool(1),
        tool(2),
        tool(3),
        revise(1),
        tool(1),
        tool(2),
        revise(2),
    ]
    prompts = [c.messages[-1].content for c in model.calls]
    # The first solution is asked with the 8 solved problems nearest this one (CARP's start).
    assert model.calls[0].messages == DOMAIN.prompt(
        Role.COT, demonstrations=DOMAIN.demonstrations(8)
    )
    # A tool call is given the current solution as its trial and the steps so far.
    trial = "Trial: Singly: 30 * 11 = 330 Packs: 3 * 109 = 317 Saving: 330 - 317 = 13 Answer: 13"
    assert prompts[1].endswith(f"{trial}\nThought 1:")
    assert prompts[3].endswith(f"{trial}\n{steps1}\nThought 3:")
    assert prompts[5].endswith("Trial: Singly: 30 * 11 = 330 Saving: 13 Answer: 13\nThought 1:")
    # The revision is given the solution, the tool trace and the tool's answer.
    assert f"Given Solution:\n{INIT}\nVerification:\n{trace1}\nVerified answer: $3\n" in prompts[4]
    assert f"Given Solution:\n{kept}\nVerification:\n{trace2}\nVerified answer: 3\n" in prompts[7]
    assert model.calls[4].messages == DOMAIN.prompt(
        Role.REVISE, solution=INIT, verification=trace1, tool_answer="$3"
    )


def test_at_the_cap_the_answer_is_the_last_tool_stages_and_the_cap_says_so() -> None:
    final = " So 330 - 327 = 3.\nFinal Answer: 3.00"
    model = ScriptedModel([INIT, final, "Answer: 13", final, "Answer: 14"])
    fin, events = run(model, turns=2)
    assert stages(events) == [
        (0, "language", "13", True, 1),
        (1, "tool", "3.00", True, None),
        (1, "language", "13", False, 3),
        (2, "tool", "3.00", False, None),
        (2, "language", "14", True, 5),
    ]
    # A final reply's claims are checked under the step it took: one per turn here.
    claims = [(e.node_id, e.expression) for e in events if isinstance(e, ClaimVerified)]
    assert ("deli1", "330 - 327") in claims and ("deli2", "330 - 327") in claims
    cap = "the cap of 2 turns was reached; the answer is the last tool stage's"
    assert ended(events) == (2, "cap", cap, "tool")
    assert (fin.answer, fin.solved, fin.reason, fin.calls) == ("3.00", True, "turn cap", 5)
    assert [c.purpose for c in model.calls] == ["deli_init"] + ["deli_tool", "deli_revise"] * 2


def test_at_the_cap_without_a_tool_answer_the_answer_is_the_last_prose_stages() -> None:
    # Two unreadable actions in a row end a tool stage without an answer.
    model = ScriptedModel([INIT, "no idea", "none", "Answer: 12", "hm", "hm", "Answer: 3"])
    fin, events = run(model, turns=2)
    assert stages(events) == [
        (0, "language", "13", True, 1),
        (1, "tool", None, True, None),
        (1, "language", "12", True, 4),
        (2, "tool", None, True, None),
        (2, "language", "3", True, 7),
    ]
    cap = "the cap of 2 turns was reached; the answer is the last prose stage's"
    assert ended(events) == (2, "cap", cap, "language")
    assert (fin.answer, fin.solved, fin.reason) == ("3", True, "turn cap")
    # The revision was told there is no verified answer.
    assert "Verified answer: (none)\n" in model.calls[3].messages[-1].content


def test_an_unchanged_deliberation_converges_on_the_tool_answer() -> None:
    model = by_purpose(
        deli_init=["Answer: 13"], deli_tool=["Final Answer: 12"], deli_revise=["Answer: 13"]
    )
    fin, events = run(model, turns=3)
    assert ended(events) == (2, "converged", "neither stage changed", "tool")
    assert (fin.answer, fin.reason, fin.calls) == ("12", "converged", 5)
    assert [(e.iteration, e.label) for e in events if isinstance(e, IterationStarted)] == [
        (0, "initial solution"),
        (1, "turn 1"),
        (2, "turn 2"),
    ]


def test_a_tool_stage_with_no_steps_and_no_answer_still_converges_a_turn_later() -> None:
    # "Final Answer: =" names no answer: the stage's trace is empty. Turn 1 has no earlier
    # trace to compare with, so only turn 2 finds that neither stage changed.
    model = by_purpose(
        deli_init=["Answer: 13"], deli_tool=["Final Answer: ="], deli_revise=["Answer: 13"]
    )
    fin, events = run(model, turns=3)
    assert [(e.turn, e.stage, e.text, e.answer) for e in events if isinstance(e, DeliberationStage)
            if e.stage == "tool"] == [(1, "tool", "", None), (2, "tool", "", None)]  # fmt: skip
    assert ended(events)[:3] == (2, "converged", "neither stage changed")
    assert (fin.answer, fin.reason) == ("13", "converged")


def test_a_cut_initial_solution_keeps_its_finished_lines_but_gives_no_answer() -> None:
    # The cut reply's finished lines read as a right answer; it must count for none of that.
    cut = "Singly: 30 * 11 = 330\nAnswer: 3\nPacks: 3 * 10"
    shown = "Singly: 30 * 11 = 330\nAnswer: 3\n"
    model = CutCall([cut, "Final Answer: 3", "Answer: 3"], cut=1)
    fin, events = run(model, turns=2)
    (first,) = [e for e in events if isinstance(e, DeliberationStage) and e.turn == 0]
    assert (first.text, first.answer, first.ok, first.verdict) == (shown, None, False, "no answer")
    # Turn 1's prose answer is new (turn 0 had none); the tool's and the prose's agree.
    assert stages(events)[1:] == [(1, "tool", "3", True, None), (1, "language", "3", True, 3)]
    assert ended(events)[:2] == (1, "agree")
    assert f"Given Solution:\n{shown}Verification:" in model.calls[2].messages[-1].content
    assert fin.answer == "3" and fin.solved


def test_a_cut_revision_gives_no_answer_and_does_not_end_the_deliberation() -> None:
    model = CutCall(
        [
            INIT,
            "Final Answer: 3",
            "Saving: 3\nAnswer: 3\nSo the sav",
            "Final Answer: 3",
            "Answer: 3",
        ],
        cut=3,
    )
    fin, events = run(model, turns=2)
    assert stages(events) == [
        (0, "language", "13", True, 1),
        (1, "tool", "3", True, None),
        (1, "language", None, True, 3),
        (2, "tool", "3", False, None),
        (2, "language", "3", True, 5),
    ]
    assert ended(events)[:2] == (2, "agree")
    assert fin.answer == "3" and fin.reason == "answers agree"


def test_a_cut_final_answer_in_a_tool_stage_is_not_taken() -> None:
    model = CutCall([INIT, "Final Answer: 13\nso th", "Final Answer: 3", "Answer: 3"], cut=2)
    fin, events = run(model, turns=1)
    tool_events = [p for p in pinned(events) if p[0] in ("ToolCalled", "ToolObserved")]
    assert tool_events == [
        ("ToolCalled", 1, "", "", "Final Answer: 13", 2, ()),
        ("ToolObserved", 1, "", NO_ACTION, "invalid", None),
    ]
    assert stages(events)[1] == (1, "tool", "3", True, None)
    assert fin.answer == "3" and fin.reason == "answers agree"


def test_a_tool_stage_ends_at_its_step_cap_and_an_action_resets_the_invalid_count() -> None:
    act = " Packs.\nAction 1: calculate[3 * 109]"
    model = ScriptedModel([INIT, "no idea", act, "no idea", act, "Answer: 3"])
    fin, events = run(model, turns=1, tool_steps=4)
    tools = [(e.step, e.tool) for e in events if isinstance(e, ToolCalled)]
    assert tools == [(1, ""), (2, "calculate"), (3, ""), (4, "calculate")]
    assert [c.purpose for c in model.calls] == ["deli_init"] + ["deli_tool"] * 4 + ["deli_revise"]
    assert stages(events)[1][:3] == (1, "tool", None)
    cap = "the cap of 1 turns was reached; the answer is the last prose stage's"
    assert ended(events) == (1, "cap", cap, "language")
    assert fin.answer == "3"


def test_two_unreadable_actions_in_a_row_end_a_tool_stage() -> None:
    model = ScriptedModel([INIT, "no idea", "still none", "Answer: 3"])
    _, events = run(model, turns=1, tool_steps=5)
    assert [e.step for e in events if isinstance(e, ToolCalled)] == [1, 2]
    purposes = [c.purpose for c in model.calls]
    assert purposes == ["deli_init", "deli_tool", "deli_tool", "deli_revise"]


def test_answers_without_a_number_agree_as_text_whatever_the_spacing() -> None:
    model = ScriptedModel([INIT, "Final Answer: three  kites", "Answer: three kites"])
    fin, events = run(model, turns=2)
    assert ended(events)[:2] == (1, "agree")
    assert fin.answer == "three  kites" and not fin.solved


def test_a_stage_shows_at_most_4000_characters() -> None:
    long = "Answer: 3\n" + "word " * 1000
    model = ScriptedModel([long, "Final Answer: 3", "Answer: 3"])
    _, events = run(model, turns=1)
    first = next(e for e in events if isinstance(e, DeliberationStage))
    assert first.text == long[:4000] and first.answer == "3"


def test_each_call_is_one_sample_at_top_p_one() -> None:
    model = ScriptedModel([INIT, "Final Answer: 3", "Answer: 3"])
    run(model, turns=1)
    default = DELIConfig()
    for call in model.calls:
        assert isinstance(call, Call)
        assert call.sampling.n == 1 and call.sampling.top_p == 1.0
        assert call.sampling.temperature == default.temperature
        assert call.sampling.max_tokens == default.max_tokens


def test_a_cut_reply_is_not_reported_as_unreadable() -> None:
    cut = "Saving: 3\nAnswer: 3\nSo the sav"
    for replies, index in (
        ([INIT, "Final Answer: 3", cut], 3),
        ([cut, "Final Answer: 3", "Answer: 3"], 1),
    ):
        _, events = run(CutCall(replies, cut=index), turns=1)
        assert not [p for p in pinned(events) if p[0] == "ParseFailed"]


def test_a_reply_without_an_answer_line_is_reported_under_its_role() -> None:
    model = ScriptedModel(["Saving: 13", "Final Answer: 3", "Saving: 3"])
    _, events = run(model, turns=1)
    assert [p for p in pinned(events) if p[0] == "ParseFailed"] == [
        ("ParseFailed", "deli_init", "Saving: 13", "no 'Answer:' line"),
        ("ParseFailed", "deli_revise", "Saving: 3", "no 'Answer:' line"),
    ]


def test_a_convergence_without_a_tool_answer_names_the_prose_stage() -> None:
    model = by_purpose(deli_init=["Answer: 13"], deli_tool=["no idea"], deli_revise=["Answer: 13"])
    fin, events = run(model, turns=3)
    assert ended(events) == (2, "converged", "neither stage changed", "language")
    assert (fin.answer, fin.reason) == ("13", "converged")


def test_steps_run_on_across_turns_without_a_gap() -> None:
    # A stage that ends without a final answer (two unreadable actions, or its step cap)
    # used its steps only: the next turn goes on from the one after.
    act = " Packs.\nAction 1: calculate[3 * 109]"
    model = by_purpose(
        deli_init=[INIT], deli_tool=["no idea"], deli_revise=["Answer: 12", "Answer: 14"]
    )
    _, events = run(model, turns=2)
    assert [e.step for e in events if isinstance(e, ToolCalled)] == [1, 2, 3, 4]
    model = by_purpose(deli_init=[INIT], deli_tool=[act], deli_revise=["Answer: 12", "Answer: 14"])
    _, events = run(model, turns=2, tool_steps=2)
    assert [e.step for e in events if isinstance(e, ToolCalled)] == [1, 2, 3, 4]


def test_each_tool_call_runs_under_the_configured_limit_and_reports_its_own_time() -> None:
    domain, calc = with_recorded_calculator(WordProblemDomain(DOMAIN.problem))
    model = ScriptedModel(
        [INIT, " Packs.\nAction 1: calculate[3 * 109]", "Final Answer: 3", "Answer: 3"]
    )
    _, events = asyncio.run(solve(DELI(DELIConfig(turns=1, tool_limit=1.5)), domain, model))
    assert calc.limits == [1.5]
    observed = [(e.step, e.tool, e.value, e.elapsed) for e in events if isinstance(e, ToolObserved)]
    assert observed == [(1, "calculate", "327", 0.125)]


def test_what_the_parser_forgave_is_reported_with_the_action() -> None:
    own_output = " Packs cost 327.\nOutput 1: 327"
    two = " Both.\nAction 1: calculate[3 * 109]\nAction 2: calculate[30 * 11]"
    model = ScriptedModel([INIT, own_output, two, "Final Answer: 3", "Answer: 3"])
    _, events = run(model, turns=1)
    assert [(e.step, e.tool, e.notes) for e in events if isinstance(e, ToolCalled)] == [
        (1, "", ("the model wrote its own observation; it was dropped",)),
        (2, "calculate", ("the model wrote several actions; only the first was taken",)),
    ]
