"""The routine family on its own: its provider speaks real HTTP and logs what it served; its
scorers are total and fail over nothing observed; its witness checks name both sides."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from eval_core._case.evidence import Event, Evidence, Testimony, ToolCall, ToolResult
from eval_expectations_routine import provider_log
from eval_expectations_routine.kind import (
    RoutineWorkerCrashes,
    StateOutputEquals,
    score,
    score_crashes,
)
from eval_expectations_routine.provider import FixtureProvider, shared_provider
from eval_expectations_routine.provider_log import (
    ProviderLog,
    ToolProviderEffects,
    ToolProviderRequests,
    ToolProviderRetryAfterHonoured,
    ToolProviderUntouchedBeforeApproval,
)
from eval_expectations_routine.setup import RoutineRecord, _log
from eval_kit import assert_kind_conforms, evidence

SNAPSHOTS = Path(__file__).parent / "snapshots"


def post(url: str, key: str, tool: str = "t") -> tuple[int, dict[str, str], bytes]:
    target = urlsplit(url)
    conn = http.client.HTTPConnection(target.hostname or "", target.port, timeout=5)
    body = json.dumps({"tool": tool, "arguments": {}}).encode()
    try:
        conn.request("POST", target.path, body, {"Idempotency-Key": key})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_the_provider_answers_its_steps_in_order_and_counts_them(
    provider: FixtureProvider,
) -> None:
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
    refusing = provider.open([{"kind": "refuse", "status": 403, "code": "archived"}])
    status, headers, body = post(refusing.url, "k4")
    assert (status, json.loads(body), "Retry-After" in headers) == (
        403,
        {"error": {"code": "archived"}},
        False,
    )
    assert (refusing.effects, [r.applied for r in refusing.received]) == (0, [False])
    page = "<html><body>Request blocked.</body></html>"
    walled = provider.open([{"kind": "refuse", "status": 403, "body": page}])
    status, _, body = post(walled.url, "k5")
    assert (status, body, walled.effects) == (403, page.encode(), 0)
    provider.forget(scenario)
    assert post(scenario.url, "k3")[0] == 404


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


def test_routine_worker_crashes_reads_the_hosts_record_of_its_workers() -> None:
    e = RoutineWorkerCrashes(count=1)
    assert not score_crashes(e, Evidence(tier="l3")).passed
    evidence = Evidence(tier="l3")
    evidence.put(record(crashes=1))
    assert score_crashes(e, evidence).passed
    evidence.put(record(crashes=0))
    verdict = score_crashes(e, evidence)
    assert not verdict.passed and "0 worker(s) of the Routine died" in verdict.detail


class Clock:
    """A Trial clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def provider() -> Iterator[FixtureProvider]:
    yield from shared_provider()  # started and closed as a Sweep does, here once per test


def served_log(
    provider: FixtureProvider,
    steps: list[dict[str, Any]],
    gaps: Sequence[float],
    keys: Sequence[str] = (),
    grants_at: Sequence[int] | None = None,
) -> ProviderLog:
    """The log of a real scenario: a request per gap (seconds after the last), as the
    provider itself received and stamped them; ``grants_at`` where the approver granted."""
    clock = Clock()
    scenario = provider.open(steps, clock)
    for index, gap in enumerate(gaps):
        clock.now += gap
        post(scenario.url, keys[index] if keys else "s1:effect", "invoice_push")
    return _log(scenario, None if grants_at is None else list(grants_at))


RETRY = {"kind": "retry", "retryAfterMs": 2000, "code": "rate_limited"}
SUCCESS = {"kind": "success", "output": {"id": "r-1"}}


def test_the_provider_logs_what_it_answered_and_when(provider: FixtureProvider) -> None:
    log = served_log(provider, [RETRY, SUCCESS], [0, 2.5])
    assert [(r.call_id, r.applied, r.retry_after_ms) for r in log.requests] == [
        ("s1", False, 2000),
        ("s1", True, None),
    ]
    assert [r.at for r in log.requests] == [100.0, 102.5]


def test_effects_and_requests_are_counted_by_the_provider(provider: FixtureProvider) -> None:
    log = served_log(provider, [SUCCESS], [0, 1])  # applied twice: a resume that re-ran it
    ev = evidence("l3", records=[log])
    once = score_of(ToolProviderEffects(count=1), ev)
    assert not once.passed and "applied the effect 2 time(s), expected 1" in once.detail
    assert score_of(ToolProviderEffects(count=2, tool="invoice_push"), ev).passed
    assert score_of(ToolProviderEffects(count=0, tool="other"), ev).passed
    assert score_of(ToolProviderRequests(count=2), ev).passed
    none = evidence("l3", records=[served_log(provider, [SUCCESS], [])])
    assert score_of(ToolProviderRequests(count=0), none).passed  # a block held: nothing came


