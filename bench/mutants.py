"""Mechanical mutants, sampled fresh: what the Corpus alone kills of code nobody chose to mutate.

Prints figures; it is never a timed test. Usage::

    uv run --all-groups python bench/mutants.py [--sample N] [--seed S] [--jobs N]
        [--area AREA ...] [--only ID ...] [--tests covering|package|all] [--json PATH]
        [--coverage] [--list]

The hand-written catalogue (``tests/mutation_catalogue.py``) measures what its authors thought
of, and the Corpus was grown against it. Here the mutants are generated mechanically from the
syntax tree (stdlib ``ast``; no mutmut or cosmic-ray, whose runners want to own the copy, the
test command and a session database, where this needs one exact text span per mutant) over the
reference runtime, every Host adapter, the example agents and the harness core (model wires
apart), and a random sample is drawn with a seed printed first (a new one by default).

Operators: comparisons (``==``/``!=``, ``<``/``<=``, ``in``/``not in``, ``is``/``is not``),
``and``/``or``, ``not`` removed or added to a condition, constants (``True``/``False``,
``0``/``1``, a number +1, a string or bytes emptied), a returned value replaced (``None``, or
``True``/``False`` for a condition), a call statement removed, an ``if`` body or a simple
statement replaced by ``pass``, and two neighbouring arguments of a call swapped. Never in
docstrings (any bare string statement: an attribute's docstring too), type annotations, logging
or progress calls, ``__repr__``, ``__all__``, or under ``if TYPE_CHECKING``; and no swap that is
equivalent by construction (``SKIPPED``): two alternatives of a regex alternation that can never
match at the same place, the exceptions ``suppress`` is given, the arguments of ``max``/``min``
or of a set's union; and no swap that is a ``TypeError`` by construction (``isinstance(x, T)``
to ``isinstance(T, x)``, ``getattr(obj, "name")`` to ``getattr("name", obj)``, likewise
``hasattr``, ``setattr``, ``delattr``, ``issubclass`` given a tuple), which can only crash or go
unreached, never FAIL. (The swap moves only a call's arguments: a tuple's, a set's or a dict's
members are never swapped, and two keywords swap their values, which is a real change.)
``--list`` counts what each of these rules leaves out. A mutant's id is
``module/path.py:line:col:operator:variant``, stable for the code as it stands. A mutant is
one byte span of one file replaced: the rest of the file is byte-identical, and reverting
restores the original bytes.

Each sampled mutant is applied to a scratch copy of the tree (one per job) whose packages are put
first on ``PYTHONPATH``, shadowing the editable installs, as ``bench/mutation_table.py`` does
(whose Sweep and scoring this reuses). Then:

1. the Corpus alone: the shipped Corpus with its red-team suite for the runtime and its Host;
   an example's Corpus on its framework Host for that Host and that example; all three for the
   harness core and the model wires. A mutant of a runtime module whose behaviour differs by
   store backend (``BY_BACKEND``: ``store/``, the claims of ``durable/runs.py`` and
   ``native/inbox.py``) is also swept on the *PostgreSQL leg*: the shipped Corpus's durable
   (L3) Cases with the runtime's store on a throwaway PostgreSQL cluster on 127.0.0.1
   (``tests/postgres_cluster.py``: one per bench run, started when a chosen mutant needs it;
   each Sweep a role and a database of its own, dropped after it), swept green unmutated
   first like every leg. Without PostgreSQL's server binaries that leg is skipped, in one
   printed line. Killed: a Case green unmutated goes FAIL, on any leg (the matrix's "Corpus
   FAIL by leg" line and ``--json``'s ``killedOn`` say which). A Case that goes
   ERR is not red: such a mutant is *crashed*, listed apart; one whose Sweep outlives the
   timeout is *killed by timeout*, listed apart;
2. for every mutant the Corpus did not kill, the unit tests (``pytest -x``). ``--tests
   covering``, the default, runs only the tests, of every package and ``tests/``, that ran the
   mutated line, quickest first: ``bench/covering.py`` builds that map once per state of the
   tree (every test under ``coverage`` with a context per test, subprocesses included: minutes,
   printed) and keeps it in the bench's own cache. A mutant on a line no test runs is caught by
   nothing without running anything. ``--tests package`` runs the mutated package's tests,
   ``--tests all`` those then ``tests/`` (4-5 hours for 200 mutants). The copy's Corpora are
   re-locked first, so a lock pinning the old code is no kill, and
   ``tests/test_mutation_catalogue.py`` is left out (it pins snippets of text, not behaviour).
   A test that fails unmutated too is set aside and the run repeated without it. Covering tests
   that outlive ten times their unmutated duration (two minutes at least) hang: caught. Any other
   run cut by ``--tests-timeout`` decides nothing: its mutant stays a survivor, saying so.

A survivor that ``bench/mutants_triage.md`` says is equivalent (keyed by its module and its line
before and after, never by line number: ``bench/equivalents.py``) is counted apart. The matrix
per area follows (sampled; killed by the Corpus, a Case FAIL; crashed, a Case ERR or a Sweep
that exits without a Scorecard, listed apart; killed by timeout; by the tests only; equivalent;
survived), then the two headlines: the runtime, the Host adapters and the examples killed by the
Corpus alone (the bar: 90% of the non-equivalent), and the harness core and the model wires
caught by the Corpus or the tests (the bar: every one). Beside the first, two figures that are
not the headline: detected (a crash or a timeout counted as killed, as mutmut and PIT count a
test that errs) and the Corpus kill of the mutants whose Sweep ran (crashes left out, as
Stryker's mutation score leaves out a mutant that raises a runtime error). Every mutant not
killed by the Corpus (id, file:line, the diff line, what the tests did) follows, for triage.
``--coverage`` also prints the Corpus's branch coverage of the runtime per module
(``coverage`` over ``eval sweep --suite all``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import itertools
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.util import cache_from_source
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import covering  # noqa: E402
import equivalents  # noqa: E402
import mutation_table as table  # noqa: E402  (puts the repository root on sys.path)
from tests.postgres_cluster import ServerMissingError, ThrowawayCluster  # noqa: E402

AREAS = ("runtime", "Host adapters", "examples", "harness core", "model wires")


@dataclass(frozen=True)
class Corpus:
    """One Corpus a mutant is swept against, and how: one leg of the Corpus alone."""

    path: str
    host: str | None = None
    suite_all: bool = False
    postgresql: bool = False
    """The PostgreSQL leg: the Corpus's durable (L3) Cases, the reference runtime keeping its
    Runs on a throwaway PostgreSQL cluster (``--host-option store=URL``, a role and a database
    of the Sweep's own), not in SQLite."""

    @property
    def name(self) -> str:
        name = self.path if self.host is None else f"{self.path} --host {self.host}"
        return f"{name} on PostgreSQL" if self.postgresql else name


SHIPPED = Corpus("corpus", suite_all=True)
SUPPORT = Corpus("examples/pydantic-ai-support/corpus", host="pydantic-ai")
TRIAGE = Corpus("examples/langgraph-triage/corpus", host="langgraph")
CORPORA = (SHIPPED, SUPPORT, TRIAGE)
SHIPPED_ON_POSTGRESQL = Corpus("corpus", postgresql=True)
LEGS = (*CORPORA, SHIPPED_ON_POSTGRESQL)
"""Every leg a mutant may be swept on, in the order they are tried (the first FAIL decides)."""
BY_BACKEND = (
    "agent_runtime/store/",
    "agent_runtime/durable/runs.py",
    "agent_runtime/native/inbox.py",
)
"""The runtime's modules whose behaviour differs by store backend, so a mutant there is also
swept on the PostgreSQL leg: ``store/`` is the store itself (``postgres.py`` runs only on
PostgreSQL; ``storage.py`` migrates and opens both; ``database.py`` gives each dialect its
types and row locks); ``durable/runs.py`` and ``native/inbox.py`` claim with PostgreSQL's
``FOR UPDATE SKIP LOCKED``, and the fence's memo of the transaction it fenced holds only where
the connection names its transaction (PostgreSQL's pipeline; SQLite's is ``None``). Every other
module runs the same statements on both stores, which the SQLite leg answers for."""


@dataclass(frozen=True)
class Target:
    """A source tree mutated: its area, the Corpora that exercise it, its own unit tests."""

    root: str
    """The import root (what is on ``sys.path``), from the repository root."""
    area: str
    corpora: tuple[Corpus, ...]
    tests: str


TARGETS = (
    Target("packages/agent-runtime/src", "runtime", (SHIPPED,), "packages/agent-runtime/tests"),
    Target(
        "packages/eval-host-agent-runtime/src",
        "Host adapters",
        (SHIPPED,),
        "packages/eval-host-agent-runtime/tests",
    ),
    Target(
        "packages/eval-host-pydantic-ai/src",
        "Host adapters",
        (SUPPORT,),
        "packages/eval-host-pydantic-ai/tests",
    ),
    Target(
        "packages/eval-host-langgraph/src",
        "Host adapters",
        (TRIAGE,),
        "packages/eval-host-langgraph/tests",
    ),
    Target(
        "examples/pydantic-ai-support",
        "examples",
        (SUPPORT,),
        "packages/eval-host-pydantic-ai/tests",
    ),
    Target(
        "examples/langgraph-triage/src", "examples", (TRIAGE,), "packages/eval-host-langgraph/tests"
    ),
    Target("packages/eval-core/src", "harness core", CORPORA, "packages/eval-core/tests"),
    Target("packages/eval-bindings/src", "harness core", CORPORA, "packages/eval-bindings/tests"),
)
WIRES = "eval_bindings/wire/"
"""Under the bindings' import root: the model wires, an area of their own (no Corpus drives a
real model's wire; their tests do)."""
HARNESS_MODULES = ("eval_host_agent_runtime/soul_cache.py",)
"""Harness code that lives in a Host's package: the loaded Soul kept between commands. A cache
may change no verdict, so every Corpus leg sweeps with caches off and only its tests can catch
it: it is judged with the harness core (caught by the Corpus or the tests), not the Host."""

UNIT_TESTS_LEFT_OUT = ("tests/test_mutation_catalogue.py",)
"""Tests that pin source text, not behaviour: any edit of a catalogued line fails them."""

PROGRESS_TEXT = frozenset({"eval_core/_running/progress.py"})
"""Modules whose strings are progress text for a person: their constants are not mutated."""

TEST_SETS = {"covering": ("covering",), "package": ("package",), "all": ("package", "tests")}
"""The unit tests run on a survivor of the Corpus: ``covering`` (the default) only the tests, of
every package and ``tests/``, that ran the mutated line (``bench/covering.py``'s map); ``package``
the mutated package's own tests; ``all`` those and ``tests/`` (4-5 hours for 200 mutants)."""
HUNG_FACTOR, HUNG_FLOOR = 10.0, 120.0
"""Covering tests that outlive this many times their unmutated duration (as the map measured
it, under coverage), and at least the floor in seconds, hang: the mutant is caught."""
MAPPED_TESTS = ("packages", "tests")
"""The tests the covering map is built from: every package's and ``tests/``."""
MAP_TIMEOUT = 3600.0

SWEEP_TIMEOUT = 120.0
POSTGRES_TIMEOUT_FACTOR = 4.0
"""The PostgreSQL leg's Sweep may take this many times its unmutated duration (and at least
``--timeout``) before it is killed by timeout: each Trial clones a database, so the leg is
slower than SQLite's by more than the machine's load can be guessed."""
TESTS_TIMEOUT = 900.0


# -- generating mutants -----------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """One span of one file replaced: ``source[start:end]`` (bytes) becomes ``new``."""

    module: str
    """The file from its import root, e.g. ``agent_runtime/turn/loop.py``."""
    path: str
    """The file from the repository root."""
    line: int
    col: int
    operator: str
    variant: int
    start: int
    end: int
    old: bytes
    new: bytes
    area: str

    @property
    def id(self) -> str:
        return f"{self.module}:{self.line}:{self.col}:{self.operator}:{self.variant}"

    @property
    def last_line(self) -> int:
        return self.line + self.old.count(b"\n")

    def apply(self, source: bytes) -> bytes:
        if source[self.start : self.end] != self.old:
            raise ValueError(f"{self.id}: the span no longer holds {self.old!r}")
        return source[: self.start] + self.new + source[self.end :]

    def diff(self, source: bytes) -> tuple[str, str]:
        """The mutated line(s) before and after, as one line each."""
        first = source.rfind(b"\n", 0, self.start) + 1
        last = source.find(b"\n", self.end)
        last = len(source) if last == -1 else last
        before = source[first:last]
        after = before[: self.start - first] + self.new + before[self.end - first :]

        def one(text: bytes) -> str:
            return " ".join(text.decode("utf-8", "replace").split())

        return one(before), one(after)


_COMPARE = {
    ast.Eq: (rb"==", "!="),
    ast.NotEq: (rb"!=", "=="),
    ast.Lt: (rb"<(?!=)", "<="),
    ast.LtE: (rb"<=", "<"),
    ast.Gt: (rb">(?!=)", ">="),
    ast.GtE: (rb">=", ">"),
    ast.In: (rb"(?<!not )(?<![\w])in(?![\w])", "not in"),
    ast.NotIn: (rb"\bnot\s+in\b", "in"),
    ast.Is: (rb"\bis\b(?!\s+not\b)", "is not"),
    ast.IsNot: (rb"\bis\s+not\b", "is"),
}
_BOOL = {ast.And: (rb"\band\b", "or"), ast.Or: (rb"\bor\b", "and")}
_LOGGERS = re.compile(r"(^|_)(log|logger|logging|warnings|progress|console)$", re.IGNORECASE)
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
_PRINTERS = {"print", "echo", "secho"}
_CONDITIONS = {"isinstance", "issubclass", "any", "all", "bool", "callable", "hasattr"}
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Delete, ast.Break, ast.Continue)
_ORDER_FREE = {"suppress", "max", "min", "union", "intersection"}
"""Calls whose positional arguments' order changes nothing: ``contextlib.suppress`` (its
exceptions are one ``issubclass`` check), ``max``/``min`` without a ``key`` (equal numbers are
equal whichever is returned), a set's ``union``/``intersection``."""
_REGEX_SYNTAX = frozenset("\\.^$*+?{}[]()|")

