"""The core reaches a real model only through the model-source contract.

Each command runs in a real environment without ``eval-bindings``: a site directory holding
every installed distribution but that one (the interpreter started with ``-S``, so the venv's
own site-packages is never read). There, a scripted Sweep runs and clears, ``--model`` is one
line and exit 2, and a model source nobody wrote for the core (``echo-models``, a distribution
with its own entry point) runs a real-binding leg through the same release gate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from importlib.metadata import distribution
from pathlib import Path

import pytest

from eval_core._plugins import lock
from eval_core._plugins.plugins import build, discover
from tests.conftest import ROOT, judgeless_env, minimal_case

ECHO = """
from eval_core._case.evidence import Usage
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.host import ModelReply
from eval_core._plugins.model_source import ModelRefused
from eval_core._case.sent import sent


class Session:
    usage, calls, retries, model_version = Usage(), 0, 0, None

    def __init__(self):
        self.sent = []

    def complete(self, request):
        self.calls += 1
        self.usage = Usage(input_tokens=7 * self.calls, output_tokens=3 * self.calls)
        self.sent.append(sent(request.system, request.messages, [t.name for t in request.tools]))
        answer = "Your tulip bulbs ship within 2 business days."
        return ModelReply(text=answer, usage=Usage(input_tokens=7, output_tokens=3))


class Leg:
    secrets = ("echo-secret-0123456789",)
    model_id, scripted = "echo", False
    concurrency = 2

    def start(self, ceilings, planned):
        self.note = f"model=echo  {planned} Trials  ceiling {ceilings.max_tokens}"
        return self

    def session(self, case):
        return Session()

    def describe(self):
        return self.note

    def should_stop(self, card):
        return None

    def settle(self, card):
        card.effort = "echoed"

    def close(self):
        pass


class Echo:
    def open_leg(self, models_file, name):
        if name != "echo":
            raise ModelRefused(f"models refused: no model {name!r} here")
        return Leg()

    def judge(self, legs, warn):
        return None


@hookimpl
def eval_models():
    return Echo()
"""


@pytest.fixture(scope="module")
def without_bindings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The venv's site-packages, less ``eval-bindings`` (its metadata and its path entry)."""
    target = tmp_path_factory.mktemp("site")
    installed = Path(str(distribution("eval-core").locate_file("")))
    for entry in installed.iterdir():
        if entry.name.startswith(("eval_bindings", "_editable_impl_eval_bindings")):
            continue
        (target / entry.name).symlink_to(entry)
    return target


def echo_distribution(root: Path) -> Path:
    root.mkdir()
    (root / "echo_models.py").write_text(textwrap.dedent(ECHO))
    info = root / "echo_models-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-models\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[eval.plugins]\necho = echo_models\n")
    return root


def project(root: Path, *extra_sites: Path) -> Path:
    """A Corpus of one Case, locked for the plug-in set of that environment."""
    corpus = root / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    (corpus / "c.json").write_text(json.dumps(minimal_case()))
    sys.path[:0] = [str(s) for s in extra_sites]
    try:
        found = build([p for p in discover() if p[1] != "eval-bindings"])
        lock.write(corpus / lock.LOCK_NAME, found, "agent-runtime")
    finally:
        del sys.path[: len(extra_sites)]
        sys.modules.pop("echo_models", None)
    return corpus


def run(cwd: Path, sites: list[Path], *args: str) -> subprocess.CompletedProcess[str]:
    boot = (
        "import site, sys\n"
        f"for path in {[str(s) for s in sites]!r}: site.addsitedir(path)\n"
        "from eval_cli.cli import main\n"
        f"sys.argv = ['eval', *{list(args)!r}]\n"
        "main()\n"
    )
    env = judgeless_env()
    return subprocess.run(
        [sys.executable, "-S", "-c", boot],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_bindings_the_scripted_sweep_runs_and_model_is_refused(
    without_bindings: Path, tmp_path: Path
) -> None:
    corpus = project(tmp_path)
    swept = run(tmp_path, [without_bindings], "sweep", str(corpus), "--quiet")
    assert swept.returncode == 0, swept.stdout + swept.stderr
    assert "CLEARED" in swept.stdout
    refused = run(
        tmp_path, [without_bindings], "sweep", str(corpus), "--model", "sonnet", "--max-tokens", "9"
    )
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert refused.stdout == "" and "Traceback" not in refused.stderr
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "no model source is installed" in refused.stderr


def test_a_third_party_model_source_runs_a_leg_through_the_release_gate(
    without_bindings: Path, tmp_path: Path
) -> None:
    echo = echo_distribution(tmp_path / "echo-site")
    corpus = project(tmp_path, echo)
    sites = [without_bindings, echo]
    swept = run(
        tmp_path, sites, "sweep", str(corpus), "--model", "echo", "--max-tokens", "500",
        "--format", "json", "--quiet",
    )  # fmt: skip
    assert swept.returncode == 0, swept.stdout + swept.stderr
    card = json.loads(swept.stdout)
    assert (card["modelId"], card["binding"], card["effort"]) == ("echo", "model", "echoed")
    assert card["spend"] == {**card["spend"], "calls": 1, "inputTokens": 7, "outputTokens": 3}
    assert card["trials"][0]["outcome"] == "passed"
    unknown = run(tmp_path, sites, "sweep", str(corpus), "--model", "nope", "--max-tokens", "9")
    assert (unknown.returncode, unknown.stderr) == (2, "models refused: no model 'nope' here\n")
