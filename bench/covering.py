"""Which unit tests run a line: the map ``bench/mutants.py --tests covering`` selects tests by.

mutmut 3's test selection: rather than every test of a package for each mutant (4-5 hours for
200), only the tests that ran the mutated line. The map is built once per state of the tree: the
unit tests of every package and ``tests/`` run once under ``coverage`` (xdist as the suite's
own ``addopts`` say), every Python process measured from its start, each test's lines labelled
with its node id by ``bench/covering_plugin.py``. It is kept in the bench's own cache
(``MUTANTS_CACHE_DIR``, by default ``~/.cache/eval-bench/mutants``; never the harness's), keyed
by a digest of every file the tests could read (the packages, ``tests/``, the examples, the
Corpus, ``bench/``, the root's configuration) and the interpreter, so an edit anywhere builds it
anew.

A mutant's covering tests are those that ran any line of its span. A line run only while the
modules were imported (a module constant, a ``def``'s defaults, a decorator: imports happen
while pytest collects, outside any test) stands for its module: the tests that ran any line of
that module. A mutant no test ran is caught by nothing without running anything.

What the map cannot see: a child process started with an environment built from nothing (no
``COVERAGE_PROCESS_START``), or one that cannot save its data at exit (killed, ``os._exit``, a
file-size limit: ``test_cache_entry``'s full disk); a test that only reads a line a
session-scoped fixture ran for an earlier test. The triage file names the test for such a mutant
(``Caught by:``) and the bench runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from covering_plugin import CONTEXT_VARIABLE, DURATIONS_VARIABLE
from mutation_table import run_group

ROOT = Path(__file__).resolve().parent.parent
FORMAT = 2
"""The cached map's layout: a new layout is a new key."""

DIGESTED = ("packages", "tests", "examples", "corpus", "bench", "conftest.py", "pyproject.toml")
SKIPPED_PARTS = frozenset({".venv", "__pycache__", ".git", "scorecards", "node_modules", "site"})
NOT_DIGESTED = (
    "bench/mutants_triage.md",
    "bench/mutants.py",
    "bench/covering.py",
    "bench/covering_plugin.py",
)
"""The bench itself and its triage: they decide how the map is used, not which test runs which
line of the code under test (``tests/test_mutants_bench.py`` runs the bench, but only the lines
of the code under test are mapped)."""


def cache_dir() -> Path:
    configured = os.environ.get("MUTANTS_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eval-bench" / "mutants"


def digest(root: Path = ROOT) -> str:
    """Every file the tests could read, by path and bytes, with the interpreter's version."""
    h = hashlib.sha256(f"{FORMAT}\n{sys.version}\n".encode())
    for top in DIGESTED:
        base = root / top
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for path in files:
            parts = path.relative_to(root).parts
            rel = "/".join(parts)
            if (
                rel in NOT_DIGESTED
                or SKIPPED_PARTS.intersection(parts)
                or any(part.startswith(".") for part in parts)
                or path.suffix == ".pyc"
                or not path.is_file()
            ):
                continue
            h.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:24]


