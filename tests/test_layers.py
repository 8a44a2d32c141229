"""The layers only point downwards: puzzles and solver never import textual."""

from __future__ import annotations

import re
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


def _imports(folder: str) -> list[tuple[Path, str]]:
    found = []
    for path in (ROOT / folder).rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*(?:from|import)\s+([A-Za-z_]\w*)", line)
            if m:
                found.append((path, m.group(1)))
    return found


def test_puzzles_do_not_import_solver_or_tui() -> None:
    imports = _imports("puzzles")
    assert len(imports) > 20
    for path, module in imports:
        assert module not in ("solver", "tui", "textual", "openai", "rich"), f"{path}: {module}"


def test_solver_does_not_import_tui() -> None:
    imports = _imports("solver")
    assert len(imports) > 20
    for path, module in imports:
        assert module not in ("tui", "textual"), f"{path}: {module}"


def test_no_eval_on_text() -> None:
    for folder in ("puzzles", "solver", "tui"):
        for path in (ROOT / folder).rglob("*.py"):
            for line in path.read_text(encoding="utf-8").splitlines():
                stripped = line.strip()
                if stripped.startswith("#"):
                    continue
                for banned in ("eval(", "exec(", "sympify(", "parse_expr("):
                    if re.search(rf"(?<!\w){re.escape(banned)}", stripped):
                        raise AssertionError(f"{path}: {stripped}")
