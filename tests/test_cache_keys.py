"""Every cache is keyed by everything that can change its meaning (issue 44, item 5), and a
Sweep's Scorecard says which caches it used.

One real ``eval sweep`` after another over a tiny Corpus (an L2 Case and an L3 Case whose PDF
attachment is made by the files plug-in), each run changing exactly one input from the run
before it, really: a plug-in's code (an edited copy of the files plug-in ahead on the path),
the runtime's code (an edited copy of ``agent_runtime``), one byte of the Eval Soul, the
interpreter (another ``sys.executable``, what :func:`eval_core._util.cache_key.interpreter`
reads), and the harness's own code (an edited copy of ``eval_core``). The Scorecard's
``caches`` shows which caches missed; the verdicts never move.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import agent_runtime
import eval_core
import eval_expectations_files

from .conftest import ROOT, SOUL, minimal_case

SWEEP = """
import runpy, sys
other, sys.argv = sys.argv[1], ["eval", *sys.argv[2:]]
if other:
    sys.executable = other  # another interpreter, as every cache key names it
runpy.run_module("eval_cli", run_name="__main__")
"""

JSON = ("--format", "json")
SOUL_CACHE = "agent-runtime-soul"  # a plug-in's cache is named by its directory
EDIT = "\n\ndef _cache_key_probe() -> int:\n    return 1\n"  # a real change of code


def _copy(package: Any, site: Path, *edited: str) -> None:
    """A copy of ``package`` in ``site`` (ahead of the installed one on the path), its
    ``__init__.py`` and the ``edited`` modules edited."""
    source = Path(package.__file__).parent
    target = site / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for module in ("__init__.py", *edited):
        with (target / module).open("a") as file:
            file.write(EDIT)


def test_each_input_changed_alone_misses_the_caches_keyed_by_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copytree(SOUL, corpus / "soul")
    (corpus / "c.json").write_text(json.dumps(minimal_case("c")))
    pdf = "l3-file-pdf-layout-page-is-sent-whole.json"
    shutil.copyfile(ROOT / "corpus" / pdf, corpus / pdf)
    site = tmp_path / "site"
    site.mkdir()
    env = {
        **os.environ,
        "EVAL_CACHE_DIR": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PYTHONPATH": str(site),
    }
    env.pop("EVAL_CACHE", None)

    def sweep(other: str = "") -> dict[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", SWEEP, other, "sweep", str(corpus), "--unlocked", "-q", *JSON],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        card = json.loads(done.stdout)
        assert card["schemaVersion"] == 2
        assert [t["outcome"] for t in card["trials"]] == ["passed", "passed"]
        caches: dict[str, str] = card["caches"]
        return caches

    cold = sweep()
    assert {n: cold[n] for n in ("checked-corpus", SOUL_CACHE, "fixtures", "evidence-schema")} == {
        "checked-corpus": "miss",
        SOUL_CACHE: "miss",
        "fixtures": "miss",
        "evidence-schema": "miss",
    }
    warm = sweep()
    assert set(warm.values()) == {"hit"}, warm

    _copy(eval_expectations_files, site)  # a plug-in's code
    plugin = sweep()
    assert plugin["fixtures"] == "miss" and plugin["schemas"] in ("miss", "partial"), plugin
    assert plugin["checked-corpus"] == "miss" and plugin["manifests"] == "partial", plugin
    assert plugin[SOUL_CACHE] == "hit" and plugin["evidence-schema"] == "hit", plugin

    _copy(agent_runtime, site)  # the runtime's code
    runtime = sweep()
    assert runtime[SOUL_CACHE] == "miss" and runtime["checked-corpus"] == "miss", runtime
    assert runtime["fixtures"] == "hit" and runtime["manifests"] == "hit", runtime

    with (corpus / "soul" / "soul.yaml").open("a") as soul:  # one byte of the Soul
        soul.write("\n")
    souled = sweep()
    assert souled[SOUL_CACHE] == "miss" and souled["checked-corpus"] == "miss", souled
    assert souled["fixtures"] == "hit" and souled["schemas"] == "hit", souled

    other = sweep(sys.executable + "-another")  # the interpreter
    assert set(other.values()) == {"miss"}, other

    _copy(eval_core, site, "_util/syntax_digest.py")  # the harness's own code: its normaliser
    harness = sweep()
    assert set(harness.values()) == {"miss"}, harness
