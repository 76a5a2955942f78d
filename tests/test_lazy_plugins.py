"""Lazy plug-ins (issue 32): opening a Corpus imports the families its Cases use, and the
plug-ins whose manifests say a hook sees every Case; a manifest that lies is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from eval_core._util import cache_entry
from tests.conftest import Site, minimal_case, synthetic_corpus

ROOT = Path(__file__).resolve().parent.parent


OPEN = """
import json, sys
from pathlib import Path
from eval_core._loading.opening import open_corpus
from eval_core._plugins import lazy
opened = open_corpus(Path(sys.argv[1]), "agent-runtime", unlocked=True)
rows = {}
for ep in lazy.installed_entries():
    module = ep.value.partition(":")[0].strip()
    rows[f"{ep.distribution}:{ep.name}"] = [module, module in sys.modules]
print(json.dumps({"cases": len(opened.corpus.cases), "rows": rows,
                  "pending": sorted(opened.plugins.pending)}))
"""


def _open(corpus: Path, cache: Path) -> dict[str, Any]:
    env = {**os.environ, "EVAL_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", OPEN, str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _manifests(cache: Path) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for path in (cache / "manifests").glob("*.json"):
        data = json.loads(cache_entry.unseal(path.read_bytes()) or b"null")
        found[f"{data['distribution']}:{data['entry_point']}"] = data | {"path": str(path)}
    return found


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A Corpus whose Cases use three families (tools, output, status) and a cache whose
    manifests were written by a first command."""
    base = tmp_path_factory.mktemp("lazy")
    corpus = synthetic_corpus(base / "corpus", 3)
    cache = base / "cache"
    _open(corpus, cache)  # writes every plug-in's manifest
    return corpus, cache


def test_a_corpus_of_three_families_imports_those_three(three: tuple[Path, Path]) -> None:
    corpus, cache = three
    seen = _open(corpus, cache)
    manifests = _manifests(cache)
    at_load = ("eval_check_case", "eval_fixtures", "eval_variants", "eval_probabilistic")
    every = {  # a hook that sees every Case must be asked of every Corpus: imported
        name
        for name, m in manifests.items()
        if any("*" in m.get("hooks", {}).get(h, []) for h in at_load)
    }
    used = {"eval-expectations-turn:tools", "eval-expectations-turn:output"}
    used.add("eval-expectations-turn:status")
    rows: dict[str, list[Any]] = seen["rows"]
    families = {n for n in rows if n.split(":")[0].startswith("eval-expectations-")}
    imported = {n for n in families if rows[n][1]}
    assert used <= imported
    assert imported - used <= every, "only an every-Case hook imports a family no Case uses"
    assert "eval-expectations-rubric:rubric" not in imported  # no hook needs it at load
    assert "eval-expectations-turn:prompt" not in imported
    assert seen["cases"] == 3
    # The model binding and the release gate (its hooks run after the Sweep) wait too, and so
    # does a Host not chosen that checks no Case (the pydantic-ai Host's tier is the core's).
    later = {"eval-bindings:bindings", "eval-release:release", "eval-host-pydantic-ai:pydantic-ai"}
    assert set(seen["pending"]) == families - imported | later


