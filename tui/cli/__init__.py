"""The ``ponder`` command line.

``ponder`` opens the app; ``ponder solve``, ``ponder bench``, ``ponder puzzles``,
``ponder verify`` and ``ponder replay`` work headless. Every puzzle kind has its own
sub-parser under ``solve``, ``bench`` and ``puzzles`` (its module here holds its flags), and
the methods' flags are generated from the method catalogue (:mod:`solver.methods`), so a new
method or kind reaches the command line without editing it. Exit codes come from the one
catalogue, :class:`tui.exitcodes.ExitCode`, and ``ponder --help`` lists them. Heavy modules
(rich, openai, sympy, textual) are imported inside the commands so ``ponder --help`` starts
fast.

The modules: ``main`` (parser and dispatch), ``solve``, ``bench``, ``replay``, ``verify``,
``printer`` (readable events), ``options`` (method and model flags), ``kinds`` (one
sub-parser per kind; ``ponder puzzles``), ``usage`` (the one usage error), and one module per
puzzle kind: ``game24``, ``crossword``, ``wordproblem``.
"""

from __future__ import annotations

from tui.cli.main import main

__all__ = ["main"]
