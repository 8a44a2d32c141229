"""The kinds catalogue: every kind declared once, in solver/kinds, read by the command line, the
app, benchmarks and replays alike; a kind from another package arrives through entry points
with no list edited anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from solver.kinds import KINDS, KindError, find_kind

ROOT = Path(__file__).resolve().parent.parent

# A toy kind in a package of its own: "make 10" hands, played through the Game of 24's domain
# (a hand carries its target) and answered offline by the Game of 24 engine; its screen is the
# Game of 24's with its own KIND. Registered only through its distribution's entry points.
TOY_KIND = """
from solver.kinds import KindSpec
from solver.kinds.roles import GAME24


def parse(text):
    from puzzles.game24 import Hand

    return Hand.parse(text, 10)


def read_header(header):
    return parse(str(header["puzzle"]))


def generate(seed):
    return parse(" ".join(str(1 + (seed + i) % 9) for i in range(4)))


KIND = KindSpec(
    name="toy",
    label="Toy tens",
    cli="toy",
    roles=GAME24,
    domain="solver.domains.game24:Game24Domain",
    read_header=read_header,
    parse=parse,
    generate=generate,
    puzzles="toys",
    order=99,
)
"""

TOY_SCREEN = """
from tui.screens.game24 import Game24Screen


class ToyScreen(Game24Screen):
    KIND = "toy"
"""

ENTRY_POINTS = """
[ponder.kinds]
toy = toykind.kind:KIND

[ponder.screens]
toy = toykind.screen:ToyScreen
"""


@pytest.fixture
def toy_path(tmp_path: Path) -> Path:
    """A folder holding the toy kind's package and its distribution's metadata."""
    site = tmp_path / "site"
    package = site / "toykind"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "kind.py").write_text(TOY_KIND)
    (package / "screen.py").write_text(TOY_SCREEN)
    info = site / "toykind-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toykind\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return site


def run_python(code: str, site: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    env["PONDER_DATA_DIR"] = str(tmp_path / "data")
    env["PONDER_CONFIG"] = str(tmp_path / "config.toml")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_built_in_kinds_are_declared_once_each() -> None:
    assert list(KINDS) == ["game24", "crossword", "wordproblem"]
    for kind in KINDS.values():
        puzzle = kind.generate(3) if kind.generate is not None else None
        assert puzzle is not None
        again = kind.puzzle_from_header(kind.header_of(puzzle))
        assert kind.header_of(again) == kind.header_of(puzzle)  # a trace's header reads back
        assert kind.make_domain(again).roles == kind.roles
    assert find_kind("GSM8K").name == "wordproblem"
    with pytest.raises(KindError, match="unknown puzzle kind"):
        find_kind("sudoku")


def test_a_header_that_names_no_puzzle_says_so() -> None:
    with pytest.raises(KindError, match="no Game of 24 puzzle"):
        KINDS["game24"].puzzle_from_header({"puzzle": "4 seven"})
    with pytest.raises(KindError, match="holds no crossword"):
        KINDS["crossword"].puzzle_from_header({"puzzle": "x"})


def test_a_crossword_too_large_is_refused_by_the_kind() -> None:
    from puzzles.crossword import Crossword, Grid

    rows = ["ABCDEFGH"] * 8
    big = Crossword.from_clues(rows, {s.label: "a clue" for s in Grid.parse(rows).slots})
    with pytest.raises(KindError, match=r"at most 7 x 7\); this one is 8 x 8"):
        KINDS["crossword"].make_domain(big)


def test_a_kind_from_another_package_reaches_the_cli_bench_replay_and_home(
    toy_path: Path, tmp_path: Path
) -> None:
    """The toy kind is found with no list edited: the catalogue, ``ponder solve``, ``ponder
    bench``, a replay of its trace, and the app's home screen."""
    code = """
        import asyncio, json, sys
        from solver.kinds import KINDS
        from tui.cli import main

        assert list(KINDS)[-1] == "toy", list(KINDS)
        trace = "toy.jsonl"
        code = main(["solve", "toy", "2 3 4 1", "--method", "cot", "--engine", "offline",
                     "--seed", "1", "--trace", trace])
        print("SOLVE", code)
        print("<<<")
        code = main(["bench", "toy", "--generated", "3", "--method", "io", "--engine",
                     "offline", "--json", "--no-plot"])
        print("BENCH", code)
        code = main(["replay", trace, "--print"])
        print("REPLAY", code)

        from solver.settings import Settings
        from textual.widgets import OptionList
        from tui.app import make_app

        async def home():
            app = make_app(Settings(), seed=1)
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause(0.2)
                kinds = app.screen.query_one("#kinds", OptionList)
                labels = [str(kinds.get_option_at_index(i).prompt) for i in
                          range(kinds.option_count)]
                print("HOME", json.dumps(labels))
        asyncio.run(home())
    """
    result = run_python(code, toy_path, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "SOLVE " in out and "BENCH 0" in out and "REPLAY " in out, out[-3000:]
    bench = json.loads(out.split("<<<\n", 1)[1].split("BENCH", 1)[0])
    assert bench["hands"] == 3 and bench["results"][0]["puzzles"] == 3, bench
    header = json.loads((tmp_path / "toy.jsonl").read_text().splitlines()[0])
    assert header["kind"] == "toy"
    home = json.loads(out.split("HOME ", 1)[1].splitlines()[0])
    assert any("Toy tens" in label for label in home), home


def test_without_the_entry_point_there_is_no_toy_kind(toy_path: Path, tmp_path: Path) -> None:
    """The test above finds the toy kind only through its entry points."""
    for path in toy_path.glob("*.dist-info/entry_points.txt"):
        path.unlink()
    result = run_python("from solver.kinds import KINDS; print(sorted(KINDS))", toy_path, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "toy" not in result.stdout


def test_each_kinds_levels_are_its_puzzles_levels() -> None:
    """Home offers a kind's levels from its spec, without importing its screen; they are the
    levels its puzzles are dealt at."""
    from puzzles.game24.catalogue import LEVELS as HAND_LEVELS
    from puzzles.wordproblem.algebra import LEVELS as ALGEBRA_LEVELS
    from puzzles.wordproblem.templates import LEVELS as TEMPLATE_LEVELS
    from solver.kinds import KINDS

    assert KINDS["game24"].levels == HAND_LEVELS
    assert KINDS["wordproblem"].levels == TEMPLATE_LEVELS == ALGEBRA_LEVELS
    assert KINDS["crossword"].levels == ("open", "blocks")