SKIPPED = {
    "docstring": "a bare string statement (an attribute's docstring, a note): never behaviour",
    "regex alternatives": "two alternatives of a regex alternation that cannot both match at "
    "one place: which texts match, and what, is the same in either order",
    "order-free arguments": "the arguments of suppress, max/min (no key), a set's union",
    "ill-typed swaps": "isinstance(x, T) to isinstance(T, x), getattr(obj, 'name') to "
    "getattr('name', obj), likewise hasattr, setattr, delattr, issubclass given a tuple: a "
    "TypeError wherever it runs, so crashed or unreached, never a FAIL",
}
"""The rules that leave out a mutant equivalent by construction, and why."""


def _is_logging(call: ast.Call) -> bool:
    """A call whose only effect is text for a person: a logger's, ``print``, ``warnings.warn``,
    ``typer.echo``, a progress line, ``sys.stderr.write``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _PRINTERS
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    owner_name = (
        owner.id
        if isinstance(owner, ast.Name)
        else owner.attr
        if isinstance(owner, ast.Attribute)
        else ""
    )
    if func.attr in _PRINTERS:
        return True
    if func.attr == "write" and owner_name == "stderr":
        return True
    if func.attr == "warn" and owner_name == "warnings":
        return True
    return func.attr in _LOG_METHODS and bool(_LOGGERS.search(owner_name))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _alternation_builders(tree: ast.Module) -> frozenset[str]:
    """Module-level functions that only join their ``*alternatives`` into one regex alternation
    (``"|".join(alternatives)``): a call's arguments to them are alternatives, not arguments."""
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.args.vararg is None:
            continue
        params = node.args
        if params.args or params.posonlyargs or params.kwonlyargs or params.kwarg:
            continue
        vararg = params.vararg.arg
        if any(
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "join"
            and isinstance(call.func.value, ast.Constant)
            and call.func.value.value == "|"
            and [type(a) for a in call.args] == [ast.Name]
            and call.args[0].id == vararg  # type: ignore[attr-defined]
            for call in ast.walk(node)
        ):
            found.add(node.name)
    return frozenset(found)


