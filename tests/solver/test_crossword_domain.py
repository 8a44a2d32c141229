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
    ROLES,
    CrosswordDomain,
    WordCheck,
    parse_value,
)
from solver.domains.crossword_prompts import IO_EXAMPLE_WORDS
from solver.events import WordChecked, event_from_json, event_to_json
from solver.roles import Role
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
        "final": {"experience": "1. Reasoning chain and comments\n---\nStep 1: h1. ACRES\n---"},
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
        for m in domain.prompt(Role.STEP, experience="", chain=[("h1. ACRES", 0.9)])
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
    text = domain.prompt(Role.IO)[0].content
    assert len(text) < 5000
    junk = ("h1. " + "A" * 100_000 + "\n") * 50 + "\x00\x1b[2J" * 1000
    # Each line runs past the cap, and a word the cap cuts short is not read as written.
    assert domain.parse_steps(junk, domain.start()) == []
    assert domain.parse_answer(junk) is None or isinstance(domain.parse_answer(junk), str)
    assert domain.parse_reply(junk).answer is None or True
    assert domain.claims(junk) == []


def test_a_word_check_is_a_claim() -> None:
    check = WordCheck("h1", "ACRES", "A____", "fits", "fits A____")
    assert (check.lhs, check.rhs, check.ok) == ("h1. ACRES", "A____", True)
    assert check.exact_text == "A____"


def test_the_offline_player_drops_a_word_its_experience_rejects(domain: CrosswordDomain) -> None:
    # The entry carries the model's analysis as it wrote it ("Step 1: wrong. Advice: ...
    # Recommendation or Reject: Reject"); the engine must read the verdict there.
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
    assert feedback in rejected  # the analysis word for word: the form the engine has to read
    after = asyncio.run(first_words(rejected))
    assert after[favourite] == 0 and sum(after.values()) == 40, after
    recommended = feedback.replace("Reject\n", "Recommend\n")
    kept = asyncio.run(first_words(domain.parse_feedback(recommended, 1).entry(1, [favourite])))
    assert kept.most_common(1)[0][0] == favourite, kept  # a recommended word stays first


def test_the_prompt_names_the_clues_of_the_grid_it_shows() -> None:
    def head(crossword: Crossword) -> str:
        return CrosswordDomain(crossword).prompt(Role.IO)[-1].content.split("\n", 1)[0]

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
        domain.prompt(Role.CONDENSE, experience="")
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


# ------------------------------------------------------------------ found by a larger draw


def test_a_long_clue_is_cut_to_200_characters_with_an_ellipsis() -> None:
    solution = ("ACRES", "TROLL", "TABOO", "INEPT", "CEDES")
    clues = {f"h{i}": f"clue {i}" for i in range(1, 6)} | {
        f"v{i}": f"down {i}" for i in range(1, 6)
    }
    clues["h1"] = "word " * 100
    domain = CrosswordDomain(Crossword.from_clues(solution, clues))
    lines = domain.prompt(Role.IO)[0].content.splitlines()
    line = [ln for ln in lines if ln.startswith("h1. ")][-1]  # after the worked example's
    clue = line.removeprefix("h1. ").removesuffix(" (5)")
    assert len(clue) == 200 and clue.endswith("word…")


def test_a_word_in_quotes_is_read_whole_even_spaced_out(domain: CrosswordDomain) -> None:
    (step,) = domain.parse_steps('h1. "A C R E S"', domain.start())
    assert step.word == "ACRES"


def test_a_line_of_one_token_that_is_no_row_does_not_start_the_grid(
    domain: CrosswordDomain,
) -> None:
    assert domain.parse_answer("Right:\nACRES\nTROLL\nTABOO\nINEPT\nCEDES") == (
        "ACRES/TROLL/TABOO/INEPT/CEDES"
    )
    # Nor does a word of two letters in a grid five wide.
    assert domain.parse_answer("Output:\nOK\nACRES\nTROLL\nTABOO\nINEPT\nCEDES") == (
        "ACRES/TROLL/TABOO/INEPT/CEDES"
    )


def blocked() -> CrosswordDomain:
    solution = ("CAT#DOG", "ARE#ONE", "BET#TEN")
    grid = Grid.parse(solution)
    return CrosswordDomain(
        Crossword.from_clues(solution, {s.label: f"clue {s.label}" for s in grid.slots})
    )


