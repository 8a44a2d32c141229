"""Crossword files written by hand (ToT JSON, ipuz, Across Lite .puz), for the loaders' tests
and the commands that read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.crossword_readers import puz_bytes

ROWS = ("SPOIL", "TILDE", "EXILE", "RIVER", "NEEDS")


CLUES = [
    "Make a mess of",
    "A diacritical mark",
    "Expel from a country",
    "A large natural stream",
    "Requires",
    "The rear part of a ship",
    "Mischievous fairy",
    "Evergreen tree bearing a small fruit",
    "Ticked over",
    "Looks suggestively",
]


SECOND_ROWS = ("AGEND", "MOTOR", "ARTSY", "SALLE", "SLEER")


def tot_entry(rows: tuple[str, ...] = ROWS, clues: list[str] = CLUES) -> list[Any]:
    return [list(clues), list("".join(rows))]


def write(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def ipuz_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": "http://ipuz.org/v2",
        "kind": ["http://ipuz.org/crossword#1"],
        "title": "Tiny <i>test</i>",
        "author": "Tester",
        "dimensions": {"width": 4, "height": 3},
        "puzzle": [[1, 2, 3, "#"], [4, 0, 0, 5], ["#", 6, 0, 0]],
        "solution": [["C", "A", "T", "#"], ["A", "R", "E", "A"], [None, "T", "A", "X"]],
        "clues": {
            "Across": [[1, "Feline"], {"number": 4, "clue": "Region &amp; zone"}, [6, "Levy"]],
            "Down": [
                [1, "Taxi"],
                {"number": 2, "clue": "Painting, say", "enumeration": "3"},
                ["3", "Drink"],
                [5, "Letter after X"],
            ],
        },
    }
    doc.update(changes)
    return doc


def build_puz(
    solution: list[str],
    clues: list[str],
    *,
    title: str = "Title",
    scrambled: int = 0,
    **options: Any,
) -> bytes:
    """A .puz file: header, solution ('.' for blocks), empty fill, strings, checksums (the
    writer the reader comparison in bench/ uses, written from the format description)."""
    options.setdefault("author", "Author")
    options.setdefault("copyright", "(c) nobody")
    tag = (scrambled, None) if scrambled else None
    return puz_bytes(solution, clues, title=title, scrambled=tag, **options)


# Numbering order: 1A, 1D, 2D, 3D, 4A, 5D, 6A (across before down for a shared number).
PUZ_SOLUTION = ["CAT.", "AREA", ".TAX"]


PUZ_CLUES = ["Feline", "Taxi", "Painting, say", "Drink", "Region", "Letter after X", "Levy"]
