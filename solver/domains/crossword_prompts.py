"""Mini crosswords' prompts, one builder per role (:data:`PROMPTS`), apart from the parsers
that read the replies (:mod:`solver.domains.crossword`), as ToT keeps its prompts apart from
its tasks.

Our own wording of what the papers describe: ToT's propose (candidate words with confidence
levels) and its per-clue value prompt (sure / maybe / impossible from the letter pattern),
BoT's one-word step, evaluation and analysis, IoT's guide and answerer, and the IO and CoT
baselines that write the whole grid in one reply. The sentence each prompt is known by comes
from :mod:`solver.model.markers`, which the offline player reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from puzzles.crossword import Grid
from solver.domains.dialogue import iot_guide_line
from solver.domains.game24_prompts import messages
from solver.model import Message
from solver.model.markers import (
    CW_ANALYSIS,
    CW_CLUE_CHECK,
    CW_COT,
    CW_EVALUATE,
    CW_FINAL,
    CW_IOT_GUIDE,
    CW_OPENING,
    CW_PROPOSE,
    CW_STEP,
)
from solver.roles import Role

if TYPE_CHECKING:
    from solver.domains.crossword import CrosswordDomain, Fill

__all__ = ["PROMPTS", "Builder", "clip_clue", "spaced"]

_CLUE_CHARS = 200
"""A clue longer than this is cut in prompts (a hostile file may hold a 1 MB clue)."""


def clip_clue(text: str, limit: int = _CLUE_CHARS) -> str:
    """A clue (or a guide's words) on one line, cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


IO_EXAMPLE = (
    "Clues:\n"
    "h1. Organ that pumps blood\n"
    "h2. Glowing piece of coal in a dying fire\n"
    "h3. Misuse; treat cruelly\n"
    "h4. Sticky substance from pine trees\n"
    "h5. General direction or fashion\n"
    "v1. Courage; the centre of something\n"
    "v2. A coal that still glows\n"
    "v3. Harsh, insulting language\n"
    "v4. Rosin, for example\n"
    "v5. What is in fashion now\n"
)
IO_EXAMPLE_WORDS = (
    ("h1", "HEART"),
    ("h2", "EMBER"),
    ("h3", "ABUSE"),
    ("h4", "RESIN"),
    ("h5", "TREND"),
    ("v1", "HEART"),
    ("v2", "EMBER"),
    ("v3", "ABUSE"),
    ("v4", "RESIN"),
    ("v5", "TREND"),
)
"""A worked example written for ponder (a word square with our own clues), shown to IO and CoT
on 5 x 5 grids without blocks; a test checks that its words cross correctly."""

VALUE_SHOTS = (
    "Incorrect; not right: w _ o _ g\n"
    "The letters fit 'wrong', which means incorrect.\n"
    "sure\n\n"
    "A large natural stream of water: r i v _ r\n"
    "'river' fits the letters and the clue.\n"
    "sure\n\n"
    "Cause fear: s c _ _ e\n"
    "'scare' fits; it is one way to cause fear, though other words may fit too.\n"
    "maybe\n\n"
    "Choose: z q _ x _\n"
    "No English word starts with 'zq'.\n"
    "impossible\n\n"
    "Upright in position: e r _ c t\n"
    "'erect' fits the letters and means upright.\n"
    "sure\n\n"
    "An Eskimo hut: t e p _ _\n"
    "An Eskimo hut is an igloo, which does not start with 'tep'; 'tepee' is a tent.\n"
    "impossible\n\n"
)

BOT_SYSTEM = (
    "You are an expert crossword solver who reasons step by step. Before you answer, recall "
    "the trial-and-error experience you are given: its error reports and revision advice. "
    "Avoid the mistakes it describes and reuse the words it judges correct."
)
FEEDBACK_SYSTEM = (
    "You are an expert checker of crossword solutions. For each word, decide whether it "
    "answers its clue and agrees with the words that cross it; give advice when it is wrong, "
    "and say whether you recommend or reject it."
)
IOT_GUIDE_SYSTEM = (
    "You are the inner guide of a solver working on a mini crossword. You do not solve it "
    "yourself. Read the solver's last grid and find where it goes wrong or is unsure: a row "
    "or column that is not a word, a word that does not answer its clue, letters that do not "
    "agree where words cross. Then write the solver its next prompt, speaking to it as 'you': "
    "name the clues to rethink and what to try, and never state a hint you are not sure is "
    "true. Prefer another turn to stopping early."
)
IOT_ANSWER_SYSTEM = (
    "You solve a mini crossword in a dialogue with your inner guide. Answer the guide's "
    "prompt, say plainly which clues you are unsure of, and give your whole grid every time. "
    "Check that every row and every column is a word that answers its clue."
)
IOT_GUIDE_FORMAT = '{"guidance": "<your prompt to the solver>", "stop": true or false}'
IOT_ANSWER_FORMAT = (
    '{"explanation": "<your reasoning>", "answer": "<the grid: its rows joined by /, e.g. '
    'ABCDE/FGHIJ/...>", "uncertainty": "<clues you are unsure of, or empty>", '
    '"final": true or false}'
)


def spaced(row: str) -> str:
    """A row as prompts write it: letters separated by spaces."""
    return " ".join(row)


# ---------------------------------------------------------------------- what prompts show


def _standard(domain: CrosswordDomain) -> bool:
    return domain.grid.rows == Grid.full(5).rows


def _clue_lines(domain: CrosswordDomain) -> str:
    lines = []
    for name, slot in domain.names.items():
        lines.append(f"{name}. {domain.clues[name]} ({slot.length})")
    return "\n".join(lines)


def _board_lines(state: Fill) -> str:
    return "\n".join(spaced(row) for row in state.rows)


def _head(domain: CrosswordDomain) -> str:
    g = domain.grid
    names = domain.names
    if all(n[0] in "hv" for n in names):  # every row and column one entry: ToT's names
        rows = sum(n[0] == "h" for n in names)
        naming = f"h1-h{rows} are the rows (across), v1-v{len(names) - rows} the columns (down)"
    else:
        naming = "clues are named by number and A (across) or D (down)"
    blocks = "; # is a black square" if g.blocks else ""
    return (
        f"Solve a {g.height} x {g.width} {CW_OPENING} so that each across and down entry "
        f"answers its clue ({naming}{blocks})."
    )


def _status(domain: CrosswordDomain, state: Fill) -> str:
    """ToT's rendering of a state: the board, then the unfilled and filled clues with their
    letters."""
    filled = {n for n, _ in state.words}
    unfilled_lines: list[str] = []
    filled_lines: list[str] = []
    for name in domain.names:
        line = f"{name}. {domain.clues[name]}: {spaced(domain.pattern(state, name))}"
        (filled_lines if name in filled else unfilled_lines).append(line)
    return (
        f"Current board:\n{_board_lines(state)}\n\n"
        f"Unfilled:\n{chr(10).join(unfilled_lines) or '(none)'}\n\n"
        f"Filled:\n{chr(10).join(filled_lines) or '(none)'}"
    )


def _example(domain: CrosswordDomain, cot: bool) -> str:
    if not _standard(domain):
        return ""
    rows = [w for n, w in IO_EXAMPLE_WORDS if n[0] == "h"]
    words = "\n".join(f"{n}. {w}" for n, w in IO_EXAMPLE_WORDS) + "\n" if cot else ""
    return f"Example\n{IO_EXAMPLE}{words}Output:\n" + "\n".join(map(spaced, rows)) + "\n\n"


def _clues(domain: CrosswordDomain) -> str:
    return f"Clues:\n{_clue_lines(domain)}"


def _empty(domain: CrosswordDomain) -> str:
    return _board_lines(domain.start())


# ---------------------------------------------------------------------- by role

Builder = Callable[["CrosswordDomain", Mapping[str, Any]], tuple[Message, ...]]
"""A role's prompt: the messages for one crossword, from the arguments the method gives."""


def _attempt(domain: CrosswordDomain, cot: bool) -> tuple[Message, ...]:
    how = (
        f"{CW_COT} as 'h1. WORD' (using the clue names), "
        "then the whole grid after 'Output:', one row per line, letters separated by "
        "spaces."
        if cot
        else "Write the whole grid after 'Output:', one row per line, letters separated by spaces."
    )
    return messages(
        f"{_head(domain)}\n{how}\n\n{_example(domain, cot)}{_clues(domain)}\n"
        f"Board:\n{_empty(domain)}\nOutput:\n"
    )


def _propose(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    return messages(
        f"{_head(domain)}\n\n{_status(domain, args['state'])}\n\n"
        f"{CW_PROPOSE}, one per line, as "
        "'h1. word (confidence)' with the clue's name, a word that fits the letters "
        "already on the board, and your confidence: certain, high, medium or low. "
        "List several candidates, the likeliest first.\n"
    )


def _clue_value(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    name = str(args["part"])
    pattern = " ".join(domain.pattern(args["state"], name).lower())
    return messages(
        f"{CW_CLUE_CHECK} judge whether a word of the given length exists that "
        "answers the clue and fits the letters given (_ is an unknown letter). Think "
        "briefly, then answer "
        "on the last line with one word: sure, maybe or impossible.\n\n"
        f"{VALUE_SHOTS}{domain.clues[name]}: {pattern}\n"
    )


def _scored(chain: Any) -> str:
    return "\n".join(f"{t}, Evaluation score: {s:g}" for t, s in chain)


def _step(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    chain = args["chain"]
    state = domain.replayed(chain)
    return messages(
        f"{_head(domain)}\n{_clues(domain)}\n\n"
        "First of all, recall historical reasoning experience (ignore it if empty) and "
        f"follow its advice:\n#####\n{args['experience']}\n#####\n\n"
        "The words filled so far, each with a score (higher: more likely right; "
        f"ignore this if empty):\n---\n{_scored(chain)}\n---\n\n{_status(domain, state)}\n\n"
        f"{CW_STEP} with a word that fits the letters "
        "already on the board, in this format:\n"
        "h1. WORD, Evaluation score: X\n"
        "The evaluation score is your confidence in the word, one of 0.1, 0.3, 0.5, "
        "0.7, 0.9, 1.0."
    )


def _evaluate(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    chain = args["chain"]
    state = domain.replayed(chain)
    return messages(
        f"{_head(domain)}\n{_clues(domain)}\n\n"
        f"The words filled so far:\n---\n{_scored(chain)}\n---\n"
        f"{_status(domain, state)}\n\n"
        f"{CW_EVALUATE}\n{args['step']}\n\n"
        "Score this word for how well it answers its clue and agrees with the "
        "crossing letters, using one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0 (0.1: wrong or "
        "conflicting; 1.0: certainly right). Reply on the last line as "
        "'Evaluation score: X'."
    )


def _analyze(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    steps = "\n".join(f"Step {i}: {t}" for i, t in enumerate(args["chain"], 1))
    return messages(
        f"Task: {_head(domain)}\n{_clues(domain)}\nBoard:\n{_empty(domain)}\n"
        f"The reasoning chain (one word per step):\n---\n{steps}\n---\n"
        "Please do the following:\n"
        f"1. {CW_ANALYSIS} and "
        "why not: name any crossing conflict (two words that put different letters in "
        "one cell) and any word that does not answer its clue.\n"
        "2. For each step write: 'Step <idx>: <analysis>. Advice: <advice>. "
        "Recommendation or Reject: <Recommend|Reject>.' Refer to steps by index only.\n"
        "3. Finish with 'Confidence score: X', X one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0.\n"
        "Be brief.",
        FEEDBACK_SYSTEM,
    )


def _final(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    return messages(
        f"{_head(domain)}\n{_clues(domain)}\nBoard:\n{_empty(domain)}\n\n"
        "First of all, recall historical reasoning experience (ignore it if empty) and "
        f"follow its advice:\n#####\n{args['experience']}\n#####\n\n"
        f"{CW_FINAL} {CW_COT} as 'h1. WORD' "
        "(using the clue names), then the whole grid after 'Output:', one row per "
        "line, letters separated by spaces.",
        BOT_SYSTEM,
    )


def _guide(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    return messages(
        f"Query: {_head(domain)}\n{_clues(domain)}\nBoard:\n{_empty(domain)}\n\n"
        f"This is turn {args['turn']} of at most {args['total']}.\n"
        f"The dialogue so far:\n{domain.transcript(args['turns'])}\n\n"
        f"{CW_IOT_GUIDE} Set stop to true only if the solver's last "
        "grid is complete and correct.\n"
        f"Reply with one JSON object: {IOT_GUIDE_FORMAT}",
        IOT_GUIDE_SYSTEM,
    )


_RESPOND_RULES = {
    "free": "If you are sure your grid is complete and correct, set final to true; if "
    "you are unsure, set it to false and keep working.",
    "discuss": "Do not give a final answer yet: set final to false.",
    "close": "Give your definitive final grid now and set final to true.",
}


def _respond(domain: CrosswordDomain, args: Mapping[str, Any]) -> tuple[Message, ...]:
    rule = _RESPOND_RULES.get(str(args.get("mode", "free")), "")
    return messages(
        f"Query: {_head(domain)}\n{_clues(domain)}\nBoard:\n{_empty(domain)}\n\n"
        f"The dialogue so far:\n{domain.transcript(args['turns'])}\n\n"
        f"{iot_guide_line(clip_clue(str(args['guidance']), 4000))}\n\n{rule}\n"
        f"Reply with one JSON object: {IOT_ANSWER_FORMAT}",
        IOT_ANSWER_SYSTEM,
    )


PROMPTS: Mapping[Role, Builder] = MappingProxyType(
    {
        Role.IO: lambda domain, args: _attempt(domain, cot=False),
        Role.COT: lambda domain, args: _attempt(domain, cot=True),
        Role.PROPOSE: _propose,
        Role.CLUE_VALUE: _clue_value,
        Role.STEP: _step,
        Role.EVALUATE: _evaluate,
        Role.ANALYZE: _analyze,
        Role.FINAL: _final,
        Role.GUIDE: _guide,
        Role.RESPOND: _respond,
    }
)
"""Each role's prompt. What each is given: ``io`` / ``cot`` (nothing), ``propose`` (state),
``clue_value`` (state, part: a clue name), ``step`` (experience: text, chain: (step text,
score) pairs), ``evaluate`` (chain, step), ``analyze`` (chain: step texts), ``final``
(experience), ``guide`` (turns, turn, total), ``respond`` (turns, guidance, mode)."""
