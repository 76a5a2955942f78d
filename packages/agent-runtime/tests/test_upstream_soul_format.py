"""An Eval Soul written in the original's format (issue 21, section 5) loads and behaves as the
original says: read back from the runtime (the loaded Soul, the Turn's denials, what the model
was sent), never from the files this test wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.mcp.integrations import exposed_name
from agent_runtime.model import ModelRequest, ModelResponse, ToolCallRequest, ToolSpec
from agent_runtime.soul.loader import Soul, SoulError, load_soul
from agent_runtime.tools import ToolOutcome
from runtime_doubles import ScriptedTools, turn

AGENT = """---
label: Clerk
domain: operations
description: Files notes and reads records.
autonomy: approval-required
capabilityRestrictions:
  tools:
    deny: [wipe_all]
    allow: [note_create, note_read, record_get, record_delete, skill, request_input]
  skills:
    allow: [house-rules]
  records:
    actions:
      allow: [list, search, read]
      deny: [delete]
    resourceTypes: [ticket]
placeholder: [Ask the clerk]
suggestions: [Read ticket T-1]
modelPolicy: {tier: fast}
ownership: {team: operations, since: '2024-05-17'}
---
You are the clerk. Read records and file notes.
"""
READONLY = """---
description: Reads only.
capabilityRestrictions:
  tools:
    allowMutating: false
