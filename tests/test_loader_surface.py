"""Loader rules of the rest of the spec's Case surface, each refusal with file, path and reason.

Optional scripts, retired context keys, Tool results that park a call (approvalId,
retryWaitId), Tool declaration extras; the family fields (routine, integrationReply, doctor,
contextTokenBudget, hostingAuthority, safetyHostingAuthority) have their rules at the end, then
the exclusions between fixture blocks and the generated schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.loader import Loader
from tests.conftest import Refuses, WriteCase, minimal_case, refusal

TICKET = {"name": "lookup_ticket", "output": {"ticketId": "T-1", "status": "shipped"}}


def without_script(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(**overrides)
    del case["script"]
    return case


def l3(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(tier="l3", expect=[{"kind": "run_status", "status": "succeeded"}])
    case.update(overrides)
    return case


CORE_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        minimal_case(context={"memory": ["Order 4471 was refunded."]}),
        "$.context.memory",
        "'memory' is retired: what the agent remembers reaches the model as the conversation",
    ),
    (
        minimal_case(context={"taggedResources": ["T-1"]}),
        "$.context.taggedResources",
        "'taggedResources' is retired: a tagged record reaches the model",
    ),
    (
        minimal_case(context={"temporal": {"now": "2024-05-01"}}),
        "$.context.temporal",
        "'temporal' is retired: the current time comes from the get_current_time Tool",
    ),
    (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "approvalId": "a1", "error": "boom"}],
        ),
        "$.toolResults[0]",
        "at most one of denied, error, invalidArguments, approvalId, retryWaitId",
    ),
    (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "retryWaitId": ""}],
        ),
        "$.toolResults[0]",
        "an approvalId or a retryWaitId must be non-empty",
    ),
    (
        minimal_case(
            tools=[
                {"name": "send", "inputSchema": {"type": "object"}, "participantActivity": "loud"}
            ]
        ),
        "$.tools[0].participantActivity",
        "Invalid enum value 'loud'",
    ),
]


SPEC_RETIRED = [
    *("memory", "memoryDocument", "business", "governancePages"),
    *("knowledgeGrounding", "pinnedKnowledge", "availableSkills", "eagerSkills"),
    *("soulCatalogue", "taggedResources", "availableTools", "surfaceCatalog", "temporal"),
    *("agentId", "domain", "tenantId"),
]
"""The retired context keys the spec's loader refuses when set, each with a hint (an empty
one loads with a note: tests/test_upstream_leniency.py)."""


def test_every_retired_context_key_of_the_spec_is_refused_with_a_hint(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    for index, key in enumerate(SPEC_RETIRED):
        write_case(minimal_case(f"c{index}", context={key: "x"}))
    problems = sorted(refusal(loader, corpus_dir))
    expected = sorted((f"c{i}.json", f"$.context.{key}") for i, key in enumerate(SPEC_RETIRED))
    assert [p[:2] for p in problems] == expected
    for _file, path, reason in problems:
        key = path.rsplit(".", 1)[-1]
        assert reason.startswith(f"{key!r} is retired: ") and len(reason) > len(key) + 20, reason


def test_the_parking_results_and_tool_extras_load_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        minimal_case(
            tools=[
                {
                    "name": "send_invoice",
                    "inputSchema": {"type": "object"},
                    "mutating": True,
                    "sideEffecting": True,
                    "participantActivity": "represented",
                }
            ],
            toolResults=[
                {"name": "send_invoice", "approvalId": "appr-7"},
                {"name": "send_invoice", "retryWaitId": "wait-3"},
            ],
        )
    )
    [case] = loader.load(corpus_dir).cases
    [tool] = case.tools
    assert (tool.side_effecting, tool.participant_activity) == (True, "represented")
    assert [(r.approval_id, r.retry_wait_id) for r in case.tool_results] == [
        ("appr-7", None),
        (None, "wait-3"),
    ]


def test_an_empty_script_is_still_a_script(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    """A Case whose model is never called says so with ``script: []``."""
    write_case(minimal_case(script=[], expect=[{"kind": "model_not_called"}]))
    assert loader.load(corpus_dir).cases[0].script == []


# -- routine ------------------------------------------------------------------------------------

CONTRACT = {
    "name": "invoice_push",
    "inputSchema": {"type": "object", "properties": {"invoiceId": {"type": "string"}}},
}
PUSH = {
    "key": "push",
    "type": "tool",
    "tool": "invoice_push",
    "arguments": {"invoiceId": {"$from": "inputs.invoiceId"}},
}
KEEP = {"key": "keep", "type": "capture", "output": {"id": {"$from": "states.push.output.id"}}}
OUTPUT = {"kind": "state_output_equals", "path": "id", "value": "r-1"}


def routine(block: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
    full = {
        "definition": {
            "slug": "invoice-push",
            "inputs": {"invoiceId": {"type": "string"}},
            "states": [PUSH, KEEP],
        },
        "toolContract": CONTRACT,
        "inputs": {"invoiceId": "INV-1"},
        "providerSteps": [{"kind": "success", "output": {"id": "r-1"}}],
        **(block or {}),
    }
    case = without_script(tier="l3", routine=full, expect=[OUTPUT])
    case.update(overrides)
    return case


def with_states(*states: dict[str, Any]) -> dict[str, Any]:
    return routine(
        {
            "definition": {
                "slug": "invoice-push",
                "inputs": {"invoiceId": {"type": "string"}},
                "states": list(states),
            }
        }
    )


ROUTINE_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (routine(tier="l2"), "$.routine", "'routine' is l3-only; this Case is l2"),
    (
        with_states(PUSH, {**PUSH, "key": "again"}),
        "$.routine.definition.states",
        "a Routine has exactly one tool State, not 2",
    ),
    (
        with_states(KEEP),
        "$.routine.definition.states",
        "a Routine has exactly one tool State, not 0",
    ),
    (
        with_states(PUSH, {**KEEP, "type": "loop"}),
        "$.routine.definition.states[1].type",
        "Invalid enum value 'loop'",
    ),
    (
        with_states({**PUSH, "tool": "invoice_void"}, KEEP),
        "$.routine.definition.states[0].tool",
        "calls 'invoice_void'; the Tool the contract declares is 'invoice_push'",
    ),
    (
        with_states({**PUSH, "arguments": {"invoiceId": {"$from": "inputs.invoice"}}}, KEEP),
        "$.routine.definition.states[0].arguments.invoiceId.$from",
        "reads the undeclared input 'invoice'",
    ),
    (
        with_states(PUSH, {**KEEP, "output": {"$from": "states.keep.output"}}),
        "$.routine.definition.states[1].output.$from",
        "reads State 'keep', which is not an earlier tool State",
    ),
    (
        routine({"inputs": {"invoiceId": "INV-1", "extra": 1}}),
        "$.routine.inputs.extra",
        "'extra' is not an input the definition declares",
    ),
    (
        routine({"inputs": {}}),
        "$.routine.inputs",
        "the definition declares input 'invoiceId'; give its value",
    ),
    (routine({"providerSteps": []}), "$.routine.providerSteps", "must list what the provider"),
    (
        routine({"providerSteps": [{"kind": "success"}]}),
        "$.routine.providerSteps[0]",
        "missing required field `output`",
    ),
    (
        routine({"providerSteps": [{"kind": "success", "output": {}, "paddingBytes": 0}]}),
        "$.routine.providerSteps[0].paddingBytes",
        "must be an integer from 1 to 262144",
    ),
    (
        routine({"providerSteps": [{"kind": "success", "output": {}, "paddingBytes": 262145}]}),
        "$.routine.providerSteps[0].paddingBytes",
        "must be an integer from 1 to 262144",
    ),
    (
        routine({"providerSteps": [{"kind": "retry", "retryAfterMs": 0}]}),
        "$.routine.providerSteps[0].retryAfterMs",
        "must be a positive number of milliseconds",
    ),
    (
        routine({"providerSteps": [{"kind": "retry"}]}),
        "$.routine.providerSteps[0]",
        "missing required field `retryAfterMs`",
    ),
    (
        routine({"approval": "approved"}),
        "$.routine.approval",
        "the Tool asks for no approval",
    ),
    (
        routine({"crashAfter": "midway"}),
        "$.routine.crashAfter",
        "Invalid enum value 'midway'",
    ),
    (
        routine(journey=[{"input": [{"role": "user", "content": "x"}]}]),
        "$.journey",
        "a 'routine' Case may not carry 'journey'",
    ),
    (routine(fault="model"), "$.fault", "a 'routine' Case may not carry 'fault'"),
    (routine(doctor={}), "$.doctor", "a 'routine' Case may not carry 'doctor'"),
    (
        routine(platformTools=["lookup_ticket"]),
        "$.platformTools",
        "a 'routine' Case calls its toolContract's Tool; drop 'platformTools'",
    ),
    (
        minimal_case(tier="l3", expect=[OUTPUT]),
        "$.expect[0].kind",
        "'state_output_equals' needs 'routine'",
    ),
]


def test_a_routine_case_loads_without_a_script(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(routine({"crashAfter": "effect_confirmed"}))
    [case] = loader.load(corpus_dir).cases
    assert case.script is None
    assert case.field("routine").crash_after == "effect_confirmed"


# -- integrationReply ---------------------------------------------------------------------------

REPLY = {"delivered": False, "outcome": "failed", "code": "channel_archived"}


def replied(reply: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
    return l3(integrationReply={**REPLY, **(reply or {})}, **overrides)


REPLY_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        replied(tier="l2", expect=[{"kind": "loop_status", "status": "failed"}]),
        "$.integrationReply",
        "'integrationReply' is l3-only; this Case is l2",
    ),
    (
        replied({"delivered": True}),
        "$.integrationReply.delivered",
        "a delivered reply is the default: drop the block",
    ),
    (replied({"outcome": "lost"}), "$.integrationReply.outcome", "Invalid enum value 'lost'"),
    (replied({"code": " "}), "$.integrationReply.code", "must be a non-empty string"),
    (
        replied({"waitId": "w-1"}),
        "$.integrationReply.waitId",
        "the runtime mints its own waits: drop 'waitId'",
    ),
    (
        {k: v for k, v in replied().items() if k != "integrationReply"}
        | {"integrationReply": {"delivered": False, "outcome": "failed"}},
        "$.integrationReply",
        "missing required field `code`",
    ),
    (
        replied(journey=[{"input": [{"role": "user", "content": "And now?"}]}]),
        "$.journey",
        "an integrationReply Case is a single Turn: drop 'journey'",
    ),
]


def test_a_routine_case_may_not_carry_an_integration_reply(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(routine(integrationReply=REPLY))
    assert refusal(loader, corpus_dir) == [
        ("c.json", "$.integrationReply", "a 'routine' Case may not carry 'integrationReply'")
    ]


# -- doctor -------------------------------------------------------------------------------------

REPAIR = {"slug": "ticket-digest", "content": "states: []", "summary": "Fix it."}
REPAIRED = {"kind": "doctor_repaired", "subject": "Routine:ticket-digest"}


def doctored(doctor: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
    case = l3(doctor={"repair": REPAIR} if doctor is None else doctor, expect=[REPAIRED])
    case.update(overrides)
    return case


DOCTOR_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        doctored(tier="l2", expect=[{"kind": "loop_status", "status": "completed"}]),
        "$.doctor",
        "'doctor' is l3-only; this Case is l2",
    ),
    (
        doctored({"repair": {**REPAIR, "slug": "Ticket Digest"}}),
        "$.doctor.repair.slug",
        "'Ticket Digest' is not a lowercase-hyphenated slug",
    ),
    (
        doctored({"repair": {**REPAIR, "content": " "}}),
        "$.doctor.repair.content",
        "must be a non-empty string",
    ),
    (
        doctored({"repair": {"slug": "ticket-digest", "content": "x"}}),
        "$.doctor.repair",
        "missing required field `summary`",
    ),
    (doctored({"concurrentContent": "x"}), "$.doctor", "unknown field `concurrentContent`"),
    (l3(expect=[REPAIRED]), "$.expect[0].kind", "'doctor_repaired' needs 'doctor'"),
    (
        doctored(expect=[{"kind": "doctor_escalated", "subject": "Routine:"}]),
        "$.expect[0].subject",
        "'Routine:' must be Kind:slug or a bare slug",
    ),
]


# -- contextTokenBudget -------------------------------------------------------------------------

BUDGET_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        minimal_case(contextTokenBudget=0),
        "$.contextTokenBudget",
        "must be a positive number of tokens",
    ),
    (minimal_case(contextTokenBudget="600"), "$.contextTokenBudget", "Expected `int | null`"),
    (l3(contextTokenBudget=600), "$.contextTokenBudget", "'contextTokenBudget' is l2-only"),
]


# -- hostingAuthority, safetyHostingAuthority ---------------------------------------------------

PUSH_STEP = {"kind": "tool_calls", "calls": [{"callId": "c1", "name": "soul_repo_push"}]}


def hosted(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(
        agent="soul-author",
        hostingAuthority="tulipfarm",
        platformTools=["soul_repo_push"],
        script=[PUSH_STEP, {"kind": "text", "text": "Not pushed."}],
        expect=[{"kind": "tool_denied", "name": "soul_repo_push", "path": "$", "value": {}}],
    )
    case.update(overrides)
    return case


HOSTING_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        hosted(tier="l3", expect=[{"kind": "run_status", "status": "succeeded"}]),
        "$.hostingAuthority",
        "'hostingAuthority' is l2-only; this Case is l3",
    ),
    (hosted(hostingAuthority="self"), "$.hostingAuthority", "Invalid enum value 'self'"),
    (  # no soul_repo_push anywhere else: naming it unoffered is refused on its own
        hosted(
            platformTools=["soul_write"],
            script=[{"kind": "text", "text": "Not pushed."}],
            expect=[{"kind": "loop_status", "status": "completed"}],
        ),
        "$.platformTools",
        "a 'hostingAuthority' Case names the platform Tool 'soul_repo_push'",
    ),
    (
        hosted(toolResults=[{"name": "soul_repo_push", "output": {"pushed": True}}]),
        "$.toolResults[0].name",
        "'soul_repo_push' is never scripted in a 'hostingAuthority' Case: the runtime's hosting "
        "gate decides it",
    ),
    (
        minimal_case(safetyHostingAuthority="platform"),
        "$.safetyHostingAuthority",
        "Invalid enum value 'platform'",
    ),
    (
        l3(safetyHostingAuthority="tulipfarm"),
        "$.safetyHostingAuthority",
        "'safetyHostingAuthority' is l2-only; this Case is l3",
    ),
]


def test_the_hosting_fields_load_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(hosted(safetyHostingAuthority="independent"))
    [case] = loader.load(corpus_dir).cases
    assert case.field("hosting_authority") == "tulipfarm"
    assert case.field("safety_hosting_authority") == "independent"


# -- the spec's exclusions between fixture blocks -----------------------------------------------

NATIVE = {"destination": "eval/native#1", "accountId": "a"}
MCP = {"visibility": "private", "accounts": [{"id": "a", "scope": "personal", "status": "active"}]}


def native(**blocks: Any) -> dict[str, Any]:
    """A nativeRoutine Case that also carries ``blocks``."""
    admitted = {"kind": "native_admission_equals", "path": "runCount", "value": 1}
    return without_script(tier="l3", nativeRoutine=NATIVE, expect=[admitted], **blocks)


EXCLUSIONS: list[tuple[dict[str, Any], str, str]] = [
    (routine(mcp=MCP), "$.mcp", "an MCP Case cannot also be a Routine"),
    (
        native(routine=routine()["routine"]),
        "$.routine",
        "a 'nativeRoutine' Case may not carry 'routine'",
    ),
    (
        native(integrationReply=REPLY),
        "$.integrationReply",
        "a 'nativeRoutine' Case may not carry 'integrationReply'",
    ),
    (native(doctor={}), "$.doctor", "a 'nativeRoutine' Case may not carry 'doctor'"),
]


# -- every table above --------------------------------------------------------------------------

ALONE = [*CORE_REFUSALS, *REPLY_REFUSALS, *DOCTOR_REFUSALS, *BUDGET_REFUSALS, *HOSTING_REFUSALS]
"""Each refusal is its Case's only problem."""
AMONG = [*ROUTINE_REFUSALS, *EXCLUSIONS]
"""Each refusal is one of its Case's problems."""


