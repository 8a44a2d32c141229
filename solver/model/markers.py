"""The sentences a prompt is known by, written once for the prompt builders and their reader.

Each domain's prompt builder (``solver/domains/*.py``) writes these sentences into its
prompts, and the offline engine (``solver/model/offline/``) tells a call's role from them, as
a model would from the text alone (over HTTP a model sees only the messages, never the call's
purpose). They live here, below both, so that a prompt and its reader cannot drift apart.
"""

from __future__ import annotations

__all__ = [
    "CW_ANALYSIS",
    "CW_CLUE_CHECK",
    "CW_COT",
    "CW_EVALUATE",
    "CW_FINAL",
    "CW_IOT_GUIDE",
    "CW_OPENING",
    "CW_PROPOSE",
    "CW_STEP",
    "G24_ANALYSIS",
    "G24_CONDENSE",
    "G24_COT",
    "G24_EVALUATE",
    "G24_FINAL",
    "G24_IO",
    "G24_IOT_ANSWER",
    "G24_IOT_GUIDE",
    "G24_JUDGE",
    "G24_PROPOSE",
    "G24_SIMILAR",
    "G24_STEP",
    "G24_VALUE",
    "IOT_FIRST_PROMPT",
    "IOT_GUIDE_SAYS",
    "WP_ACT",
    "WP_ANALYSIS",
    "WP_COT",
    "WP_EVALUATE",
    "WP_FINAL",
    "WP_FORMALIZE",
    "WP_IO",
    "WP_IOT_ANSWER",
    "WP_IOT_GUIDE",
    "WP_OPENING",
    "WP_REVISE",
    "WP_STEP",
]

# ---------------------------------------------------------------------- every kind's IoT

IOT_GUIDE_SAYS = "Your guide now says:"
"""IoT's answerer: the line that carries the guide's prompt (the guidance follows it)."""

IOT_FIRST_PROMPT = "No guide has spoken yet: answer the query on your own first."
"""IoT's answerer, told instead of a guide's prompt when it answers first, unguided (the
paper's Algorithm 1, line 1)."""

# ---------------------------------------------------------------------- the Game of 24

G24_IO = "Each input number is used exactly once."
"""IO's rule sentence (the CoT prompt says how to write steps instead)."""

G24_COT = "Each step combines two of the remaining numbers into a new one"
"""CoT's rule (also ToT's answer call: the CoT prompt with the steps so far after ``Steps:``)."""

G24_PROPOSE = "Possible next steps:"
"""ToT's proposal prompt, before each hand's list."""

G24_VALUE = (
    "Try a few combinations, then answer on the last line with one word: sure, likely or "
    "impossible."
)
"""ToT's value prompt."""

G24_JUDGE = "Judge an answer to this game:"
"""ToT's answer judge."""

G24_STEP = "Give exactly one next step that continues from the steps above, in this format:"
"""BoT's step prompt."""

G24_EVALUATE = "The next step to evaluate:"
"""BoT's step evaluation (the step follows on the next line)."""

G24_ANALYSIS = "Under 'Analysis Report:', say whether this chain reaches"
"""BoT's analysis (feedback) prompt."""

G24_FINAL = "Now solve the task in full, using everything the experience teaches."
"""BoT's final prompt's request (I^{T+1})."""

G24_CONDENSE = "Rewrite this experience as one text, shorter than it is now,"
"""BoT's cumulative experience (condensing) prompt."""

G24_SIMILAR = "Compare two reasoning steps."
"""BoT's greedy aggregation's similarity prompt."""

G24_IOT_GUIDE = "Write the solver's next prompt."
"""IoT's guide (the inner dialogue agent)."""

G24_IOT_ANSWER = (
    '{"explanation": "<your reasoning>", "answer": "<one expression that uses each number '
    'once>", "uncertainty": "<what you are unsure of, or empty>", "final": true or false}'
)
"""IoT's answerer: the JSON object its prompt asks for."""

# ---------------------------------------------------------------------- word problems

WP_OPENING = "Solve this math word problem."
"""How every word-problem prompt opens its task."""

WP_IO = "Give only the answer."
"""IO's request."""

WP_COT = "Work step by step: one computation per line"
"""CoT's request (also DELI's first solution)."""

WP_STEP = "Give exactly one next step: one computation that continues from the steps above"
"""BoT's step prompt."""

WP_EVALUATE = G24_EVALUATE
"""BoT's step evaluation: the same sentence as the Game of 24's."""

WP_ANALYSIS = "Under 'Analysis Report:', say whether this chain answers the question"
"""BoT's analysis (feedback) prompt."""

WP_FINAL = G24_FINAL
"""BoT's final prompt: the same request as the Game of 24's."""

WP_IOT_GUIDE = G24_IOT_GUIDE
"""IoT's guide: the same request as the Game of 24's."""

WP_IOT_ANSWER = (
    '{"explanation": "<your computations>", "answer": "<the answer>", "uncertainty": "<what '
    'you are unsure of, or empty>", "final": true or false}'
)
"""IoT's answerer: the JSON object its prompt asks for."""

WP_ACT = "steps; this is step"
"""ReAct's step ("You have at most N steps; this is step i.")."""

WP_FORMALIZE = "\nTrial: "
"""DELI's tool call: the trial solution it formalises, on its own line."""

WP_REVISE = "Check the given solution against the verification and revise it"
"""DELI's revision."""

# ---------------------------------------------------------------------- mini crosswords

CW_OPENING = "mini crossword: write one letter in every open cell"
"""How every crossword prompt but the clue check opens ("Solve a 5 x 5 mini crossword: ...")."""

CW_COT = "First write each answer on its own line"
"""CoT's request (and BoT's final prompt's, after :data:`CW_FINAL`)."""

CW_PROPOSE = "Give candidate answers for the unfilled clues"
"""ToT's proposal prompt."""

CW_CLUE_CHECK = "Crossword clue check:"
"""ToT's value prompt for one clue (how it opens)."""

CW_STEP = "Fill exactly one more unfilled clue"
"""BoT's step prompt."""

CW_EVALUATE = G24_EVALUATE
"""BoT's step evaluation: the same sentence as the Game of 24's."""

CW_ANALYSIS = "Under 'Analysis Report:', say whether these words solve the crossword"
"""BoT's analysis (feedback) prompt."""

CW_FINAL = G24_FINAL
"""BoT's final prompt: the same request as the Game of 24's."""

CW_IOT_GUIDE = G24_IOT_GUIDE
"""IoT's guide: the same request as the Game of 24's."""