def test_a_row_split_at_its_block_may_hold_unknown_cells() -> None:
    answer = blocked().parse_answer("Output:\nCAT ???\nARE ONE\nBET TEN")
    assert answer == "CAT#___/ARE#ONE/BET#TEN"


def test_a_grid_with_blocks_and_no_letter_is_no_answer() -> None:
    assert blocked().parse_answer("Output:\n___#___\n___#___\n___#___") is None


def test_of_several_grids_written_without_a_label_the_last_is_the_answer(
    domain: CrosswordDomain,
) -> None:
    text = "SLOPE/TRUMP/ADORE/BLAME/CRANE\n\nACRES/TROLL/TABOO/INEPT/CEDES"
    assert domain.parse_answer(text) == "ACRES/TROLL/TABOO/INEPT/CEDES"


def test_possible_reads_as_maybe() -> None:
    assert parse_value("A word might fit.\npossible") == "maybe"
    assert parse_value("Certain.") == "sure" and parse_value("unlikely") == "impossible"


def test_the_public_context_shows_the_grid_board_and_words_never_the_solution(
    domain: CrosswordDomain,
) -> None:
    (step,) = domain.parse_steps("h1. ACRES", domain.start())
    assert step.state is not None
    assert domain.context(step.state, turn=2) == {
        "kind": "crossword",
        "title": domain.title,
        "grid": list(domain.grid.rows),
        "board": ["ACRES", "_____", "_____", "_____", "_____"],
        "words": ["h1. ACRES"],
        "turn": 2,
    }


def test_replies_are_read_exactly_as_json_or_as_prose(domain: CrosswordDomain) -> None:
    reply = domain.parse_reply(
        '{"reasoning": "Rows  first,\\nthen columns.", "answer": "ACRES\\nTROLL", '
        '"doubts": ["v2"], "answer_to_query": true}'
    )
    assert reply == Reply(
        "Rows first, then columns.", "ACRES/TROLL/_____/_____/_____", '["v2"]', True
    )
    prose = domain.parse_reply("I am sure.\nOutput:\nACRES\nTROLL\nFinal: yes")
    assert prose == Reply(
        "I am sure. Output: ACRES TROLL Final: yes",
        "ACRES/TROLL/_____/_____/_____",
        "",
        True,
        parsed=False,
    )
    assert domain.parse_reply("") == Reply("", None, "", False, parsed=False)
    assert domain.parse_reply("Output:\nACRES").final is False


def test_a_prose_line_or_a_repeated_word_does_not_end_the_reading_of_steps(
    domain: CrosswordDomain,
) -> None:
    text = "Here are my guesses:\nh1. acres\nh1. acres\nv2. crane\nAll done."
    steps = domain.parse_steps(text, domain.start())
    assert [(s.name, s.word) for s in steps] == [("h1", "ACRES"), ("v2", "CRANE")]


def test_a_missing_roles_message_names_the_role_and_the_kind(domain: CrosswordDomain) -> None:
    with pytest.raises(RolesMissing) as info:
        domain.prompt(Role.CONDENSE, experience="")
    assert str(info.value) == (
        "a method cannot solve crossword puzzles yet: the crossword domain has no condense prompt"
    )


def test_the_io_prompt_ends_where_the_grid_is_to_be_written(domain: CrosswordDomain) -> None:
    assert domain.prompt(Role.IO)[-1].content.endswith("Board:\n" + "_ _ _ _ _\n" * 5 + "Output:\n")


def test_iots_two_roles_each_have_their_own_system_message(domain: CrosswordDomain) -> None:
    from solver.domains.crossword_prompts import IOT_ANSWER_SYSTEM, IOT_GUIDE_SYSTEM

    guide = domain.prompt(Role.GUIDE, turns=(), turn=1, total=5)
    respond = domain.prompt(Role.RESPOND, turns=(), guidance="Start.", mode="free")
    assert [(m.role, m.content) for m in guide[:1]] == [("system", IOT_GUIDE_SYSTEM)]
    assert [(m.role, m.content) for m in respond[:1]] == [("system", IOT_ANSWER_SYSTEM)]
    assert [m.role for m in guide] == [m.role for m in respond] == ["system", "user"]


