"""The testing kit for plug-in authors, as pytest ships pytester: :class:`Kit` (the
``eval_kit`` fixture), :func:`evidence`, and the conformance checks of a kind and a Host
(:func:`assert_kind_conforms`, :func:`assert_host_conforms`). See
:mod:`eval_core._kit.testing` for a worked example.
"""

from __future__ import annotations

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

__all__ = [
    "Agent",
    "CaseRefused",
    "HostProbe",
    "Kit",
    "assert_host_conforms",
    "assert_kind_conforms",
    "evidence",
    "write_soul",
]
