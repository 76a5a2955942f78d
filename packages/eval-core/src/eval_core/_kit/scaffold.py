"""`eval new-plugin NAME`: a family package that installs, tests and sweeps as generated.

The package has a pyproject with its ``eval.plugins`` entry point and a real dependency line
(``eval-core>=0.1``), one kind, one Case field with its fixture (a Tool the family implements
through the Host's Tool registry, read back after the Trial), a load rule, tests using the
testing kit (:mod:`eval_core._kit.testing`), an example Corpus with its own small Eval Soul, a
schema snapshot, and a CI workflow whose steps are what ``tests/test_new_plugin.py`` runs in a
fresh environment. ``docs/plugins.md`` walks through every file.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import msgspec

from eval_core._kit.testing import Agent, write_soul
from eval_core._plugins.plugins import structural

NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class ScaffoldRefused(Exception):  # noqa: N818 - it names an outcome
    """The name or the target directory cannot be used."""


def names(distribution: str) -> dict[str, str]:
    """What a distribution name implies: its import package, the kind and field prefix (its
    first word: ``acme-tickets`` names kinds ``acme_...``), the kind, the field."""
    if not NAME.match(distribution):
        raise ScaffoldRefused(
            f"{distribution!r} is not a distribution name: lowercase words joined by '-' "
            "(acme-tickets)"
        )
    if distribution == "eval" or distribution.startswith("eval-"):
        raise ScaffoldRefused(
            f"{distribution!r}: the eval- prefix (and kind names starting eval_) is reserved "
            "for this project's own distributions; name yours after your team (acme-tickets)"
        )
    prefix = distribution.split("-", maxsplit=1)[0]
    return {
        "distribution": distribution,
        "package": distribution.replace("-", "_"),
        "prefix": prefix,
        "kind": f"{prefix}_ticket_filed",
        "field": f"{prefix}_tickets",
        "json_field": f"{prefix}Tickets",
        "title": distribution.replace("-", " "),
    }


def write(distribution: str, target: Path) -> list[Path]:
    """Write the package into ``target`` (which must not exist, or be empty)."""
    n = names(distribution)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldRefused(f"{target} already exists and is not an empty directory")
    files = {
        "pyproject.toml": PYPROJECT,
        "README.md": README,
        ".gitignore": GITIGNORE,
        ".github/workflows/ci.yml": CI,
        f"src/{n['package']}/__init__.py": INIT,
        f"src/{n['package']}/plugin.py": PLUGIN,
        "tests/test_plugin.py": TESTS,
    }
    written: list[Path] = []
    for relative, template in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_fill(template, n))
        written.append(path)
    for case in _cases(n):
        path = target / "corpus" / f"{case['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=2) + "\n")
        written.append(path)
    soul = write_soul(target / "corpus" / "soul", {"assistant": Agent(tools=["file_ticket"])})
    written.append(soul / "agents" / "assistant" / "AGENT.md")
    written.append(_snapshot(target, n))
    return written


def _fill(template: str, n: dict[str, str]) -> str:
    text = template
    for key, value in n.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _snapshot(target: Path, n: dict[str, str]) -> Path:
    """The kind's schema as generated, so the generated tests compare against it from the
    first run (a snapshot written by a test run protects nothing)."""
    source = target / "src" / n["package"] / "plugin.py"
    spec = importlib.util.spec_from_file_location(f"_eval_scaffold_{n['package']}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        [kind] = module.eval_kinds()
        schema = structural(msgspec.json.schema(kind.struct))
    finally:
        del sys.modules[spec.name]
    path = target / "tests" / "snapshots" / f"{n['kind']}.schema.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
    return path


def _cases(n: dict[str, str]) -> list[dict[str, object]]:
    tool = {
        "name": "file_ticket",
        "description": "File a support ticket with a short title.",
        "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        "mutating": True,
    }

    def case(case_id: str, title: str | None, expect: str) -> dict[str, object]:
        arguments = {"title": title} if title is not None else {}
        return {
            "id": f"{n['prefix']}-{case_id}",
            "tier": "l2",
            "agent": "assistant",
            "input": [
                {"role": "user", "content": "My refund for order 4471 never arrived. File it."}
            ],
            "tools": [tool],
            n["json_field"]: {"tool": "file_ticket"},
            "script": [
                {
                    "kind": "tool_calls",
                    "calls": [{"callId": "c1", "name": "file_ticket", "arguments": arguments}],
                },
                {"kind": "text", "text": "I filed a ticket about your refund."},
            ],
            "expect": [{"kind": n["kind"], "titleContains": expect}],
        }

    return [
        case("a-refund-ticket-is-filed", "Refund missing for order 4471", "refund"),
        case("a-ticket-names-the-order", "Refund missing for order 4471", "4471"),
    ]


PYPROJECT = """\
[project]
name = "{{distribution}}"
version = "0.1.0"
description = "An Expectation family for the eval harness: {{title}}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["eval-core>=0.1", "msgspec>=0.18"]