@pytest.mark.parametrize(("case", "path", "reason"), ALONE)
def test_each_refusal_alone_names_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason)


@pytest.mark.parametrize(("case", "path", "reason"), AMONG)
def test_each_refusal_among_others_names_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason, alone=False)


# -- the generated schema ----------------------------------------------------------------------

SPEC_FIELDS = [
    *("id", "tier", "agent", "context", "input", "tools", "platformTools", "toolResults"),
    *("script", "expect", "trials", "redTeam", "attachments", "readable", "journey", "fault"),
    *("agentRoles", "mcp", "nativeRoutine", "routine", "integrationReply", "doctor"),
    *("checkpointCrash", "contextTokenBudget", "hostingAuthority", "safetyHostingAuthority"),
    "attemptHistory",
]
"""Every Case field of the spec's section 2."""
OUR_FIELDS = ["$schema", "recorded", "requesterRoles", "toolProvider", "unreadable"]
"""Case fields of ours beyond the spec: an editor's schema pointer, what a recorded script was
shown (``eval record``), the Roles the requester holds beside a File another user owns, a
Routine provider behind a chat Tool, a File another user owns."""


def test_the_schema_accepts_every_field_of_the_spec_as_the_shipped_cases_use_it() -> None:
    """The schema's Case properties are the spec's fields, and for each field the first shipped
    Case that sets it validates (with ``trials``, which no shipped Case sets, added)."""
    import json

    from jsonschema import Draft202012Validator

    from tests.conftest import ROOT

    schema = json.loads((ROOT / "schema" / "case.schema.json").read_text())
    case = schema["$defs"][schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema
    assert sorted(case["properties"]) == sorted(SPEC_FIELDS + OUR_FIELDS)
    paths = [*sorted((ROOT / "corpus").glob("*.json")), *(ROOT / "corpus" / "red-team").glob("*")]
    shipped = [json.loads(path.read_text()) for path in paths]
    sample: dict[str, dict[str, Any]] = {}
    for field in SPEC_FIELDS:
        if field != "trials" and not any(field in d for d in sample.values()):
            first = next(d for d in shipped if field in d)
            sample[first["id"]] = first
    for key in ("approvalId", "retryWaitId"):  # the Tool results that park a call
        first = next(d for d in shipped if any(key in r for r in d.get("toolResults", ())))
        sample[first["id"]] = first
    validator = Draft202012Validator(schema)
    for document in [*sample.values(), {**next(iter(sample.values())), "trials": 3}]:
        errors = [e.message for e in validator.iter_errors(document)]
        assert not errors, (document["id"], errors[:3])
    for field, wrong in (("hostingAuthority", "self"), ("contextTokenBudget", "600")):
        assert not validator.is_valid({**shipped[0], field: wrong}), field
