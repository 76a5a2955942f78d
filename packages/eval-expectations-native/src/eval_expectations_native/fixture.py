"""The ``nativeRoutine`` Case field: a native event for a destination, from an account.

The Host persists an event for ``destination`` sent by ``accountId``, claims it from the
durable inbox and admits the Routine it routes to; ``fault`` breaks one dependency of that
admission (the claim's lease, the route, the account; ``account_unknown``: the operator never
approved the sender at all) to show what admission refuses, or (``claimed_again``) has a second
worker try to claim the event once it was admitted, or (``claim_revoked``) has the operator take
the first worker's claim back before it admits, and a second worker then claim the event.
"""

from __future__ import annotations

from typing import Literal

import msgspec

NativeFault = Literal[
    "lease_lost",
    "route_changed",
    "account_revoked",
    "account_unknown",
    "claimed_again",
    "claim_revoked",
]


class NativeRoutine(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="camel"
):
    destination: str
    account_id: str
    fault: NativeFault | None = None
