"""The mechanical mutants bench draws what its seed says, writes only source that parses, leaves
a file byte-identical once a mutant is reverted, and reports a mutant the Corpus catches as
killed.

The sample itself is ``bench/mutants.py`` (minutes to an hour); this checks its generator and
its mechanism in seconds, on one real mutant of the runtime and one Case.
"""

from __future__ import annotations

import ast
import json
import os
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bench_scripts import bench_script
from tests.conftest import ROOT

OPERATORS = {
    "compare",
    "boolean",
    "not-removed",
    "not-added",
    "constant",
    "return",
    "call",
    "if-body",
    "statement",
    "arguments",
}


def bench() -> ModuleType:
    """``bench/mutants.py`` (a script, not a package), loaded as a module."""
    return bench_script("mutants")


@pytest.fixture(scope="module")
def pool() -> list[Any]:
    return bench().generate()


@cache
def source(path: str) -> bytes:
    return (ROOT / path).read_bytes()


def test_a_seed_draws_the_same_sample_and_another_seed_another(pool: list[Any]) -> None:
    draw = bench().draw
    first = [m.id for m in draw(pool, 40, 20261206)]
    assert first == [m.id for m in draw(pool, 40, 20261206)]
    assert first != [m.id for m in draw(pool, 40, 20261207)]
    assert len(first) == 40
    assert len({m.id for m in pool}) == len(pool), "mutant ids are not unique"


def test_every_operator_and_area_has_mutants(pool: list[Any]) -> None:
    assert {m.operator for m in pool} == OPERATORS
    assert {m.area for m in pool} == set(bench().AREAS)


