from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.guards.guardrails import GuardrailConfig
from agent_runtime.soul.loader import Business, Soul, SoulError, load_soul


def test_eval_soul_loads_every_agent_and_skill(eval_soul: Soul) -> None:
    assert set(eval_soul.agents) == {
        "catalogue-architect",
        "concierge",
        "finance",
        "records-readonly",
        "skills-bounded",
        "soul-author",
        "stockroom",
        "support",
        "triage",
        "workspace",
    }
    assert set(eval_soul.skills) == {"refund-policy", "ticket-hygiene"}
    finance = eval_soul.agents["finance"]
    assert finance.autonomy == "full"  # no ceiling authored: the Turn's own, full
    assert finance.restrictions is None  # as the original's: its Tools are the Case's
    readonly = eval_soul.agents["records-readonly"].restrictions
    assert readonly is not None and readonly.tools is not None
    assert "record_delete" in (readonly.tools.allow or frozenset())
    assert finance.domain == "finance" and finance.label == "Finance"
    assert "30 days" in finance.personality
    assert not finance.personality.startswith("---")
    assert eval_soul.agents["records-readonly"].autonomy == "approval-required"
    assert eval_soul.skills["refund-policy"].name == "Refund policy"
    assert eval_soul.business.name == "Tulip Farm"


def test_eval_soul_guardrails_cover_every_stage(eval_soul: Soul) -> None:
    config = eval_soul.guardrails
    assert [s.guard for s in config.input] == ["prompt_injection"]
    assert config.input[0].sensitivity == "high"
    assert config.tool_call[0].block == ("issue_refund", "payout_*")
    assert [s.guard for s in config.tool_result] == ["untrusted_content"]
    assert config.output[0].patterns == ("credit_card",)


def test_unknown_agent_names_the_agents_there_are(eval_soul: Soul) -> None:
    with pytest.raises(SoulError, match=r"no agent 'billing'.*finance"):
        eval_soul.agent("billing")


def test_missing_guardrails_file_means_no_guards(soul_copy: Path) -> None:
    (soul_copy / "guardrails.yaml").unlink()
    assert load_soul(soul_copy).guardrails == GuardrailConfig()


def test_a_deleted_stage_is_simply_absent(soul_copy: Path) -> None:
    (soul_copy / "guardrails.yaml").write_text(
        "input:\n  - guard: prompt_injection\n    sensitivity: high\n"
    )
    config = load_soul(soul_copy).guardrails
    assert config.tool_call == () and config.output == () and len(config.input) == 1


AGENT = "agents/support/AGENT.md"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no front matter at all\n", "expected YAML front matter"),
        ("---\nlabel: [unclosed\n---\nbody\n", "invalid YAML front matter"),
        ("---\n- a list\n---\nbody\n", "front matter must be a mapping"),
        ("---\ndescription: d\nautonomy: full\n---\n\n", "body is empty"),
        ("---\ndescription: ''\n---\nbody\n", "description: must be a non-empty string"),
        ("---\nautonomy: act\n---\nbody\n", r"autonomy: must be one of \['manual'"),
        (
            "---\ndescription: d\ncapabilityRestrictions:\n  tools:\n    allow: x\n---\nbody\n",
            "capabilityRestrictions.tools.allow: must be a list",
        ),
        (
            "---\ndescription: d\ncolour: red\n---\nbody\n",
            "colour: unknown front matter key",
        ),
        ("---\ndescription: d\ntools: [a]\n---\nbody\n", "tools: unknown front matter key"),
    ],
)
def test_malformed_agent_is_refused_naming_the_file(
    soul_copy: Path, text: str, problem: str
) -> None:
    file = soul_copy / AGENT
    file.write_text(text)
    with pytest.raises(SoulError, match=problem) as raised:
        load_soul(soul_copy)
    assert raised.value.path == file
    assert str(file) in str(raised.value)
    assert "\n" not in str(raised.value)  # one line, even for a YAML error


@pytest.mark.parametrize(
    ("yaml_text", "problem"),
    [
        ("- just a list\n", "expected a mapping"),
        ("inputs: []\n", r"unknown stage\(s\) \['inputs'\]"),
        ("tool_call: []\n", r"unknown stage\(s\) \['tool_call'\]"),
        ("input:\n  - guard: tool_blocklist\n    block: [x]\n", "cannot run at stage 'input'"),
        ("tool-call:\n  - guard: tool_blocklist\n", "needs a non-empty 'block' or 'category'"),
        ("output:\n  - guard: content_filter\n    patterns: [iban]\n", "unknown content pattern"),
        ("output:\n  - guard: content_filter\n", "content_filter needs a non-empty 'patterns'"),
        ("input:\n  - guard: prompt_injection\n    sensitivity: extreme\n", "sensitivity must be"),
        ("input:\n  - guard: prompt_injection\n    severity: high\n", r"input\[0\].severity"),
        ("input: [prompt_injection]\n", "expected a mapping with a 'guard'"),
        ("input: [\n", "unreadable"),
    ],
)
def test_malformed_guardrails_are_refused(soul_copy: Path, yaml_text: str, problem: str) -> None:
    file = soul_copy / "guardrails.yaml"
    file.write_text(yaml_text)
    with pytest.raises(SoulError, match=problem) as raised:
        load_soul(soul_copy)
    assert raised.value.path == file
    assert "\n" not in str(raised.value)


def test_agent_folder_without_agent_md_is_refused(soul_copy: Path) -> None:
    (soul_copy / "agents" / "empty").mkdir()
    with pytest.raises(SoulError, match="missing"):
        load_soul(soul_copy)


def test_a_soul_without_agents_is_refused(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    with pytest.raises(SoulError, match="at least one"):
        load_soul(tmp_path)


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(SoulError, match="not a directory"):
        load_soul(tmp_path / "nowhere")


def test_malformed_skill_is_refused(soul_copy: Path) -> None:
    file = soul_copy / "skills" / "refund-policy" / "SKILL.md"
    file.write_text("---\nname: Refund policy\n---\nbody\n")
    with pytest.raises(SoulError, match="description: must be"):
        load_soul(soul_copy)


@pytest.mark.parametrize("text", [None, "", "# The business is not described yet.\n", "---\n"])
def test_a_business_file_without_a_document_is_an_empty_business(
    soul_copy: Path, text: str | None
) -> None:
    """``soul.yaml`` with every field optional: no file, an empty one, or one of comments only
    says nothing of the business, never "expected a mapping" or "unreadable"."""
    business = soul_copy / "soul.yaml"
    if text is None:
        business.unlink()
    else:
        business.write_text(text)
    assert load_soul(soul_copy).business == Business()
