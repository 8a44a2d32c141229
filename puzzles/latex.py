"""The LaTeX-light of chat models, read as plain arithmetic.

Chat models write arithmetic in a little LaTeX: ``$4 \\times 6 = 24$``, ``\\( 48 \\div 2 \\)``,
``\\frac{8}{3}``, ``\\left( 3 + 5 \\right)``. :func:`plain` rewrites those into the plain notation
:mod:`puzzles.arith` reads (``×``, ``÷``, ``(8/3)``, brackets) and drops the math delimiters
(``$...$``, ``$$``, ``\\( \\)``, ``\\[ \\]``) and spacing commands; it keeps, for every character it
writes, the span of the source it stands for, so a claim found in the plain text is reported
where it stands in the text as written. Nothing is evaluated here; a command it does not know
(``\\sqrt``) is left as written, for the parser to refuse with a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Plain", "plain"]

_COMMAND = re.compile(r"\\([A-Za-z]+|.)", re.DOTALL)
_SYMBOLS = {"times": "×", "cdot": "·", "div": "÷", "ast": "*", "approx": "≈", "sim": "~"}
_SYMBOLS |= {"%": "%", "$": "$", "{": "{", "}": "}"}
_SPACES = {",", ";", ":", "!", " ", "quad", "qquad", "(", ")", "[", "]", "displaystyle"}
_SIZES = {"left", "right", "bigl", "bigr", "Bigl", "Bigr", "big", "Big"}
_FRACS = {"frac", "dfrac", "tfrac"}
_NUMBER = r"\s*(\d+(?:\.\d+)?)\s*"
_SIMPLE_FRAC = re.compile(rf"\{{{_NUMBER}\}}\s*\{{{_NUMBER}\}}")
_OPEN_GROUP = re.compile(r"\s*\{")
# A pair of $ around math: the closing one is not a currency sign (no amount after it).
_MATH_DOLLARS = re.compile(r"\$\$|\$[^$\n]{1,400}?\$(?![\d$]|\.\d)")


@dataclass(frozen=True, slots=True)
class Plain:
    """Plain text and, for each of its characters, the span of the source it stands for."""

    text: str
    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()
    same: bool = False
    """Nothing was rewritten: every character stands for itself."""

    def source(self, start: int, end: int) -> tuple[int, int]:
        """The span of the source that the plain span ``[start, end)`` stands for."""
        if self.same:
            return start, end
        count = len(self.starts)
        if end <= start or start >= count:  # empty, or past the end (a parser's "at the end")
            at = self.starts[start] if start < count else self._length()
            return at, at
        return self.starts[start], self.ends[min(end, count) - 1]

    def _length(self) -> int:
        return self.ends[-1] if self.ends else 0


class _Writer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.frames: list[str] = []  # the braces of a \frac still open: frac1, frac2, group
        self.held: int | None = None  # where a command that writes nothing (\left) began

    def put(self, written: str, start: int, end: int) -> None:
        if self.held is not None and written:
            start, self.held = min(start, self.held), None  # "\left(" stands for "("
        for ch in written:
            self.out.append(ch)
            self.starts.append(start)
            self.ends.append(end)

    def result(self) -> Plain:
        return Plain("".join(self.out), tuple(self.starts), tuple(self.ends))


def _dollar_delimiters(text: str) -> set[int]:
    """Where a ``$`` opens or closes math (never a currency sign: one before an amount)."""
    found: set[int] = set()
    for m in _MATH_DOLLARS.finditer(text):
        if m.group() == "$$":
            found.update((m.start(), m.start() + 1))
        else:
            found.update((m.start(), m.end() - 1))
    return found


def _fraction(w: _Writer, i: int, end: int) -> int:
    """A ``\\frac`` whose command ends at ``end``: ``(8/3)`` for two numbers, else brackets
    around each part and the whole. Right after a number (``2\\frac{1}{2}``, a mixed number or
    a product?) it stays as written, so no reading is made of it."""
    before = w.text[:i].rstrip()[-1:]
    if before.isdigit() or before in (")", "]", "}"):
        w.put(w.text[i:end], i, end)
        return end
    simple = _SIMPLE_FRAC.match(w.text, end)
    if simple is not None:
        w.put(f"({simple.group(1)}/{simple.group(2)})", i, simple.end())
        return simple.end()
    group = _OPEN_GROUP.match(w.text, end)
    if group is None:
        w.put(w.text[i:end], i, end)
        return end
    w.put("((", i, group.end())
    w.frames.append("frac1")
    return group.end()


def _command(w: _Writer, i: int) -> int:
    m = _COMMAND.match(w.text, i)
    if m is None:  # a lone backslash at the end
        w.put("\\", i, i + 1)
        return i + 1
    name, end = m.group(1), m.end()
    if name in _FRACS:
        return _fraction(w, i, end)
    if name in _SYMBOLS:
        w.put(_SYMBOLS[name], i, end)
    elif name in _SPACES:
        w.put(" ", i, end)
    elif name in _SIZES:
        w.held = i if w.held is None else w.held
    else:
        w.put(m.group(), i, end)  # unknown: left for the parser to refuse
    return end


def _brace(w: _Writer, i: int) -> int:
    """A brace inside a ``\\frac``: its parts become brackets, ``}{`` a division."""
    if w.text[i] == "{":
        w.frames.append("group")
        w.put("(", i, i + 1)
        return i + 1
    frame = w.frames.pop()
    if frame == "frac1":
        group = _OPEN_GROUP.match(w.text, i + 1)
        if group is None:
            w.put("}", i, i + 1)  # a \frac without its second part: left unreadable
            return i + 1
        w.frames.append("frac2")
        w.put(")/(", i, group.end())
        return group.end()
    w.put("))" if frame == "frac2" else ")", i, i + 1)
    return i + 1


def plain(text: str) -> Plain:
    """``text`` with its LaTeX-light made plain (see the module's description)."""
    if "\\" not in text and "$" not in text:
        return Plain(text, same=True)
    w = _Writer(text)
    dollars = _dollar_delimiters(text) if "$" in text else set()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i = _command(w, i)
        elif ch in "{}" and w.frames:
            i = _brace(w, i)
        else:
            w.put(" " if i in dollars else ch, i, i + 1)
            i += 1
    return w.result()
