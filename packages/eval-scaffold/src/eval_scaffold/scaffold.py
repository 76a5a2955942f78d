"""`eval new-plugin NAME`: a family package that installs, tests and sweeps as generated.

The package has a pyproject with its ``eval.plugins`` entry point and a real dependency line
(``eval-core>=`` the installed core's minor release, whose public names the templates import),
one kind, one Case field with its fixture (a Tool the family implements through the Host's Tool
registry, read back after the Trial), a load rule, tests using the testing kit
(:mod:`eval_kit`, the eval-kit package), an example Corpus with its own small Eval Soul, a schema
snapshot, and a CI workflow whose steps are what ``tests/test_new_plugin.py`` runs in a fresh
environment. ``docs/plugins.md`` walks through every file. The files' text is in
``templates/`` (package data, read with importlib.resources), ``{{name}}`` filled in.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import re
import sys
from importlib import metadata
from importlib.resources import files as package_files
from pathlib import Path

import msgspec

from eval_kit import Agent, structural_schema, write_soul

NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")  # whole name: fullmatch, never `$`


class ScaffoldRefused(Exception):  # noqa: N818 - it names an outcome
    """The name or the target directory cannot be used."""


def names(distribution: str) -> dict[str, str]:
    """What a distribution name implies: its import package, the Case ids' prefix, the kind and
    the field, each from the whole name (``acme-brevity``: ``acme_brevity_ticket_filed`` and
    ``acmeBrevity``), so two generated plug-ins never claim one kind or one field. The kind
    still starts with the first word, as the naming rule asks."""
    if not NAME.fullmatch(distribution):
        raise ScaffoldRefused(
            f"{distribution!r} is not a distribution name: lowercase words joined by '-' "
            "(acme-tickets)"
        )
    if distribution == "eval" or distribution.startswith("eval-"):
        raise ScaffoldRefused(
            f"{distribution!r}: the eval- prefix (and kind names starting eval_) is reserved "
            "for this project's own distributions; name yours after your team (acme-tickets)"
        )
    package = distribution.replace("-", "_")
    if keyword.iskeyword(package) or keyword.issoftkeyword(package):
        raise ScaffoldRefused(
            f"{distribution!r}: {package!r} is a Python keyword, so the package could not be "
            "imported; add a word (acme-tickets)"
        )
    if package in sys.stdlib_module_names:
        raise ScaffoldRefused(
            f"{distribution!r}: the package {package!r} would shadow the standard library's "
            "module of that name; add a word (acme-tickets)"
        )
    first, *rest = distribution.split("-")
    return {
        "distribution": distribution,
        "package": package,
        "prefix": distribution,
        "kind": f"{package}_ticket_filed",
        "field": package,
        "json_field": first + "".join(word.capitalize() for word in rest),
        "title": distribution.replace("-", " "),
        "core": _core_release(),
    }


def _core_release() -> str:
    """The installed core's ``major.minor``: the templates use its public names, so no older."""
    major, minor = metadata.version("eval-core").split(".")[:2]
    return f"{major}.{minor}"


def write(distribution: str, target: Path) -> list[Path]:
    """Write the package into ``target`` (which must not exist, or be empty)."""
    n = names(distribution)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldRefused(f"{target} already exists and is not an empty directory")
    files = {
        "pyproject.toml": _template("pyproject.toml"),
        "README.md": _template("README.md"),
        ".gitignore": _template("gitignore"),
        ".github/workflows/ci.yml": _template("ci.yml"),
        f"src/{n['package']}/__init__.py": _template("init.py"),
        f"src/{n['package']}/plugin.py": _template("plugin.py"),
        "tests/test_plugin.py": _template("test_plugin.py"),
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


def _template(name: str) -> str:
    """One file's template, ``templates/<name>.tmpl`` (not ``.py``: no tool takes it for code)."""
    return (package_files(__package__) / "templates" / f"{name}.tmpl").read_text(encoding="utf-8")


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
        schema = structural_schema(msgspec.json.schema(kind.struct))
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
