"""Mutations of the runtime's Eval Soul format code (issue 21, section 5) turn exactly the Cases
that depend on it FAIL: the capability restrictions, the autonomy ceiling, the MCP Tool-name
rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_runtime.guards import capabilities
from agent_runtime.mcp import integrations as mcp_integrations
from agent_runtime.turn import tool_step
from eval_core._plugins.plugins import PluginSet
from tests.conftest import ROOT, sweep_dir
from tests.test_mutations import red_cases


def not_passing(plugins: PluginSet, directory: Path) -> dict[str, str]:
    """Every Case that did not PASS, with its verdict (a fixture that needs the mutated path
    may error rather than fail: it is red all the same)."""
    return {case: v for case, v in sweep_dir(plugins, directory).verdicts().items() if v != "PASS"}


CAPABILITY_CASES = {
    "l3-capability-denial-is-read-back-from-the-run",
    "skills-bounded-allowlist-is-checked-before-the-unknown-tool-check",
    "skills-bounded-cannot-look-up-a-ticket",
    "records-readonly-previews-a-delete-but-may-not-delete",
    "skills-bounded-may-not-read-a-skill-it-was-not-given",
    "skills-bounded-a-skill-call-naming-no-skill-is-refused",
    "concierge-may-not-read-a-skill-it-is-denied",
    "concierge-may-not-change-github-for-a-customer",
    "concierge-may-not-change-records-the-soul-or-integrations-for-a-customer",
    "concierge-may-not-run-a-mutating-tool",
    "concierge-may-not-run-a-hand-declared-mutating-tool",
    "concierge-may-not-fetch-a-web-page-it-is-denied",
    "concierge-may-not-complete-a-task-it-is-denied",
    "stockroom-may-not-delete-a-bulb-record",
    "stockroom-a-delete-naming-no-type-is-refused-by-its-restriction",
    "stockroom-a-delete-naming-a-blank-type-is-refused-by-its-restriction",
    "stockroom-may-not-define-a-resource-type",
}


def subset(tmp_path: Path, *patterns: str) -> Path:
    """The Eval Soul and the Cases whose file names match ``patterns`` (a full Sweep per
    mutation would cost the suite seconds for Cases no mutation here reaches)."""
    directory = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", directory / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", directory / "eval.lock")
    for pattern in patterns:
        for case in (ROOT / "corpus").glob(pattern):
            shutil.copy(case, directory / case.name)
    return directory


def test_restrictions_that_allow_everything_fail_the_capability_cases(
    plugins: PluginSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = subset(
        tmp_path,
        "skills-bounded-*.json",
        "records-readonly-*.json",
        "concierge-*.json",
        "stockroom-*.json",
        "l3-capab*.json",
    )
    monkeypatch.setattr(capabilities.CapabilityRestrictions, "denial", lambda *_: None)
    _, red = red_cases(plugins, copy)
    assert red >= CAPABILITY_CASES
    assert all("records-readonly" in c or c in CAPABILITY_CASES for c in red), red


def test_an_autonomy_ceiling_that_never_asks_fails_the_approval_cases(
    plugins: PluginSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = subset(tmp_path, "records-readonly-*.json", "l3-*approv*.json")
    monkeypatch.setattr(tool_step, "demands_approval", lambda *_: False)
    red = not_passing(plugins, copy)
    assert red["records-readonly-cannot-comment-on-an-issue"] == "FAIL"
    assert red["l3-approval-parks-the-run-and-the-comment-posts-once"] == "FAIL"
    assert all("records-readonly" in c or "approv" in c for c in red), red


def test_the_old_mcp_name_rule_fails_every_mcp_case(
    plugins: PluginSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = subset(tmp_path, "l3-mcp-*.json")
    import hashlib

    def old(server: str, tool: str) -> str:
        digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:16]
        return f"mcp_{server.replace('-', '_')}_{tool}_{digest}"

    monkeypatch.setattr(mcp_integrations, "exposed_name", old)
    _, red = red_cases(plugins, copy)
    never_published = "l3-mcp-a-disabled-servers-tool-never-reaches-its-server"  # by any name
    mcp = {p.stem for p in copy.glob("l3-mcp-*.json")} - {never_published}
    assert mcp and mcp <= red
