"""The testing kit for plug-in authors, as pytest ships pytester: :class:`Kit` (the
``eval_kit`` fixture), :func:`evidence`, and the conformance checks of a kind and a Host
(:func:`assert_kind_conforms`, :func:`assert_host_conforms`), and :func:`structural_schema`,
the structure of a kind's JSON Schema that a schema snapshot keeps (what eval-scaffold writes
for a new plug-in), and :func:`check_installed`, the same checks over every installed kind and
Case field (``eval plugins --check``). See :mod:`eval_core._kit.testing` for a worked example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._kit.conformance import check_installed
    from eval_core._kit.testing import (
        Agent,
        CaseRefused,
        HostProbe,
        Kit,
        assert_host_conforms,
        assert_kind_conforms,
        evidence,
        write_soul,
    )
    from eval_core._plugins.schemas import structural as structural_schema

WHERE = {
    "Agent": "eval_core._kit.testing:Agent",
    "CaseRefused": "eval_core._kit.testing:CaseRefused",
    "HostProbe": "eval_core._kit.testing:HostProbe",
    "Kit": "eval_core._kit.testing:Kit",
    "assert_host_conforms": "eval_core._kit.testing:assert_host_conforms",
    "assert_kind_conforms": "eval_core._kit.testing:assert_kind_conforms",
    "check_installed": "eval_core._kit.conformance:check_installed",
    "evidence": "eval_core._kit.testing:evidence",
    "structural_schema": "eval_core._plugins.schemas:structural",
    "write_soul": "eval_core._kit.testing:write_soul",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

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

__getattr__ = Public(__name__, WHERE)


def __dir__() -> list[str]:
    return __all__
