"""Issue 11's "Done when" for mini crosswords, on ToT's own minis (bundled, ``--tot``):

* ToT's set is bundled unchanged with its MIT notice, and ``--tot --range 0:100:5`` is the
  paper's 20;
* every method the catalogue lets play crosswords runs end to end from the command line, on
  the offline engine and over HTTP against the test server, and its trace replays to the same
  answer (and an edited verdict is caught);
* a person opens a ToT mini from the app, chooses a method in the dialog, starts it beside
  the grid and plays to a win, by keyboard alone, at 120x40 and at 80x24;
* a snapshot of the screen at 120x40 (the 80x24 one is in ``test_crossword_screen.py``).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from bench.fakeserver import FakeServer
from puzzles.crossword.loaders import TOT_MINIS, load_tot_minis
from solver.domains.crossword import CrosswordDomain
from solver.methods import METHODS
from solver.model import Call, Message
from solver.model.offline.crossword import CrosswordPlayer
from solver.roles import Purpose
from tests.tui.harness import FrozenClock, wait_for
from tui.app import PonderApp
from tui.cli.main import main
from tui.kinds import KINDS
from tui.screens.crossword import CrosswordScreen
from tui.screens.dialogs import MethodDialog
from tui.screens.home import HomeScreen
from tui.screens.open_file import ChooseDialog, OpenFileDialog
from tui.widgets.solver_pane import SolverPane

ROW = 5  # a ToT mini the offline player gets partly right: runs end neither empty nor solved
ROLES = CrosswordDomain(load_tot_minis()[ROW]).roles
PLAYABLE = [name for name, spec in METHODS.items() if spec.roles <= ROLES]
"""Every method of the catalogue whose roles the crossword domain has (no list kept by hand)."""
SMALL: dict[str, list[str]] = {
    "bot": ["--iterations", "2", "--trees", "2"],
    "cot-sc": ["--samples", "4"],
    "tot-dfs": ["--step-limit", "20"],
    "aiot": ["--iterations", "3"],
    "giot": ["--turns", "2"],
}
"""Settings small enough for a test: the runs show the machinery, not the paper's budget."""

