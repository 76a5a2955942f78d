"""The kill matrix of the mutation catalogue: which Cases each mutation of the runtime turns red.

Prints figures; it is never a timed test. Usage::

    uv run python bench/mutation_table.py [--only ID ...] [--jobs N] [--json PATH]

At the start, every package's ``src/`` and the Corpus are copied once (the snapshot), so a run
measures one state of the tree while others keep editing it. Each mutation of
``tests/mutation_catalogue.py`` is then applied to a copy of its own package's ``src/`` (never
to the tree), and the whole Corpus (``--suite all``, on the free scripted model) is swept by
``python -m eval_cli`` in a subprocess with that copy first on ``PYTHONPATH``, then the
snapshot. ``PYTHONPATH`` comes before the editable install's ``.pth`` entries on ``sys.path``,
so the copies shadow the tree; :func:`check_shadowing` proves it with a syntax error, which
must stop the Sweep. ``--unlocked`` is needed because the Corpus lock pins the plug-ins' code,
and a mutant's code differs by construction.

A mutation is killed when a Case the unmutated snapshot passes goes FAIL. An errored Trial is
not a kill (a harness fault proves nothing), and a Case that already fails unmutated (someone's
unfinished change) is reported apart, never counted; nor is a Case that went UNEX or VAC (a seam
the mutant stopped reaching), which a survivor's line names. The catalogue's ``red`` of each
entry is checked against what was measured: a difference is printed, so the catalogue stays
true. An entry whose ``old`` no longer applies is reported "not applicable", not swept.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mutation_catalogue import CATALOGUE, Mutation  # noqa: E402

SOURCES = tuple(sorted((ROOT / "packages").glob("*/src")))
"""Every package's source tree: the snapshot freezes the harness along with the runtime."""
TIMEOUT = 300.0


@dataclass(frozen=True)
class Outcome:
    """One Sweep of the Corpus (both suites): each Case's verdict, or why it did not run."""

    verdicts: dict[str, str]
    seconds: float
    crashed: str | None = None
    """Set when the Sweep produced no Scorecard (an import error, a timeout): its stderr tail."""
    stale: bool = False
    """The mutation did not apply to the snapshot: no Sweep ran."""
    timed_out: bool = False
    """The Sweep outlived its timeout and was killed (``crashed`` says so too)."""

    def with_verdict(self, verdict: str) -> set[str]:
        return {case for case, v in self.verdicts.items() if v == verdict}


@dataclass
class Row:
    """One mutation's line of the matrix."""

    mutation: Mutation
    outcome: Outcome
    baseline: Outcome
    red: set[str] = field(init=False)
    errored: set[str] = field(init=False)
    moved: dict[str, str] = field(init=False)
    """Cases whose verdict changed to neither FAIL nor ERR (UNEX, VAC): a seam the mutation
    stopped exercising, reported, never a kill."""

    def __post_init__(self) -> None:
        already = self.baseline.with_verdict("FAIL")
        self.red = self.outcome.with_verdict("FAIL") - already
        self.errored = self.outcome.with_verdict("ERR") - self.baseline.with_verdict("ERR")
        before = self.baseline.verdicts
        self.moved = {
            case: verdict
            for case, verdict in self.outcome.verdicts.items()
            if verdict not in ("FAIL", "ERR", before.get(case))
        }

    @property
    def killed(self) -> bool:
        return self.outcome.crashed is None and bool(self.red)