@dataclass(frozen=True)
class CoveringMap:
    """Per file (from the repository root), per line, the node ids of the tests that ran it;
    and each test's duration, so the quickest run first."""

    lines: dict[str, dict[int, list[str]]]
    durations: dict[str, float]
    seconds: float
    """How long the build took."""
    tests: int
    """Tests that ran (every node id seen)."""

    def covering(self, path: str, first: int, last: int) -> list[str]:
        """The tests that ran a line of ``first..last`` of ``path``, quickest first; a span
        run only at import stands for its module."""
        by_line = self.lines.get(path, {})
        found: set[str] = set()
        seen = False
        for line in range(first, last + 1):
            if line in by_line:
                seen = True
                found.update(by_line[line])
        if seen and not found:
            for tests in by_line.values():
                found.update(tests)
        return sorted(found, key=lambda t: (self.durations.get(t, 0.0), t))

    def as_json(self) -> dict[str, object]:
        """Each node id once, lines naming tests by their index (a tenth of the size)."""
        names = sorted(
            {t for b in self.lines.values() for ts in b.values() for t in ts} | set(self.durations)
        )
        index = {name: i for i, name in enumerate(names)}
        return {
            "format": FORMAT,
            "seconds": self.seconds,
            "tests": self.tests,
            "names": names,
            "durations": {str(index[t]): s for t, s in self.durations.items()},
            "lines": {
                p: {str(n): [index[t] for t in ts] for n, ts in b.items()}
                for p, b in self.lines.items()
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CoveringMap:
        names: list[str] = data["names"]
        return cls(
            {
                p: {int(n): [names[i] for i in ts] for n, ts in b.items()}
                for p, b in data["lines"].items()
            },
            {names[int(i)]: float(s) for i, s in data["durations"].items()},
            float(data["seconds"]),
            int(data["tests"]),
        )


def load_or_build(copy_root: Path, build: Callable[[], CoveringMap]) -> tuple[CoveringMap, bool]:
    """The map for the tree as it stands: from the bench's cache, or ``build()`` (in
    ``copy_root``, an unmutated copy of the tree) and cached. Whether it came from the cache is
    returned too."""
    key = digest(copy_root)
    cached = cache_dir() / f"covering-{key}.json"
    if cached.is_file():
        return CoveringMap.from_json(json.loads(cached.read_text())), True
    built = build()
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(built.as_json()))
    partial.replace(cached)
    return built, False


def build(
    copy_root: Path,
    env: dict[str, str],
    sources: Sequence[str],
    test_paths: Sequence[str],
    left_out: Iterable[str],
    timeout: float,
) -> CoveringMap:
    """Run the unit tests once under coverage with a context per test, in ``copy_root``, and
    read back which test ran which line of ``sources`` (import roots from the repository
    root)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutants-covering-") as scratch:
        work = Path(scratch)
        (work / "durations").mkdir()
        rc = work / "coveragerc"
        rc.write_text(
            "[run]\nparallel = True\n"
            f"data_file = {work / '.coverage'}\n"
            f"source =\n" + "".join(f"    {copy_root / s}\n" for s in sources) + "context = ${"
            f"{CONTEXT_VARIABLE}}}\n"
            "disable_warnings = no-data-collected, module-not-measured, module-not-imported, "
            "couldnt-parse\n"
        )
        run_env = dict(env)
        run_env["COVERAGE_PROCESS_START"] = str(rc)
        run_env[DURATIONS_VARIABLE] = str(work / "durations")
        run_env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parent), *filter(None, [env.get("PYTHONPATH")])]
        )
        run_env.pop(CONTEXT_VARIABLE, None)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "covering_plugin",
            "-p",
            "no:cacheprovider",
            "-m",
            "not installs and not real_model",
            *test_paths,
            *(arg for path in left_out for arg in ("--ignore", path)),
        ]
        done = run_group(command, copy_root, run_env, timeout)
        if done is None:
            raise SystemExit(f"the unit tests under coverage outlived {timeout:.0f} s")
        code, stdout, stderr = done
        tail = (stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"covering map: the unit tests under coverage: {tail}", flush=True)
        if code not in (0, 1):
            err = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
            raise SystemExit(f"the unit tests did not run under coverage: exit {code}: {err}")
        coverage_env = {k: v for k, v in run_env.items() if k != "COVERAGE_PROCESS_START"}
        subprocess.run(
            [sys.executable, "-m", "coverage", "combine", f"--rcfile={rc}", "-q"],
            cwd=work,
            env=coverage_env,
            check=True,
        )
        lines = read_lines(work / ".coverage", copy_root)
        durations: dict[str, float] = {}
        for part in (work / "durations").glob("*.jsonl"):
            for line in part.read_text().splitlines():
                nodeid, seconds = json.loads(line)
                durations[nodeid] = seconds
    tests = {t for by_line in lines.values() for ts in by_line.values() for t in ts}
    return CoveringMap(lines, durations, time.perf_counter() - started, len(tests | set(durations)))


def read_lines(data_file: Path, copy_root: Path) -> dict[str, dict[int, list[str]]]:
    """The combined data as ``{path from the root: {line: [node id, ...]}}``; a line run
    outside any test is kept with no test (it was run: at import)."""
    from coverage import CoverageData

    data = CoverageData(basename=str(data_file))
    data.read()
    lines: dict[str, dict[int, list[str]]] = {}
    root = copy_root.resolve()
    for measured in data.measured_files():
        try:
            rel = Path(measured).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        by_line = data.contexts_by_lineno(measured)
        lines[rel] = {
            line: sorted({c for c in contexts if c}) for line, contexts in by_line.items()
        }
    return lines
