"""The suite's own shape: no test module imports another (what tests share lives in plain
helper modules or fixtures), and test files are named by what they test, not by how they came
about."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def suite_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def imported(source: str, package: str) -> set[str]:
    """Every module a file of ``package`` with ``source`` imports, relative imports resolved."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def imports_of_test_modules(source: str, package: str) -> list[str]:
    """The test modules among what ``source`` (a file of ``package``) imports."""
    names = imported(source, package)
    return sorted(n for n in names if n.startswith("tests.") and n.rsplit(".", 1)[1][:5] == "test_")


def test_no_test_module_imports_another() -> None:
    found = [
        f"{path.relative_to(TESTS.parent)} imports {name}"
        for path in suite_files()
        for name in imports_of_test_modules(
            path.read_text(encoding="utf-8"), ".".join(path.relative_to(TESTS.parent).parent.parts)
        )
    ]
    assert found == []


def test_the_check_sees_absolute_and_relative_imports() -> None:
    source = (
        "from tests.solver.test_iot import answer\n"
        "from .test_deli import by_purpose\n"
        "from . import test_react\n"
        "import tests.tui.test_app\n"
        "from tests.solver.game24_replies import bot_text\n"
    )
    assert imports_of_test_modules(source, "tests.solver") == [
        "tests.solver.test_deli",
        "tests.solver.test_iot",
        "tests.solver.test_react",
        "tests.tui.test_app",
    ]


def test_test_files_are_named_by_subject() -> None:
    by_history = re.compile(r"^test_mutants_|_decisions\.py$|_done_when\.py$")
    assert [str(p.relative_to(TESTS)) for p in suite_files() if by_history.search(p.name)] == []