def test_a_manifest_that_lies_is_refused_in_one_line(
    three: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, cache = three
    manifests = _manifests(cache)
    tools = manifests["eval-expectations-turn:tools"]
    data = json.loads(cache_entry.unseal(Path(str(tools["path"])).read_bytes()) or b"null")
    data["kinds"]["tool_teleported"] = next(iter(data["kinds"].values()))
    Path(str(tools["path"])).write_bytes(cache_entry.seal(msgspec.json.encode(data)) or b"")
    env = {**os.environ, "EVAL_CACHE_DIR": str(cache)}
    eval_bin = str(Path(sys.executable).parent / "eval")
    done = subprocess.run(
        [eval_bin, "check", str(corpus), "--unlocked"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "eval-expectations-turn" in lines[0] and "'tools'" in lines[0]
    assert "manifest disagrees with its code" in lines[0] and "tool_teleported" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_lazy_set_pins_what_the_whole_set_pins(three: tuple[Path, Path]) -> None:
    """The lock rows (code, kinds, fields, schemas) of the pending plug-ins come from their
    manifests and equal those of every plug-in imported."""
    from eval_core._plugins import lock
    from eval_core._plugins.plugins import load_plugins

    corpus, _ = three
    whole = load_plugins()  # writes every manifest (in this process's cache directory)
    lazy = load_plugins(corpus)
    assert lazy.pending, "some plug-in was left pending"
    assert lock.encode(lock.current(lazy)) == lock.encode(lock.current(whole))
    assert lazy.fingerprint(["output_contains"], []) == whole.fingerprint(["output_contains"], [])


TWO = """
from collections.abc import Iterator

from eval_core.kinds import CaseField, TrialFixture, hookimpl


def nothing(request) -> Iterator[None]:
    yield


class Every:
    @hookimpl
    def eval_fixtures(self):
        return [TrialFixture(name="every", run=nothing, applies=lambda case: False)]


class Own:
    @hookimpl
    def eval_case_fields(self):
        return [CaseField(name="acme_two_note", type=str)]

    @hookimpl
    def eval_fixtures(self):
        return [TrialFixture(name="note", field="acme_two_note", run=nothing)]


every, own = Every(), Own()
"""


def test_each_entry_point_of_a_distribution_lists_only_its_own_fixtures(site: Site) -> None:
    """Two entry points of one distribution: the one whose fixture serves a Case field is not
    asked of every Case because the other's `applies=` predicate is."""
    from eval_core._plugins import lazy
    from eval_core._plugins.plugins import load_plugins
    from eval_core._util.entrypoints import entry_points

    site.install("acme-two", "1.0", "acme_two", TWO)
    info = next(site.root.glob("acme_two-1.0.dist-info"))
    (info / "entry_points.txt").write_text(
        "[eval.plugins]\nevery = acme_two:every\nown = acme_two:own\n"
    )
    found = load_plugins()
    eps = {ep.name: ep for ep in entry_points("eval.plugins") if ep.distribution == "acme-two"}
    assert lazy.of(found, eps["every"]).hooks["eval_fixtures"] == ["*"]
    assert lazy.of(found, eps["own"]).hooks["eval_fixtures"] == []


def test_a_case_nested_100000_deep_is_refused_by_the_loader_not_the_scan(tmp_path: Path) -> None:
    """Issue 45's regression: the scan read Case files before the bounded reader did and its
    shallow decode recursed without bound (a RecursionError traceback). Now the scan holds a
    file to the depth limit and leaves it to the loader, which refuses it with its path."""
    from eval_core._plugins import lazy

    corpus = synthetic_corpus(tmp_path / "corpus", 1)
    deep = corpus / "deep.json"
    deep.write_text('{"id": "deep", "a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _, keys = lazy._scan(corpus) or (set(), set())  # no RecursionError
    assert "a" not in keys  # the deep file's keys are the loader's to refuse
    env = {**os.environ, "EVAL_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "eval"), "check", str(corpus), "--unlocked"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert f"{deep}: $.a" in done.stderr and "nested deeper than 64" in done.stderr


def test_a_named_pipe_under_a_case_name_never_blocks_the_scan(tmp_path: Path) -> None:
    from eval_core._plugins import lazy

    corpus = synthetic_corpus(tmp_path / "corpus", 1)
    os.mkfifo(corpus / "pipe.json")
    assert lazy._scan(corpus) is None  # the whole set opens; the loader refuses the pipe


RESTATE = """
from eval_core.kinds import CaseField, hookimpl


@hookimpl
def eval_case_fields():
    return [CaseField(name="acme_restate", type=str)]


@hookimpl
def eval_variants(case):
    said = case.field("acme_restate")
    if said is None:
        return []
    return [{
        "id": f"{case.id}--restated",
        "tier": "l2",
        "agent": case.agent,
        "input": [{"role": "user", "content": said}],
        "script": [{"kind": "text", "text": "Your bulbs ship on Monday."}],
        "expect": [{"kind": "model_prompt_contains", "text": said}],
    }]
"""


def test_a_capability_plugin_deriving_cases_brings_the_kinds_its_variants_use(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A third-party plug-in derives a Case, in the capability suite, from a field the Corpus
    uses; the variant scores with a kind (``model_prompt_contains``) no Case file names. With the
    manifests kept by a first Sweep, the second opens the set lazily and must still import the
    family of that kind: the variant loads and runs, never an unknown kind."""
    site.install("acme-restate", "1.0", "acme_restate", RESTATE)
    corpus = synthetic_corpus(tmp_path / "corpus", 1)
    case = minimal_case("restating", acmeRestate="When do my tulip bulbs ship?")
    (corpus / "restating.json").write_text(json.dumps(case))
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    for sweep in ("cold", "warm"):  # the first keeps every manifest; the second reads them
        done = site.eval("sweep", corpus, "--unlocked")
        assert done.returncode == 0, (sweep, done.stdout, done.stderr[-1500:])
        assert "3 passed, 0 failed, 0 errored" in done.stdout, (sweep, done.stdout)
    assert "manifests=hit" in done.stdout
