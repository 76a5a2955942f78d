"""The admission observation: what the fixture read back from the rows admission left, typed.

The native fixture puts a :class:`NativeAdmission` into Evidence (the Host's
:class:`~eval_core.records.Admission`, under this family's record key); :func:`observation_of`
finds it by type, and a missing record is ``None``: the scorer fails on it, never passes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.kinds import Evidence
from eval_core.records import Admission


class NativeAdmission(Admission, frozen=True):
    """Counts of the admission rows, the admitted Run, and the inbox row's correlation and
    status (``None`` when the Host reads back no status)."""


FIELDS: frozenset[str] = frozenset(
    NativeAdmission.__struct_encode_fields__  # the camelCase names a path starts with
)


def observation_of(ev: Evidence) -> tuple[NativeAdmission | None, str]:
    """The typed observation, or ``None`` and why it cannot be read."""
    found = ev.record(NativeAdmission)
    if found is None:
        return None, "no native admission was read back (not a nativeRoutine Trial?)"
    return found, ""


def as_plain(observation: NativeAdmission) -> dict[str, Any]:
    """The observation as the JSON a path resolves in (camelCase keys)."""
    plain: dict[str, Any] = msgspec.to_builtins(observation)
    return plain
