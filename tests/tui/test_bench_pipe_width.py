"""``ponder bench`` printed into a pipe or a file prints its table whole, at the table's own
width: the cost, time and paper columns are never cut to "…" to fit 80 columns."""

from __future__ import annotations

import re

import pytest

from solver.methods import METHODS
from tui.cli import main


def test_a_piped_bench_table_is_printed_at_its_natural_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # what a pipe gets from a terminal 80 columns wide
    argv = ["bench", "wordproblem", "--generated", "3", "--method", "cot,deli", "--no-plot"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert "…" not in out
    lines = out.splitlines()
    (header,) = [line for line in lines if line.startswith("method ")]
    for column in ("cost", "time", "paper"):
        assert column in header.split(), header
    rows = lines[lines.index(header) + 1 : lines.index(header) + 3]
    assert [row.split()[0] for row in rows] == ["cot", "deli"]
    for row in rows:
        assert re.search(r" \$\d+\.\d{4} +\d+\.\d{2}s ", row), row  # cost and time whole
    assert rows[1].rstrip().endswith(METHODS["deli"].paper["wordproblem"])
    assert max(len(line) for line in lines) > 80  # wider than the 80 columns it was cut to
