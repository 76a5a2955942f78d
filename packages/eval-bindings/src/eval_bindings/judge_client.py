"""The Judge client: the pinned third model, reached over the OpenAI-compatible wire.

It implements :class:`eval_core._plugins.judge.Judge`. It is configured by the environment
(``EVAL_JUDGE_BASE_URL``, ``EVAL_JUDGE_MODEL``, ``EVAL_JUDGE_API_KEY``, checked by
:func:`eval_bindings.preflight.judge`); what it is asked, and the rules of its reply, belong to
the family that asks. Any vendor fault is :class:`~eval_core.hosts.JudgeError`: a Judge failure
errors the Trial, it never scores low. Retries are the harness's, as for a model under test.
"""

from __future__ import annotations

import threading

from eval_bindings.endpoint import redact
from eval_bindings.preflight import JudgeConfig
from eval_bindings.retry import with_retry
from eval_bindings.wire import openai
from eval_bindings.wire.transport import Connections, VendorError, post_json
from eval_core.hosts import JudgeError, ModelCallRequest, ModelError, Usage

MAX_OUTPUT = 512
TIMEOUT = 120.0


class JudgeClient:
    """A configured Judge. Its calls are tallied here (``usage``, ``calls``), not in a Trial."""

    def __init__(
        self, config: JudgeConfig, *, base_delay: float = 2.0, client: Connections | None = None
    ) -> None:
        self.config = config
        self.base_delay = base_delay
        self.client = client or Connections()
        self.usage = Usage()
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        return f"{self.config.base_url}|{self.config.model}"

    @property
    def secrets(self) -> tuple[str, ...]:
        """The Judge's key, for the Sweep's redactor."""
        return (self.config.api_key,) if self.config.api_key else ()

    def ask(self, prompt: str) -> str:
        """The Judge's raw reply to ``prompt``, or :class:`JudgeError` (never the key)."""
        request = ModelCallRequest(
            system="", messages=[{"role": "user", "content": prompt}], tools=[]
        )
        body = openai.encode(self.config.model, request, MAX_OUTPUT)
        body["temperature"] = 0

        def attempt() -> str:
            with self._lock:
                self.calls += 1
            answer = post_json(
                self.client,
                openai.url(self.config.base_url),
                openai.headers(self.config.api_key),
                body,
                TIMEOUT,
            )
            billed = openai.decode_usage(answer)
            with self._lock:
                self.usage = self.usage.plus(billed)
            reply = openai.decode(answer, self.config.model)
            if not reply.text:
                raise VendorError("model_malformed_response", "the Judge answered no text")
            return reply.text

        try:
            return with_retry(attempt, base_delay=self.base_delay)
        except ModelError as exc:
            raise JudgeError(
                f"the Judge failed: {exc.reason}: {redact(exc.message, self.config.api_key)}"
            ) from None

    def close(self) -> None:
        self.client.close()

    def __repr__(self) -> str:  # never the key
        return f"JudgeClient({self.identity!r})"
