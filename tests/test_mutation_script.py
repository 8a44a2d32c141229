"""scripts/mutation.py reads mutmut's results and draws samples without running mutmut."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest


def load(tmp_path: Path, codes: dict[str, dict[str, int | None]]) -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "mutation.py"
    spec = importlib.util.spec_from_file_location("mutation_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for source, by_key in codes.items():
        meta = tmp_path / f"{source}.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": by_key}), encoding="utf-8")
    setattr(module, "MUTANTS", tmp_path)  # noqa: B010 - the module is loaded from a path
    return module


CODES: dict[str, dict[str, int | None]] = {
    "solver/methods/x.py": {
        **{f"solver.methods.x.x_f__mutmut_{i}": 1 for i in range(1, 7)},  # killed
        "solver.methods.x.x_f__mutmut_7": 0,  # survived
        "solver.methods.x.x_f__mutmut_8": 36,  # timed out: detected
        "solver.methods.x.x_f__mutmut_9": 33,  # no test reaches it
        "solver.methods.x.x_f__mutmut_10": None,  # not checked yet
    },
    "solver/model/y.py": {f"solver.model.y.x_g__mutmut_{i}": 0 for i in range(1, 4)},
}


def test_the_report_scores_each_file_over_its_checked_mutants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = load(tmp_path, CODES)
    assert script.report([]) == 0
    lines = capsys.readouterr().out.splitlines()
    x = next(line for line in lines if line.startswith("solver/methods/x.py")).split()
    assert x[1:5] == ["9", "7", "1", "1"] and x[5] == "77.8" and "(1 not checked)" in lines[1]
    y = next(line for line in lines if line.startswith("solver/model/y.py")).split()
    assert y[1:6] == ["3", "0", "3", "0", "0.0"]
    assert lines[-1].split()[1:6] == ["12", "7", "4", "1", "58.3"]


def test_survivors_lists_what_no_test_noticed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = load(tmp_path, CODES)
    script.survivors("solver/methods/x.py")
    assert capsys.readouterr().out.split() == [
        "solver.methods.x.x_f__mutmut_7", "solver.methods.x.x_f__mutmut_9"
    ]  # fmt: skip


def test_a_sample_is_drawn_per_file_the_same_for_a_seed_and_scored_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = load(tmp_path, CODES)
    files = ["solver/methods/x.py", "solver/model/y.py"]
    drawn = script.sample(files, 4, 0)
    assert drawn == script.sample(files, 4, 0) and len(drawn) == 4 + 3  # y has only three
    assert len(set(drawn)) == 7 and all(name in CODES[name.split(".x_")[0].replace(".", "/")
                                        + ".py"] for name in drawn)  # fmt: skip
    draws = {tuple(script.sample(files, 4, seed)) for seed in range(20)}
    assert len(draws) > 1  # the seed changes the draw
    script.report(["solver/methods/x.py"], drawn)
    row = capsys.readouterr().out.splitlines()[1].split()
    x_drawn = [n for n in drawn if n.startswith("solver.methods.x.")]
    checked = [n for n in x_drawn if CODES["solver/methods/x.py"][n] is not None]
    assert row[0] == "solver/methods/x.py" and int(row[1]) == len(checked)
    with pytest.raises(SystemExit, match=r"no mutants of solver/other\.py yet"):
        script.sample(["solver/other.py"], 4, 0)