SnapCompare = Callable[..., bool]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def events_of(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def finish_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    (finish,) = [e for e in events if e["type"] == "RunFinished"]
    return finish


def letters_right(answer: str, row: int) -> float:
    """ToT's letter measure, counted square by square from the rows as written."""
    solution = load_tot_minis()[row].solution
    rows = answer.split("/")
    return (
        sum(a == b for r, s in zip(rows, solution, strict=True) for a, b in zip(r, s, strict=True))
        / 25
    )


def word_marks(events: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    return [(e["clue"], e["word"], e["ok"]) for e in events if e["type"] == "WordChecked"]


# -- ToT's set, bundled ---------------------------------------------------------------------------


def test_tots_minis_are_bundled_unchanged_beside_their_mit_notice() -> None:
    notice = (TOT_MINIS.parent / "LICENSE-tree-of-thought-llm").read_text()
    assert "MIT License" in notice and "Copyright (c) 2023 Shunyu Yao" in notice
    assert hashlib.sha256(TOT_MINIS.read_bytes()).hexdigest() in notice
    minis = load_tot_minis()
    assert len(minis) == 156
    for mini in minis:
        assert (mini.grid.height, mini.grid.width, len(mini.clues)) == (5, 5, 10)
        assert not any(p.serious for p in mini.problems())


def test_tot_range_0_100_5_is_the_papers_twenty(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    argv = ["bench", "crossword", "--tot", "--range", "0:100:5", "--method", "io", "--json"]
    code, out, err = run(capsys, *argv, "--results", str(results))
    assert code in (0, 1), err
    data = json.loads(out)
    assert data["hands"] == 20
    (result,) = data["results"]
    assert all(0.0 <= result[k] <= 1.0 for k in ("letter", "word", "game"))
    records = [json.loads(line) for line in results.read_text().splitlines()]
    labels = [r["hand"] for r in records if r["type"] == "result"]
    assert sorted(labels, key=lambda s: int(s.rsplit(" ", 1)[1])) == [
        f"mini0505.json row {i}" for i in range(0, 100, 5)
    ]


def test_naming_the_set_wrongly_is_said_plainly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no mini0505.json here
    for argv, said in (
        (["bench", "crossword", "--file", "mini0505.json"], "is bundled: use --tot"),
        (["solve", "crossword", "--file", "mini0505.json"], "is bundled: use --tot"),
        (["bench", "crossword", "--tot", "--file", "x.json"], "not allowed with"),
        (["bench", "crossword", "--tot", "--first", "3"], "not --file or --tot"),
        (["bench", "crossword", "--tot", "--range", "200:300"], "selects no rows"),
        (["solve", "crossword", "--tot", "--row", "156"], "rows 0 to 155"),
        (["solve", "crossword", "--tot", "4"], "--file reads one, as --tot does"),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and said in err and "Traceback" not in err, (argv, err)


# -- a tolerant parser ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "____Y/_____/__A__/_____/_____",
        "Output:\n_ _ _ _ Y\n_ _ _ _ _\n_ _ A _ _\n_ _ _ _ _\n_ _ _ _ _",
        "Answer:\n| _ | _ | _ | _ | y |\n|_|_|_|_|_|\n|_|_|a|_|_|\n|_|_|_|_|_|\n|_|_|_|_|_|",
        "Row 1: ____Y\nRow 2: _____\nRow 3: __A__\nRow 4: _____\nRow 5: _____",
        "Output:\n____Y\n_____\n__A__",  # fewer rows than the grid: the rest are empty
    ],
)
def test_empty_squares_written_as_underscores_keep_their_places(reply: str) -> None:
    # A partial board (ToT DFS's output is the best state found) leaves squares empty; a run
    # of underscores is empty squares, not markdown, or the letters after it would move left
    # and ToT's letter measure would miss them.
    domain = CrosswordDomain(load_tot_minis()[ROW])  # AREFY / REVIE / IGALA / SEDER / ETERN
    assert domain.parse_answer(reply) == "____Y/_____/__A__/_____/_____"
    assert domain.measures(reply)["letter"] == 2 / 25


def test_markdown_bold_is_still_read_through() -> None:
    domain = CrosswordDomain(load_tot_minis()[ROW])
    reply = "Output:\n__AREFY__\n**REVIE**\nIGALA\n`SEDER`\nETERN"
    assert domain.parse_answer(reply) == "AREFY/REVIE/IGALA/SEDER/ETERN"
    (step,) = domain.parse_steps("__h1.__ __arefy__ (high)", domain.start())
    assert (step.name, step.word, step.confidence) == ("h1", "AREFY", "high")


# -- every method, offline and over HTTP, and replay ----------------------------------------------


def test_the_methods_the_issue_names_all_play_crosswords() -> None:
    assert {"io", "cot", "tot-dfs", "bot", "aiot", "giot"} <= set(PLAYABLE)


def replays_alike(
    capsys: pytest.CaptureFixture[str], trace: Path, code: int, events: list[dict[str, Any]]
) -> None:
    """``ponder replay`` gives the run's answer, verdict, word checks and exit code again."""
    again_code, out, err = run(capsys, "replay", str(trace), "--json")
    again = events_of(out)
    assert again_code == code, err
    assert not [e for e in again if e["type"] == "ErrorRaised"]
    first, second = finish_of(events), finish_of(again)
    assert (second["answer"], second["solved"]) == (first["answer"], first["solved"])
    assert word_marks(again) == word_marks(events)
    printed_code, printed, _ = run(capsys, "replay", str(trace), "--print")
    assert printed_code == code and f"answer: {first['answer']}" in printed


@pytest.mark.parametrize("name", PLAYABLE)
def test_every_method_solves_a_tot_mini_offline_and_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    trace = tmp_path / "run.jsonl"
    argv = [
        "solve",
        "crossword",
        "--tot",
        "--row",
        str(ROW),
        "--method",
        name,
        *SMALL.get(name, []),
    ]
    code, out, err = run(capsys, *argv, "--json", "--trace", str(trace))
    assert code in (0, 1), err
    events = events_of(out)
    assert events[0]["type"] == "RunStarted" and events[0]["kind"] == "crossword"
    assert not [e for e in events if e["type"] == "ErrorRaised"]
    finish = finish_of(events)
    domain = CrosswordDomain(load_tot_minis()[ROW])
    assert finish["answer"] and domain.parse_answer(finish["answer"]) == finish["answer"]
    assert finish["solved"] == (code == 0) == domain.check(finish["answer"]).ok
    assert any(c.isalpha() for c in finish["answer"])  # a grid, if only partly filled
    assert domain.measures(finish["answer"])["letter"] == letters_right(finish["answer"], ROW)
    replays_alike(capsys, trace, code, events)


def server_reply(request: dict[str, Any], index: int) -> str:
    """The test server answers as the offline player would, from the messages alone."""
    messages = tuple(Message(m["role"], m["content"]) for m in request["messages"])
    rng = random.Random(f"{index}|{messages[-1].content}")
    return CrosswordPlayer().reply(Call(cast(Purpose, ""), messages), rng, 0)


@pytest.mark.parametrize("name", PLAYABLE)
def test_every_method_solves_a_tot_mini_over_http_and_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    trace = tmp_path / "run.jsonl"
    argv = [
        "solve",
        "crossword",
        "--tot",
        "--row",
        str(ROW),
        "--method",
        name,
        *SMALL.get(name, []),
    ]
    with FakeServer(reply=server_reply) as server:
        code, out, err = run(
            capsys,
            *argv,
            *("--base-url", server.url, "--model", "fake-model", "--no-cache"),
            *("--json", "--trace", str(trace)),
        )
        requests = list(server.chat_requests)
    assert code in (0, 1), err
    events = events_of(out)
    assert events[0]["type"] == "RunStarted" and events[0]["kind"] == "crossword"
    assert not [e for e in events if e["type"] == "ErrorRaised"]
    finish = finish_of(events)
    assert requests and {r.json["model"] for r in requests} == {"fake-model"}
    assert finish["calls"] >= 1 and finish["answer"]
    solution = "".join(load_tot_minis()[ROW].solution)
    for request in requests:  # the server is told the clues, never the answers
        assert solution not in json.dumps(request.json).replace("/", "").upper()
    header = json.loads(trace.read_text().splitlines()[0])
    assert header["kind"] == "crossword" and header["model"] == "fake-model"
    replays_alike(capsys, trace, code, events)


def test_a_crossword_trace_claiming_a_wrong_grid_solved_is_caught_on_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "run.jsonl"
    argv = ["solve", "crossword", "--tot", "--row", str(ROW), "--method", "io"]
    code, _, _ = run(capsys, *argv, "--trace", str(trace))
    assert code == 1  # the offline player does not solve this one in one go
    lines = trace.read_text().splitlines()
    edited = []
    for line in lines:
        event = json.loads(line)
        if event.get("type") == "RunFinished":
            event["solved"] = True
        edited.append(json.dumps(event))
    trace.write_text("\n".join(edited) + "\n")
    code, out, _ = run(capsys, "replay", str(trace), "--json")
    assert code == 1
    (error,) = [e for e in events_of(out) if e["type"] == "ErrorRaised"]
    assert "the trace says solved; checked again exactly" in error["message"]
    assert finish_of(events_of(out))["solved"] is False


# -- the screen, by keyboard, at both sizes -------------------------------------------------------


async def open_tot_mini(pilot: Pilot[None], row: int) -> CrosswordScreen:
    """Home: tab to the kinds, down to Mini crosswords, o, the bundled file's path typed
    and entered, its row chosen by arrows."""
    app = pilot.app
    assert isinstance(app.screen, HomeScreen)
    kinds = app.screen.query_one("#kinds", OptionList)
    for _ in range(5):  # the home screen opens with its left column focused, not the list
        if app.focused is kinds:
            break
        await pilot.press("tab")
    assert app.focused is kinds
    await pilot.press(*["down"] * (list(KINDS).index("crossword") - (kinds.highlighted or 0)))
    assert kinds.highlighted == list(KINDS).index("crossword")
    await pilot.press("o")
    await wait_for(pilot, lambda: isinstance(app.screen, OpenFileDialog))
    box = app.screen.query_one("#file-path", Input)
    box.focus()
    await pilot.press(*str(TOT_MINIS), "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ChooseDialog))
    await pilot.press(*["down"] * row, "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
    screen = app.screen
    assert isinstance(screen, CrosswordScreen)
    return screen


async def choose_method(pilot: Pilot[None], name: str) -> None:
    """ctrl+o, the method picked from the list by arrows, then tab to Use and enter."""
    app = pilot.app
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, MethodDialog))
    dialog = app.screen
    assert isinstance(dialog, MethodDialog)
    names = [s.name for s in dialog.specs]
    here = names.index(dialog.method)
    there = names.index(name)
    moves = ["down"] * (there - here) if there >= here else ["up"] * (here - there)
    await pilot.press("enter", *moves, "enter")
    await pilot.pause()
    assert dialog.method == name
    for _ in range(20):
        focused = app.focused
        if isinstance(focused, Button) and focused.id == "use":
            break
        await pilot.press("tab")
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, MethodDialog))


