"""`eval report` over 10,000 Trials: time to write the page, and its size.

    uv run python bench/report.py [N]      (default N = 10,000)

A synthetic Corpus of N Cases (every 50th made to fail) is swept in process on the scripted
binding into a real trial log with its transcripts, as `eval sweep` writes it; then the report
is written from that log in process (best of 3) and once through `eval report` end to end.
Targets (issue 18): < 5 s for 10,000 Trials, the HTML < 20 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import load_plugins
from eval_core._recording import transcript
from eval_report.html import write_report
from logged import logged_sweep
from synthetic import ROOT, make_corpus


def sweep(tmp: Path, count: int) -> Path:
    corpus_dir = make_corpus(tmp / "corpus", count)
    for n in range(0, count, 50):  # a failing Case now and then: the page has reasons to show
        path = corpus_dir / f"case-{n:05d}.json"
        case = json.loads(path.read_text())
        case["expect"][2] = {
            "kind": "output_contains",
            "text": "refunded",
            "ungrounded": "bench: a Case made to fail",
        }
        path.write_text(json.dumps(case))
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(corpus_dir)
    log_path = tmp / "trials.jsonl"
    wall, _cpu, card = logged_sweep(
        log_path,
        corpus,
        host,
        plugins,
        suite=corpus.suite,
        binding="scripted",
        host=host.name,
        planned=count,
        corpus_cases=count,
        plugins=[dict(p) for p in corpus.plugins],
    )
    host.close()
    print(f"Sweep                {count} Trials in {wall:.1f} s "
          f"({card.passed} passed, {card.failed} failed)")  # fmt: skip
    print(f"trial log            {log_path.stat().st_size / 1e6:.1f} MB, transcripts "
          f"{transcript.pack_path(log_path).stat().st_size / 1e6:.1f} MB")  # fmt: skip
    return log_path


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        log = sweep(Path(tmp), count)
        page = Path(tmp) / "report.html"
        times = []
        for _ in range(3):
            started = time.perf_counter()
            written = write_report([log], page, [])
            times.append(time.perf_counter() - started)
        print(f"report (in process)  {min(times):.2f} s best of 3, {written.size / 1e6:.1f} MB "
              f"HTML, {written.cases} Cases, {written.trials} Trials")  # fmt: skip
        eval_bin = str(Path(sys.executable).parent / "eval")
        started = time.perf_counter()
        done = subprocess.run(
            [eval_bin, "report", str(log), "-o", str(page)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        print(f"eval report (CLI)    {time.perf_counter() - started:.2f} s wall")
        print("targets              < 5 s and < 20 MB for 10,000 Trials")


if __name__ == "__main__":
    main()
