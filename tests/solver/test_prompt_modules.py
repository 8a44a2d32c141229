"""Each kind's prompts live in a module of their own, apart from its parsers, as one table from
role to builder; every sentence a prompt is known by is written once, in
:mod:`solver.model.markers`, and imported where it is written and where it is read."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from solver.domains import (
    crossword,
    crossword_prompts,
    game24,
    game24_prompts,
    wordproblem,
    wordproblem_prompts,
)
from solver.domains.base import RolesMissing
from solver.kinds import KINDS
from solver.model import markers
from solver.roles import Role

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = {
    "game24": (game24, game24_prompts),
    "crossword": (crossword, crossword_prompts),
    "wordproblem": (wordproblem, wordproblem_prompts),
}


@pytest.mark.parametrize("kind", list(PROMPTS))
def test_a_kind_has_one_prompt_builder_for_every_role_it_declares(kind: str) -> None:
    domain_module, prompt_module = PROMPTS[kind]
    # The examples role is a capability of BoT's step and final prompts, with no call.
    assert set(prompt_module.PROMPTS) == domain_module.ROLES - {Role.EXAMPLES}
    assert KINDS[kind].roles == domain_module.ROLES


@pytest.mark.parametrize("kind", list(PROMPTS))
def test_a_role_a_kind_lacks_is_refused_in_plain_words(kind: str) -> None:
    spec = KINDS[kind]
    assert spec.generate is not None
    domain = spec.make_domain(spec.generate(1))
    lacking = sorted(set(Role) - spec.roles)
    for role in [*lacking, Role.EXAMPLES]:
        with pytest.raises(RolesMissing, match=f"has no {role} prompt"):
            domain.prompt(role)


@pytest.mark.parametrize("kind", list(PROMPTS))
def test_a_kind_s_prompts_load_without_its_parsers(kind: str) -> None:
    code = (
        "import sys\n"
        f"import solver.domains.{kind}_prompts\n"
        f"print('solver.domains.{kind}' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"


def _strings(path: Path) -> list[str]:
    """Every string literal in a module's code, f-strings' literal parts included (not its
    docstrings, which may quote a sentence to say what reads it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    notes = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in notes
    ]


def test_a_marker_sentence_is_written_once() -> None:
    sentences = {
        name: getattr(markers, name)
        for name in markers.__all__
        if len(getattr(markers, name).strip()) >= 12  # a sentence, not a fragment
    }
    assert {"CW_STEP", "CW_CLUE_CHECK", "WP_OPENING", "IOT_GUIDE_SAYS"} <= set(sentences)
    for path in sorted((ROOT / "solver").rglob("*.py")):
        if path.name == "markers.py":
            continue
        for literal in _strings(path):
            for name, sentence in sentences.items():
                assert sentence not in literal, f"{path.relative_to(ROOT)} copies {name}"
