"""The Game of 24's prompts, one builder per role (:data:`PROMPTS`), apart from the parsers
that read the replies (:mod:`solver.domains.game24`), as ToT keeps its prompts apart from its
tasks.

The wording is our own of what the papers describe (ToT's propose / value / answer prompts;
BoT's step format, evaluation and feedback; IoT's guide and answerer). The sentence each
prompt is known by comes from :mod:`solver.model.markers`, which the offline engine reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from puzzles.arith import combine, format_number
from puzzles.game24 import Hand, format_numbers
from solver.domains.dialogue import Turn, iot_guide_line, iot_transcript
from solver.model import Message
from solver.model.markers import (
    G24_ANALYSIS,
    G24_CONDENSE,
    G24_COT,
    G24_EVALUATE,
    G24_FINAL,
    G24_IO,
    G24_IOT_ANSWER,
    G24_IOT_GUIDE,
    G24_JUDGE,
    G24_PROPOSE,
    G24_SIMILAR,
    G24_STEP,
    G24_VALUE,
)
from solver.roles import Role

__all__ = ["PROMPTS", "Builder", "messages"]


def messages(user: str, system: str | None = None) -> tuple[Message, ...]:
    """A prompt's chat messages: the system message (when there is one), then the user's."""
    if system:
        return (Message("system", system), Message("user", user))
    return (Message("user", user),)


def rules(hand: Hand) -> str:
    """The rule of the game for this hand (its size and target)."""
    return (
        f"Use the {len(hand.numbers)} given numbers and the operations + - * / (with "
        f"parentheses) to make {hand.target}. Each number must be used exactly once."
    )


def standard(hand: Hand) -> bool:
    """Four numbers and 24: the worked examples fit. Other hands get no examples (examples
    for 24 would mislead a model asked for another target)."""
    return hand.target == 24 and len(hand.numbers) == 4


# ------------------------------------------------------------------ prompts: baselines

SHOTS: tuple[tuple[str, tuple[str, str, str], str], ...] = (
    (
        "2 5 14 17",
        ("14 - 5 = 9 (left: 2 9 17)", "17 - 2 = 15 (left: 9 15)", "15 + 9 = 24 (left: 24)"),
        "(17 - 2) + (14 - 5) = 24",
    ),
    (
        "3 4 8 16",
        ("16 / 8 = 2 (left: 2 3 4)", "3 * 4 = 12 (left: 2 12)", "12 * 2 = 24 (left: 24)"),
        "3 * 4 * (16 / 8) = 24",
    ),
    (
        "1 6 15 20",
        ("20 - 15 = 5 (left: 1 5 6)", "5 - 1 = 4 (left: 4 6)", "6 * 4 = 24 (left: 24)"),
        "6 * (20 - 15 - 1) = 24",
    ),
    (
        "4 5 8 14",
        ("8 / 4 = 2 (left: 2 5 14)", "5 * 2 = 10 (left: 10 14)", "14 + 10 = 24 (left: 24)"),
        "14 + 5 * (8 / 4) = 24",
    ),
    (
        "6 7 16 19",
        ("16 + 7 = 23 (left: 6 19 23)", "23 - 19 = 4 (left: 4 6)", "6 * 4 = 24 (left: 24)"),
        "(16 + 7 - 19) * 6 = 24",
    ),
)
"""Five worked examples written for ponder (hand, three steps, answer), shown to IO and CoT
for four-card hands and 24, as ToT's baselines are prompted (5-shot). Each hand holds a
number above 13, so none is a hand of any benchmark set (ToT's 1,362 hands and our catalogue
are all of cards 1 to 13) and no prompt carries a benchmark puzzle with its answer; a test
checks each one exactly."""


def io_prompt(hand: Hand) -> str:
    lines = [
        f"Use the numbers and basic arithmetic operations (+ - * /) to obtain {hand.target}. "
        f"{G24_IO}"
    ]
    for numbers, _, answer in SHOTS if standard(hand) else ():
        lines += [f"Input: {numbers}", f"Answer: {answer}"]
    lines += [f"Input: {hand}", "Answer:"]
    return "\n".join(lines)


def cot_prompt(hand: Hand, steps: Sequence[str] = ()) -> str:
    lines = [
        f"Use the numbers and basic arithmetic operations (+ - * /) to obtain {hand.target}. "
        f"{G24_COT}; write it as "
        f"'a op b = c (left: remaining numbers)'. After {len(hand.numbers) - 1} steps, "
        "write the whole "
        "expression on a line starting with 'Answer:'."
    ]
    for numbers, shot_steps, answer in SHOTS if standard(hand) else ():
        lines += [f"Input: {numbers}", "Steps:", *shot_steps, f"Answer: {answer}"]
    lines += [f"Input: {hand}", "Steps:", *steps]
    return "\n".join(lines)


# ---------------------------------------------------------------------- prompts: ToT


def propose_prompt(numbers: str, target: int = 24) -> str:
    """ToT's proposal prompt. Unlike ToT's (always 24), it says the target, so a hand played
    to another number gets steps towards that one."""
    return (
        f"The aim is to reach {target} in the end, using every number once. Combine two of "
        "the numbers with + - * / to get one new number, and list the possible next steps, "
        "one per line, as 'a op b = c (left: remaining numbers)'.\n"
        "Input: 3 5 7 12\n"
        f"{G24_PROPOSE}\n"
        "3 + 5 = 8 (left: 7 8 12)\n"
        "12 - 7 = 5 (left: 3 5 5)\n"
        "7 * 3 = 21 (left: 5 12 21)\n"
        "12 / 3 = 4 (left: 4 5 7)\n"
        "5 + 7 = 12 (left: 3 12 12)\n"
        "12 - 5 = 7 (left: 3 7 7)\n"
        "7 - 3 = 4 (left: 4 5 12)\n"
        "12 + 3 = 15 (left: 5 7 15)\n"
        f"Input: {numbers}\n"
        f"{G24_PROPOSE}\n"
    )


VALUE_PROMPT = f"""Judge whether the given numbers can reach 24 using + - * /, each exactly once.
{G24_VALUE}
12 12
12 + 12 = 24
sure
5 7 9
9 - 5 = 4
4 * 7 = 28, too big
(9 - 7) * 5 = 10, 10 + 7 = 17
the numbers are in a reasonable range: 24 might still be reached
likely
3 4 11
11 - 3 = 8, 8 * 4 = 32
(11 + 4) - 3 = 12
11 - 4 = 7, 7 * 3 = 21
3 * 4 = 12, 12 + 11 = 23
likely
8 3 3
8 * 3 = 24, but 3 is left over: 24 * 3 = 72, 24 + 3 = 27, 24 - 3 = 21
(8 - 3) * 3 = 15
8 / (3 - 8 / 3) uses 8 twice
likely
1 2 2
1 + 2 + 2 = 5, 1 * 2 * 2 = 4, (1 + 2) * 2 = 6
all far too small
impossible
50 60 1
60 - 50 = 10, 10 + 1 = 11
50 + 60 = 110, 110 / 1 = 110
too far apart to reach 24
impossible
2 6 10
10 + 2 = 12, 12 * 6 = 72
(10 - 6) * 2 = 8
6 * 10 / 2 = 30
10 - 2 = 8, 8 * 6 = 48
likely
4 6
4 * 6 = 24
sure
{{numbers}}
"""


def value_prompt(numbers: str, target: int = 24) -> str:
    if target == 24:
        return VALUE_PROMPT.replace("{numbers}", numbers)
    return (
        f"Judge whether the given numbers can reach {target} using + - * /, each exactly "
        f"once. {G24_VALUE}\n{numbers}\n"
    )


def last_step_prompt(hand: Hand, answer: str) -> str:
    head = (
        f"{G24_JUDGE} it must use each input number exactly once and equal "
        f"{hand.target}. Reply with one word on the last line: sure or impossible.\n"
    )
    # Our own hands, each with a number above 13: no benchmark hand appears with its answer.
    shots = (
        "Input: 4 8 16 20\nAnswer: (16 + 20) - (4 + 8) = 24\nJudge: sure\n"
        "Input: 2 6 15 21\nAnswer: 15 + 21 - 2 * 6 = 24\nJudge: sure\n"
        "Input: 6 9 15 20\nAnswer: 20 + (9 + 15) / 6 = 24\nJudge: sure\n"
        "Input: 4 8 16 20\nAnswer: (16 + 20) - (4 + 8) + 1 = 25\nJudge: impossible\n"
        "Input: 2 6 15 21\nAnswer: 21 + 15 - 12 = 24\nJudge: impossible\n"
        "Input: 6 9 15 20\nAnswer: (20 - 15) * 6 - 9 = 24\nJudge: impossible\n"
    )
    return f"{head}{shots if standard(hand) else ''}Input: {hand}\nAnswer: {answer}\nJudge:"


# ---------------------------------------------------------------------- prompts: BoT

BOT_SYSTEM = (
    "You are an expert in mathematics who reasons step by step. Before you answer, recall the "
    "trial-and-error experience you are given: its error reports and revision advice. Avoid "
    "the mistakes it describes and reuse the steps it judges correct."
)

BOT_STEP_FORMAT = (
    "Step X, Current set: XXXX, Two numbers selected: XX XX, Operation: XX, "
    "New number calculated: XX, Remaining numbers: XXXX, New set: XXXX, Evaluation score: X"
)

FEEDBACK_SYSTEM = (
    "You are an expert checker of math answers. For each reasoning step, decide whether it is "
    "logical and correct and whether it helps reach the goal; give advice when it is wrong, and "
    "say whether you recommend or reject it."
)


def bot_task(hand: Hand) -> str:
    return (
        f"The Game of {hand.target}: use the {len(hand.numbers)} numbers and the basic "
        f"operations + - * / (parentheses allowed) to obtain {hand.target}; each number is "
        "used exactly once. In each step, select two "
        "numbers from the current set, combine them with one operation, and put the new number "
        "back into the set.\n"
        f"The numbers are: {hand}.\n"
        "Let's think step by step."
    )


def _bot_recall(hand: Hand, experience: str, examples: bool) -> str:
    """What BoT's step and final prompts open with: the task, BoT+CoT's worked examples
    (``examples``; four-number hands and 24 only, as the IO and CoT shots), and the
    experience to follow."""
    shown = f"{bot_examples()}\n\n" if examples and standard(hand) else ""
    return (
        f"{bot_task(hand)}\n\n"
        f"{shown}"
        "First of all, recall historical reasoning experience (ignore it if empty) and follow "
        "its advice:\n"
        f"#####\n{experience}\n#####\n\n"
    )


def bot_step_prompt(
    hand: Hand, experience: str, chain: Sequence[tuple[str, float]], examples: bool = False
) -> str:
    """BoT's step prompt; with ``examples`` (BoT+CoT) worked examples come after the task,
    for four-number hands and 24 only (as the IO and CoT shots)."""
    scored = "\n".join(f"{text}, Evaluation score: {score:g}" for text, score in chain)
    return (
        _bot_recall(hand, experience, examples)
        + "The reasoning steps so far, each with a score (a higher score means the step is more "
        f"likely to lead to {hand.target}; ignore this if empty):\n"
        f"---\n{scored}\n---\n\n"
        f"{G24_STEP}\n"
        f"{BOT_STEP_FORMAT}\n"
        "The evaluation score is your confidence in the step, one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0."
    )


def bot_evaluate_prompt(hand: Hand, chain: Sequence[tuple[str, float]], step: str) -> str:
    scored = "\n".join(f"{text}, Evaluation score: {score:g}" for text, score in chain)
    return (
        f"{bot_task(hand)}\n\n"
        f"The reasoning steps so far:\n---\n{scored}\n---\n"
        f"{G24_EVALUATE}\n{step}\n\n"
        f"Score this step for its logic, its correctness and how much it helps to reach "
        f"{hand.target}, "
        "using one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0 (0.1: a critical error; 1.0: correct and "
        f"leads to {hand.target}). Reply on the last line as 'Evaluation score: X'."
    )


def bot_feedback_prompt(hand: Hand, chain: Sequence[str]) -> str:
    steps = "\n".join(f"Step {i}: {text}" for i, text in enumerate(chain, 1))
    return (
        f"Task: {rules(hand)}\nThe numbers are: {hand}.\n"
        f"The reasoning chain:\n---\n{steps}\n---\n"
        "Please do the following:\n"
        f"1. {G24_ANALYSIS} {hand.target} and why.\n"
        "2. For each step write: 'Step <idx>: <analysis>. Advice: <advice>. "
        "Recommendation or Reject: <Recommend|Reject>.' Refer to steps by index only.\n"
        "3. Finish with 'Confidence score: X', X one of 0.1, 0.3, 0.5, 0.7, 0.9, 1.0.\n"
        "Be brief."
    )


BOT_FINAL_REQUEST = G24_FINAL
"""The final prompt's request (I^{T+1}); the offline player knows the prompt by it."""


