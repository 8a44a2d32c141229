"""The one file guard (puzzles/files.py): what it lets through and what it refuses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from puzzles.files import (
    FileError,
    check_nesting,
    decode_text,
    file_kind,
    nesting_depth,
    output_problem,
    parse_json,
    read_file,
    read_lines,
    write_whole,
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


# --- writing whole files ----------------------------------------------------------------------


def _snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every name in ``folder`` with its file type and its link target or contents."""
    out = {}
    for entry in sorted(folder.iterdir()):
        mode = entry.lstat().st_mode
        if stat.S_ISLNK(mode):
            seen = os.readlink(entry)
        elif stat.S_ISREG(mode):
            seen = entry.read_text()
        else:
            seen = ""
        out[entry.name] = (stat.S_IFMT(mode), seen)
    return out


def _targets(folder: Path) -> dict[str, tuple[Path, str]]:
    """A target of each kind write_whole refuses, and the words its message holds."""
    (folder / "victim.txt").write_text("someone's file\n")
    os.mkfifo(folder / "pipe")
    (folder / "link").symlink_to(folder / "victim.txt")
    (folder / "dangling").symlink_to(folder / "nowhere.txt")
    (folder / "dir").mkdir()
    return {
        "fifo": (folder / "pipe", "a named pipe"),
        "link": (folder / "link", "a symbolic link"),
        "dangling": (folder / "dangling", "a symbolic link"),
        "dir": (folder / "dir", "a directory"),
    }


@pytest.mark.parametrize("kind", ["fifo", "link", "dangling", "dir"])
def test_write_whole_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path, words = _targets(tmp_path)[kind]
    before = _snapshot(tmp_path)
    assert (
        output_problem(path)
        == f"it is {words}, not a regular file; ponder writes only regular files"
    )
    with pytest.raises(FileError, match=words) as info, write_whole(path) as handle:
        handle.write("new")
    assert info.value.path == str(path)
    assert _snapshot(tmp_path) == before  # untouched, and no temporary file left


def test_a_device_is_refused_and_stays_a_device() -> None:
    # Only looked at: output_problem never writes, so /dev/null is safe to name here.
    assert output_problem("/dev/null") is not None
    assert "a device" in (output_problem("/dev/null") or "")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert file_kind(os.stat("/dev/null").st_mode) == "a device"
    assert file_kind(os.stat(__file__).st_mode) is None


def test_write_whole_writes_new_and_existing_files_whole(tmp_path: Path) -> None:
    new = tmp_path / "new.txt"
    assert output_problem(new) is None
    with write_whole(new) as handle:
        handle.write("one\n")
    mask = os.umask(0o022)
    os.umask(mask)
    assert new.read_text() == "one\n" and stat.S_IMODE(new.stat().st_mode) == 0o666 & ~mask
    new.chmod(0o600)
    with write_whole(new) as handle:
        handle.write("two\n")
    assert new.read_text() == "two\n" and stat.S_IMODE(new.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(ZeroDivisionError), write_whole(path) as handle:
        handle.write("half")
        raise ZeroDivisionError
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with pytest.raises(FileError, match="No such file"), write_whole(tmp_path / "no" / "x"):
        pass


def test_a_pipe_swapped_in_while_writing_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(FileError, match="a named pipe"), write_whole(path) as handle:
        handle.write("new\n")
        path.unlink()
        os.mkfifo(path)  # someone else's pipe takes the name before the rename
    assert stat.S_ISFIFO(path.lstat().st_mode) and [p.name for p in tmp_path.iterdir()] == [
        "out.txt"
    ]


def test_follow_links_writes_where_the_link_points_and_only_to_a_regular_file(
    tmp_path: Path,
) -> None:
    real = tmp_path / "dotfiles" / "config.toml"
    real.parent.mkdir()
    real.write_text("a = 1\n")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    with write_whole(link, follow_links=True) as handle:
        handle.write("a = 2\n")
    assert link.is_symlink() and real.read_text() == "a = 2\n"
    os.mkfifo(tmp_path / "pipe")
    piped = tmp_path / "piped.toml"
    piped.symlink_to(tmp_path / "pipe")
    with pytest.raises(FileError, match="a named pipe"), write_whole(piped, follow_links=True):
        pass
    assert stat.S_ISFIFO((tmp_path / "pipe").lstat().st_mode) and piped.is_symlink()
