"""Crosswords from files: Tree of Thoughts' mini crossword JSON, ipuz, and Across Lite .puz.

* **ToT's JSON** (``src/tot/data/crosswords/mini0505.json`` in princeton-nlp/tree-of-thought-llm):
  a JSON list of puzzles, each ``[clues, board]`` with ``clues`` the 10 strings h1-h5 then
  v1-v5 and ``board`` the 25 answer letters row by row (a list of letters or one string);
  h_i is row i and v_i column i of a 5 x 5 grid without blocks. A file holding a single
  ``[clues, board]`` pair is read too.
* **ipuz** (an open JSON format, ipuz.org): one puzzle whose ``kind`` names a crossword,
  with ``dimensions``, a ``puzzle`` grid of numbers and ``#`` blocks, a ``solution`` grid and
  ``clues`` ``Across``/``Down`` given as ``[number, text]`` pairs or ``{"number", "clue"}``
  objects (their ``enumeration`` and ``answer``, when present, are kept for checking).
  A JSONP wrapper ``ipuz(...)`` is accepted.
* **.puz** (Across Lite's binary format): header, solution and fill grids, then title,
  author, copyright, the clues in numbering order (across before down for a shared number)
  and notes, as NUL-terminated strings in ISO-8859-1 (Windows-1252 where it differs;
  UTF-8 for version 2.0 files). Checksums are verified on request; scrambled (locked)
  puzzles are refused, since their solution is unreadable without the key. Rebus extras are
  ignored: the solution grid's own letter stands.

:func:`load_crosswords` tells the formats apart by content. Files are read through the file
guard (:mod:`puzzles.files`). Anything wrong with a file — missing, a directory, a pipe or
device, larger than :data:`MAX_CROSSWORD_BYTES`, more than :data:`MAX_PUZZLES` puzzles, not
UTF-8 where JSON is expected, bad JSON, nested too deeply, the wrong shape, wrong letter
counts, clues that match no entry, an enumeration that is not word lengths — raises
:class:`PuzzleFileError` naming the file (and the puzzle, for ToT's lists) and the problem.
Clues missing from an ipuz file load as empty and show up in
:meth:`~puzzles.crossword.model.Crossword.problems` instead, so ``--check`` can report them.
"""

from __future__ import annotations

import codecs
import html
import os
import re
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from puzzles.crossword.model import (
    BLOCK,
    LETTERS,
    MAX_SIZE,
    Clue,
    Crossword,
    CrosswordError,
    Direction,
    Grid,
    Slot,
)
from puzzles.files import (
    MAX_FILE_BYTES,
    PuzzleFileError,
    decode_text,
    parse_json,
    read_file,
)

__all__ = [
    "MAX_CROSSWORD_BYTES",
    "MAX_FILE_BYTES",
    "MAX_PUZZLES",
    "TOT_MINIS",
    "PuzzleFileError",
    "detect_format",
    "load_crosswords",
    "load_ipuz",
    "load_puz",
    "load_tot",
    "load_tot_minis",
    "parse_ipuz",
    "parse_puz",
    "parse_tot",
    "to_ipuz",
    "to_tot",
    "tot_puzzle",
]

PUZ_MAGIC = b"ACROSS&DOWN\x00"
MAX_CROSSWORD_BYTES = 8 * 1024 * 1024
"""Largest crossword file read, in bytes: room for :data:`MAX_PUZZLES` minis written out
with indentation; a 64 x 64 ipuz puzzle is well under 1 MB."""
MAX_PUZZLES = 5_000
"""Most puzzles in one file (ToT's set has 156): a full file loads in about 1 s and checks in
under 3 s, where fifty times as many took most of a minute and 1.4 GB."""
MAX_ENUMERATION = 40
"""Longest enumeration (``3,4`` or ``2-5``) read from a clue, in characters."""
MAX_CLUE_CHARS = 2_000
"""Longest clue read, in characters: published clues run to a couple of hundred; a longer
one is a damaged or hostile file, and would fill every screen and prompt it reaches."""
_TOT_CLUES = ("h1", "h2", "h3", "h4", "h5", "v1", "v2", "v3", "v4", "v5")
TOT_MINIS = Path(__file__).parent / "data" / "mini0505.json"
"""ToT's 156 minis, bundled unchanged with their MIT notice (``data/LICENSE-tree-of-thought-llm``);
rows 0:100:5 are the paper's test set."""


# --- reading files ---------------------------------------------------------------------------


