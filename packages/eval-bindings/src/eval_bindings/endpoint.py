"""The real-endpoint binding: a pinned model reached over its wire format.

It implements the same port as the scripted binding, so the Host's tool loop cannot tell them
apart. The session is the Trial's billing record: every attempt sent counts as a call and adds
the usage the vendor reported for it, failed and retried attempts included. Each request is
recorded as the wire encoded it: the body put on the transport, read back into the neutral
shape, so the provider-prompt kinds score what the vendor received. The credential is
held here and nowhere else, and is scrubbed from every message that leaves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from eval_bindings.pins import ModelPin
from eval_bindings.retry import with_retry
from eval_bindings.window import Window
from eval_bindings.wire import anthropic, openai
from eval_bindings.wire.transport import Connections, VendorError, post_json
from eval_core.hosts import CaseBase, ModelCallRequest, ModelError, ModelReply, ModelRequest, Usage

REDACTED = "[credential redacted]"


def redact(text: str, secret: str) -> str:
    return text.replace(secret, REDACTED) if secret else text


class EndpointSession:
    """One Trial's calls to the endpoint, and what they cost."""

    def __init__(self, binding: EndpointBinding) -> None:
        self._binding = binding
        self.usage = Usage()
        self.handed = Usage()  # what the replies handed to the Host said they used
        self.calls = 0
        self.retries = 0
        self.model_version: str | None = None
        self.sent: list[ModelRequest] = []
        self.replied: list[list[str]] = []
        self.failure: str | None = None  # the last vendor failure, whole (see ModelSession)
        self._deadline: float | None = None  # the Trial's bound, from its first call

    def complete(self, request: ModelCallRequest) -> ModelReply:
        b = self._binding
        pin = b.pin
        if pin.wire == "openai":
            body = openai.encode(pin.model, request, pin.max_output_tokens, pin.effort, pin.options)
            self.sent.append(openai.recorded(body))
        else:
            body = anthropic.encode(pin.model, request, pin.max_output_tokens, pin.options)
            self.sent.append(anthropic.recorded(body))
        if self._deadline is None and pin.trial_timeout_s is not None:
            self._deadline = time.monotonic() + pin.trial_timeout_s
        try:
            reply = with_retry(
                lambda: self._attempt(body),
                base_delay=b.base_delay,
                max_wait=b.max_wait,
                sleep=b.sleep,
                on_retry=self._retried,
                deadline=self._deadline,
            )
        except ModelError as exc:
            message = redact(exc.message, b.api_key)
            spent = self._deadline is not None and time.monotonic() >= self._deadline - 0.05
            if spent and "trial_timeout_s" not in message:
                message += (
                    f" (the Trial's bound of {pin.trial_timeout_s:g}s, trial_timeout_s, is spent)"
                )
            fault = VendorError(exc.reason, message)
            self.failure = str(fault)
            raise fault from None
        self.handed = self.handed.plus(reply.usage)
        if reply.model_version is not None:
            self.model_version = reply.model_version
        if reply.tool_calls:
            self.replied.append([c.call_id for c in reply.tool_calls])
        return reply

    def _retried(self, _fault: VendorError) -> None:
        self.retries += 1

    def _time_left(self, pin: ModelPin) -> float:
        """This attempt's timeout: the pin's per call, cut to what is left of the Trial's bound
        (a call that would start with nothing left is not sent: the Trial errs, not retried)."""
        if self._deadline is None:
            return pin.timeout_s
        left = self._deadline - time.monotonic()
        if left <= 0.05:
            raise VendorError(
                "model_timeout",
                f"the Trial's bound of {pin.trial_timeout_s:g}s, trial_timeout_s, is spent "
                f"after {self.calls} call(s) and {self.retries} retry(ies)",
                final=True,
            )
        return min(pin.timeout_s, left)

    def _attempt(self, body: dict[str, Any]) -> ModelReply:
        b = self._binding
        wire = openai if b.pin.wire == "openai" else anthropic
        with b.window:
            timeout = self._time_left(b.pin)
            self.calls += 1
            try:
                answer = post_json(
                    b.client,
                    wire.url(b.pin.base_url),
                    wire.headers(b.api_key),
                    body,
                    timeout,
                    b.pin.max_response_bytes,
                )
            except VendorError as fault:
                if fault.reason == "model_rate_limited":
                    fault.narrowed = b.window.rate_limited()
                raise
        b.window.succeeded()
        try:
            billed = wire.decode_usage(answer)
        except VendorError:
            billed = None
        if billed is not None:
            self.usage = self.usage.plus(billed)
        reply: ModelReply = wire.decode(answer, b.pin.model)
        return reply


class EndpointBinding:
    """A pinned model; ``base_delay``/``max_wait``/``sleep`` are injectable so tests are fast.

    The Trials of ``--jobs N`` share one binding: each thread keeps its own persistent
    connection in ``client`` (:class:`~eval_bindings.wire.transport.Connections`), and
    :meth:`close` closes them all.
    """

    scripted = False

    def __init__(
        self,
        pin: ModelPin,
        api_key: str,
        *,
        base_delay: float = 2.0,
        max_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        client: Connections | None = None,
    ) -> None:
        self.pin = pin
        self.api_key = api_key
        self.base_delay = base_delay
        self.max_wait = max_wait
        self.sleep = sleep
        self.client = client or Connections()
        self.window = Window()  # calls at once, narrowed by rate limits

    @property
    def model_id(self) -> str:
        return self.pin.name

    def session(self, case: CaseBase) -> EndpointSession:
        return EndpointSession(self)

    def close(self) -> None:
        self.client.close()

    def __reduce__(self) -> tuple[type[EndpointBinding], tuple[ModelPin, str]]:
        """Pickled for an executor's workers (``--executor ray``): the pin and the credential
        travel, and each worker opens its own connections and concurrency window."""
        return (EndpointBinding, (self.pin, self.api_key))

    def __repr__(self) -> str:  # never the key
        return f"EndpointBinding({self.pin.name!r}, {self.pin.wire}, {self.pin.base_url})"