[project.entry-points."eval.plugins"]
{{package}} = "{{package}}.plugin"

[dependency-groups]
# the kit (eval_core._kit.testing, the eval_kit fixture) and the reference Host its tests run on
dev = ["eval-core[testing]>=0.1", "eval-host-agent-runtime>=0.1", "pytest>=8"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/{{package}}"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = ["-q"]

[tool.ruff]
line-length = 100
"""

README = """\
# {{distribution}}

An Expectation family for the eval harness: the kind `{{kind}}` and the Case field
`{{json_field}}`, whose fixture implements a `file_ticket` Tool through the Host's Tool registry
and reads back what it filed.

```sh
uv sync                              # eval-core and the Host come from your index or --find-links
uv run pytest                        # the family's tests, on the testing kit
uv run eval plugins --check          # every installed kind keeps the plug-in contract
uv run eval sweep corpus --unlocked  # the example Corpus, end to end on the scripted model
```

Where a Corpus is released, install this package beside the harness and run `eval lock` there:
the lock pins this distribution's version and code. Change a scorer, bump the version.
"""

GITIGNORE = """\
__pycache__/
*.pyc
.venv/
dist/
scorecards/
"""

CI = """\
name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: astral-sh/setup-uv@v5
      # eval-core and eval-host-agent-runtime come from your package index; until they are
      # published, point uv at their wheels: UV_FIND_LINKS=<a directory or URL of wheels>
      - run: uv sync --all-groups
      - run: uv run pytest
      - run: uv run eval plugins --check
      - run: uv run eval sweep corpus --unlocked
"""

INIT = '''\
"""{{distribution}}: an Expectation family for the eval harness."""
'''

PLUGIN = '''\
"""The {{title}} family.

A ticket Tool this family implements, and what it filed, read back. A Case sets
``{{json_field}}: {"tool": "file_ticket"}`` and declares that Tool. The fixture registers the
Tool's implementation with the Host's Tool registry (so the runtime's real loop, its
guards and the agent's capability restrictions decide whether it runs), keeps each ticket
filed, and puts the log into Evidence after the Trial.
``{{kind}} {titleContains}`` scores it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

import msgspec
from eval_core.plugin import (
    NON_EMPTY,
    CaseBase,
    CaseField,
    Evidence,
    Expectation,
    FixtureRequest,
    KindSpec,
    LoadContext,
    TrialFixture,
    Verdict,
    failed,
    hookimpl,
    passed,
    properties,
)


class Tickets(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``{{json_field}}`` Case field: which declared Tool files a ticket."""

    tool: str


class Filed(msgspec.Struct, frozen=True, kw_only=True):
    title: str


class TicketLog(msgspec.Struct, frozen=True, kw_only=True):
    """What the ticket Tool filed during the Trial: read back, never copied from the Case."""

    filed: list[Filed]


class ToolRegistry(Protocol):
    """The Host service this family needs: a registry of Tools a fixture implements."""

    def register(self, name: str, handler: Callable[[Any], Any]) -> None: ...


def _tickets(request: FixtureRequest) -> Iterator[None]:
    filed: list[Filed] = []

    def file_ticket(arguments: Any) -> Any:
        title = arguments.get("title") if isinstance(arguments, dict) else None
        if not isinstance(title, str) or not title.strip():
            raise ValueError("a ticket needs a title")
        filed.append(Filed(title=title))
        return {"ticketId": f"T-{len(filed)}"}

    request.service(ToolRegistry).register(request.value.tool, file_ticket)
    yield  # the Host runs the Case here
    request.record(TicketLog(filed=list(filed)))


class TicketFiled(Expectation, tag="{{kind}}", frozen=True):
    """A ticket whose title contains the text (case-insensitive) was filed."""

    title_contains: str


def score_filed(e: TicketFiled, evidence: Evidence) -> Verdict:
    """Total: never raises; nothing read back is a failure with a reason."""
    log = evidence.record(TicketLog)
    if log is None:
        return failed("no ticket log was read back")
    for ticket in log.filed:
        if e.title_contains.casefold() in ticket.title.casefold():
            return passed(f"filed {ticket.title!r}")
    seen = ", ".join(repr(t.title) for t in log.filed) or "nothing"
    return failed(f"no ticket with {e.title_contains!r} in its title; filed: {seen}")


def check_filed(e: TicketFiled, _case: object) -> list[tuple[str, str]]:
    if not e.title_contains.strip():
        return [(".titleContains", "must be a non-empty string")]
    return []


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=TicketFiled,
            scorer=score_filed,
            witness="tool",  # what the Tool itself filed, never the runtime's events
            check=check_filed,
            json_schema=properties(titleContains=NON_EMPTY),
            seam_independent=True,  # no ticket filed is the failure itself, never unexercised
            description="A ticket whose title contains the text was filed.",
            examples=[{"kind": "{{kind}}", "titleContains": "refund"}],
        )
    ]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name="{{field}}",
            type=Tickets,
            description="The declared Tool that files a ticket: {tool}.",
            examples=[{"tool": "file_ticket"}],
        )
    ]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [
        TrialFixture(
            name="tickets",
            field="{{field}}",
            run=_tickets,
            needs=(ToolRegistry,),
        ),
    ]


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """The ticket Tool is one the Case declares; the kind needs the field."""
    tickets = case.field("{{field}}")
    problems: list[tuple[str, str]] = []
    if tickets is not None and tickets.tool not in {t.name for t in case.tools}:
        reason = f"{tickets.tool!r} is not a Tool this Case declares"
        problems.append(("$.{{json_field}}.tool", reason))
    if tickets is None:
        reason = "{{kind}} needs a '{{json_field}}' field"
        problems.extend(
            (f"$.expect[{i}].kind", reason)
            for i, e in enumerate(case.expect)
            if isinstance(e, TicketFiled)
        )
    return problems
'''

TESTS = '''\
"""Tests of {{distribution}} on the eval testing kit."""

from __future__ import annotations

import json
from pathlib import Path

from eval_core.plugin import Kit, assert_kind_conforms, evidence

from {{package}}.plugin import (
    Filed,
    TicketFiled,
    TicketLog,
    eval_kinds,
    score_filed,
)

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"


def test_the_kind_keeps_the_plugin_contract() -> None:
    [spec] = eval_kinds()
    snapshot = HERE / "snapshots" / f"{spec.name}.schema.json"
    assert_kind_conforms(spec, records=[TicketLog], snapshot=snapshot)


def test_a_filed_ticket_passes_and_says_which() -> None:
    log = TicketLog(filed=[Filed(title="Refund missing for order 4471")])
    verdict = score_filed(TicketFiled(title_contains="REFUND"), evidence(records=[log]))
    assert verdict.passed
    assert verdict.detail == "filed 'Refund missing for order 4471'"


def test_nothing_read_back_fails_with_a_reason() -> None:
    verdict = score_filed(TicketFiled(title_contains="refund"), evidence())
    assert not verdict.passed
    assert verdict.detail == "no ticket log was read back"


def test_the_kind_without_its_field_is_refused(eval_kit: Kit) -> None:
    case = eval_kit.case({"kind": "{{kind}}", "titleContains": "refund"})
    assert eval_kit.problems(case) == [
        "$.expect[0].kind: {{kind}} needs a '{{json_field}}' field",
    ]


def test_the_example_corpus_sweeps_end_to_end(eval_kit: Kit) -> None:
    cases = [json.loads(p.read_text()) for p in sorted(CORPUS.glob("*.json"))]
    card = eval_kit.sweep(cases)
    assert [t.outcome for t in card.trials] == ["passed"] * len(cases), card.trials


def test_a_ticket_without_a_title_is_never_filed(eval_kit: Kit) -> None:
    case = json.loads(next(CORPUS.glob("*.json")).read_text())
    case["script"][0]["calls"][0]["arguments"] = {}
    result = eval_kit.run(case)
    assert result.outcome == "failed"
    detail = result.expectations[0].detail
    assert detail.startswith("no ticket with 'refund' in its title"), detail
'''
