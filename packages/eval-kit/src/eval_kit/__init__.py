"""eval_kit: the plug-in author's testing kit, as pytest ships pytester.

:class:`Kit` (the ``eval_kit`` fixture) runs Case dicts through the real loader and Host;
:func:`evidence` builds Evidence by hand; :func:`assert_kind_conforms` and
:func:`assert_host_conforms` check a kind and a Host against the plug-in contract;
:func:`check_installed` runs the kind checks over every installed plug-in
(``eval plugins --check``); :func:`structural_schema` is what a schema snapshot keeps;
:func:`write_soul` writes the minimal Eval Soul the kit's Corpora use. The kit imports the core
only through its public modules.

Names load on first use, from the table below: pytest imports this package for its plug-in
(``eval_kit.pytest_plugin``) in every run, and hypothesis and the core's loader would cost each
run (each xdist worker) about 0.7 s that a run using no fixture of the kit never needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eval_core.commands import structural_schema
    from eval_kit.conformance import check_installed
    from eval_kit.testing import (
        Agent,
        CaseRefused,
        HostProbe,
        Kit,
        assert_host_conforms,
        assert_kind_conforms,
        evidence,
        write_soul,
    )

WHERE = {
    "Agent": "eval_kit.testing",
    "CaseRefused": "eval_kit.testing",
    "HostProbe": "eval_kit.testing",
    "Kit": "eval_kit.testing",
    "assert_host_conforms": "eval_kit.testing",
    "assert_kind_conforms": "eval_kit.testing",
    "check_installed": "eval_kit.conformance",
    "evidence": "eval_kit.testing",
    "structural_schema": "eval_core.commands",
    "write_soul": "eval_kit.testing",
}
"""Where each public name lives: ``name -> module``."""

__all__ = [
    "Agent",
    "CaseRefused",
    "HostProbe",
    "Kit",
    "assert_host_conforms",
    "assert_kind_conforms",
    "check_installed",
    "evidence",
    "structural_schema",
    "write_soul",
]


def __getattr__(name: str) -> Any:
    try:
        module = WHERE[name]
    except KeyError:
        raise AttributeError(f"eval_kit has no public name {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
