"""The layers only point downwards: puzzles and solver never import textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_core_imports_without_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import puzzles, solver\n"
        "for pkg in (puzzles, solver):\n"
        "    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len([m for m in sys.modules if m.startswith(('puzzles', 'solver'))]))\n"
        "sys.exit('textual imported: ' + ', '.join(bad[:5]) if bad else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert int(result.stdout.strip()) > 10  # the walk really imported the modules


def test_puzzles_do_not_import_solver_or_tui() -> None:
    for path in (ROOT / "puzzles").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for banned in (
            "import solver",
            "from solver",
            "import tui",
            "from tui",
            "textual",
            "openai",
        ):
            assert banned not in text, f"{path} mentions {banned!r}"


def test_solver_does_not_import_tui() -> None:
    for path in (ROOT / "solver").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for banned in ("import tui", "from tui", "import textual", "from textual"):
            assert banned not in text, f"{path} mentions {banned!r}"


def test_no_eval_on_text() -> None:
    for folder in ("puzzles", "solver", "tui"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for banned in ("eval(", "exec(", "sympify(", "parse_expr("):
                for line in text.splitlines():
                    stripped = line.strip()
                    if banned in stripped and not stripped.startswith("#"):
                        assert f".{banned}" in stripped or f"_{banned}" in stripped, (
                            f"{path}: {stripped}"
                        )
