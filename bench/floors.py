"""What the scale targets of issue 17 are up against: the CPU nothing of ours can remove.

    uv run python bench/floors.py [RUNS]      (default RUNS = 5; best of RUNS, CPU seconds)

Every figure is the CPU (user + system) of fresh processes on this machine, best of RUNS: CPU
does not move with the neighbours' load the way wall time does. It prints

- the interpreter alone, and the imports every ``eval sweep`` pays (the core, the reference
  Host and runtime, every installed plug-in), and how much of that is Python building their
  dataclasses (about 1.4 ms of CPU each on Python 3.11);
- the third-party imports the shipped Corpus cannot avoid: the MCP SDK's server (the fixture
  provider, a process of its own, started until it serves), and in the Sweep's own process the
  runtime's PDF reader (pypdf) and Tool-argument validator (jsonschema);
- the CPU of one more L2 Trial (1,000 synthetic Cases less 100, per Case);
- the shipped Corpus's whole CPU (the Sweep, the provider, every git process), the wall time
  that CPU allows at best on this machine's cores, and the part spent in the Sweep's own
  process: its Trial threads take turns on one GIL, so that part is close to a floor of its
  own, whatever the cores;
- the shipped Corpus without its MCP Cases (so no provider starts), to show what the provider
  costs a Sweep and what remains without it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import ROOT, make_corpus

PYTHON = sys.executable
EVAL = str(Path(sys.executable).parent / "eval")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
SWEEP_IMPORTS = (
    "import eval_core._sweeping.sweep; "
    "from eval_core._plugins.plugins import load_plugins; load_plugins()"
)
# The same imports, timing what Python spends building each dataclass they define.
DATACLASSES = (
    """
import dataclasses, sys, time
build, spent, count = dataclasses._process_class, [0.0], [0]
def timed(*args, **kwargs):
    started = time.process_time()
    try:
        return build(*args, **kwargs)
    finally:
        spent[0] += time.process_time() - started
        count[0] += 1
dataclasses._process_class = timed
"""
    + SWEEP_IMPORTS
    + """
print(spent[0], count[0], file=sys.stderr)
"""
)
# `eval sweep --quiet` in this interpreter, then the CPU of this process alone (not its children).
OWN_CPU = """
import resource, sys
from eval_cli.cli import invoke
code = invoke(["sweep", "--quiet"])
own = resource.getrusage(resource.RUSAGE_SELF)
print(own.ru_utime + own.ru_stime, code, file=sys.stderr)
"""


def cpu(argv: list[str], runs: int, cwd: Path = ROOT) -> float:
    """Best CPU seconds of ``argv`` run to its end (its waited-for children included)."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best = min(best, used)
    return best


def provider_start(runs: int) -> float:
    """Best CPU seconds of the MCP fixture provider from its start until it serves (read from
    /proc before it is killed: it never exits on its own)."""
    best = float("inf")
    tick = os.sysconf("SC_CLK_TCK")
    for _ in range(runs):
        child = subprocess.Popen(
            [PYTHON, "-m", "eval_expectations_mcp.provider"],
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("READY"), line
        fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        best = min(best, (int(fields[11]) + int(fields[12])) / tick)
        child.kill()
        child.wait()
    return best


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    cores = os.cpu_count() or 1
    bare = cpu([PYTHON, "-c", "pass"], runs)
    imports = cpu([PYTHON, "-c", SWEEP_IMPORTS], runs) - bare
    sdk = provider_start(runs)
    pdf = cpu([PYTHON, "-c", "import pypdf"], runs) - bare
    schema = cpu([PYTHON, "-c", "import jsonschema"], runs) - bare
    print(f"interpreter alone                 {bare:6.3f} s CPU")
    print(f"imports of every eval sweep       {imports:6.3f} s CPU (core, Host, runtime, plug-ins)")
    built, classes = min(_dataclasses() for _ in range(runs))
    label = f"  building their {classes} dataclasses"
    print(f"{label:<34}{built:6.3f} s CPU")
    print(f"MCP SDK provider, start to serve  {sdk:6.3f} s CPU (a process of its own)")
    print(f"import pypdf / jsonschema         {pdf:6.3f} / {schema:.3f} s CPU (in the Sweep)")
    with tempfile.TemporaryDirectory() as name:
        small = make_corpus(Path(name) / "100", 100)
        large = make_corpus(Path(name) / "1000", 1_000)
        for corpus in (small, large):  # the checked-Corpus cache written, as a second run finds
            cpu([EVAL, "sweep", str(corpus), "--quiet"], 1)
        per_trial = (
            cpu([EVAL, "sweep", str(large), "--quiet"], runs)
            - cpu([EVAL, "sweep", str(small), "--quiet"], runs)
        ) / 900
    print(f"one more L2 Trial                 {per_trial * 1000:6.3f} ms CPU")
    started = time.perf_counter()
    shipped = cpu([EVAL, "sweep", "--quiet"], runs)
    wall = (time.perf_counter() - started) / runs
    floor = bare + imports + sdk + pdf + schema
    print(f"shipped Corpus                    {shipped:6.3f} s CPU, {wall:.2f} s wall (mean)")
    print(f"  at best on {cores} cores              {shipped / cores:6.3f} s wall")
    own = min(_own_cpu() for _ in range(runs))
    print(f"  in the Sweep's own process      {own:6.3f} s CPU (one GIL: near a floor of its own)")
    print(f"  its unavoidable part            {floor:6.3f} s CPU: {floor / cores:.3f} s wall "
          f"on {cores} cores before a single Trial's own work")  # fmt: skip
    kept, mcp = _without_mcp()
    started = time.perf_counter()
    rest = cpu([EVAL, "sweep", "--quiet", *(f"--case={c}" for c in kept)], runs)
    wall = (time.perf_counter() - started) / runs
    print(f"  without its {mcp} MCP Cases        {rest:6.3f} s CPU, {wall:.2f} s wall (mean; "
          "no provider starts)")  # fmt: skip


def _dataclasses() -> tuple[float, int]:
    """CPU seconds Python spends building the dataclasses every Sweep imports, and how many."""
    seconds, count = _last_two(DATACLASSES)
    return float(seconds), int(count)


def _own_cpu() -> float:
    """CPU seconds of the shipped Sweep's own process, its children (provider, git) left out."""
    seconds, code = _last_two(OWN_CPU)
    assert code == "0", f"eval sweep exited {code}"
    return float(seconds)


def _last_two(script: str) -> list[str]:
    """The last two words ``script`` prints on stderr, run in a fresh interpreter."""
    done = subprocess.run(
        [PYTHON, "-c", script], cwd=ROOT, env=ENV, capture_output=True, text=True, check=True
    )
    return done.stderr.split()[-2:]


def _without_mcp() -> tuple[list[str], int]:
    """The shipped Corpus's Case ids but those that connect an MCP integration, and how many
    those are."""
    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins

    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    try:
        corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    finally:
        host.close()
    kept = [c.id for c in corpus.cases if c.field("mcp") is None]
    return kept, len(corpus.cases) - len(kept)


if __name__ == "__main__":
    main()