APP_SMALL: dict[str, dict[str, Any]] = {
    "tot-dfs": {"step_limit": 10},
    "bot": {"iterations": 1, "trees": 2},
    "aiot": {"iterations": 3},
    "giot": {"turns": 2},
}


@pytest.mark.parametrize(
    ("name", "size"),
    [("tot-dfs", (120, 40)), ("bot", (80, 24)), ("aiot", (80, 24)), ("giot", (120, 40))],
    ids=["tot-dfs-120x40", "bot-80x24", "aiot-80x24", "giot-120x40"],
)
async def test_open_a_tot_mini_start_a_method_and_win_by_keyboard(
    app: PonderApp, size: tuple[int, int], name: str
) -> None:
    """Each method at one of the two sizes (both sizes twice): the same keys and screen, so
    all eight pairs would pin nothing more, at twice the time."""
    app.method_options = dict(APP_SMALL[name])  # what the dialog's fields start from
    async with app.run_test(size=size) as pilot:
        screen = await open_tot_mini(pilot, ROW)
        mini = load_tot_minis()[ROW]
        assert screen.crossword.solution == mini.solution and screen.level == "file"
        await choose_method(pilot, name)
        assert app.method_name == name
        await pilot.press("ctrl+g", "ctrl+s")  # the ghost on, the solver started
        pane = screen.query_one(SolverPane)
        assert pane.method == name
        for entry in screen.crossword.across:  # typing runs on from one clue to the next
            await pilot.press(*entry.answer.lower())
        assert screen.over and not screen.gave_up
        assert "Solved" in str(screen.query_one("#message", Static).render())
        await wait_for(pilot, lambda: pane.finished is not None)
        assert screen.ghost is not None and screen.ghost.filled > 0
        await wait_for(pilot, lambda: app.store is not None and app.store.recent(1))
        assert app.store is not None
        (result,) = app.store.recent(1)
        assert result.kind == "crossword" and result.solved
        assert result.answer == "/".join(mini.solution)


