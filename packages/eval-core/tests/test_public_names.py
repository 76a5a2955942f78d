"""The public API's table of names is read from ``eval_core.plugin``'s own typing imports as
text (``ast`` costs start-up): it must say exactly what Python's parser reads there."""

from __future__ import annotations

import ast
from pathlib import Path

from eval_core import plugin
from eval_core._util.lazy_names import table


def test_the_table_is_what_the_parser_reads() -> None:
    tree = ast.parse(Path(plugin.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    parsed = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert table(Path(plugin.__file__)) == parsed
    assert sorted(parsed) == sorted(plugin.__all__)
    assert plugin.path_argument is plugin.__getattr__("path_argument")  # an alias resolves
