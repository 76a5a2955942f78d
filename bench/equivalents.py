"""The mutants triaged as equivalent, read from ``bench/mutants_triage.md``.

A mutant's id names its line and column, which move with every edit above it; the triage file
keys an entry by what stays: the module (from its import root), the mutated line before and
after (whitespace collapsed, as the bench prints them). Each entry is::

    ### `eval_core/_util/example.py`

        - if limit > 0:
        + if limit >= 0:

    Equivalent: ``limit`` is never 0 here: ...

Several ``-``/``+`` pairs may follow one module heading, each with its own ``Equivalent:``
paragraph. A pair may instead be followed by ``Caught by: `node id` ...``: a test that catches the
mutant where the covering map cannot see it run (a child process that cannot write its coverage
data); the bench then runs those tests on the mutant, so the catch is measured, never taken on
trust. Anything else in the file (the gaps closed, the samples measured) is prose for a
person. A line that occurs twice in one module with the same mutation is one key: the reason
must hold for both.
"""

from __future__ import annotations

import re
from pathlib import Path

Key = tuple[str, str, str]

TRIAGE = Path(__file__).resolve().parent / "mutants_triage.md"
_HEADING = re.compile(r"^###\s+`([^`]+)`\s*$")


def one_line(text: str) -> str:
    return " ".join(text.split())


def caught_by(path: Path = TRIAGE) -> dict[Key, list[str]]:
    """The tests each ``Caught by:`` entry names, by key."""
    if not path.is_file():
        return {}
    found: dict[Key, list[str]] = {}
    module = before = after = ""
    for line in path.read_text().splitlines():
        if heading := _HEADING.match(line):
            module, before, after = heading.group(1), "", ""
        elif line.startswith("    - "):
            before, after = one_line(line[6:]), ""
        elif line.startswith("    + "):
            after = one_line(line[6:])
        elif line.startswith("Caught by:") and module and before and after:
            found[(module, before, after)] = re.findall(r"`([^`]+)`", line)
    return found


def read(path: Path = TRIAGE) -> dict[Key, str]:
    """Each equivalent mutant's key and the reason given."""
    if not path.is_file():
        return {}
    found: dict[Key, str] = {}
    module = before = after = ""
    reason: list[str] | None = None

    def close() -> None:
        nonlocal reason, before, after
        if reason is not None and module and before and after:
            found[(module, before, after)] = one_line(" ".join(reason))
        reason = None

    for line in path.read_text().splitlines():
        if heading := _HEADING.match(line):
            close()
            module, before, after = heading.group(1), "", ""
        elif line.startswith("    - "):
            close()
            before, after = one_line(line[6:]), ""
        elif line.startswith("    + "):
            after = one_line(line[6:])
        elif line.startswith("Equivalent:"):
            reason = [line.removeprefix("Equivalent:").strip()]
        elif reason is not None:
            if line.strip() and not line.startswith("#"):
                reason.append(line.strip())
            else:
                close()
    close()
    return found


def unreasoned(path: Path = TRIAGE) -> list[Key]:
    """Each ``-``/``+`` pair under a module heading that neither an ``Equivalent:`` nor a
    ``Caught by:`` line follows: a reason spelt otherwise is not read, and its mutant would go
    on counting as a survivor without a word."""
    if not path.is_file():
        return []
    pairs: list[Key] = []
    module = before = ""
    for line in path.read_text().splitlines():
        if heading := _HEADING.match(line):
            module, before = heading.group(1), ""
        elif line.startswith("    - "):
            before = one_line(line[6:])
        elif line.startswith("    + ") and module and before:
            pairs.append((module, before, one_line(line[6:])))
    known = read(path).keys() | caught_by(path).keys()
    return [key for key in pairs if key not in known]
