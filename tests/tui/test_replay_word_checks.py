"""``ponder replay`` checks a crossword trace's word checks again against the puzzle: an edited
trace that marks a clashing word as fitting (or the other way round) is reported, as a wrong
arithmetic claim is, and the replay shows the exact check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.cli.main import main

ROW = 5  # a ToT mini the offline player gets partly right: CoT's words clash at the crossings


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def events_of(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def words(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "WordChecked"]


@pytest.fixture
def trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    argv = ["solve", "crossword", "--tot", "--row", str(ROW), "--method", "cot"]
    code, _, err = run(capsys, *argv, "--trace", str(path))
    assert code in (0, 1), err
    return path


def edit(path: Path, change: Any) -> None:
    """Apply ``change`` to the first WordChecked event it accepts (it returns True)."""
    lines, done = [], False
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if not done and event.get("type") == "WordChecked" and change(event):
            done = True
        lines.append(json.dumps(event))
    assert done, "no word check to edit"
    path.write_text("\n".join(lines) + "\n")


def replayed(capsys: pytest.CaptureFixture[str], path: Path) -> list[dict[str, Any]]:
    code, out, err = run(capsys, "replay", str(path), "--json")
    assert code in (0, 1), err
    return events_of(out)


def test_an_untouched_trace_replays_its_word_checks_without_complaint(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    written = words(events_of(trace.read_text()))
    assert any(e["ok"] for e in written) and any(not e["ok"] for e in written)
    again = replayed(capsys, trace)
    assert not [e for e in again if e["type"] == "ErrorRaised"]
    assert [(e["clue"], e["word"], e["ok"]) for e in words(again)] == [
        (e["clue"], e["word"], e["ok"]) for e in written
    ]


def test_a_clashing_word_marked_as_fitting_is_caught_on_replay(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    flipped: dict[str, Any] = {}

    def mark_fitting(event: dict[str, Any]) -> bool:
        if event["ok"] or not event["crossing"]:
            return False
        flipped.update(event)
        event.update(ok=True, reason=f"fits {event['pattern']}", crossing="")
        return True

    edit(trace, mark_fitting)
    again = replayed(capsys, trace)
    (error,) = [e for e in again if e["type"] == "ErrorRaised"]
    shown = f"{flipped['clue']}. {flipped['word']} on {flipped['pattern']}"
    assert (
        f"the trace marks {shown} as fitting; checked again exactly, it does not"
        in (error["message"])
    )
    assert flipped["reason"] in error["message"]  # the crossing it clashes with
    (word,) = [e for e in words(again) if e["node_id"] == flipped["node_id"]]
    # The replay shows the exact check whole, its reason too, not the edited claim's.
    assert word["ok"] is False and word["crossing"] == flipped["crossing"]
    assert word["reason"] == flipped["reason"]


def test_a_slot_edited_to_clash_with_a_fitting_word_is_caught_on_replay(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    edited: dict[str, Any] = {}

    def clash(event: dict[str, Any]) -> bool:
        if not event["ok"]:
            return False
        other = "A" if event["word"][0] != "A" else "B"
        event["pattern"] = other + event["pattern"][1:]
        edited.update(event)
        return True

    edit(trace, clash)
    again = replayed(capsys, trace)
    (error,) = [e for e in again if e["type"] == "ErrorRaised"]
    assert (
        f"the trace marks {edited['clue']}. {edited['word']} on {edited['pattern']}"
        in (error["message"])
    )
    assert "it does not: conflicts" in error["message"]
    (word,) = [e for e in words(again) if e["node_id"] == edited["node_id"]]
    assert word["ok"] is False


def test_a_fitting_word_marked_as_clashing_is_caught_on_replay(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    def mark_clashing(event: dict[str, Any]) -> bool:
        if not event["ok"] or "_" not in event["pattern"]:
            return False
        event.update(ok=False, reason="conflicts (edited)", crossing="v1: Q")
        return True

    edit(trace, mark_clashing)
    written = {e["node_id"]: e for e in words(events_of(trace.read_text()))}
    again = replayed(capsys, trace)
    (error,) = [e for e in again if e["type"] == "ErrorRaised"]
    assert "as not fitting; checked again exactly, it fits" in error["message"]
    (word,) = [e for e in words(again) if written[e["node_id"]]["crossing"] == "v1: Q"]
    assert word["ok"] is True and word["crossing"] == ""
    assert word["reason"].startswith("fits ") and "edited" not in word["reason"]


def test_a_slot_of_the_wrong_length_is_reported_not_a_traceback(
    capsys: pytest.CaptureFixture[str], trace: Path
) -> None:
    def stretch(event: dict[str, Any]) -> bool:
        event["pattern"] += "___"
        return True

    edit(trace, stretch)
    (error,) = [e for e in replayed(capsys, trace) if e["type"] == "ErrorRaised"]
    assert "cannot be its letters" in error["message"]