def _required_prefix(alternative: str) -> str:
    """The literal text every match of a regex ``alternative`` starts with: up to its first
    syntax, less a character made optional or repeatable (``s?``, ``a*``, ``b{0,2}``)."""
    for i, char in enumerate(alternative):
        if char in _REGEX_SYNTAX:
            return alternative[: i - 1 if char in "?*{" and i else i]
    return alternative


def _never_both_match(left: ast.expr, right: ast.expr) -> bool:
    """Two regex alternatives that cannot both match at one place: neither's required prefix
    starts the other's. An alternation tries its alternatives in order and the first that
    matches wins, so only alternatives that can match at the same place make the order count."""
    if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in (left, right)):
        return False
    a = _required_prefix(left.value)  # type: ignore[attr-defined]
    b = _required_prefix(right.value)  # type: ignore[attr-defined]
    return not (a.startswith(b) or b.startswith(a))


def _ill_typed_swap(call: ast.Call, left: ast.expr, right: ast.expr) -> bool:
    """Swapping the first two arguments of a builtin whose second must be a class or a name
    makes a call that raises ``TypeError`` wherever it runs: ``isinstance(T, x)`` (unless the
    checked type is ``type``: then ``x`` is meant to be a class and the swap is well-typed),
    ``issubclass(T, C)`` when ``T`` is a tuple (``issubclass(C, T)`` with two classes swaps into
    a real question), and ``getattr(name, obj)``, ``hasattr``, ``setattr``, ``delattr`` unless
    the object is a literal: an attribute name must be a ``str``, and no target passes a ``str``
    as the object whose attribute it reads (one would make the swap an ``AttributeError`` or
    the default instead)."""
    func = call.func
    if not isinstance(func, ast.Name) or call.args[:2] != [left, right]:
        return False
    if func.id == "isinstance":
        kinds = right.elts if isinstance(right, ast.Tuple) else [right]
        return not any(isinstance(k, ast.Name) and k.id == "type" for k in kinds)
    if func.id == "issubclass":
        return isinstance(right, ast.Tuple)
    if func.id in ("getattr", "hasattr", "setattr", "delattr"):
        return not isinstance(left, ast.Constant | ast.JoinedStr)
    return False


