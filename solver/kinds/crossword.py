"""Mini crosswords: a grid of at most 7 x 7 and its clues, as ToT plays them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.kinds.roles import CROSSWORD
from solver.kinds.spec import KindSpec

MINI_MAX = 7
"""The largest grid (rows and columns) the solvers take: prompts list every clue and the
depth-first search values every clue at every state, so they are for minis."""


def _crossword(header: Mapping[str, Any]) -> Any:
    from puzzles.crossword import parse_ipuz
    from puzzles.files import PuzzleFileError

    data = header.get("ipuz")
    if not isinstance(data, dict):
        raise ValueError("its header holds no crossword")
    try:
        return parse_ipuz(data, "trace")
    except PuzzleFileError as exc:
        raise ValueError(f"its crossword cannot be read ({exc})") from None


def _header(crossword: Any) -> dict[str, Any]:
    # The whole puzzle travels in a trace's header, so a replay needs no file.
    from puzzles.crossword import to_ipuz

    title = crossword.title or crossword.source or "mini crossword"
    return {"puzzle": title, "ipuz": to_ipuz(crossword)}


def refusal(crossword: Any) -> str | None:
    """Why the solvers cannot play ``crossword``: a grid with no entries, or one larger than a
    mini (:data:`MINI_MAX`)."""
    grid = crossword.grid
    if not grid.slots:
        return "the puzzle has no entries to solve"
    if grid.height > MINI_MAX or grid.width > MINI_MAX:
        return (
            f"the solvers play mini crosswords only (at most {MINI_MAX} x {MINI_MAX}); this "
            f"one is {grid.height} x {grid.width}"
        )
    return None


def _generate(seed: int) -> Any:
    from puzzles.crossword import generate

    return generate(seed)


KIND = KindSpec(
    name="crossword",
    label="Mini crosswords",
    cli="crossword",
    aliases=("crosswords", "mini"),
    order=20,
    roles=CROSSWORD,
    domain="solver.domains.crossword:CrosswordDomain",
    player="solver.model.offline.crossword:CrosswordPlayer",
    checks="Words",
    puzzles="minis",
    read_header=_crossword,
    header=_header,
    generate=_generate,
    refuse=refusal,
    levels=("open", "blocks"),
    state="board",
    files="a ToT JSON list (mini0505.json), an ipuz file or an Across Lite .puz file",
    bench_setting="GPT-4 on ToT's 20 minis, mini0505.json 0:100:5; letters / words / games %",
)