def bot_final_prompt(hand: Hand, experience: str, examples: bool = False) -> str:
    """BoT's final prompt, the paper's I^{T+1}: the task and every experience entry (and,
    with ``examples``, BoT+CoT's worked examples), asking for the whole chain in the step
    format and then the answer (the paper gives no wording: ours)."""
    return (
        _bot_recall(hand, experience, examples)
        + f"{BOT_FINAL_REQUEST} Write every step, one per line, in this format:\n"
        f"{BOT_STEP_FORMAT}\n"
        "until one number is left; then write the whole calculation on the last line as\n"
        f"Answer: <one expression that uses each number once> = {hand.target}"
    )


BOT_EXAMPLES: tuple[tuple[str, tuple[tuple[int, str, int], ...]], ...] = (
    ("2 3 14 16", ((2, "*", 3), (14, "+", 16), (30, "-", 6))),
    ("5 7 17 19", ((19, "-", 17), (5, "+", 7), (2, "*", 12))),
    ("2 5 11 18", ((5, "+", 18), (23, "-", 11), (2, "*", 12))),
    ("1 4 16 20", ((16, "/", 4), (20, "+", 4), (24, "*", 1))),
    ("4 7 9 30", ((7, "+", 30), (4, "+", 9), (37, "-", 13))),
)
"""BoT+CoT's worked examples (ours; the paper adds five CoT exemplars): hand and moves. Each
hand holds a number above 13, so none is a hand of any benchmark set (every hand of ToT's
data and of our catalogue is of cards 1 to 13); a test replays each one exactly."""