def _order_free(call: ast.Call) -> bool:
    """A call whose positional arguments' order changes nothing (``_ORDER_FREE``)."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if name in ("max", "min") and not isinstance(func, ast.Name):
        return False
    return name in _ORDER_FREE and not call.keywords


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_condition(node: ast.expr) -> bool:
    if isinstance(node, ast.Compare | ast.BoolOp):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CONDITIONS
    )


class _Finder:
    """Walks one module's tree and records every mutant, skipping what is not behaviour."""

    def __init__(self, source: bytes, module: str, path: str, area: str) -> None:
        self.source = source
        self.module, self.path, self.area = module, path, area
        self.starts = [0]
        for i, byte in enumerate(source):
            if byte == 0x0A:
                self.starts.append(i + 1)
        self.found: list[Mutant] = []
        self.variants: Counter[tuple[int, int, str]] = Counter()
        self.skipped: Counter[str] = Counter()
        """Mutants left out as equivalent by construction, by rule (``SKIPPED``)."""
        self.builders: frozenset[str] = frozenset()

    # positions ------------------------------------------------------------------------------

    def at(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.at(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        for decorator in getattr(node, "decorator_list", ()):
            start = min(start, self.at(decorator.lineno, decorator.col_offset) - 1)
        end = self.at(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def text(self, node: ast.AST) -> bytes:
        start, end = self.span(node)
        return self.source[start:end]

    def add(self, start: int, end: int, new: str | bytes, operator: str) -> None:
        new_bytes = new.encode() if isinstance(new, str) else new
        old = self.source[start:end]
        if old == new_bytes:
            return
        line = self.source.count(b"\n", 0, start) + 1
        col = start - self.starts[line - 1]
        key = (line, col, operator)
        variant = self.variants[key]
        self.variants[key] += 1
        self.found.append(
            Mutant(
                self.module,
                self.path,
                line,
                col,
                operator,
                variant,
                start,
                end,
                old,
                new_bytes,
                self.area,
            )
        )

    def token(self, after: ast.AST, before: ast.AST, pattern: bytes) -> tuple[int, int] | None:
        """The one occurrence of an operator ``pattern`` between two operands, or ``None``."""
        low, high = self.span(after)[1], self.span(before)[0]
        hits = list(re.finditer(pattern, self.source[low:high]))
        if len(hits) != 1:
            return None
        return low + hits[0].start(), low + hits[0].end()

    # the walk -------------------------------------------------------------------------------

    def module_body(self, tree: ast.Module) -> None:
        self.builders = _alternation_builders(tree)
        self.body(tree.body, in_function=False)

    def body(self, stmts: list[ast.stmt], *, in_function: bool) -> None:
        for i, stmt in enumerate(stmts):
            if _is_docstring(stmt):
                if i > 0 and stmt.value.value:  # type: ignore[attr-defined]
                    self.skipped["docstring"] += 1  # (a body's first was never mutated)
                continue
            self.stmt(stmt, in_function=in_function)

    def stmt(self, stmt: ast.stmt, *, in_function: bool) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if stmt.name == "__repr__":
                return
            for decorator in stmt.decorator_list:
                self.expr(decorator)
            for default in [*stmt.args.defaults, *stmt.args.kw_defaults]:
                if default is not None:
                    self.expr(default)
            self.body(stmt.body, in_function=True)
            return
        if isinstance(stmt, ast.ClassDef):
            for base in [*stmt.bases, *(k.value for k in stmt.keywords)]:
                self.expr(base)
            self.body(stmt.body, in_function=False)
            return
        if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
            self.body(stmt.orelse, in_function=in_function)
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call | ast.Await):
            call = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            if isinstance(call, ast.Call) and _is_logging(call):
                return
            if isinstance(call, ast.Call) and in_function:
                self.add(*self.span(stmt), "pass", "call")
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and any(
            isinstance(t, ast.Name) and t.id in ("__all__", "__slots__")
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        ):
            return
        if (
            in_function
            and isinstance(stmt, _SIMPLE)
            and not _not_implemented(stmt)
            and not (isinstance(stmt, ast.AnnAssign) and stmt.value is None)
        ):
            self.add(*self.span(stmt), "pass", "statement")
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            self.returned(stmt.value)
        if isinstance(stmt, ast.If):
            self.condition(stmt.test)
            body = stmt.body
            if in_function and not (len(body) == 1 and isinstance(body[0], ast.Pass)):
                start, end = self.span(body[0])[0], self.span(body[-1])[1]
                self.add(start, end, "pass", "if-body")
        elif isinstance(stmt, ast.While):
            self.condition(stmt.test)
        self.nested(stmt, in_function=in_function)

    def nested(self, node: ast.AST, *, in_function: bool) -> None:
        """The expressions and blocks of a statement, a handler, a ``with`` item, a match
        case (never an annotation)."""
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns"):
                continue
            if isinstance(value, ast.expr):
                self.expr(value)
            elif isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.body(value, in_function=in_function)
                else:
                    for item in value:
                        if isinstance(item, ast.expr):
                            self.expr(item)
                        elif isinstance(item, ast.AST):
                            self.nested(item, in_function=in_function)
            elif isinstance(value, ast.AST):
                self.nested(value, in_function=in_function)

    def condition(self, test: ast.expr) -> None:
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            self.add(*self.span(test), b"not (" + self.text(test) + b")", "not-added")

    def returned(self, value: ast.expr) -> None:
        start, end = self.span(value)
        if isinstance(value, ast.Constant) and value.value is None:
            return
        if _is_condition(value) or (
            isinstance(value, ast.Constant) and isinstance(value.value, bool)
        ):
            if not isinstance(value, ast.Constant):
                self.add(start, end, "True", "return")
                self.add(start, end, "False", "return")
            return
        self.add(start, end, "None", "return")

    def expr(self, node: ast.expr) -> None:
        if isinstance(node, ast.JoinedStr):
            return  # an f-string's parts carry no exact positions before Python 3.12
        if isinstance(node, ast.Subscript) and _is_typing_form(node.value):
            return  # Literal["a", "b"] in a type alias: an annotation
        if isinstance(node, ast.Call):
            if _is_logging(node):
                return
            if _is_cast(node):  # cast("Type", value): the type is an annotation
                for arg in node.args[1:]:
                    self.expr(arg)
                return
            self.swapped(node)
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                pattern, new = _COMPARE[type(op)]
                if (where := self.token(left, right, pattern)) is not None:
                    self.add(*where, new, "compare")
                left = right
        elif isinstance(node, ast.BoolOp):
            pattern, new = _BOOL[type(node.op)]
            for left, right in itertools.pairwise(node.values):
                if (where := self.token(left, right, pattern)) is not None:
                    self.add(*where, new, "boolean")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add(*self.span(node), b"(" + self.text(node.operand) + b")", "not-removed")
        elif isinstance(node, ast.IfExp):
            self.condition(node.test)
        elif isinstance(node, ast.Constant):
            self.constant(node)
        elif isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.expr(default)
            self.expr(node.body)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
            elif isinstance(child, ast.comprehension):
                self.expr(child.iter)
                for test in child.ifs:
                    self.condition(test)
                    self.expr(test)
            elif isinstance(child, ast.keyword) and not (
                child.arg == "help" and isinstance(child.value, ast.Constant)
            ):
                self.expr(child.value)

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        start, end = self.span(node)
        if isinstance(value, bool):
            self.add(start, end, repr(not value), "constant")
        elif isinstance(value, int):
            self.add(
                start, end, repr(1 if value == 0 else 0 if value == 1 else value + 1), "constant"
            )
        elif isinstance(value, float):
            self.add(start, end, repr(value + 1.0), "constant")
        elif isinstance(value, str) and value and self.module not in PROGRESS_TEXT:
            self.add(start, end, '""', "constant")
        elif isinstance(value, bytes) and value:
            self.add(start, end, 'b""', "constant")

    def swapped(self, call: ast.Call) -> None:
        """Two neighbouring positional arguments swapped, and two keywords' values (a real
        change: ``f(a=x, b=y)`` becomes ``f(a=y, b=x)``), but not what is equivalent by
        construction (``SKIPPED``)."""
        args = call.args
        func = call.func
        alternation = isinstance(func, ast.Name) and func.id in self.builders
        order_free = _order_free(call)
        if not any(isinstance(a, ast.Starred) for a in args):
            for left, right in itertools.pairwise(args):
                if alternation and _never_both_match(left, right):
                    self.swap(left, right, skipped="regex alternatives")
                elif order_free:
                    self.swap(left, right, skipped="order-free arguments")
                elif _ill_typed_swap(call, left, right):
                    self.swap(left, right, skipped="ill-typed swaps")
                else:
                    self.swap(left, right)
        named = [k for k in call.keywords if k.arg is not None]
        for left_kw, right_kw in itertools.pairwise(named):
            self.swap(left_kw.value, right_kw.value)

    def swap(self, left: ast.expr, right: ast.expr, skipped: str | None = None) -> None:
        (start, mid), (mid2, end) = self.span(left), self.span(right)
        a, b = self.source[start:mid], self.source[mid2:end]
        # a walrus keeps its parentheses outside its span: moved, it needs its own
        a = b"(" + a + b")" if isinstance(left, ast.NamedExpr) else a
        b = b"(" + b + b")" if isinstance(right, ast.NamedExpr) else b
        if a == b or mid > mid2:
            return
        if skipped is not None:
            self.skipped[skipped] += 1
        else:
            self.add(start, end, b + self.source[mid:mid2] + a, "arguments")


def _is_typing_form(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name in ("Literal", "Annotated")


def _is_cast(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name in ("cast", "TypeVar", "NewType")


def _not_implemented(stmt: ast.stmt) -> bool:
    """``raise NotImplementedError``: an abstract method's body, no behaviour to remove."""
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def mutants_of(
    source: bytes, module: str, path: str, area: str, skipped: Counter[str] | None = None
) -> list[Mutant]:
    """Every mutant of one module, in source order; ``skipped`` counts, by rule, those left
    out as equivalent by construction."""
    finder = _Finder(source, module, path, area)
    finder.module_body(ast.parse(source))
    if skipped is not None:
        skipped.update(finder.skipped)
    return sorted(finder.found, key=lambda m: (m.start, m.operator, m.variant))


def target_files(root: Path = ROOT) -> Iterator[tuple[Target, Path, str, str]]:
    """Each mutated file: its target, path, module path from its import root, and area."""
    for target in TARGETS:
        base = root / target.root
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts or "tests" in path.relative_to(base).parts:
                continue
            module = path.relative_to(base).as_posix()
            area = (
                "model wires"
                if module.startswith(WIRES)
                else "harness core"
                if module in HARNESS_MODULES
                else target.area
            )
            yield target, path, module, area


def generate(
    root: Path = ROOT,
    areas: Sequence[str] = (),
    skipped: Counter[str] | None = None,
    modules: Collection[str] = (),
) -> list[Mutant]:
    """Every mutant of every target (of ``areas`` and ``modules`` if given), in a stable order;
    ``skipped`` counts those left out as equivalent by construction, by rule."""
    found: list[Mutant] = []
    for _target, path, module, area in target_files(root):
        if (areas and area not in areas) or (modules and module not in modules):
            continue
        relative = path.relative_to(root).as_posix()
        found.extend(mutants_of(path.read_bytes(), module, relative, area, skipped))
    return found


def draw(pool: Sequence[Mutant], size: int, seed: int) -> list[Mutant]:
    """A random sample of ``size`` mutants (all of them when the pool is smaller), the same for
    the same pool and seed."""
    return sorted(random.Random(seed).sample(list(pool), min(size, len(pool))), key=_order)


def _order(mutant: Mutant) -> tuple[str, int, int, str, int]:
    return (mutant.path, mutant.line, mutant.col, mutant.operator, mutant.variant)


def target_of(mutant: Mutant) -> Target:
    return next(t for t in TARGETS if mutant.path.startswith(t.root + "/"))


def durable_cases(corpus: Path) -> tuple[str, ...]:
    """The ids of a Corpus's durable (L3) Cases, as the harness loads them."""
    from eval_core._loading.corpus import find_soul
    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins

    soul = find_soul(corpus)
    if soul is None:
        raise SystemExit(f"{corpus}: no Eval Soul, so no durable Cases for the PostgreSQL leg")
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](soul)
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
    finally:
        host.close()
    return tuple(sorted(c.id for c in loaded.cases if c.tier == "l3"))


def legs_of(mutant: Mutant) -> tuple[Corpus, ...]:
    """The Corpora its target's code is exercised by, and the PostgreSQL leg for a module
    whose behaviour differs by store backend (:data:`BY_BACKEND`)."""
    target = target_of(mutant)
    if target.area == "runtime" and mutant.module.startswith(BY_BACKEND):
        return (*target.corpora, SHIPPED_ON_POSTGRESQL)
    return target.corpora


# -- running mutants --------------------------------------------------------------------------

_COPY_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "scorecards", "site", ".*_cache", "node_modules", "*.pyc"
)


class Copy:
    """A scratch copy of the tree a mutant is applied to, in place, then reverted: the packages'
    import roots go first on ``PYTHONPATH``, shadowing the editable installs."""

    def __init__(self, into: Path) -> None:
        shutil.copytree(ROOT, into, ignore=_COPY_IGNORED, symlinks=True)
        self.root = into
        self.paths = [into / source.relative_to(ROOT) for source in table.SOURCES]
        self.work = into / ".sweeps"
        self.locks = {c.path: (into / c.path / "eval.lock").read_bytes() for c in CORPORA}

    @contextlib.contextmanager
    def mutated(self, mutant: Mutant) -> Iterator[None]:
        path = self.root / mutant.path
        original = path.read_bytes()
        self.write(path, mutant.apply(original))
        try:
            yield
        finally:
            self.write(path, original)
            self.pin(self.locks)

    @staticmethod
    def write(path: Path, data: bytes) -> None:
        """Write a module and drop its compiled copy: a mutant of the same size written within
        the same second would otherwise be read from a stale ``.pyc``."""
        path.write_bytes(data)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(cache_from_source(str(path)))

    def sweep(
        self, corpus: Corpus, cases: Sequence[str], timeout: float, options: Sequence[str] = ()
    ) -> table.Outcome:
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir()
        return table.sweep(
            self.paths,
            self.root / corpus.path,
            self.work,
            host=corpus.host,
            suite_all=corpus.suite_all and not cases,
            cases=cases,
            timeout=timeout,
            options=options,
        )

    def env(self) -> dict[str, str]:
        """The tests' environment: the copy first, and caches on (tests check them) but in a
        directory of the copy's own, emptied before each run, so nothing computed from other
        code is read back."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in self.paths)
        env["EVAL_CACHE_DIR"] = str(self.root / ".cache")
        env.pop("EVAL_CACHE", None)
        return env

    def relock(self) -> None:
        """Pin the mutated code in the copy's locks, so a test sweeping a locked Corpus measures
        behaviour, not the lock (a failed lock leaves the old one: the tests then say why)."""
        env = self.env()

        def lock(corpus: Corpus) -> None:
            command = [sys.executable, "-m", "eval_cli", "lock", str(self.root / corpus.path)]
            table.run_group(command, self.root, env, 60.0)

        with ThreadPoolExecutor(len(CORPORA)) as pool:  # three processes, each mostly start-up
            list(pool.map(lock, CORPORA))

    def pinned(self) -> dict[str, bytes]:
        """The copy's locks as they are now (after :meth:`relock`: pinning the mutant)."""
        return {name: (self.root / name / "eval.lock").read_bytes() for name in self.locks}

    def pin(self, locks: dict[str, bytes]) -> None:
        for name, lock in locks.items():
            (self.root / name / "eval.lock").write_bytes(lock)

    def pytest(self, paths: Sequence[str], deselected: set[str], timeout: float) -> TestRun:
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "0",
            "-x",
            "-q",
            "-rfE",
            "-p",
            "no:cacheprovider",
            "-m",
            "not installs and not real_model",
            *paths,
            *(arg for path in UNIT_TESTS_LEFT_OUT for arg in ("--ignore", path)),
            *(arg for test in sorted(deselected) for arg in ("--deselect", test)),
        ]
        shutil.rmtree(self.root / ".cache", ignore_errors=True)
        start = time.perf_counter()
        done = table.run_group(command, self.root, self.env(), timeout)
        seconds = time.perf_counter() - start
        if done is None:
            return TestRun("timeout", (), seconds)
        code, stdout, _stderr = done
        failed = failed_ids(stdout, paths)
        if code == 0:
            return TestRun("passed", (), seconds)
        if code in (1, 2) and failed:  # 2: a test module no longer imports (collection)
            return TestRun("failed", failed, seconds)
        tail = (stdout.strip().splitlines() or ["(no output)"])[-1]
        return TestRun("error", (f"pytest exit {code}: {tail}",), seconds)


def failed_ids(stdout: str, asked: Sequence[str]) -> tuple[str, ...]:
    """The tests pytest's short summary names failed or erred. Only the summary is read: a
    captured log line above it (``ERROR    mcp.client...``, the level padded to eight) also
    starts ``ERROR ``, and read as a failure it named the empty id, which set aside as failing
    unmutated deselected every test of every later run (``--deselect`` matches a prefix)."""
    lines = stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if "short test summary info" in line]
    summary = lines[heads[-1] + 1 :] if heads else lines
    found = (
        failed_id(line.split(" ", 1)[1], asked)
        for line in summary
        if line.startswith(("FAILED ", "ERROR "))
    )
    return tuple(test for test in found if test)