def _read_bytes(path: Path) -> bytes:
    data = read_file(path, what="puzzle file", max_bytes=MAX_CROSSWORD_BYTES, error=PuzzleFileError)
    if not data.strip():
        raise PuzzleFileError(path, "is empty")
    return data


def _json(path: str | os.PathLike[str], data: bytes) -> Any:
    text = decode_text(data, path, error=PuzzleFileError)
    stripped = text.strip()
    if stripped.startswith("ipuz"):
        jsonp = re.fullmatch(r"ipuz\s*\((.*)\)\s*;?", stripped, re.DOTALL)
        if jsonp:
            stripped = jsonp.group(1)
    return parse_json(stripped, path, error=PuzzleFileError)


def detect_format(data: bytes) -> str:
    """``puz``, ``ipuz`` or ``tot`` from a file's bytes (a guess for anything else: ``tot``
    for a JSON list, ``ipuz`` for a JSON object)."""
    if PUZ_MAGIC in data[:4096]:
        return "puz"
    head = data.lstrip(codecs.BOM_UTF8 + b" \t\r\n")[:16]
    if head.startswith(b"[") or head.startswith(codecs.BOM_UTF8 + b"["):
        return "tot"
    return "ipuz"


def load_crosswords(
    path: str | os.PathLike[str], *, verify_checksums: bool = False
) -> list[Crossword]:
    """Every crossword in a file of any of the three formats (told apart by content)."""
    file = Path(path)
    data = _read_bytes(file)
    kind = detect_format(data)
    if kind == "puz":
        return [parse_puz(data, file, verify_checksums=verify_checksums)]
    if file.suffix.lower() == ".puz":
        raise PuzzleFileError(file, "is not an Across Lite .puz file (no ACROSS&DOWN header)")
    parsed = _json(file, data)
    if isinstance(parsed, list):
        return parse_tot(parsed, file)
    if isinstance(parsed, dict):
        return [parse_ipuz(parsed, file)]
    raise PuzzleFileError(
        file, f"holds a JSON {type(parsed).__name__}; expected a ToT list or an ipuz object"
    )


def load_tot(path: str | os.PathLike[str]) -> list[Crossword]:
    """The puzzles of a ToT mini crossword JSON file."""
    file = Path(path)
    return parse_tot(_json(file, _read_bytes(file)), file)


def load_tot_minis() -> list[Crossword]:
    """ToT's bundled set (:data:`TOT_MINIS`), read like any ToT file."""
    return load_tot(TOT_MINIS)


def load_ipuz(path: str | os.PathLike[str]) -> Crossword:
    """The crossword in an ipuz file."""
    file = Path(path)
    return parse_ipuz(_json(file, _read_bytes(file)), file)


def load_puz(path: str | os.PathLike[str], *, verify_checksums: bool = False) -> Crossword:
    """The crossword in an Across Lite .puz file."""
    file = Path(path)
    return parse_puz(_read_bytes(file), file, verify_checksums=verify_checksums)


# --- ToT ------------------------------------------------------------------------------------


def tot_puzzle(clues: Sequence[str], letters: Sequence[str] | str, **meta: Any) -> Crossword:
    """A 5 x 5 mini from ToT's ``clues`` (h1-h5, v1-v5) and ``letters`` (25, row by row);
    :class:`CrosswordError` when they are not that."""
    if isinstance(clues, str) or not isinstance(clues, Sequence):
        raise CrosswordError("the clues are not a list")
    if len(clues) != 10:
        raise CrosswordError(f"there are {len(clues)} clues; a 5x5 mini has 10 (h1-h5, v1-v5)")
    for name, clue in zip(_TOT_CLUES, clues, strict=True):
        if not isinstance(clue, str):
            raise CrosswordError(f"clue {name} is a {type(clue).__name__}, not text")
        if len(clue) > MAX_CLUE_CHARS:
            raise CrosswordError(
                f"clue {name} is {len(clue):,} characters long; at most {MAX_CLUE_CHARS:,} are read"
            )
    if isinstance(letters, str):
        cells = list(letters.strip().replace(" ", ""))
    elif isinstance(letters, Sequence):
        cells = list(letters)
    else:
        raise CrosswordError("the board is not a list of letters")
    if len(cells) != 25:
        raise CrosswordError(f"the board has {len(cells)} letters; a 5x5 mini needs 25")
    for index, cell in enumerate(cells):
        if not isinstance(cell, str) or len(cell.strip()) != 1:
            raise CrosswordError(f"board cell {index + 1} is {cell!r}, not one letter")
        if cell.strip().upper() not in LETTERS:
            raise CrosswordError(f"board cell {index + 1} holds {cell!r}, not a letter A-Z")
    flat = "".join(c.strip().upper() for c in cells)
    rows = tuple(flat[i : i + 5] for i in range(0, 25, 5))
    return Crossword.from_clues(rows, dict(zip(_TOT_CLUES, clues, strict=True)), **meta)