def test_a_step_prompt_passes_over_a_chain_line_it_cannot_read(domain: CrosswordDomain) -> None:
    chain = [("I am not sure yet", 0.1), ("h1. ACRES", 0.9)]
    (msg,) = [
        m.content for m in domain.prompt(Role.STEP, experience="", chain=chain) if m.role == "user"
    ]
    assert "Current board:\nA C R E S\n_ _ _ _ _" in msg


def test_replaying_the_whole_solution_solves_the_puzzle(domain: CrosswordDomain) -> None:
    state, states = domain.start(), []
    for name, word in zip(
        domain.names, ["ACRES", "TROLL", "TABOO", "INEPT", "CEDES"], strict=False
    ):
        step = domain.write(state, name, word)
        assert step.state is not None
        state = step.state
        states.append(state)
    end, _reason, ok = domain.replay(states)
    assert end == state and ok


def test_each_kind_of_invalid_word_names_its_clue_and_what_is_wrong(
    domain: CrosswordDomain,
) -> None:
    start = domain.start()
    unknown = domain.write(start, "h9", "ACRES")
    assert (unknown.name, unknown.claim.pattern, unknown.claim.status) == ("h9", "", "invalid")
    empty = domain.write(start, "h1", "")
    assert empty.name == "h1" and empty.problem == "h1 takes 5 letters; (nothing) has 0"
    assert empty.claim == WordCheck("h1", "", "_____", "invalid", empty.problem)
    short = domain.write(start, "h3", "TABO")
    assert short.name == "h3" and short.problem == "h3 takes 5 letters; TABO has 4"
    first = domain.write(start, "h1", "ACRES").state
    assert first is not None
    again = domain.write(first, "h1", "ACRES")
    assert again.name == "h1" and again.state is None
    assert again.claim == WordCheck("h1", "ACRES", "ACRES", "invalid", "h1 is already filled")


# ------------------------------------------------------------------ found by the whole run


def test_an_iot_turn_carries_the_guidance_and_the_whole_reply(domain: CrosswordDomain) -> None:
    from solver.domains.dialogue import Turn

    reply = Reply("rows first", "ACRES/TROLL/TABOO/INEPT/CEDES", "v2", True)
    assert domain.turn("Check v2.", reply) == Turn(
        "Check v2.", "rows first", "ACRES/TROLL/TABOO/INEPT/CEDES", "v2", True
    )


def test_a_replay_that_breaks_off_is_not_solved(domain: CrosswordDomain) -> None:
    a = domain.parse_steps("h1. ACRES", domain.start())[0].state
    bad = domain.parse_steps("v1. TRUST", domain.start())[0].state
    assert a is not None and bad is not None
    assert domain.replay([a, bad])[2] is False
    assert domain.replay([domain.start()]) == (None, "step 1 is empty", False)


def test_a_text_that_names_no_clue_is_like_no_step(domain: CrosswordDomain) -> None:
    assert domain.similarity("h1. ACRES", "no clue here") == 0.0
    assert domain.similarity("no clue here", "h1. ACRES") == 0.0


def test_steps_and_proposals_stop_at_their_limit(domain: CrosswordDomain) -> None:
    words = ["ACRES", "TROLL", "TABOO", "INEPT", "CEDES"]
    text = "\n".join(
        f"h{i}. {w[:j]}{'X' * (5 - j)}" for i, w in enumerate(words, 1) for j in range(5)
    )
    assert len(domain.parse_steps(text, domain.start())) == 25
    assert len(domain.parse_steps(text, domain.start(), limit=1)) == 1
    many = "\n".join(f"h1. {chr(65 + i)}CRES" for i in range(26)) + "\n" + text
    assert len(domain.proposals(many, domain.start())) == 32
    assert len(domain.proposals(many, domain.start(), limit=3)) == 3


def test_a_step_keeps_its_line_and_a_fitting_word_with_a_confidence_has_no_problem(
    domain: CrosswordDomain,
) -> None:
    (step,) = domain.parse_steps("**h1.** acres (high)", domain.start())
    assert (step.text, step.problem, step.confidence) == ("h1. acres (high)", "", "high")


