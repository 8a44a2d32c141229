"""The mini crossword domain: exact word checks (✓ fits / ✗ conflicts with the crossing
letter), tolerant parsers of steps, values and grids, ToT's three measures, prompts that never
show the solution, and bad input that never raises."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest

from puzzles.crossword import Crossword, Grid, generate
from solver.domains.base import Domain, Proposing, Reply, RolesMissing
from solver.domains.crossword import (
    IO_EXAMPLE_WORDS,
    ROLES,
    CrosswordDomain,
    WordCheck,
    parse_value,
)
from solver.events import WordChecked, event_from_json, event_to_json
from tests.solver.pinning import first_bot_steps

SEED = 5  # ACRES / TROLL / TABOO / INEPT / CEDES


@pytest.fixture(scope="module")
def domain() -> CrosswordDomain:
    return CrosswordDomain(generate(SEED))


def test_it_is_a_domain_with_the_depth_first_extras(domain: CrosswordDomain) -> None:
    assert isinstance(domain, Domain) and isinstance(domain, Proposing)
    assert domain.roles == ROLES and "clue_value" in ROLES
    assert list(domain.names) == [f"h{i}" for i in range(1, 6)] + [f"v{i}" for i in range(1, 6)]
    assert domain.depth() == 10


def test_the_worked_example_is_a_real_grid() -> None:
    rows = [w for n, w in IO_EXAMPLE_WORDS if n[0] == "h"]
    downs = ["".join(r[i] for r in rows) for i in range(5)]
    assert downs == [w for n, w in IO_EXAMPLE_WORDS if n[0] == "v"]


@pytest.mark.parametrize(
    ("line", "name", "word", "confidence"),
    [
        ("h1. acres (high)", "h1", "ACRES", "high"),
        ("**H2:** TROLL", "h2", "TROLL", ""),
        ("- v3. Some clue: r o b e d (certain)", "v3", "ROBED", "certain"),
        ("2 Down: C R A N E", "v2", "CRANE", ""),
        ("1A = acres", "h1", "ACRES", ""),
        ("3. h5 -> cedes (medium)", "h5", "CEDES", "medium"),
        ("h4. INEPT, Evaluation score: 0.9", "h4", "INEPT", ""),
    ],
)
def test_steps_are_read_in_the_forms_models_write(
    domain: CrosswordDomain, line: str, name: str, word: str, confidence: str
) -> None:
    (step,) = domain.parse_steps(line, domain.start())
    assert (step.name, step.word, step.confidence) == (name, word, confidence)
    assert step.valid and step.claim.ok and step.claim.status == "fits"


def test_every_word_is_checked_against_its_crossings(domain: CrosswordDomain) -> None:
    state = domain.start()
    (first,) = domain.parse_steps("h1. ACRES", state)
    assert first.state is not None
    (clash,) = domain.parse_steps("v2. TRUST", first.state)
    assert not clash.valid and clash.state is None
    assert clash.claim.status == "conflicts" and clash.claim.crossing == "h1: C"
    assert "row 1, column 2 holds C, not T" in clash.claim.reason
    event = clash.claim.as_event("n3")
    assert isinstance(event, WordChecked) and event.mark == "✗" and not event.ok
    assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
    (fits,) = domain.parse_steps("v2. CRANE", first.state)
    assert fits.valid and fits.claim.pattern == "C____" and fits.claim.as_event(None).mark == "✓"
    short = domain.parse_steps("h3. TABO", state)[0]
    assert short.claim.status == "invalid" and "takes 5 letters" in short.problem
    unknown = domain.parse_steps("h9. TABOO", state)
    assert unknown and "no clue h9" in unknown[0].problem
    again = domain.parse_steps("h1. ACRES", first.state)[0]
    assert "already filled" in again.problem


@pytest.mark.parametrize(
    "reply",
    [
        "Output:\nA C R E S\nT R O L L\nT A B O O\nI N E P T\nC E D E S\n",
        "Here you go.\n\n1. acres\n2. troll\n3. taboo\n4. inept\n5. cedes\n\nGood luck!",
        "| A | C | R | E | S |\n|T|R|O|L|L|\n|T|A|B|O|O|\n|I|N|E|P|T|\n|C|E|D|E|S|",
        "Row 1: ACRES\nRow 2: TROLL\nRow 3: TABOO\nRow 4: INEPT\nRow 5: CEDES",
        "ACRES/TROLL/TABOO/INEPT/CEDES",
        "acrestrolltabooineptcedes",
        "```\nACRESX\nTROLL\nTABOO\nINEPT\nCEDES\n```",
    ],
)
def test_grids_are_read_however_they_are_written(domain: CrosswordDomain, reply: str) -> None:
    assert domain.parse_answer(reply) == "ACRES/TROLL/TABOO/INEPT/CEDES"
    assert domain.check(domain.parse_answer(reply)).ok


def test_short_grids_count_what_they_have(domain: CrosswordDomain) -> None:
    answer = domain.parse_answer("Output:\nA C R\nT R O L L\n")
    assert answer == "ACR__/TROLL/_____/_____/_____"
    score = domain.check(answer)
    assert not score.ok and score.letter == pytest.approx(8 / 25)
    assert domain.measures(answer) == {"letter": 0.32, "word": 0.1, "game": 0.0}
    assert domain.measures("ACRES/TROLL/TABOO/INEPT/CEDES")["game"] == 1.0
    for nothing in (None, "", "I have no idea.", "{}"):
        assert not domain.check(nothing).ok
        assert domain.parse_answer(nothing or "") is None


def test_values_are_read_from_the_last_labelled_line() -> None:
    assert parse_value("'wrong' fits.\nsure") == "sure"
    assert parse_value("Might be a word.\n**Likely**") == "maybe"
    assert parse_value("No word starts zq.\nImpossible.") == "impossible"
    assert parse_value("no idea") is None


def test_prompts_never_show_the_solution(domain: CrosswordDomain) -> None:
    state = domain.start()
    (step,) = domain.parse_steps("h1. ACRES", state)
    assert step.state is not None
    args: dict[str, dict[str, Any]] = {
        "io": {},
        "cot": {},
        "propose": {"state": step.state},
        "clue_value": {"state": step.state, "part": "v2"},
        "step": {"experience": "", "chain": [("h1. ACRES", 0.9)]},
        "evaluate": {"chain": [("h1. ACRES", 0.9)], "step": "v2. CRANE"},
        "analyze": {"chain": ["h1. ACRES"]},
        "guide": {"turns": (), "turn": 1, "total": 5},
        "respond": {"turns": (), "guidance": "Start.", "mode": "free"},
    }
    for role in ROLES:
        text = "\n".join(m.content for m in domain.prompt(role, **args[role]))
        assert "crossword" in text.lower()
        for word in ("TROLL", "TABOO", "INEPT", "CEDES"):
            assert word not in text.upper().replace(" ", "").split("\n"), role
        assert "TROLL/TABOO" not in text


def test_the_step_prompt_shows_the_board_the_chain_builds(domain: CrosswordDomain) -> None:
    (msg,) = [
        m.content
        for m in domain.prompt("step", experience="", chain=[("h1. ACRES", 0.9)])
        if m.role == "user"
    ]
    assert "Current board:\nA C R E S\n_ _ _ _ _" in msg
    assert "v2. " in msg and ": C _ _ _ _" in msg


def test_replay_checks_a_stitched_chain(domain: CrosswordDomain) -> None:
    s0 = domain.start()
    a = domain.parse_steps("h1. ACRES", s0)[0].state
    bad = domain.parse_steps("v1. TRUST", s0)[0].state
    assert a is not None and bad is not None
    state, reason, ok = domain.replay([a])
    assert state is not None and not ok and "3/10 words" not in reason
    state, reason, ok = domain.replay([a, bad])
    assert state is None and "step 2 does not follow" in reason and "holds A, not T" in reason
    assert domain.similarity("h1. ACRES", "h1. ACRES") == 1.0
    assert domain.similarity("h1. ACRES", "h1. ACHES") == 0.5
    assert domain.similarity("h1. ACRES", "v1. ATTIC") == 0.0


def test_iot_replies_give_the_grid_as_text_or_a_list(domain: CrosswordDomain) -> None:
    reply = domain.parse_reply(
        'Sure: {"explanation": "x", "answer": ["acres", "troll", "taboo", "inept", "cedes"], '
        '"final": "yes"}'
    )
    assert reply.answer == "ACRES/TROLL/TABOO/INEPT/CEDES" and reply.final and reply.parsed
    reply = domain.parse_reply('{"reasoning": "r", "crossword_solution": "ACRES\\nTROLL"}')
    assert reply.answer == "ACRES/TROLL/_____/_____/_____"
    reply = domain.parse_reply("No JSON here.\nOutput:\nACRES\nTROLL")
    assert not reply.parsed and reply.answer == "ACRES/TROLL/_____/_____/_____"
    assert domain.parse_reply("").answer is None


def test_blocked_grids_use_numbered_names_and_open_cells() -> None:
    solution = ("CAT#DOG", "ARE#ONE", "BET#TEN")
    grid = Grid.parse(solution)
    crossword = Crossword.from_clues(solution, {s.label: f"clue {s.label}" for s in grid.slots})
    domain = CrosswordDomain(crossword)
    assert all(n[-1] in "AD" for n in domain.names) and "1A" in domain.names
    # Rows written without their blocks land in the open cells.
    answer = domain.parse_answer("Output:\nCATDOG\nARE ONE\nBETTEN")
    assert answer == "CAT#DOG/ARE#ONE/BET#TEN" and domain.check(answer).ok
    (step,) = domain.parse_steps("1 Across: cat", domain.start())
    assert step.valid and step.name == "1A"
    assert step.state is not None
    (clash,) = domain.parse_steps("1D. DOG", step.state)
    assert clash.claim.crossing == "1A: C"


def test_hostile_text_and_clues_never_raise_and_stay_bounded() -> None:
    grid = Grid.full(5)
    assert grid.rows
    solution = ("ACRES", "TROLL", "TABOO", "INEPT", "CEDES")
    clues = {f"h{i}": "x" * 1_000_000 if i == 1 else f"clue {i}" for i in range(1, 6)}
    clues |= {f"v{i}": f"down {i}" for i in range(1, 6)}
    domain = CrosswordDomain(Crossword.from_clues(solution, clues))
    text = domain.prompt("io")[0].content
    assert len(text) < 5000
    junk = ("h1. " + "A" * 100_000 + "\n") * 50 + "\x00\x1b[2J" * 1000
    assert domain.parse_steps(junk, domain.start())[0].problem
    assert domain.parse_answer(junk) is None or isinstance(domain.parse_answer(junk), str)
    assert domain.parse_reply(junk).answer is None or True
    assert domain.claims(junk) == []


def test_a_word_check_is_a_claim() -> None:
    check = WordCheck("h1", "ACRES", "A____", "fits", "fits A____")
    assert (check.lhs, check.rhs, check.ok) == ("h1. ACRES", "A____", True)
    assert check.exact_text == "A____"


def test_the_offline_player_drops_a_word_its_experience_rejects(domain: CrosswordDomain) -> None:
    # BoT writes the verdict after the step's error report ("Step 1: Error report: ...
    # Recommendation or Reject: reject"); the engine must read it there, from the prompt.
    async def first_words(experience: str) -> Counter[str]:
        return await first_bot_steps(domain, experience, 40)

    plain = asyncio.run(first_words(""))
    favourite, times = plain.most_common(1)[0]
    assert times >= 10, plain
    feedback = (
        "Analysis Report: the word does not fit its crossings.\n"
        "Step 1: wrong. Advice: try another word. Recommendation or Reject: Reject\n"
        "Confidence score: 0.3"
    )
    rejected = domain.parse_feedback(feedback, 1).entry(1, [favourite])
    assert "Error report" in rejected  # the form the engine has to read
    after = asyncio.run(first_words(rejected))
    assert after[favourite] == 0 and sum(after.values()) == 40, after
    recommended = feedback.replace("Reject\n", "Recommend\n")
    kept = asyncio.run(first_words(domain.parse_feedback(recommended, 1).entry(1, [favourite])))
    assert kept.most_common(1)[0][0] == favourite, kept  # a recommended word stays first


def test_the_prompt_names_the_clues_of_the_grid_it_shows() -> None:
    def head(crossword: Crossword) -> str:
        return CrosswordDomain(crossword).prompt("io")[-1].content.split("\n", 1)[0]

    assert "(h1-h5 are the rows (across), v1-v5 the columns (down))." in head(generate(SEED))
    # A 4 x 4 grid has four rows and four columns, not ToT's five.
    small = head(generate(1, pattern=["...#", "....", "....", "#..."]))
    assert "(h1-h4 are the rows (across), v1-v4 the columns (down); # is a black square)" in small
    solution = ("CAT#DOG", "ARE#ONE", "BET#TEN")
    grid = Grid.parse(solution)
    numbered = Crossword.from_clues(solution, {s.label: f"clue {s.label}" for s in grid.slots})
    assert "(clues are named by number and A (across) or D (down); # is a black square)" in head(
        numbered
    )


def test_a_word_for_a_clue_the_grid_has_not_is_invalid_and_says_which_clues_it_has(
    domain: CrosswordDomain,
) -> None:
    step = domain.write(domain.start(), "h9", "ACRES")
    assert step.state is None and step.claim.status == "invalid"
    assert (step.claim.name, step.claim.word) == ("h9", "ACRES")
    assert step.claim.reason == (
        "there is no clue h9 (the clues are h1, h2, h3, h4, h5, v1, v2, v3, v4, v5)"
    )


def test_a_row_that_ends_or_starts_with_x_keeps_its_x(domain: CrosswordDomain) -> None:
    answer = domain.parse_answer("Output:\nRELAX\nXENON\nAXXXA\nBOXES\nEXTRA")
    assert answer == "RELAX/XENON/AXXXA/BOXES/EXTRA"


def test_a_json_reply_without_an_explanation_keeps_its_grid(domain: CrosswordDomain) -> None:
    reply = domain.parse_reply('{"answer": "ACRES/TROLL/TABOO/INEPT/CEDES", "final": true}')
    assert reply == Reply("", "ACRES/TROLL/TABOO/INEPT/CEDES", "", True)


def test_a_prompt_for_a_role_the_domain_has_not_names_it(domain: CrosswordDomain) -> None:
    with pytest.raises(RolesMissing) as info:
        domain.prompt("condense", experience="")
    assert info.value.missing == ("condense",) and "no condense prompt" in str(info.value)


def test_the_grid_right_after_output_wins_over_rows_written_later(
    domain: CrosswordDomain,
) -> None:
    text = (
        "Output: ACRES/TROLL/TABOO/INEPT/CEDES\n"
        "An earlier attempt, for the record:\n"
        "SLOPE/TRUMP/ADORE/BLAME/CRANE"
    )
    assert domain.parse_answer(text) == "ACRES/TROLL/TABOO/INEPT/CEDES"