def failed_id(rest: str, asked: Sequence[str]) -> str:
    """The node id a ``FAILED``/``ERROR`` summary line names: a parametrized id may hold
    spaces (``[case3-$-the applies= predicate]``), so the longest id asked that the line
    starts with; else (a file or directory asked) the id up to the bracket that closes its
    parameters before pytest's `` - `` and message, or its first word when it has none."""
    known = [a for a in asked if rest == a or rest.startswith(a + " ")]
    if known:
        return max(known, key=len)
    first = rest.split(" ", 1)[0]
    if "[" not in first:
        return first
    end = rest.find("] - ", first.index("["))
    if end >= 0:
        return rest[: end + 1]
    return rest if rest.endswith("]") else first


@dataclass(frozen=True)
class TestRun:
    """One pytest run: ``passed``, ``failed`` (naming the tests), ``timeout`` or ``error``."""

    state: str
    failed: tuple[str, ...]
    seconds: float


@dataclass
class Result:
    """What became of one mutant."""

    mutant: Mutant
    verdict: str
    """``corpus`` (killed by the Corpus), ``timeout``, ``crashed`` (a Case went ERR, or no
    Scorecard, and none FAIL), ``tests`` (killed by the unit tests only), ``survived``,
    ``unparsable`` (a generator fault: never counted)."""
    diff: tuple[str, str]
    red: dict[str, list[str]] = field(default_factory=dict)
    """Per leg (a Corpus's name: ``corpus on PostgreSQL`` for the PostgreSQL leg), the Cases
    that went FAIL."""
    legs: tuple[str, ...] = ()
    """The legs it was to be swept on, in order (the first FAIL ends the Corpus's part)."""
    errored: dict[str, list[str]] = field(default_factory=dict)
    crashed: str | None = None
    moved: dict[str, str] = field(default_factory=dict)
    tests: str = ""
    """The test that killed it, or how the tests ended."""
    tests_killed: bool = False
    covering: int | None = None
    """With ``--tests covering``: how many tests ran the mutated line."""
    equivalent: str = ""
    """Why the triage file says this mutant is equivalent (then ``verdict`` is
    ``equivalent``)."""
    seconds: float = 0.0