def test_a_line_of_exactly_the_cap_is_read_whole(domain: CrosswordDomain) -> None:
    line = "h5. " + ("so " * 200)[: 400 - 4 - len("-> CEDES")] + "-> CEDES"
    assert len(line) == 400
    (step,) = domain.parse_steps(line, domain.start())
    assert step.word == "CEDES"


def test_a_json_reply_reads_the_grid_answer_and_doubts_under_their_other_names(
    domain: CrosswordDomain,
) -> None:
    reply = domain.parse_reply('{"grid": "ACRES\\nTROLL", "uncertainty": "v2  and   v3"}')
    assert (reply.answer, reply.uncertainty) == ("ACRES/TROLL/_____/_____/_____", "v2 and v3")
    reply = domain.parse_reply('{"response": "ACRES\\nTROLL", "doubts": "v4"}')
    assert (reply.answer, reply.uncertainty) == ("ACRES/TROLL/_____/_____/_____", "v4")
    reply = domain.parse_reply('{"explanation": "still thinking"}')
    assert (reply.explanation, reply.answer) == ("still thinking", None)


def test_parsers_given_no_text_at_all_read_nothing(domain: CrosswordDomain) -> None:
    nothing: Any = None
    assert domain.parse_answer(nothing) is None
    assert domain.parse_reply(nothing) == Reply("", None, "", False, parsed=False)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # Rows joined by "/" need not give every row.
        ("ACRES/TROLL/TABOO/INEPT", "ACRES/TROLL/TABOO/INEPT/_____"),
        # An X at either end of such a line is a letter, not a mark to strip.
        ("XENON/AXXXA/BOXES/EXTRA/RELAX", "XENON/AXXXA/BOXES/EXTRA/RELAX"),
        # Rows, then a grid on one line: the last grid written is the answer.
        ("ACRES\nTROLL\nSLOPE/TRUMP/ADORE/BLAME/CRANE", "SLOPE/TRUMP/ADORE/BLAME/CRANE"),
        ("ACRES\nTROLL\nslopetrumpadoreblamecrane", "SLOPE/TRUMP/ADORE/BLAME/CRANE"),
        # A grid on one line, then rows: the rows are the last grid.
        ("SLOPE/TRUMP/ADORE/BLAME/CRANE\nACRES\nTROLL", "ACRES/TROLL/_____/_____/_____"),
        ("slopetrumpadoreblamecrane\nACRES\nTROLL", "ACRES/TROLL/_____/_____/_____"),
        # Rows broken by prose, then more rows: the last run of rows.
        ("ACRES\nTROLL\nand then\nTABOO\nINEPT", "TABOO/INEPT/_____/_____/_____"),
        # After "Output:", the first grid: a grid on one line, or a run of rows that prose
        # ends, whatever follows; even when a grid on one line follows its rows.
        ("Output:\nacrestrolltabooineptcedes\nSLOPE\nTRUMP", "ACRES/TROLL/TABOO/INEPT/CEDES"),
        ("Output:\nACRES\nTROLL\nwhich I like\nSLOPE\nTRUMP", "ACRES/TROLL/_____/_____/_____"),
        ("Output:\nACRES\nTROLL\nSLOPE/TRUMP/ADORE/BLAME/CRANE", "ACRES/TROLL/_____/_____/_____"),
    ],
)
def test_grids_in_several_pieces_are_read_as_a_person_would(
    domain: CrosswordDomain, text: str, answer: str
) -> None:
    assert domain.parse_answer(text) == answer


def test_a_small_grid_may_be_given_as_two_rows_joined_by_a_slash() -> None:
    assert blocked().parse_answer("CAT#DOG/ARE#ONE") == "CAT#DOG/ARE#ONE/___#___"


def test_a_reply_is_kept_to_4000_characters_and_its_doubts_to_600(
    domain: CrosswordDomain,
) -> None:
    prose = domain.parse_reply("word " * 1000)
    assert len(prose.explanation) == 4000 and prose.answer is None
    data = json.dumps({"explanation": "word " * 1000, "uncertainty": "v2 " * 300, "answer": "?"})
    reply = domain.parse_reply(data)
    assert (len(reply.explanation), len(reply.uncertainty)) == (4000, 600)