def parse_tot(data: Any, path: str | os.PathLike[str] = "<data>") -> list[Crossword]:
    """ToT's list of ``[clues, board]`` puzzles (already parsed from JSON)."""
    if not isinstance(data, list):
        raise PuzzleFileError(path, "is not a JSON list of [clues, board] puzzles")
    if _is_tot_entry(data):
        data = [data]
    if not data:
        raise PuzzleFileError(path, "holds no puzzles")
    if len(data) > MAX_PUZZLES:
        raise PuzzleFileError(
            path, f"holds {len(data):,} puzzles; at most {MAX_PUZZLES:,} are read from one file"
        )
    name = Path(os.fspath(path)).name
    puzzles = []
    for number, entry in enumerate(data, start=1):
        if not isinstance(entry, list | tuple) or len(entry) != 2:
            got = f"a list of {len(entry)}" if isinstance(entry, list) else type(entry).__name__
            raise PuzzleFileError(path, f"is {got}; expected [clues, board]", puzzle=number)
        try:
            puzzles.append(
                tot_puzzle(entry[0], entry[1], title=f"Mini {number}", source=f"{name} #{number}")
            )
        except CrosswordError as exc:
            raise PuzzleFileError(path, str(exc), puzzle=number) from None
    return puzzles


def _is_tot_entry(data: list[Any]) -> bool:
    return (
        len(data) == 2
        and isinstance(data[0], list)
        and len(data[0]) == 10
        and all(isinstance(c, str) for c in data[0])
        and (isinstance(data[1], str) or all(isinstance(c, str) for c in data[1]))
    )


def to_tot(crossword: Crossword) -> list[Any]:
    """``[clues, letters]`` in ToT's format; :class:`CrosswordError` unless the crossword is
    a 5 x 5 grid without blocks."""
    grid = crossword.grid
    if (grid.height, grid.width, grid.blocks) != (5, 5, 0):
        raise CrosswordError("ToT's format holds only 5x5 grids without blocks")
    clues = [crossword.public_view().clue(name).text for name in _TOT_CLUES]
    return [clues, list("".join(crossword.solution))]


# --- ipuz -----------------------------------------------------------------------------------


def parse_ipuz(data: Any, path: str | os.PathLike[str] = "<data>") -> Crossword:
    """A crossword from an ipuz document (already parsed from JSON)."""
    try:
        return _playable(_parse_ipuz(data, path), path)
    except CrosswordError as exc:
        raise PuzzleFileError(path, str(exc)) from None


def _playable(crossword: Crossword, path: str | os.PathLike[str]) -> Crossword:
    """The crossword, unless it has no word to play or a clue longer than
    :data:`MAX_CLUE_CHARS` (:class:`PuzzleFileError` saying which)."""
    if not crossword.grid.slots:
        raise PuzzleFileError(path, "has no words: no run of two or more letters across or down")
    for clue in crossword.clues:
        if len(clue.text) > MAX_CLUE_CHARS:
            raise PuzzleFileError(
                path,
                f"clue {clue.slot.label} is {len(clue.text):,} characters long; "
                f"at most {MAX_CLUE_CHARS:,} are read",
            )
    return crossword


