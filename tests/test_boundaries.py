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
- The plug-in author's testing kit is a package of its own (eval-kit): it reaches the core only
  through its public modules, the core never imports it, and pytest, hypothesis and the
  ``pytest11`` entry point are the kit's, not the core's.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

from eval_core._case.case import json_name
from eval_core._plugins.plugins import PluginSet
from tests.conftest import parsed

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "packages" / "agent-runtime"
ADAPTER = ROOT / "packages" / "eval-host-agent-runtime" / "src"
CORE = ROOT / "packages" / "eval-core"


def modules(root: Path) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        yield path, parsed(path.read_text(), str(path))


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


AUDIENCES = (
    "eval_core.kinds",
    "eval_core.hosts",
    "eval_core.records",
    "eval_core.commands",
)
"""The public API, one module per audience: all a shipped package imports from the core."""

INTERNALS: dict[str, set[str]] = {
    # A shipped package that must import a core internal says so here, by file, with why.
    # Empty: the Sweep's options, legs and driver are public (eval_core.commands).
}
"""The only imports of the core's internals outside it, each module by name."""


def test_shipped_packages_import_the_core_only_through_its_public_api() -> None:
    public = set(AUDIENCES)
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
                    assert name in public or name in allowed, f"{where} imports {name}"


KIT = ROOT / "packages" / "eval-kit"


def test_the_testing_kit_is_its_own_package_the_core_does_not_know() -> None:
    """eval-kit holds the kit (``eval_kit``: the ``eval_kit`` fixture, the conformance checks)
    and its pytest plug-in; it depends on the core, pytest and hypothesis, and imports the core
    only through its public modules (the test above scans it too, with no exception in
    INTERNALS). No module of ``eval_core`` imports it, pytest or hypothesis, and the core neither
    depends on them nor registers a pytest plug-in."""
    config = tomllib.loads((KIT / "pyproject.toml").read_text())["project"]
    assert config["entry-points"] == {"pytest11": {"eval": "eval_kit.pytest_plugin"}}
    needs = {d.split(">")[0].split("[")[0] for d in config["dependencies"]}
    assert {"eval-core", "pytest", "hypothesis"} <= needs
    scanned = 0
    for path, tree in modules(KIT / "src"):
        scanned += 1
        core = {n for n in imported(tree) if n.split(".")[0] == "eval_core"}
        assert core <= set(AUDIENCES), f"{path.relative_to(ROOT)} imports {sorted(core)}"
    assert scanned >= 6
    assert not [p for p in INTERNALS if p.startswith("packages/eval-kit/")]
    for path, tree in modules(CORE / "src"):
        outside = {
            n for n in imported(tree) if n.split(".")[0] in ("eval_kit", "pytest", "hypothesis")
        }
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"
    core = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    assert not [d for d in core["dependencies"] if d.startswith(("pytest", "hypothesis"))]
    assert "optional-dependencies" not in core and "entry-points" not in core


def test_the_scaffold_is_a_command_plug_in_the_core_does_not_know() -> None:
    """``eval new-plugin`` and ``eval init`` are eval-scaffold's, added through the
    ``eval.commands`` hook as any command plug-in adds one: no module of ``eval_core`` imports
    it, names its commands or keeps its templates."""
    scaffold = ROOT / "packages" / "eval-scaffold"
    config = tomllib.loads((scaffold / "pyproject.toml").read_text())
    assert config["project"]["entry-points"]["eval.commands"] == {
        "scaffold": "eval_scaffold.commands"
    }
    assert (scaffold / "src" / "eval_scaffold" / "templates" / "plugin.py.tmpl").is_file()
    for path, tree in modules(CORE / "src"):
        assert not any(n.split(".")[0] == "eval_scaffold" for n in imported(tree)), path
        text = path.read_text()
        assert '"new-plugin"' not in text and '"init"' not in text, path
    assert not list((CORE / "src").rglob("*.tmpl"))


CLI = ROOT / "packages" / "eval-cli"


