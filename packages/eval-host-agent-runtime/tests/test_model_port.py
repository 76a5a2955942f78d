"""The Host's model port: a vendor failure the binding raises reaches the runtime as the
runtime's own :class:`~agent_runtime.model.ModelFailure`, its reason and message intact.

Only a real model's wire raises :class:`~eval_core.hosts.ModelError` (a rate limit, an outage):
the scripted binding never does, and the fault port raises ``ModelFailure`` above this port, so
no Case of the shipped Corpus reaches the translation.
"""

from __future__ import annotations

import pytest

from agent_runtime.model import ModelFailure, ModelRequest
from eval_core.hosts import ModelCallRequest, ModelError, ModelReply, Usage
from eval_host_agent_runtime.ports import ModelPort


class _Overloaded:
    """A binding's session whose vendor refuses every call."""

    usage = Usage()
    calls = 0
    retries = 0
    model_version = None

    def __init__(self) -> None:
        self.sent: list[ModelCallRequest] = []

    def complete(self, request: ModelCallRequest) -> ModelReply:
        self.sent.append(request)
        raise ModelError("model_rate_limited", "the vendor asked us to slow down")


def test_a_vendor_failure_reaches_the_runtime_as_its_model_failure() -> None:
    session = _Overloaded()
    port = ModelPort(session)
    request = ModelRequest(
        system="You help.", messages=[{"role": "user", "content": "Hi"}], tools=[]
    )
    with pytest.raises(ModelFailure) as caught:
        port.complete(request)
    assert caught.value.reason == "model_rate_limited"
    assert caught.value.message == "the vendor asked us to slow down"
    assert isinstance(caught.value.__cause__, ModelError)
    assert len(session.sent) == 1
