"""eval_core: the small core of an offline eval harness for tool-using LLM agents.

The public API is one module per audience: :mod:`eval_core.kinds` (what a family needs),
:mod:`eval_core.hosts` (a Host, a model source, an executor), :mod:`eval_core.records` (what
reads or writes a Sweep's records) and :mod:`eval_core.commands` (a command plug-in); the
plug-in author's testing kit is a package of its own, eval-kit (:mod:`eval_kit`). docs/api.md
lists them; the other modules are the core's own and may change without notice.

Nothing here names an Expectation kind, a fixture block or a runtime. The version is the
distribution's (``importlib.metadata.version("eval-core")``): no constant here to fall behind.
"""
