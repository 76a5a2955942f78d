"""The models-file pin that sweeps the local server: what ``eval sweep --model`` is given.

The pin forces the first model call of a Turn to call a Tool (``tool_choice = "required"``,
llama.cpp then constrains the reply to one well-formed call of an offered Tool) and the call
after a Tool result to answer in text (``"none"``): a 135M model decides neither reliably on its
own. ``temperature = 0`` and a ``seed`` make the same Case answer the same way on every run.
"""

from __future__ import annotations

PIN_NAME = "local-smollm2"
MODEL_ID = "smollm2-135m-instruct"  # the alias the server answers to
CREDENTIAL_ENV = "EVAL_LOCAL_API_KEY"  # the server checks no key; a pin always names one
LOCAL_KEY = "local-no-auth-key"
SEED = 7


def pin_toml(
    base_url: str, *, slots: int = 1, name: str = PIN_NAME, max_output_tokens: int = 64
) -> str:
    """A ``[models.<name>]`` table for the server at ``base_url`` (``http://127.0.0.1:N/v1``)."""
    return "\n".join(
        (
            f"[models.{name}]",
            'wire = "openai"',
            f'model = "{MODEL_ID}"',
            f'base_url = "{base_url}"',
            f'credential = "env://{CREDENTIAL_ENV}"',
            "dated = true  # a fixed file: it cannot move",
            "price_input_per_mtok = 0.0",
            "price_output_per_mtok = 0.0",
            f"max_output_tokens = {max_output_tokens}",
            "timeout_s = 120",
            f"max_concurrency = {slots}  # the server's parallel slots",
            'tool_choice = "required"',
            'tool_choice_after_result = "none"',
            "parallel_tool_calls = false",
            "temperature = 0.0",
            f"seed = {SEED}",
            "",
        )
    )