def _parse_ipuz(data: Any, path: str | os.PathLike[str]) -> Crossword:
    if not isinstance(data, dict):
        raise PuzzleFileError(path, "is not an ipuz object")
    kinds = data.get("kind")
    if not isinstance(kinds, list) or not any(
        isinstance(k, str) and "ipuz.org/crossword" in k for k in kinds
    ):
        raise PuzzleFileError(path, f"is not an ipuz crossword (kind is {kinds!r:.80})")
    block = _text_field(data, "block", path) or BLOCK
    empty = data.get("empty", 0)
    dims = data.get("dimensions")
    if not isinstance(dims, dict):
        raise PuzzleFileError(path, "has no dimensions (width and height)")
    width, height = dims.get("width"), dims.get("height")
    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SIZE:
            raise PuzzleFileError(path, f"has a bad {name} {value!r:.20} (1 to {MAX_SIZE})")
    assert isinstance(width, int) and isinstance(height, int)
    puzzle = _grid_field(data, "puzzle", width, height, path)
    solution = _grid_field(data, "solution", width, height, path)

    numbers: dict[int, tuple[int, int]] = {}
    rows: list[str] = []
    for r in range(height):
        row = []
        for c in range(width):
            shape = _cell_value(puzzle[r][c], "cell")
            answer = _cell_value(solution[r][c], "value")
            is_block = shape is None or shape == block or answer is None or answer == block
            if is_block:
                row.append(BLOCK)
                continue
            if shape != empty and str(shape).strip() not in ("", "0"):
                try:
                    numbers[int(str(shape))] = (r, c)
                except ValueError:
                    raise PuzzleFileError(
                        path, f"puzzle cell {r + 1},{c + 1} holds {shape!r:.20}, not a number"
                    ) from None
            letter = str(answer).strip().upper()
            if len(letter) != 1:
                problem = "is empty" if not letter else f"holds {letter[:12]!r} (a rebus)"
                raise PuzzleFileError(
                    path, f"solution cell {r + 1},{c + 1} {problem}; one letter per cell"
                )
            row.append(letter)
        rows.append("".join(row))
    grid = Grid.parse(rows)
    by_start = {(s.row, s.col, s.direction): s for s in grid.slots}

    clues_field = data.get("clues")
    if not isinstance(clues_field, dict):
        raise PuzzleFileError(path, "has no clues (an object with Across and Down lists)")
    clues: dict[Slot, Clue] = {}
    stated: list[tuple[str, str]] = []
    for key, items in clues_field.items():
        try:
            direction = Direction.parse(str(key).split(":")[0])
        except CrosswordError:
            raise PuzzleFileError(
                path, f"has clues under {key!r:.30}, not Across or Down"
            ) from None
        if not isinstance(items, list):
            raise PuzzleFileError(path, f"the {key} clues are not a list")
        for item in items:
            number, text, enumeration, answer = _ipuz_clue(item, key, path)
            start = numbers.get(number)
            slot = by_start.get((*start, direction)) if start else None
            if slot is None:
                raise PuzzleFileError(
                    path, f"clue {number} {direction.value} matches no {direction.value} entry"
                )
            if slot in clues:
                raise PuzzleFileError(path, f"two clues for {number} {direction.value}")
            clues[slot] = Clue(slot, text, enumeration)
            if answer:
                stated.append((slot.label, answer))
    for slot in grid.slots:
        clues.setdefault(slot, Clue(slot, ""))  # reported by Crossword.problems()
    return Crossword(
        tuple(rows),
        tuple(clues.values()),
        title=_text_field(data, "title", path),
        author=_text_field(data, "author", path),
        copyright=_text_field(data, "copyright", path),
        notes=_text_field(data, "notes", path) or _text_field(data, "intro", path),
        source=Path(os.fspath(path)).name,
        stated=tuple(stated),
    )


def _text_field(data: dict[str, Any], name: str, path: str | os.PathLike[str]) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PuzzleFileError(path, f"its {name} is a {type(value).__name__}, not text")
    return _plain(value)


def _plain(text: str) -> str:
    """ipuz text may carry a little HTML (``<i>``, ``&amp;``): the words only."""
    return html.unescape(re.sub(r"<[^>]{0,200}>", "", text)).strip()


def _grid_field(
    data: dict[str, Any], name: str, width: int, height: int, path: str | os.PathLike[str]
) -> list[list[Any]]:
    grid = data.get(name)
    if not isinstance(grid, list):
        raise PuzzleFileError(path, f"has no {name} grid")
    if len(grid) != height:
        raise PuzzleFileError(path, f"its {name} grid has {len(grid)} rows; height is {height}")
    for r, row in enumerate(grid, start=1):
        if not isinstance(row, list) or len(row) != width:
            size = len(row) if isinstance(row, list) else type(row).__name__
            raise PuzzleFileError(path, f"{name} row {r} has {size} cells; width is {width}")
    return grid


def _cell_value(cell: Any, key: str) -> Any:
    if isinstance(cell, dict):
        return cell.get(key, 0 if key == "cell" else None)
    return cell