def test_snapshot_a_tot_mini_mid_game_120x40(
    snap_compare: SnapCompare, app: PonderApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tui.screens.puzzle.time", FrozenClock())

    async def open_row(pilot: Pilot[None]) -> None:
        found = load_tot_minis()
        await pilot.app.push_screen(CrosswordScreen.from_file(found, ROW))
        await pilot.pause()

    # h1 typed right, then the first letters of h2 with a pencilled one and a wrong one,
    # found by checking the word.
    h1 = load_tot_minis()[ROW].solution[0].lower()
    wrong = "z" if load_tot_minis()[ROW].solution[1][2] != "Z" else "q"
    h2 = load_tot_minis()[ROW].solution[1].lower()
    keys = [*h1, h2[0], "ctrl+e", h2[1], "ctrl+e", wrong, "ctrl+k"]
    assert snap_compare(app, terminal_size=(120, 40), press=keys, run_before=open_row)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_generate_a_mini_from_home_and_win_by_keyboard(
    app: PonderApp, size: tuple[int, int]
) -> None:
    async with app.run_test(size=size) as pilot:
        assert isinstance(app.screen, HomeScreen)
        kinds = app.screen.query_one("#kinds", OptionList)
        for _ in range(5):
            if app.focused is kinds:
                break
            await pilot.press("tab")
        await pilot.press(*["down"] * (list(KINDS).index("crossword") - (kinds.highlighted or 0)))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        screen = app.screen
        assert isinstance(screen, CrosswordScreen) and screen.level in CrosswordScreen.LEVELS
        # Typing runs on from one clue to the next; the down words fill any square that no
        # across word holds (a grid with black squares), and a won grid takes no more keys.
        for entry in (*screen.crossword.across, *screen.crossword.down):
            await pilot.press(*entry.answer.lower())
        assert screen.over and not screen.gave_up
        assert "Solved" in str(screen.query_one("#message", Static).render())