def test_the_command_line_is_its_own_package_the_core_does_not_know() -> None:
    """``eval`` (typer, the core's commands and their flags, the help) is eval-cli's: it owns
    the console script and typer; no module of ``eval_core`` imports it, typer or click, and
    the core neither depends on them nor declares a script. eval-cli reaches the core only
    through its public modules (see the test above), and the base install brings it."""
    config = tomllib.loads((CLI / "pyproject.toml").read_text())
    assert config["project"]["scripts"] == {"eval": "eval_cli.entry:main"}
    assert any(d.startswith("typer") for d in config["project"]["dependencies"])
    assert (CLI / "src" / "eval_cli" / "__main__.py").is_file()  # python -m eval_cli
    for path, tree in modules(CORE / "src"):
        outside = {n for n in imported(tree) if n.split(".")[0] in ("eval_cli", "typer", "click")}
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"
    core = tomllib.loads((CORE / "pyproject.toml").read_text())["project"]
    assert not [d for d in core["dependencies"] if d.startswith(("typer", "click"))]
    assert "scripts" not in core
    assert not (CORE / "src" / "eval_core" / "__main__.py").exists()
    meta = tomllib.loads(
        (ROOT / "packages" / "offline-eval-harness" / "pyproject.toml").read_text()
    )
    assert any(d.startswith("eval-cli") for d in meta["project"]["dependencies"])
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "eval-cli" in root["project"]["dependencies"]
    assert root["tool"]["uv"]["sources"]["eval-cli"] == {"workspace": True}


def public_imports(module: str) -> dict[str, tuple[str, str]]:
    """What a public module imports for type checkers (``name -> (module, attribute)``): its
    ``if TYPE_CHECKING:`` block, read from its source."""
    import importlib

    source = importlib.import_module(module).__file__
    assert source is not None
    tree = ast.parse(Path(source).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.dump(n))
    return {
        alias.asname or alias.name: (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def test_each_public_module_s_table_and_typing_imports_agree_and_every_name_resolves() -> None:
    import importlib

    for module in AUDIENCES:
        api = importlib.import_module(module)
        imports = public_imports(module)
        table = {name: f"{home}:{attribute}" for name, (home, attribute) in imports.items()}
        assert table == api.WHERE, f"{module}: its WHERE table and TYPE_CHECKING imports differ"
        assert len(api.__all__) == len(set(api.__all__)), f"{module} lists a name twice"
        assert set(api.__all__) == set(table), f"{module}: __all__ and its table differ"
        assert api.__dir__() == api.__all__
        for name, (home, attribute) in imports.items():
            assert home.startswith("eval_core._"), f"{module}.{name} comes from {home}"
            assert getattr(api, name) is getattr(importlib.import_module(home), attribute)
        lines = len(Path(str(api.__file__)).read_text().splitlines())
        assert lines <= 300, f"{module} is {lines} lines (at most 300)"


def test_a_public_module_refuses_a_name_it_does_not_list() -> None:
    import eval_core.kinds

    try:
        eval_core.kinds.NoSuchName  # noqa: B018 - the lookup is the test
    except AttributeError as exc:
        assert "eval_core.kinds has no public name 'NoSuchName'" in str(exc)
    else:
        raise AssertionError("an unlisted name resolved")


def test_a_command_plug_in_s_registration_imports_no_corpus_machinery() -> None:
    """``eval --help`` loads every command plug-in: ``Commands`` and ``hookimpl`` from
    :mod:`eval_core.commands` must not bring the Corpus opener with them."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from eval_core.commands import Commands, hookimpl\n"
        "print(sorted(m for m in sys.modules if m.startswith('eval_core._loading')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_a_name_in_two_audiences_is_the_same_object() -> None:
    import importlib

    seen: dict[str, object] = {}
    for module in AUDIENCES:
        api = importlib.import_module(module)
        for name in api.__all__:
            value = getattr(api, name)
            assert seen.setdefault(name, value) is value, f"{module}.{name} differs"


LAYERS = (
    "_util",
    "_case",
    "_plugins",
    "_loading",
    "_running",
    "_recording",
    "_sweeping",
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
    public = sorted(f"{m.removeprefix('eval_core.')}.py" for m in AUDIENCES)
    assert flat == sorted(["__init__.py", *public])


MODULE_LINES, KIT_LINES, CLASS_LINES = 300, 400, 250
"""A core module says one concept, a class one responsibility: past these, split by concept
(issue 48 brought the core's modules to 300 lines; the kit's are still held to 400)."""


def test_no_core_module_or_class_is_too_long() -> None:
    """The core's modules, and the kit's (eval-kit left the core under the same rule)."""
    core = [(path, tree, MODULE_LINES) for path, tree in modules(CORE / "src")]
    kit = [(path, tree, KIT_LINES) for path, tree in modules(KIT / "src")]
    for path, tree, most in [*core, *kit]:
        where = path.relative_to(ROOT)
        lines = len(path.read_text().splitlines())
        assert lines <= most, f"{where} is {lines} lines (at most {most})"
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                assert length <= CLASS_LINES, (
                    f"{where}:{node.lineno} class {node.name} is {length} lines "
                    f"(at most {CLASS_LINES})"
                )
