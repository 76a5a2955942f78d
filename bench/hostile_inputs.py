"""What a hostile input can cost: peak RSS and seconds of the real `eval` process refusing it.

    uv run python bench/hostile_inputs.py          # every row
    uv run python bench/hostile_inputs.py team     # the team-code rows alone

Each row is one `python -m eval_cli ...` child process; its peak RSS comes from the kernel's
own accounting of that child (``os.wait4``), its time is wall-clock. The first row is the
reference: the same command on a Corpus of one valid Case, so the rest read as "this much on top
of starting the harness".

Before the limits (issue 20; and this script run against the previous commit under a 3 GB
address-space cap on a shared 2-core machine): the alias bomb grew to 2.7 GB and died of
MemoryError after 265 s (7 GB in 20 s uncapped, per the issue); the self-referencing alias and
the 100,000-deep JSON Case and Baseline ended in RecursionError tracebacks. After: every row
is refused with its file and JSON path in under a second, within ~3 MB of the reference.
(A trickling endpoint and a gzip bomb belong to the model wire: bench/hostile_wire.py.)

The Soul's files (issue 34): before, a ``soul.yaml`` that is a named pipe blocked ``eval check``
forever, one linked to ``/dev/zero`` was read to 2.7 GB, and a file linked outside the Soul
loaded unseen. A row that has not finished in ``TIMEOUT`` seconds is killed and printed HUNG.

The caches and the outputs (issue 45): every kind of cache entry (the kept help, plug-in
manifests, the checked Corpus, the Soul, schema fingerprints, code digests) made a named pipe,
a link to ``/dev/zero``, a 3 GB (sparse) file and JSON nested 100,000 deep, each under the
command that reads it; stdout closed or on ``/dev/full`` for each command, a ``--save`` past
PATH_MAX, an empty ``--save=``, a subnormal ``--max-spend``. Before (the previous main, killed
at ``TIMEOUT``): a pipe as the help, a manifest, the schemas or the code digests hung the command;
``/dev/zero`` or a 3 GB file there grew to 2.8-6.3 GB peak RSS; deep schema and code-digest
entries, a closed or full stdout (``--help``, ``plugins``) and a Corpus path past PATH_MAX were
tracebacks; ``--save=``, ``--max-spend 1e-320`` ran. After: every cache row is a miss (exit 0)
within about 1 s and 28 MB, every output row one line and exit 2.

Saved Sweeps (issue 45): a saved Scorecard of a million Trials (1,000 Cases, ~330 MB) and its
trial log, under ``eval compare`` and ``eval report``. Before: about 4 GB and ``MemoryError``
(200,000 Trials: 1.3 GB peak for ``compare``, 1.0 GB for ``report``; the JSON depth scan alone
kept a piece of memory per string). After: the Trials are counted before any is decoded (a
Scorecard's as empty records, a log's lines a megabyte at a time) and more than a Sweep may
plan is refused in one line, exit 2, at about the file's size in peak RSS.

The team's code (issue 45, class 3; ``team`` runs these rows alone): a Sweep of one Case
through the pydantic-ai or LangGraph Host whose Tool calls ``os._exit(0)``, ``sys.exit(3)``,
raises ``KeyboardInterrupt`` or its own ``BaseException``, sleeps, spins, blocks the event
loop, leaks a non-daemon thread, returns 100 MB or floods stdout or stderr with 10 MB. Before
(the issue): exit 0 with no Scorecard, a forged 3, a traceback, a Sweep that never ended, and
(found by the fuzz target) the team's stdout inside the Scorecard. After: the exit code is the
Trials' (1 when the Tool ended its Trial, 0 when it returned), the errored Trial's line is the
row's reason, a hang ends at the Host's ``timeout`` (2 s here; 100 MB through pydantic-ai also
outlives it), at the Host's import cost in RSS (pydantic-ai 166 MB, LangGraph 94 MB; 212 MB
with the 100 MB value).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "packages" / "eval-core" / "tests")]

from hostile_team import probe_case, probe_settings  # noqa: E402  (the tests' own helpers)
from tests.conftest import minimal_case  # noqa: E402

DEPTH = 100_000
TIMEOUT = 30.0


def yaml_case(case_id: str, tool_results: str) -> str:
    """A Case that is valid but for its Tool results, where the hostile YAML sits: an ``Any``
    field, so before the limits a decoder and the hash walked whatever the aliases made."""
    return (
        f"id: {case_id}\ntier: l2\nagent: support\n"
        "input: [{role: user, content: Where is my order of tulip bulbs?}]\n"
        "platformTools: [lookup_ticket]\n"
        "script: [{kind: text, text: Your tulip bulbs ship within 2 business days.}]\n"
        "expect: [{kind: output_contains, text: tulip bulbs}]\n"
        f"toolResults:\n{tool_results}"
    )


def alias_bomb(levels: int = 12) -> str:
    """The billion laughs in YAML: 9**levels leaves from a few hundred bytes."""
    lines = ["- {name: lookup_ticket, output: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]}"]
    for level in range(1, levels):
        refs = ",".join([f"*a{level - 1}"] * 9)
        lines.append(f"- {{name: lookup_ticket, output: &a{level} [{refs}]}}")
    return yaml_case("bomb", "\n".join(lines) + "\n")


def corpus(root: Path, name: str, files: dict[str, str]) -> Path:
    directory = root / name
    shutil.copytree(ROOT / "corpus" / "soul", directory / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", directory / "eval.lock")
    for file_name, text in files.items():
        (directory / file_name).write_text(text)
    return directory


def measure(
    cwd: Path,
    label: str,
    *args: str | Path,
    env: dict[str, str] | None = None,
    stdout: Any = subprocess.DEVNULL,
    close_stdout: bool = False,
) -> None:
    """Run ``eval ARGS`` in ``cwd`` (a Sweep writes its trial log there, never in the checkout);
    ``env`` is added to the environment, ``stdout`` is where its stdout goes (or closed; with
    ``subprocess.PIPE``, an errored Trial's line there is the row's reason)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "eval_cli", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        preexec_fn=(lambda: os.close(1)) if close_stdout else None,  # noqa: PLW1509 - one close
    )
    assert process.stderr is not None
    killer = threading.Timer(TIMEOUT, process.kill)
    killer.start()
    out: list[bytes] = []
    reader = None
    if process.stdout is not None:  # read beside stderr: neither pipe may fill and block it
        reader = threading.Thread(target=lambda: out.append(process.stdout.read()))  # type: ignore[union-attr]
        reader.start()
    stderr = process.stderr.read()
    if reader is not None:
        reader.join()
    _, status, usage = os.wait4(process.pid, 0)
    hung = not killer.is_alive()
    killer.cancel()
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    lines = stderr.decode(errors="replace").strip().splitlines()
    reason = (lines[-1] if lines else "(the refusal is on stdout)").strip() if code else "ok"
    errored = [
        line for line in b"".join(out).decode(errors="replace").splitlines() if line[:4] == "ERR "
    ]
    if errored:
        reason = errored[0][4:].strip()
    if hung:
        reason = f"HUNG: killed after {TIMEOUT:g} s"
    traceback = "TRACEBACK" if b"Traceback" in stderr else ""
    print(
        f"{label:<40} exit {code}  {usage.ru_maxrss / 1024:6.1f} MB peak RSS  "
        f"{seconds:5.2f} s  {traceback}{reason[:110]}"
    )


