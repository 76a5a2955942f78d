"""The docs site's own machinery: its nav names pages that exist, and the CLI reference is
generated from the real CLI (the build itself, `mkdocs build --strict`, runs in .ci/run)."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest
import yaml

from eval_core._plugins.plugins import PluginSet
from eval_core.kinds import TEXT, rules
from tests.conftest import ROOT
from tests.test_kind_reference import family

DOCS = ROOT / "docs"
CORE_COMMANDS = {
    "check",
    "hash",
    "plugins",
    "lock",
    "schema",
    "sweep",
    "new-plugin",
    "init",
    "compare",
}


def hook(name: str = "cli_reference") -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, DOCS / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def nav_pages(entries: object) -> list[str]:
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [page for entry in entries for page in nav_pages(entry)]
    if isinstance(entries, dict):
        return [page for value in entries.values() for page in nav_pages(value)]
    return []


def test_the_nav_names_every_page_and_only_pages_that_exist() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert [page for page in pages if not (DOCS / page).is_file()] == []
    assert sorted(p.name for p in DOCS.glob("*.md")) == sorted(pages)
    assert config["hooks"] == ["docs/hooks/cli_reference.py", "docs/hooks/kind_reference.py"]
    assert hook().MARKER in (DOCS / "cli-reference.md").read_text()
    assert hook("kind_reference").MARKER in (DOCS / "kinds.md").read_text()


def test_the_cli_reference_reads_every_command_from_the_real_help() -> None:
    """Each command's own ``--help`` runs at the build (a failing one fails it, in .ci/run);
    here, once, that the real top-level help yields every command."""
    module = hook()
    top = module.run_help()
    assert CORE_COMMANDS | {"report", "rescore"} <= set(module.commands(top))
    assert "--traceback" in top


ARGPARSE = """usage: eval [-h] [--traceback] COMMAND ...

commands:
  check        Validate a Corpus; print its Cases per tier and its
               corpusHash, wrapped onto a second line.
  new-plugin   Write a plug-in package (one kind, one Case field, tests, CI).

Exit codes: 0 cleared; 1 not cleared.
"""
CLICK = """Usage: eval [OPTIONS] COMMAND [ARGS]...

Options:
  --traceback  Also print the traceback.

Commands:
  check       Validate a Corpus; print its Cases per tier and its corpusHash,
              wrapped onto a second line.
  new-plugin  Write a plug-in package.
"""
RICH = """ Usage: eval [OPTIONS] COMMAND [ARGS]...

╭─ Options ───────────────────────────────────────────────────╮
│ --traceback          When plug-in code raises, also print   │
│ --help               Show this message and exit.            │
╰─────────────────────────────────────────────────────────────╯
╭─ Commands ──────────────────────────────────────────────────╮
│ check       Validate a Corpus; print its Cases per tier and  │
│             its corpusHash, wrapped onto a second line.      │
│ new-plugin  Write a plug-in package.                         │
╰─────────────────────────────────────────────────────────────╯
"""


def test_the_command_names_are_read_from_argparse_click_or_rich_help_and_never_a_wrapped_line() -> (
    None
):
    module = hook()
    for shown in (ARGPARSE, CLICK, RICH):
        assert module.commands(shown) == ["check", "new-plugin"], shown


def test_the_kind_reference_fills_its_page_from_the_installed_plug_ins(plugins: PluginSet) -> None:
    module = hook("kind_reference")
    page = module.on_page_markdown(f"# Kinds\n\n{module.MARKER}\n", page=None)
    assert module.MARKER not in page
    assert "#### `tool_called`" in page and "### `mcp`" in page
    assert module.on_page_markdown("# Other\n", page=None) == "# Other\n"


def test_the_docs_build_fails_on_a_kind_without_an_example() -> None:
    module = hook("kind_reference")
    described = {"description": "The answer is terse.", **rules(text=TEXT)}
    with pytest.raises(module.IncompleteReference) as raised:
        module.reference(family(acme_terse=described))
    assert str(raised.value) == (
        "the kind reference (docs/kinds.md) lacks 1 thing(s):\n"
        "  - kind 'acme_terse' of acme-reference 1.0: no example (KindSpec/CaseField "
        "examples=[...])"
    )
    example = [{"kind": "acme_terse", "text": "Done."}]
    assert "#### `acme_terse`" in module.reference(
        family(acme_terse={**described, "examples": example})
    )