def bot_example_chain(numbers: str, moves: Sequence[tuple[int, str, int]]) -> list[str]:
    """A worked example's steps in BoT's format, the results computed exactly."""
    cur = [Fraction(n) for n in numbers.split()]
    lines = []
    for i, (a, op, b) in enumerate(moves, 1):
        before = format_numbers(sorted(cur))
        for value in (a, b):
            cur.remove(Fraction(value))
        c = combine(Fraction(a), op, Fraction(b))
        assert c is not None
        rest = format_numbers(sorted(cur)) or "none"
        cur.append(c)
        score = ("0.7", "0.9", "1.0")[min(i, 3) - 1]
        lines.append(
            f"Step {i}, Current set: {before}, Two numbers selected: {a} {b}, Operation: {op}, "
            f"New number calculated: {format_number(c)}, Remaining numbers: {rest}, "
            f"New set: {format_numbers(sorted(cur))}, Evaluation score: {score}"
        )
    return lines


def bot_examples() -> str:
    """The worked examples as the step prompt shows them (BoT+CoT)."""
    parts = ["Worked examples of whole chains in this format (other numbers than yours):"]
    for i, (numbers, moves) in enumerate(BOT_EXAMPLES, 1):
        parts.append(f"Example {i}, numbers {numbers}:")
        parts.extend(bot_example_chain(numbers, moves))
    return "\n".join(parts)


