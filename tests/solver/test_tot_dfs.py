"""ToT's depth-first search on mini crosswords (pushes, prunes with the clue that made a state
impossible, backtracks, the step limit, the deepest-state output), and every method on
crosswords end to end: on the offline engine (which reads only the prompt) and over HTTP.

ToT-DFS pinned event by event and call by call on one mini crossword: what each call asks
(role, prompt, sampling, context), how proposals are scored over samples and ordered, which
proposals are dropped (a sample cut at the token limit, a word that does not fit), how clues
are valued (once per prompt; a cut or unreadable verdict reads as maybe), when a state is
pruned and by which clue, how the per-state cap, the step limit and backtracking work, and
which state is the answer; so that a change to any of these is seen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pytest

from bench.fakeserver import FakeServer
from puzzles.crossword import generate, parse_tot
from puzzles.game24 import Hand
from solver.domains.crossword import CrosswordDomain
from solver.domains.game24 import Game24Domain
from solver.events import (
    Backtracked,
    ErrorRaised,
    Event,
    IterationStarted,
    LeafReached,
    ParseFailed,
    RunFinished,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
    WordChecked,
)
from solver.methods import make_method, solve
from solver.methods.tot_dfs import ToTDFS, ToTDFSConfig
from solver.model import (
    Call,
    Generation,
    Message,
    ModelError,
    Sampling,
    ScriptedModel,
    TokenCallback,
)
from solver.model.offline import OfflineModel
from solver.model.offline.crossword import CrosswordPlayer
from solver.model.openai import OpenAIModel
from solver.roles import Purpose, Role

SEED = 5  # ACRES / TROLL / TABOO / INEPT / CEDES
SMALL: dict[str, dict[str, Any]] = {
    "cot-sc": {"samples": 4, "batch": 2},
    "bot": {"iterations": 2, "trees": 2},
    "tot-dfs": {"step_limit": 30, "samples": 3},
}
METHODS = ("io", "cot", "cot-sc", "tot-dfs", "bot", "aiot", "giot")


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def user(call: Call) -> str:
    return "\n".join(m.content for m in call.messages if m.role == "user")


def scripted(call: Call) -> str:
    """Proposals by board; ACHES judged impossible for h1 (a wrong prune, as the paper saw
    GPT-4 prune 'agend')."""
    text = user(call)
    if call.purpose == "clue_value":
        return "A typo.\nimpossible" if text.rstrip().endswith(": a c h e s") else "ok\nmaybe"
    if "Current board:\n_ _ _ _ _\n_ _ _ _ _" in text:
        return "h1. aches (certain)\nh1. acres (high)\nv1. trust (low)\nh1. acre (low)"
    if "Current board:\nA C R E S\n_ _ _ _ _" in text:
        return "v2. trust (certain)\nh2. troll (high)"
    return "I see nothing more."


def run(method: Any, domain: Any, model: Any) -> tuple[RunFinished, list[Event]]:
    return asyncio.run(solve(method, domain, model, seed=0))


def test_the_search_pushes_prunes_backtracks_and_answers_with_the_deepest_state() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1))
    fin, events = run(method, domain, ScriptedModel(scripted))
    pushed = [e.text for e in of(events, ThoughtAdded)]
    assert pushed[:3] == [
        "h1. ACHES (certain, 1)",
        "h1. ACRES (high, 0.5)",
        "h2. TROLL (high, 0.5)",
    ]
    (pruned,) = of(events, ThoughtPruned)
    assert pruned.reason == "h1 judged impossible"
    assert any("h1 impossible" in s for e in of(events, ThoughtScored) for s in e.samples)
    # Wrong words are checked exactly, reported and never pushed.
    checks = of(events, WordChecked)
    assert any(c.word == "TRUST" and not c.ok and c.crossing == "h1: C" for c in checks)
    assert any(c.word == "ACRE" and not c.ok and "takes 5 letters" in c.reason for c in checks)
    assert of(events, Backtracked)
    leaves = [e.reason for e in of(events, LeafReached)]
    assert any(r.startswith("output: the deepest state (2 words") for r in leaves)
    assert fin.answer == "ACRES/TROLL/_____/_____/_____" and not fin.solved
    assert domain.measures(fin.answer) == {"letter": 0.4, "word": 0.2, "game": 0.0}


def test_the_step_limit_stops_the_search() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1, step_limit=1))
    fin, events = run(method, domain, ScriptedModel(scripted))
    assert len(of(events, ThoughtAdded)) == 1 and fin.reason == "step limit"
    assert fin.answer == "ACHES/_____/_____/_____/_____"  # the deepest, first visited


def test_without_pruning_the_impossible_state_is_searched() -> None:
    domain = CrosswordDomain(generate(SEED))
    method = ToTDFS(ToTDFSConfig(samples=1, prune=False))
    _, events = run(method, domain, ScriptedModel(scripted))
    assert not of(events, ThoughtPruned)


def test_values_are_asked_once_per_prompt() -> None:
    domain = CrosswordDomain(generate(SEED))
    model = ScriptedModel(scripted)
    run(ToTDFS(ToTDFSConfig(samples=1)), domain, model)
    prompts = [user(c) for c in model.calls if c.purpose == "clue_value"]
    assert prompts and len(prompts) == len(set(prompts))


def test_tot_dfs_on_the_game_of_24_is_a_clear_roles_error() -> None:
    fin, events = run(make_method("tot-dfs"), Game24Domain(Hand.parse("4 7 8 8")), OfflineModel())
    (error,) = of(events, ErrorRaised)
    assert error.kind == "unsupported" and fin.calls == 0
    assert "tot-dfs cannot solve game24 puzzles yet" in error.message
    assert "clue_value" in error.message


@pytest.mark.parametrize("name", METHODS)
def test_every_method_plays_crosswords_on_the_offline_engine(name: str) -> None:
    domain = CrosswordDomain(generate(SEED))
    fin, events = run(make_method(name, **SMALL.get(name, {})), domain, OfflineModel(seed=1))
    assert not of(events, ErrorRaised), of(events, ErrorRaised)
    assert fin.answer is not None and domain.parse_answer(fin.answer) == fin.answer
    measures = domain.measures(fin.answer)
    assert 0 < measures["letter"] <= 1 and fin.solved == (measures["game"] == 1.0)
    if name in ("cot", "tot-dfs", "bot"):  # the steps are checked exactly
        assert of(events, WordChecked)


def test_tot_dfs_does_well_on_generated_minis_offline() -> None:
    letters = []
    for seed in range(3):
        domain = CrosswordDomain(generate(seed))
        fin, events = run(make_method("tot-dfs"), domain, OfflineModel(seed=2))
        letters.append(domain.measures(fin.answer)["letter"])
        assert len(of(events, ThoughtAdded)) <= 100
    assert sum(letters) / len(letters) > 0.6


class ContextBlind:
    """The offline engine behind a wall: every call's ``context`` is emptied first."""

    def __init__(self, inner: OfflineModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def generate(self, call: Call, on_token: TokenCallback | None = None) -> Generation:
        return await self.inner.generate(dataclasses.replace(call, context={}), on_token)

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("name", METHODS)
def test_the_offline_crossword_player_reads_only_the_prompt(name: str) -> None:
    for seed in (1, 2):
        domain = CrosswordDomain(generate(seed))
        method = make_method(name, **SMALL.get(name, {}))
        seen, _ = run(method, domain, OfflineModel(seed=3))
        blind, _ = run(method, domain, ContextBlind(OfflineModel(seed=3)))
        assert (seen.answer, seen.calls) == (blind.answer, blind.calls)


def test_the_player_never_reads_a_solution() -> None:
    # A call whose prompt is a crossword prompt but whose context holds a different
    # "solution" gets the same reply: the player answers from the messages alone.
    domain = CrosswordDomain(generate(SEED))
    call = Call(Purpose.COT, domain.prompt(Role.COT), context={"solution": "ZZZZZ/" * 5})
    player = CrosswordPlayer()
    assert player.recognises(call)
    plain = dataclasses.replace(call, context={})
    assert player.reply(call, random.Random(1), 0) == player.reply(plain, random.Random(1), 0)
    assert not player.recognises(Call(Purpose.IO, (Message("user", "Input: 4 7 8 8"),)))


def server_reply(request: dict[str, Any], index: int) -> str:
    """The fake server answers as the offline player would, from the messages alone."""
    messages = tuple(Message(m["role"], m["content"]) for m in request["messages"])
    call = Call(cast(Purpose, ""), messages)  # a server is told no purpose
    return CrosswordPlayer().reply(call, random.Random(f"{index}|{messages[-1].content}"), 0)


@pytest.mark.parametrize("name", METHODS)
def test_every_method_plays_crosswords_over_http(name: str) -> None:
    domain = CrosswordDomain(generate(SEED))
    options = dict(SMALL.get(name, {}))
    if name == "tot-dfs":
        options["step_limit"] = 6
    with FakeServer(reply=server_reply) as server:
        model = OpenAIModel(base_url=server.url, api_key="k", model="fake-model", cache=False)
        fin, events = run(make_method(name, **options), domain, model)
        asyncio.run(model.aclose())
        assert server.chat_requests
    assert not of(events, ErrorRaised), of(events, ErrorRaised)
    assert fin.answer is not None and domain.measures(fin.answer)["letter"] > 0


def test_a_tot_file_puzzle_is_solved_from_its_clues_alone() -> None:
    crossword = generate(SEED)
    row = [[c.text for c in crossword.clues], list("".join(crossword.solution))]
    (loaded,) = parse_tot([row])
    domain = CrosswordDomain(loaded)
    fin, _ = run(make_method("tot-dfs", step_limit=40), domain, OfflineModel(seed=1))
    assert fin.answer is not None and domain.measures(fin.answer)["letter"] > 0.5


# -- each run pinned event by event and call by call -----------------------------------------------

PINNED = (
    IterationStarted,
    ThoughtAdded,
    ThoughtScored,
    ThoughtPruned,
    LeafReached,
    SolutionFound,
    Backtracked,
    ParseFailed,
)
NO_PROPOSAL = "no line of the form 'h1. word (confidence)'"
NO_LABEL = "no sure / maybe / impossible"


def domain() -> CrosswordDomain:
    return CrosswordDomain(generate(SEED))


def pinned(events: list[Event]) -> list[tuple[Any, ...]]:
    """The events that tell the search, as plain tuples without their times; a checked word
    as its node, clue, word and verdict."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if isinstance(e, WordChecked):
            out.append(("WordChecked", e.node_id, e.clue, e.word, e.ok))
        elif isinstance(e, PINNED):
            values = dataclasses.asdict(e)
            values.pop("t")
            out.append((type(e).__name__, *values.values()))
    return out


class Script:
    """A model scripted by board and clue: ``proposals`` maps the words on the board (in
    the order written) to one reply per sample; ``labels`` maps (clue, pattern) to a
    verdict. Anything else is a test failure."""

    def __init__(
        self,
        proposals: Mapping[tuple[str, ...], Sequence[str]],
        labels: Mapping[tuple[str, str], str],
        default: str | None = None,
    ) -> None:
        self.proposals = proposals
        self.labels = labels
        self.default = default

    def __call__(self, call: Call) -> list[str]:
        if call.purpose == "propose":
            words = tuple(str(w) for w in call.context["words"])
            return list(self.proposals[words])
        assert call.purpose == "clue_value"
        pattern = call.messages[-1].content.rstrip().rsplit(": ", 1)[1]
        key = (str(call.context["clue"]), pattern)
        if self.default is not None and key not in self.labels:
            return [self.default]
        return [self.labels[key]]


class CutModel(ScriptedModel):
    """Reports text ``index`` of call number ``number`` (1-based) as cut at the token limit."""

    def __init__(self, script: Script, cuts: Mapping[int, int]) -> None:
        super().__init__(script)
        self.cuts = cuts

    async def generate(self, call: Any, on_token: Any = None) -> Generation:
        gen = await super().generate(call, on_token)
        index = self.cuts.get(len(self.calls))
        if index is None:
            return gen
        reasons = tuple("length" if i == index else r for i, r in enumerate(gen.finish_reasons))
        return dataclasses.replace(gen, finish_reasons=reasons)


def run_pinned(model: ScriptedModel, d: CrosswordDomain, **config: Any) -> tuple[Any, list[Event]]:
    return asyncio.run(solve(ToTDFS(ToTDFSConfig(**config)), d, model))


# The root's two samples score v1 ATTIC 0.1 + 1 = 1.1, h1 ACRES 0.5 + 0.5 = 1.0 and h1 ACHES
# 0.2 + 0.2 = 0.4 (first seen in that order: ACRES, ACHES, ATTIC); 'h2. xx' does not fit.
ROOT = (
    "h1. acres (high)\nh1. aches (medium)\nv1. attic (low)\nh2. xx (high)",
    "h1. aches (medium)\nh1. acres (high)\nv1. attic (certain)",
)
MAIN = Script(
    {
        (): ROOT,
        ("v1. ATTIC",): ("h1. acres (certain)", "h1. acres (certain)\nh3. taboo (low)"),
        ("v1. ATTIC", "h1. ACRES"): ("I see nothing more.", "Nothing."),
        ("h1. ACRES",): ("v1. attic (high)", "v1. attic (high)"),
    },
    {
        ("v1", "a t t i c"): "Fits.\nsure",
        ("h1", "a c r e s"): "Could be.\nmaybe",
        ("h3", "t a b o o"): "No such word.\nimpossible",
    },
)


def test_a_search_event_by_event_and_call_by_call() -> None:
    d = domain()
    model = ScriptedModel(MAIN)
    fin, events = run_pinned(model, d, samples=2, max_per_state=2, step_limit=10, temperature=0.3,
                      max_tokens=200)  # fmt: skip
    assert pinned(events) == [
        # The root: every proposal is checked exactly once, the misfit reported and dropped.
        ("WordChecked", None, "h1", "ACRES", True),
        ("WordChecked", None, "h1", "ACHES", True),
        ("WordChecked", None, "v1", "ATTIC", True),
        ("WordChecked", None, "h2", "XX", False),
        # Best first: ATTIC (1.1) before ACRES (1.0); ACHES (0.4) is past the cap of 2. A
        # label shows the confidence the word was first proposed with.
        ("IterationStarted", 1, 10, "step 1"),
        ("ThoughtAdded", "dfs", "n1", None, "v1. ATTIC (low, 1.1)", 1,
         "A____/T____/T____/I____/C____", None),
        ("ThoughtScored", "n1", 20.0, None, ("v1 sure",), None),
        ("WordChecked", "n1", "h1", "ACRES", True),
        ("WordChecked", "n1", "h3", "TABOO", True),
        ("IterationStarted", 2, 10, "step 2"),
        ("ThoughtAdded", "dfs", "n2", "n1", "h1. ACRES (certain, 2)", 2,
         "ACRES/T____/T____/I____/C____", None),
        ("ThoughtScored", "n2", 21.0, None, ("h1 maybe", "v1 sure"), None),
        ("ParseFailed", "propose", "I see nothing more.", NO_PROPOSAL),
        ("ParseFailed", "propose", "Nothing.", NO_PROPOSAL),
        ("Backtracked", "n2", "n1", "tried"),
        ("IterationStarted", 3, 10, "step 3"),
        ("ThoughtAdded", "dfs", "n3", "n1", "h3. TABOO (low, 0.1)", 2,
         "A____/T____/TABOO/I____/C____", None),
        ("ThoughtScored", "n3", 20.001, None, ("h3 impossible", "v1 sure"), None),
        ("ThoughtPruned", "n3", "h3 judged impossible"),
        ("Backtracked", "n1", None, "tried"),
        ("IterationStarted", 4, 10, "step 4"),
        ("ThoughtAdded", "dfs", "n4", None, "h1. ACRES (high, 1)", 1,
         "ACRES/_____/_____/_____/_____", None),
        ("ThoughtScored", "n4", 1.0, None, ("h1 maybe",), None),
        ("WordChecked", "n4", "v1", "ATTIC", True),
        ("IterationStarted", 5, 10, "step 5"),
        ("ThoughtAdded", "dfs", "n5", "n4", "v1. ATTIC (high, 1)", 2,
         "ACRES/T____/T____/I____/C____", None),
        ("ThoughtScored", "n5", 21.0, None, ("h1 maybe", "v1 sure"), None),
        ("Backtracked", "n5", "n4", "tried"),
        ("Backtracked", "n4", None, "tried"),
        ("IterationStarted", 5, 10, "search done"),
        # n5 is as deep as n2 but later: the first of the deepest is the answer.
        ("LeafReached", "n2", "output: the deepest state (2 words; the first of that depth "
         "visited)"),
    ]  # fmt: skip
    assert fin.answer == "ACRES/T____/T____/I____/C____" and fin.reason == "done"
    assert not fin.solved
    # Seven calls: n4's h1 and n5's two clues are values already asked for, and n5's board
    # is n2's, whose proposals are reused.
    start = d.start()
    on_attic = d.after(d.write(start, "v1", "ATTIC"))
    acres = d.after(d.write(start, "h1", "ACRES"))
    assert on_attic and acres
    both = d.after(d.write(on_attic, "h1", "ACRES"))
    taboo = d.after(d.write(on_attic, "h3", "TABOO"))
    assert both and taboo
    expected = [
        ("propose", start, None),
        ("clue_value", on_attic, "v1"),
        ("propose", on_attic, None),
        ("clue_value", both, "h1"),
        ("propose", both, None),
        ("clue_value", taboo, "h3"),
        ("propose", acres, None),
    ]
    assert len(model.calls) == len(expected)
    for call, (purpose, state, clue) in zip(model.calls, expected, strict=True):
        assert call.purpose == purpose
        if clue is None:
            assert call.messages == d.prompt(Role.PROPOSE, state=state)
            assert call.sampling == Sampling(0.3, 1.0, 2, 200)
            assert call.context == d.context(state)
        else:
            assert call.messages == d.prompt(Role.CLUE_VALUE, state=state, part=clue)
            assert call.sampling == Sampling(0.3, 1.0, 1, 200)
            assert call.context == d.context(state, clue=clue)


# h1 ACRES, then h2 TROLL: seven clues have two letters or more; v2 and v4 are judged
# impossible, v5's verdict cannot be read.
TWO = Script(
    {
        (): ("h1. acres",),
        ("h1. ACRES",): ("h2. troll (high)\nh3. taboo (medium)",),
        ("h1. ACRES", "h2. TROLL"): ("v1. attic (high)",),
        ("h1. ACRES", "h2. TROLL", "v1. ATTIC"): ("",),
        ("h1. ACRES", "h3. TABOO"): ("Nothing fits.",),
    },
    {
        ("h1", "a c r e s"): "maybe",
        ("h2", "t r o l l"): "maybe",
        ("v1", "a t _ _ _"): "maybe",
        ("v2", "c r _ _ _"): "No word starts so.\nimpossible",
        ("v3", "r o _ _ _"): "sure",
        ("v4", "e l _ _ _"): "impossible",
        ("v5", "s l _ _ _"): "I cannot say.",
    },
    default="maybe",
)
TWO_LABELS = ("h1 maybe", "h2 maybe", "v1 maybe", "v2 impossible", "v3 sure", "v4 impossible",
              "v5 maybe")  # fmt: skip


def test_a_state_is_pruned_by_its_first_impossible_clue_and_its_sibling_is_tried() -> None:
    fin, events = run_pinned(ScriptedModel(TWO), domain(), samples=1, step_limit=10)
    assert pinned(events) == [
        ("WordChecked", None, "h1", "ACRES", True),
        ("IterationStarted", 1, 10, "step 1"),
        # A proposal without a confidence counts as low.
        ("ThoughtAdded", "dfs", "n1", None, "h1. ACRES (low, 0.1)", 1,
         "ACRES/_____/_____/_____/_____", None),
        ("ThoughtScored", "n1", 1.0, None, ("h1 maybe",), None),
        ("WordChecked", "n1", "h2", "TROLL", True),
        ("WordChecked", "n1", "h3", "TABOO", True),
        ("IterationStarted", 2, 10, "step 2"),
        ("ThoughtAdded", "dfs", "n2", "n1", "h2. TROLL (high, 0.5)", 2,
         "ACRES/TROLL/_____/_____/_____", None),
        ("ParseFailed", "clue_value", "I cannot say.", NO_LABEL),
        ("ThoughtScored", "n2", 24.002, None, TWO_LABELS, None),
        ("ThoughtPruned", "n2", "v2 judged impossible"),
        ("IterationStarted", 3, 10, "step 3"),
        ("ThoughtAdded", "dfs", "n3", "n1", "h3. TABOO (medium, 0.2)", 2,
         "ACRES/_____/TABOO/_____/_____", None),
        ("ThoughtScored", "n3", 7.0, None, ("h1 maybe", "h3 maybe", "v1 maybe", "v2 maybe",
                                            "v3 maybe", "v4 maybe", "v5 maybe"), None),
        ("ParseFailed", "propose", "Nothing fits.", NO_PROPOSAL),
        ("Backtracked", "n3", "n1", "tried"),
        ("Backtracked", "n1", None, "tried"),
        ("IterationStarted", 3, 10, "search done"),
        ("LeafReached", "n2", "output: the deepest state (2 words; the first of that depth "
         "visited)"),
    ]  # fmt: skip
    assert fin.answer == "ACRES/TROLL/_____/_____/_____" and fin.reason == "done"


def test_without_pruning_an_impossible_state_is_searched_on() -> None:
    fin, events = run_pinned(ScriptedModel(TWO), domain(), samples=1, step_limit=3, prune=False)
    assert not [e for e in events if isinstance(e, ThoughtPruned)]
    added = [(e.node_id, e.parent_id, e.text) for e in events if isinstance(e, ThoughtAdded)]
    assert added == [
        ("n1", None, "h1. ACRES (low, 0.1)"),
        ("n2", "n1", "h2. TROLL (high, 0.5)"),
        ("n3", "n2", "v1. ATTIC (high, 0.5)"),
    ]
    assert fin.answer == "ACRES/TROLL/T____/I____/C____" and fin.reason == "step limit"


def test_the_step_limit_is_checked_before_each_step_and_ends_every_level() -> None:
    # The limit of 2 is reached at the pruned TROLL: TABOO is not tried and the search ends.
    fin, events = run_pinned(ScriptedModel(TWO), domain(), samples=1, step_limit=2)
    assert pinned(events)[-4:] == [
        ("ThoughtPruned", "n2", "v2 judged impossible"),
        ("Backtracked", "n1", None, "step limit"),
        ("IterationStarted", 2, 2, "search done"),
        ("LeafReached", "n2", "output: the deepest state (2 words; the first of that depth "
         "visited)"),
    ]  # fmt: skip
    assert fin.answer == "ACRES/TROLL/_____/_____/_____" and fin.reason == "step limit"


def test_a_backtrack_when_the_last_allowed_step_is_spent_says_so() -> None:
    # Step 2 (ACRES under ATTIC) is the last one allowed and has nothing to propose: each
    # level backs out because the step limit was reached.
    fin, events = run_pinned(
        ScriptedModel(MAIN), domain(), samples=2, max_per_state=2, step_limit=2
    )
    backs = [(e.node_id, e.parent_id, e.reason) for e in events if isinstance(e, Backtracked)]
    assert backs == [("n2", "n1", "step limit"), ("n1", None, "step limit")]
    assert fin.reason == "step limit"


def test_a_sample_cut_at_the_token_limit_proposes_nothing_and_a_cut_verdict_reads_maybe() -> None:
    script = Script(
        {
            (): ("h1. aches (certain)\nh1. ac", "h1. acres (high)"),
            ("h1. ACRES",): ("v1. attic (high)", "v1. attic (high)"),
        },
        {("h1", "a c r e s"): "Looks impossible.\nBut wa"},
    )
    # Call 1 (the root's proposals) has its first sample cut; call 2 (h1's verdict) is cut.
    # Their finished lines would read as ACHES (certain) and impossible: neither is taken.
    model = CutModel(script, {1: 0, 2: 0})
    fin, events = run_pinned(model, domain(), samples=2, step_limit=1)
    assert pinned(events) == [
        ("WordChecked", None, "h1", "ACRES", True),
        ("IterationStarted", 1, 1, "step 1"),
        ("ThoughtAdded", "dfs", "n1", None, "h1. ACRES (high, 0.5)", 1,
         "ACRES/_____/_____/_____/_____", None),
        ("ParseFailed", "clue_value", "Looks impossible.\n", NO_LABEL),
        ("ThoughtScored", "n1", 1.0, None, ("h1 maybe",), None),
        ("WordChecked", "n1", "v1", "ATTIC", True),
        ("Backtracked", "n1", None, "step limit"),
        ("IterationStarted", 1, 1, "search done"),
        ("LeafReached", "n1", "output: the deepest state (1 words; the first of that depth "
         "visited)"),
    ]  # fmt: skip
    assert fin.answer == "ACRES/_____/_____/_____/_____" and fin.reason == "step limit"


SOLUTION = ("ACRES", "TROLL", "TABOO", "INEPT", "CEDES")
ROWS = Script(
    {
        tuple(f"h{i + 1}. {w}" for i, w in enumerate(SOLUTION[:n])): (
            f"h{n + 1}. {SOLUTION[n].lower()} (certain)",
        )
        for n in range(5)
    },
    {},
    default="sure",
)


def test_a_full_board_is_a_leaf_and_the_solution_is_reported() -> None:
    model = ScriptedModel(ROWS)
    fin, events = run_pinned(model, domain(), samples=1)
    answer = "/".join(SOLUTION)
    got = pinned(events)
    tail = got[got.index(("IterationStarted", 5, 100, "step 5")) + 1 :]
    assert tail[:4] == [
        ("ThoughtAdded", "dfs", "n5", "n4", "h5. CEDES (certain, 1)", 5, answer, None),
        ("SolutionFound", "n5", answer),
        ("ThoughtScored", "n5", 200.0, None, tuple(f"{c}{i} sure" for c in "hv"
                                                   for i in range(1, 6)), None),
        ("LeafReached", "n5", "every clue is filled"),
    ]  # fmt: skip
    assert tail[4:] == [
        ("Backtracked", "n4", "n3", "tried"),
        ("Backtracked", "n3", "n2", "tried"),
        ("Backtracked", "n2", "n1", "tried"),
        ("Backtracked", "n1", None, "tried"),
        ("IterationStarted", 5, 100, "search done"),
        ("LeafReached", "n5", "output: the deepest state (5 words; the first of that depth "
         "visited)"),
    ]  # fmt: skip
    assert fin.answer == answer and fin.solved and fin.reason == "done"
    assert [c.purpose for c in model.calls].count(Purpose.PROPOSE) == 5  # none from the full board


def test_stopping_early_ends_the_run_at_the_solution_before_valuing_it() -> None:
    model = ScriptedModel(ROWS)
    fin, events = run_pinned(model, domain(), samples=1, stop_early=True)
    answer = "/".join(SOLUTION)
    assert pinned(events)[-3:] == [
        ("ThoughtAdded", "dfs", "n5", "n4", "h5. CEDES (certain, 1)", 5, answer, None),
        ("SolutionFound", "n5", answer),
        ("IterationStarted", 5, 100, "search done"),
    ]  # fmt: skip
    assert fin.answer == answer and fin.solved and fin.reason == "solved early"


def test_with_nothing_proposed_the_answer_is_the_empty_board() -> None:
    fin, events = run_pinned(ScriptedModel(Script({(): ("Hmm.",)}, {})), domain(), samples=1)
    assert pinned(events) == [
        ("ParseFailed", "propose", "Hmm.", NO_PROPOSAL),
        ("IterationStarted", 0, 100, "search done"),
    ]
    assert fin.answer == "_____/_____/_____/_____/_____" and fin.reason == "done"


def test_a_model_error_while_valuing_ends_the_run_with_that_error() -> None:
    def replies(call: Call) -> str:
        if call.purpose == "clue_value":
            raise ModelError("server", "the server fell over")
        return "h1. acres (high)"

    fin, events = run_pinned(ScriptedModel(replies), domain(), samples=1)
    errors = [(e.kind, e.message) for e in events if isinstance(e, ErrorRaised)]
    assert errors == [("server", "the server fell over")] and fin.reason == "error"


class NotProposing:
    """A crossword domain that hides its proposal reader."""

    def __init__(self, inner: CrosswordDomain) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "proposals":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_domain_without_proposals_is_a_clear_error() -> None:
    fin, events = asyncio.run(solve(ToTDFS(), NotProposing(domain()), ScriptedModel([])))
    errors = [(e.kind, e.message) for e in events if isinstance(e, ErrorRaised)]
    assert errors == [
        (
            "unsupported",
            "tot-dfs cannot solve crossword puzzles yet: the crossword domain has no proposals "
            "with confidences prompt",
        )
    ]
    assert fin.calls == 0
