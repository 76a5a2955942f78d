"""A refusal of the loader: the file, the JSON path in it, the reason.

Every pass of the loader (decode, resolve, the Case's own rules, plug-in checks, grounding)
says what is wrong in this one shape, so the Corpus is refused with every problem at once.
"""

from __future__ import annotations

import msgspec


class Problem(msgspec.Struct, frozen=True):
    """One refusal: the file, the JSON path in it, the reason; ``line`` and ``column`` (from
    1) where the file's text itself is at fault (JSON that does not parse), shown as editors
    and compilers do, ``file:line:column``."""

    file: str
    path: str
    reason: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = f":{self.line}:{self.column}" if self.line is not None else ""
        return f"{self.file}{where}: {self.path}: {self.reason}"
