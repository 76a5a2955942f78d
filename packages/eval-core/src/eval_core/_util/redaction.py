"""Credential redaction: the one pass every output of a Sweep goes through.

A credential was never meant to reach an artifact, but a model can echo it (it may have been
shown the key by a misconfigured tool, or guess a key-shaped string that is one). Every output
of a Sweep is scrubbed by the same :class:`Redactor` just before it is written: the trial log
(each record), the Scorecard on stdout (text or JSON), ``--save``/``--save-dir``, JUnit XML,
a promoted Baseline, and the notes on stderr. The key is replaced in the forms an output may
carry it: as is, JSON-escaped and XML-escaped.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

REDACTED = "[credential redacted]"


def _xml_escape(text: str) -> str:
    """What an XML writer makes of ``text`` in character data (and, with ``&quot;``, in an
    attribute). Written out because ``xml.sax.saxutils`` imports ``urllib.request``, about
    20 ms of every command's start-up."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Redactor:
    """Replaces each of ``secrets`` (empty ones ignored) wherever it appears."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if not secret:
                continue
            forms.add(secret)
            forms.add(msgspec.json.encode(secret).decode()[1:-1])
            forms.add(_xml_escape(secret))
            forms.add(_xml_escape(secret).replace('"', "&quot;"))
        # Longest first, so a form that contains another is replaced whole.
        self._text = sorted(forms, key=len, reverse=True)
        self._bytes = [form.encode("utf-8", "surrogatepass") for form in self._text]

    def __bool__(self) -> bool:
        return bool(self._text)

    def scrub_text(self, value: str) -> str:
        for form in self._text:
            value = value.replace(form, REDACTED)
        return value

    def scrub_bytes(self, data: bytes) -> bytes:
        for form in self._bytes:
            data = data.replace(form, REDACTED.encode())
        return data
