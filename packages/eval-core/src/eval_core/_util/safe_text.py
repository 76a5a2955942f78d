"""Safe text: what a model, a Tool or a file said, made fit for every place it is written.

Text from outside (a model's answer, a vendor's error, a file name) may hold lone surrogates
(no UTF-8 encoding exists for them), control characters and ANSI escape sequences (they repaint
a terminal, and XML 1.0 forbids most of them), and the noncharacters U+FFFE/U+FFFF (also not
XML). :func:`clean` maps each of them to something visible and harmless, once, where the text
enters a Scorecard or a trial log; the same function escapes what leaves for a terminal or XML.

- a lone surrogate becomes U+FFFD; a surrogate pair (as a JSON decoder that keeps pairs makes
  them) is joined into the character it encodes;
- a C0 control (other than tab and line feed), DEL and a C1 control become their visible
  stand-ins: U+2400 + code for C0 (ESC shows as ``␛``), ``␡`` for DEL, ``\\x9b`` style text for C1;
  ``\\r\\n`` becomes ``\\n`` (a lone ``\\r``, which could overwrite a terminal line, becomes ``␍``);
- U+FFFE and U+FFFF become U+FFFD.

The result encodes as UTF-8, is a legal XML 1.0 character sequence, and carries no byte a
terminal acts on other than tab and line feed. Clean text passes through unchanged (and fast).
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
_DEPTH = 100  # structures deeper than this are not walked (input is capped far below it)


def _stand_in(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return "\ufffd"


def clean(text: str) -> str:
    """``text`` with lone surrogates, control characters and noncharacters made harmless."""
    if _SURROGATE.search(text) is not None:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if _UNSAFE.search(text) is None:
        return text
    text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(_stand_in, text)


def clean_value(value: Any, depth: int = 0) -> Any:
    """:func:`clean` applied to every string (keys included) of a JSON-like value."""
    if isinstance(value, str):
        return clean(value)
    if depth >= _DEPTH:
        return value
    if isinstance(value, dict):
        return {
            clean(k) if isinstance(k, str) else k: clean_value(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [clean_value(v, depth + 1) for v in value]
    return value


def clean_optional(text: str | None) -> str | None:
    return None if text is None else clean(text)
