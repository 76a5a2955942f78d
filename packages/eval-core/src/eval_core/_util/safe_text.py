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

import msgspec

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


def one_line(text: str) -> str:
    """:func:`clean` for a value printed inside a line (a Case id, a model id, a kind read from
    a file): a line feed too becomes its stand-in ``␊``, so no value can start a line of its
    own (a forged ``REGRESSED`` row, a forged verdict)."""
    return clean(text).replace("\n", "\u240a")


def said(error: BaseException) -> str:
    """What an exception says, on one line: its white space folded (a server's message may
    span lines, with a caret under the fault) and any other control character stood in for."""
    return one_line(" ".join(str(error).split()))


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


# What clean() would change, as msgspec writes it: a C0 control other than tab and line feed
# (escaped: \u00XX, \r, \b, \f), DEL, a C1 control, U+FFFE/U+FFFF (raw UTF-8); a lone
# surrogate cannot be encoded at all. The raw ones are looked for by their lead byte first
# (``in`` with one byte is a memchr, a microsecond for a whole transcript), their pattern only
# when it is there; the escapes by a regex with a literal head. A false alarm (an escaped
# backslash before "u") only costs the slow path.
_ESCAPED = re.compile(rb"\\[ubrf]")
_RAW = ((b"\x7f", rb"\x7f"), (b"\xc2", rb"\xc2[\x80-\x9f]"), (b"\xef", rb"\xef\xbf[\xbe\xbf]"))
_ENCODE = msgspec.json.Encoder().encode


def unsafe_json(data: bytes) -> bool:
    """Whether JSON as msgspec writes it may hold text :func:`clean` would change."""
    if _ESCAPED.search(data) is not None:
        return True
    return any(lead in data and re.search(mark, data) is not None for lead, mark in _RAW)


def clean_builtins(value: Any) -> Any:
    """:func:`clean_value` of JSON builtins (what ``msgspec.to_builtins`` makes), returned as
    it is when nothing in it needs cleaning: one encode and four scans (the common case, on
    every Trial's every Expectation) instead of a walk of every string."""
    try:
        if not unsafe_json(_ENCODE(value)):
            return value
    except (TypeError, ValueError, OverflowError):  # a lone surrogate, or not JSON builtins
        pass
    return clean_value(value)


def clean_optional(text: str | None) -> str | None:
    return None if text is None else clean(text)