class Bench:
    """The copies, the unmutated baselines, the tests known to fail unmutated, and the
    PostgreSQL cluster of the PostgreSQL leg (``None``: the leg is not swept)."""

    def __init__(
        self,
        scratch: Path,
        jobs: int,
        cases: Sequence[str],
        args: argparse.Namespace,
        postgres: ThrowawayCluster | None = None,
    ):
        self.copies: queue.Queue[Copy] = queue.Queue()
        for i in range(max(1, jobs)):
            self.copies.put(Copy(scratch / f"copy-{i}"))
        self.cases = cases
        self.sweep_timeout: float = args.timeout
        self.tests_timeout: float = args.tests_timeout
        self.test_paths: tuple[str, ...] = () if args.no_tests else TEST_SETS[args.tests]
        self.map: covering.CoveringMap | None = None
        self.unseen = equivalents.caught_by()
        """Tests the triage file says catch a mutant the map sees no test run."""
        self.baselines: dict[Corpus, table.Outcome] = {}
        self.broken_tests: set[str] = set()
        self.lock = threading.Lock()
        self.postgres = postgres
        self.durable: tuple[str, ...] = ()
        """The shipped Corpus's durable (L3) Cases: what the PostgreSQL leg sweeps."""
        self.postgres_timeout = self.sweep_timeout * POSTGRES_TIMEOUT_FACTOR
        """The PostgreSQL leg's limit: its baseline's, then set from what the baseline took."""

    def legs(self, mutant: Mutant) -> tuple[Corpus, ...]:
        """The legs ``mutant`` is swept on: without a cluster, never the PostgreSQL leg."""
        return tuple(c for c in legs_of(mutant) if self.postgres is not None or not c.postgresql)

    def sweep(self, copy: Copy, corpus: Corpus) -> table.Outcome:
        """One Sweep of one leg in ``copy``: the PostgreSQL leg on a database of its own."""
        if not corpus.postgresql:
            return copy.sweep(corpus, self.cases, self.sweep_timeout)
        assert self.postgres is not None
        with self.postgres.scratch() as url:
            return copy.sweep(
                corpus, self.cases or self.durable, self.postgres_timeout, (f"store={url}",)
            )

    @contextlib.contextmanager
    def copy(self) -> Iterator[Copy]:
        copy = self.copies.get()
        try:
            yield copy
        finally:
            self.copies.put(copy)

    def covering_map(self) -> None:
        """Load or build the map of which test runs which line, in an unmutated copy."""
        if "covering" not in self.test_paths:
            return
        with self.copy() as copy:
            sources = [t.root for t in TARGETS]
            self.map, cached = covering.load_or_build(
                copy.root,
                lambda: covering.build(
                    copy.root, copy.env(), sources, MAPPED_TESTS, UNIT_TESTS_LEFT_OUT, MAP_TIMEOUT
                ),
            )
            shutil.rmtree(copy.root / ".cache", ignore_errors=True)
        source = "read from the bench's cache" if cached else "built"
        print(
            f"covering map {source}: {self.map.tests} tests over "
            f"{sum(len(b) for b in self.map.lines.values())} lines of {len(self.map.lines)} "
            f"files; building it took {self.map.seconds:.0f} s",
            flush=True,
        )

    def baseline(self, corpora: Sequence[Corpus]) -> None:
        """Sweep each leg unmutated: what a mutant is compared with. The PostgreSQL leg's
        durable Cases are read from the copy's Corpus first."""
        with self.copy() as copy:
            for corpus in corpora:
                if corpus.postgresql and not self.cases:
                    self.durable = durable_cases(copy.root / corpus.path)
                outcome = self.sweep(copy, corpus)
                if outcome.crashed is not None:
                    raise SystemExit(f"{corpus.name} does not sweep unmutated: {outcome.crashed}")
                self.baselines[corpus] = outcome
                if corpus.postgresql:
                    self.postgres_timeout = max(
                        self.sweep_timeout, POSTGRES_TIMEOUT_FACTOR * outcome.seconds
                    )
                    green = outcome.with_verdict("PASS")
                    others = sorted(set(outcome.verdicts) - green)
                    print(
                        f"PostgreSQL leg: {len(green)} of {len(outcome.verdicts)} durable Cases "
                        f"green unmutated on a throwaway cluster ({outcome.seconds:.0f} s)"
                        + (f"; not green, never counted: {', '.join(others)}" if others else ""),
                        flush=True,
                    )

    def check_shadowing(self) -> None:
        """A syntax error in the copy must stop the Sweep: else the copy is not what runs."""
        path = "packages/agent-runtime/src/agent_runtime/guards/guardrails.py"
        broken = Mutant(
            "agent_runtime/guards/guardrails.py",
            path,
            1,
            0,
            "syntax-error",
            0,
            0,
            0,
            b"",
            b"def (:\n",
            "runtime",
        )
        with self.copy() as copy, copy.mutated(broken):
            outcome = self.sweep(copy, SHIPPED)
        if outcome.crashed is None:
            raise SystemExit("the copy on PYTHONPATH does not shadow the installed runtime")

    def run(self, mutant: Mutant) -> Result:
        started = time.perf_counter()
        with self.copy() as copy:
            original = (copy.root / mutant.path).read_bytes()
            result = Result(mutant, "survived", mutant.diff(original))
            result.legs = tuple(c.name for c in self.legs(mutant))
            try:
                ast.parse(mutant.apply(original))
            except SyntaxError as error:
                result.verdict, result.crashed = "unparsable", str(error)
                return result
            with copy.mutated(mutant):
                self.corpus(copy, mutant, result)
                if result.verdict in ("survived", "crashed") and self.test_paths:
                    self.tests(copy, mutant, result, original)
        result.seconds = time.perf_counter() - started
        return result

    def corpus(self, copy: Copy, mutant: Mutant, result: Result) -> None:
        """Sweep the legs that exercise the mutant's code, until one kills it."""
        for corpus in self.legs(mutant):
            outcome = self.sweep(copy, corpus)
            if outcome.timed_out:
                result.verdict, result.crashed = "timeout", f"{corpus.name}: {outcome.crashed}"
                return
            if outcome.crashed is not None:
                result.verdict = "crashed"
                result.crashed = result.crashed or f"{corpus.name}: {outcome.crashed}"
                continue
            row = table.Row(
                table.Mutation("", mutant.path, "", "", ""), outcome, self.baselines[corpus]
            )
            if row.red:
                result.red[corpus.name] = sorted(row.red)
                result.verdict = "corpus"
                return
            if row.errored:
                result.errored[corpus.name] = sorted(row.errored)
                result.verdict = "crashed"
            result.moved.update(row.moved)

    def tests(self, copy: Copy, mutant: Mutant, result: Result, original: bytes) -> None:
        """The tests that ran the mutated line (``covering``), or the package's tests then
        ``tests/``, on the mutated copy: a failing test that also fails unmutated is set aside,
        and the run repeated without it. A line no test ran is caught by nothing, unrun."""
        own = target_of(mutant).tests
        runs: list[list[str]] = []
        for p in self.test_paths:
            if p == "covering":
                assert self.map is not None
                chosen = self.map.covering(mutant.path, mutant.line, mutant.last_line)
                result.covering = len(chosen)
                if not chosen:
                    chosen = self.unseen.get((mutant.module, *result.diff), [])
                if not chosen:
                    result.tests = "no test runs this line"
                    return
                runs.append(chosen)
            else:
                runs.append([own if p == "package" else p])
        copy.relock()
        for paths in runs:
            for _attempt in range(4):
                with self.lock:
                    deselected = set(self.broken_tests)
                selected = [p for p in paths if p not in deselected]
                if not selected:  # every covering test fails unmutated: nothing decides
                    run = TestRun("passed", (), 0.0)
                    break
                budget = self.tests_timeout
                if covering_run := (result.covering is not None):
                    assert self.map is not None
                    usual = sum(self.map.durations.get(t, 0.0) for t in selected)
                    budget = min(budget, max(HUNG_FLOOR, HUNG_FACTOR * usual))
                run = copy.pytest(selected, deselected, budget)
                if run.state == "timeout" and covering_run and budget < self.tests_timeout:
                    # tests that take seconds unmutated and outlive many times that: a hang
                    if result.verdict == "survived":
                        result.verdict = "tests"
                    result.tests_killed = True
                    result.tests = (
                        f"hung: {len(selected)} covering test(s) outlived {budget:.0f} s "
                        f"({usual:.0f} s under coverage unmutated)"
                    )
                    return
                if run.state != "failed":
                    break
                if not self.fails_unmutated(copy, mutant, original, run.failed, deselected):
                    if result.verdict == "survived":
                        result.verdict = "tests"
                    result.tests, result.tests_killed = run.failed[0], True
                    return
            if run.state == "timeout":
                # undecided, not a kill: an unmutated run of tests/ is minutes long itself
                result.tests = f"{paths[0]} cut at {self.tests_timeout:.0f} s"
                return
            if run.state == "error":
                result.tests = run.failed[0]
            if run.state == "failed":  # every retry stopped at a test that fails unmutated too
                result.tests = f"undecided: {run.failed[0]} and others fail unmutated too"
                return
        if not result.tests:
            result.tests = (
                "all passed"
                if result.covering is None
                else (f"the {result.covering} covering tests passed")
            )

    def fails_unmutated(
        self,
        copy: Copy,
        mutant: Mutant,
        original: bytes,
        failed: Sequence[str],
        deselected: set[str],
    ) -> bool:
        """Whether the tests that failed fail on the unmutated copy too (then set them aside)."""
        path = copy.root / mutant.path
        mutated, mutated_locks = path.read_bytes(), copy.pinned()
        Copy.write(path, original)
        copy.pin(copy.locks)
        try:
            again = copy.pytest(list(failed), deselected, self.tests_timeout)
        finally:
            Copy.write(path, mutated)
            copy.pin(mutated_locks)  # the same code as before: its locks again, not re-made
        if again.state == "passed":
            return False
        with self.lock:
            self.broken_tests.update(failed)
        return True


