"""The core imports without Textual, no text is ever eval'd, methods and options are listed
only in the catalogue, and no modules import one another in a loop. The floors themselves are
import-linter's contracts in ``pyproject.toml`` (``lint-imports``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def import_cycles(*packages: str) -> list[list[str]]:
    """Each set of modules that import one another in a loop (run-time imports only: a type
    named for mypy alone is no import), found on grimp's graph, the one ``lint-imports``
    reads. Tarjan's strongly connected components, walked without recursion."""
    import grimp

    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in order:
            continue
        walk = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while walk:
            module, nexts = walk[-1]
            step = next(nexts, None)
            if step is not None:
                if step not in order:
                    order[step] = low[step] = len(order)
                    stack.append(step)
                    on_stack.add(step)
                    walk.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[module] = min(low[module], order[step])
                continue
            walk.pop()
            if walk:
                low[walk[-1][0]] = min(low[walk[-1][0]], low[module])
            if low[module] == order[module]:
                part: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == module:
                        break
                if len(part) > 1:
                    cycles.append(sorted(part))
    return cycles


def test_no_two_modules_import_each_other_directly_or_in_a_loop() -> None:
    # import-linter's acyclic_siblings contract covers the parts of a floor; this covers every
    # module of every package, however deep.
    assert import_cycles("puzzles", "solver", "tui", "bench") == []


def test_the_cycle_check_finds_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loopy import b\n")
    (package / "b.py").write_text("import loopy.c\n")
    (package / "c.py").write_text("from loopy.a import *\n")
    (package / "d.py").write_text("import loopy.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("loopy") == [["loopy.a", "loopy.b", "loopy.c"]]
