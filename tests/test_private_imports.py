"""No module of ours reaches into another project's private modules (issue 48).

A name with a leading underscore in a third-party package (``typer._click``, ``x._y``) is that
project's to change in any release: importing it pins the dependency to one version and breaks
without warning on the next. Every ``.py`` source we ship or run (``packages/*/src``, the
examples, ``bench``) is read here; ``from x._y import``, ``import x._y``, ``from x import _y``
and ``x._y`` (an attribute of an imported module) are refused with the file and line, where
``x`` is neither ours nor Python's own library.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import parsed

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*sorted(ROOT.glob("packages/*/src")), ROOT / "examples", ROOT / "bench"]

KNOWN: dict[str, set[str]] = {
    # The ToolNode's own reading of which arguments LangGraph injects, inside a try whose
    # fallback is the Tool's schema; a public way to ask would replace it.
    "packages/eval-host-langgraph/src/eval_host_langgraph/tools.py": {
        "langgraph.prebuilt.tool_node._get_all_injected_args"
    },
}
"""Private imports still there, each by file and module: this list only shrinks."""


def ours() -> set[str]:
    """The top-level names our own sources define: a package's modules, an example's, bench's."""
    names = {p.name for src in ROOT.glob("packages/*/src") for p in src.iterdir() if p.is_dir()}
    for example in (ROOT / "examples").iterdir():
        for where in (example, example / "src"):
            if where.is_dir():
                names |= {p.stem for p in where.iterdir() if p.suffix == ".py" or p.is_dir()}
    return names | {p.stem for p in (ROOT / "bench").glob("*.py")}


def private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def reaches(tree: ast.Module, first_party: set[str]) -> Iterator[tuple[int, str]]:
    """Each (line, dotted name) of a private module or name of a third-party package."""

    def foreign(module: str) -> bool:
        top = module.split(".", maxsplit=1)[0]
        return top not in first_party and top not in sys.stdlib_module_names

    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if foreign(alias.name):
                    if private(alias.name):
                        yield node.lineno, alias.name
                    bound[alias.asname or alias.name.split(".")[0]] = alias.asname or alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not foreign(node.module):
                continue
            if private(node.module):
                yield node.lineno, node.module
                continue
            for alias in node.names:
                if private(alias.name):
                    yield node.lineno, f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and private(node.attr)
        ):
            yield node.lineno, f"{bound[node.value.id]}.{node.attr}"


def found() -> Iterator[tuple[str, int, str]]:
    first_party = ours()
    for source in SOURCES:
        for path in sorted(source.rglob("*.py")):
            if any(part in {".venv", "node_modules"} for part in path.parts):
                continue
            tree = parsed(path.read_text(encoding="utf-8"), str(path))
            for line, name in reaches(tree, first_party):
                yield path.relative_to(ROOT).as_posix(), line, name


def top_private(name: str) -> str:
    """``typer._click.exceptions`` -> ``typer._click``: the private module it goes through."""
    parts = name.split(".")
    at = next(i for i, part in enumerate(parts) if private(part))
    return ".".join(parts[: at + 1])


def test_no_source_imports_a_private_module_of_another_project() -> None:
    seen: dict[str, set[str]] = {}
    for where, line, name in found():
        module = top_private(name)
        seen.setdefault(where, set()).add(module)
        assert module in KNOWN.get(where, set()), f"{where}:{line} imports {name} (private)"
    assert seen == KNOWN, "a private import listed in KNOWN is gone: take it off the list"


def test_the_scan_sees_each_form_of_a_private_import() -> None:
    source = """
import typer._click
from typer._coercion import RuntimeParam
from typer import _click
import click
click._compat.x
from os import _exit
from eval_core._util import code
"""
    hits = sorted(reaches(ast.parse(source), {"eval_core"}))
    assert hits == [
        (2, "typer._click"),
        (3, "typer._coercion"),
        (4, "typer._click"),
        (6, "click._compat"),
    ]
