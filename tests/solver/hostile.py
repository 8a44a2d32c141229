"""What the tests of a hostile server share: the canary key, the check for any trace of it in
a text, the fake server's faults that echo it back, and a right answer to cut off."""

from __future__ import annotations

import base64

CANARY = "sk-canary-7Hq2vX9pLm4RtY8wZb3NcK6dFg1JsA5eUo0Pi"


def leaks(text: str, secret: str = CANARY) -> list[str]:
    """Every trace of ``secret`` in ``text``: any 12 characters of it, as written or reversed,
    in any case; any 24 characters of it as hex, in any case; and any 16 characters of it
    base64-encoded at any byte offset (an echoed header, say)."""
    found = []
    folded = text.lower()
    for form, width in ((secret, 12), (secret[::-1], 12), (secret.encode().hex(), 24)):
        form = form.lower()
        for i in range(len(form) - width + 1):
            if form[i : i + width] in folded:
                found.append(f"piece {form[i : i + width]!r}")
                break
    for prefix in ("", "Bearer "):
        raw = (prefix + secret).encode()
        for offset in range(3):
            whole = raw[offset:][: (len(raw) - offset) // 3 * 3]
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                form = encode(whole).decode()
                for i in range(0, len(form) - 15, 4):
                    if form[i : i + 16] in text:
                        found.append(f"base64 {form[i : i + 16]!r}")
                        break
    return found


ECHOING_FAULTS = [
    "error_event",
    "echo_key",
    "echo_key:500",
    "echo_key:401",
    "echo_key:403",
    "echo_key:404",
    "echo_key:429",
    "echo_key_reply",
]


ANSWER = "8 / 8 = 1 (left: 1 4 7)\nAnswer: (7 - 8 / 8) * 4"