CONDENSE_SYSTEM = (
    "You keep a problem solver's notebook short. You rewrite what it has learnt so far into "
    "fewer words without losing a lesson."
)


def bot_condense_prompt(hand: Hand, experience: str) -> str:
    """Cumulative experience: rewrite the whole experience into one shorter text (ours)."""
    return (
        f"Task: {rules(hand)}\nThe numbers are: {hand}.\n\n"
        "The experience gathered so far on this task (reasoning chains, their analyses, "
        "error reports and advice):\n"
        f"#####\n{experience}\n#####\n\n"
        f"{G24_CONDENSE} that keeps every "
        "lesson still worth knowing: the error reports and the advice (which step to avoid "
        "from which numbers), and any chain judged correct in full, in its step format. Drop "
        "repetitions and whatever teaches nothing. Reply with the rewritten experience only."
    )


def bot_similar_prompt(a: str, b: str) -> str:
    """Greedy aggregation's similarity as the paper asks it of the model (our wording)."""
    return (
        f"{G24_SIMILAR}\n"
        f"Step A: {a}\n"
        f"Step B: {b}\n"
        "What percentage of their words and numbers are identical? Two steps that combine "
        "the same numbers with the same operation are the same step. Reply on the last line "
        "as 'Similarity: X%'."
    )


# ---------------------------------------------------------------------- prompts: IoT

IOT_GUIDE_SYSTEM = (
    "You are the inner guide of a solver working on a puzzle. You do not solve it yourself. "
    "Read the solver's last reply and find where it goes wrong or is unsure: a number used "
    "twice or left out, arithmetic that does not hold, a result that is not the target. Then "
    "write the solver its next prompt, speaking to it as 'you': point at the mistake, suggest "
    "what to try or how to check, and never state a hint you are not sure is true. Prefer "
    "another turn to stopping early."
)
IOT_ANSWER_SYSTEM = (
    "You solve a puzzle in a dialogue with your inner guide. Answer the guide's prompt, say "
    "plainly what you are unsure of, and give your best answer every time. Check your "
    "arithmetic before you answer."
)
IOT_GUIDE_FORMAT = '{"guidance": "<your prompt to the solver>", "stop": true or false}'
IOT_ANSWER_FORMAT = G24_IOT_ANSWER
IOT_FINAL_REQUEST = (
    "This is the last turn: give your definitive answer from the whole discussion so far."
)


