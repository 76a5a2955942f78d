"""eval_kit's public names: each listed once, typed where it lives, loaded on first use; and
pytest's loading of the kit's plug-in (every run, every xdist worker) imports neither
hypothesis nor the core's loader, the reason the names are lazy."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import eval_kit


def test_each_public_name_is_typed_listed_and_resolves_where_its_table_says() -> None:
    source = Path(str(eval_kit.__file__)).read_text()
    block = next(
        n
        for n in ast.parse(source).body
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.dump(n)
    )
    typed = {
        alias.asname or alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == eval_kit.WHERE
    assert sorted(eval_kit.__all__) == sorted(set(eval_kit.__all__)) == sorted(typed)
    assert eval_kit.__dir__() == eval_kit.__all__
    for name, module in eval_kit.WHERE.items():
        assert getattr(eval_kit, name) is getattr(importlib.import_module(module), name)


def test_an_unlisted_name_is_refused_by_name() -> None:
    with pytest.raises(AttributeError, match="eval_kit has no public name 'NoSuchName'"):
        eval_kit.NoSuchName  # noqa: B018 - the lookup is the test


def test_loading_the_pytest_plugin_imports_no_hypothesis_and_no_corpus_machinery() -> None:
    probe = (
        "import sys\n"
        "import eval_kit.pytest_plugin\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'hypothesis'"
        " or m.startswith(('eval_core._loading', 'eval_core._running', 'eval_kit.'))"
        " and m != 'eval_kit.pytest_plugin'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
