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

from eval_core._case.case import json_name
from eval_core._plugins.plugins import PluginSet
from eval_core._util.lazy_names import table as lazy_table

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


INTERNALS = {
    # eval_core.plugin is full until issue 48 splits it by audience: eval-record imports what it
    # needs of the core's internals in this one module (its docstring says which and why).
    "packages/eval-record/src/eval_record/core_internals.py": {
        "eval_core._case.case",
        "eval_core._case.recorded",
        "eval_core._loading.opening",
        "eval_core._loading.rules",
        "eval_core._sweeping.options",
        "eval_core._sweeping.sweep",
        "eval_core._running.stale",
        "eval_core._util.project",
    },
    # The release gate is called with the Sweep's own types (its flags, its legs): eval-release
    # imports them, and what the comparison needs beyond eval_core.plugin, in this one module.
    "packages/eval-release/src/eval_release/core_internals.py": {
        "eval_core._loading.opening",
        "eval_core._sweeping.leg",
        "eval_core._sweeping.matrix",
        "eval_core._sweeping.options",
        "eval_core._sweeping.render",
        "eval_core._util.limits",
        "eval_core._util.provenance",
    },
}
"""The only imports of the core's internals outside it, each module by name."""


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
                    allowed = INTERNALS.get(path.relative_to(ROOT).as_posix(), set())
                    assert name == "eval_core.plugin" or name in allowed, f"{where} imports {name}"


def test_the_public_api_names_resolve_and_are_listed_once() -> None:
    import eval_core.plugin as api

    table = lazy_table(Path(api.__file__))
    assert set(table) == set(api.__all__), "the TYPE_CHECKING imports and __all__ differ"
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert getattr(api, name) is not None, name


LAYERS = (
    "_util",
    "_case",
    "_plugins",
    "_loading",
    "_running",
    "_recording",
    "_sweeping",
    "_kit",
    "_cli",
)
"""The core's subpackages, lowest first: a module imports only from its own layer or below."""


def runtime_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Every ``eval_core`` module imported, at the top or inside a function, but not for types."""

    def walk(nodes: list[ast.stmt] | list[ast.AST]) -> Iterator[tuple[int, str]]:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                yield from walk(node.orelse)
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "eval_core":
                    yield from ((node.lineno, f"eval_core.{a.name}") for a in node.names)
                else:
                    yield node.lineno, node.module
            elif isinstance(node, ast.Import):
                yield from ((node.lineno, a.name) for a in node.names)
            yield from walk(list(ast.iter_child_nodes(node)))

    yield from walk(tree.body)


def test_the_core_imports_one_way() -> None:
    src = CORE / "src" / "eval_core"
    found = {p.name for p in src.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert found == set(LAYERS), f"a subpackage is missing from LAYERS: {found ^ set(LAYERS)}"
    for layer, name in enumerate(LAYERS):
        for path, tree in modules(src / name):
            for line, module in runtime_imports(tree):
                parts = module.split(".")
                if parts[0] != "eval_core" or len(parts) < 2:
                    continue
                where = f"{path.relative_to(ROOT)}:{line}"
                assert parts[1] in LAYERS, f"{where} imports {module} (not a subpackage)"
                assert LAYERS.index(parts[1]) <= layer, f"{where} imports upward: {module}"


def test_no_core_module_is_flat_but_the_public_ones() -> None:
    src = CORE / "src" / "eval_core"
    flat = sorted(p.name for p in src.glob("*.py"))
    assert flat == ["__init__.py", "__main__.py", "_compat.py", "plugin.py"]


def test_an_old_flat_path_still_imports_for_one_release_with_a_warning() -> None:
    import importlib
    import sys
    import warnings

    import eval_core._loading.grounding as new

    sys.modules.pop("eval_core.grounding", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("eval_core.grounding")
    assert old is new
    assert old.__name__ == "eval_core._loading.grounding"
    assert [w.category for w in caught] == [DeprecationWarning]
    assert "eval_core.plugin" in str(caught[0].message)


MODULE_LINES, CLASS_LINES = 400, 250
"""A core module says one concept, a class one responsibility: past these, split by concept."""


def test_no_core_module_or_class_is_too_long() -> None:
    for path, tree in modules(CORE / "src"):
        where = path.relative_to(ROOT)
        lines = len(path.read_text().splitlines())
        assert lines <= MODULE_LINES, f"{where} is {lines} lines (at most {MODULE_LINES})"
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                assert length <= CLASS_LINES, (
                    f"{where}:{node.lineno} class {node.name} is {length} lines "
                    f"(at most {CLASS_LINES})"
                )
