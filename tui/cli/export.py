"""What ``ponder replay TRACE --export FILE`` and ``--screenshot FILE.svg`` write.

The thought tree of a run, from its events: every thought (``ThoughtAdded``) is a node with
its tree, its parent, its text and the puzzle state after it; its scores
(``ThoughtScored``) and its marks (pruned, leaf, solution, in an aggregated chain, a wrong
arithmetic claim) are added as the later events name it. As JSON for other tools, or as
Graphviz text (``dot -Tsvg tree.dot``) for papers. A trace is outside text: every string
written is made visible (no control characters) and, in DOT, quoted.

The screenshot plays the trace in the app without a screen (Textual's ``run_test``) as fast
as it can, and saves the screen at the end as SVG.

Both are written whole through the one write guard (:func:`puzzles.files.write_whole`): never
over a directory, a pipe, a device or a symbolic link.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.events import (
    ChainAggregated,
    ClaimVerified,
    Event,
    LeafReached,
    RunFinished,
    RunStarted,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
)
from tui.cli.usage import UsageError, visible

__all__ = [
    "EXPORT_FORMATS",
    "ThoughtNode",
    "check_output",
    "save_screenshot",
    "thought_tree",
    "write_output",
    "write_tree",
]

EXPORT_FORMATS = (".json", ".dot")
SCREEN_SIZE = (140, 45)
"""Columns and rows of the screenshot's screen."""
REPLAY_SECONDS = 120.0
"""Longest a screenshot's replay may take before it is given up."""


@dataclass
class ThoughtNode:
    """One thought of the run and what the run later said of it."""

    id: str
    tree: str
    parent: str | None
    text: str
    depth: int
    state: str
    scores: dict[str, Any] = field(default_factory=dict)
    marks: list[str] = field(default_factory=list)

    def mark(self, name: str) -> None:
        if name not in self.marks:
            self.marks.append(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tree": self.tree,
            "parent": self.parent,
            "text": self.text,
            "depth": self.depth,
            "state": self.state,
            "scores": self.scores,
            "marks": self.marks,
        }


def thought_tree(events: Sequence[Event]) -> list[ThoughtNode]:
    """Every thought of the run, in the order they were added, with scores and marks."""
    nodes: dict[str, ThoughtNode] = {}
    for event in events:
        match event:
            case ThoughtAdded():
                if event.node_id not in nodes:
                    nodes[event.node_id] = ThoughtNode(
                        visible(event.node_id),
                        visible(event.tree_id),
                        None if event.parent_id is None else visible(event.parent_id),
                        visible(event.text),
                        event.depth,
                        visible(event.state),
                    )
            case ThoughtScored() if event.node_id in nodes:
                scores = nodes[event.node_id].scores
                scores["score"] = event.score
                if event.edge_score is not None:
                    scores["edge"] = event.edge_score
                if event.samples:
                    scores["samples"] = [visible(s) for s in event.samples]
            case ThoughtPruned() if event.node_id in nodes:
                nodes[event.node_id].mark("pruned")
            case LeafReached() if event.node_id in nodes:
                nodes[event.node_id].mark("leaf")
            case SolutionFound() if event.node_id in nodes:
                nodes[event.node_id].mark("solution")
            case ChainAggregated():
                for node_id in event.node_ids:
                    if node_id in nodes:
                        nodes[node_id].mark(f"chain {event.iteration}")
            case ClaimVerified() if event.node_id in nodes and not event.ok:
                nodes[event.node_id].mark(f"claim {visible(event.status)}")
            case _:
                pass
    return list(nodes.values())


def write_tree(header: dict[str, Any], events: Sequence[Event], path: Path) -> None:
    """The thought tree as ``path``'s extension says (:data:`EXPORT_FORMATS`); a usage
    error when it cannot be written."""
    nodes = thought_tree(events)
    about = _about(header, events)
    if path.suffix.lower() == ".dot":
        text = to_dot(nodes, about)
    else:
        text = json.dumps({**about, "nodes": [n.to_json() for n in nodes]}, indent=2) + "\n"
    write_output(path, text)