def iot_guide_prompt(hand: Hand, turns: Sequence[Turn], turn: int, total: int) -> str:
    return (
        f"Query: {rules(hand)}\nThe numbers are: {hand}.\n\n"
        f"This is turn {turn} of at most {total}.\n"
        f"The dialogue so far:\n{iot_transcript(turns)}\n\n"
        f"{G24_IOT_GUIDE} Set stop to true only if the solver's last answer "
        "is complete and correct.\n"
        f"Reply with one JSON object: {IOT_GUIDE_FORMAT}"
    )


def iot_answer_prompt(hand: Hand, turns: Sequence[Turn], guidance: str, mode: str = "free") -> str:
    """``mode``: ``free`` (AIoT: say final when sure), ``discuss`` (GIoT: not final yet) or
    ``close`` (GIoT's last call: the definitive answer)."""
    rule = {
        "free": "If you are sure your answer is complete and correct, set final to true; if "
        "you are unsure, set it to false and keep working.",
        "discuss": "Do not give a final answer yet: set final to false.",
        "close": "Give your definitive final answer now and set final to true.",
    }[mode]
    return (
        f"Query: {rules(hand)}\nThe numbers are: {hand}.\n\n"
        f"The dialogue so far:\n{iot_transcript(turns)}\n\n"
        f"{iot_guide_line(guidance)}\n\n{rule}\n"
        f"Reply with one JSON object: {IOT_ANSWER_FORMAT}"
    )


# ---------------------------------------------------------------------- by role

Builder = Callable[[Hand, Mapping[str, Any]], tuple[Message, ...]]
"""A role's prompt: the messages for one hand, from the arguments the method gives."""


def _value(hand: Hand, args: Mapping[str, Any]) -> tuple[Message, ...]:
    numbers = format_numbers(sorted(args["state"].numbers))
    return messages(value_prompt(numbers, hand.target))


def _step(hand: Hand, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = bot_step_prompt(hand, args["experience"], args["chain"], bool(args.get("examples")))
    return messages(user, BOT_SYSTEM)


def _final(hand: Hand, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = bot_final_prompt(hand, args["experience"], bool(args.get("examples")))
    return messages(user, BOT_SYSTEM)


def _guide(hand: Hand, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = iot_guide_prompt(hand, args["turns"], args["turn"], args["total"])
    return messages(user, IOT_GUIDE_SYSTEM)


def _respond(hand: Hand, args: Mapping[str, Any]) -> tuple[Message, ...]:
    user = iot_answer_prompt(hand, args["turns"], args["guidance"], args["mode"])
    return messages(user, IOT_ANSWER_SYSTEM)


PROMPTS: Mapping[Role, Builder] = MappingProxyType(
    {
        Role.IO: lambda hand, args: messages(io_prompt(hand)),
        Role.COT: lambda hand, args: messages(cot_prompt(hand, args.get("steps", ()))),
        Role.PROPOSE: lambda hand, args: messages(
            propose_prompt(args["state"].left(), hand.target)
        ),
        Role.VALUE: _value,
        Role.JUDGE: lambda hand, args: messages(last_step_prompt(hand, args["answer"])),
        Role.STEP: _step,
        Role.CONDENSE: lambda hand, args: messages(
            bot_condense_prompt(hand, args["experience"]), CONDENSE_SYSTEM
        ),
        Role.SIMILAR: lambda hand, args: messages(bot_similar_prompt(args["a"], args["b"])),
        Role.EVALUATE: lambda hand, args: messages(
            bot_evaluate_prompt(hand, args["chain"], args["step"])
        ),
        Role.ANALYZE: lambda hand, args: messages(
            bot_feedback_prompt(hand, args["chain"]), FEEDBACK_SYSTEM
        ),
        Role.FINAL: _final,
        Role.GUIDE: _guide,
        Role.RESPOND: _respond,
    }
)
"""Each role's prompt. What each is given: ``cot`` (steps: lines so far), ``propose`` /
``value`` (state), ``judge`` (answer), ``step`` (experience: text, chain: (step text, score)
pairs, examples: bool), ``condense`` (experience: text), ``similar`` (a, b: two step lines),
``evaluate`` (chain, step: text), ``analyze`` (chain: step texts; checked: ignored, nothing to
add), ``final`` (experience: text, examples: bool), ``guide`` / ``respond`` (turns, turn,
total; ``respond`` also guidance and mode). The examples role has no prompt of its own: BoT's
step and final prompts carry them."""
