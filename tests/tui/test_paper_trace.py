"""Issue 9's demonstration, pinned: a trace of ``ponder solve 24 HAND --method bot --paper
--trace F`` on the offline engine shows leaf-wise trees beside layer-wise ones, wrong steps of
the model reported ✗ and carried on (a child grows from them), experience entries holding error
reports, and each iteration's own success; without ``--paper`` a wrong step ends its branch."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from tui.cli import main


def _trace(tmp_path: Path, *extra: str) -> list[dict[str, Any]]:
    path = tmp_path / "run.jsonl"
    argv = ["solve", "24", "1 5 5 5", "--method", "bot", "--iterations", "3", "--trees", "4"]
    code = main([*argv, "--seed", "1", "--trace", str(path), *extra])
    assert code in (0, 1)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def _children_of_wrong_steps(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    wrong = {e["node_id"] for e in _of(events, "ClaimVerified") if e["status"] == "wrong"}
    assert wrong, "the engine wrote no wrong step on this seed"
    return [e for e in _of(events, "ThoughtAdded") if e["parent_id"] in wrong]


def test_a_paper_trace_shows_the_papers_mechanisms(tmp_path: Path) -> None:
    events = _trace(tmp_path, "--paper")
    # Both growths, and they grow differently shaped trees.
    strategy = {e["tree_id"]: e["strategy"] for e in _of(events, "TreeStarted")}
    assert set(strategy.values()) == {"layer", "leaf"}
    depth: dict[str, int] = defaultdict(int)
    for e in _of(events, "ThoughtAdded"):
        depth[e["tree_id"]] = max(depth[e["tree_id"]], e["depth"])
    deepest = {s: max(depth[t] for t in depth if strategy[t] == s) for s in ("layer", "leaf")}
    assert deepest["leaf"] >= 3  # a leaf-wise tree goes down to a full chain
    # The model's wrong steps are reported and carried on, not pruned.
    assert _children_of_wrong_steps(events)
    # Experience entries carry the analysis' error reports, one entry per iteration, and each
    # iteration's own chain is marked right or wrong.
    entries = _of(events, "ExperienceAdded")
    assert len(entries) == 3 and all(isinstance(e["chain_ok"], bool) for e in entries)
    assert "Recommendation or Reject" in entries[0]["entry"]
    # The answer comes from the final prompt I^{T+1}, after the last analysis: its call (the
    # prompt carries every entry) and the answer read from it, checked exactly.
    calls = {e["call_id"]: e for e in _of(events, "ModelCalled")}
    (final,) = _of(events, "FinalAnswered")
    asked = calls[final["call_id"]]
    assert asked["purpose"] == "bot_final" and max(calls) == final["call_id"]
    assert all(e["entry"] in asked["prompt"] for e in entries)
    (done,) = _of(events, "RunFinished")
    assert done["answer"] == final["answer"]


def test_without_paper_a_wrong_step_ends_its_branch(tmp_path: Path) -> None:
    events = _trace(tmp_path)
    assert _of(events, "FinalAnswered") == []  # the answer is the last chain: no final call
    assert _children_of_wrong_steps(events) == []  # (it asserts that there are wrong steps)
