"""The package boundaries the design promises, checked on the source itself.

- The runtime knows nothing of the harness: no module of ``agent-runtime`` imports ``eval_core``
  or any ``eval_*`` package, and it does not depend on one.
- The Host adapter translates and names no family: no Case field of any installed plug-in, no
  ``case.field(...)`` lookup, no ``Evidence.records`` access, no import of a family package.
- The core reaches a real model only through the model-source contract: no module of
  ``eval_core`` imports ``eval_bindings``, a family, or an HTTP client, and it depends on none.
- The core runs Trials elsewhere only through the executor contract: no module of ``eval_core``
  imports ``ray`` or ``eval_executor_ray``, it depends on neither, and an executor is no part
  of the pinned plug-in set (its entry point is not in ``eval.plugins``).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

from eval_core.case import json_name
from eval_core.plugins import PluginSet

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "packages" / "agent-runtime"
ADAPTER = ROOT / "packages" / "eval-host-agent-runtime" / "src"
CORE = ROOT / "packages" / "eval-core"


def modules(root: Path) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield path, ast.parse(path.read_text(), str(path))


def imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_runtime_never_imports_the_harness() -> None:
    for path, tree in modules(RUNTIME):
        harness = {n for n in imported(tree) if n.split(".")[0].startswith("eval_")}
        assert not harness, f"{path.relative_to(ROOT)} imports {sorted(harness)}"
    project = tomllib.loads((RUNTIME / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith("eval")]
    assert "entry-points" not in project


def test_the_host_adapter_names_no_family(plugins: PluginSet) -> None:
    fields = {name for f in plugins.fields for name in (f, json_name(f))}
    assert {"mcp", "nativeRoutine", "journey", "checkpointCrash", "attachments"} <= fields
    for path, tree in modules(ADAPTER):
        where = path.relative_to(ROOT)
        families = {n for n in imported(tree) if n.startswith("eval_expectations")}
        assert not families, f"{where} imports {sorted(families)}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in fields, f"{where}:{node.lineno} names {node.value!r}"
            if isinstance(node, ast.Attribute):
                assert node.attr not in ("field", "records"), f"{where}:{node.lineno}"


def test_the_core_knows_no_wire_pin_or_family() -> None:
    for path, tree in modules(CORE / "src"):
        outside = {
            n
            for n in imported(tree)
            if n.split(".")[0] in ("eval_bindings", "httpx", "agent_runtime")
            or n.startswith("eval_expectations")
        }
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"
    project = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith(("eval", "httpx"))]


REPORT = ROOT / "packages" / "eval-report" / "src"


def test_the_core_knows_nothing_of_the_report() -> None:
    for path, tree in modules(CORE / "src"):
        outside = {n for n in imported(tree) if n.split(".")[0] in ("eval_report", "jinja2")}
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


def test_the_report_names_no_kind(plugins: PluginSet) -> None:
    """The report places an Expectation from its own data, never by knowing its kind."""
    for path, tree in modules(REPORT):
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert node.value not in plugins.kinds, f"{where} names {node.value!r}"
    for path in sorted((REPORT / "eval_report" / "templates").iterdir()):
        text = path.read_text()
        named = [k for k in plugins.kinds if f'"{k}"' in text or f"'{k}'" in text]
        assert not named, f"{path.relative_to(ROOT)} names {named}"


EXECUTOR = ROOT / "packages" / "eval-executor-ray"


def test_the_core_knows_no_executor_but_its_port() -> None:
    for path, tree in modules(CORE / "src"):
        outside = {n for n in imported(tree) if n.split(".")[0] in ("ray", "eval_executor_ray")}
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"
    project = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith(("ray", "eval-executor"))]
    executor = tomllib.loads((EXECUTOR / "pyproject.toml").read_text())["project"]
    assert set(executor["entry-points"]) == {"eval.executors"}  # never a pinned plug-in
    plugin = ast.parse((EXECUTOR / "src" / "eval_executor_ray" / "plugin.py").read_text())
    assert "ray" not in {n.split(".")[0] for n in imported(plugin)}  # Ray loads on use only


def test_shipped_packages_import_the_core_only_through_its_public_api() -> None:
    for package in sorted((ROOT / "packages").iterdir()):
        if package.name == "eval-core" or not (package / "src").is_dir():
            continue
        for path, tree in modules(package / "src"):
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    name = node.module
                elif isinstance(node, ast.Import):
                    name = next((a.name for a in node.names if a.name.startswith("eval_core")), "")
                else:
                    continue
                if name.split(".")[0] == "eval_core":
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    assert name == "eval_core.plugin", f"{where} imports {name}"


def test_the_public_api_names_resolve_and_are_listed_once() -> None:
    import eval_core.plugin as api

    table = api._table()
    assert set(table) == set(api.__all__), "the TYPE_CHECKING imports and __all__ differ"
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert getattr(api, name) is not None, name
