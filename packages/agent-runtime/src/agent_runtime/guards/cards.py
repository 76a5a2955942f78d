"""Payment card numbers in free text: 13-19 digits, spaces or dashes allowed, Luhn-valid.

The Luhn check is what separates a card number from an order id or a phone number, so a long
digit run alone never trips the content filter.
"""

from __future__ import annotations

import re

_CANDIDATE = re.compile(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)")
_SEPARATORS = str.maketrans("", "", " -")
_NOT_DIGITS = bytes(c for c in range(256) if not 0x30 <= c <= 0x39)
_FEWEST = 13  # digits a candidate holds


def luhn_valid(digits: str) -> bool:
    """True when the digit string passes the Luhn checksum."""
    if not digits.isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def find_card_numbers(text: str) -> list[str]:
    """The Luhn-valid 13-19 digit numbers in ``text``, separators removed."""
    if text.isascii() and len(text.encode().translate(None, _NOT_DIGITS)) < _FEWEST:
        return []  # every answer is screened: most hold too few digits for the regex to try
    found: list[str] = []
    for match in _CANDIDATE.finditer(text):
        digits = match.group().translate(_SEPARATORS)
        if luhn_valid(digits):
            found.append(digits)
    return found