def main() -> None:
    if sys.argv[1:] == ["team"]:  # the team-code rows alone
        with tempfile.TemporaryDirectory() as tmp:
            print(f"python {sys.version.split()[0]}; one child process per row")
            team_rows(Path(tmp))
        return
    deep = "[" * DEPTH + "]" * DEPTH
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        reference = corpus(root, "reference", {"c.json": json.dumps(minimal_case("c"))})
        bomb = corpus(root, "bomb", {"bomb.yaml": alias_bomb()})
        loop = corpus(
            root,
            "loop",
            {"loop.yaml": yaml_case("loop", "- {name: lookup_ticket, output: &x [*x]}\n")},
        )
        block = corpus(root, "block", {"block.yaml": "id: block\nexpect:\n" + "- " * DEPTH})
        case = corpus(root, "deep", {"deep.json": '{"id": "deep", "expect": ' + deep + "}"})
        baseline = root / "deep-baseline.json"
        baseline.write_text(
            '{"schemaVersion": 1, "harnessVersion": "h", "savedAt": "t", "scorecard": ' + deep + "}"
        )
        log = root / "deep-log.jsonl"
        log.write_text(
            json.dumps(
                {
                    "kind": "sweep",
                    "corpusHash": "0" * 64,
                    "modelId": "scripted",
                    "selected": [],
                    "repeat": 1,
                    "startedAt": "t",
                    "harnessVersion": "unknown",
                }
            )
            + '\n{"caseId": "c", "output": '
            + deep
            + "}\n"
        )
        print(f"python {sys.version.split()[0]}, depth {DEPTH:,}; one child process per row")
        measure(root, "reference: eval check, 1 Case", "check", reference)
        measure(root, f"YAML alias bomb (9^12 leaves), {len(alias_bomb())} B", "check", bomb)
        measure(root, "YAML self-referencing alias", "check", loop)
        measure(root, f"YAML {DEPTH:,}-deep block sequence", "check", block)
        measure(root, f"JSON Case {DEPTH:,} deep", "check", case)
        measure(root, f"JSON Baseline {DEPTH:,} deep (compare)", "compare", baseline, baseline)
        measure(
            root,
            f"JSON Baseline {DEPTH:,} deep (--baseline)",
            "sweep",
            reference,
            "--quiet",
            "--baseline",
            baseline,
        )
        measure(
            root, f"trial log line {DEPTH:,} deep (--resume)", "sweep", reference, "--resume", log
        )
        soul_rows(root)
        cache_rows(root, reference)
        output_rows(root, reference)
        saved_rows(root)
        team_rows(root)


