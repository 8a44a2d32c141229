"""How every offline player reads BoT's experience block: each verdict joined, by its index,
to the step the entry's quoted chain gives that index."""

from __future__ import annotations

from solver.model.offline.experience import Verdict, verdicts


def prompt(experience: str) -> str:
    return (
        "Solve it.\n#####\n"
        f"{experience}\n"
        "#####\n\nThe reasoning steps so far:\n---\nStep 1: 9 - 2 = 7\n---\n"
    )


def test_each_verdict_is_joined_to_the_step_its_index_names() -> None:
    text = prompt(
        "1. Reasoning chain and comments\n---\nStep 1: 4 + 8 = 12\nStep 2: 12 * 2 = 24\n---\n"
        "Analysis Report: fine.\n"
        "Step 2: Error report: none. Advice: keep. Recommendation or Reject: RECOMMEND\n"
        "Step 1: Error report: no. Advice: drop. Recommendation or Reject: reject\n"
        "Step 3: Advice: ?. Recommendation or Reject: reject\n"  # no step 3 in the chain
        "Step 1: Advice: ?. Recommendation or Reject: maybe\n"  # not a verdict
    )
    assert list(verdicts(text)) == [
        Verdict(
            "12 * 2 = 24",
            "recommend",
            "Step 2: Error report: none. Advice: keep. Recommendation or Reject: RECOMMEND",
        ),
        Verdict(
            "4 + 8 = 12",
            "reject",
            "Step 1: Error report: no. Advice: drop. Recommendation or Reject: reject",
        ),
    ]


def test_every_entry_is_read_after_one_without_a_chain() -> None:
    text = prompt(
        "1. Reasoning chain and comments\nAnalysis Report: the reply had no steps.\n"
        "Step 1: Advice: ?. Recommendation or Reject: reject\n"
        "2. Reasoning chain and comments\n---\nStep 1: 3 * 8 = 24\n---\n"
        "Step 1: Advice: keep. Recommendation or Reject: recommend\n"
    )
    assert [(v.step, v.verdict) for v in verdicts(text)] == [("3 * 8 = 24", "recommend")]


def test_a_chain_step_that_quotes_the_verdict_format_is_not_a_verdict() -> None:
    # A model may echo the format inside a step; only the lines after the chain are verdicts.
    text = prompt(
        "1. Reasoning chain and comments\n---\n"
        "Step 1: 4 + 8 = 12 Recommendation or Reject: reject\nStep 2: 12 * 2 = 24\n---\n"
        "Step 2: Advice: keep. Recommendation or Reject: recommend\n"
    )
    assert [(v.step, v.verdict) for v in verdicts(text)] == [("12 * 2 = 24", "recommend")]


def test_absurd_indices_and_no_experience_read_as_nothing() -> None:
    huge = "9" * 5000  # int() refuses a number this long: it is never converted
    text = prompt(
        f"1. Reasoning chain and comments\n---\nStep {huge}: 4 + 8 = 12\nStep 1000: 1 + 1 = 2\n"
        f"---\nStep {huge}: Recommendation or Reject: reject\n"
        "Step 1000: Recommendation or Reject: reject\n"
    )
    assert list(verdicts(text)) == []
    assert list(verdicts("no experience here\n---\nStep 1: 1 + 1 = 2\n---")) == []
