"""``mcp_provider_call_count``: how many ``tools/call`` requests the MCP provider served, and
of those how many it refused (answered ``isError``, or with no result at all when the Case's
``answers`` told it to: an HTTP error, an oversized answer, a fault).

The fixture reads the counts back from the provider itself (:class:`McpRecord`), never from
the Host's dispatcher or the model's claims: a call the account authority refused never reaches
the provider. A count that was not observed fails, even when zero was expected.

:func:`refused_but_succeeded` is the family's witness check: the runtime may not record more
MCP calls as succeeded than the provider answered without ``isError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eval_core.kinds import (
    Evidence,
    Expectation,
    Verdict,
    WitnessCheck,
    failed,
    need,
    passed,
    scorer,
)
from eval_expectations_mcp.fixture import MCP_PREFIX
from eval_expectations_mcp.setup import McpRecord


class McpProviderCallCount(Expectation, tag="mcp_provider_call_count", frozen=True):
    count: int
    refused: int | None = None
    """When given, how many of those calls the provider answered ``isError``."""


def observed_calls(evidence: Evidence) -> int | None:
    """The provider's own count, or ``None`` when it was not observed."""
    record = evidence.record(McpRecord)
    return None if record is None else record.provider_calls


@scorer
def score(expectation: McpProviderCallCount, evidence: Evidence) -> Verdict:
    calls = need(
        observed_calls(evidence),
        f"the MCP provider's tools/call count was not observed; cannot confirm {expectation.count}",
    )
    detail = f"the MCP provider served {calls} tools/call request(s), expected {expectation.count}"
    if calls != expectation.count:
        return failed(detail)
    if expectation.refused is None:
        return passed(detail)
    record = evidence.record(McpRecord)
    refusals = need(
        None if record is None else record.provider_refusals,
        f"{detail}; how many it refused was not observed, cannot confirm {expectation.refused}",
    )
    detail = f"{detail}, and refused {refusals} (isError), expected {expectation.refused}"
    return Verdict(refusals == expectation.refused, detail)


def check(expectation: McpProviderCallCount, _case: Any) -> list[tuple[str, str]]:
    if isinstance(expectation.count, bool) or expectation.count < 0:
        return [(".count", "must be an integer >= 0")]
    refused = expectation.refused
    if refused is not None and (isinstance(refused, bool) or not 0 <= refused <= expectation.count):
        return [(".refused", f"must be an integer from 0 to count ({expectation.count})")]
    return []


def refused_but_succeeded(evidence: Evidence) -> Iterable[str]:
    """More MCP calls the runtime recorded as succeeded than the provider answered without
    ``isError``: a refusal reported to the model as a success."""
    record = evidence.record(McpRecord)
    if record is None or evidence.tool_results is None:
        return
    calls, refusals = record.provider_calls, record.provider_refusals
    if calls is None or refusals is None:
        return
    succeeded = [
        r.call_id
        for r in evidence.tool_results
        if r.name.startswith(MCP_PREFIX) and r.status == "succeeded"
    ]
    answered = calls - refusals
    if len(succeeded) > answered:
        yield (
            f"the runtime recorded {len(succeeded)} MCP call(s) as succeeded "
            f"({', '.join(succeeded)}), but the MCP provider answered {answered} of its "
            f"{calls} tools/call request(s) without isError (it refused {refusals})"
        )


CHECKS = [
    WitnessCheck("MCP provider refusal recorded as success", refused_but_succeeded, reads=McpRecord)
]
