"""GSM8K-style files written by hand, good and broken, for the loaders' tests and the commands
that read them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

# Eight problems written for these tests in GSM8K's format (not taken from GSM8K). They
# cover decimals, a thousands separator in the final answer, an approximate step, a final
# answer stated in prose, fractions, percent and two claims on one line.
FIXTURE = [
    {
        "question": "A baker bakes 36 rolls in the morning and 24 in the afternoon. She sells "
        "45 of them. How many rolls are left?",
        "answer": "She bakes 36+24 = <<36+24=60>>60 rolls.\n"
        "She has 60-45 = <<60-45=15>>15 rolls left.\n#### 15",
    },
    {
        "question": "Tomas buys 4 notebooks at $2.50 each and a pen for $1.25. How many "
        "dollars does he spend?",
        "answer": "The notebooks cost 4*2.50 = $<<4*2.50=10>>10.\n"
        "In total he spends 10+1.25 = $<<10+1.25=11.25>>11.25.\n#### 11.25",
    },
    {
        "question": "A town has 1,250 houses and each puts out 3 bags of rubbish a week. How "
        "many bags is that?",
        "answer": "That is 1250*3 = <<1250*3=3750>>3,750 bags.\n#### 3,750",
    },
    {
        "question": "A 10 km relay is split into 3 equal legs. How long is each leg, in km, to "
        "two decimal places?",
        "answer": "Each leg is 10/3 = <<10/3=3.33>>3.33 km.\n#### 3.33",
    },
    {
        "question": "Mia had 12 stickers and her brother gave her 8 more. How many stickers "
        "does she have?",
        "answer": "Mia has 12+8 = <<12+8=20>>20 stickers.\nSo the answer is 20 stickers.\n#### 20",
    },
    {
        "question": "A tank holds 120 litres and is 3/4 full. How many litres are in it?",
        "answer": "It holds 120*3/4 = <<120*3/4=90>>90 litres.\n#### 90",
    },
    {
        "question": "Of 40 students, 30 passed a test. What percent passed?",
        "answer": "The share that passed is 30/40 = <<30/40=0.75>>0.75.\n"
        "That is 0.75*100 = <<0.75*100=75>>75 percent.\n#### 75",
    },
    {
        "question": "Jo runs 3 km a day for 5 days and 6 km on Saturday. How far does Jo run?",
        "answer": "On weekdays Jo runs 3*5 = <<3*5=15>>15 km, and in all 15+6 = <<15+6=21>>21 "
        "km.\n#### 21",
    },
]


BROKEN = [
    {
        "question": "Ann buys 12 boxes of 3 pens. How many pens?",
        "answer": "She has 12*3 = <<12*3=35>>35 pens.\n#### 35",
    },
    {
        "question": "Ben has 20 marbles, wins 19 and loses 0. How many?",
        "answer": "He has 20+19 = <<20+19=39>>39 marbles.\n#### 40",
    },
    {
        "question": "Cal has 4 bags of 3 apples. How many apples?",
        "answer": "He has <<4 bags * 3=12>>12 apples.\n#### 12",
    },
]


def write_jsonl(path: Path, records: Sequence[Mapping[str, object]], blank_after: int = -1) -> Path:
    lines = []
    for k, record in enumerate(records):
        lines.append(json.dumps(record))
        if k == blank_after:
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