# -- the report -------------------------------------------------------------------------------


COLUMNS = (
    ("corpus", "Corpus FAIL"),
    ("crashed", "crashed"),
    ("timeout", "timeout"),
    ("tests", "tests only"),
    ("equivalent", "equivalent"),
    ("survived", "survived"),
)
CORPUS_AREAS = ("runtime", "Host adapters", "examples")
"""The headline the Corpus alone answers for: the runtime, the Host adapters, the examples."""
HARNESS_AREAS = ("harness core", "model wires")
"""The headline the Corpus and the unit tests answer for together: every mutant caught."""


def caught(result: Result) -> bool:
    """Killed by the Corpus (a Case FAIL), by a timeout, or by a unit test."""
    return result.verdict in ("corpus", "timeout") or result.tests_killed


def detected(result: Result) -> bool:
    """The Sweep did not come back green: a Case FAIL, a timeout, or a crash (a Case ERR, no
    Scorecard). Looser than the headline, which counts a FAIL alone: a crash is noticed, but
    says nothing a Case asked."""
    return result.verdict in ("corpus", "timeout", "crashed")


def report(results: Sequence[Result], seconds: float, seed: int, pool: Counter[str]) -> None:
    print(
        f"\nseed {seed}: {len(results)} mutants of {sum(pool.values())} "
        f"({', '.join(f'{a} {pool[a]}' for a in AREAS if pool[a])})"
    )
    print(
        f"\n{'area':<14} {'sampled':>7} "
        + " ".join(f"{t:>11}" for _, t in COLUMNS)
        + f" {'Corpus kill':>11} {'detected':>8} {'caught':>7}"
    )
    for area in (*AREAS, "all"):
        rows = [r for r in results if area in ("all", r.mutant.area) and r.verdict != "unparsable"]
        if not rows:
            continue
        counts = Counter(r.verdict for r in rows)
        crashed_tests = sum(1 for r in rows if r.verdict == "crashed" and r.tests_killed)
        counted = len(rows) - counts["equivalent"]
        cells = [
            f"{counts[v]} ({crashed_tests} tests)"
            if v == "crashed" and crashed_tests
            else str(counts[v])
            for v, _ in COLUMNS
        ]
        print(
            f"{area:<14} {len(rows):>7} "
            + " ".join(f"{c:>11}" for c in cells)
            + f" {ratio(counts['corpus'], counted):>11} "
            + f"{ratio(sum(1 for r in rows if detected(r)), counted):>8} "
            + f"{ratio(sum(1 for r in rows if caught(r)), counted):>7}"
        )
    print(
        "Corpus FAIL: a Case green unmutated went FAIL; crashed: a Case ERR or the Sweep exited "
        "without a Scorecard (a refusal, a traceback), none FAIL ('(n tests)': n of them then "
        "caught by a unit test); timeout: the Sweep outlived its limit; tests only: a unit test "
        "failed that passes unmutated; equivalent: said so in bench/mutants_triage.md; "
        "survived: caught by nothing. Corpus kill (the headline: a Case FAIL), detected (a "
        "Case FAIL, a timeout or a crash: the Sweep did not come back green) and caught (by the "
        "Corpus or a unit test) are of the non-equivalent."
    )
    by_leg = Counter(leg for r in results if r.verdict == "corpus" for leg in r.red)
    if by_leg:
        print("Corpus FAIL by leg: " + ", ".join(f"{leg} {n}" for leg, n in by_leg.items()))
    headlines(results)
    sections = (
        ("survivors (caught by nothing)", "survived"),
        ("killed by the unit tests only", "tests"),
        ("crashed (a Case ERR or no Scorecard; no Case FAIL)", "crashed"),
        ("killed by timeout", "timeout"),
        ("equivalent (bench/mutants_triage.md)", "equivalent"),
        ("not parsable (a generator fault)", "unparsable"),
    )
    for title, verdict in sections:
        rows = [r for r in results if r.verdict == verdict]
        if not rows:
            continue
        print(f"\n{title}:")
        for r in rows:
            print(f"  {r.mutant.id}  {r.mutant.path}:{r.mutant.line}")
            print(f"      - {r.diff[0]}\n      + {r.diff[1]}")
            notes = []
            if r.equivalent:
                notes.append(f"equivalent: {r.equivalent}")
            if r.crashed:
                notes.append(r.crashed)
            for corpus, cases in r.errored.items():
                notes.append(f"ERR in {corpus}: {table.shown(set(cases), 3)}")
            for moved in sorted(set(r.moved.values())):
                went = {c for c, v in r.moved.items() if v == moved}
                notes.append(f"{moved}: {table.shown(went, 2)}")
            if r.tests:
                notes.append(f"tests: {r.tests}")
            for note in notes:
                print(f"      [{note}]")
    per_operator: dict[str, Counter[str]] = {}
    for r in results:
        per_operator.setdefault(r.mutant.operator, Counter())[r.verdict] += 1
    print(
        "\nper operator: "
        + "; ".join(
            f"{op} {sum(c.values())} ({c['corpus']} by the Corpus)"
            for op, c in sorted(per_operator.items())
        )
    )
    times = sorted(r.seconds for r in results)
    if times:
        print(
            f"\nwall time {seconds:.0f} s; per mutant median {times[len(times) // 2]:.1f} s, "
            f"longest {times[-1]:.1f} s"
        )


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def headlines(results: Sequence[Result]) -> None:
    """The two figures issue 44 asks for, each of the non-equivalent mutants."""
    measured = [r for r in results if r.verdict not in ("unparsable", "equivalent")]
    side = [r for r in measured if r.mutant.area in CORPUS_AREAS]
    killed = sum(1 for r in side if r.verdict == "corpus")
    print(
        f"\nheadline 1, the runtime, the Host adapters and the examples killed by the Corpus "
        f"alone: {killed} of {len(side)} ({ratio(killed, len(side))}; the bar: 90%)"
    )
    seen = sum(1 for r in side if detected(r))
    print(
        f"  (detected, a Case FAIL, a crash or a timeout: {seen} of {len(side)} "
        f"({ratio(seen, len(side))}); not the headline)"
    )
    ran = [r for r in side if r.verdict != "crashed"]
    print(  # Stryker's mutation score leaves out a mutant whose code cannot run at all
        f"  (of the mutants whose Sweep ran, crashes left out as Stryker's score leaves out its "
        f"runtime errors: {killed} of {len(ran)} ({ratio(killed, len(ran))}); not the headline)"
    )
    harness = [r for r in measured if r.mutant.area in HARNESS_AREAS]
    held = sum(1 for r in harness if caught(r))
    print(
        f"headline 2, the harness core and the model wires caught by the Corpus or the unit "
        f"tests: {held} of {len(harness)} ({ratio(held, len(harness))}; the bar: every one)"
    )


def as_json(results: Sequence[Result], seed: int, seconds: float) -> dict[str, object]:
    return {
        "seed": seed,
        "seconds": round(seconds, 1),
        "mutants": [
            {
                "id": r.mutant.id,
                "file": f"{r.mutant.path}:{r.mutant.line}",
                "area": r.mutant.area,
                "operator": r.mutant.operator,
                "verdict": r.verdict,
                "before": r.diff[0],
                "after": r.diff[1],
                "legs": list(r.legs),
                "killedOn": next(iter(r.red), None),
                "red": r.red,
                "errored": r.errored,
                "crashed": r.crashed,
                "moved": r.moved,
                "tests": r.tests,
                "testsKilled": r.tests_killed,
                "covering": r.covering,
                "equivalent": r.equivalent,
                "seconds": round(r.seconds, 1),
            }
            for r in results
        ],
    }


# -- coverage ---------------------------------------------------------------------------------


