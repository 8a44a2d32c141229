"""puzzles.text: control characters in outside text become visible escapes."""

from __future__ import annotations

import json

import pytest

from puzzles.text import CONTROL_CHARACTERS, json_line, visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
        ("\x1b[2J", "\\x1b[2J"),
        ("a\x00b\x08c", "a\\x00b\\x08c"),
        ("\x7f", "\\x7f"),
        ("\x9b31m\x85", "\\x9b31m\\x85"),
        ("abc\u202edef\u2066\u2069", "abc\\u202edef\\u2066\\u2069"),
        ("over\rwrite", "over\\x0dwrite"),
        ("windows\r\nline", "windows\nline"),
    ],
)
def test_control_characters_are_shown_as_escapes(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_ordinary_text_is_unchanged() -> None:
    text = "Answer: (8 ÷ 3) × 9 = 24\n\tcafé · ★ ✓ ≈ 日本 😀 [bold]not markup here[/]"
    assert visible(text) == text


def test_every_control_character_is_covered() -> None:
    for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F)):
        char = chr(code)
        if char in "\n\t":
            assert char not in CONTROL_CHARACTERS
            continue
        assert char in CONTROL_CHARACTERS
        assert char not in visible(f"x{char}y")


def test_json_line_reads_back_exactly_and_holds_no_raw_control_character() -> None:
    value = {"reply": "\x1b]0;t\x07 \x9b \x7f \u202e é ×", "n": [1, "\x85"]}
    line = json_line(value)
    assert json.loads(line) == value
    assert not any(c in CONTROL_CHARACTERS for c in line)
    assert "é ×" in line  # other text stays readable
    assert json.loads(json_line(value, indent=2)) == value