SAVED_TRIALS = 1_000_000


def saved_rows(root: Path) -> None:
    """A saved Sweep of a million Trials (1,000 Cases), as a Scorecard and as a trial log, under
    ``eval compare`` and ``eval report``; written a block of Trials at a time."""
    trial = {
        "caseId": "case-0",
        "trial": 1,
        "outcome": "passed",
        "expectations": [
            {
                "kind": "output_contains",
                "passed": True,
                "detail": "answer quoted here",
                "expectation": {"kind": "output_contains", "text": "x"},
            }
        ],
        "loopStatus": "completed",
    }
    head = {
        "corpusHash": "a" * 64,
        "suite": "capability",
        "modelId": "m1",
        "binding": "model",
        "host": "agent-runtime",
        "corpusCommit": "abc",
        "startedAt": "2026-11-30T00:00:00+00:00",
        "corpusCases": 1000,
        "planned": SAVED_TRIALS,
    }
    one = json.dumps(trial, separators=(",", ":"))

    def trials(separator: str) -> Any:
        for start in range(0, SAVED_TRIALS, 10_000):
            yield separator.join(
                one.replace('"case-0"', f'"case-{i % 1000}"').replace(
                    '"trial":1', f'"trial":{i // 1000 + 1}'
                )
                for i in range(start, start + 10_000)
            )

    card = root / "million.json"
    with card.open("w") as out:
        out.write(json.dumps(head)[:-1] + ',"trials":[')
        for n, block in enumerate(trials(",")):
            out.write(("," if n else "") + block)
        out.write("]}")
    log = root / "million.jsonl"
    header = {"kind": "sweep", "selected": [], "repeat": 1, **head}
    with log.open("w") as out:
        out.write(json.dumps(header) + "\n")
        for block in trials("\n"):
            out.write(block + "\n")
    size = card.stat().st_size >> 20
    measure(
        root, f"saved Sweep, {SAVED_TRIALS:,} Trials, {size} MB (compare)", "compare", card, card
    )
    measure(root, f"saved Sweep, {SAVED_TRIALS:,} Trials (report)", "report", card)
    measure(root, f"trial log, {SAVED_TRIALS:,} Trials (report)", "report", log)


