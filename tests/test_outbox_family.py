"""A family nobody wrote for the core, shipped as its own distribution, with setup and read-back.

``tests/outbox`` is a package like any team's: a pyproject with an entry point, a Case field, a
fixture that registers a Tool with the Host's Tool registry and reads its mailbox back, and two
kinds. It uses only the public contract. Installed (a ``.dist-info`` on ``sys.path``, found by
importlib-metadata), its Cases pass and fail for the right reasons through the real runtime;
uninstalled, its Cases are refused at load; on a Host without a Tool registry, refused naming
the Host, the field and the service.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from eval_core._case.case import CaseBase, ToolDecl
from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.host import ContextRules, HostTrial, ModelSession
from eval_core._plugins.plugins import build, discover, load_plugins
from tests.conftest import SOUL, Site, load_refused, sweep_dir

OUTBOX = Path(__file__).resolve().parent / "outbox"
SEND = {
    "name": "send_message",
    "description": "Send an e-mail to a customer.",
    "inputSchema": {
        "type": "object",
        "properties": {"to": {"type": "string"}, "subject": {"type": "string"}},
    },
    "mutating": True,
}
MAILER = """---
label: Mailer
description: Sends order confirmations to Tulip Farm customers.
capabilityRestrictions:
  tools:
    allow: [send_message, lookup_ticket]
---
You are Mailer. You confirm orders to customers by e-mail with send_message.
"""


def case(case_id: str, agent: str, call: dict[str, Any], expect: list[dict[str, Any]]) -> dict:
    return {
        "id": case_id,
        "tier": "l2",
        "agent": agent,
        "input": [{"role": "user", "content": "Confirm order 4471 to ana@example.com."}],
        "tools": [SEND],
        "outbox": {"tool": "send_message"},
        "script": [
            {"kind": "tool_calls", "calls": [{"callId": "c1", "name": "send_message",
                                              "arguments": call}]},
            {"kind": "text", "text": "Done."},
        ],
        "expect": expect,
    }  # fmt: skip


CONFIRM = {"to": "ana@example.com", "subject": "Order 4471 confirmed"}
SENT = {"kind": "outbox_message_sent", "to": "ana@example.com", "subjectContains": "4471"}
CASES = [
    case("outbox-the-confirmation-is-sent", "mailer", CONFIRM, [SENT]),
    case("outbox-an-agent-without-the-tool-sends-nothing", "skills-bounded", CONFIRM,
         [{"kind": "outbox_empty"}]),
    case("outbox-a-message-without-an-address-is-not-sent", "mailer",
         {"to": "ana", "subject": "Order 4471"}, [{"kind": "outbox_empty"}]),
    case("outbox-a-message-to-someone-else-fails", "mailer",
         {"to": "bob@example.com", "subject": "Order 4471 confirmed"}, [SENT]),
]  # fmt: skip


@pytest.fixture
def installed(site: Site) -> Path:
    """The outbox distribution installed into a site directory on ``sys.path``."""
    shutil.copytree(OUTBOX / "src", site.root, dirs_exist_ok=True)
    info = site.root / "eval_expectations_outbox-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: eval-expectations-outbox\nVersion: 0.1.0\n"
    )
    project = tomllib.loads((OUTBOX / "pyproject.toml").read_text())["project"]
    points = project["entry-points"]["eval.plugins"]
    (info / "entry_points.txt").write_text(
        "[eval.plugins]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
    )
    return site.root


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "corpus"
    shutil.copytree(SOUL, directory / "soul")
    (directory / "soul" / "agents" / "mailer").mkdir()
    (directory / "soul" / "agents" / "mailer" / "AGENT.md").write_text(MAILER)
    for item in CASES:
        (directory / f"{item['id']}.json").write_text(json.dumps(item))
    return directory


def test_its_cases_pass_and_fail_for_the_right_reasons(installed: Path, corpus_dir: Path) -> None:
    plugins = load_plugins()
    assert plugins.field_owner["outbox"].distribution == "eval-expectations-outbox"
    found = {t.case_id: t for t in sweep_dir(plugins, corpus_dir).trials}
    assert {k: t.outcome for k, t in found.items()} == {
        "outbox-the-confirmation-is-sent": "passed",
        "outbox-an-agent-without-the-tool-sends-nothing": "passed",
        "outbox-a-message-without-an-address-is-not-sent": "passed",
        "outbox-a-message-to-someone-else-fails": "failed",
    }
    [wrong] = found["outbox-a-message-to-someone-else-fails"].expectations
    assert wrong.detail == (
        "no message to ana@example.com with '4471' in its subject; "
        "sent: bob@example.com: 'Order 4471 confirmed'"
    )
    sent = found["outbox-the-confirmation-is-sent"].expectations[0]
    assert sent.detail == "sent to ana@example.com: 'Order 4471 confirmed'"


def test_uninstalled_its_cases_are_refused_at_load(corpus_dir: Path) -> None:
    refused = load_refused(load_plugins(), corpus_dir)
    reasons = {(p.file.rsplit("/", 1)[-1], p.path): p.reason for p in refused.problems}
    assert reasons[("outbox-the-confirmation-is-sent.json", "$.outbox")] == (
        "unknown Case field 'outbox': no installed plug-in provides it"
    )
    assert reasons[
        ("outbox-a-message-without-an-address-is-not-sent.json", "$.expect[0].kind")
    ] == ("unknown kind 'outbox_empty': no installed plug-in provides it")
    assert refused.notes  # the next step is said once, after every problem


class BareHost:
    """A Host that runs nothing and offers no service to fixtures."""

    name = "bare"
    tiers = frozenset({"l2"})

    def agents(self) -> frozenset[str]:
        return frozenset({"mailer", "support"})

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return {}

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        return ()

    def services(self, tier: str) -> Sequence[type]:
        return ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        raise NotImplementedError

    def close(self) -> None:
        pass


def test_a_host_without_the_service_is_refused_at_load(installed: Path, corpus_dir: Path) -> None:
    plugins = build(discover())
    with pytest.raises(CorpusError) as refused:
        Loader(plugins, BareHost(), judge="no-judge").load(corpus_dir)
    problems = {(p.path, p.reason) for p in refused.value.problems}
    assert (
        "$.outbox",
        "fixture 'mailbox' of eval-expectations-outbox 0.1.0 needs the Host service "
        "ToolRegistry, which Host 'bare' does not offer at l2",
    ) in problems
