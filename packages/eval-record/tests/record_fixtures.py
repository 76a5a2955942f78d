"""A project of the team's shape in a temp dir, recorded over a loopback vendor: a real HTTP
server on 127.0.0.1 speaking the OpenAI wire, answering as a model would (``behaviour``), and
``eval`` run as a team runs it, through its real command line (in this process, unless a
mutated runtime must shadow the installed one)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from eval_core.records import read_trial_log
from tests.conftest import (
    ROOT,
    ScriptedVendor,
    eval_in_process,
    judgeless_env,
    loopback_models,
    run_eval,
)

KEY = "sk-record-test-0123456789abcdef"
SUITE = ROOT / "packages" / "eval-bindings" / "tests" / "realmodel_corpus"
CASE_ID = "clerk-looks-the-order-up"

INPUT_ONLY = """\
# A new Case: an input and what must be true. `eval record` writes the script.
id: clerk-looks-the-order-up
tier: l2
agent: clerk
input:
  - role: user
    content: Has order 4471 shipped? Answer yes or no.  # the customer's own words
tools:
  - name: lookup_order
    description: Looks up a Tulip Farm order by its four-digit number.
    inputSchema: {type: object, properties: {orderId: {type: string}}, required: [orderId]}
toolResults:
  - name: lookup_order
    output: {orderId: "4471", status: shipped}
# What must be true, whatever the model says:
expect:
  - kind: tool_called
    name: lookup_order
  - kind: tool_argument_equals
    name: lookup_order
    path: orderId
    value: "4471"
  - kind: output_contains
    text: shipped
"""

BEHAVIOUR = [  # what the loopback model does when asked
    {
        "kind": "tool_calls",
        "calls": [{"callId": "call_1", "name": "lookup_order", "arguments": {"orderId": "4471"}}],
    },
    {"kind": "text", "text": "Order 4471 has shipped."},
]


def model_of(behaviour: list[dict[str, Any]]) -> dict[str, Any]:
    """The vendor's table entry: the Case's input, answered with ``behaviour``."""
    case = yaml.safe_load(INPUT_ONLY)
    return {"id": CASE_ID, "input": case["input"], "script": behaviour}


class Project:
    """A team's project: the real-model suite's Soul and Cases, plus a new input-only Case."""

    def __init__(self, root: Path, vendor_url: str) -> None:
        self.root = root
        shutil.copytree(SUITE, root / "corpus")
        (root / "corpus" / f"{CASE_ID}.yaml").write_text(INPUT_ONLY)
        loopback_models(  # ``down``: a closed port, its Trial bounded so it errs at once
            root / "models.toml",
            "RECORD_KEY",
            trial_timeout_s={"down": 1.0},
            loop=vendor_url,
            down="http://127.0.0.1:9/v1",
        )

    @property
    def case_file(self) -> Path:
        return self.root / "corpus" / f"{CASE_ID}.yaml"

    def case(self) -> dict[str, Any]:
        loaded: dict[str, Any] = yaml.safe_load(self.case_file.read_text())
        return loaded

    def eval(self, *args: str | Path, env: dict[str, str] | None = None) -> Any:
        """``eval ARGS`` in the project, through the real command line in this process; in a
        process of its own when ``env`` puts code on ``PYTHONPATH`` (a mutated runtime shadowing
        the installed one is only imported by a new interpreter)."""
        env = env or judgeless_env(RECORD_KEY=KEY)
        if env.get("PYTHONPATH", "") != os.environ.get("PYTHONPATH", ""):
            return run_eval(*args, cwd=self.root, env=env)
        return eval_in_process(*args, cwd=self.root, env=env)

    def record(self, *args: str, env: dict[str, str] | None = None) -> Any:
        return self.eval(
            "record", "corpus", "--unlocked", "--models", "models.toml",
            "--max-tokens-per-trial", "10000", *args, env=env,
        )  # fmt: skip


def logged_path(stdout: str) -> Path:
    """The trial log ``eval record`` names."""
    found = re.search(r"^trial log (\S+)", stdout, flags=re.MULTILINE)
    assert found, stdout
    return Path(found.group(1))


def verdicts_in_log(log: Path) -> dict[str, list[tuple[str, bool]]]:
    """Each Trial's Expectations (kind, passed) as the real run scored them."""
    return {
        t.case_id: [(e.kind, e.passed) for e in t.expectations] for t in read_trial_log(log).trials
    }


def scorecard(stdout: str) -> dict[str, Any]:
    card: dict[str, Any] = json.loads(stdout)
    return card


__all__ = ["ScriptedVendor"]
