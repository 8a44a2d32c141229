"""The offline engine's crossword player, by what it does with what a prompt says.

The mini is generated seed 5 (rows ACRES / TROLL / TABOO / INEPT / CEDES). Each test sends the
prompt a method sends and reads the reply as the method does; where the player draws at
random, a test asks for a rule that holds on every seed or a clear majority.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter

import pytest

from puzzles.crossword import generate
from solver.domains.crossword import CrosswordDomain
from solver.model import Call, Message, ModelError, Sampling
from solver.model.offline import OfflineModel
from solver.model.offline.crossword import (
    CrosswordPlayer,
    clue_candidates,
    is_known_word,
    pick_rank,
    read_puzzle,
    say_confidence,
)
from solver.roles import Purpose, Role
from tests.solver.offline_calls import reply

ROWS = ["ACRES", "TROLL", "TABOO", "INEPT", "CEDES"]


@pytest.fixture(scope="module")
def domain() -> CrosswordDomain:
    return CrosswordDomain(generate(5))


# ---------------------------------------------------------------- sampling and confidence


def test_a_warm_draw_between_two_words_sometimes_takes_the_second() -> None:
    rng = random.Random(1)
    warm = Counter(pick_rank(2, rng, 1.0) for _ in range(200))
    assert warm[0] > warm[1] > 20, warm  # the first is likelier, the second is drawn too
    assert {pick_rank(1, rng, 1.0) for _ in range(50)} == {0}
    assert {pick_rank(5, rng, 0.0) for _ in range(50)} == {0}  # cold: always the best
    assert {pick_rank(5, rng, 1.0, top_p=0.1) for _ in range(50)} == {0}  # a tight nucleus
    # Warm, the best word carries 81 % of the weight: a nucleus of 0.9 keeps the best two.
    nucleus = Counter(pick_rank(6, rng, 1.0, top_p=0.9) for _ in range(400))
    assert set(nucleus) == {0, 1} and nucleus[1] >= 30, nucleus


@pytest.mark.parametrize(
    ("scores", "index", "said"),
    [
        ((12.5, 5.0), 0, "certain"),  # far ahead of the next, and a strong match
        ((12.0, 5.0), 0, "high"),  # far ahead, not strong enough for certain
        ((1.0, 0.95), 0, "medium"),  # barely ahead of a weak second
        ((1.0, 0.0), 0, "high"),  # the only word that matches at all
        ((10.0, 8.0), 1, "medium"),  # a close second
        ((10.0, 5.0), 1, "low"),  # a distant second
        ((10.0, 0.0), 1, "low"),  # no match at all
        ((0.0, 0.0), 0, "low"),  # the first, but nothing matches the clue
        ((1.1,), 0, "high"),  # the only word that fits, however weak its match
        ((2.0, 1.9), 0, "medium"),  # barely ahead of the next (by a twentieth)
        ((10.0, 8.0), 0, "high"),  # a quarter ahead of the next
    ],
)
def test_its_confidence_follows_the_margin_over_the_next_word(
    scores: tuple[float, ...], index: int, said: str
) -> None:
    cands = list(zip(("FIRST", "OTHER"), scores, strict=False))
    rng = random.Random(3)
    levels = Counter(say_confidence(cands, index, rng) for _ in range(100))
    assert levels.most_common(1)[0][0] == said and levels[said] >= 70, levels


# ---------------------------------------------------------------- filling the grid


def test_the_better_scored_word_wins_a_shared_cell(domain: CrosswordDomain) -> None:
    text = "\n".join(m.content for m in domain.prompt(Role.COT))
    for h1, v1, cell in ((5.0, 1.0, "A"), (1.0, 5.0, "B")):
        puzzle = read_puzzle(text)
        assert puzzle is not None
        CrosswordPlayer()._resolve(puzzle, {"h1": ("AAAAA", h1), "v1": ("BBBBB", v1)})
        assert puzzle.board[0][0] == cell, (h1, v1, puzzle.rows())


def test_a_tight_nucleus_makes_every_step_the_same(domain: CrosswordDomain) -> None:
    prompt = domain.prompt(Role.STEP, experience="", chain=[])

    def steps(top_p: float) -> set[str]:
        return {reply("bot_step", prompt, s, 1.0, top_p).split(",")[0] for s in range(20)}

    assert len(steps(0.1)) == 1
    assert len(steps(1.0)) >= 3


def test_every_evaluation_carries_a_score_the_method_reads(domain: CrosswordDomain) -> None:
    clue = "Extensive landed property"
    ranked = [w for w, _ in clue_candidates(clue, "_____")]
    further = next(w for w in ranked[3:] if is_known_word(w))  # a real word, not among the best
    for word in ("ACRES", further, "QXZJK"):
        prompt = domain.prompt(Role.EVALUATE, chain=[], step=f"h1. {word}")
        for seed in range(20):
            text = reply("bot_evaluate", prompt, seed)
            assert domain.parse_score(text) is not None, text


def test_the_analysis_recommends_right_words_and_says_how_much_is_filled(
    domain: CrosswordDomain,
) -> None:
    two = domain.prompt(Role.ANALYZE, chain=["h1. ACRES", "h2. TROLL"])
    for seed in range(20):
        text = reply("bot_feedback", two, seed)
        assert "fills 2 of 10 clues" in text and "no conflict found" in text, text
        feedback = domain.parse_feedback(text, 2)
        assert feedback.verdicts == ("recommend", "recommend"), text
    chain = [f"h{i}. {w}" for i, w in enumerate(ROWS, 1)]
    whole = reply("bot_feedback", domain.prompt(Role.ANALYZE, chain=chain), 1)
    assert "fills the whole grid" in whole, whole


# ---------------------------------------------------------------- IoT


def test_the_answerer_rewrites_only_the_cells_its_guide_questioned(
    domain: CrosswordDomain,
) -> None:
    grid = "/".join(ROWS)
    said = json.dumps({"explanation": "I filled it.", "answer": grid, "final": False})
    turns = [domain.turn("Begin.", domain.parse_reply(said))]
    guidance = "Rethink these: h2 and v1."
    prompt = domain.prompt(Role.RESPOND, turns=turns, guidance=guidance, mode="free")
    changed = 0
    for seed in range(40):
        said = json.loads(reply("iot_answer", prompt, seed, temperature=1.0))
        rows, explanation = said["answer"].split("/"), said["explanation"]
        # A cell in a word the guide did not name keeps its letter: only the cell where h2
        # and v1 cross may change (h2 takes _ROLL, v1 A_TIC: DROLL, then ATTIC or ANTIC).
        for r in range(5):
            for c in range(5):
                if (r, c) != (1, 0):
                    assert rows[r][c] == ROWS[r][c], (seed, rows)
        changed += rows != ROWS
        # It says what changed in the end, not the word it wrote back over.
        if rows == ROWS:
            assert explanation == "I kept my grid.", explanation
        else:
            assert explanation.startswith(f"I changed h2 from TROLL to {rows[1]}"), explanation
    assert changed >= 2, changed


def test_its_stated_confidence_strays_one_level_either_way_now_and_then() -> None:
    rng = random.Random(5)
    close_second = Counter(
        say_confidence([("FIRST", 10.0), ("OTHER", 8.0)], 1, rng) for _ in range(300)
    )
    assert set(close_second) == {"low", "medium", "high"}, close_second
    assert close_second["medium"] >= 200, close_second
    high = Counter(say_confidence([("FIRST", 12.0), ("OTHER", 5.0)], 0, rng) for _ in range(300))
    assert set(high) == {"medium", "high", "certain"}, high  # one level, never two
    far = [("FIRST", 10.0), ("OTHER", 0.0)]
    no_match = Counter(say_confidence(far, 1, rng) for _ in range(300))
    assert set(no_match) == {"low", "medium"} and no_match["low"] >= 250, no_match


def test_a_board_with_rows_of_different_lengths_is_not_read(domain: CrosswordDomain) -> None:
    prompt = domain.prompt(Role.COT)
    text = prompt[-1].content.replace("Board:\n_ _ _ _ _\n", "Board:\n_ _ _ _\n", 1)
    assert text != prompt[-1].content
    call = Call(Purpose.COT, (Message("user", text),), Sampling(0.7, 1.0, 1, 600), {})
    with pytest.raises(ModelError) as info:
        asyncio.run(OfflineModel(seed=1).generate(call))
    assert info.value.kind == "bad_request"
    assert info.value.message == "the offline engine cannot read this crossword prompt's board"


def test_the_guide_quotes_the_clue_a_doubtful_word_does_not_answer(
    domain: CrosswordDomain,
) -> None:
    # The right grid: v3 reads ROBED, a word the player does not rank for its clue.
    said = json.dumps({"explanation": "I filled it.", "answer": "/".join(ROWS), "final": False})
    turns = [domain.turn("Begin.", domain.parse_reply(said))]
    prompt = domain.prompt(Role.GUIDE, turns=turns, turn=2, total=5)
    texts = [domain.parse_guidance(reply("iot_guide", prompt, s)).text for s in range(10)]
    doubted = [t for t in texts if t.startswith("Rethink")]
    assert doubted, texts
    for text in doubted:
        assert "v3 reads ROBED, which does not look like an answer to 'Clad formally'" in text
