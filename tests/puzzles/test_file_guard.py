"""The one file guard (puzzles/files.py): what it lets through and what it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from puzzles.files import (
    FileError,
    check_nesting,
    decode_text,
    nesting_depth,
    parse_json,
    read_file,
    read_lines,
)


@pytest.mark.parametrize(
    ("text", "syntax", "depth"),
    [
        ("1", "json", 0),
        ('[[1, [2]], {"a": "[[[[{{{"}]', "json", 3),
        ('["\\"[[[[", [[]]]', "json", 3),
        ("[]" * 50, "json", 1),
        ("a = [[1]] # [[[[\n[prices]\nb = \"[[[[[\" \nc = '[[[['\n", "toml", 2),
        ('d = """\n[[[[\n"""\n[[x]]\n', "toml", 2),
    ],
)
def test_nesting_depth_leaves_strings_and_comments_out(text: str, syntax: str, depth: int) -> None:
    assert nesting_depth(text, syntax) == depth  # type: ignore[arg-type]


def test_depth_and_digit_caps(tmp_path: Path) -> None:
    check_nesting("[" * 64 + "]" * 64, tmp_path)
    with pytest.raises(FileError, match="more than 64 levels"):
        check_nesting("[" * 65 + "]" * 65, tmp_path)
    check_nesting('{"a": "' + "9" * 500 + '", "b": ' + "9" * 100 + "}", tmp_path)
    with pytest.raises(FileError, match="more than 100 digits"):
        check_nesting('{"b": ' + "9" * 101 + "}", tmp_path)
    with pytest.raises(FileError, match="line 7"):
        parse_json("[" * 100 + "]" * 100, tmp_path, line=7)
    with pytest.raises(FileError, match="NaN is not a number JSON allows"):
        parse_json("[NaN]", tmp_path)


def test_regular_files_only(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(FileError, match="not a regular file") as info:
            read_file(path)
        assert not info.value.missing
    with pytest.raises(FileError, match="is a directory, not a trace") as info:
        read_file(tmp_path, what="trace")
    with pytest.raises(FileError, match="no such file") as info:
        read_file(tmp_path / "nothing")
    assert info.value.missing


def test_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 2000)
    assert read_file(path, max_bytes=2000) == b"x" * 2000
    with pytest.raises(FileError, match=r"too large \(2.0 KB; at most 1000 bytes\)"):
        read_file(path, max_bytes=1000)


def test_text(tmp_path: Path) -> None:
    assert decode_text(b"\xef\xbb\xbfcaf\xc3\xa9", tmp_path) == "café"
    assert decode_text("hi".encode("utf-16"), tmp_path, utf16=True) == "hi"
    with pytest.raises(FileError, match="UTF-16"):
        decode_text("hi".encode("utf-16"), tmp_path)
    with pytest.raises(FileError, match="binary"):
        decode_text(b"a\x00b", tmp_path)
    with pytest.raises(FileError, match="line 2: is not UTF-8"):
        decode_text(b"ok\ncaf\xe9", tmp_path)
    with pytest.raises(FileError, match="line 3: has a line of 11 characters"):
        decode_text(b"a\nbb\n" + b"c" * 11 + b"\n", tmp_path, max_line=10)


def test_read_lines_caps_each_line_before_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "lines"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\n" + b"x" * 100 + b"\n")
    lines = read_lines(path, max_line=10)
    assert next(lines) == (1, "one\r\n") and next(lines) == (2, "two\n")
    with pytest.raises(FileError, match="line 3: has a line longer than 10 bytes"):
        next(lines)
    path.write_bytes(b"ok\n\xff\n")
    with pytest.raises(FileError, match="line 2: is not UTF-8"):
        list(read_lines(path, max_line=10))
