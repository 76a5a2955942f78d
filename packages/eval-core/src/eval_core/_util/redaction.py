"""Credential redaction: the one pass every output of a Sweep goes through.

A credential was never meant to reach an artifact, but a model can echo it (it may have been
shown the key by a misconfigured tool, or guess a key-shaped string that is one). Every output
of a Sweep is scrubbed by the same :class:`Redactor` just before it is written: the trial log
(each record), the Scorecard on stdout (text or JSON), ``--save``/``--save-dir``, JUnit XML,
a promoted Baseline, and the notes on stderr. It knows every credential the process was given:
each model leg's key, the Judge's, and the passwords in the Host's options (a store URL). A
secret is replaced in the forms an output may carry it: as is, JSON-escaped and XML-escaped,
and so is any prefix of it of :data:`MIN_PREFIX` characters or more: a detail shortened for
display (``quoted(text, 120)``) can cut a key anywhere, and 19 characters of a 31-character
key are most of a leak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

REDACTED = "[credential redacted]"
MIN_PREFIX = 12
"""The shortest prefix of a secret redacted on its own (a secret this long or shorter is
redacted whole only)."""


def _xml_escape(text: str) -> str:
    """What an XML writer makes of ``text`` in character data (and, with ``&quot;``, in an
    attribute). Written out because ``xml.sax.saxutils`` imports ``urllib.request``, about
    20 ms of every command's start-up."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def credentials_in(value: str) -> list[str]:
    """The passwords a configuration value carries: a URL's user-info password (which may hold
    an unescaped "/" or "@"), and any ``password=`` parameter, in a query or keyword form."""
    found = [m.group(1) for m in re.finditer(_URL_PASSWORD, value, re.I)]
    found += [m.group(1).strip("'") for m in re.finditer(_PARAMETER_PASSWORD, value, re.I)]
    return [secret for secret in found if secret and secret != "***"]


# Compiled on first use (the re module's cache): only a Host option is ever searched.
_URL_PASSWORD = r"[a-z][a-z0-9+.-]*://[^\s:/@]*:(\S*)@(?=[^\s@]*(?:\s|$))"
_PARAMETER_PASSWORD = r"\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+)"


class Redactor:
    """Replaces each of ``secrets`` (empty ones ignored), and every long prefix of one, wherever
    it appears: one pass of one pattern, longest match first."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(dict.fromkeys(s for s in secrets if s))
        forms: set[str] = set()
        for secret in self.secrets:
            if not secret:
                continue
            cuts = [secret[:n] for n in range(MIN_PREFIX, len(secret))]
            for form in (secret, *cuts):
                forms.add(form)
                forms.add(msgspec.json.encode(form).decode()[1:-1])
                forms.add(_xml_escape(form))
                forms.add(_xml_escape(form).replace('"', "&quot;"))
        # Longest first, so a form that contains another is replaced whole.
        ordered = sorted(forms, key=len, reverse=True)
        self._any = bool(ordered)
        self._text = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._bytes = (
            re.compile(b"|".join(re.escape(f.encode("utf-8", "surrogatepass")) for f in ordered))
            if ordered
            else None
        )

    def __bool__(self) -> bool:
        return self._any

    def knowing(self, secrets: Iterable[str]) -> Redactor:
        """This redactor, told of more secrets (the Judge's, once it is configured)."""
        return Redactor((*self.secrets, *secrets))

    def scrub_text(self, value: str) -> str:
        return value if self._text is None else self._text.sub(REDACTED, value)

    def scrub_bytes(self, data: bytes) -> bytes:
        return data if self._bytes is None else self._bytes.sub(REDACTED.encode(), data)