def test_nothing_before_the_approvers_grant(provider: FixtureProvider) -> None:
    e = ToolProviderUntouchedBeforeApproval()
    after = evidence("l3", records=[served_log(provider, [SUCCESS], [1], grants_at=[0])])
    assert score_of(e, after).passed
    early = evidence("l3", records=[served_log(provider, [SUCCESS], [0, 1], grants_at=[1])])
    verdict = score_of(e, early)
    assert not verdict.passed and "1 request(s) before the approver granted" in verdict.detail
    ungranted = evidence("l3", records=[served_log(provider, [SUCCESS], [0], grants_at=[])])
    assert "no approval was granted" in score_of(e, ungranted).detail
    assert not score_of(e, ungranted).passed
    idle = evidence("l3", records=[served_log(provider, [SUCCESS], [], grants_at=[])])
    assert score_of(e, idle).passed
    chat = evidence("l3", records=[served_log(provider, [SUCCESS], [0])])  # nobody grants
    assert not score_of(e, chat).passed


def test_a_retry_sooner_than_asked_fails(provider: FixtureProvider) -> None:
    e = ToolProviderRetryAfterHonoured()
    waited = evidence("l3", records=[served_log(provider, [RETRY, SUCCESS], [0, 2.001])])
    assert score_of(e, waited).passed
    hurried = evidence("l3", records=[served_log(provider, [RETRY, SUCCESS], [0, 1.0])])
    verdict = score_of(e, hurried)
    assert not verdict.passed and "asked 2000 ms, came back after 1000 ms" in verdict.detail
    never_asked = evidence("l3", records=[served_log(provider, [SUCCESS], [0])])
    assert "never asked for a wait" in score_of(e, never_asked).detail
    abandoned = evidence("l3", records=[served_log(provider, [RETRY], [0])])
    assert "no call came back" in score_of(e, abandoned).detail
    other_call = served_log(provider, [RETRY, SUCCESS], [0, 0.1], keys=["a:effect", "b:effect"])
    assert not score_of(e, evidence("l3", records=[other_call])).passed  # b is not a's retry


def test_every_provider_kind_fails_without_a_log() -> None:
    for e in (
        ToolProviderEffects(count=0),
        ToolProviderRequests(count=0),
        ToolProviderUntouchedBeforeApproval(),
        ToolProviderRetryAfterHonoured(),
    ):
        verdict = score_of(e, Evidence(tier="l3"))
        assert not verdict.passed and "no Tool provider's log was read back" in verdict.detail


@pytest.mark.parametrize("spec", provider_log.kinds(), ids=lambda spec: spec.name)
def test_the_provider_kinds_keep_the_contract(spec: Any) -> None:
    assert spec.witness == "provider"
    assert_kind_conforms(
        spec, examples=60, records=[ProviderLog], snapshot=SNAPSHOTS / f"{spec.name}.schema.json"
    )


def result(call_id: str, status: str = "succeeded") -> ToolResult:
    return ToolResult(call_id=call_id, name="invoice_push", arguments={}, status=status)


def test_the_witness_checks_name_both_sides(provider: FixtureProvider) -> None:
    twice = served_log(provider, [SUCCESS], [0, 1], grants_at=[0])
    said_once = evidence("l3", records=[twice], tool_results=[result("s1")])
    [line] = provider_log.effects_not_recorded(said_once)
    assert "recorded 1 successful result(s)" in line and "applied the effect 2 time(s)" in line
    said_twice = evidence("l3", records=[twice], tool_results=[result("s1"), result("s1")])
    assert not list(provider_log.effects_not_recorded(said_twice))

    asked = Event(turn_index=1, seq=1, type="approval.requested", payload={"callId": "s1"})
    early = served_log(provider, [SUCCESS], [0], grants_at=[1])
    [line] = provider_log.reached_before_approval(evidence("l3", records=[early], events=[asked]))
    assert "waiting on an approval" in line and "before any was granted" in line
    late = served_log(provider, [SUCCESS], [0], grants_at=[0])
    assert not list(
        provider_log.reached_before_approval(evidence("l3", records=[late], events=[asked]))
    )

    dispatched = Testimony(tool_calls=[ToolCall(call_id="s1", name="invoice_push", arguments={})])
    assert not list(
        provider_log.received_not_dispatched(evidence("l3", records=[late], testimony=dispatched))
    )
    silent = evidence("l3", records=[late], testimony=Testimony(tool_calls=[]))
    [line] = provider_log.received_not_dispatched(silent)
    assert "no dispatch of call s1" in line
    for check in provider_log.CHECKS:  # a side unobserved is for the kinds, not the checks
        assert not list(check.check(Evidence(tier="l3")))
        assert not list(check.check(evidence("l3", records=[late])))


def score_of(e: Any, ev: Evidence) -> Any:
    spec = next(spec for spec in provider_log.kinds() if spec.struct is type(e))
    return spec.scorer(e, ev)