def test_every_operator_writes_source_that_parses(pool: list[Any]) -> None:
    draw = bench().draw
    for operator in sorted(OPERATORS):
        for mutant in draw([m for m in pool if m.operator == operator], 15, 5):
            ast.parse(mutant.apply(source(mutant.path)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutant_parses_and_changes_only_its_span(pool: list[Any], data: st.DataObject) -> None:
    mutant = data.draw(st.sampled_from(pool))
    before = source(mutant.path)
    after = mutant.apply(before)
    ast.parse(after)
    assert after != before
    assert after[: mutant.start] == before[: mutant.start]
    assert after[mutant.start + len(mutant.new) :] == before[mutant.end :]


MODULE = b'''"""A module's docstring."""
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

Mode = Literal["strict", "lenient"]


def check(items: "Sequence[int]", limit: int = 8) -> bool:
    """A function's docstring."""
    log.info("checking %d items", len(items))
    if limit == 2 and not items:
        return limit < 3
    return total(items, limit)


class Shown:
    def __repr__(self) -> str:
        return "Shown" if True else "hidden"
'''


def test_what_is_not_behaviour_is_never_mutated() -> None:
    """Docstrings, annotations (a ``Literal`` alias too), a logging call, ``__repr__`` and ``if
    TYPE_CHECKING`` yield no mutant; the code around them yields each operator's mutant."""
    found = bench().mutants_of(MODULE, "example.py", "example.py", "runtime")
    changes = {(m.operator, m.old.decode(), m.new.decode()) for m in found}
    assert changes == {
        ("constant", "8", "9"),
        ("if-body", "return limit < 3", "pass"),
        ("not-added", "limit == 2 and not items", "not (limit == 2 and not items)"),
        ("compare", "==", "!="),
        ("constant", "2", "3"),
        ("boolean", "and", "or"),
        ("not-removed", "not items", "(items)"),
        ("return", "limit < 3", "True"),
        ("return", "limit < 3", "False"),
        ("compare", "<", "<="),
        ("constant", "3", "4"),
        ("return", "total(items, limit)", "None"),
        ("arguments", "items, limit", "limit, items"),
    }
    assert len({m.id for m in found}) == len(found)


def test_a_mutant_applied_then_reverted_leaves_the_file_byte_identical(
    tmp_path: Path, pool: list[Any]
) -> None:
    mutants = bench()
    copy = mutants.Copy(tmp_path / "copy")
    mutant = next(m for m in pool if m.module == "agent_runtime/turn/loop.py")
    path = copy.root / mutant.path
    original = path.read_bytes()
    with copy.mutated(mutant):
        assert path.read_bytes() == mutant.apply(original) != original
        (copy.root / "corpus" / "eval.lock").write_text("relocked")
    assert path.read_bytes() == original
    assert (copy.root / "corpus" / "eval.lock").read_bytes() == (
        ROOT / "corpus" / "eval.lock"
    ).read_bytes()
    with pytest.raises(ValueError, match="no longer holds"):
        mutant.apply(b"#" + original)


def test_mutants_the_corpus_catches_are_reported_killed_naming_the_leg_that_killed_them(
    tmp_path: Path, pool: list[Any], postgres_cluster: Any
) -> None:
    """Two real mutants in one run (one copy, one baseline per leg):

    - the loop stops one model call short of ``max_iterations``: the Case that stops at the
      limit goes FAIL on the mutated copy, so the bench reports the mutant killed by the Corpus;
    - a PostgreSQL connection opened to the URL's own database, never to the clone it names:
      every Trial's store is then one database, shared. SQLite never runs that code, so the
      SQLite leg passes; on the PostgreSQL leg (the session's cluster) the second durable Trial
      finds the first one's Run beside its own and goes FAIL: killed there, and said so.

    Each PostgreSQL Sweep's role and databases are gone after it."""
    limit = next(
        m
        for m in pool
        if m.module == "agent_runtime/turn/loop.py"
        and m.operator == "constant"
        and b"range(first, limits.max_iterations + 1)" in source(m.path)[m.start - 40 : m.end + 1]
    )
    shared = next(
        m
        for m in pool
        if m.module == "agent_runtime/store/postgres.py"
        and m.operator == "if-body"
        and m.old == b"conninfo = make_conninfo(conninfo, dbname=database)"
    )
    out = tmp_path / "result.json"
    case = "records-readonly-stops-at-max-iterations"
    first = "l3-approval-parks-the-run-and-the-comment-posts-once"
    second = "l3-native-routine-an-admitted-event-is-never-claimed-again"
    argv = ["--only", limit.id, "--only", shared.id, "--no-tests", "--jobs", "1"]
    argv += ["--case", case, "--case", first, "--case", second, "--json", str(out)]
    assert bench().main(argv, postgres=postgres_cluster) == 0
    measured = {m["id"]: m for m in json.loads(out.read_text())["mutants"]}
    assert measured[limit.id]["verdict"] == "corpus", measured[limit.id]
    assert measured[limit.id]["red"] == {"corpus": [case]}
    assert measured[limit.id]["legs"] == ["corpus"]
    assert measured[shared.id]["legs"] == ["corpus", "corpus on PostgreSQL"]
    assert measured[shared.id]["verdict"] == "corpus", measured[shared.id]
    assert measured[shared.id]["killedOn"] == "corpus on PostgreSQL"
    assert measured[shared.id]["red"] == {"corpus on PostgreSQL": [second]}
    assert not [d for d in postgres_cluster.databases() if d.startswith(("sweep_", "eval_"))]


def test_without_postgresql_the_leg_is_skipped_in_one_printed_line(
    pool: list[Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A machine without the server binaries: a store mutant is swept on SQLite alone, and
    the run says so once; a mutant elsewhere needs no cluster and says nothing."""
    import contextlib

    import tests.postgres_cluster

    monkeypatch.setattr(tests.postgres_cluster, "server_bin", lambda: None)
    store = next(m for m in pool if m.module == "agent_runtime/store/postgres.py")
    loop = next(m for m in pool if m.module == "agent_runtime/turn/loop.py")
    assert bench().legs_of(store)[-1].postgresql and not bench().legs_of(loop)[-1].postgresql
    with contextlib.ExitStack() as stack:
        assert bench().postgres_leg([loop], None, stack) is None
        assert capsys.readouterr().out == ""
        assert bench().postgres_leg([loop, store], None, stack) is None
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("PostgreSQL leg skipped: no PostgreSQL server binaries")


def covering_module() -> ModuleType:
    bench()  # puts bench/ on sys.path
    import covering

    return covering


def test_the_covering_map_names_the_test_that_ran_a_line_in_its_process_or_in_a_child(
    tmp_path: Path,
) -> None:
    """Built over a project of two tests under xdist: a line run in the test's own process and a
    line run by a child Python the test started are each labelled with that test alone."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pyproject.toml").write_text(  # langsmith's plug-in: 0.7 s a process, unused
        '[tool.pytest.ini_options]\naddopts = ["-n", "2", "-p", "no:langsmith_plugin"]\n'
    )
    (project / "src" / "shapes.py").write_text(
        "SIDES = 4\n\n\ndef area(side):\n    return side * side\n\n\n"
        "def perimeter(side):\n    return SIDES * side\n"
    )
    (project / "tests" / "test_shapes.py").write_text(
        "import subprocess, sys\n\nimport shapes\n\n\n"
        "def test_area():\n    assert shapes.area(3) == 9\n\n\n"
        "def test_perimeter_in_a_child():\n"
        "    code = 'import shapes; assert shapes.perimeter(2) == 8'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n\n\n"
        "def test_nothing():\n    assert True\n"
    )
    env = dict(os.environ, PYTHONPATH=str(project / "src"))
    built = covering_module().build(project, env, ["src"], ["tests"], [], 120.0)
    lines = built.lines["src/shapes.py"]
    assert lines[5] == ["tests/test_shapes.py::test_area"]
    assert lines[9] == ["tests/test_shapes.py::test_perimeter_in_a_child"]
    assert set(built.durations) == {
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_perimeter_in_a_child",
        "tests/test_shapes.py::test_nothing",
    }


def test_a_line_run_only_at_import_stands_for_its_module_and_one_never_run_for_nothing() -> None:
    covering = covering_module()
    durations = {"t::slow": 3.0, "t::quick": 0.1}
    built = covering.CoveringMap(
        {"m.py": {1: [], 4: ["t::slow"], 5: ["t::quick"]}}, durations, 0, 2
    )
    assert built.covering("m.py", 4, 5) == ["t::quick", "t::slow"], "quickest first"
    assert built.covering("m.py", 1, 1) == ["t::quick", "t::slow"]
    assert built.covering("m.py", 2, 3) == []
    assert built.covering("other.py", 1, 9) == []
    assert covering.CoveringMap.from_json(json.loads(json.dumps(built.as_json()))) == built


def test_the_triage_file_keys_an_equivalent_by_module_and_line_never_by_line_number(
    tmp_path: Path,
) -> None:
    bench()
    import equivalents

    triage = tmp_path / "triage.md"
    triage.write_text(
        "# Triage\n\n## Equivalent\n\n### `eval_core/example.py`\n\n"
        "    - if   limit > 0:\n    + if limit >= 0:\n\n"
        "Equivalent: `limit` is never 0 here:\nthe caller refuses it first.\n\n"
        "    - return x\n    + return None\n\nA gap, not an equivalent: no reason is read.\n\n"
        "## Gaps closed\n"
    )
    assert equivalents.read(triage) == {
        ("eval_core/example.py", "if limit > 0:", "if limit >= 0:"): (
            "`limit` is never 0 here: the caller refuses it first."
        )
    }
    assert all(len(key) == 3 for key in equivalents.read())  # the shipped file parses
    triage.write_text(
        "### `eval_core/example.py`\n\n    - return False\n    + return True\n\n"
        "Caught by: `tests/test_a.py::test_b` (a child the map cannot see)\n"
    )
    assert equivalents.caught_by(triage) == {
        ("eval_core/example.py", "return False", "return True"): ["tests/test_a.py::test_b"]
    }
    assert equivalents.read(triage) == {}


def test_every_pair_the_triage_file_keys_has_its_reason_spelt_as_the_bench_reads_it(
    tmp_path: Path,
) -> None:
    bench()
    import equivalents

    assert equivalents.unreasoned() == []  # the shipped file
    triage = tmp_path / "triage.md"
    triage.write_text(
        "### `eval_core/example.py`\n\n    - if limit > 0:\n    + if limit >= 0:\n\n"
        "Equivalent at run time: `limit` is never 0 here.\n"
    )
    assert equivalents.unreasoned(triage) == [
        ("eval_core/example.py", "if limit > 0:", "if limit >= 0:")
    ]


def test_only_the_tests_that_ran_a_mutated_line_run_and_a_line_none_ran_is_caught_by_nothing(
    tmp_path: Path, pool: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a covering map in the bench's cache for this tree (a map of two lines, made here),
    the loop's limit mutant is caught by the one test the map names for its line, and a mutant
    on a line the map says no test runs is caught by nothing, with no test run."""
    covering = covering_module()
    limit = next(
        m
        for m in pool
        if m.module == "agent_runtime/turn/loop.py"
        and m.operator == "constant"
        and b"range(first, limits.max_iterations + 1)" in source(m.path)[m.start - 40 : m.end + 1]
    )
    unrun = next(  # the reason a Turn stopped at the limit, emptied: that Case never stops there
        m
        for m in pool
        if m.module == "agent_runtime/turn/result.py" and m.old == b'"iteration_limit"'
    )
    test = "packages/agent-runtime/tests/test_loop.py::test_iteration_limit"
    cache = tmp_path / "cache"
    monkeypatch.setenv("MUTANTS_CACHE_DIR", str(cache))
    made = covering.CoveringMap({limit.path: {limit.line: [test]}}, {test: 0.1}, 0.0, 1)
    cache.mkdir()
    (cache / f"covering-{covering.digest(ROOT)}.json").write_text(json.dumps(made.as_json()))
    out = tmp_path / "result.json"
    case = "concierge-looks-up-a-ticket-under-its-no-mutating-rule"
    argv = ["--only", limit.id, "--only", unrun.id, "--case", case, "--jobs", "1"]
    assert bench().main([*argv, "--json", str(out)]) == 0
    measured = {m["id"]: m for m in json.loads(out.read_text())["mutants"]}
    assert measured[limit.id]["verdict"] == "tests", measured[limit.id]
    assert measured[limit.id]["tests"] == test
    assert measured[limit.id]["covering"] == 1
    assert measured[unrun.id]["verdict"] == "survived", measured[unrun.id]
    assert measured[unrun.id]["tests"] == "no test runs this line"
    assert measured[unrun.id]["covering"] == 0


def test_a_failed_test_whose_id_holds_spaces_is_named_whole() -> None:
    """A summary line names a parametrized id that may hold spaces: the id asked for is read
    back whole (cut at its first space, it names no test, and the failure was set aside)."""
    failed_id = bench().failed_id
    spaced = "tests/test_a.py::test_b[case3-$-the applies= predicate of fixture 'picky']"
    assert failed_id(f"{spaced} - AssertionError: x", [spaced, "tests/test_a.py::test_c"]) == (
        spaced
    )
    assert failed_id("tests/test_a.py::test_d - boom", ["tests"]) == "tests/test_a.py::test_d"
    # a package's tests asked: the id is read to the bracket closing its parameters (cut at its
    # first space, the unmutated re-run named no test, and a real catch was set aside)
    rest = "tests/test_c.py::test_bad[context2-unknown context key 'colour'] - Failed: DID NOT"
    assert (
        failed_id(rest, ["tests"])
        == "tests/test_c.py::test_bad[context2-unknown context key 'colour']"
    )
    assert failed_id("tests/test_c.py::test_e[a b]", ["tests"]) == "tests/test_c.py::test_e[a b]"
    assert failed_id("tests/test_c.py::test_f[x] - a [y] - b", ["tests"]) == (
        "tests/test_c.py::test_f[x]"
    )


def changes_of(module: bytes) -> tuple[set[tuple[str, str, str]], dict[str, int]]:
    """What the generator makes of ``module``: (operator, old, new) each, and what it left out
    as equivalent by construction, by rule."""
    skipped: Any = bench().Counter()
    found = bench().mutants_of(module, "example.py", "example.py", "runtime", skipped)
    return {(m.operator, m.old.decode(), m.new.decode()) for m in found}, dict(skipped)


def swaps_of(module: bytes) -> tuple[set[tuple[str, str]], dict[str, int]]:
    """The argument swaps the generator makes of ``module`` (old, new), and what it left out."""
    changes, skipped = changes_of(module)
    return {(old, new) for op, old, new in changes if op == "arguments"}, skipped


def test_a_captured_log_line_at_error_level_names_no_failed_test() -> None:
    """Only pytest's short summary names the failed tests: a captured ``ERROR`` log record
    above it named the empty id, set aside as failing unmutated, and ``--deselect ''`` then
    deselected every test of every later mutant (pytest exit 5, reported as survived)."""
    stdout = "\n".join(
        [
            "F",
            "=================================== FAILURES ===================================",
            "------------------------------ Captured log call -------------------------------",
            "ERROR    mcp.client.streamable_http:streamable_http.py:404 Error in post_writer",
            "ERROR    tests/test_x.py::test_y - not a summary line either",
            "=========================== short test summary info ============================",
            "FAILED packages/p/tests/test_w.py::test_v[a b] - AssertionError: x",
            "ERROR packages/p/tests/test_w.py::test_u - RuntimeError",
            "1 failed, 1 error in 0.52s",
        ]
    )
    assert bench().failed_ids(stdout, ["packages/p/tests"]) == (
        "packages/p/tests/test_w.py::test_v[a b]",
        "packages/p/tests/test_w.py::test_u",
    )
    assert bench().failed_ids("ERROR    mcp.client: no summary at all", ["tests"]) == ()


def test_an_attribute_docstring_is_left_out_and_the_value_it_documents_is_mutated() -> None:
    changes, skipped = changes_of(b'LIMIT = 8\n"""The most a Turn may ask."""\n')
    assert changes == {("constant", "8", "9")}
    assert skipped == {"docstring": 1}


def test_regex_alternatives_that_cannot_both_match_at_one_place_are_never_swapped() -> None:
    """``_any`` joins its arguments into an alternation: "ignore" and "forget" cannot both
    match at one place, so their order is no behaviour; "admin" and "administrator" can (the
    first that matches wins, and the matched text is quoted), and "prompts?" requires only
    "prompt", a prefix of "prompt ?text": those swaps are real mutants."""
    module = (
        b"def _any(*alternatives):\n"
        b'    return "(?:" + "|".join(alternatives) + ")"\n\n\n'
        b'VERB = _any("ignore", "forget")\n'
        b'WHO = _any("admin", "administrator")\n'
        b'WHAT = _any("prompts?", "prompt ?text", "rules")\n'
        b'OTHER = pair("ignore", "forget")\n'
    )
    swaps, skipped = swaps_of(module)
    assert swaps == {
        ('"admin", "administrator"', '"administrator", "admin"'),
        ('"prompts?", "prompt ?text"', '"prompt ?text", "prompts?"'),
        ('"ignore", "forget"', '"forget", "ignore"'),  # OTHER: not an alternation
    }
    assert skipped == {"regex alternatives": 2}  # VERB's pair, WHAT's second pair
    assert bench()._required_prefix("system ?administrator") == "system"
    assert bench()._required_prefix("what (?:is|are)") == "what "
    assert bench()._required_prefix("(?:a|b)c") == ""


def test_order_free_arguments_are_never_swapped_and_keywords_swap_their_values() -> None:
    """The exceptions ``suppress`` is given and the arguments of ``max`` are one set of
    values; two keywords' values swapped is a real change (``origin=owner``)."""
    module = (
        b"def f(store, owner, when):\n"
        b"    with suppress(OSError, TimeoutError):\n"
        b"        store.offset = max(0.0, when)\n"
        b'        store.put(owner, when, origin="library", owner=owner)\n'
    )
    swaps, skipped = swaps_of(module)
    assert swaps == {
        ("owner, when", "when, owner"),
        ('"library", owner=owner', 'owner, owner="library"'),
    }
    assert skipped == {"order-free arguments": 2}


def test_a_collection_literal_and_an_except_tuple_are_never_reordered() -> None:
    """The swap moves a call's arguments only: a set's, a dict's, a tuple's members and the
    classes an ``except`` names keep their order; their members are still emptied one by one."""
    module = (
        b"def f(x):\n"
        b"    try:\n"
        b'        return x in {"a", "b"} and {"k": 1, "j": 2}\n'
        b"    except (KeyError, ValueError):\n"
        b"        raise\n"
    )
    changes, _ = changes_of(module)
    assert not any(op == "arguments" for op, _old, _new in changes)
    assert ("constant", '"a"', '""') in changes
    assert ("constant", '"k"', '""') in changes


def test_a_swap_that_is_a_type_error_by_construction_is_left_out_and_a_real_one_made() -> None:
    """``isinstance(T, x)`` and ``getattr("name", obj)`` raise wherever they run (crashed or
    unreached, never a FAIL): left out. Beside them, real swaps are still made: a call's own
    arguments, ``isinstance`` asking about ``type`` (``x`` is meant to be a class, so
    ``isinstance(type, x)`` is a real question), ``issubclass`` of two classes, and a
    ``getattr`` whose name and default swap."""
    module = (
        b"def f(x, obj, store):\n"
        b"    if isinstance(x, (int, str)) or isinstance(x, type):\n"
        b'        setattr(obj, "seen", x)\n'
        b'    if hasattr(obj, "name") and issubclass(x, (int, str)):\n'
        b'        delattr(obj, "name")\n'
        b'    store.put(x, getattr(obj, "name", None), issubclass(x, int))\n'
    )
    swaps, skipped = swaps_of(module)
    assert swaps == {
        ("x, type", "type, x"),
        ("x, int", "int, x"),
        ('"name", None', 'None, "name"'),
        ('"seen", x', 'x, "seen"'),
        ('x, getattr(obj, "name", None)', 'getattr(obj, "name", None), x'),
        (
            'getattr(obj, "name", None), issubclass(x, int)',
            'issubclass(x, int), getattr(obj, "name", None)',
        ),
    }
    # isinstance(x, (int, str)); setattr, hasattr, delattr, getattr's object and name;
    # issubclass given a tuple
    assert skipped == {"ill-typed swaps": 6}
