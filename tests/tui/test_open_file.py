"""Opening a person's own file from home (o): a word-problem file (GSM8K JSON lines or Q:/A:)
or a crossword file (ToT JSON list, ipuz); a file of many lets the player choose one by number
with a preview; n (ctrl+n) goes on through the file; a bad file (missing, a folder of no
puzzles, the wrong format, binary, too large) is said in the dialog and in a notice, and
nothing crashes. The path box completes paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Input, OptionList, Static

from puzzles.crossword import generate, to_ipuz, to_tot
from solver.settings import Settings
from tests.tui.harness import Notice, wait_for
from tui.app import PonderApp, make_app
from tui.kinds import KINDS
from tui.screens.crossword import CrosswordScreen
from tui.screens.home import HomeScreen
from tui.screens.open_file import ChooseDialog, OpenFileDialog, complete_path
from tui.screens.wordproblem import WordProblemScreen, question_of

PROBLEMS = """\
# three problems of our own
Q: A baker makes 24 muffins and sells 3/4 of them. How many muffins are left?
A: 6
S: She sells 24 * 3 / 4 = <<24*3/4=18>>18 muffins.
S: 24 - 18 = <<24-18=6>>6 muffins are left.
Q: Tom has 5 apples and buys 7 more. How many apples does he have?
A: 12
Q: A car drives 60 miles an hour for 3 hours. How far does it go?
A: 180 miles
"""


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PonderApp:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.chdir(tmp_path)
    return make_app(Settings(), store_path=tmp_path / "r.db", seed=1)


async def open_dialog(pilot: Pilot[None], kind: str) -> OpenFileDialog:
    app = pilot.app
    assert isinstance(app.screen, HomeScreen)
    app.screen.query_one("#kinds", OptionList).highlighted = list(KINDS).index(kind)
    await pilot.pause()
    await pilot.press("o")
    await wait_for(pilot, lambda: isinstance(app.screen, OpenFileDialog))
    assert isinstance(app.screen, OpenFileDialog)
    return app.screen


async def submit(pilot: Pilot[None], path: Path | str) -> None:
    box = pilot.app.screen.query_one("#file-path", Input)
    box.value = str(path)
    box.focus()
    await pilot.press("enter")
    await pilot.pause()


def error_of(dialog: OpenFileDialog) -> str:
    return str(dialog.query_one("#file-error", Static).render())


def notices(toasts: list[Notice]) -> str:
    return "\n".join(str(n.message) for n in toasts)


# -- completion ----------------------------------------------------------------------------------


def test_complete_path(tmp_path: Path) -> None:
    (tmp_path / "minis.json").write_text("[]")
    (tmp_path / "mini-more.json").write_text("[]")
    (tmp_path / "problems").mkdir()
    (tmp_path / ".hidden.json").write_text("[]")
    base = f"{tmp_path}/"
    assert complete_path(base + "pro") == base + "problems/"  # a folder gets its slash
    assert complete_path(base + "mi") == base + "mini"  # as far as both names agree
    assert complete_path(base + "minis") == base + "minis.json"
    assert complete_path(base + "nothing") is None
    assert complete_path(base + ".hid") == base + ".hidden.json"
    assert complete_path(f"{tmp_path}/missing/x") is None
    assert complete_path("") is None


# -- word problems -------------------------------------------------------------------------------


async def test_choose_a_problem_of_a_file_by_number(app: PonderApp, tmp_path: Path) -> None:
    path = tmp_path / "three.txt"
    path.write_text(PROBLEMS)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "wordproblem")
        await submit(pilot, path)
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseDialog))
        chooser = app.screen
        assert isinstance(chooser, ChooseDialog)
        listed = chooser.query_one("#choice-list", OptionList)
        assert listed.option_count == 3
        assert "Tom has 5 apples" in str(listed.get_option_at_index(1).prompt)
        await pilot.press("9")
        assert "no problem 9" in str(chooser.query_one("#choice-preview", Static).render())
        await pilot.press("backspace", "2")
        assert "Tom has 5 apples" in str(chooser.query_one("#choice-preview", Static).render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        assert question_of(screen.problem).startswith("Tom has 5 apples")
        assert "2 of 3" in str(screen.query_one("#puzzle-title", Static).render())
        await pilot.press("a", "1", "2", "enter")
        assert screen.over and not screen.gave_up
        assert "the file's next problem" in str(screen.query_one("#message", Static).render())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is not screen)
        following = app.screen
        assert isinstance(following, WordProblemScreen)
        assert question_of(following.problem).startswith("A car drives")


async def test_a_file_of_one_problem_plays_at_once(app: PonderApp, tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    record = {
        "question": "Ann has 3 cats and 4 dogs. How many pets?",
        "answer": "3 + 4 = 7\n#### 7",
    }
    path.write_text(json.dumps(record) + "\n")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "wordproblem")
        await submit(pilot, path)
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        screen = app.screen
        assert isinstance(screen, WordProblemScreen)
        assert question_of(screen.problem).startswith("Ann has 3 cats")


async def test_a_file_whose_answer_its_own_steps_disagree_with_says_so(
    app: PonderApp, tmp_path: Path, toasts: list[Notice]
) -> None:
    """The stored 7 is not what 3 + 5 = 8 arrives at: said when the file opens and on the
    problem, since a player answering 8 is told "not correct"."""
    path = tmp_path / "doubt.jsonl"
    records = [
        {"question": "Ann has 3 cats and 5 dogs. How many pets?", "answer": "3 + 5 = 8\n#### 7"},
        {"question": "Bo has 2 cats and 2 dogs. How many pets?", "answer": "2 + 2 = 4\n#### 4"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "wordproblem")
        await submit(pilot, path)
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseDialog))
        assert "1 problem's answer is not what its own worked solution" in notices(toasts)
        assert "line 1" in notices(toasts)
        await pilot.press("1", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WordProblemScreen))
        message = str(app.screen.query_one("#message", Static).render())
        assert "answer is in doubt" in message and "(8)" in message
        assert "a: answer" in message


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("missing.txt", None, "no such file"),
        ("prose.txt", b"hello, this is not a problem file\n", "starts 'Q:'"),
        ("binary.dat", b"\x00\x01\x02\x03binary", "binary"),
        ("empty.txt", b"  \n", "empty"),
        ("list.json", b'[{"question": "x"}]', "JSON list"),
        ("huge.txt", b"Q" * (21 * 1024 * 1024), "too large"),
    ],
)
async def test_a_bad_problem_file_is_said_and_nothing_crashes(
    app: PonderApp,
    tmp_path: Path,
    name: str,
    content: bytes | None,
    said: str,
    toasts: list[Notice],
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, "wordproblem")
        await submit(pilot, path)
        assert app.screen is dialog  # still open, for another try
        assert said in error_of(dialog) and name in error_of(dialog)
        assert said in notices(toasts)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_folder_becomes_the_trees_root(app: PonderApp, tmp_path: Path) -> None:
    folder = tmp_path / "sets"
    folder.mkdir()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, "wordproblem")
        await submit(pilot, folder)
        assert app.screen is dialog
        assert Path(dialog.query_one(DirectoryTree).path) == folder
        await submit(pilot, "  ")
        assert "Type a path" in error_of(dialog)


async def test_no_file_for_the_game_of_24(app: PonderApp, toasts: list[Notice]) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#file-field").display
        await pilot.press("o")  # not offered (the footer and help name no o): nothing opens
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen) and not toasts


# -- crosswords ----------------------------------------------------------------------------------


async def test_choose_a_mini_of_a_tot_file(app: PonderApp, tmp_path: Path) -> None:
    minis = [generate(seed) for seed in range(3)]
    path = tmp_path / "minis.json"
    path.write_text(json.dumps([to_tot(m) for m in minis]))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "crossword")
        await submit(pilot, path)
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseDialog))
        chooser = app.screen
        listed = chooser.query_one("#choice-list", OptionList)
        first = str(listed.get_option_at_index(0).prompt)
        assert "5×5" in first and "1A" in first
        await pilot.press("down", "down", "enter")  # the list follows the arrows
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        screen = app.screen
        assert isinstance(screen, CrosswordScreen)
        assert screen.crossword.solution == minis[2].solution
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.screen is not screen)
        following = app.screen
        assert isinstance(following, CrosswordScreen)
        assert following.crossword.solution == minis[0].solution  # after the last, the first


async def test_an_ipuz_file_plays_at_once(app: PonderApp, tmp_path: Path) -> None:
    mini = generate(5, blocks=True)
    path = tmp_path / "one.ipuz"
    path.write_text(json.dumps(to_ipuz(mini)))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, "crossword")
        await submit(pilot, path)
        await wait_for(pilot, lambda: isinstance(app.screen, CrosswordScreen))
        screen = app.screen
        assert isinstance(screen, CrosswordScreen)
        assert screen.crossword.solution == mini.solution and screen.level == "file"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'[[["a"], "ABC"]]', "puzzle"),
        (b'{"kind": ["http://ipuz.org/sudoku#1"]}', "crossword"),
        (b"[" * 5000, "nest"),
        (b"\xff\xfe\x00garbage", "UTF-8"),
    ],
)
async def test_a_bad_crossword_file_is_said(
    app: PonderApp, tmp_path: Path, content: bytes, said: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, "crossword")
        await submit(pilot, path)
        assert app.screen is dialog
        assert said.lower() in error_of(dialog).lower()


# -- in the browser ------------------------------------------------------------------------------

SECRET_CONFIG = 'api_key = "sk-proj-SECRET0123456789abcdef"\nmodel = "gpt-4o"\n'


async def test_a_file_that_is_no_puzzle_file_is_not_read_out(
    app: PonderApp, tmp_path: Path, toasts: list[Notice]
) -> None:
    """A config file opened as puzzles once showed its first line, the key in it, in full."""
    path = tmp_path / "k.toml"
    path.write_text(SECRET_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        for kind in ("wordproblem", "crossword"):
            dialog = await open_dialog(pilot, kind)
            await submit(pilot, path)
            said = error_of(dialog) + notices(toasts)
            assert "Cannot open it" in said and "SECRET" not in said and "api_key" not in said
            assert kind == "crossword" or "line 1" in said  # where, and why, but not what
            await pilot.press("escape")
            await pilot.pause()


async def test_in_the_browser_files_are_off_unless_a_folder_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toasts: list[Notice]
) -> None:
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("PONDER_SERVE_FILES", "")
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "o")  # mini crosswords, whose files o opens elsewhere
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert "start ponder serve with --files DIR" in notices(toasts)


async def test_in_the_browser_only_the_given_folder_is_shown_and_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    (shared / "more").mkdir(parents=True)
    (shared / "three.txt").write_text(PROBLEMS)
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "k.toml").write_text(SECRET_CONFIG)
    (outside / "mine.txt").write_text(PROBLEMS)
    (shared / "escape").symlink_to(outside)
    (shared / "link.txt").symlink_to(outside / "mine.txt")
    monkeypatch.setenv("PONDER_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("PONDER_SERVE_FILES", str(shared))
    monkeypatch.chdir(tmp_path)
    app = make_app(Settings(), store_path=tmp_path / "r.db", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, "wordproblem")
        tree = dialog.query_one(DirectoryTree)
        assert Path(tree.path) == shared
        await wait_for(pilot, lambda: tree.root.children)
        shown = {str(node.label) for node in tree.root.children}
        assert "three.txt" in shown and "more" in shown
        assert "escape" not in shown and "link.txt" not in shown  # links out of the folder
        refused: list[Path | str] = [
            outside / "mine.txt",
            "../private/mine.txt",
            shared / "escape" / "mine.txt",
            shared / "link.txt",
            outside,
            "/",
        ]
        for path in refused:
            await submit(pilot, path)
            assert f"only files under {shared}" in error_of(dialog), path
            assert isinstance(app.screen, OpenFileDialog)
        # Completion does not list what lies outside either.
        assert complete_path("../priv", shared) is None
        assert complete_path(f"{outside}/", shared) is None
        assert complete_path("thr", shared) == "three.txt"
        await submit(pilot, "three.txt")  # a path relative to the folder
        await wait_for(pilot, lambda: isinstance(app.screen, ChooseDialog))


def test_an_app_in_a_browser_no_server_of_ours_started_opens_no_files(tmp_path: Path) -> None:
    from tui.served import served_files

    assert served_files(web=False, env={}) == (True, None)  # the terminal
    assert served_files(web=True, env={}) == (False, None)  # another web launcher
    assert served_files(web=True, env={"PONDER_SERVE_FILES": ""}) == (False, None)
    folder = tmp_path / "shared"
    folder.mkdir()
    assert served_files(web=True, env={"PONDER_SERVE_FILES": str(folder)}) == (True, folder)