def dirty() -> list[str]:
    """Files of the source trees that differ from the commit: the snapshot takes them as they
    are (someone's unfinished change shows up as a baseline that is not green)."""
    done = subprocess.run(
        ["git", "status", "--porcelain", "--", *(str(s) for s in SOURCES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line[3:] for line in done.stdout.splitlines() if line.endswith(".py")]


class StaleMutationError(Exception):
    """The mutation's ``old`` no longer occurs exactly once: the code moved under it."""


def snapshot(into: Path) -> Path:
    """Copy every package's ``src/`` (``into/<package>``) and the Corpus (``into/corpus``)
    once, so all mutants and the baseline sweep one state of the tree."""
    for source in SOURCES:
        shutil.copytree(
            source, into / source.parent.name, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copytree(ROOT / "corpus", into / "corpus", ignore=shutil.ignore_patterns("__pycache__"))
    return into


def mutant(snap: Path, mutation: Mutation | None, into: Path) -> list[Path]:
    """The PYTHONPATH of one Sweep: a copy of the mutated package's ``src/`` with the mutation
    applied (none for the baseline), then every package of the snapshot."""
    paths = [snap / source.parent.name for source in SOURCES]
    if mutation is None:
        return paths
    parts = Path(mutation.file).parts  # packages/<package>/src/<module path>
    package, inner = parts[1], Path(*parts[3:])
    shutil.copytree(snap / package, into / package)
    path = into / package / inner
    text = path.read_text()
    if text.count(mutation.old) != 1:
        raise StaleMutationError(f"'old' occurs {text.count(mutation.old)} times in {inner}")
    path.write_text(text.replace(mutation.old, mutation.new))
    return [into / package, *paths]


def scorecards(stdout: str) -> list[dict[str, object]]:
    """The JSON Scorecards ``--suite all`` prints one after another on stdout."""
    decoder = json.JSONDecoder()
    cards: list[dict[str, object]] = []
    i = 0
    while True:
        while i < len(stdout) and stdout[i].isspace():
            i += 1
        if i >= len(stdout):
            return cards
        card, i = decoder.raw_decode(stdout, i)
        cards.append(card)


def verdict(trials: list[dict[str, object]]) -> str:
    """A Case's verdict over its Trials, as the Scorecard's ``case_verdict`` gives it."""
    outcomes = [t["outcome"] for t in trials]
    if "errored" in outcomes:
        return "ERR"
    if any(t.get("vacuous") for t in trials):
        return "VAC"
    if all(o == "unexercised" for o in outcomes):
        return "UNEX"
    if all(o == "passed" for o in outcomes):
        return "PASS"
    return "FAIL"


def sweep(
    paths: Iterable[Path],
    corpus: Path,
    workdir: Path,
    *,
    host: str | None = None,
    suite_all: bool = True,
    cases: Sequence[str] = (),
    timeout: float = TIMEOUT,
    options: Sequence[str] = (),
) -> Outcome:
    """Sweep ``corpus`` (both suites unless ``suite_all`` is off, on ``host`` if given, only
    ``cases`` if given, each of ``options`` a ``--host-option KEY=VALUE``) with ``paths`` first
    on PYTHONPATH, in ``workdir`` (its trial logs land there, not in the tree). Caches are
    off, so nothing computed from other code is reused. The Sweep runs in its own process
    group: a timeout ends it and every process it started."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [*(str(p) for p in paths), *filter(None, [env.get("PYTHONPATH")])]
    )
    env["EVAL_CACHE"] = "off"
    env.pop("EVAL_STORE", None)  # each leg names its store in ``options``; SQLite otherwise
    command = [
        sys.executable,
        "-m",
        "eval_cli",
        "sweep",
        str(corpus),
        *(["--suite", "all"] if suite_all else []),
        *(["--host", host] if host else []),
        *(arg for option in options for arg in ("--host-option", option)),
        *(arg for case in cases for arg in ("--case", case)),
        "--format",
        "json",
        "--unlocked",
        "--quiet",
        "--jobs",
        "1",
    ]
    start = time.perf_counter()
    done = run_group(command, workdir, env, timeout)
    seconds = time.perf_counter() - start
    if done is None:
        return Outcome({}, seconds, f"timed out after {timeout:.0f} s", timed_out=True)
    returncode, stdout, stderr = done
    try:
        cards = scorecards(stdout)
    except json.JSONDecodeError:
        cards = []
    if len(cards) != (2 if suite_all else 1):
        tail = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
        return Outcome({}, seconds, f"exit {returncode}, {len(cards)} Scorecard(s): {tail}")
    by_case: dict[str, list[dict[str, object]]] = {}
    for card in cards:
        for trial in card["trials"]:  # type: ignore[attr-defined]
            by_case.setdefault(trial["caseId"], []).append(trial)
    return Outcome({case: verdict(t) for case, t in by_case.items()}, seconds)


def run_group(
    command: Sequence[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, str, str] | None:
    """Run ``command`` in a new process group: its exit code, stdout and stderr, or ``None``
    when it outlived ``timeout`` (then the whole group is killed: a Sweep's workers and
    loopback servers with it)."""
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return None
        return process.returncode, stdout, stderr


def run_mutation(mutation: Mutation | None, snap: Path) -> Outcome:
    """Sweep the snapshot's Corpus against one mutant (``None``: unmutated) in a scratch dir."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        base = Path(scratch)
        try:
            paths = mutant(snap, mutation, base)
        except StaleMutationError as stale:
            return Outcome({}, 0.0, f"not applicable: {stale}", stale=True)
        return sweep(paths, snap / "corpus", base)


def sweep_mutant(mutation: Mutation) -> Outcome:
    """One mutant swept against a fresh snapshot (one subprocess): the catalogue's own test
    checks the mechanism end to end with it."""
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        return run_mutation(mutation, snapshot(Path(scratch) / "snapshot"))


def check_shadowing(snap: Path) -> None:
    """A syntax error in the copy must stop the Sweep: else the copy is not what runs."""
    broken = Mutation(
        id="syntax-error",
        file="packages/agent-runtime/src/agent_runtime/guards/guardrails.py",
        old='"""Guardrails:',
        new='def (:\n"""Guardrails:',
        breaks="everything (a deliberate syntax error)",
    )
    outcome = run_mutation(broken, snap)
    if outcome.crashed is None:
        raise SystemExit("the copy on PYTHONPATH does not shadow the installed runtime")
    print(f"shadowing checked: a syntax error in the copy stops the Sweep ({outcome.crashed})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", default=[], metavar="ID", help="This mutation (repeatable)."
    )
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="Sweeps at once.")
    parser.add_argument("--json", type=Path, metavar="PATH", help="Also write the matrix here.")
    args = parser.parse_args(argv)
    known = {m.id for m in CATALOGUE}
    if unknown := sorted(set(args.only) - known):
        parser.error(f"unknown mutation id(s): {unknown}")
    chosen = [m for m in CATALOGUE if not args.only or m.id in args.only]
    started = time.perf_counter()
    if changed := dirty():
        print(f"uncommitted source files swept as they are: {len(changed)}")
    with tempfile.TemporaryDirectory(prefix="mutation-table-") as scratch:
        snap = snapshot(Path(scratch) / "snapshot")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            shadowing = pool.submit(check_shadowing, snap)
            baseline = pool.submit(run_mutation, None, snap).result()
            shadowing.result()
            if baseline.crashed is not None:
                raise SystemExit(f"the unmutated copy does not sweep: {baseline.crashed}")
            outcomes = list(pool.map(lambda m: run_mutation(m, snap), chosen))
    rows = [Row(m, o, baseline) for m, o in zip(chosen, outcomes, strict=True)]
    report(rows, baseline, time.perf_counter() - started)
    if args.json is not None:
        args.json.write_text(json.dumps(matrix(rows, baseline), indent=2) + "\n")
    return 0


def matrix(rows: list[Row], baseline: Outcome) -> dict[str, object]:
    """The kill matrix as data (``--json``)."""
    return {
        "baselineNotGreen": sorted(baseline.with_verdict("FAIL") | baseline.with_verdict("ERR")),
        "mutations": [
            {
                "id": row.mutation.id,
                "killed": row.killed,
                "red": sorted(row.red),
                "errored": sorted(row.errored),
                "moved": row.moved,
                "crashed": row.outcome.crashed,
                "seconds": round(row.outcome.seconds, 2),
            }
            for row in rows
        ],
    }


def shown(cases: set[str], most: int = 4) -> str:
    """A red set for the table: all of it when short, else its size and its first few (the
    catalogue and ``--json`` keep every Case)."""
    ordered = sorted(cases)
    if len(ordered) <= most:
        return ", ".join(ordered)
    return f"{len(ordered)} Cases: {', '.join(ordered[:most])}, … (+{len(ordered) - most})"


def report(rows: list[Row], baseline: Outcome, seconds: float) -> None:
    """The kill matrix, the survivors, the catalogue's mismatches and the timings."""
    already = sorted(baseline.with_verdict("FAIL") | baseline.with_verdict("ERR"))
    if already:
        print(f"not green unmutated (never counted as kills): {', '.join(already)}")
    print(f"\n{'mutation':<44} {'verdict':<8} {'ERR':<4} red Cases")
    for row in rows:
        state = (
            "n/a"
            if row.outcome.stale
            else "crashed"
            if row.outcome.crashed
            else "killed"
            if row.killed
            else "SURVIVED"
        )
        errored = "yes" if row.errored else "-"
        red = shown(row.red) or (row.outcome.crashed or "-")
        print(f"{row.mutation.id:<44} {state:<8} {errored:<4} {red}")
    stale = [r for r in rows if r.outcome.stale]
    survivors = [r for r in rows if not r.killed and not r.outcome.stale]
    killed = sum(1 for r in rows if r.killed)
    print("\nsurvivors:")
    for row in survivors:
        why = f" [equivalent: {row.mutation.equivalent}]" if row.mutation.equivalent else ""
        why += f" [gap: {row.mutation.gap}]" if row.mutation.gap else ""
        errs = f" [{len(row.errored)} Case(s) errored]" if row.errored else ""
        for verdict in sorted(set(row.moved.values())):
            moved = {c for c, v in row.moved.items() if v == verdict}
            errs += f" [{verdict}: {shown(moved, 2)}]"
        crash = f" [no Scorecard: {row.outcome.crashed}]" if row.outcome.crashed else ""
        print(f"  {row.mutation.id}: {row.mutation.breaks}{why}{errs}{crash}")
    if not survivors:
        print("  none")
    if stale:
        print("\nnot applicable (the code moved: update the entry):")
        for row in stale:
            print(f"  {row.mutation.id}: {row.outcome.crashed}")
    mismatched = [r for r in rows if not r.outcome.stale and r.red != set(r.mutation.red)]
    print("\ncatalogue 'red' differs from the measurement:")
    for row in mismatched:
        listed = set(row.mutation.red)
        print(
            f"  {row.mutation.id}: listed but green {sorted(listed - row.red)}; "
            f"red but not listed {sorted(row.red - listed)}"
        )
    if not mismatched:
        print("  none")
    measured = len(rows) - len(stale)
    equivalent = sum(1 for r in survivors if r.mutation.equivalent)
    rate = killed / measured if measured else 0.0
    adjusted = killed / (measured - equivalent) if measured > equivalent else 0.0
    print(
        f"\ncatalogue {len(rows)}  measured {measured}  killed by the Corpus {killed}  "
        f"survivors {len(survivors)} ({equivalent} equivalent)  kill rate {rate:.0%} "
        f"({adjusted:.0%} of the non-equivalent)"
    )
    print(f"\ntimings (s): baseline {baseline.seconds:.1f}, total {seconds:.1f}")
    for row in sorted(rows, key=lambda r: -r.outcome.seconds):
        print(f"  {row.outcome.seconds:6.1f}  {row.mutation.id}")


if __name__ == "__main__":
    sys.exit(main())
