"""The admission observation: what the Host read back from admission rows, typed.

The Host stores plain data in ``evidence.records["native"]`` (it never imports this package);
:func:`observation_of` converts it, and a missing or malformed record is ``None``: the scorer
fails on it, never passes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.evidence import Evidence

RECORD = "native"


class NativeAdmission(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """Counts of the admission rows, the admitted Run, and the inbox row's correlation."""

    run_count: int
    state_count: int
    artifact_count: int
    invocation_count: int
    run: dict[str, Any] | None
    state_status: str | None
    request: Any
    account_id: str | None
    inbox_run_id: str | None
    inbox_correlated: bool
    error: str | None


FIELDS: frozenset[str] = frozenset(
    NativeAdmission.__struct_encode_fields__  # the camelCase names a path starts with
)


def observation_of(ev: Evidence) -> tuple[NativeAdmission | None, str]:
    """The typed observation, or ``None`` and why it cannot be read."""
    raw = ev.records.get(RECORD)
    if raw is None:
        return None, "no native admission was read back (not a nativeRoutine Trial?)"
    if isinstance(raw, NativeAdmission):
        return raw, ""
    try:
        return msgspec.convert(raw, NativeAdmission), ""
    except (msgspec.MsgspecError, TypeError, ValueError) as exc:
        return None, f"the native admission record is malformed: {exc}"


def as_plain(observation: NativeAdmission) -> dict[str, Any]:
    """The observation as the JSON a path resolves in (camelCase keys)."""
    plain: dict[str, Any] = msgspec.to_builtins(observation)
    return plain
