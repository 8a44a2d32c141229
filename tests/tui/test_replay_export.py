"""``ponder replay TRACE --export tree.json|tree.dot`` and ``--screenshot out.svg``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from solver.events import (
    ChainAggregated,
    LeafReached,
    RunFinished,
    RunStarted,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
)
from tui.cli import main
from tui.cli.export import thought_tree, to_dot
from tui.exitcodes import ExitCode


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def bot_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A real BoT run's trace (offline engine)."""
    trace = tmp_path / "bot.jsonl"
    argv = ["solve", "24", "4 7 8 8", "--method", "bot", "--iterations", "2", "--trees", "4"]
    assert main([*argv, "--seed", "1", "--trace", str(trace)]) in (0, 1)
    capsys.readouterr()
    return trace


def test_export_json_holds_every_thought_with_scores_and_marks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bot_trace: Path
) -> None:
    out = tmp_path / "tree.json"
    code, printed, err = run(capsys, "replay", str(bot_trace), "--export", str(out))
    assert code in (0, 1) and printed == ""  # stdout stays free; where it went is on stderr
    assert err == f"wrote the thought tree to {out.resolve()}\n"
    data = json.loads(out.read_text())
    assert data["method"] == "bot" and data["puzzle"] == "4 7 8 8" and data["kind"] == "game24"
    added = [
        json.loads(line) for line in bot_trace.read_text().splitlines() if '"ThoughtAdded"' in line
    ]
    nodes = data["nodes"]
    assert [n["id"] for n in nodes] == [a["node_id"] for a in added]
    ids = {n["id"] for n in nodes}
    for node in nodes:
        assert set(node) == {"id", "tree", "parent", "text", "depth", "state", "scores", "marks"}
        assert node["parent"] is None or node["parent"] in ids
        assert isinstance(node["scores"].get("score"), float)
    marks = {m for n in nodes for m in n["marks"]}
    assert "leaf" in marks and any(m.startswith("chain") for m in marks)
    assert (code == 0) == data["solved"]


def test_a_trace_without_its_start_event_is_named_by_its_header(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bot_trace: Path
) -> None:
    lines = bot_trace.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(method="bot", puzzle="4 7 8 8", kind="game24", model="from-the-header")
    kept = [json.dumps(header)] + [line for line in lines[1:] if '"RunStarted"' not in line]
    bot_trace.write_text("\n".join(kept) + "\n")
    out = tmp_path / "tree.json"
    code, _, err = run(capsys, "replay", str(bot_trace), "--export", str(out))
    assert code in (0, 1) and "Traceback" not in err
    data = json.loads(out.read_text())
    named = (data["method"], data["puzzle"], data["kind"], data["model"])
    assert named == ("bot", "4 7 8 8", "game24", "from-the-header")


def test_export_dot_is_graphviz_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bot_trace: Path
) -> None:
    out = tmp_path / "tree.DOT"  # the extension in any case
    assert main(["replay", str(bot_trace), "--export", str(out)]) in (0, 1)
    text = out.read_text()
    assert text.startswith("digraph thoughts {") and text.rstrip().endswith("}")
    assert text.count("subgraph cluster_") == 8  # two iterations of four trees
    assert re.search(r'"i1\.t1\.n\d+" -> "i1\.t1\.n\d+";', text)
    assert text.count("{") == text.count("}")


def test_dot_quotes_whatever_a_trace_holds() -> None:
    hostile = 'say "hi"\\ then\nnew line \x1b[31m'
    events = [
        RunStarted("tot", "1 2 3 4", "game24", "m"),
        ThoughtAdded("t1", 'n"1', None, hostile),
        ThoughtAdded("t1", "n2", 'n"1', "2 * 3 = 6"),
        ThoughtScored("n2", 0.5, edge_score=1.0, samples=("sure",)),
        ThoughtPruned('n"1', "low"),
        LeafReached("n2", "depth"),
        SolutionFound("n2", "x"),
        ChainAggregated(1, "best", ("n2",), ("2 * 3 = 6",), 0.5),
        ThoughtScored("ghost", 1.0),  # names no thought: left out
        RunFinished(None, False, "no answer", 1, 10, 5, None, 0.1),
    ]
    nodes = thought_tree(events)
    assert [n.id for n in nodes] == ['n"1', "n2"]
    assert nodes[1].marks == ["leaf", "solution", "chain 1"] and nodes[0].marks == ["pruned"]
    assert nodes[1].scores == {"score": 0.5, "edge": 1.0, "samples": ["sure"]}
    assert "\x1b" not in nodes[0].text
    dot = to_dot(nodes, {"method": "tot", "puzzle": "1 2 3 4", "solved": False})
    assert "\x1b" not in dot
    assert '"n\\"1" -> "n2";' in dot
    assert 'say \\"hi\\"\\\\ then\\nnew line' in dot
    assert "peripheries=2" in dot and 'style="dashed"' in dot and 'style="filled"' in dot
    # Every line outside the braces is a complete statement: no raw newline split a string.
    body = dot.splitlines()[1:-1]
    assert all(line.rstrip().endswith((";", "{", "}")) for line in body)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--export", "tree.png"], ".json or .dot"),
        (["--screenshot", "out.png"], "SVG"),
        (["--export", "tree.json", "--print"], "leave out --print"),
        (["--export", "/no/such/dir/tree.json"], "cannot write"),
    ],
)
def test_bad_export_requests_are_usage_errors(
    capsys: pytest.CaptureFixture[str], bot_trace: Path, argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "replay", str(bot_trace), *argv)
    assert code == ExitCode.USAGE and message in err and "Traceback" not in err


def test_a_bad_trace_is_a_usage_error_for_export(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "t.jsonl"
    bad.write_text("not a trace\n")
    code, _, err = run(capsys, "replay", str(bad), "--export", str(tmp_path / "t.json"))
    assert code == ExitCode.USAGE and "not a ponder trace" in err


def test_screenshot_saves_the_panes_at_the_end_of_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "tot.jsonl"
    assert main(["solve", "24", "4 7 8 8", "--method", "tot", "--trace", str(trace)]) in (0, 1)
    capsys.readouterr()
    shot = tmp_path / "shots" / "out.svg"
    shot.parent.mkdir()
    code, _, err = run(capsys, "replay", str(trace), "--screenshot", str(shot))
    assert code in (0, 1) and "Traceback" not in err
    svg = shot.read_text()
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")
    # The end of the run is on screen: its verdict and its answer's last step. (SVG text
    # writes spaces as &#160;.)
    flat = svg.replace("&#160;", " ")
    assert "replay over" in flat
    assert ("✓ solved" in flat) == (code == 0)


def test_export_and_screenshot_together(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bot_trace: Path
) -> None:
    tree, shot = tmp_path / "t.json", tmp_path / "s.svg"
    code, _, err = run(
        capsys, "replay", str(bot_trace), "--export", str(tree), "--screenshot", str(shot)
    )
    assert code in (0, 1) and tree.exists() and shot.exists()
    assert f"to {tree.resolve()}" in err and f"screenshot to {shot.resolve()}" in err