TEAM_TIMEOUT = 2
"""The framework Hosts' ``timeout`` in the team-code rows: a hanging Trial's child is killed
2 s (the fork executor's grace) after it."""

PYDANTIC_AI_APP = '''
import asyncio, os, sys, threading, time
from pydantic_ai import Agent

class Odd(BaseException):
    """The team's own BaseException."""

def act(how: str) -> str:
    """Do what the Case asks."""
    return _do(how)

async def act_async(how: str) -> str:
    """Do what the Case asks, on the event loop."""
    return _do(how)

def _do(how):
    if how == "os_exit":
        os._exit(0)
    if how == "sys_exit3":
        sys.exit(3)
    if how == "interrupt":
        raise KeyboardInterrupt
    if how == "odd":
        raise Odd("odd")
    if how in ("sleep", "block"):
        time.sleep(3600)
    if how == "spin":
        while True:
            pass
    if how == "thread":
        threading.Thread(target=time.sleep, args=(3600,)).start()
    if how == "huge":
        return "x" * (100 << 20)
    if how in ("stdout", "stderr"):
        stream = sys.stdout if how == "stdout" else sys.stderr
        for _ in range(10_000):
            stream.write("flood " * 170 + "\\n")  # ~10 MB
    return "done"

AGENTS = {"probe": Agent(name="probe", instructions="Probe.", tools=[act, act_async])}
'''

LANGGRAPH_APP = '''
import os, time
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

@tool
def act(how: str) -> str:
    """Do what the Case asks."""
    if how == "os_exit":
        os._exit(0)
    return "done"

@tool
async def act_async(how: str) -> str:
    """Do what the Case asks, on the graph's own event loop."""
    if how == "block":
        time.sleep(3600)
    return "done"

def probe(model):
    bound = model.bind_tools([act, act_async])
    graph = StateGraph(MessagesState)
    graph.add_node("assistant", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([act, act_async]))
    graph.add_edge(START, "assistant")
    graph.add_conditional_edges("assistant", tools_condition)
    graph.add_edge("tools", "assistant")
    return graph.compile()

AGENTS = {"probe": probe}
'''


