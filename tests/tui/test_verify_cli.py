"""``ponder verify``: every claim in a text, judged whole, with the documented exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli import main

REPLY = (
    "Step 1: 4 + 8 = 12 (left: 8 12)\n"
    "Step 2: 12 * 2 = 24\n"
    "8 / 3 = 2.67 and 7 * 8 = 54\n"
    "Answer: (7 - 8/8) * 4 - sqrt(9) = 21\n"
    "8 / 8/3 = 3\n"
    "Answer: 6 + 6 + 6 + 6 = 24\n"
)


def _run(
    args: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    if stdin is not None:
        fake = io.TextIOWrapper(io.BytesIO(stdin))
        old = sys.stdin
        sys.stdin = fake
        try:
            code = main(args)
        finally:
            sys.stdin = old
    else:
        code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_gives_every_claim_whole_with_verdict_and_exact_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reply.txt"
    path.write_text(REPLY)
    code, out, _ = _run(["verify", str(path), "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["text"], r["verdict"], r["value"]) for r in rows] == [
        ("4 + 8 = 12", "exact", "12"),
        ("12 * 2 = 24", "exact", "24"),
        ("8 / 3 = 2.67", "approx", "8/3"),
        ("7 * 8 = 54", "wrong", "56"),
        ("(7 - 8/8) * 4 - sqrt(9) = 21", "invalid", None),
        ("8 / 8/3 = 3", "exact", "3"),
        ("6 + 6 + 6 + 6 = 24", "exact", "24"),
    ]
    assert rows[4]["reason"].startswith("sqrt(…) is a function")
    assert rows[5]["read_as"] == "8 / (8/3)"
    assert [r["line"] for r in rows] == [1, 2, 3, 3, 4, 5, 6]
    assert code == 1


def test_human_output_marks_each_claim_and_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reply.txt"
    path.write_text(REPLY)
    code, out, _ = _run(["verify", str(path)], capsys)
    assert "≈ 8 / 3 = 2.67   (exactly 8/3)" in out
    assert "✗ 7 * 8 = 54   (is 56)" in out
    assert "? (7 - 8/8) * 4 - sqrt(9) = 21   (sqrt(…) is a function: only" in out
    assert "✓ 8 / 8/3 = 3   (read as 8 / (8/3))" in out
    assert out.rstrip().endswith("7 claims: 4 exact, 1 approximate, 1 wrong, 1 invalid")
    assert code == 1


def test_all_claims_right_exits_0_from_standard_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(["verify", "-"], capsys, stdin=b"So 3 * 8 = 24, and 1/3 = 0.333.\n")
    assert code == 0 and "2 claims: 1 exact, 1 approximate" in out
    code, out, _ = _run(["verify"], capsys, stdin=b"nothing to check here")
    assert code == 0 and "no arithmetic claims found" in out


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b"4 + 4 = 8 \xff\xfe"), "not UTF-8 text"),
    ],
)
def test_bad_input_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    path = tmp_path / "input"
    make(path)  # type: ignore[operator]
    code, out, err = _run(["verify", str(path)], capsys)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


def test_a_fifo_or_device_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["verify", "/dev/zero"], capsys)
    assert code == 2 and "not a regular file" in err


def test_a_line_too_long_to_check_is_reported_not_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.txt"
    path.write_text("1 + 1 = 2\n" + "7 * 8 = 56 " * 3000 + "\n")
    code, out, _ = _run(["verify", str(path), "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["verdict"] == "exact"
    assert rows[1]["verdict"] == "invalid" and "too long to check" in rows[1]["reason"]
    assert code == 1


def test_control_characters_in_the_text_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "esc.txt"
    path.write_text("\x1b]0;pwned\x07 \x1b[2J 2 + 2 = 5 \x9b\n")
    code, out, _ = _run(["verify", str(path)], capsys)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "✗ 2 + 2 = 5" in out and code == 1


def test_as_a_real_command_in_a_pipe() -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "verify", "-"],
        input=b"12 / 4 = 3\n",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and "✓ 12 / 4 = 3" in done.stdout.decode()


def test_a_mixed_number_is_read_as_meant_never_marked_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``7 * 1 1/4 = 8.75`` was read as ``1/4 = 8.75`` and marked wrong, though true; a mixed
    number is one number to the one parser every reader shares."""
    text = b"7 * 1 1/4 = 8.75\nShe ran 3 * 2 1/2 = 7 1/2 miles.\n"
    code, out, _ = _run(["verify", "-"], capsys, stdin=text)
    assert "   1  ✓ 7 * 1 1/4 = 8.75\n" in out and "   2  ✓ 3 * 2 1/2 = 7 1/2\n" in out
    assert code == 0 and "2 claims: 2 exact" in out
    code, out, _ = _run(["verify", "-"], capsys, stdin=b"7 * 1 1/4 = 9\n")
    assert code == 1 and "✗ 7 * 1 1/4 = 9   (is 35/4)" in out


def test_implicit_multiplication_is_read_and_an_ambiguous_one_is_no_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Human worked solutions once marked wrong (or unreadable) though true."""
    text = b"So 2(40+9) = 98 and 27(1/3) = 9, then (1/4)24 = 6 and 3(47)+12 = 153.\n"
    code, out, _ = _run(["verify", "-"], capsys, stdin=text)
    assert code == 0 and "4 claims: 4 exact" in out
    code, out, _ = _run(["verify", "-"], capsys, stdin=b"6/2(1+2) = 9\n2(40+9) = 89\n")
    assert "? 6/2(1+2) = 9   (a bracket right after a division is ambiguous" in out
    assert "✗ 2(40+9) = 89   (is 98)" in out and code == 1


def test_percent_claims_are_read_as_numbers_over_100(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """True human claims with % were marked wrong, then unreadable; now they are read."""
    text = b"100% - 20% = 80%\n$80 x 30% = $24\n3 / 6 = 50%\n12/20 x 100% = 60%\n"
    code, out, _ = _run(["verify", "-"], capsys, stdin=text)
    assert code == 0 and "4 claims: 4 exact" in out
    code, out, _ = _run(["verify", "-"], capsys, stdin=b"3 / 6 = 60%\n7 % 2 = 1\n")
    assert "✗ 3 / 6 = 60%" in out and "? 7 % 2 = 1   (operator '%' is not allowed" in out


@pytest.mark.parametrize(
    ("text", "function"),
    [("sqrt(9) = 4", "sqrt"), ("so log(100) = 2.", "log"), ("3 + sqrt(16) = 7", "sqrt")],
)
def test_a_claim_with_a_function_is_unreadable_with_its_reason(
    capsys: pytest.CaptureFixture[str], text: str, function: str
) -> None:
    """Never "no arithmetic claims found" and exit 0: ? with the function named, exit 1."""
    code, out, _ = _run(["verify", "-"], capsys, stdin=(text + "\n").encode())
    assert code == 1 and "? " in out and f"{function}(…) is a function" in out, out