SLACK = {"name": "post_status", "inputSchema": {"type": "object"}, "mutating": True}
SERVED = {
    "tool": "post_status",
    "providerSteps": [
        {"kind": "retry", "retryAfterMs": 2000, "code": "rate_limited", "status": 503},
        {"kind": "success", "output": {"posted": True}},
    ],
}
POST = [
    {"kind": "tool_calls", "calls": [{"callId": "c1", "name": "post_status", "arguments": {}}]},
    {"kind": "text", "text": "Posted."},
]


def test_a_provider_served_chat_tool_waits_as_long_as_it_asked(eval_kit: Any) -> None:
    """End to end on the reference Host: the real loopback provider, the runtime's retry wait,
    the Host's restart and timer sweep, the provider's own log."""
    case = eval_kit.case(
        {"kind": "tool_provider_retry_after_honoured"},
        {"kind": "tool_provider_effects", "count": 1},
        {"kind": "tool_provider_requests", "count": 2, "tool": "post_status"},
        tier="l3",
        tools=[SLACK],
        toolProvider=SERVED,
        script=POST,
    )
    result = eval_kit.run(case)
    assert result.outcome == "passed", (result.error, result.expectations, result.contradictions)


def test_the_load_rules_refuse_what_could_not_mean_one_thing(eval_kit: Any) -> None:
    def refused(**fields: Any) -> list[str]:
        expect = fields.pop("expect", [{"kind": "tool_provider_effects", "count": 1}])
        return eval_kit.problems(eval_kit.case(*expect, tier="l3", script=POST, **fields))

    assert refused(tools=[SLACK], toolProvider=SERVED) == []
    assert any("needs 'routine' or 'toolProvider'" in p for p in refused(tools=[SLACK]))
    unknown = refused(tools=[SLACK], toolProvider={**SERVED, "tool": "other"})
    assert any("'other' is not a Tool the Case declares" in p for p in unknown)
    scripted = refused(
        tools=[SLACK], toolProvider=SERVED, toolResults=[{"name": "post_status", "output": {}}]
    )
    assert any("drop its scripted result" in p for p in scripted)
    no_wait = {**SERVED, "providerSteps": [{"kind": "success", "output": {}}]}
    retry_kind = [{"kind": "tool_provider_retry_after_honoured"}]
    assert any(
        "needs a provider step that asks for a retry" in p
        for p in refused(tools=[SLACK], toolProvider=no_wait, expect=retry_kind)
    )
    blank = {**SERVED, "providerSteps": [{"kind": "refuse", "status": 409, "code": " "}]}
    assert any(
        "providerSteps[0].code: must name the code the provider refuses with" in p
        for p in refused(tools=[SLACK], toolProvider=blank)
    )
    both = {
        **SERVED,
        "providerSteps": [{"kind": "refuse", "status": 403, "code": "blocked", "body": "<p>"}],
    }
    assert any(
        "providerSteps[0].body: answers the refusal whole" in p
        for p in refused(tools=[SLACK], toolProvider=both)
    )
    neither = {**SERVED, "providerSteps": [{"kind": "refuse", "status": 403}]}
    assert any(
        "providerSteps[0].code: must name the code" in p
        for p in refused(tools=[SLACK], toolProvider=neither)
    )
    approval_kind = [{"kind": "tool_provider_untouched_before_approval"}]
    assert any(
        "needs a 'routine' whose Tool requires an approval" in p
        for p in refused(tools=[SLACK], toolProvider=SERVED, expect=approval_kind)
    )
    assert any(
        "must be an integer ≥ 0" in p
        for p in refused(
            tools=[SLACK],
            toolProvider=SERVED,
            expect=[{"kind": "tool_provider_effects", "count": -1}],
        )
    )


def test_the_routines_contracted_tool_may_be_named_and_a_misspelling_may_not(
    eval_kit: Any,
) -> None:
    """The Routine's tool contract adds its Tool to the Trial (``offers_tools``): a Case names
    it without declaring it; the provider kinds' ``tool`` is checked like every Tool name."""
    shipped = Path(__file__).parents[3] / "corpus"
    routine = json.loads(
        (shipped / "l3-routine-books-an-invoice-and-captures-the-receipt.json").read_text()
    )["routine"]

    def problems(name: str) -> list[str]:
        case = eval_kit.case(
            {"kind": "tool_argument_equals", "name": name, "path": "amount", "value": 48.5},
            {"kind": "tool_provider_requests", "count": 1, "tool": name},
            tier="l3",
            routine=routine,
        )
        case.pop("script")
        return eval_kit.problems(case)

    assert problems("invoice_push") == []
    assert problems("invoice_pusher") == [
        f"{path}: 'invoice_pusher' is not a Tool of agent 'assistant' in this Case (its tools and "
        "platformTools); it has: invoice_push; did you mean 'invoice_push'?"
        for path in ("$.expect[0].name", "$.expect[1].tool")
    ]
