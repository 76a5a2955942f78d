"""eval_core: the small core of an offline eval harness for tool-using LLM agents.

The public contract for plug-ins is one module, :mod:`eval_core.plugin`: the hooks, a kind and
its metadata, Case fields, fixtures, Evidence and its witnesses, the Host and model-source
ports, the testing kit and what a command plug-in reads. docs/plugins.md walks through it; the
other modules are the core's own.

Nothing here names an Expectation kind, a fixture block or a runtime.
"""

__version__ = "0.2.0"

from eval_core import _compat

_compat.install()
