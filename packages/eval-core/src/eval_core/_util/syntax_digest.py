"""What a Python file does, as a digest: its syntax tree without docstrings, so prose and
comments never move a plug-in's code fingerprint (:mod:`eval_core._util.code`), and a digest of
this module's own bytes, which names the cache of those digests (an edit here is a new entry).
"""

from __future__ import annotations

import ast
import gc
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from eval_core._util.input_files import NotReadable, read_regular


def normalised(path: str, data: bytes) -> str:
    """The digest of what a file does: a Python file's syntax tree without docstrings (so
    prose and comments never move it), any other file's bytes."""
    if path.endswith(".py"):
        with _no_cycle_collection():
            for _ in range(3):
                try:
                    tree = ast.parse(data, filename=path)
                    return hashlib.sha256(repr(_canonical(tree)).encode()).hexdigest()
                except SystemError:  # CPython 3.11 keeps the AST's depth count per
                    continue  # interpreter: a parse racing another thread's can trip it
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    break  # not Python, or nested past the interpreter's depth
    return hashlib.sha256(data).hexdigest()  # keyed by its bytes


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """A syntax tree is hundreds of thousands of acyclic objects: the cyclic collector, run
    every few hundred allocations, would cost more than the parse (measured: 2.4x)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _canonical(node: Any) -> Any:
    """A syntax tree as nested tuples: node type and fields, no positions, no docstrings, and
    no empty field (so a field a newer Python adds, empty, changes nothing). The hot loop of a
    cold start (every installed plug-in's files): written for speed, not for ``ast.iter_fields``."""
    if isinstance(node, ast.AST):
        fields = []
        owner = isinstance(node, _DOCSTRING_OWNERS)
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                if owner and name == "body" and value and _is_docstring(value[0]):
                    value = value[1:]
                if value:
                    fields.append((name, tuple([_canonical(item) for item in value])))
            elif isinstance(value, ast.AST):
                fields.append((name, _canonical(value)))
            else:
                fields.append((name, value))
        return (type(node).__name__, tuple(fields))
    return node


_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(first: ast.stmt) -> bool:
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


@cache
def normaliser() -> str:
    """The digest of this module's own bytes: the normalisation every cached digest came from."""
    try:
        return hashlib.sha256(read_regular(__file__)).hexdigest()[:16]
    except NotReadable as exc:
        return f"unreadable: {exc}"
