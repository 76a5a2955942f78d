"""``mcp_provider_call_count``: how many ``tools/call`` requests the MCP provider served.

The fixture reads the count back from the provider itself (:class:`McpRecord`), never from
the Host's dispatcher or the model's claims: a call the account authority refused never reaches
the provider. A count that was not observed fails, even when zero was expected.
"""

from __future__ import annotations

from typing import Any

from eval_core.plugin import Evidence, Expectation, Verdict, failed, passed
from eval_expectations_mcp.setup import McpRecord


class McpProviderCallCount(Expectation, tag="mcp_provider_call_count", frozen=True):
    count: int


def observed_calls(evidence: Evidence) -> int | None:
    """The provider's own count, or ``None`` when it was not observed."""
    record = evidence.record(McpRecord)
    return None if record is None else record.provider_calls


def score(expectation: McpProviderCallCount, evidence: Evidence) -> Verdict:
    calls = observed_calls(evidence)
    if calls is None:
        return failed(
            "the MCP provider's tools/call count was not observed; "
            f"cannot confirm {expectation.count}"
        )
    detail = f"the MCP provider served {calls} tools/call request(s), expected {expectation.count}"
    return passed(detail) if calls == expectation.count else failed(detail)


def check(expectation: McpProviderCallCount, _case: Any) -> list[tuple[str, str]]:
    if isinstance(expectation.count, bool) or expectation.count < 0:
        return [(".count", "must be an integer >= 0")]
    return []
