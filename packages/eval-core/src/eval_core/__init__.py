"""eval_core: the small core of an offline eval harness for tool-using LLM agents.

The public contract for plug-ins: :mod:`eval_core.hookspecs` (the hooks), :mod:`eval_core.kinds`
(a kind and its metadata), :mod:`eval_core.case` (Case fields), :mod:`eval_core.fixtures` (setup
and read-back), :mod:`eval_core.evidence` (what scorers read), :mod:`eval_core.checks` (shared
value rules), :mod:`eval_core.testing` (the testing kit) and, for a command plug-in,
:mod:`eval_core.commands` (sub-commands of ``eval``). docs/plugins.md walks through them.
Nothing here names an Expectation kind, a fixture block or a runtime.
"""

__version__ = "0.1.0"