def _ipuz_clue(item: Any, key: str, path: str | os.PathLike[str]) -> tuple[int, str, str, str]:
    enumeration = answer = ""
    if isinstance(item, list) and len(item) >= 2:
        number, text = item[0], item[1]
    elif isinstance(item, dict):
        number, text = item.get("number"), item.get("clue", "")
        enumeration = str(item.get("enumeration", "") or "")
        answer = str(item.get("answer", "") or "")
    else:
        raise PuzzleFileError(path, f"a {key} clue is {item!r:.40}; expected [number, text]")
    if isinstance(number, bool) or not isinstance(number, int | str):
        raise PuzzleFileError(path, f"a {key} clue has the number {number!r:.20}")
    try:
        value = int(str(number).strip())
    except ValueError:
        raise PuzzleFileError(path, f"a {key} clue has the number {number!r:.20}") from None
    if not isinstance(text, str):
        raise PuzzleFileError(path, f"clue {value} {key} is a {type(text).__name__}, not text")
    enumeration = enumeration.strip()
    if len(enumeration) > MAX_ENUMERATION or re.search(r"\d{4}", enumeration):
        shown = enumeration if len(enumeration) <= 20 else enumeration[:20] + "..."
        raise PuzzleFileError(
            path, f"clue {value} {key} has the enumeration {shown!r}, not word lengths"
        )
    return value, _plain(text), enumeration, answer.strip()


def to_ipuz(crossword: Crossword) -> dict[str, Any]:
    """The crossword as an ipuz document (a dict ready for :func:`json.dumps`)."""
    grid = crossword.grid
    puzzle = [
        [
            BLOCK if grid.is_block((r, c)) else (grid.number_at((r, c)) or 0)
            for c in range(grid.width)
        ]
        for r in range(grid.height)
    ]
    out: dict[str, Any] = {
        "version": "http://ipuz.org/v2",
        "kind": ["http://ipuz.org/crossword#1"],
        "dimensions": {"width": grid.width, "height": grid.height},
        "puzzle": puzzle,
        "solution": [list(row) for row in crossword.solution],
        "clues": {
            "Across": [[e.slot.number, e.clue.text] for e in crossword.across],
            "Down": [[e.slot.number, e.clue.text] for e in crossword.down],
        },
    }
    for name in ("title", "author", "copyright", "notes"):
        value = getattr(crossword, name)
        if value:
            out[name] = value
    return out


# --- .puz -----------------------------------------------------------------------------------

_HEADER = struct.Struct("<H12sH4s4s4sH H12s BBH H H")
"""Checksum, magic, CIB checksum, masked low and high checksums, version, reserved,
scrambled checksum, reserved, width, height, clue count, puzzle type, scrambled tag."""
assert _HEADER.size == 0x34


def _checksum(data: bytes, value: int = 0) -> int:
    """Across Lite's 16-bit rotating checksum."""
    for byte in data:
        value = ((value >> 1) | 0x8000 if value & 1 else value >> 1) + byte
        value &= 0xFFFF
    return value


