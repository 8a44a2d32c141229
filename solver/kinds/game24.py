"""The Game of 24: four (or more) numbers, + - * /, make the target."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.kinds.roles import GAME24
from solver.kinds.spec import KindSpec


def _hand(header: Mapping[str, Any]) -> Any:
    from puzzles.game24 import Hand

    target = header.get("target", 24)
    if not isinstance(target, int) or isinstance(target, bool):
        raise ValueError(f"its target {target!r} is not a whole number")
    return Hand.parse(str(header.get("puzzle", "")), target)


def _header(hand: Any) -> dict[str, Any]:
    return {"puzzle": str(hand), "target": hand.target}


def _parse(text: str) -> Any:
    from puzzles.game24 import Hand

    return Hand.parse(text)


def _generate(seed: int) -> Any:
    import random

    from puzzles.game24.catalogue import catalogue

    return random.Random(seed).choice([e for e in catalogue() if e.solvable]).hand


KIND = KindSpec(
    name="game24",
    label="Game of 24",
    cli="24",
    aliases=("game24", "gameof24"),
    order=10,
    roles=GAME24,
    domain="solver.domains.game24:Game24Domain",
    player="solver.model.offline.game24:Game24Player",
    player_last=True,
    read_header=_hand,
    header=_header,
    parse=_parse,
    generate=_generate,
    bench_setting="GPT-4 on ToT's 100 hard games, ranks 901-1000",
    levels=("easy", "medium", "hard", "expert"),
    own="4 7 8 8, or 1 2 3 4 5 -> 10",
    state="numbers left",
)
