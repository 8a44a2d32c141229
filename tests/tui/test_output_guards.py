"""Files ponder writes whole never replace what is not a regular file: ``--csv`` and ``--jsonl``
of ``ponder bench`` and ``ponder bench report``, and ``--export`` and ``--screenshot`` of
``ponder replay``, given a named pipe, a link to a file, a link to nowhere, a directory or a
device, end with exit code 2 and one line naming the target, and leave it as it was.

A device is a private copy of ``/dev/null`` made with mknod where this user may (root), so a
regression could only ever replace that copy; a user who may not make devices may not replace
``/dev/null`` either, and gets ``/dev/null`` itself.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tui.cli import main

HANDS = "1 2 3 4; 4 7 8 8"
ROOT = Path(__file__).resolve().parents[2]
KINDS = ["fifo", "link", "dangling", "dir", "device"]
WORDS = {
    "fifo": "a named pipe",
    "link": "a symbolic link",
    "dangling": "a symbolic link",
    "dir": "a directory",
    "device": "a device",
}


def _device(node: Path) -> Path:
    """A copy of /dev/null at ``node``, or /dev/null itself where none can be made."""
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (OSError, AttributeError):
        if os.access("/dev", os.W_OK):  # could replace /dev/null, yet cannot make a copy
            pytest.skip("no private device can be made here")
        if node.suffix in (".json", ".svg"):
            pytest.skip("these flags want a name ending .json or .svg, which /dev/null lacks")
        return Path("/dev/null")
    return node


def _target(folder: Path, kind: str, suffix: str) -> Path:
    """A target of ``kind`` whose name ends with ``suffix`` (the format flags want one)."""
    (folder / "victim.txt").write_text("someone's file\n")
    path = folder / f"out{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        path.symlink_to(folder / "victim.txt")
    elif kind == "dangling":
        path.symlink_to(folder / f"nowhere{suffix}")
    elif kind == "dir":
        path.mkdir()
        (path / "inside.txt").write_text("kept\n")
    else:
        return _device(path)
    return path


def _state(path: Path, folder: Path) -> tuple[int, str, list[tuple[str, str]]]:
    """What a test checks is untouched: the file type at ``path``, a link's target, and every
    name in ``folder`` with a regular file's text (so no temporary file is left either)."""
    mode = path.lstat().st_mode
    seen = os.readlink(path) if stat.S_ISLNK(mode) else ""
    names = [
        (p.name, p.read_text() if stat.S_ISREG(p.lstat().st_mode) else "")
        for p in sorted(folder.iterdir())
    ]
    return stat.S_IFMT(mode), seen, names


def _ponder(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """``ponder ARGV``: in this process, or (for a pipe, which a regression would open and
    wait on forever) in a child killed after 60 s."""
    if any(Path(a).is_fifo() for a in argv if a.startswith("/")):
        code = "import sys; from tui.cli import main; raise SystemExit(main(sys.argv[1:]))"
        done = subprocess.run(
            [sys.executable, "-c", code, *argv],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr
    code_ = main(argv)
    out, err = capsys.readouterr()
    return code_, out, err


@pytest.fixture
def results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A results file of two runs, for ``ponder bench report``."""
    path = tmp_path / "made" / "r.jsonl"
    path.parent.mkdir()
    assert main(["bench", "24", "--hands", HANDS, "--method", "io", "--results", str(path)]) in (
        0,
        1,
    )
    capsys.readouterr()
    return path


@pytest.fixture
def trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "made" / "run.jsonl"
    path.parent.mkdir(exist_ok=True)
    assert main(["solve", "24", "4 7 8 8", "--method", "io", "--trace", str(path)]) in (0, 1)
    capsys.readouterr()
    return path


COMMANDS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "report-csv": (".csv", lambda made, out: ["bench", "report", str(made), "--csv", str(out)]),
    "report-jsonl": (
        ".jsonl",
        lambda made, out: ["bench", "report", str(made), "--jsonl", str(out)],
    ),
    "bench-csv": (
        ".csv",
        lambda _, out: ["bench", "24", "--hands", HANDS, "--method", "io", "--csv", str(out)],
    ),
    "export": (".json", lambda made, out: ["replay", str(made), "--export", str(out)]),
    "screenshot": (".svg", lambda made, out: ["replay", str(made), "--screenshot", str(out)]),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    results: Path,
    trace: Path,
    command: str,
    kind: str,
) -> None:
    suffix, argv = COMMANDS[command]
    folder = tmp_path / "out"
    folder.mkdir()
    target = _target(folder, kind, suffix)
    made = trace if command in ("export", "screenshot") else results
    before = _state(target, folder)
    code, out, err = _ponder(capsys, argv(made, target))
    assert code == 2, err
    assert err.startswith("ponder: ") and "Traceback" not in err and err.count("\n") == 1, err
    assert f"cannot write {target}: it is {WORDS[kind]}, not a regular file" in err
    assert out == ""  # refused before any run or table
    assert _state(target, folder) == before
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_both_targets_are_checked_before_either_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, results: Path
) -> None:
    good, pipe = tmp_path / "good.csv", tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    code, _, err = _ponder(
        capsys, ["bench", "report", str(results), "--csv", str(good), "--jsonl", str(pipe)]
    )
    assert code == 2 and "a named pipe" in err
    assert not good.exists() and pipe.is_fifo()


def test_a_regular_file_is_still_replaced_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, results: Path
) -> None:
    out = tmp_path / "runs.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    code, _, err = _ponder(capsys, ["bench", "report", str(results), "--csv", str(out)])
    assert code in (0, 1), err
    assert out.read_text().startswith("kind,method,") and stat.S_IMODE(out.stat().st_mode) == 0o640
