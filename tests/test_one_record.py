"""One definition per record: a record a Host's service and a family's fixture both need is
defined in :mod:`eval_core.records`, and no package defines it again, as a Struct of its own or
as a Protocol of its attributes (the three copies issue 48 found: a family's Protocol, the
family's record, the Host's row)."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec

from eval_core._plugins import service_records
from tests.conftest import parsed

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "packages" / "agent-runtime"
"""The system under test knows nothing of the harness: its own rows (a native route, an MCP
account) are its own, and the Host translates them into these records."""
SHARED = {
    frozenset(kind.__struct_fields__): name
    for name, kind in vars(service_records).items()
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and kind.__struct_fields__
}


def fields(node: ast.ClassDef) -> frozenset[str]:
    return frozenset(
        stmt.target.id
        for stmt in node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    )


def test_the_shared_records_are_defined_once() -> None:
    assert len(SHARED) >= 10  # every shared record has fields of its own to compare
    home = Path(service_records.__file__).resolve()
    again = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({SHARED[fields(node)]})"
        for path in sorted((ROOT / "packages").glob("*/src/**/*.py"))
        if path.resolve() != home and not path.is_relative_to(RUNTIME)
        for node in ast.walk(parsed(path.read_text(), str(path)))
        if isinstance(node, ast.ClassDef) and fields(node) in SHARED
    ]
    assert not again, f"defined again outside eval_core.records: {again}"