def check_output(path: Path) -> None:
    """A usage error, before any work, when ``path`` may never be written (a directory, a
    pipe, a device, a symbolic link: see :func:`puzzles.files.output_problem`)."""
    from puzzles.files import output_problem

    problem = output_problem(path)
    if problem is not None:
        raise UsageError(f"cannot write {path}: {problem}")


def write_output(path: Path, text: str) -> None:
    """``text`` written whole to ``path`` through the one write guard; a usage error when
    it cannot be."""
    from puzzles.files import FileError, write_whole

    try:
        with write_whole(path) as handle:
            handle.write(text)
    except FileError as exc:
        raise UsageError(f"cannot write {path}: {exc.problem}") from None


def _about(header: dict[str, Any], events: Sequence[Event]) -> dict[str, Any]:
    """The run the tree is of: method, kind, puzzle, model, and how it ended."""
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    finished = next((e for e in reversed(events) if isinstance(e, RunFinished)), None)

    def text(value: object) -> str:
        return visible(str(value)) if value is not None else ""

    return {
        "method": text(started.method if started else header.get("method")),
        "kind": text(started.kind if started else header.get("kind", "game24")),
        "puzzle": text(started.puzzle if started else header.get("puzzle")),
        "model": text(started.model if started else header.get("model")),
        "answer": text(finished.answer) if finished and finished.answer is not None else None,
        "solved": finished.solved if finished else None,
    }


def to_dot(nodes: Sequence[ThoughtNode], about: dict[str, Any]) -> str:
    """Graphviz text: one cluster per tree, each node labelled with its text and score,
    solutions doubled, pruned nodes dashed, chain members filled."""
    title = f"{about['method']} on {about['puzzle']}"
    if about["solved"] is not None:
        title += " (solved)" if about["solved"] else " (not solved)"
    lines = [
        "digraph thoughts {",
        f"  label={_quote(title)};",
        "  labelloc=t;",
        "  rankdir=TB;",
        '  node [shape=box, fontname="monospace", fontsize=10];',
    ]
    trees: dict[str, list[ThoughtNode]] = {}
    for node in nodes:
        trees.setdefault(node.tree, []).append(node)
    for n, (tree, members) in enumerate(trees.items()):
        lines.append(f"  subgraph cluster_{n} {{")
        lines.append(f"    label={_quote(tree)};")
        for node in members:
            label = node.text
            if "score" in node.scores:
                label += f"\nscore {node.scores['score']:g}"
            if node.marks:
                label += f"\n[{', '.join(node.marks)}]"
            style = []
            if "pruned" in node.marks:
                style.append("dashed")
            if any(m.startswith("chain") for m in node.marks):
                style.append("filled")
            attributes = [f"label={_quote(label)}"]
            if style:
                attributes.append(f"style={_quote(','.join(style))}")
            if "solution" in node.marks:
                attributes.append("peripheries=2")
            lines.append(f"    {_quote(node.id)} [{', '.join(attributes)}];")
        lines.append("  }")
    known = {node.id for node in nodes}
    for node in nodes:
        if node.parent is not None and node.parent in known:
            lines.append(f"  {_quote(node.parent)} -> {_quote(node.id)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    """``text`` as a DOT string: quotes and backslashes escaped, lines as ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


def save_screenshot(header: dict[str, Any], events: Sequence[Event], path: Path) -> None:
    """Play the run in the app without a screen, to its end, and save the screen as SVG."""
    import asyncio

    asyncio.run(_screenshot(header, list(events), path))


async def _screenshot(header: dict[str, Any], events: list[Event], path: Path) -> None:
    import asyncio
    import time

    from solver.settings import SettingsError, load_settings
    from tui.app import Replay, make_app

    try:
        settings = load_settings()
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    replay = Replay(header, events)
    replay.speed = float("inf")  # no pauses between events: the picture is of the end
    app = make_app(settings, replay=replay, use_store=False)
    async with app.run_test(size=SCREEN_SIZE) as pilot:
        end = time.monotonic() + REPLAY_SECONDS
        while not replay.finished:
            if time.monotonic() > end:
                raise UsageError(f"the replay did not end within {REPLAY_SECONDS:.0f} s")
            await asyncio.sleep(0.05)
        await pilot.pause(0.3)  # the last batch of events drawn
        svg = app.export_screenshot()
    write_output(path, svg)
