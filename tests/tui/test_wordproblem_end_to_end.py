"""Issue 10's "done when", app and command-line side: a person picks a word problem on home,
works it on the scratchpad, takes a hint, wins, and starts each of the methods beside it, at
120x40 and 80x24; every method runs over HTTP from the command line and its trace replays
(ReAct's and DELI's tool calls printed and shown in the pane); bad input in the app gets a
message, not a traceback."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RichLog, Static

import solver.factory
from bench.fakeserver import FakeServer
from puzzles.wordproblem import WordProblem, problem_by_id
from solver import events as ev
from solver.domains.wordproblem import WordProblemDomain
from solver.methods import make_method, run_method
from solver.model import Call, Generation, Model, ScriptedModel, TokenCallback
from solver.model.offline import OfflineModel
from solver.settings import Settings
from solver.trace import TraceWriter, read_trace
from tests.puzzles.wordproblem_files import FIXTURE, write_jsonl
from tests.solver.wordproblem_server import METHODS, offline_reply
from tests.tui.harness import FrozenClock, wait_for
from tui.app import PonderApp, Replay, make_app
from tui.cli import main
from tui.kinds import KINDS
from tui.screens.home import HomeScreen
from tui.screens.wordproblem import WordProblemScreen
from tui.widgets.solver_pane import SolverPane

PROBLEM_ID = "bulk_saving/691459251"  # answer 3
SMALL_FLAGS = {"cot-sc": ["--samples", "5"], "bot": ["--trees", "2", "--iterations", "2"]}
VIEWS = {"aiot": "-dialogue", "giot": "-dialogue", "react": "-transcript", "deli": "-transcript"}


def shown(screen: WordProblemScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def transcript(pane: SolverPane) -> str:
    return "\n".join(line.text for line in pane.query_one("#transcript", RichLog).lines)


async def type_in(pilot: Pilot[None], key: str, text: str) -> None:
    keys = ["space" if c == " " else c for c in text]
    await pilot.press(*([key] if key else []), *keys, "enter")
    await pilot.pause()


# -- the whole flow at both sizes ------------------------------------------------------------


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_pick_play_win_and_start_every_method_beside_it(
    app: PonderApp, size: tuple[int, int]
) -> None:
    width, height = size
    async with app.run_test(size=size) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        kinds = home.query_one("#kinds", OptionList)
        kinds.focus()
        kinds.highlighted = list(KINDS).index("wordproblem")
        await pilot.pause()
        home.query_one("#seed", Input).value = "5"
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        problem = screen.problem
        assert isinstance(problem, WordProblem) and shown(screen, "#question") == problem.question

        # The scratchpad: a mixed number is read as a person means it; a slip is marked.
        await type_in(pilot, "w", "7 * 1 1/4 = 8.75")
        await type_in(pilot, "", "9 * 2 = 19")
        lines = shown(screen, "#scratch-lines").splitlines()
        assert lines[1] == "✓ 7 × 1 1/4 = 8.75"
        assert lines[2] == "✗ 9 × 2 = 19  (it is 18)"
        await pilot.press("escape", "h")
        await pilot.pause()
        assert screen.hints_used == 1

        # A wrong answer, then the right one as a person types it.
        await type_in(pilot, "a", "123456")
        assert not screen.over and "Not yet" in shown(screen, "#message")
        await pilot.press("ctrl+u")
        await type_in(pilot, "", screen.problem.answer_text)
        assert screen.over and "Solved" in shown(screen, "#message")
        assert "⏱ 0:" in screen.title_text().plain and "in 0:" in shown(screen, "#message")
        for box in ("#answer", "#message", "#scratch"):
            assert screen.query_one(box).region.bottom <= height, box
        assert app.store is not None
        await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
        (last,) = app.store.recent(1)
        assert last.kind == "wordproblem" and last.solved and last.hints == 1

        # Each method beside the problem, run to its end.
        pane = screen.query_one(SolverPane)
        if screen.focused is not None:  # leave the answer box (escape alone would go home)
            await pilot.press("escape")
        assert app.screen is screen
        for name in METHODS:
            app.method_name = name
            await pilot.press("S")
            await wait_for(pilot, lambda n=name: pane.method == n and pane.finished is not None)
            finished = pane.finished
            assert finished is not None and finished.reason != "error", (name, finished.verdict)
            assert pane.has_class(VIEWS[name]) if name in VIEWS else pane.nodes, name
            assert pane.region.right <= width and pane.region.bottom <= height
            if name in ("react", "deli"):
                assert "Action 1: " in transcript(pane) and "Stopped: " in transcript(pane)


async def test_a_huge_answer_and_a_huge_scratch_line_are_told_plainly(app: PonderApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = WordProblemScreen(problem_by_id(PROBLEM_ID), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press("a")
        screen.query_one("#answer", Input).value = "9" * 10_000
        await pilot.press("enter")
        await pilot.pause()
        message = shown(screen, "#message")
        assert "too long" in message and len(message) < 300 and not screen.over
        assert screen.tries == 0  # not counted as a miss
        await pilot.press("escape", "w")
        screen.query_one("#scratch", Input).value = "9" * 10_000 + " = 1"
        await pilot.press("enter")
        await pilot.pause()
        assert "too long" in shown(screen, "#scratch-lines")


async def test_a_model_that_never_finishes_stops_with_its_reason_in_the_pane(
    tmp_path: Path,
) -> None:
    ramble = ScriptedModel(["Let me think about the kites some more."])
    app = make_app(Settings(), model=lambda: ramble, store_path=tmp_path / "r.db", seed=1)
    app.method_name = "react"
    async with app.run_test(size=(80, 24)) as pilot:
        screen = WordProblemScreen(problem_by_id(PROBLEM_ID), "easy")
        await app.push_screen(screen)
        await pilot.pause()
        pane = screen.query_one(SolverPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: pane.finished is not None)
        assert pane.finished is not None and pane.finished.reason == "invalid actions"
        assert "Stopped: 3 invalid actions in a row" in transcript(pane)
        assert "Observation 1 (invalid): no action found" in transcript(pane)


async def test_react_runs_in_the_app_over_http(tmp_path: Path) -> None:
    with FakeServer(reply=offline_reply) as server:
        settings = Settings(engine="openai", base_url=server.url, model="fake-model", api_key="k")
        app = make_app(settings, store_path=tmp_path / "r.db", seed=1)
        app.method_name = "react"
        async with app.run_test(size=(120, 40)) as pilot:
            screen = WordProblemScreen(problem_by_id(PROBLEM_ID), "easy")
            await app.push_screen(screen)
            await pilot.pause()
            pane = screen.query_one(SolverPane)
            await pilot.press("s")
            await wait_for(pilot, lambda: pane.finished is not None)
            assert pane.finished is not None and pane.finished.reason == "finish"
            assert "Observation 1: " in transcript(pane)
        assert server.chat_requests


# -- the command line over HTTP, traces and replay -------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", METHODS)
def test_every_method_solves_over_http_and_its_trace_replays(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / f"{name}.jsonl"
    with FakeServer(reply=offline_reply) as server:
        code, out, err = run_cli(
            capsys,
            *("solve", "wordproblem", "--id", PROBLEM_ID, "--method", name),
            *SMALL_FLAGS.get(name, []),
            *("--base-url", server.url, "--model", "fake-model", "--no-cache"),
            *("--trace", str(trace)),
        )
        asked = len(server.chat_requests)
    assert code in (0, 1) and "Traceback" not in err, err
    assert "answer:" in out and asked >= 1
    code_again, printed, err = run_cli(capsys, "replay", str(trace), "--print")
    assert code_again == code and "answer:" in printed and not err
    _, as_json, _ = run_cli(capsys, "replay", str(trace), "--json")
    types = [json.loads(line)["type"] for line in as_json.splitlines()]
    assert types[-1] == "RunFinished" and types.count("ModelCalled") == asked
    if name in ("react", "deli"):
        assert {"ToolCalled", "ToolObserved"} <= set(types)
        assert "observation (tool)" in out and "observation (tool)" in printed


async def recorded(name: str, path: Path) -> None:
    domain = WordProblemDomain(problem_by_id(PROBLEM_ID))
    header = {"method": name, "kind": "wordproblem", "id": PROBLEM_ID, "model": "offline"}
    with TraceWriter(path, header) as writer:
        async for event in run_method(make_method(name), domain, OfflineModel(seed=2)):
            writer.write(event)


@pytest.mark.parametrize(("name", "size"), [("react", (120, 40)), ("deli", (80, 24))])
async def test_tool_calls_replay_into_the_pane(
    name: str, size: tuple[int, int], tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    await recorded(name, path)
    header, events = read_trace(path)
    kept = list(events)
    calls = [e for e in kept if isinstance(e, ev.ToolCalled) and e.tool != "finish"]
    assert calls
    replay = Replay(header, kept)
    replay.speed = 64.0
    app = make_app(Settings(), replay=replay, use_store=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        pane = screen.query_one(SolverPane)
        await wait_for(pilot, lambda: pane.finished is not None)
        assert pane.has_class("-transcript") and pane.model.endswith("(replay)")
        shown_text = " ".join(transcript(pane).split())
        first = calls[0]
        assert f"Action {first.step}: {first.tool}[" in shown_text
        assert "Observation" in shown_text or "Output" in shown_text
        assert "Stopped: " in shown_text


# -- snapshot: a ReAct run beside the problem at 120x40 ---------------------------------------


def steady(event: ev.Event) -> ev.Event:
    """An event with its timings zeroed, so that the picture depends on nothing else."""
    event = dataclasses.replace(event, t=0.0)
    if isinstance(event, ev.ModelCalled):
        return dataclasses.replace(event, latency=0.0)
    if isinstance(event, ev.ToolObserved):
        return dataclasses.replace(event, elapsed=0.0)
    if isinstance(event, ev.RunFinished):
        return dataclasses.replace(event, wall_time=0.0)
    return event


def test_snapshot_react_transcript_120x40(
    snap_compare: Callable[..., bool], app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())
    monkeypatch.setattr("tui.widgets.solver_pane.time", FrozenClock())

    async def react_beside(pilot: Pilot[None]) -> None:
        problem = problem_by_id(PROBLEM_ID)
        screen = WordProblemScreen(problem, "easy")
        await pilot.app.push_screen(screen)
        await pilot.pause()
        await type_in(pilot, "w", "30 * 11 = 330")
        await type_in(pilot, "", "3 * 109 = 317")
        await pilot.press("escape")
        script = [
            " Buying singly costs 30 * 11 = 330.\nAction 1: calculate[30 * 11 - 3 * 109]",
            " So the saving is 3.\nAction 2: finish[$3]",
        ]
        events = [
            steady(e)
            async for e in run_method(
                make_method("react"), WordProblemDomain(problem), ScriptedModel(script)
            )
        ]
        pane = screen.query_one(SolverPane)
        pane.reset("react", "scripted")
        with pilot.app.batch_update():
            pane.apply(events)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=react_beside)


# -- a benchmark over a GSM8K file, interrupted and resumed ----------------------------------


def test_a_word_problem_bench_resumes_from_its_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real = solver.factory.make_model

    class Counting:
        def __init__(self, inner: Model) -> None:
            self.inner, self.name = inner, inner.name

        async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
            made.append(call.purpose)
            return await self.inner.generate(call, on_token)

        async def aclose(self) -> None:
            await self.inner.aclose()

    monkeypatch.setattr(solver.factory, "make_model", lambda *a, **k: Counting(real(*a, **k)))
    data = write_jsonl(tmp_path / "test.jsonl", FIXTURE)
    results = tmp_path / "runs.jsonl"
    argv = ["bench", "wordproblem", "--file", str(data), "--range", "0:3", "--method"]
    argv += ["cot,react,deli", "--no-plot", "--json"]
    code, out, err = run_cli(capsys, *argv, "--results", str(results))
    assert code == 0, err
    whole, every_call = json.loads(out), len(made)
    rows = results.read_text().splitlines()
    assert len(rows) == 1 + 3 * 3
    # Killed before its last run was written: the rerun makes that run alone.
    last = json.loads(rows[-1])
    results.write_text("\n".join(rows[:-1]) + "\n" + rows[-1][: len(rows[-1]) // 2])
    made.clear()
    code, out, _ = run_cli(capsys, *argv, "--results", str(results))
    again = json.loads(out)
    assert code == 0 and 0 < len(made) < every_call / 3
    assert {m.split("_")[0] for m in made} == {last["method"]}
    for before, after in zip(whole["results"], again["results"], strict=True):
        keys = ("method", "puzzles", "solved", "mean_calls", "mean_tokens", "stopped_by")
        assert [before[k] for k in keys] == [after[k] for k in keys]


def test_the_bench_table_puts_the_papers_figures_beside(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    argv = ("bench", "wordproblem", "--generated", "2", "--method", "cot,deli", "--no-plot")
    code, out, _ = run_cli(capsys, *argv)
    assert code in (0, 1)
    table = [line for line in out.splitlines() if line.startswith(("cot ", "deli "))]
    deli = next(line for line in table if line.startswith("deli ") and "stopped" not in line)
    cot = next(line for line in table if line.startswith("cot "))
    assert deli.rstrip().endswith("+9.35% vs best baseline") and "vs" not in cot
    assert "on CARP (Chinese algebra), not GSM8K" in " ".join(out.split())


def test_an_answer_of_ten_thousand_digits_is_a_short_clear_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(capsys, "solve", "wordproblem", "How many?", "--answer", "9" * 10_000)
    assert code == 2 and "too long (10000 characters" in err and len(err) < 300