def _decode(raw: bytes, utf8: bool) -> str:
    if utf8:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass  # a 2.0 file written by a program that kept Windows-1252: read it as that
    try:
        return raw.decode("cp1252")  # what Across Lite writes; a superset of Latin-1's letters
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse_puz(
    data: bytes, path: str | os.PathLike[str] = "<data>", *, verify_checksums: bool = False
) -> Crossword:
    """A crossword from the bytes of an Across Lite .puz file."""
    start = data.find(PUZ_MAGIC)
    if start < 2:
        raise PuzzleFileError(path, "is not an Across Lite .puz file (no ACROSS&DOWN header)")
    base = start - 2  # some files carry junk before the header; it starts 2 bytes earlier
    if len(data) < base + _HEADER.size:
        raise PuzzleFileError(path, "is cut short inside its header")
    (
        file_sum,
        _,
        cib_sum,
        masked_low,
        masked_high,
        version_raw,
        _,
        _,
        _,
        width,
        height,
        clue_count,
        _,
        scrambled,
    ) = _HEADER.unpack_from(data, base)
    version = version_raw.split(b"\x00")[0].decode("ascii", errors="replace")
    utf8 = version.startswith("2.")
    if not (1 <= width <= MAX_SIZE and 1 <= height <= MAX_SIZE):
        raise PuzzleFileError(path, f"has a {width} x {height} grid (1 to {MAX_SIZE} a side)")
    if scrambled:
        raise PuzzleFileError(path, "is scrambled (locked); unlock it in its own program first")
    cells = width * height
    at = base + _HEADER.size
    solution_raw = data[at : at + cells]
    fill_raw = data[at + cells : at + 2 * cells]
    if len(fill_raw) != cells:
        raise PuzzleFileError(path, "is cut short inside its grids")
    at += 2 * cells
    strings: list[bytes] = []
    for _ in range(3 + clue_count + 1):
        end = data.find(b"\x00", at)
        if end < 0:
            if len(strings) == 3 + clue_count:  # some writers leave out empty notes
                strings.append(b"")
                break
            raise PuzzleFileError(
                path, f"is cut short: {max(0, len(strings) - 3)} of {clue_count} clues found"
            )
        strings.append(data[at:end])
        at = end + 1
    title, author, copyright_, *clue_raw, notes = strings

    if verify_checksums:
        _verify(
            path,
            data[base + 0x2C : base + 0x34],
            solution_raw,
            fill_raw,
            strings,
            version,
            (file_sum, cib_sum, masked_low, masked_high),
        )

    rows = []
    for r in range(height):
        row = []
        for c in range(width):
            ch = chr(solution_raw[r * width + c])
            if ch in ".:":  # ':' marks a block in diagramless puzzles
                row.append(BLOCK)
            elif ch.upper() in LETTERS:
                row.append(ch.upper())
            else:
                # '-' marks an empty square of the fill grid: the header's size is wrong.
                hint = (
                    f" (the header's {width} x {height} does not fit the grids)"
                    if ch == "-"
                    else ""
                )
                raise PuzzleFileError(
                    path, f"solution cell {r + 1},{c + 1} holds {ch!r}, not a letter{hint}"
                )
        rows.append("".join(row))
    try:
        grid = Grid.parse(rows)
    except CrosswordError as exc:
        raise PuzzleFileError(path, str(exc)) from None
    ordered = sorted(grid.slots, key=lambda s: (s.number, s.direction is Direction.DOWN))
    if len(ordered) != clue_count:
        raise PuzzleFileError(
            path, f"has {clue_count} clues but its grid has {len(ordered)} entries"
        )
    clues = tuple(
        Clue(slot, _decode(raw, utf8).strip()) for slot, raw in zip(ordered, clue_raw, strict=True)
    )
    try:
        crossword = Crossword(
            tuple(rows),
            clues,
            title=_decode(title, utf8).strip(),
            author=_decode(author, utf8).strip(),
            copyright=_decode(copyright_, utf8).strip(),
            notes=_decode(notes, utf8).strip(),
            source=Path(os.fspath(path)).name,
        )
    except CrosswordError as exc:
        raise PuzzleFileError(path, str(exc)) from None
    return _playable(crossword, path)


def _verify(
    path: str | os.PathLike[str],
    cib: bytes,
    solution: bytes,
    fill: bytes,
    strings: list[bytes],
    version: str,
    stored: tuple[int, int, bytes, bytes],
) -> None:
    file_sum, cib_sum, masked_low, masked_high = stored
    title, author, copyright_, *clues, notes = strings

    def text_sum(value: int) -> int:
        for field in (title, author, copyright_):
            if field:
                value = _checksum(field + b"\x00", value)
        for clue in clues:
            value = _checksum(clue, value)
        if notes and _version_at_least(version, 1, 3):
            value = _checksum(notes + b"\x00", value)
        return value

    c_cib = _checksum(cib)
    if c_cib != cib_sum:
        raise PuzzleFileError(path, "its header checksum is wrong (the file is damaged)")
    total = text_sum(_checksum(fill, _checksum(solution, c_cib)))
    if total != file_sum:
        raise PuzzleFileError(path, "its file checksum is wrong (the file is damaged)")
    parts = (c_cib, _checksum(solution), _checksum(fill), text_sum(0))
    low = bytes(ord(k) ^ (p & 0xFF) for k, p in zip("ICHE", parts, strict=True))
    high = bytes(ord(k) ^ (p >> 8) for k, p in zip("ATED", parts, strict=True))
    if (low, high) != (masked_low, masked_high):
        raise PuzzleFileError(path, "its masked checksums are wrong (the file is damaged)")


def _version_at_least(version: str, major: int, minor: int) -> bool:
    match = re.match(r"(\d+)\.(\d+)", version)
    if not match:
        return True
    return (int(match.group(1)), int(match.group(2))) >= (major, minor)
