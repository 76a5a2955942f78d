"""The routine family on its own: its provider speaks real HTTP and counts what it served; its
scorer is total and fails over nothing observed."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from eval_core.evidence import Evidence
from eval_expectations_routine.kind import StateOutputEquals, score
from eval_expectations_routine.provider import FixtureProvider
from eval_expectations_routine.setup import RoutineRecord


def post(url: str, key: str) -> tuple[int, dict[str, str], bytes]:
    target = urlsplit(url)
    conn = http.client.HTTPConnection(target.hostname or "", target.port, timeout=5)
    try:
        conn.request(
            "POST", target.path, b'{"tool": "t", "arguments": {}}', {"Idempotency-Key": key}
        )
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_the_provider_answers_its_steps_in_order_and_counts_them() -> None:
    provider = FixtureProvider()
    try:
        scenario = provider.open(
            [
                {"kind": "retry", "retryAfterMs": 1500, "code": "rate_limited"},
                {"kind": "success", "output": {"id": "r-1"}, "paddingBytes": 3},
            ]
        )
        status, headers, body = post(scenario.url, "k1")
        assert (status, headers["Retry-After"]) == (429, "2")
        assert json.loads(body) == {"error": {"code": "rate_limited", "retryAfterMs": 1500}}
        status, _, body = post(scenario.url, "k1")
        assert (status, body) == (200, b'   {"id": "r-1"}')
        assert post(scenario.url, "k2")[0] == 200  # the last step repeats: applied again
        assert (scenario.requests, scenario.effects, scenario.keys) == (3, 2, ["k1", "k1", "k2"])
        provider.forget(scenario)
        assert post(scenario.url, "k3")[0] == 404
    finally:
        provider.close()


def record(**overrides: object) -> RoutineRecord:
    fields: dict[str, object] = {
        "run_status": "succeeded",
        "reason": None,
        "state_status": "succeeded",
        "state_output": {"receipt": {"id": "r-1"}},
        "captured": True,
        "crashes": 0,
        "provider_requests": 1,
        "provider_effects": 1,
    }
    fields.update(overrides)
    return RoutineRecord(**fields)  # type: ignore[arg-type]


def test_state_output_equals_reads_the_captured_output_and_fails_over_nothing() -> None:
    e = StateOutputEquals(path="receipt.id", value="r-1")
    assert not score(e, Evidence(tier="l3")).passed
    assert "no Routine Run was read back" in score(e, Evidence(tier="l3")).detail
    evidence = Evidence(tier="l3")
    evidence.put(record())
    assert score(e, evidence).passed
    evidence.put(record(captured=False, state_output=None, run_status="waiting"))
    verdict = score(e, evidence)
    assert not verdict.passed and "the Run is waiting" in verdict.detail
    evidence.put(record(state_output={"receipt": {}}))
    assert "has no receipt.id" in score(e, evidence).detail
