"""The token counts a vendor's reply reports, read the same way by both wire formats.

Each names its own two required counts (tokens in, tokens out); without both the reply cannot
be billed, so it is a ``model_usage_missing`` fault. An optional count (cached, reasoning) that
is not a count reads as 0.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from eval_bindings.wire.transport import VendorError


def count(value: Any) -> TypeGuard[int]:
    """A token count: a non-negative int (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def reported(body: Any, given_key: str, made_key: str) -> tuple[dict[str, Any], int, int]:
    """The reply's ``usage`` object and its two required counts, named by the wire format."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        raise VendorError("model_usage_missing", "the reply reports no usage")
    given, made = usage.get(given_key), usage.get(made_key)
    if not count(given) or not count(made):
        raise VendorError(
            "model_usage_missing",
            f"usage lacks {given_key}/{made_key} counts: {json.dumps(usage)[:200]}",
        )
    return usage, given, made