---
You only read.
"""
MCP = """server:
  id: eval-mcp
  label: Eval MCP
  authentication: {type: none}
  transport: {type: streamable-http, url: https://mcp.eval.example/mcp}
enabled: true
reviewed:
  tools:
    - name: status
      description: Read the status.
      inputSchema: {type: object, properties: {probe: {type: string}}, required: [probe]}
      digest: 0f86280bf1e6f679a0b1ded616502d57117cc6226b7601741384ea586343fb0b
      mutating: false
      requiresApproval: true
  resources: []
  prompts: []
"""
GUARDRAILS = """input:
  - guard: prompt_injection
    sensitivity: high
tool-call:
  - guard: tool_blocklist
    block: [danger_*]
    category: [integration]
tool-result:
  - guard: untrusted_content
    sensitivity: medium
output:
  - guard: content_filter
    patterns: [credit_card, email]
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def soul_dir(tmp_path: Path) -> Path:
    return write(
        tmp_path / "soul",
        {
            "soul.yaml": "businessName: Acme\nbusinessDescription: Widgets.\n"
            "businessWebsite: https://acme.example\n",
            "agents/clerk/AGENT.md": AGENT,
            "agents/reader/AGENT.md": READONLY,
            "skills/house-rules/SKILL.md": "---\ndescription: How we work.\n---\nBe kind.\n",
            "skills/secret/SKILL.md": "---\nname: Secret\ndescription: Hidden.\n---\nShh.\n",
            "guardrails.yaml": GUARDRAILS,
            "integrations/eval-mcp/mcp.yaml": MCP,
        },
    )


def spec(name: str, *, mutating: bool = False) -> ToolSpec:
    return ToolSpec(name, f"{name} tool", {"type": "object"}, mutating=mutating)


class Script:
    """A model that calls one Tool, then answers; it keeps every request it was sent."""

    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        self.calls = [ToolCallRequest("c1", name, arguments)]
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if len(self.requests) == 1:
            return ModelResponse(tool_calls=self.calls)
        return ModelResponse(text="Done.")


OK = ToolOutcome("succeeded", {"ok": True})


def denied(soul: Soul, agent: str, tool: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """Run one Turn whose model calls ``tool``; the denial reason the model was sent back (read
    from the tool message of its second request), None when the call ran."""
    model, tools = Script(tool.name, arguments), ScriptedTools(**{tool.name: OK})
    result = turn(soul, agent, model, [tool], tools, "Please go ahead.")
    [message] = [m for m in model.requests[-1].messages if m.get("role") == "tool"]
    seen = json.loads(message["content"])
    if seen.get("status") == "denied":
        assert tools.names() == [] and result.tool_calls == []  # never reached the dispatcher
        assert result.denials[0].reason == seen["reason"]
        return str(seen["reason"])
    assert tools.names() == [tool.name]
    return None


def test_the_original_layout_loads(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    assert (soul.business.name, soul.business.website) == ("Acme", "https://acme.example")
    clerk = soul.agents["clerk"]
    assert clerk.name == "clerk" and clerk.label == "Clerk" and clerk.domain == "operations"
    assert clerk.autonomy == "approval-required"
    assert clerk.suggestions == ("Read ticket T-1",)
    # the original's free-form keys are kept, each under its own name, for a caller to read
    assert clerk.model_policy == {"tier": "fast"}
    assert clerk.ownership == {"team": "operations", "since": "2024-05-17"}
    assert soul.agents["reader"].autonomy == "full"
    assert soul.skills["house-rules"].name == "house-rules"  # name is optional
    assert soul.guardrails.input[0].sensitivity == "high"
    assert soul.guardrails.tool_call[0].block == ("danger_*",)
    assert soul.guardrails.output[0].patterns == ("credit_card", "email")
    [published] = soul.integrations.values()
    assert published.exposed == "mcp_eval_mcp_status_51b1cdd4ae261c34"
    assert published.requires_approval and not published.mutating


def test_only_the_body_reaches_the_prompt(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    model = Script("note_read", {})
    turn(soul, "clerk", model, [], ScriptedTools(note_read=OK), "hi")
    system = model.requests[0].system
    assert "You are the clerk." in system
    assert "Files notes and reads records." not in system and "Clerk" not in system


def test_the_mcp_tool_name_rule() -> None:
    assert exposed_name("eval-mcp", "status") == "mcp_eval_mcp_status_51b1cdd4ae261c34"
    long = exposed_name("A.Very-Long Server", "capability/with-odd chars")
    label = long.removeprefix("mcp_").rsplit("_", 1)[0]
    assert len(label) == 42 and label == "a_very_long_server_capability_with_odd_cha"


def test_a_disabled_server_publishes_nothing(soul_dir: Path) -> None:
    file = soul_dir / "integrations" / "eval-mcp" / "mcp.yaml"
    file.write_text(file.read_text().replace("enabled: true", "enabled: false"))
    assert load_soul(soul_dir).integrations == {}


@pytest.mark.parametrize(
    ("agent", "tool", "arguments", "reason"),
    [
        (
            "clerk",
            spec("wipe_all"),
            {},
            'tool "wipe_all" is denied by this Agent\'s capability restrictions',
        ),
        ("clerk", spec("send_mail"), {}, 'tool "send_mail" is outside this Agent\'s allowed Tools'),
        (
            "reader",
            spec("note_create", mutating=True),
            {},
            'mutating tool "note_create" is denied by this Agent\'s capability restrictions',
        ),
        (
            "clerk",
            spec("record_delete", mutating=False),
            {"type": "ticket"},
            'tool "record_delete" performs "delete", which this Agent is denied',
        ),
        (
            "clerk",
            spec("skill"),
            {"name": "secret"},
            'Skill "secret" is outside this Agent\'s allowed Skills',
        ),
    ],
)
def test_capability_restrictions_deny_with_the_original_wording(
    soul_dir: Path, agent: str, tool: ToolSpec, arguments: dict[str, Any], reason: str
) -> None:
    assert denied(load_soul(soul_dir), agent, tool, arguments) == reason


def test_an_action_outside_the_allowed_ones_is_denied(soul_dir: Path) -> None:
    soul_dir.joinpath("agents/clerk/AGENT.md").write_text(
        AGENT.replace("      deny: [delete]\n", "").replace("record_delete,", "record_update,")
    )
    reason = denied(load_soul(soul_dir), "clerk", spec("record_update"), {"type": "ticket"})
    assert reason == (
        'tool "record_update" performs "update", which is outside this Agent\'s allowed actions'
    )


def test_rules_scoped_to_named_types_leave_other_types_alone(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    assert denied(soul, "clerk", spec("record_delete"), {"type": "invoice"}) is None
    assert denied(soul, "clerk", spec("record_get"), {"type": "ticket"}) is None
    assert denied(soul, "clerk", spec("skill"), {"name": "house-rules"}) is None


def test_flow_control_tools_escape_blanket_rules(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    assert denied(soul, "reader", spec("request_input", mutating=True), {}) is None
    assert denied(soul, "clerk", spec("complete_task"), {}) is None  # not in allow, still runs


def test_approval_required_holds_a_mutating_tool_for_a_person(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    reason = denied(soul, "clerk", spec("note_create", mutating=True), {})
    assert reason == (
        'tool "note_create" is mutating and Agent "clerk" runs at autonomy "approval-required", '
        "so it needs an approval before it can execute"
    )
    assert denied(soul, "clerk", spec("note_read"), {}) is None  # reading needs no one
    model = Script("note_create", {})
    tools = [spec("note_create", mutating=True)]
    executor = ScriptedTools(note_create=OK)
    parked = turn(soul, "clerk", model, tools, executor, "File it.", approval=lambda _call: "park")
    assert parked.status == "waiting" and parked.awaiting is not None


def test_tool_blocklist_globs_and_categories(soul_dir: Path) -> None:
    soul = load_soul(soul_dir)
    assert denied(soul, "reader", spec("danger_zone"), {}) is not None
    assert denied(soul, "reader", spec("mcp_eval_mcp_status_51b1cdd4ae261c34"), {}) is not None
    assert denied(soul, "reader", spec("safe_zone"), {}) is None


@pytest.mark.parametrize(
    ("relative", "text", "problem"),
    [
        ("soul.yaml", "businessName: A\nowner: b\n", "owner: unknown key"),
        (
            "agents/clerk/AGENT.md",
            "---\ntools: [a]\n---\nbody\n",
            "tools: unknown front matter key",
        ),
        (
            "agents/clerk/AGENT.md",
            "---\nname: Clerk\n---\nbody\n",
            "name: unknown front matter key",
        ),
        ("agents/clerk/AGENT.md", "---\nautonomy: read\n---\nbody\n", "autonomy: must be one of"),
        (
            "agents/clerk/AGENT.md",
            "---\ncapabilityRestrictions:\n  tools:\n    allowMutating: no-thanks\n---\nbody\n",
            "capabilityRestrictions.tools.allowMutating: must be true or false",
        ),
        (
            "agents/clerk/AGENT.md",
            "---\ncapabilityRestrictions:\n  records:\n    actions:\n"
            "      allow: [erase]\n---\nb\n",
            r"capabilityRestrictions.records.actions.allow: unknown action\(s\) \['erase'\]",
        ),
        (
            "agents/clerk/AGENT.md",
            "---\ncapabilityRestrictions:\n  network: {}\n---\nbody\n",
            "capabilityRestrictions.network: unknown key",
        ),
        (
            "agents/clerk/AGENT.md",
            "---\ncapabilityRestrictions: [tools]\n---\nbody\n",
            "capabilityRestrictions: must be a mapping",
        ),
        ("skills/house-rules/SKILL.md", "---\nname: H\n---\nbody\n", "description: must be"),
        ("guardrails.yaml", "tool_call: []\n", r"tool_call: unknown stage"),
        (
            "guardrails.yaml",
            "tool-call:\n  - guard: tool_blocklist\n    tools: [x]\n",
            r"tool-call\[0\].tools: unknown field",
        ),
        (
            "guardrails.yaml",
            "tool-call:\n  - guard: tool_blocklist\n    category: [network]\n",
            r"tool-call\[0\].category: unknown Tool categor",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("enabled: true", "enabled: true\nextra: 1"),
            r"mcp\.yaml: extra: unknown key",  # a top-level key, named without a prefix
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("  label: Eval MCP", "  label: Eval MCP\n  owner: ops"),
            r"mcp\.yaml: server\.owner: unknown key",
        ),
        (  # quoted, "false" would be a truthy string: the switched-off server would publish
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("enabled: true", 'enabled: "false"'),
            r"mcp\.yaml: enabled: must be true or false",
        ),
        (  # the server's id names every Tool it publishes: without one it publishes none
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("  id: eval-mcp\n", ""),
            r"mcp\.yaml: server\.id: must be a non-empty string",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("type: none", "type: oauth"),
            "server.authentication.type: must be one of",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("      requiresApproval: true\n", ""),
            r"reviewed.tools\[0\].requiresApproval: must be true or false",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("description: Read the status.", "description: [Read, the, status]"),
            r"reviewed.tools\[0\].description: must be a string",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace(
                "  resources: []",
                MCP.partition("  tools:\n")[2].partition("  resources")[0] + "  resources: []",
            ),
            r"reviewed.tools\[1\].name: Tool 'status' reviewed twice",
        ),
        (  # the schema named, not written out
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace(
                "inputSchema: {type: object, properties: {probe: {type: string}}, "
                "required: [probe]}",
                "inputSchema: object",
            ),
            r"reviewed.tools\[0\].inputSchema: must be a JSON Schema object",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("digest: 0f86", "digest: zz86"),
            r"reviewed.tools\[0\].digest: must be a sha256",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("type: streamable-http", "type: stdio"),
            r"server.transport.type: must be one of \['streamable-http'\]",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace(", url: https://mcp.eval.example/mcp", ""),
            r"server.transport.url: must be a non-empty string",
        ),
        (  # the URL written where its mapping belongs
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace(
                "transport: {type: streamable-http, url: https://mcp.eval.example/mcp}",
                "transport: https://mcp.eval.example/mcp",
            ),
            r"mcp\.yaml: server\.transport: must be a mapping",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.partition("  tools:\n")[0] + "  tools: status\n",
            r"reviewed.tools: must be a list",
        ),
        (
            "integrations/eval-mcp/mcp.yaml",
            MCP.replace("  prompts: []\n", "  prompts: status\n"),
            r"reviewed.prompts: must be a list",
        ),
    ],
)
def test_a_malformed_soul_is_refused_naming_file_key_and_reason(
    soul_dir: Path, relative: str, text: str, problem: str
) -> None:
    file = soul_dir / relative
    file.write_text(text)
    with pytest.raises(SoulError, match=problem) as raised:
        load_soul(soul_dir)
    assert raised.value.path == file and str(file) in str(raised.value)
