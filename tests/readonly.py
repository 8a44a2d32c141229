"""Real processes for which a folder is really read-only, whoever runs the tests.

``chmod`` alone does not stop root (CI runs the tests as root): root writes anywhere through
the CAP_DAC_OVERRIDE capability. A child that root starts here gives that capability up
(``prctl(PR_CAPBSET_DROP)`` before it runs Python) and so is bound by permissions like anyone
else; it keeps CAP_DAC_READ_SEARCH, so it still reads everything. For another user the folder's
permissions are enough, and the child runs as it is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

__all__ = ["bound_by_permissions", "read_only", "run_bound"]

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE = 1
ROOT = Path(__file__).resolve().parent.parent


def _drop_override() -> None:
    """In the child, before it runs: give up writing past permissions, for good."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
    if libc.prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE) failed")


def bound_by_permissions() -> Callable[[], None] | None:
    """The ``preexec_fn`` that makes a child of root obey permissions (None for another user,
    whom they bind already); the test is skipped where root cannot give the capability up."""
    if os.geteuid() != 0:
        return None
    if not sys.platform.startswith("linux"):
        pytest.skip("root can be bound by permissions here only on Linux")
    try:
        subprocess.run(
            [sys.executable, "-c", "pass"], preexec_fn=_drop_override, check=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        pytest.skip("root here cannot give up CAP_DAC_OVERRIDE")
    return _drop_override


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` and the files in it read-only for the block, writable again after (so the
    test's folder can be removed)."""
    files = [p for p in folder.iterdir() if p.is_file() and not p.is_symlink()]
    for path in files:
        path.chmod(0o444)
    folder.chmod(0o555)
    try:
        yield
    finally:
        folder.chmod(0o755)
        for path in files:
            path.chmod(0o644)


def run_bound(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python ARGV`` from the project's root in a child bound by permissions (see
    :func:`bound_by_permissions`), with this process's environment."""
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        preexec_fn=bound_by_permissions(),
        check=False,
    )
