"""The records a Host's service and a family's fixture pass each other, each defined once.

A family scores what a Host fills, and neither may import the other (the Host names no family;
a family knows no Host), so a record both need lives here: what a Trial left in the Host's
database, read back (the witness), or the settings a fixture hands a service as one object. A
family's Evidence record holds these as they are, and their names and docstrings are part of
its schema (a transcript's record-schema hash): they keep the ones the families gave them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

# -- a durable Trial's Runs and Soul repository (the durable and doctor families) -------------


class TurnRecord(msgspec.Struct, frozen=True):
    """One Turn's Run as stored; ``turn_status`` ``None`` means the Turn never completed."""

    turn_index: int
    run_id: str
    run_status: str | None
    state_status: str | None
    turn_status: str | None
    reason: str | None = None


def folded(turns: Sequence[TurnRecord]) -> TurnRecord | None:
    """The first Turn that did not succeed, else the last; ``None`` with no Turn: the Turn a
    journey's status speaks of."""
    for turn in turns:
        if turn.run_status != "succeeded":
            return turn
    return turns[-1] if turns else None


class PersistedMessage(msgspec.Struct, frozen=True):
    turn_index: int
    role: str
    content: Any = None
    metadata: Any = None


class SoulCommit(msgspec.Struct, frozen=True):
    """A commit in the Soul repository, read from its log: ``subject`` its message's first line
    (``None`` where the Host does not read it)."""

    turn_index: int
    sha: str
    paths: list[str]
    subject: str | None = None


class ActivePublication(msgspec.Struct, frozen=True):
    """The active Soul publication once a Turn ended: its artifacts as ``Kind:slug``."""

    turn_index: int
    commit: str
    artifacts: list[str]


class StaleWrite(msgspec.Struct, frozen=True):
    """A worker that lost its lease came back. ``landed``: the Run's rows its pass changed, read
    back from the database (the witness); ``raised``: whether the runtime said it refused the
    write (raised its stale-generation error), its word only."""

    turn_index: int
    raised: bool
    landed: list[str]
    detail: str


class DoctorEvent(msgspec.Struct, frozen=True):
    # One step of the Soul doctor as its own record holds it: kind is finding, repaired or
    # escalated. (No docstring: it would change the doctor record's schema.)
    kind: str
    subject: str
    detail: str
    commit: str | None = None


# -- the native channel (the native family) ---------------------------------------------------


class Admission(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """What admission of one native event left in the database: counts of the admission rows,
    the admitted Run, and the inbox row's correlation and status (``None`` when the Host reads
    back no status). camelCase: the native family's paths name these fields so."""

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
    inbox_status: str | None = None
    error_message: str | None = None
    """The inbox row's recorded reason for a refusal, as the runtime wrote it for an operator."""


class NativeRoute(msgspec.Struct, frozen=True, kw_only=True):
    """An operator's route: a native destination's events run this Routine as this Agent for
    this owner, pinned to the published ``bundle`` approved (``None``: whatever is active)."""

    destination: str
    routine: str
    agent: str
    owner: str
    bundle: Mapping[str, Any] | None = None


class NativeEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event a native channel delivers to the durable inbox: from which channel, for which
    destination, claiming which account, with its payload, id and type."""

    channel: str
    destination: str
    account_id: str
    payload: Any
    event_id: str
    event_type: str


# -- Files another user owns (the files family) -----------------------------------------------


class ForeignFile(msgspec.Struct, frozen=True, kw_only=True):
    """A File in the Host's store that the Trial's requester neither owns nor holds a share
    of: its bytes, its owner, and who it is shared with."""

    file_id: str
    name: str
    media_type: str
    data: bytes
    owner: str
    shared_with: list[str]


# -- MCP host state (the mcp family) ---------------------------------------------------------


class McpAccount(msgspec.Struct, frozen=True, kw_only=True):
    """One account of an integration the Trial's chat may act as: its scope and status, the
    credential the provider knows it by, whether it is the default, and when it expires."""

    account_id: str
    scope: str
    status: str
    credential: str
    is_default: bool
    expires_at: str | None


# -- the Routine desk (the routine family) ----------------------------------------------------


class RoutineSchedule(msgspec.Struct, frozen=True, kw_only=True):
    """One Routine the operator runs instead of a chat Turn: its definition (the runtime's
    form), its Tool's contract, an extra guardrail policy, its inputs, where its Tool's
    provider listens, and who grants the approvals it asks for (``None``: nobody)."""

    slug: str
    definition: Mapping[str, Any]
    tool: str
    description: str
    input_schema: Mapping[str, Any]
    mutating: bool
    requires_approval: bool
    guardrail: Mapping[str, Any] | None
    inputs: Mapping[str, Any]
    provider_url: str
    approver: str | None


class RoutineOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """The Routine Run as the database holds it once the Trial is over; ``raised``: what the
    runtime's worker raised when it broke (not a drilled crash), if it did."""

    run_id: str
    run_status: str
    reason: str | None
    state_status: str | None
    state_output: Any
    captured: bool
    crashes: int
    raised: str | None = None


# -- replies and Files (the integration-reply and files families) -----------------------------


class Redelivery(msgspec.Struct, frozen=True):
    # A redelivery of an undelivered reply the runtime stored (a retry_waits row). (No
    # docstring: it would change the integration-reply record's schema.)
    run_id: str
    status: str
    code: str | None = None


class GeneratedFile(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    # A File the Agent wrote, and who may read it, as the File store holds it. (No docstring:
    # it would change the files record's schema.)
    file_id: str
    name: str
    media_type: str
    status: str
    owner: str
    readable_by: list[str]
