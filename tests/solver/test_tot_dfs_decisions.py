"""ToT-DFS pinned event by event and call by call on one mini crossword: what each call asks
(role, prompt, sampling, context), how proposals are scored over samples and ordered, which
proposals are dropped (a sample cut at the token limit, a word that does not fit), how clues
are valued (once per prompt; a cut or unreadable verdict reads as maybe), when a state is
pruned and by which clue, how the per-state cap, the step limit and backtracking work, and
which state is the answer; so that a change to any of these is seen."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from puzzles.crossword import generate
from solver.domains.crossword import CrosswordDomain
from solver.events import (
    Backtracked,
    ErrorRaised,
    Event,
    IterationStarted,
    LeafReached,
    ParseFailed,
    SolutionFound,
    ThoughtAdded,
    ThoughtPruned,
    ThoughtScored,
    WordChecked,
)
from solver.methods import solve
from solver.methods.tot_dfs import ToTDFS, ToTDFSConfig
from solver.model import Call, Generation, ModelError, Sampling, ScriptedModel
from solver.roles import Purpose, Role

SEED = 5  # rows ACRES / TROLL / TABOO / INEPT / CEDES; columns ATTIC CRANE ROBED ELOPE SLOTS
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


def run(model: ScriptedModel, d: CrosswordDomain, **config: Any) -> tuple[Any, list[Event]]:
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
    fin, events = run(model, d, samples=2, max_per_state=2, step_limit=10, temperature=0.3,
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
    fin, events = run(ScriptedModel(TWO), domain(), samples=1, step_limit=10)
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
    fin, events = run(ScriptedModel(TWO), domain(), samples=1, step_limit=3, prune=False)
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
    fin, events = run(ScriptedModel(TWO), domain(), samples=1, step_limit=2)
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
    fin, events = run(ScriptedModel(MAIN), domain(), samples=2, max_per_state=2, step_limit=2)
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
    fin, events = run(model, domain(), samples=2, step_limit=1)
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
    fin, events = run(model, domain(), samples=1)
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
    fin, events = run(model, domain(), samples=1, stop_early=True)
    answer = "/".join(SOLUTION)
    assert pinned(events)[-3:] == [
        ("ThoughtAdded", "dfs", "n5", "n4", "h5. CEDES (certain, 1)", 5, answer, None),
        ("SolutionFound", "n5", answer),
        ("IterationStarted", 5, 100, "search done"),
    ]  # fmt: skip
    assert fin.answer == answer and fin.solved and fin.reason == "solved early"


def test_with_nothing_proposed_the_answer_is_the_empty_board() -> None:
    fin, events = run(ScriptedModel(Script({(): ("Hmm.",)}, {})), domain(), samples=1)
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

    fin, events = run(ScriptedModel(replies), domain(), samples=1)
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