def team_project(root: Path, host: str, app: str, how: str) -> Path:
    """A team project of one Case whose Tool does ``how`` (``block``: the async Tool)."""
    project = root / f"team-{host}-{how}"
    corpus = project / "corpus"
    corpus.mkdir(parents=True)
    (project / "pyproject.toml").write_text(probe_settings("probe_app", host, TEAM_TIMEOUT))
    (project / "probe_app.py").write_text(app)
    tool = "act_async" if how == "block" else "act"
    case = probe_case(how.replace("_", "-"), tool, {"how": how})
    (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    return project


def team_rows(root: Path) -> None:
    """The team's code behind the framework Hosts (issue 45, class 3): a Sweep of one Case
    whose Tool does one hostile thing. The exit code must be the Trials' (1 when the Tool ended
    its Trial, 0 when it returned), never the team's; a hang ends at the deadline plus grace."""
    rows = {
        "pydantic-ai": (
            PYDANTIC_AI_APP,
            "ok os_exit sys_exit3 interrupt odd sleep spin block thread huge stdout stderr",
        ),
        "langgraph": (LANGGRAPH_APP, "ok os_exit block"),
    }
    for host, (app, hows) in rows.items():
        for how in hows.split():
            project = team_project(root, host, app, how)
            measure(
                project,
                f"team {host}: Tool {how}",
                *("sweep", "corpus", "--unlocked", "-q"),
                stdout=subprocess.PIPE,
            )


def cache_rows(root: Path, reference: Path) -> None:
    """Each kind of cache entry made hostile in a copy of a warm cache, under the command
    that reads it (``--help`` reads the kept help; ``check`` every other kind)."""
    warm = root / "warm-cache"
    for args in (["--help"], ["check", str(reference)], ["sweep", str(reference), "-q"]):
        subprocess.run(
            [sys.executable, "-m", "eval_cli", *args],
            cwd=root,
            env={**os.environ, "EVAL_CACHE_DIR": str(warm)},
            capture_output=True,
            check=False,
        )
    kinds = {
        "help": "help.txt",
        "manifest": "manifests/*.json",
        "checked Corpus": "corpora/*.bin",
        "Soul": "plugins/agent-runtime-soul/*/*.bin",
        "schemas": "schemas/*",
        "code digests": "code-digests-*.json",
    }

    def fifo(path: Path) -> None:
        os.mkfifo(path)

    def zero(path: Path) -> None:
        path.symlink_to("/dev/zero")

    def huge(path: Path) -> None:
        with open(path, "wb") as handle:
            handle.truncate(3 << 30)

    def deep(path: Path) -> None:
        path.write_text("[" * DEPTH + "]" * DEPTH)

    hostile = (
        ("a named pipe", fifo),
        ("-> /dev/zero", zero),
        ("3 GB", huge),
        (f"JSON {DEPTH:,} deep", deep),
    )
    for kind, pattern in kinds.items():
        for how, make in hostile:
            cache = root / f"cache-{kind}-{make.__name__}".replace(" ", "-")
            shutil.copytree(warm, cache, symlinks=True)
            for path in cache.glob(pattern):
                path.unlink()
                make(path)
            args = ["--help"] if kind == "help" else ["check", str(reference)]
            measure(root, f"cache {kind}: {how}", *args, env={"EVAL_CACHE_DIR": str(cache)})


def output_rows(root: Path, reference: Path) -> None:
    """Outputs that cannot be written: each should be one line and exit 2."""
    long = "/tmp/" + "/".join(["b" * 200] * 25)
    for args in (["--help"], ["plugins"], ["check", reference], ["sweep", reference, "-q"]):
        measure(root, f"stdout closed: {args[0]}", *args, close_stdout=True)
        with open("/dev/full", "w") as full:
            measure(root, f"stdout /dev/full: {args[0]}", *args, stdout=full)
    measure(root, "--save past PATH_MAX", "sweep", reference, "-q", "--save", long)
    measure(root, "Corpus path past PATH_MAX", "check", long)
    measure(root, "an empty --save=", "sweep", reference, "--save=")
    measure(root, "--max-spend 1e-320 (subnormal)", "sweep", reference, "--max-spend", "1e-320")


def soul_rows(root: Path) -> None:
    """The Soul's files, each made hostile in a copy of the one-Case Corpus."""

    def hostile(name: str, make: object) -> Path:
        directory = corpus(root, name, {"c.json": json.dumps(minimal_case("c"))})
        make(directory / "soul")  # type: ignore[operator]
        return directory

    def fifo(soul: Path) -> None:
        (soul / "soul.yaml").unlink(missing_ok=True)
        os.mkfifo(soul / "soul.yaml")

    def zero(soul: Path) -> None:
        (soul / "guardrails.yaml").unlink()
        (soul / "guardrails.yaml").symlink_to("/dev/zero")

    def outside(soul: Path) -> None:
        (root / "elsewhere.md").write_text("edited where no reviewer looks\n")
        (soul / "NOTES.md").symlink_to(root / "elsewhere.md")

    def aliases(soul: Path) -> None:
        refs = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
        refs += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 12)]
        (soul / "soul.yaml").write_text("\n".join(refs) + "\n")

    for label, make in (
        ("Soul: soul.yaml a named pipe", fifo),
        ("Soul: guardrails.yaml linked to /dev/zero", zero),
        ("Soul: a file linked outside the Soul", outside),
        ("Soul: an alias bomb in soul.yaml", aliases),
    ):
        name = label.split(": ")[1].replace(" ", "-").replace("/", "-")
        measure(root, label, "check", hostile(name, make))


if __name__ == "__main__":
    main()