def coverage_of_runtime() -> None:
    """The Corpus's branch coverage of the runtime per module: ``coverage run --branch`` over
    ``eval sweep corpus --suite all``, its subprocesses measured too."""
    source = ROOT / "packages" / "agent-runtime" / "src" / "agent_runtime"
    with tempfile.TemporaryDirectory(prefix="mutants-coverage-") as scratch:
        work = Path(scratch)
        rc = work / "coveragerc"
        rc.write_text(
            f"[run]\nbranch = True\nparallel = True\nsource = {source}\n"
            f"data_file = {work / '.coverage'}\n"
        )
        env = dict(os.environ, COVERAGE_PROCESS_START=str(rc), EVAL_CACHE="off")
        env.pop("PYTHONPATH", None)
        command = [
            sys.executable,
            "-m",
            "coverage",
            "run",
            f"--rcfile={rc}",
            "-m",
            "eval_cli",
            "sweep",
            str(ROOT / "corpus"),
            "--suite",
            "all",
            "--format",
            "json",
            "--unlocked",
            "--quiet",
        ]
        done = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            print(f"\ncoverage: the Sweep did not clear (exit {done.returncode}): {tail}")
        coverage = [sys.executable, "-m", "coverage"]
        subprocess.run(
            [*coverage, "combine", f"--rcfile={rc}", "-q"], cwd=work, env=env, check=True
        )
        out = work / "coverage.json"
        subprocess.run(
            [*coverage, "json", f"--rcfile={rc}", "-q", "-o", str(out)],
            cwd=work,
            env=env,
            check=True,
        )
        data = json.loads(out.read_text())
    print("\nthe Corpus's branch coverage of the runtime (eval sweep corpus --suite all):")
    print(
        f"  {'module':<34} {'lines':>6} {'missed':>6} {'branches':>8} {'partial':>7} {'cover':>6}"
    )
    below = []
    for name, entry in sorted(data["files"].items()):
        s = entry["summary"]
        module = Path(name).relative_to(source).as_posix()
        cover = s["percent_covered"]
        if cover < 85:
            below.append(module)
        print(
            f"  {module:<34} {s['num_statements']:>6} {s['missing_lines']:>6} "
            f"{s['num_branches']:>8} {s['num_partial_branches']:>7} {cover:>5.0f}%"
        )
    total = data["totals"]
    print(
        f"  {'total':<34} {total['num_statements']:>6} {total['missing_lines']:>6} "
        f"{total['num_branches']:>8} {total['num_partial_branches']:>7} "
        f"{total['percent_covered']:>5.0f}%"
    )
    print(f"  below 85%: {len(below)} of {len(data['files'])} modules")


# -- the command ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, *, postgres: ThrowawayCluster | None = None) -> int:
    """The command; ``postgres``: a running cluster for the PostgreSQL leg (the tests' own),
    else the bench starts one when a sampled mutant needs it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=30, metavar="N", help="Mutants drawn.")
    parser.add_argument("--seed", type=int, help="The sample's seed (default: a new one).")
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="Mutants at once.")
    parser.add_argument(
        "--area",
        action="append",
        default=[],
        choices=AREAS,
        help="Draw only from this area (repeatable).",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="Run this mutant, not a sample (repeatable).",
    )
    parser.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="Sweep only this Case of each Corpus (repeatable; no red team).",
    )
    parser.add_argument("--no-tests", action="store_true", help="The Corpus alone, no tests.")
    parser.add_argument(
        "--tests",
        choices=sorted(TEST_SETS),
        default="covering",
        help="For the Corpus's survivors: the tests that ran the mutated line (the default), "
        "the mutated package's tests, or those and tests/.",
    )
    parser.add_argument("--timeout", type=float, default=SWEEP_TIMEOUT, help="Per Sweep (s).")
    parser.add_argument(
        "--tests-timeout", type=float, default=TESTS_TIMEOUT, help="Per pytest run (s)."
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="Also write the results here.")
    parser.add_argument("--list", action="store_true", help="Count the mutants and stop.")
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="Also print the Corpus's branch coverage of the runtime.",
    )
    args = parser.parse_args(argv)
    skipped: Counter[str] = Counter()
    # --only parses just the modules its ids name (an id starts with its module's path)
    asked = {i.split(":", 1)[0] for i in args.only or ()}
    pool = generate(areas=args.area, skipped=skipped, modules=asked)
    by_area = Counter(m.area for m in pool)
    if args.list:
        for area in AREAS:
            print(f"{area:<14} {by_area[area]}")
        print(f"{'all':<14} {len(pool)}")
        print(Counter(m.operator for m in pool))
        left_out(skipped, why=True)
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if args.only:
        known = {m.id: m for m in pool}
        if unknown := sorted(set(args.only) - set(known)):
            parser.error(f"unknown mutant id(s): {unknown}")
        chosen = [known[i] for i in args.only]
    else:
        chosen = draw(pool, args.sample, seed)
    if chosen:  # --sample 0 --coverage: the coverage alone
        print(f"seed {seed}  (repeat with --seed {seed})", flush=True)
        left_out(skipped, why=False)
        results, seconds = run(chosen, args, postgres)
        triage(results)
        report(results, seconds, seed, by_area)
        if args.json is not None:
            args.json.write_text(json.dumps(as_json(results, seed, seconds), indent=2) + "\n")
    if args.coverage:
        coverage_of_runtime()
    return 0


def left_out(skipped: Counter[str], why: bool) -> None:
    """What the generator's rules kept out of the pool, by rule: never drawn, never counted."""
    print("left out by construction (equivalent, or a TypeError wherever it runs):")
    for rule, reason in SKIPPED.items():
        print(f"  {rule:<22} {skipped[rule]:>5}" + (f"  ({reason})" if why else ""))


def triage(results: Sequence[Result]) -> None:
    """Mark the survivors ``bench/mutants_triage.md`` says are equivalent; say so when it
    calls equivalent a mutant something caught (the entry is wrong)."""
    said = equivalents.read()
    for module, before, _ in equivalents.unreasoned():
        print(f"triage file: {module} `{before}` has no 'Equivalent:' line: not counted")
    for r in results:
        why = said.get((r.mutant.module, *r.diff))
        if why is None:
            continue
        if r.verdict == "survived":
            r.verdict, r.equivalent = "equivalent", why
        else:
            print(f"triaged equivalent but {r.verdict}: {r.mutant.id} ({r.diff[0]})")


def postgres_leg(
    chosen: Sequence[Mutant], given: ThrowawayCluster | None, stack: contextlib.ExitStack
) -> ThrowawayCluster | None:
    """The cluster of the PostgreSQL leg: ``given``, or one started for this run (stopped when
    ``stack`` closes) when a chosen mutant needs the leg; without PostgreSQL's server binaries
    the leg is skipped, saying so in one line. A cluster that fails to start stops the run."""
    if not any(SHIPPED_ON_POSTGRESQL in legs_of(m) for m in chosen) or given is not None:
        return given
    try:
        cluster = ThrowawayCluster()
    except ServerMissingError as missing:
        print(f"PostgreSQL leg skipped: {missing}", flush=True)
        return None
    try:
        return stack.enter_context(cluster)
    except RuntimeError as failed:
        raise SystemExit(f"PostgreSQL leg: the throwaway cluster did not start: {failed}") from None


def run(
    chosen: Sequence[Mutant], args: argparse.Namespace, postgres: ThrowawayCluster | None = None
) -> tuple[list[Result], float]:
    """Apply and measure each mutant, ``args.jobs`` at once; progress on stderr."""
    started = time.perf_counter()
    if changed := table.dirty():
        print(f"uncommitted source files measured as they are: {len(changed)}")
    with contextlib.ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="mutants-"))
        cluster = postgres_leg(chosen, postgres, stack)
        bench = Bench(Path(scratch), args.jobs, args.case, args, cluster)
        needed = [c for c in LEGS if any(c in bench.legs(m) for m in chosen)]
        bench.covering_map()
        bench.baseline(needed)
        bench.check_shadowing()
        done = 0

        def one(mutant: Mutant) -> Result:
            nonlocal done
            result = bench.run(mutant)
            with bench.lock:
                done += 1
                print(
                    f"[{done}/{len(chosen)}] {result.verdict:<9} {result.seconds:5.1f} s  "
                    f"{mutant.id}",
                    file=sys.stderr,
                    flush=True,
                )
            return result

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(one, chosen))
    if bench.broken_tests:
        print(f"tests failing unmutated (set aside): {', '.join(sorted(bench.broken_tests))}")
    return results, time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
