"""The core imports without Textual, no text is ever eval'd, and methods and options are
listed only in the catalogue. The floors themselves are import-linter's contracts in
``pyproject.toml`` (``lint-imports``)."""

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


def _literal_collections(path: Path) -> list[tuple[int, set[str]]]:
    """The string constants of every literal tuple, list, set and dict (keys) in a file."""
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        items: list[ast.expr | None] = []
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        strings = {
            i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)
        }
        if strings:
            out.append((getattr(node, "lineno", 0), strings))
    return out


def test_no_list_of_methods_or_options_outside_the_catalogue() -> None:
    from solver.methods import METHODS, all_options

    names = set(METHODS)
    options = set(all_options()) - {"temperature"}  # a word too common to be a list's sign
    found = []
    # Role and call-purpose names (``io``, ``cot``) live in solver/domains and solver/model:
    # those are a domain's vocabulary, not lists of methods.
    paths = [*(ROOT / "tui").rglob("*.py"), *(ROOT / "solver").glob("*.py")]
    for path in paths:
        for line, strings in _literal_collections(path):
            if len(strings & names) >= 2 or len(strings & options) >= 2:
                found.append(f"{path.relative_to(ROOT)}:{line}: {sorted(strings)[:6]}")
    assert not found, "methods and options come from solver.methods only:\n" + "\n".join(found)


def test_the_list_check_sees_a_list_of_methods(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        'CHOICES = [("BoT", "bot"), ("ToT", "tot")]\nX = {"bot": 1, "io": 2}\n'
    )
    found = _literal_collections(tmp_path / "m.py")
    assert any({"bot", "io"} <= s for _, s in found)
