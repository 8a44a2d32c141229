"""How the offline players read BoT's experience block, the one format every kind shares.

BoT puts its experience between two ``#####`` lines. Each entry opens with a heading
(``1. Reasoning chain and comments``; BoT(No) writes ``Reasoning chains of this iteration``),
quotes its chain between ``---`` lines, one ``Step i: ...`` line per step, and then gives each
step's verdict by its index only, after its error report and advice: ``Step 2: Error report:
... Advice: ... Recommendation or Reject: reject``. A reader has to take a verdict's step from
the quoted chain by that index, as a model does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["BLOCK", "ENTRY", "EXPERIENCE", "STEP_LINE", "VERDICT", "Verdict", "verdicts"]

EXPERIENCE = re.compile(r"^#####[ \t]*\n(.*)^#####[ \t]*$", re.MULTILINE | re.DOTALL)
"""The experience block of a BoT prompt (group 1)."""

BLOCK = re.compile(r"^---[ \t]*\n(.*?)^---[ \t]*$", re.MULTILINE | re.DOTALL)
"""A chain quoted between ``---`` lines (group 1)."""

ENTRY = re.compile(r"^\d+\.\s*Reasoning chain.*$", re.MULTILINE)
"""The heading each experience entry opens with."""

VERDICT = re.compile(
    r"^Step\s+(\d{1,3})\s*:.*?Recommendation or Reject\s*:\s*([A-Za-z-]+)",
    re.MULTILINE | re.IGNORECASE,
)
"""A step's verdict line: its index (group 1, at most three digits: no chain is longer) and
the verdict's word (group 2)."""

STEP_LINE = re.compile(r"^Step\s+(\d{1,3})\s*:\s*(.*?)[ \t]*$", re.MULTILINE)
"""A quoted chain's step line: its index (group 1) and the step (group 2)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One step's verdict as an entry gives it: the step's line in the quoted chain (after
    its ``Step i:``), ``reject`` or ``recommend``, and the verdict's whole line (its error
    report and advice)."""

    step: str
    verdict: str
    line: str


def verdicts(text: str) -> Iterator[Verdict]:
    """Every verdict in the experience of a BoT prompt, each joined to the step it names."""
    found = EXPERIENCE.search(text)
    if not found:
        return
    for entry in ENTRY.split(found.group(1))[1:]:
        chain = BLOCK.search(entry)
        if not chain:
            continue
        steps = {int(i): line for i, line in STEP_LINE.findall(chain.group(1))}
        for m in VERDICT.finditer(entry, chain.end()):
            step = steps.get(int(m.group(1)))
            word = m.group(2).lower()
            if step is not None and word.startswith(("reject", "recommend")):
                yield Verdict(step, "reject" if word.startswith("reject") else "recommend", m[0])
